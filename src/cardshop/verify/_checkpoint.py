"""Checkpoints of ``cardshop verify``: a search stopped by a budget or a signal is
written to a file and goes on from it later, as if it had never stopped.

A checkpoint is a zip file. ``search.json`` holds the variant (as resolved data), the
search's settings, counts, coverage and faults; the numbered states are arrays of
machine words (their parents, depths, keys and edges); the states still to check and
expand are their games as JSON, one a line. Reading one trusts nothing in it: every
size is bounded before it is read, every array must fit the counts, every state's
parent must come before it, and every game is read by its family's checked JSON
reader and must have the key its number was given.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import zipfile
from array import array
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import IO, Any

from cardshop.core.actions import Action
from cardshop.core.errors import CardshopError, SetupError
from cardshop.core.game import Game
from cardshop.core.loader import variant_from_data
from cardshop.core.registry import get_family

__all__ = ["CHECKPOINT_FORMAT", "CheckpointError", "load_search", "save_search"]

CHECKPOINT_FORMAT = "cardshop-verify-checkpoint/1"
MAX_HEADER = 64 * 1024 * 1024
"""The largest ``search.json`` read."""
MAX_STATES = 2**31
"""The most states a checkpoint may number."""
MAX_EDGES = 2**33
MAX_GAME_LINE = 16 * 1024 * 1024
"""The longest game (JSON) one line of a checkpoint may hold."""
MAX_FAULTS = 100_000
_WORD = 8


class CheckpointError(CardshopError, ValueError):
    """A checkpoint file that cannot be read, or does not fit the search resumed."""


def _fail(path: Path, why: str) -> CheckpointError:
    return CheckpointError(f"{path}: not a verify checkpoint that can be resumed: {why}")


def _key_data(key: Hashable) -> Any:
    if isinstance(key, tuple):
        return [_key_data(k) for k in key]
    if (isinstance(key, (int, str)) and not isinstance(key, bool)) or key is None:
        return key
    raise SetupError(
        f"a state key holds a {type(key).__name__}; a checkpoint keeps keys of nested "
        "tuples of ints and strs only"
    )


def _key_of(data: Any, depth: int = 0) -> Hashable:
    if depth > 64:
        raise ValueError("a state key nested deeper than 64")
    if isinstance(data, list):
        return tuple(_key_of(d, depth + 1) for d in data)
    if (isinstance(data, (int, str)) and not isinstance(data, bool)) or data is None:
        return data
    raise ValueError(f"a state key holds a {type(data).__name__}")


def _fault_data(fault: Any) -> dict[str, Any]:
    return {
        "check": fault.check,
        "invariant": fault.invariant,
        "detail": fault.detail,
        "state": fault.state,
        "depth": fault.depth,
        "step": None
        if fault.step is None
        else [[seat, str(action)] for seat, action in fault.step.items()],
        "chance": None if fault.chance is None else list(fault.chance),
        "other": fault.other,
    }


def save_search(search: Any, path: str | os.PathLike[str]) -> Path:
    """Write ``search`` (a :class:`~cardshop.verify.Search`) to ``path``, atomically:
    the file is whole or not written. Returns the path written."""
    target = Path(path)
    pending = [*search.frontier[search._at :], *search.layer]
    header = {
        "format": CHECKPOINT_FORMAT,
        "variant": search.variant.to_data(),
        "variant_hash": search.variant.content_hash,
        "family": search.variant.family,
        "players": search.players,
        "seed": search.seed,
        "options": dict(search.options),
        "checks": list(search.checks),
        "exact": search.exact,
        "keep_going": search.keep_going,
        "bitstate": search.bitstate,
        "started": search.started,
        "complete": search.complete,
        "counts": {
            "states": search.states,
            "edges": len(search.edges_from),
            "frontier": len(search.frontier) - search._at,
            "layer": len(search.layer),
            "observed": len(search._observed),
            "generated": search.generated,
            "outcomes": search.outcomes,
            "deals": search.deals,
            "finished": search.finished,
            "capped": search.capped,
        },
        "seconds": search.seconds,
        "actions_seen": sorted(search.actions_seen),
        "events_seen": sorted(search.events_seen),
        "faults": [_fault_data(f) for f in search.faults[:MAX_FAULTS]],
        "byteorder": sys.byteorder,
    }
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            zf.writestr("search.json", json.dumps(header))
            zf.writestr("parents.bin", array("q", search.parents).tobytes())
            zf.writestr("depths.bin", array("q", search.depths).tobytes())
            zf.writestr("edges_from.bin", array("q", search.edges_from).tobytes())
            zf.writestr("edges_to.bin", array("q", search.edges_to).tobytes())
            observed = array("q")
            for (seat, seen), (legal, number) in search._observed.items():
                observed.extend((seat, _signed(seen), _signed(legal), number))
            zf.writestr("observed.bin", observed.tobytes())
            if search.exact:
                with zf.open("keys.jsonl", "w") as out:
                    for key in search.numbered:
                        out.write(json.dumps(_key_data(key)).encode() + b"\n")
            else:
                zf.writestr("keys.bin", array("q", map(_signed, search.numbered)).tobytes())
            if search.bitstate:
                zf.writestr("bits.bin", bytes(search.bits))
            with zf.open("pending.jsonl", "w") as out:
                for number, game in pending:
                    out.write(f"{number} ".encode() + game.to_json().encode() + b"\n")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def _signed(value: Any) -> int:
    """A 64-bit fingerprint as a signed machine word (an array of ``q``)."""
    number = int(value)
    return number - 2**64 if number >= 2**63 else number


def _unsigned(value: int) -> int:
    return value + 2**64 if value < 0 else value


def _member(zf: zipfile.ZipFile, path: Path, name: str, size: int | None, limit: int) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise _fail(path, f"it has no {name}") from None
    if size is not None and info.file_size != size:
        raise _fail(path, f"{name} holds {info.file_size} bytes, not the {size} its counts say")
    if info.file_size > limit:
        raise _fail(path, f"{name} is larger than {limit} bytes")
    with zf.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit or (size is not None and len(data) != size):
        raise _fail(path, f"{name} is not the size it says")
    return data


def _words(zf: zipfile.ZipFile, path: Path, name: str, count: int) -> array[int]:
    out = array("q")
    out.frombytes(_member(zf, path, name, count * _WORD, MAX_EDGES * _WORD))
    return out


def _lines(zf: zipfile.ZipFile, path: Path, name: str, most: int) -> Iterator[bytes]:
    """The lines of member ``name``, each bounded, and at most ``most`` of them."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise _fail(path, f"it has no {name}") from None
    with zf.open(info) as f:
        stream: IO[bytes] = f
        for count in range(most + 1):
            line = stream.readline(MAX_GAME_LINE + 1)
            if not line:
                return
            if count == most:
                raise _fail(path, f"{name} holds more than the {most} lines its counts say")
            if len(line) > MAX_GAME_LINE:
                raise _fail(path, f"a line of {name} is longer than {MAX_GAME_LINE} bytes")
            yield line


