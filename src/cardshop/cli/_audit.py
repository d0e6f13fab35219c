"""The ``audit`` command: invariants, measures and comparisons of variants (docs/auditing.md)."""

from __future__ import annotations

import contextlib
import json
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cardshop.audit import (
    AuditInterrupted,
    AuditReport,
    ComparisonReport,
    report_from_games,
    run_audit,
)
from cardshop.audit.paired import PairedComparison, compare_variants
from cardshop.cli._app import app, atomic_output, console, err_console, fail, user_errors
from cardshop.cli._stop import raise_if_stopped, signals_stop, stop_signal
from cardshop.measures import MAX_GAMES, MAX_GAMES_BYTES, dump_games
from cardshop.support.files import check_writable

REPORT_EXTRA = 'python -m pip install ".[report]" in a clone of cardshop'


def _html_writer(path: Path) -> Any:
    """The ``cardshop.report`` package, its plotting library checked before any game."""
    from cardshop import report as html

    try:
        html.check_available()
    except html.ReportError as exc:
        raise fail(
            f"--html {path}: {exc}; or leave out --html and use --json or --markdown"
        ) from None
    return html


def _check_writable(option: str, path: Path) -> None:
    """Fail now, before any game is played, if ``path`` cannot be written (as
    :func:`cardshop.support.files.atomic_output` writes it: see there)."""
    try:
        check_writable(path)
    except OSError as exc:
        raise fail(f"{option} {path}: cannot write there: {exc.strerror or exc}") from None


def _write_html(writer: Any, report: dict[str, Any], path: Path) -> None:
    try:
        writer.write_html(report, path)
    except OSError as exc:
        raise fail(f"--html {path}: cannot write the report: {exc.strerror or exc}") from None


class _Games:
    """The audit's progress on stderr: games played of the total, per player count.

    On a terminal a bar per player count; elsewhere (a log, a pipe) a plain line at
    every tenth of a player count's games. Each call checks for a stop first."""

    def __init__(self, quiet: bool) -> None:
        self.games = 0
        self.quiet = quiet
        self.label = ""
        self.played = 0
        self.bars: Progress | None = None
        self.task: Any = None

    def line(self, text: str) -> None:
        """A line as each part of the audit starts."""
        raise_if_stopped()
        start = re.fullmatch(r"(.*players): (\d+) games", text)
        if start:  # a player count's games start
            self.label, self.games = start[1], int(start[2])
            if self.bars is not None:
                self.task = self.bars.add_task(self.label, total=self.games)
        if not self.quiet:
            err_console.print(f"audit: {text}", markup=False)

    def game(self, players: int, done: int) -> None:
        """A game of a player count was played: ``done`` of them so far."""
        raise_if_stopped()
        self.played += 1
        if self.quiet:
            return
        if self.bars is not None:
            if self.task is not None:
                self.bars.update(self.task, completed=done)
        elif self.games and done * 10 // self.games != (done - 1) * 10 // self.games:
            err_console.print(f"audit: {self.label}: {done} of {self.games} games", markup=False)

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        if self.quiet or not err_console.is_terminal:
            yield
            return
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err_console,
        ) as self.bars:
            yield
        self.bars = None


