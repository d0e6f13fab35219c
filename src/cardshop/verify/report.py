"""What ``cardshop verify`` found: the report, its text and HTML, and counterexamples."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cardshop.core.errors import CardshopError
from cardshop.core.game import Game
from cardshop.invariants import describe_invariants
from cardshop.records import GameRecord, RecordedStep
from cardshop.support.files import write_text_atomic
from cardshop.verify._search import CHECKS, Fault, Search, layer_sizes

__all__ = ["REPORT_FORMAT", "VerifyReport", "counterexample", "make_report"]

REPORT_FORMAT = "cardshop-verify/1"


@dataclass(slots=True)
class Counterexample:
    """A fault's shortest path from a deal, as a record and the bad state's position."""

    fault: Fault
    record: GameRecord
    position: dict[str, Any] | None
    """The bad state (None if the game is over: a finished game has no position; a
    reader refuses it where it breaks the rules' own consistency)."""
    clauses: tuple[str, ...]
    before: dict[str, Any] | None = None
    """The state before the record's last step, which loads where :attr:`position`
    does not: that step played on it leads to the bad state again (None at a deal)."""

    def to_dict(self) -> dict[str, Any]:
        fault = self.fault
        return {
            "check": fault.check,
            "invariant": fault.invariant,
            "detail": fault.detail,
            "depth": fault.depth,
            "clauses": list(self.clauses),
            "step": None
            if fault.step is None
            else {str(seat): str(action) for seat, action in fault.step.items()},
            "steps": len(self.record.steps),
            "position": self.position,
            "before": self.before,
        }


def counterexample(search: Search, fault: Fault) -> Counterexample:
    """The record of the path from a deal to ``fault`` (and through its step, where the
    step plays) and the position of the last state of it."""
    setup, steps, game, prior = search.replay_path(fault.state)
    family = search.family
    recorded = [
        replace(RecordedStep.of(step, events, family), chance=chance)
        for step, chance, events in steps
    ]
    last: Game = game
    before = _position(prior)
    if fault.step is not None and fault.chance is not None:
        before = _position(game)
        outcomes, _ = search.play(game, fault.step)
        hit = next(o for o in outcomes if o.chance == fault.chance)
        recorded.append(replace(RecordedStep.of(hit.step, hit.events, family), chance=hit.chance))
        last = hit.game
    record = GameRecord(
        variant=search.variant,
        players=search.players,
        seed=search.seed,
        options=dict(search.options),
        bots=("verify",) * search.players,
        steps=recorded,
        chance=setup,
        source="<verify>",
    )
    clauses = describe_invariants(family.name).get(fault.invariant, ("", ()))[1]
    return Counterexample(fault, record, _position(last), tuple(clauses), before)


def _position(game: Game | None) -> dict[str, Any] | None:
    """The game's position, or None for none or a finished game (which has none)."""
    if game is None or game.is_over:
        return None
    try:
        return game.to_position()
    except CardshopError:
        return None


@dataclass(slots=True)
class VerifyReport:
    """The outcome of one search; :meth:`to_dict` is its JSON (``format``
    ``cardshop-verify/1``), :meth:`text` its summary in words."""

    data: dict[str, Any]
    counterexamples: list[Counterexample] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No fault found (which proves the checks only if :attr:`complete`)."""
        return not self.counterexamples

    @property
    def complete(self) -> bool:
        return bool(self.data["complete"])

    def to_dict(self) -> dict[str, Any]:
        return {**self.data, "faults": [c.to_dict() for c in self.counterexamples]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def write_counterexamples(self, folder: str | Path) -> list[Path]:
        """Each counterexample as ``NAME-N.record.jsonl`` and ``NAME-N.position.json``."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for i, found in enumerate(self.counterexamples, start=1):
            base = f"{self.data['variant']}-{found.fault.check}-{i}"
            record = out / f"{base}.record.jsonl"
            position = out / f"{base}.position.json"
            found.record.write(record)
            written.append(record)
            if found.position is not None:
                write_text_atomic(position, json.dumps(found.position, indent=2) + "\n")
                written.append(position)
        return written

    def text(self) -> str:
        d = self.data
        lines = [
            f"verify {d['variant']} ({d['family']}), {d['players']} players: "
            + ("complete" if d["complete"] else f"exhaustive to depth {d['exhaustive_to']}"),
            f"  {d['states']:,} distinct states ({d['generated']:,} steps played, "
            f"{d['deals']:,} deals, {d['chance_outcomes']:,} chance outcomes), depth "
            f"{d['depth']}, {d['seconds']:.1f} s, {d['states_per_second']:,.0f} states/s",
            f"  ends: {d['terminal']['finished']:,} finished, {d['terminal']['capped']:,} "
            f"capped; {d['termination']}",
        ]
        if not d["complete"]:
            lines.append(f"  {d['remaining']:,} states found and not yet expanded")
        for what, got in d["coverage"].items():
            never = got["never"]
            lines.append(
                f"  {what}: {len(got['reached'])} reached"
                + (f", never: {', '.join(never)}" if never else ", none left out")
            )
        for line in d["shrunk"]:
            lines.append(f"  shrunk: {line}")
        if self.counterexamples:
            for found in self.counterexamples:
                f = found.fault
                where = f" [{', '.join(found.clauses)}]" if found.clauses else ""
                lines.append(
                    f"FAULT {f.check} ({f.invariant}){where} at depth {f.depth}, "
                    f"{len(found.record.steps)} steps from a deal: {f.detail}"
                )
        else:
            lines.append(
                "no fault: every check held on every state"
                + ("" if d["complete"] else " found so far")
            )
        lines.append(f"  keys: {d['keys']}")
        return "\n".join(lines)

    def html(self) -> str:
        """The report as a page of its own (no script)."""
        d = self.to_dict()
        e = html.escape
        rows = "".join(
            f"<tr><th>{e(str(k))}</th><td>{e(str(v))}</td></tr>"
            for k, v in d.items()
            if k not in ("coverage", "faults", "layers")
        )
        cover = "".join(
            f"<tr><th>{e(k)}</th><td>{e(', '.join(v['reached']))}</td>"
            f"<td>{e(', '.join(v['never']) or '-')}</td></tr>"
            for k, v in d["coverage"].items()
        )
        faults = "".join(
            f"<li><b>{e(f['check'])}</b> ({e(f['invariant'])}) at depth {f['depth']}: "
            f"{e(f['detail'])}</li>"
            for f in d["faults"]
        )
        return (
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>verify {e(d['variant'])}</title></head><body>"
            f"<h1>cardshop verify: {e(d['variant'])}, {d['players']} players</h1>"
            f"<table>{rows}</table><h2>Coverage</h2><table><tr><th></th><th>reached</th>"
            f"<th>never reached</th></tr>{cover}</table><h2>Faults</h2>"
            f"<ul>{faults or '<li>none</li>'}</ul></body></html>\n"
        )


FINGERPRINTS = (
    "64-bit fingerprints (hash compaction: two states may share one with a chance below "
    "states**2 / 2**65, and one of them would go unchecked)"
)


def _keys_text(search: Search) -> str:
    if search.exact:
        return "whole keys"
    if not search.bitstate:
        return FINGERPRINTS
    size = (1 << search.bitstate) // 8
    return (
        f"bit-state hashing: a table of 2**{search.bitstate} bits ({size:,} bytes), two "
        "bits a state; a state whose two bits other states set is taken as visited and "
        "goes unchecked, with what only it leads to: about "
        f"{search.missed():.3g} states were taken as visited though they were not"
    )


def make_report(search: Search, shrunk: tuple[str, ...] = ()) -> VerifyReport:
    """The report of ``search`` as it stands, with the counterexample of each fault."""
    exhaustive = search.exhaustive_to
    if not search.complete:
        termination = "not checked: the search is not complete"
    elif "termination" not in search.checks:
        termination = "not checked"
    elif search.bitstate:
        termination = "not checked: bit-state hashing keeps no edges between states"
    elif any(f.check == "termination" for f in search.faults):
        termination = "a line of play never ends"
    elif search.finished == 0 and search.capped:
        termination = "every line of play ends, but only by the variant's cap"
    else:
        termination = "every line of play ends"
    variant = search.variant
    data: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "family": variant.family,
        "variant": variant.name,
        "variant_hash": variant.content_hash,
        "players": search.players,
        "seed": search.seed,
        "options": dict(search.options),
        "checks": [c for c in CHECKS if c in search.checks],
        "keys": _keys_text(search),
        "bitstate": search.bitstate,
        "missed": round(search.missed(), 6),
        "complete": search.complete,
        "exhaustive_to": exhaustive,
        "depth": search.depth,
        "remaining": search.remaining,
        "states": search.states,
        "generated": search.generated,
        "deals": search.deals,
        "chance_outcomes": search.outcomes,
        "terminal": {"finished": search.finished, "capped": search.capped},
        "termination": termination,
        "layers": layer_sizes(search.depths),
        "seconds": round(search.seconds, 3),
        "states_per_second": round(search.states / search.seconds, 1) if search.seconds else 0.0,
        "coverage": search.coverage(),
        "shrunk": list(shrunk),
    }
    return VerifyReport(data, [counterexample(search, f) for f in search.faults[:20]])