def _bits(header: dict[str, Any], path: Path) -> int:
    from cardshop.verify._search import MAX_BITS, MIN_BITS

    value = header.get("bitstate", 0)
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or not (value == 0 or MIN_BITS <= value <= MAX_BITS):
        raise _fail(path, f"bitstate is not 0 or a whole number {MIN_BITS}..{MAX_BITS}")
    return int(value)


def _count(header: dict[str, Any], name: str, limit: int, path: Path) -> int:
    counts = header.get("counts")
    value = counts.get(name) if isinstance(counts, dict) else None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise _fail(path, f"counts.{name} is not a whole number 0..{limit}")
    return value


def load_search(path: str | os.PathLike[str], search_type: Any) -> Any:
    """The search a checkpoint holds, ready to :meth:`~cardshop.verify.Search.run` on
    (``search_type`` is :class:`~cardshop.verify.Search`); :class:`CheckpointError`
    for a file that is not one, and a ``SetupError`` for a family not installed."""
    source = Path(path)
    try:
        zf = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as exc:
        raise _fail(
            source, str(exc) if isinstance(exc, zipfile.BadZipFile) else exc.strerror or str(exc)
        ) from None
    with zf:
        try:
            header = json.loads(_member(zf, source, "search.json", None, MAX_HEADER))
        except ValueError as exc:  # JSON or UTF-8
            raise _fail(source, f"search.json is not JSON: {exc}") from None
        if not isinstance(header, dict) or header.get("format") != CHECKPOINT_FORMAT:
            raise _fail(source, f"its format is not {CHECKPOINT_FORMAT!r}")
        if header.get("byteorder") != sys.byteorder:
            raise _fail(source, "it was written on a machine of another byte order")
        try:
            return _rebuild(zf, source, header, search_type)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if isinstance(exc, CardshopError):
                raise
            raise _fail(source, f"{type(exc).__name__}: {exc}") from None