# The options of an audit, shared with ``cardshop compare`` (an audit of two variants).
Games = Annotated[
    int | None,
    typer.Option(
        "--games",
        "-n",
        help="Simulated games per player count (default: the family's audit default, "
        "1000 unless the family says otherwise).",
        show_default=False,
    ),
]
PlayerCounts = Annotated[
    list[int] | None,
    typer.Option("--players", "-p", help="Player count to audit (repeatable; default: all)."),
]
Seed = Annotated[int, typer.Option("--seed", "-s", help="Seed of the whole audit.")]
Examples = Annotated[
    int,
    typer.Option("--examples", help="State machine runs (0 skips it; it needs hypothesis)."),
]
CheckEvery = Annotated[
    int | None,
    typer.Option(
        "--check-every",
        help="In simulated games, check hidden information, copies and every legal "
        "action's text every N steps (default: the family's audit default, 10 unless "
        "the family says otherwise).",
        show_default=False,
    ),
]
CheckGames = Annotated[
    str | None,
    typer.Option(
        "--check-games",
        metavar="N|all",
        help="Play the first N simulated games of each player count in debug mode, "
        "every invariant checked, and the others measured only; 'all': every game "
        "(default: the family's audit default; Klunker's checks the first 100).",
        show_default=False,
    ),
]
MaxCapShare = Annotated[
    float | None,
    typer.Option(
        "--max-cap-share",
        help="Share of games allowed to reach the round cap (0..1) with --cap-policy "
        "fail (default: the family's, 0 unless it says otherwise).",
        show_default=False,
    ),
]
CapPolicy = Annotated[
    str | None,
    typer.Option(
        "--cap-policy",
        help="fail: more capped games than --max-cap-share fail the audit; report: "
        "capped games are a statistic only, for rules that allow them (default: the "
        "family's audit default).",
        show_default=False,
    ),
]
Workers = Annotated[
    int | None,
    typer.Option(
        "--workers",
        "-w",
        help="Processes that play the simulated games (default: CPUs; 1: this one).",
        show_default=False,
    ),
]
Bots = Annotated[
    list[str] | None,
    typer.Option(
        "--bots",
        "--policy",
        "-b",
        help="The bot the simulated players are (repeatable: one per seat in turn; "
        "default: the family's audit default, random unless the family says "
        "otherwise, e.g. Wühltisch's greedy). Any bot of the variant's family, e.g. "
        "Klunker's thrifty (holds cards back, to look for games that do not end). "
        "Two different bots add the skill gap to the measures.",
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]
AsMarkdown = Annotated[bool, typer.Option("--markdown", help="Print the report as Markdown.")]
Html = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help=f"Also write the report as one HTML page with charts (needs {REPORT_EXTRA}).",
    ),
]
SaveGames = Annotated[
    Path | None,
    typer.Option(
        "--save-games",
        help="Write a summary of every simulated game (JSON Lines) to recompute the "
        "report later with --from-games.",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")]
Replays = Annotated[
    int,
    typer.Option(
        "--replays",
        help="Play each simulated game's deal R times, the same bots in the same seats "
        "seeded anew (1..100; costs R times the games): 2 or more adds the luck measures, "
        "the share of the outcomes' variance the deal explains. Needs bots that choose "
        "at random (docs/measures.md).",
    ),
]

Graded = Annotated[
    str | None,
    typer.Option(
        "--graded",
        metavar="RUNGS",
        help="Also play a graded ladder per player count: comma-separated bots, weakest "
        "first (e.g. random,greedy), or 'default' for the ladder's default rungs; "
        "reports each step's win share and whether the ladder holds (docs/auditing.md).",
    ),
]


@app.command()
@user_errors
def audit(
    variants: Annotated[
        list[str] | None,
        typer.Argument(
            help="Built-in variant name or YAML file; two of them compare the variants "
            "(none with --from-games).",
            show_default=False,
        ),
    ] = None,
    games: Games = None,
    players: PlayerCounts = None,
    seed: Seed = 0,
    examples: Examples = 50,
    check_every: CheckEvery = None,
    check_games: CheckGames = None,
    max_cap_share: MaxCapShare = None,
    cap_policy: CapPolicy = None,
    workers: Workers = None,
    bots: Bots = None,
    as_json: AsJson = False,
    as_markdown: AsMarkdown = False,
    html: Html = None,
    save_games: SaveGames = None,
    from_games: Annotated[
        Path | None,
        typer.Option(
            "--from-games",
            help="Compute the report from games saved by --save-games (no game is played "
            "and no invariant checked).",
        ),
    ] = None,
    quiet: Quiet = False,
    replays: Replays = 1,
    graded: Graded = None,
    precision: Annotated[
        float | None,
        typer.Option(
            "--precision",
            help="Play until each --precision-measure's 95% interval has a half-width of at "
            "most this (0.02: two points of a share); --games is then the cap.",
        ),
    ] = None,
    precision_measures: Annotated[
        list[str] | None,
        typer.Option(
            "--precision-measure",
            help="A measure id for --precision (repeatable; a trailing * matches any "
            "suffix; default: win_share_*).",
        ),
    ] = None,
) -> None:
    """Check every invariant of VARIANT (of any family) and measure its games; with two
    variants, compare them.

    Runs the invariant state machine and N simulated games per player count, played
    by bots, then reports each invariant (with a replayable counterexample if
    violated), the share of games that were capped, game lengths, win rates by seat
    and by position from the first player, and the game-quality measures (balance,
    skill gap, lead changes, drama, ...; docs/measures.md), each with a 95% interval.
    Two variants are played on the same seeds by the same bots and each measure is
    shown side by side with the difference and its interval.
    Options not given take the family's audit defaults (bots, games, check interval,
    cap policy: docs/auditing.md), and the report says which it took.
    Exit code 0: everything held; 1: an invariant was violated or, with cap policy
    fail, too many games reached the round cap; 2: bad input.
    """
    names = variants or []
    if as_json and as_markdown:
        raise fail("choose one of --json and --markdown")
    if len(names) > 2:
        raise fail(f"audit takes one variant, or two to compare, not {len(names)}")
    if from_games is not None and names:
        raise fail(
            "--from-games computes the report from saved games: name no variant with it "
            f"(got {', '.join(names)})"
        )
    if from_games is None and not names:
        raise fail(
            "name a variant to audit (or two to compare), or give --from-games FILE "
            "(see 'cardshop audit --help')"
        )
    if from_games is not None and save_games is not None:
        raise fail("--from-games and --save-games do not go together")
    if graded is not None and from_games is not None:
        raise fail(
            "--graded plays games, and --from-games plays none: audit the variant with "
            "--graded instead"
        )
    if graded is not None and len(names) == 2:
        raise fail("--graded audits one variant, not a comparison")

    writer = _html_writer(html) if html is not None else None
    for option, path in (("--html", html), ("--save-games", save_games)):
        if path is not None:
            _check_writable(option, path)

    shown = _Games(quiet)
    report: AuditReport | ComparisonReport
    stopped: int | None = None
    try:
        with signals_stop():
            if from_games is not None:
                report = report_from_games(from_games)
                if isinstance(report, ComparisonReport):
                    report = PairedComparison.of(report.a, report.b)
            else:
                options: dict[str, Any] = {
                    "games": games,
                    "players": players,
                    "seed": seed,
                    "examples": examples,
                    "check_every": check_every,
                    "check_games": _check_games(check_games),
                    "max_cap_share": max_cap_share,
                    "cap_policy": cap_policy,
                    "workers": workers,
                    "bots": bots or None,
                    "progress": shown.line,
                    "played": shown.game,
                }
                if replays != 1:
                    options["replays"] = replays
                if graded is not None:
                    options["graded"] = graded
                if precision is not None:
                    if len(names) == 2:
                        raise fail("--precision audits one variant, not a comparison")
                    options.update(precision=precision, precision_measures=precision_measures)
                with shown.shown():
                    if len(names) == 2:
                        report = compare_variants(names[0], names[1], **options)
                    else:
                        report = run_audit(names[0], **options)
    except AuditInterrupted as exc:
        # Stopped half-way: the report of what was done is written as asked, marked
        # partial (a second signal is ignored meanwhile), then the command exits.
        report = exc.report
        stopped = stop_signal(exc) or signal.SIGINT
    except BaseException as exc:
        signum = stop_signal(exc)
        if signum is None:
            raise
        err_console.print(
            f"cardshop: stopped by {signal.Signals(signum).name}; no report was written",
            markup=False,
        )
        raise typer.Exit(128 + signum) from None
    if save_games is not None and stopped is None:
        sections = (
            report.games_sections()
            if isinstance(report, ComparisonReport)
            else [report.games_section()]
        )
        text = dump_games(sections)
        size, count = len(text.encode()), sum(len(section.games) for section in sections)
        if size > MAX_GAMES_BYTES or count > MAX_GAMES:
            err_console.print(
                f"cardshop: warning: --save-games {save_games} is not written: {count:,} "
                f"games in {size:,} bytes; --from-games reads at most {MAX_GAMES:,} games "
                f"in {MAX_GAMES_BYTES:,} bytes",
                markup=False,
            )
        else:
            try:
                with atomic_output(save_games) as f:
                    f.write(text)
            except OSError as exc:
                raise fail(
                    f"--save-games {save_games}: cannot write: {exc.strerror or exc}"
                ) from None
    if html is not None:
        _write_html(writer, report.to_dict(), html)
        # On stderr: stdout may carry the report as JSON or Markdown.
        err_console.print(f"audit: wrote the HTML report to {html}", markup=False)
    if as_json:
        console.print(json.dumps(report.to_dict(), indent=2), markup=False)
    elif as_markdown:
        console.print(report.to_markdown(), markup=False)
    else:
        console.print(report.to_text(), markup=False)
    if stopped is not None:
        skipped = "; no --save-games file was written" if save_games is not None else ""
        err_console.print(
            f"cardshop: stopped by {signal.Signals(stopped).name} after {shown.played:,} "
            f"games; the report is partial{skipped}",
            markup=False,
        )
        raise typer.Exit(128 + stopped)
    if precision is not None and isinstance(report, AuditReport):
        from cardshop.audit.precision import precision_summary

        err_console.print(
            f"audit: {precision_summary(report, precision, precision_measures)}", markup=False
        )
    if not report.ok:
        raise typer.Exit(1)


def _check_games(value: str | None) -> int | str | None:
    """``--check-games`` as :func:`~cardshop.audit.run_audit` takes it: a whole number,
    ``"all"``, or the text as given (which the audit's plan refuses, naming it)."""
    if value is None:
        return None
    text = value.strip()
    return int(text) if text.isdecimal() else text
