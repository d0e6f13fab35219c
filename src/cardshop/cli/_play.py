"""The ``play`` command: a person plays one seat of a game against bots in the terminal.

Works for every family through the core's protocol only: the table is the family's
``render(game, seat)`` (what that seat may see), the person's input is read with
``game.parse_action(text, seat)``, and every step goes through :mod:`cardshop.driver`
(in a simultaneous game the person's action joins the bots' choices for the tick, and
the tick resolves when the person has acted). Besides an action (its text or its
number) the prompt takes ``help``, ``actions [TEXT]``, ``undo``, ``table``,
``save FILE`` and ``quit``. A saved game is a record (docs/records.md) that
``--resume`` continues.
"""

from __future__ import annotations

import difflib
import io
import secrets
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated

import typer

from cardshop.bots import Bot, make_bot
from cardshop.cli._app import app, atomic_output, console, err_console, fail, paragraph, user_errors
from cardshop.cli._basic import first_player_option, result_lines, stage
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    CardshopError,
    SetupError,
)
from cardshop.core.family import (
    Family,
    event_text,
)
from cardshop.core.frontdoor import new_game as new_family_game
from cardshop.core.game import (
    Dynamics,
    Game,
)
from cardshop.core.loader import load_variant
from cardshop.core.series import family_for
from cardshop.driver import Step
from cardshop.driver import step as driver_step
from cardshop.records import GameRecord, record_game

HUMAN = "human"

MAX_LINE = 1000
"""The longest input line the prompt takes (actions and commands are short)."""

LIST_LIMIT = 40
"""Up to this many legal actions are listed with numbers; more are summarised."""

MATCH_LIMIT = 50
"""``actions TEXT`` lists at most this many matching actions."""

EXAMPLES = 5
"""How many example actions a summary of a long list shows."""

HELP = """\
Type an action (its text), or its number from the list. Other commands:
  help            this text
  actions [TEXT]  list the legal actions now (those starting with TEXT) with numbers
  table           draw the table again
  undo            take back your last action of this turn (until another seat acts)
  save FILE       write the game so far to FILE (continue later with --resume FILE)
  quit            leave the game (it is saved only if you asked for --record or save)"""


def _close_matches(text: str, legal: Sequence[Action]) -> list[str]:
    """Up to three legal actions whose texts are close to a mistyped ``text``."""
    texts = list(dict.fromkeys(str(action) for action in legal))
    return difflib.get_close_matches(" ".join(text.lower().split()), texts, n=3, cutoff=0.6)


def _verbs(legal: Sequence[Action]) -> dict[str, list[Action]]:
    """The legal actions grouped by verb, in the order of the list."""
    groups: dict[str, list[Action]] = {}
    for action in legal:
        groups.setdefault(action.verb, []).append(action)
    return groups


def _summary(legal: Sequence[Action]) -> str:
    """A long list of legal actions in one paragraph: counts by verb and examples."""
    groups = _verbs(legal)
    counts = ", ".join(f"{verb} {len(actions):,}" for verb, actions in groups.items())
    examples = [actions[0] for actions in groups.values()][:EXAMPLES]
    for action in legal:
        if len(examples) >= EXAMPLES:
            break
        if action not in examples:
            examples.append(action)
    shown = "; ".join(str(a) for a in examples)
    return (
        f"{len(legal):,} legal actions ({counts}), e.g. {shown}. Type one, or "
        "'actions TEXT' to list those starting with TEXT."
    )


