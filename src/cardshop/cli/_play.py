"""The ``play`` command: a person plays a game against bots in the terminal.

The table is drawn before each of the person's decisions; the legal actions are
listed with numbers. Besides an action (its text or its number) the prompt takes
``help``, ``undo`` (within the person's own turn), ``table``, ``save FILE`` and
``quit``. A saved game is a record (docs/records.md) that ``--resume`` continues.
"""

from __future__ import annotations

import io
import secrets
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from cardshop._core import Action, Seat, derive_seed
from cardshop._errors import CardshopError, SetupError
from cardshop._loader import load_variant
from cardshop.bots import Bot, make_bot
from cardshop.cli._app import app, atomic_output, console, err_console, fail, paragraph, user_errors
from cardshop.klunker.events import Dealt, Event
from cardshop.klunker.game import VERBS, Game, Phase, new_game
from cardshop.klunker.variant import as_klunker
from cardshop.records import GameRecord, record_game

HUMAN = "human"

MAX_LINE = 1000
"""The longest input line the prompt takes (actions and commands are short)."""

HELP = """\
Type an action, or its number from the list. Actions:
  {verbs}
Other commands:
  help         this text
  table        draw the table again
  undo         take back your last action of this turn
  save FILE    write the game so far to FILE (continue later with --resume FILE)
  quit         leave the game (it is saved only if you asked for --record or save)
Rules in short: a complete row of {size} cards of one kind in your safe is sold at
once. It pays {payout} cash when the safe holds 1, 2, 3... rows at the moment of
sale{overrides}. Whoever has the most cash when the deck runs out wins."""


def _counts_text(kinds: Sequence[str], counts: Sequence[int]) -> str:
    parts = [f"{kind} {c}" for kind, c in zip(kinds, counts, strict=True) if c]
    return ", ".join(parts) if parts else "-"


def _safe_text(kinds: Sequence[str], counts: Sequence[int], size: int) -> str:
    """A safe by rows: ``shoes 3/4``; a kind with more than a row shows each row."""
    rows = []
    for kind, c in zip(kinds, counts, strict=True):
        while c > 0:
            rows.append(f"{kind} {min(c, size)}/{size}")
            c -= size
    return "\n".join(rows) if rows else "-"


def draw_table(game: Game, seat: Seat, names: Sequence[str]) -> Table:
    """The table as ``seat`` sees it: windows, safes by rows, banks, purchase cards."""
    obs = game.observation(seat)
    size = game.rules.set_size
    discard = sum(obs.discard)
    title = (
        f"Round {obs.round} - {obs.phase.value} phase - start player: seat {obs.start_player}"
        f" - deck {obs.deck_size} - discard {discard}"
    )
    table = Table(title=title, title_justify="left", show_lines=True)
    for column in ("Seat", "Player", "Cash", "Hand", "Window", "Safe (rows)", "Purchase"):
        table.add_column(column)
    for s in range(obs.players):
        mark = ">" if obs.current_player == s else " "
        who = "you" if s == seat else names[s]
        card = obs.purchase_cards[s]
        purchase = "-" if not card else str(card)
        if card and obs.phase in (Phase.PURCHASE, Phase.SELL) and card == obs.buying:
            purchase += " (buying)"
        table.add_row(
            f"{mark} {s}",
            who,
            str(obs.cash[s]),
            f"{obs.hand_sizes[s]} cards",
            _counts_text(obs.kinds, obs.windows[s]),
            _safe_text(obs.kinds, obs.safes[s], size),
            purchase,
        )
    return table


def _help_text(game: Game) -> str:
    rules = game.rules
    payout = ", ".join(str(p) for p in rules.payout)
    fixed = [f"{k} always {p}" for k, p in zip(rules.kinds, rules.override, strict=True) if p >= 0]
    overrides = f" ({'; '.join(fixed)})" if fixed else ""
    return HELP.format(
        verbs="\n  ".join(VERBS.values()),
        size=rules.set_size,
        payout=payout,
        overrides=overrides,
    )


def _event_lines(game: Game, seat: Seat, events: Sequence[Event]) -> list[str]:
    """Event lines for the person at ``seat``: only what that seat may know."""
    lines = []
    for event in events:
        if isinstance(event, Dealt) and event.seat == seat and event.zone == "hand":
            kinds = ", ".join(sorted(game.card_kind(c) for c in event.cards))
            lines.append(f"you are dealt: {kinds}")
        else:
            lines.append(str(event))
    return lines