def _rebuild(zf: zipfile.ZipFile, source: Path, header: dict[str, Any], search_type: Any) -> Any:
    get_family(str(header["family"]))  # a SetupError naming the installed families
    variant = variant_from_data(dict(header["variant"]), source=f"{source}:search.json")
    if variant.content_hash != header["variant_hash"]:
        raise _fail(source, "its variant does not have the content hash it states")
    options = header["options"]
    if not isinstance(options, dict):
        raise _fail(source, "options is not a mapping")
    search = search_type(
        variant,
        int(header["players"]),
        int(header["seed"]),
        options,
        tuple(str(c) for c in header["checks"]),
        bool(header["exact"]),
        bool(header["keep_going"]),
        _bits(header, source),
    )
    states = _count(header, "states", MAX_STATES, source)
    edges = _count(header, "edges", MAX_EDGES, source)
    observed = _count(header, "observed", MAX_STATES * 8, source)
    parents = _words(zf, source, "parents.bin", states)
    depths = _words(zf, source, "depths.bin", states)
    for number in range(states):
        parent = parents[number]
        if not -1 <= parent < number:
            raise _fail(source, f"state {number} has parent {parent}, not an earlier state")
        want = 0 if parent < 0 else depths[parent] + 1
        if depths[number] != want:
            raise _fail(source, f"state {number} is at depth {depths[number]}, not {want}")
    search.parents = parents
    search.depths = array("l", depths)
    search.edges_from = _words(zf, source, "edges_from.bin", edges)
    search.edges_to = _words(zf, source, "edges_to.bin", edges)
    for ends in (search.edges_from, search.edges_to):
        if ends and not 0 <= min(ends) <= max(ends) < states:
            raise _fail(source, "an edge names a state that is not numbered")
    if search.exact:
        keys: list[Hashable] = [
            _key_of(json.loads(line)) for line in _lines(zf, source, "keys.jsonl", states)
        ]
    else:
        keys = [_unsigned(k) for k in _words(zf, source, "keys.bin", states)]
    if len(keys) != states:
        raise _fail(source, f"it holds {len(keys)} keys for {states} states")
    if search.bitstate:
        search.numbered = array("Q", keys)
        size = len(search.bits)
        search.bits = bytearray(_member(zf, source, "bits.bin", size, size))
    else:
        search.numbered = keys
        search.index = {key: number for number, key in enumerate(keys)}
        if len(search.index) != states:
            raise _fail(source, "two states have one key")
    seen = _words(zf, source, "observed.bin", 4 * observed)
    for i in range(0, len(seen), 4):
        seat, fp, legal, number = seen[i : i + 4]
        if not 0 <= number < states:
            raise _fail(source, "an observation names a state that is not numbered")
        search._observed[(seat, _unsigned(fp))] = (_unsigned(legal), number)
    frontier = _count(header, "frontier", MAX_STATES, source)
    layer = _count(header, "layer", MAX_STATES, source)
    pending = _pending(zf, source, search, keys, frontier + layer)
    if len(pending) != frontier + layer:
        raise _fail(source, f"it holds {len(pending)} games for {frontier + layer} states")
    search.frontier, search.layer, search._at = pending[:frontier], pending[frontier:], 0
    for name in ("generated", "outcomes", "deals", "finished", "capped"):
        setattr(search, name, _count(header, name, MAX_EDGES * 64, source))
    search.started = bool(header["started"])
    search.complete = bool(header["complete"])
    search.seconds = float(header["seconds"])
    search.actions_seen = {str(a) for a in header["actions_seen"]}
    search.events_seen = {str(e) for e in header["events_seen"]}
    search.faults = [_fault(f, states) for f in header["faults"][:MAX_FAULTS]]
    return search


def _pending(
    zf: zipfile.ZipFile, source: Path, search: Any, keys: list[Hashable], most: int
) -> list[tuple[int, Game]]:
    reader = type(search.shared_game())
    out: list[tuple[int, Game]] = []
    for line in _lines(zf, source, "pending.jsonl", most):
        head, _, text = line.partition(b" ")
        if not head.isdigit() or len(head) > 12:
            raise _fail(source, "a line of pending.jsonl does not start with a state number")
        number = int(head)
        if not 0 <= number < len(keys):
            raise _fail(source, f"a game is given for state {number}, which is not numbered")
        try:
            game = reader.from_json(text.decode())
        except CardshopError:
            # A state the family's checked reader refuses: one that breaks the rules (a
            # fault not found yet, as a search that keeps going meets). It is played
            # again from its deal, along the parents the checkpoint numbers.
            try:
                game = search.replay_path(number)[2]
            except RuntimeError:
                raise _fail(source, f"state {number} is not reached by its parents") from None
        if game.variant.content_hash != search.variant.content_hash:
            raise _fail(source, f"the game of state {number} is of another variant")
        if search.key(game) != keys[number]:
            raise _fail(source, f"the game of state {number} is not the state numbered so")
        out.append((number, game))
    return out


def _fault(data: dict[str, Any], states: int) -> Any:
    from cardshop.verify._search import Fault

    state = int(data["state"])
    if not 0 <= state < states:
        raise ValueError(f"a fault names state {state}, which is not numbered")
    step = data["step"]
    return Fault(
        str(data["check"]),
        str(data["invariant"]),
        str(data["detail"]),
        state,
        int(data["depth"]),
        None if step is None else {int(s): Action.from_text(str(t)) for s, t in step},
        None if data["chance"] is None else tuple(int(c) for c in data["chance"]),
        None if data["other"] is None else int(data["other"]),
    )