class Session:
    """One person's game: the game, who plays each seat, the undo stack, the record."""

    def __init__(self, game: Game, seat: Seat, bots: dict[Seat, Bot], names: list[str]) -> None:
        self.game = game
        self.seat = seat
        self.bots = bots
        self.names = names
        self.family = family_for(game.variant)
        moves = game.moves
        self.steps = moves[-1].step + 1 if moves else 0  # steps played so far
        self.undo_stack: list[tuple[Game, int]] = []
        self.drawn: int | None = None  # self.steps when the table was last drawn

    # ------------------------------------------------------------ records

    def record(self) -> GameRecord:
        return record_game(self.game, self.names)

    def save(self, path: str) -> None:
        """Write the record to ``path``: the whole file, or nothing (no half-written file)."""
        text = self.record().dumps()
        with atomic_output(path) as f:
            f.write(text)
        console.print(f"saved to {path}", markup=False)

    # ------------------------------------------------------------ output

    def who(self, seat: Seat) -> str:
        return "you" if seat == self.seat else self.names[seat]

    def report(self, done: Step) -> None:
        """Print a step: its actions (every seat's, once the tick is resolved), its events."""
        if self.game.dynamics is Dynamics.SIMULTANEOUS or len(done.actions) > 1:
            parts = ", ".join(f"seat {s} ({self.who(s)}) {a}" for s, a in done.actions.items())
            console.print(f"tick {done.number}: {parts}", markup=False)
        elif done.actions:
            ((s, action),) = done.actions.items()
            console.print(f"seat {s} ({self.who(s)}): {action}", markup=False)
        for event in done.events:  # as the person's seat may know them
            text = event_text(self.family, self.game.variant, event, self.seat)
            console.print(f"    {text}", markup=False)

    def show(self, again: bool = True) -> None:
        """Draw the table as the person's seat sees it (unless drawn for this state)."""
        if not again and self.drawn == self.steps:
            return
        self.drawn = self.steps
        console.print(self.family.render(self.game, self.seat), markup=False)

    def legal(self) -> Sequence[Action]:
        return self.game.legal_actions(self.seat)

    def prompt_actions(self) -> Sequence[Action]:
        legal = self.legal()
        if len(legal) <= LIST_LIMIT:
            listed = "  ".join(f"{i}) {a}" for i, a in enumerate(legal, start=1))
            console.print(f"Your move: {listed}", markup=False)
        else:
            console.print(f"Your move: {_summary(legal)}", markup=False)
        return legal

    def help_text(self) -> str:
        lines = [HELP]
        legal = self.legal() if self.seat in self.game.acting else []
        if legal:
            lines.append("Actions you may take now, by kind:")
            for verb, actions in _verbs(legal).items():
                more = f" ({len(actions):,} in all)" if len(actions) > 1 else ""
                lines.append(f"  {verb:<14}e.g. {actions[0]}{more}")
        if self.family.description:
            lines.append(f"The {self.family.name} family: {paragraph(self.family.description)}")
        digest = self.family.digest
        if digest and "://" not in digest and not digest.startswith("/"):
            lines.append(f"Its rules: docs/{digest} in cardshop's documentation.")
        elif digest:
            lines.append(f"Its rules: {digest}")
        return "\n".join(lines)

    def list_matching(self, prefix: str) -> None:
        legal = self.legal()
        matching = [(i, a) for i, a in enumerate(legal, start=1) if str(a).startswith(prefix)]
        if not matching:
            shown = prefix if len(prefix) <= 40 else f"{prefix[:37]}..."
            console.print(
                f"no legal action starts with {shown!r}; type 'actions' for all of them",
                markup=False,
            )
            return
        for i, action in matching[:MATCH_LIMIT]:
            console.print(f"  {i}) {action}", markup=False)
        if len(matching) > MATCH_LIMIT:
            console.print(
                f"  ... and {len(matching) - MATCH_LIMIT:,} more: type more of the action "
                "after 'actions' to narrow the list",
                markup=False,
            )

    # ------------------------------------------------------------ playing

    def play_bots(self) -> None:
        """Let the bots play until the person must act or the game is over."""
        game = self.game
        while not game.is_over and self.seat not in game.acting:
            done = driver_step(game, self.bots, index=self.steps)
            self.steps += 1
            self.report(done)
            self.undo_stack.clear()  # another seat acted: nothing before it can be undone

    def act(self, action: Action) -> None:
        """Play the person's action: a turn, or the person's part of a tick."""
        game = self.game
        before = (game.clone(), self.steps)
        round_before = stage(game)[0]
        done = driver_step(game, self.bots, given={self.seat: action}, index=self.steps)
        self.steps += 1
        self.report(done)
        if len(done.actions) > 1 or stage(game)[0] != round_before:
            self.undo_stack.clear()  # others acted with it, or a new round began
        else:
            self.undo_stack.append(before)

    def undo(self) -> None:
        if not self.undo_stack:
            console.print(
                "nothing to undo: undo takes back your own actions of this turn only",
                markup=False,
            )
            return
        self.game, self.steps = self.undo_stack.pop()
        self.drawn = None
        console.print("undone", markup=False)

    def why_not(self, action: Action) -> str:
        """The family's reason why ``action`` is not legal now, if it gives one."""
        game = self.game.clone()
        others: Mapping[Seat, Action] = {
            s: game.legal_actions(s)[0] for s in game.acting if s != self.seat
        }
        try:
            if others:
                game.apply_joint({**others, self.seat: action})
            else:
                game.apply(action, self.seat)
        except CardshopError as exc:
            return f"not now: {exc}"
        return f"not now: {action} is not among the legal actions"

    def handle(self, line: str) -> bool:
        """Handle one input line when the person must act; return False to quit."""
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
        word, _, rest = text.partition(" ")
        word = word.lower()
        if word in ("quit", "exit"):
            return False
        if word in ("help", "?"):
            console.print(self.help_text(), markup=False)
            return True
        if word == "table":
            self.show()
            return True
        if word == "actions":
            self.list_matching(rest.strip())
            return True
        if word == "save":
            self.save_command(rest.strip())
            return True
        if word == "undo":
            self.undo()
            return True
        if any(ch.isdigit() and not ch.isascii() for ch in text):
            console.print(
                "write numbers with the digits 0-9. Type 'help' for the commands.", markup=False
            )
            return True
        legal = self.legal()
        if text.isascii() and text.isdigit():
            index = int(text)
            if not 1 <= index <= len(legal):
                shown = text if len(text) <= 12 else f"{text[:9]}..."
                console.print(
                    f"{shown} is not in the list: choose 1 to {len(legal):,}, or type 'help'",
                    markup=False,
                )
                return True
            action = legal[index - 1]
        else:
            try:
                action = self.game.parse_action(text, self.seat)
            except CardshopError as exc:
                close = _close_matches(text, legal)
                if close:
                    console.print(
                        f"{text!r} is not an action; did you mean {' or '.join(close)}? "
                        "Type 'actions' to list the legal ones, 'help' for the commands.",
                        markup=False,
                    )
                else:
                    console.print(f"{exc}. Type 'help' for the commands.", markup=False)
                return True
            if action not in legal:
                console.print(self.why_not(action), markup=False)
                if len(legal) <= LIST_LIMIT:
                    console.print(f"legal now: {', '.join(map(str, legal))}", markup=False)
                else:
                    console.print(f"legal now: {_summary(legal)}", markup=False)
                return True
        self.act(action)
        return True

    def save_command(self, path: str) -> None:
        if not path:
            console.print("save needs a file name: save FILE", markup=False)
            return
        try:
            self.save(path)
        except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            console.print(f"cannot save to {path!r}: {reason}", markup=False)
        except Exception as exc:  # the record cannot be made: keep playing all the same
            console.print(
                f"cannot save to {path!r}: {type(exc).__name__}: {paragraph(str(exc))}",
                markup=False,
            )


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