class Session:
    """One person's game: the game, who plays each seat, the undo stack, the record."""

    def __init__(self, game: Game, seat: Seat, bots: dict[Seat, Bot], names: list[str]) -> None:
        self.game = game
        self.seat = seat
        self.bots = bots
        self.names = names
        self.undo_stack: list[Game] = []
        self.turn_key: tuple[int, Phase] | None = None
        self.drawn: int | None = None  # len(history) when the table was last drawn

    def record(self) -> GameRecord:
        return record_game(self.game, self.names)

    def save(self, path: str) -> None:
        """Write the record to ``path``: the whole file, or nothing (no half-written file)."""
        text = self.record().dumps()
        with atomic_output(path) as f:
            f.write(text)
        console.print(f"saved to {path}", markup=False)

    def play_bots(self) -> None:
        """Let the bots act until it is the person's turn or the game is over."""
        game = self.game
        while not game.is_over and game.current_player != self.seat:
            seat = game.current_player
            assert seat is not None
            action = self.bots[seat].choose(game.observation(seat), game.legal_actions())
            events = game.apply(action)
            console.print(f"seat {seat} ({self.names[seat]}): {action}", markup=False)
            for line in _event_lines(game, self.seat, events):
                console.print(f"    {line}", markup=False)
            self.undo_stack.clear()

    def show(self, again: bool = True) -> None:
        """Draw the table and the person's hand (unless drawn for this state already)."""
        game = self.game
        if not again and self.drawn == len(game.history):
            return
        self.drawn = len(game.history)
        console.print(draw_table(game, self.seat, self.names))
        obs = game.observation(self.seat)
        console.print(f"Your hand: {_counts_text(obs.kinds, obs.hand)}", markup=False)

    def prompt_actions(self) -> list[Action]:
        legal = self.game.legal_actions()
        listed = "  ".join(f"{i}) {a}" for i, a in enumerate(legal, start=1))
        console.print(f"Your move: {listed}", markup=False)
        return legal

    def handle(self, line: str) -> bool:
        """Handle one input line on the person's turn; return False to quit."""
        game = self.game
        text = line.strip()
        if not text:
            return True
        if len(text) > MAX_LINE:
            console.print(
                f"that line has {len(text):,} characters; actions and commands are short "
                f"(at most {MAX_LINE}). Type 'help' for the commands.",
                markup=False,
            )
            return True
        word = text.split(maxsplit=1)[0].lower()
        if word in ("quit", "exit"):
            return False
        if word in ("help", "?"):
            console.print(_help_text(game), markup=False)
            return True
        if word == "table":
            self.show()
            return True
        if word == "save":
            parts = text.split(maxsplit=1)
            if len(parts) != 2:
                console.print("save needs a file name: save FILE", markup=False)
                return True
            try:
                self.save(parts[1])
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                console.print(f"cannot save to {parts[1]!r}: {reason}", markup=False)
            return True
        if word == "undo":
            if not self.undo_stack:
                console.print(
                    "nothing to undo: undo takes back your own actions of this turn only",
                    markup=False,
                )
                return True
            self.game = self.undo_stack.pop()
            console.print("undone", markup=False)
            self.drawn = None
            return True
        legal = game.legal_actions()
        if any(ch.isdigit() and not ch.isascii() for ch in text):
            console.print(
                "write numbers with the digits 0-9. Type 'help' for the commands.", markup=False
            )
            return True
        if text.isascii() and text.isdigit():
            index = int(text)
            if not 1 <= index <= len(legal):
                shown = text if len(text) <= 12 else f"{text[:9]}..."
                console.print(
                    f"{shown} is not in the list: choose 1 to {len(legal)}, or type 'help'",
                    markup=False,
                )
                return True
            action = legal[index - 1]
        else:
            try:
                action = game.parse_action(text)
            except CardshopError as exc:
                console.print(f"{exc}. Type 'help' for the commands.", markup=False)
                return True
            if action not in legal:
                try:
                    game.clone().apply(action)
                except CardshopError as exc:
                    console.print(f"not now: {exc}", markup=False)
                listed = ", ".join(str(a) for a in legal)
                console.print(f"legal now: {listed}", markup=False)
                return True
        self.act(action)
        return True

    def act(self, action: Action) -> None:
        game = self.game
        key = (game.round, game.phase)
        if key != self.turn_key:
            self.undo_stack.clear()
            self.turn_key = key
        self.undo_stack.append(game.clone())
        events = game.apply(action)
        for line in _event_lines(game, self.seat, events):
            console.print(f"    {line}", markup=False)
        if game.current_player != self.seat or (game.round, game.phase) != key:
            self.undo_stack.clear()  # the turn is over: it can no longer be taken back
            self.turn_key = None


def _read_line(prompt: str) -> str | None:
    """One line from the person, or None at the end of input."""
    try:
        return console.input(prompt)
    except EOFError:
        return None


def _tolerant_stdin() -> None:
    """Read bytes that are not valid text as replacement characters, not as a crash."""
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(errors="replace")


def save_recovery(session: Session) -> Path | None:
    """Save the game so far to a new recovery file; return its path (None if impossible).

    The file goes to the current folder, or to the temporary folder if that fails:
    ``cardshop-recovery-<seed>-<time>.jsonl``, a record that ``--resume`` continues.
    """
    try:
        text = session.record().dumps()
    except Exception:  # the game itself is broken: nothing sensible to save
        return None
    name = f"cardshop-recovery-{session.game.seed}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        path = folder / name
        try:
            with atomic_output(path) as f:
                f.write(text)
        except OSError:
            continue
        return path
    return None


def _start(
    variant: str | None,
    players: int | None,
    seat: int | None,
    bot: str,
    seed: int | None,
    first_player: int | None,
    resume: Path | None,
) -> Session:
    if resume is not None:
        record = GameRecord.read(resume)
        replayed = record.replay(variant) if variant else record.replay()
        if not isinstance(replayed, Game):
            raise SetupError(f"{resume} is a {record.family} game; play resumes Klunker games")
        game = replayed
        if players is not None and players != record.players:
            raise SetupError(f"{resume} is a game of {record.players} players, not {players}")
        humans = [s for s, name in enumerate(record.bots) if name == HUMAN]
        if seat is None:
            if len(humans) != 1:
                raise SetupError(f"{resume}: say which seat you play with --seat")
            seat = humans[0]
        names = list(record.bots)
        for s in range(record.players):
            if s != seat and names[s] in (HUMAN, "unknown"):
                names[s] = bot
        names[seat] = HUMAN
        console.print(
            f"resumed {resume}: {len(record.actions)} actions replayed and verified", markup=False
        )
    else:
        if variant is None:
            raise SetupError("name a variant to play (e.g. klunker-en), or --resume FILE")
        var = as_klunker(load_variant(variant))
        if players is None:
            players = var.players.min
        if seed is None:
            seed = secrets.randbits(32)
        game = new_game(var, players, seed, first_player)
        if seat is None:
            seat = 0
        names = [bot] * players
        if not 0 <= seat < players:
            raise SetupError(f"--seat must be a seat 0..{players - 1}, not {seat}")
        names[seat] = HUMAN
    bots = {
        s: make_bot(names[s], game.variant, derive_seed(game.seed, "bot", s))
        for s in range(game.players)
        if s != seat
    }
    console.print(
        f"{game.variant.title or game.variant.name}: {game.players} players, seed {game.seed}; "
        f"you are seat {seat}. Type 'help' for help.",
        markup=False,
    )
    return Session(game, seat, bots, names)


@app.command()
@user_errors
def play(
    variant: Annotated[
        str | None, typer.Argument(help="Built-in variant name or YAML file.")
    ] = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Number of players.")
    ] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="Your seat (default 0).")] = None,
    bot: Annotated[
        str, typer.Option("--bot", "-b", help="The other seats' bot: random, greedy, ismcts[:N].")
    ] = "greedy",
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Seed of the game.")] = None,
    first_player: Annotated[
        int | None, typer.Option("--first-player", help="First start player (seat).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue a saved game (a record file).")
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Write the game record to this file at the end or on quit."),
    ] = None,
) -> None:
    """Play a game against bots in the terminal.

    The table is drawn before each of your decisions and the legal actions are
    listed; type an action or its number. 'help' lists the commands, 'undo' takes
    back your last action of this turn, 'save FILE' saves the game for --resume.
    """
    make_bot(bot, variant or "klunker-en", 0)  # an unknown bot fails before the game starts
    session = _start(variant, players, seat, bot, seed, first_player, resume)
    _tolerant_stdin()
    try:
        quit_early = _loop(session)
    except KeyboardInterrupt:
        err_console.print("interrupted: leaving the game unfinished", markup=False)
        quit_early = True
    except Exception as exc:  # a fault of this program: keep the person's game
        where = save_recovery(session)
        saved = (
            f"the game so far is saved in {where} (continue it with: cardshop play "
            f"--resume {where})"
            if where is not None
            else "the game could not be saved"
        )
        err_console.print(
            f"cardshop: internal error: {type(exc).__name__}: {paragraph(str(exc))}; {saved}",
            markup=False,
        )
        raise typer.Exit(1) from None
    game = session.game
    if record is not None:
        try:
            session.save(str(record))
        except OSError as exc:
            raise fail(f"cannot write the record {record}: {exc.strerror}") from None
    if quit_early:
        console.print("game left unfinished", markup=False)
        return
    console.print(draw_table(game, session.seat, session.names))
    result = game.result()
    console.print(f"Game {result.termination.value} after {result.rounds} rounds.", markup=False)
    for s in result.order:
        who = "you" if s == session.seat else session.names[s]
        mark = "  winner" if s in result.winners else ""
        console.print(
            f"  seat {s} ({who}): {result.scores[s]} cash, rank {result.ranks[s]}{mark}",
            markup=False,
        )


def _loop(session: Session) -> bool:
    """Play until the game ends (False) or the person leaves (True)."""
    while True:
        session.play_bots()
        if session.game.is_over:
            return False
        session.show(again=False)
        session.prompt_actions()
        line = _read_line(f"seat {session.seat}> ")
        if line is None:
            err_console.print("end of input: leaving the game unfinished", markup=False)
            return True
        if not session.handle(line):
            return True