def _default_bot(family: Family) -> str:
    """The bot the other seats get when none is named: the family's ``greedy`` bot, or
    the uniform random one for a family that has none."""
    return "greedy" if "greedy" in family.bots else "random"


def _start(
    variant: str | None,
    players: int | None,
    seat: int | None,
    bot: str | None,
    seed: int | None,
    first_player: int | None,
    resume: Path | None,
) -> Session:
    if resume is not None:
        record = GameRecord.read(resume)
        game: Game = record.replay(variant) if variant else record.replay()
        if players is not None and players != record.players:
            raise SetupError(f"{resume} is a game of {record.players} players, not {players}")
        humans = [s for s, name in enumerate(record.bots) if name == HUMAN]
        if seat is None:
            if len(humans) != 1:
                raise SetupError(f"{resume}: say which seat you play with --seat")
            seat = humans[0]
        if not 0 <= seat < record.players:
            raise SetupError(f"--seat must be a seat 0..{record.players - 1}, not {seat}")
        names = list(record.bots)
        bot = bot or _default_bot(family_for(game.variant))
        for s in range(record.players):
            if s != seat and names[s] in (HUMAN, "unknown"):
                names[s] = bot
        names[seat] = HUMAN
        resumed = f"resumed {resume}: {len(record.actions)} actions replayed and verified"
    else:
        if variant is None:
            raise SetupError("name a variant to play (e.g. klunker-en), or --resume FILE")
        loaded = load_variant(variant)
        family = family_for(loaded)
        bot = bot or _default_bot(family)
        make_bot(bot, loaded, 0)  # an unknown bot fails before the game starts
        if players is None:
            players = loaded.players.min
        if seed is None:
            seed = secrets.randbits(32)
        game = new_family_game(loaded, players, seed, **first_player_option(family, first_player))
        if seat is None:
            seat = 0
        if not 0 <= seat < players:
            raise SetupError(f"--seat must be a seat 0..{players - 1}, not {seat}")
        names = [bot] * players
        names[seat] = HUMAN
        resumed = ""
    bots = {
        s: make_bot(names[s], game.variant, derive_seed(game.seed, "bot", s))
        for s in range(game.players)
        if s != seat
    }
    if resumed:
        console.print(resumed, markup=False)
    console.print(
        f"{game.variant.title or game.variant.name}: {game.players} players, seed "
        f"{game.seed} ({game.variant.family} family, {game.dynamics.value}); "
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
        int | None, typer.Option("--players", "-p", help="Number of players (default: fewest).")
    ] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="Your seat (default 0).")] = None,
    bot: Annotated[
        str | None,
        typer.Option(
            "--bot",
            "-b",
            help=(
                "The other seats' bot: random, ismcts[:N] or one of the family's "
                "(default: the family's greedy bot, random for a family without one)."
            ),
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Seed of the game.")] = None,
    first_player: Annotated[
        int | None,
        typer.Option(
            "--first-player", help="First start player (seat), for families that have one."
        ),
    ] = None,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Continue a saved game (a record file).")
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option("--record", help="Write the game record to this file at the end or on quit."),
    ] = None,
) -> None:
    """Play a game of any family against bots in the terminal.

    The table is drawn before each of your decisions and the legal actions are
    listed (a long list is summarised: 'actions TEXT' lists those starting with
    TEXT); type an action or its number. 'help' lists the commands, 'undo' takes
    back your last action of this turn, 'save FILE' saves the game for --resume.
    In a simultaneous game each of your actions is your part of a tick: the bots
    choose theirs unseen and the tick resolves.
    """
    session = _start(variant, players, seat, bot, seed, first_player, resume)
    _tolerant_stdin()
    interrupted = False
    try:
        quit_early = _loop(session)
    except KeyboardInterrupt:
        err_console.print("interrupted: leaving the game unfinished", markup=False)
        quit_early = interrupted = True
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
        except CardshopError:
            raise
        except Exception as exc:  # the record cannot be made: say so in one paragraph
            raise fail(f"cannot write the record {record}: {type(exc).__name__}: {exc}") from None
    if quit_early:
        console.print("game left unfinished", markup=False)
        if interrupted:  # Ctrl-C: the shell's code for SIGINT, after the record is written
            raise typer.Exit(130)
        return
    session.show()
    names = [session.who(s) for s in range(game.players)]
    for line in result_lines(session.family, game.result(), names):
        console.print(line, markup=False)


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
