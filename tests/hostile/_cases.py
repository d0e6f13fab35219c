"""Every hostile input the suite feeds to cardshop, and the answer each must get.

A :class:`Case` has a kind (the catalogue's rows), a readable name, a ``make``
function that writes whatever files the case needs into a fresh folder and returns
the call to make, and the expected answer: a :class:`cardshop.CardshopError`
subclass for library calls, or for the command line an exit code (2 unless said)
with no traceback on stderr. ``risky`` cases could allocate a lot or hang if
cardshop did not refuse them early: they run in a child process with an
address-space limit and a timeout (see ``_runner.py``). So do all command-line
cases, which are real processes.

This module is imported both by the tests and by the child runner, so it only
builds inputs; it never runs them.
"""

from __future__ import annotations

import functools
import json
import os
import random
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import cardshop
from cardshop import (
    ActionError,
    ActionParseError,
    CardshopError,
    IllegalActionError,
    PositionError,
    RecordError,
    SetupError,
    VariantError,
)
from cardshop.audit import AuditError, run_audit

__all__ = ["CASES", "KINDS", "Case", "Cli", "catalogue"]

# Game JSON describes a game state, as a position does: a bad one is a PositionError
# naming the field (``game JSON: state.round: ...``).
GAME_JSON_ERROR: type[CardshopError] = PositionError

KINDS = (
    "variant YAML",
    "variant files and extends",
    "game setup",
    "game JSON",
    "position",
    "action text",
    "record",
    "bot spec",
    "command line",
)
"""The catalogue's rows, in order."""

SLUGS = dict(
    zip(
        KINDS,
        ["variant", "file", "setup", "json", "position", "action", "record", "bot", "cli"],
        strict=True,
    )
)


@dataclass(frozen=True)
class Cli:
    """A command line to run as ``python -m cardshop ARGV`` with ``stdin`` as input."""

    argv: list[str]
    stdin: str = ""


@dataclass(frozen=True)
class Case:
    kind: str
    name: str
    make: Callable[[Path], Any]
    expect: type[CardshopError] | None = None
    risky: bool = False
    exit_code: int = 2

    @property
    def id(self) -> str:
        return f"{SLUGS[self.kind]}:{self.name}"

    @property
    def in_child(self) -> bool:
        """Run in a child process (risky library cases and every command line)."""
        return self.risky or self.kind == "command line"

    @property
    def outcome(self) -> str:
        """The expected answer, as the catalogue writes it."""
        if self.expect is not None:
            return f"`{self.expect.__name__}`"
        if self.exit_code == 2:
            return "exit 2, one paragraph on stderr, no traceback"
        return f"exit {self.exit_code}: the bad line is refused and play goes on, no traceback"


CASES: list[Case] = []


def case(
    kind: str,
    name: str,
    expect: type[CardshopError] | None = None,
    *,
    risky: bool = False,
    exit_code: int = 2,
) -> Callable[[Callable[[Path], Any]], Callable[[Path], Any]]:
    def register(make: Callable[[Path], Any]) -> Callable[[Path], Any]:
        CASES.append(Case(kind, name, make, expect, risky, exit_code))
        return make

    return register


def add(
    kind: str,
    name: str,
    make: Callable[[Path], Any],
    expect: type[CardshopError] | None = None,
    *,
    risky: bool = False,
    exit_code: int = 2,
) -> None:
    CASES.append(Case(kind, name, make, expect, risky, exit_code))


# ------------------------------------------------------------------ base documents

BASE_VARIANT = """\
family: klunker
name: hostile
title: A valid variant the cases mutate
players: {min: 3, max: 5}
cards:
  tongue-bob: 14
  ear-pendant: 14
  gold-tooth: 14
  shoes: 14
  diadem: 14
  monocle: 14
  necklace: 10
hand_size: 6
starting_cash: {3: 1, 4: 1, 5: 1}
steps: [fill, store, purchase, refill]
sale:
  set_size: 4
  payout: [4, 3, 2, 1]
  overrides: {necklace: 4}
  unpaid_to: discard
purchase:
  price: 1
  broke_may_buy: false
  decline: ends_phase
tiebreak: [fewest_safe_and_window]
round_cap: 200
"""


def variant_data() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(BASE_VARIANT)
    return data


def with_key(path: tuple[str | int, ...], value: Any) -> str:
    """The base variant's YAML with the value at ``path`` replaced (or added)."""
    data = variant_data()
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return yaml.safe_dump(data, sort_keys=False)


def without_key(key: str) -> str:
    data = variant_data()
    del data[key]
    return yaml.safe_dump(data, sort_keys=False)


def parse(text: str) -> Callable[[], object]:
    return lambda: cardshop.parse_variant(text)


@functools.cache
def base_game() -> cardshop.Game:
    """A game of klunker-en in its second round, reached by a seeded random playout."""
    game = cardshop.new_game("klunker-en", players=4, seed=1)
    rng = random.Random(1)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
    return game


def fresh_game() -> cardshop.Game:
    return base_game().clone()


def game_doc() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(base_game().to_json())
    return data


def from_json(doc: Any) -> Callable[[], object]:
    text = doc if isinstance(doc, (str, bytes)) else json.dumps(doc)
    return lambda: cardshop.Game.from_json(text)


def position_doc() -> dict[str, Any]:
    return json.loads(json.dumps(base_game().to_position()))  # type: ignore[no-any-return]


def from_position(doc: Any) -> Callable[[], object]:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    return lambda: cardshop.Game.from_position(text)


def record_lines() -> list[dict[str, Any]]:
    text = cardshop.record_game(base_game(), ["a", "b", "c", "d"]).dumps()
    return [json.loads(line) for line in text.splitlines()]


def record_text(lines: list[Any]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def replay_file(folder: Path, text: str | bytes) -> Callable[[], object]:
    path = folder / "game.jsonl"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return lambda: cardshop.replay_record(path)


def outside_variant(folder: Path) -> Path:
    """A valid variant file outside the folder of the file under test."""
    secret = folder / "secret"
    secret.mkdir(exist_ok=True)
    path = secret / "x.yaml"
    path.write_text(BASE_VARIANT.replace("name: hostile", "name: secret"), encoding="utf-8")
    return path


def fifo(folder: Path, name: str = "pipe.yaml") -> Path:
    path = folder / name
    os.mkfifo(path)
    return path


def variant_file(folder: Path, text: str, name: str = "mine.yaml") -> Path:
    """Write ``text`` as ``folder/variants/NAME``; the folder tree of the file under test."""
    sub = folder / "variants"
    sub.mkdir(exist_ok=True)
    path = sub / name
    path.write_text(text, encoding="utf-8")
    return path


def extends(folder: Path, ref: str) -> Callable[[], object]:
    path = variant_file(folder, f"extends: {json.dumps(ref)}\nname: mine\n")
    return lambda: cardshop.load_variant(path)


HUGE = 10**9
HUGER = 10**100
DIGITS_5000 = "9" * 5000  # past Python's int/str conversion limit (4300 digits)


def digits(n: int) -> str:
    return "1" + "0" * (n - 1)


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with the first ``old`` replaced; the case is void if ``old`` is absent."""
    if old not in text:
        raise AssertionError(f"case setup: {old!r} not found in the base document")
    return text.replace(old, new, 1)


# ===================================================================== variant YAML
K = "variant YAML"

# Counts the issue names: a seven-line variant must not exhaust memory.
for _path, _value, _label in [
    (("players",), {"min": 3, "max": HUGE}, "players-max-1e9"),
    (("players",), {"min": 3, "max": HUGER}, "players-max-1e100"),
    (("players",), {"min": HUGE - 2, "max": HUGE}, "players-min-1e9"),
    (("cards", "shoes"), HUGE, "cards-per-kind-1e9"),
    (("cards", "shoes"), HUGER, "cards-per-kind-1e100"),
    (("hand_size",), HUGE, "hand-size-1e9"),
    (("starting_cash",), {3: HUGE, 4: 1, 5: 1}, "starting-cash-1e9"),
    (("starting_cash",), {HUGE: 1, 3: 1, 4: 1, 5: 1}, "starting-cash-key-1e9"),
    (("sale", "set_size"), HUGE, "set-size-1e9"),
    (("sale", "overrides", "necklace"), HUGE, "override-1e9"),
    (("purchase", "price"), HUGE, "price-1e9"),
    (("round_cap",), HUGE, "round-cap-1e9"),
    (("tax",), {"per_player_count": {3: HUGE}}, "tax-1e9"),
    (("match",), {"games_per_player": HUGE}, "match-games-1e9"),
    (("cards",), {f"kind-{i}": 9000 for i in range(50)}, "total-cards-450000"),
]:
    add(
        K,
        _label,
        (lambda p, v: lambda _f: parse(with_key(p, v)))(_path, _value),
        VariantError,
        risky=True,
    )


# Long tables, written out as text (building them with a YAML dumper would be slow).
for _label, _old, _new in [
    ("payout-100000-entries", "payout: [4, 3, 2, 1]", "payout: [" + "1, " * 100_000 + "1]"),
    (
        "20000-steps",
        "steps: [fill, store, purchase, refill]",
        "steps: [" + "fill, store, purchase, refill, " * 5000 + "fill]",
    ),
    (
        "50000-tiebreaks",
        "tiebreak: [fewest_safe_and_window]",
        "tiebreak: [" + "fewest_safe_and_window, " * 50_000 + "fewest_safe_and_window]",
    ),
    ("5000-card-kinds", "  tongue-bob: 14\n", "".join(f"  kind-{i}: 14\n" for i in range(5000))),
]:
    add(
        K,
        _label,
        (lambda o, n: lambda _f: parse(replace_once(BASE_VARIANT, o, n)))(_old, _new),
        VariantError,
        risky=True,
    )


@case(K, "5000-digit-integer", VariantError, risky=True)
def _(_f: Path) -> Any:
    return parse(BASE_VARIANT.replace("hand_size: 6", f"hand_size: {DIGITS_5000}"))


@case(K, "5000-digit-key", VariantError, risky=True)
def _(_f: Path) -> Any:
    return parse(BASE_VARIANT.replace("{3: 1,", f"{{{DIGITS_5000}: 1, 3: 1,"))


# Deep nesting and many nodes: refused while parsing, not after.
for _depth in (900, 40_000, 200_000):
    add(
        K,
        f"{_depth}-nested-lists",
        (lambda d: lambda _f: parse("x: " + "[" * d + "]" * d))(_depth),
        VariantError,
        risky=True,
    )
add(
    K,
    "40000-nested-mappings",
    lambda _f: parse("x: " + "{a: " * 40_000 + "1" + "}" * 40_000),
    VariantError,
    risky=True,
)
add(
    K,
    "1000-nested-block-lists",
    lambda _f: parse("x:\n" + "".join(" " * i + "-\n" for i in range(1000)) + " " * 1000 + "- 1\n"),
    VariantError,
    risky=True,
)
add(K, "unclosed-40000-brackets", lambda _f: parse("x: " + "[" * 40_000), VariantError, risky=True)
add(
    K,
    "300000-node-flow-list",
    lambda _f: parse("x: [" + "1," * 300_000 + "1]"),
    VariantError,
    risky=True,
)
add(
    K,
    "150000-keys",
    lambda _f: parse("".join(f"k{i}: 1\n" for i in range(150_000))),
    VariantError,
    risky=True,
)
add(
    K,
    "billion-laughs-aliases",
    lambda _f: parse(
        "a: &a [1,1,1,1,1,1,1,1,1]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n"
            for i in range(9)
        )
    ),
    VariantError,
    risky=True,
)

# Size in bytes, not characters.
add(
    K,
    "2-MB-comment",
    lambda _f: parse(BASE_VARIANT + "#" + "x" * 2_000_000 + "\n"),
    VariantError,
    risky=True,
)
add(
    K,
    "1.5-MB-of-2-byte-chars",
    lambda _f: parse(BASE_VARIANT + "# " + "é" * 750_000 + "\n"),
    VariantError,
    risky=True,
)
add(
    K,
    "1.2-MB-of-4-byte-chars",
    lambda _f: parse(BASE_VARIANT + "# " + "😀" * 300_000 + "\n"),
    VariantError,
    risky=True,
)
add(
    K,
    "2-MB-title",
    lambda _f: parse(BASE_VARIANT.replace("title: A valid", "title: " + "x" * 2_000_000)),
    VariantError,
    risky=True,
)

# YAML scalars that cannot be built.
for _label, _snippet in [
    ("int-tag-on-text", "!!int 'abc'"),
    ("timestamp-tag-on-text", "!!timestamp xyz"),
    ("float-tag-on-text", "!!float 'x'"),
    ("bool-tag-on-text", "!!bool 'maybe'"),
    ("binary-tag-on-bad-base64", "!!binary '%%%'"),
    ("python-object-tag", "!!python/object/apply:os.system ['true']"),
    ("python-name-tag", "!!python/name:os.system"),
    ("unknown-local-tag", "!whatever 6"),
    ("set-tag", "!!set {a, b}"),
    ("omap-tag", "!!omap [a: 1]"),
    ("null-tag-on-text", "!!null 'x'"),
]:
    add(
        K,
        _label,
        (lambda s: lambda _f: parse(BASE_VARIANT.replace("hand_size: 6", f"hand_size: {s}")))(
            _snippet
        ),
        VariantError,
    )

# Wrong types at each key.
for _key, _value in [
    ("family", ["klunker"]),
    ("name", {"a": 1}),
    ("title", ["t"]),
    ("description", {"d": 1}),
    ("players", "3-5"),
    ("cards", ["shoes", "diadem"]),
    ("hand_size", "six"),
    ("starting_cash", [1, 1, 1]),
    ("steps", "fill store purchase refill"),
    ("sale", 4),
    ("purchase", "1"),
    ("tax", [1]),
    ("tiebreak", {"fewest_safe_and_window": 1}),
    ("match", "yes"),
    ("round_cap", "200"),
    ("extends", 123),
]:
    add(
        K,
        f"wrong-type-{_key}",
        (lambda k, v: lambda _f: parse(with_key((k,), v)))(_key, _value),
        VariantError,
    )

for _path, _value, _label in [
    (("players", "min"), -1, "negative-players-min"),
    (("players", "min"), 0, "zero-players-min"),
    (("players",), {"min": 5, "max": 3}, "players-min-above-max"),
    (("cards", "shoes"), -14, "negative-card-count"),
    (("cards", "shoes"), 0, "zero-card-count"),
    (("hand_size",), -6, "negative-hand-size"),
    (("starting_cash",), {3: -1, 4: 1, 5: 1}, "negative-starting-cash"),
    (("sale", "payout"), [4, -3], "negative-payout"),
    (("sale", "payout"), [], "empty-payout"),
    (("purchase", "price"), -1, "negative-price"),
    (("round_cap",), -1, "negative-round-cap"),
    (("round_cap",), 0, "zero-round-cap"),
    (("hand_size",), True, "bool-hand-size"),
    (("hand_size",), 6.5, "float-hand-size"),
    (("hand_size",), float("inf"), "infinite-hand-size"),
    (("hand_size",), float("nan"), "nan-hand-size"),
    (("hand_size",), "\uff16", "fullwidth-digit-hand-size"),
    (("hand_size",), "\u0666", "arabic-indic-digit-hand-size"),
    (("cards",), {"\uff53hoes": 14}, "fullwidth-letter-kind"),
    (("cards",), {"sho\x00es": 14}, "nul-in-kind-name"),
    (("cards",), {"x" * 100_000: 14}, "100000-char-kind-name"),
    (("cards",), {}, "no-card-kinds"),
    (("name",), "a\x00b", "nul-in-name"),
    (("name",), "Has Spaces", "name-not-a-slug"),
    (("family",), "chess", "unknown-family"),
    (("steps",), ["fill", "purchase", "store", "refill"], "steps-out-of-order"),
    (("steps",), ["fill", "store", "purchase", "explode"], "unknown-step"),
    (("sale", "overrides"), {"nosuch": 4}, "override-unknown-kind"),
    (("unknown_key",), 1, "unknown-top-level-key"),
]:
    add(K, _label, (lambda p, v: lambda _f: parse(with_key(p, v)))(_path, _value), VariantError)

for _key in ("name", "players", "cards", "starting_cash", "steps", "sale"):
    add(K, f"missing-{_key}", (lambda t: lambda _f: parse(t))(without_key(_key)), VariantError)

for _label, _text in [
    ("empty-text", ""),
    ("only-a-comment", "# nothing\n"),
    ("top-level-list", "- 1\n- 2\n"),
    ("top-level-scalar", "hello\n"),
    ("two-documents", BASE_VARIANT + "---\n" + BASE_VARIANT),
    ("truncated-in-flow-mapping", BASE_VARIANT[: BASE_VARIANT.index("max: 5")]),
    ("truncated-in-quoted-text", 'title: "never closed\n'),
    ("duplicate-key", BASE_VARIANT + "hand_size: 7\n"),
    ("merge-key", "base: &b {a: 1}\nx:\n  <<: *b\n"),
    ("complex-mapping-key", "? [a, b]\n: 1\n"),
    ("tab-indentation", BASE_VARIANT.replace("  set_size: 4", "\tset_size: 4")),
    ("nul-byte-in-text", BASE_VARIANT.replace("hand_size: 6", "hand_size: 6\x00")),
    ("control-characters", BASE_VARIANT.replace("A valid", "A \x07\x1b[31m valid")),
    ("lone-surrogate", BASE_VARIANT.replace("A valid", "A \udcff valid")),
    ("bom-then-garbage", "\ufeff: : :\n"),
    ("directive-garbage", "%YAML 9.9\n---\na: 1\n"),
]:
    add(K, _label, (lambda t: lambda _f: parse(t))(_text), VariantError)


# ======================================================== variant files and extends
K = "variant files and extends"


@case(K, "extends-etc-passwd", VariantError)
def _(f: Path) -> Any:
    return extends(f, "/etc/passwd")


@case(K, "extends-parent-folder", VariantError)
def _(f: Path) -> Any:
    outside_variant(f)
    return extends(f, "../secret/x.yaml")


@case(K, "extends-absolute-path-outside", VariantError)
def _(f: Path) -> Any:
    return extends(f, str(outside_variant(f)))


@case(K, "extends-symlink-escaping-the-folder", VariantError)
def _(f: Path) -> Any:
    target = outside_variant(f)
    call = extends(f, "link.yaml")
    (f / "variants" / "link.yaml").symlink_to(target)
    return call


@case(K, "extends-symlinked-folder-escaping", VariantError)
def _(f: Path) -> Any:
    outside_variant(f)
    call = extends(f, "sub/x.yaml")
    (f / "variants" / "sub").symlink_to(f / "secret", target_is_directory=True)
    return call


@case(K, "extends-dev-zero", VariantError, risky=True)
def _(f: Path) -> Any:
    return extends(f, "/dev/zero")


@case(K, "extends-fifo-in-own-folder", VariantError, risky=True)
def _(f: Path) -> Any:
    call = extends(f, "pipe.yaml")
    fifo(f / "variants")
    return call


@case(K, "extends-directory", VariantError)
def _(f: Path) -> Any:
    call = extends(f, "sub.yaml")
    (f / "variants" / "sub.yaml").mkdir()
    return call


@case(K, "extends-missing-file", VariantError)
def _(f: Path) -> Any:
    return extends(f, "nosuch.yaml")


@case(K, "extends-unknown-name", VariantError)
def _(f: Path) -> Any:
    return extends(f, "klunker-nosuch")


@case(K, "extends-itself", VariantError)
def _(f: Path) -> Any:
    return extends(f, "mine.yaml")


@case(K, "extends-cycle-of-two", VariantError)
def _(f: Path) -> Any:
    variant_file(f, "extends: mine.yaml\nname: other\n", "other.yaml")
    return extends(f, "other.yaml")


@case(K, "extends-nul-in-name", VariantError)
def _(f: Path) -> Any:
    return extends(f, "a\x00b.yaml")


@case(K, "extends-100000-char-name", VariantError)
def _(f: Path) -> Any:
    return extends(f, "x" * 100_000 + ".yaml")


@case(K, "extends-chain-of-300-files", VariantError, risky=True)
def _(f: Path) -> Any:
    for i in range(300):
        variant_file(f, f"extends: v{i + 1}.yaml\nname: v{i}\n", f"v{i}.yaml")
    variant_file(f, "extends: v0.yaml\nname: v300\n", "v300.yaml")
    return lambda: cardshop.load_variant(f / "variants" / "v0.yaml")


@case(K, "parent-with-huge-count", VariantError, risky=True)
def _(f: Path) -> Any:
    variant_file(f, with_key(("cards", "shoes"), HUGE), "parent.yaml")
    return extends(f, "parent.yaml")


@case(K, "load-nul-in-name", VariantError)
def _(_f: Path) -> Any:
    return lambda: cardshop.load_variant("a\x00b.yaml")


@case(K, "load-100000-char-name", VariantError)
def _(_f: Path) -> Any:
    return lambda: cardshop.load_variant("x" * 100_000)


@case(K, "load-100000-char-path", VariantError)
def _(_f: Path) -> Any:
    return lambda: cardshop.load_variant("x" * 100_000 + ".yaml")


@case(K, "load-missing-file", VariantError)
def _(f: Path) -> Any:
    return lambda: cardshop.load_variant(f / "nosuch.yaml")


@case(K, "load-directory", VariantError)
def _(f: Path) -> Any:
    (f / "dir.yaml").mkdir()
    return lambda: cardshop.load_variant(f / "dir.yaml")


@case(K, "load-dev-zero", VariantError, risky=True)
def _(_f: Path) -> Any:
    return lambda: cardshop.load_variant(Path("/dev/zero"))


@case(K, "load-dev-null", VariantError, risky=True)
def _(_f: Path) -> Any:
    return lambda: cardshop.load_variant(Path("/dev/null"))


@case(K, "load-fifo", VariantError, risky=True)
def _(f: Path) -> Any:
    path = fifo(f)
    return lambda: cardshop.load_variant(path)


@case(K, "load-symlink-to-dev-zero", VariantError, risky=True)
def _(f: Path) -> Any:
    (f / "zero.yaml").symlink_to("/dev/zero")
    return lambda: cardshop.load_variant(f / "zero.yaml")


@case(K, "load-non-utf8-bytes", VariantError)
def _(f: Path) -> Any:
    (f / "latin1.yaml").write_bytes(BASE_VARIANT.replace("A valid", "Un caf\xe9").encode("latin-1"))
    return lambda: cardshop.load_variant(f / "latin1.yaml")


@case(K, "load-utf16-with-bom", VariantError)
def _(f: Path) -> Any:
    (f / "utf16.yaml").write_bytes(BASE_VARIANT.encode("utf-16"))
    return lambda: cardshop.load_variant(f / "utf16.yaml")


@case(K, "load-empty-file", VariantError)
def _(f: Path) -> Any:
    (f / "empty.yaml").write_bytes(b"")
    return lambda: cardshop.load_variant(f / "empty.yaml")


@case(K, "load-2-MB-file", VariantError, risky=True)
def _(f: Path) -> Any:
    (f / "big.yaml").write_text(BASE_VARIANT + "#" + "x" * 2_000_000 + "\n", encoding="utf-8")
    return lambda: cardshop.load_variant(f / "big.yaml")


@case(K, "load-1.5-MB-of-2-byte-chars", VariantError, risky=True)
def _(f: Path) -> Any:
    (f / "big.yaml").write_text(BASE_VARIANT + "# " + "é" * 750_000 + "\n", encoding="utf-8")
    return lambda: cardshop.load_variant(f / "big.yaml")


@case(K, "load-truncated-file", VariantError)
def _(f: Path) -> Any:
    (f / "cut.yaml").write_text(BASE_VARIANT[: BASE_VARIANT.index("max: 5")], encoding="utf-8")
    return lambda: cardshop.load_variant(f / "cut.yaml")


@case(K, "load-unreadable-file", VariantError)
def _(f: Path) -> Any:
    path = f / "locked.yaml"
    path.write_text(BASE_VARIANT, encoding="utf-8")
    path.chmod(0)
    if os.access(path, os.R_OK):  # running as root: make it unreadable another way
        path.unlink()
        path.mkdir()
    return lambda: cardshop.load_variant(path)


# ========================================================================= game setup
K = "game setup"

for _label, _kwargs in [
    ("seed-10**4400", {"seed": 10**4400}),
    ("seed-text", {"seed": "abc"}),
    ("seed-float", {"seed": 1.5}),
    ("players-1e9", {"players": HUGE}),
    ("players-negative", {"players": -4}),
    ("players-text", {"players": "4"}),
    ("players-bool", {"players": True}),
    ("first-player-99", {"first_player": 99}),
    ("first-player-negative", {"first_player": -1}),
]:
    add(
        K,
        _label,
        (
            lambda kw: (
                lambda _f: (
                    lambda: cardshop.new_game("klunker-en", **{"players": 4, "seed": 1, **kw})
                )
            )
        )(_kwargs),
        SetupError,
        risky=_label in ("seed-10**4400", "players-1e9"),
    )


# ========================================================================== game JSON
K = "game JSON"
E = GAME_JSON_ERROR


def _game_mut(label: str, mutate: Callable[[dict[str, Any]], Any], *, risky: bool = False) -> None:
    def make(_f: Path) -> Any:
        doc = game_doc()
        out = mutate(doc)  # the mutated text, or None/anything else: doc changed in place
        return from_json(out if isinstance(out, (str, bytes)) else doc)

    add(K, label, make, E, risky=risky)


def _move_deck_cards(doc: dict[str, Any], count: int, zone: int) -> None:
    st = doc["state"]
    for card in st["deck"][:count]:
        st["where"][card] = zone
    st["deck"] = st["deck"][count:]


_game_mut("45-cards-in-one-hand", lambda d: _move_deck_cards(d, 45, 0))
_game_mut(
    "7-cards-in-one-hand",
    lambda d: _move_deck_cards(d, 7 - sum(1 for z in d["state"]["where"] if z == 0), 0),
)
_game_mut("10-deck-cards-moved-into-a-bank", lambda d: _move_deck_cards(d, 10, 3 * 4))  # bank:0
_game_mut("deck-cards-moved-to-discard", lambda d: _move_deck_cards(d, 5, 4 * 4 + 1))


def _unsold_row(doc: dict[str, Any]) -> None:
    st = doc["state"]
    kind_start = 0  # tongue-bob cards are ids 0..13 in klunker-en
    for card in range(kind_start, kind_start + 4):
        if card in st["deck"]:
            st["deck"].remove(card)
        st["where"][card] = 2  # seat 0's safe
    for card in range(kind_start + 4, 14):
        if st["where"][card] == 2:
            st["where"][card] = 4 * 4 + 1


_game_mut("unsold-complete-row", _unsold_row)
_game_mut("round-10**6-past-the-cap", lambda d: d["state"].__setitem__("round", 10**6))
_game_mut("round-zero", lambda d: d["state"].__setitem__("round", 0))
_game_mut("first-player-99", lambda d: d.__setitem__("first_player", 99))
_game_mut("history-one-action-short", lambda d: d["history"].pop())
_game_mut("history-emptied", lambda d: d["history"].clear())
_game_mut("history-with-foreign-action", lambda d: d["history"].__setitem__(0, "window nosuch"))
_game_mut("history-unicode-digit", lambda d: d["history"].append("buy ²"))
_game_mut(
    "history-1e6-entries", lambda d: d.__setitem__("history", ["done"] * 1_000_000), risky=True
)
_game_mut("players-1e9", lambda d: d.__setitem__("players", HUGE), risky=True)
_game_mut("players-99", lambda d: d.__setitem__("players", 99))
_game_mut(
    "seed-10**4400",
    lambda d: replace_once(json.dumps(d), '"seed": 1', '"seed": ' + digits(4400)),
    risky=True,
)
_game_mut(
    "seed-negative-huge",
    lambda d: replace_once(json.dumps(d), '"seed": 1', '"seed": -' + digits(400)),
    risky=True,
)
_game_mut("turn-99", lambda d: d["state"].__setitem__("turn", 99))
_game_mut("turn-negative", lambda d: d["state"].__setitem__("turn", -5))
_game_mut("phase-99", lambda d: d["state"].__setitem__("phase", 99))
_game_mut("step-99", lambda d: d["state"].__setitem__("step", 99))
_game_mut("start-99", lambda d: d["state"].__setitem__("start", 99))
_game_mut("chance-negative", lambda d: d["state"].__setitem__("chance", -1))
_game_mut("termination-99", lambda d: d["state"].__setitem__("termination", 99))
_game_mut("held-duplicate-purchase-cards", lambda d: d["state"].__setitem__("held", [1, 1, 0, 0]))
_game_mut("where-zone-out-of-range", lambda d: d["state"]["where"].__setitem__(0, 10**6))
_game_mut("where-too-short", lambda d: d["state"]["where"].pop())
_game_mut("deck-duplicate-card", lambda d: d["state"]["deck"].__setitem__(0, d["state"]["deck"][1]))
_game_mut("variant-hash-mismatch", lambda d: d.__setitem__("variant_hash", "0" * 64))
_game_mut("format-wrong", lambda d: d.__setitem__("format", "cardshop-klunker-game/99"))
_game_mut("extra-key", lambda d: d.__setitem__("extra", 1))
_game_mut(
    "variant-cards-1e9", lambda d: d["variant"]["cards"].__setitem__("shoes", HUGE), risky=True
)
_game_mut(
    "variant-players-max-1e9",
    lambda d: d["variant"]["players"].__setitem__("max", HUGE),
    risky=True,
)
_game_mut("variant-wrong-type", lambda d: d.__setitem__("variant", [1, 2]))
for _key in (
    "format",
    "variant",
    "variant_hash",
    "players",
    "seed",
    "first_player",
    "history",
    "state",
):
    _game_mut(f"missing-{_key}", (lambda k: lambda d: d.pop(k))(_key))
for _key in (
    "chance",
    "where",
    "deck",
    "held",
    "next_card",
    "buying",
    "decliner",
    "acted",
    "termination",
    "phase",
    "turn",
    "start",
    "round",
    "step",
):
    _game_mut(f"state-{_key}-as-text", (lambda k: lambda d: d["state"].__setitem__(k, "1"))(_key))
_game_mut("state-turn-as-bool", lambda d: d["state"].__setitem__("turn", True))
_game_mut("state-round-as-float", lambda d: d["state"].__setitem__("round", 2.0))
_game_mut("players-as-text", lambda d: d.__setitem__("players", "4"))

for _label, _raw in [
    ("empty-text", ""),
    ("not-json", "not json at all"),
    ("json-null", "null"),
    ("json-list", "[1, 2, 3]"),
    ("json-number", "4"),
    ("nan-literal", '{"players": NaN}'),
]:
    add(K, _label, (lambda r: lambda _f: from_json(r))(_raw), E)
add(K, "truncated-text", lambda _f: from_json(base_game().to_json()[:500]), E)
add(
    K,
    "nul-byte-in-text",
    lambda _f: from_json(replace_once(base_game().to_json(), '"players"', '"play\\u0000ers"')),
    E,
)
add(
    K,
    "non-utf8-bytes",
    lambda _f: from_json(
        replace_once(base_game().to_json(), "klunker-en", "klunker-\udcff").encode(
            "utf-8", "surrogateescape"
        )
    ),
    E,
)
add(K, "utf16-bytes", lambda _f: from_json(base_game().to_json().encode("utf-16")), E)
add(K, "deep-nesting-100000", lambda _f: from_json("[" * 100_000 + "]" * 100_000), E, risky=True)
add(
    K,
    "deep-nesting-in-variant",
    lambda _f: from_json(
        replace_once(
            base_game().to_json(), '"title":', '"x":' + "[" * 50_000 + "]" * 50_000 + ',"title":'
        )
    ),
    E,
    risky=True,
)
add(
    K,
    "duplicate-players-key",
    lambda _f: from_json(
        replace_once(base_game().to_json(), '"players":4', '"players":4,"players":99')
    ),
    E,
)


def _million_moves(step: int) -> Callable[[Path], Any]:
    """A Reglamentacja game of a million moves (16 MB): counted, or replayed, first."""

    def make(_f: Path) -> Any:
        doc = json.loads(cardshop.new_game("reglamentacja", players=3, seed=1).to_json())
        doc["moves"] = [[i, 1, "pass"] for i in range(1_000_000)]
        doc["state"]["step"] = step
        return from_json(json.dumps(doc, separators=(",", ":")))

    return make


add(K, "reglamentacja-a-million-moves-in-no-step", _million_moves(0), E, risky=True)
add(K, "reglamentacja-a-million-moves-that-do-not-replay", _million_moves(10**6), E, risky=True)


# =========================================================================== position
K = "position"


def _pos_mut(
    label: str,
    mutate: Callable[[dict[str, Any]], Any],
    *,
    risky: bool = False,
    expect: type[CardshopError] = PositionError,
) -> None:
    def make(_f: Path) -> Any:
        doc = position_doc()
        out = mutate(doc)
        return from_position(out if isinstance(out, str) else doc)

    add(K, label, make, expect, risky=risky)


@case(K, "variant-etc-passwd", PositionError)
def _(_f: Path) -> Any:
    doc = position_doc()
    doc["variant"] = "/etc/passwd"
    return from_position(doc)


@case(K, "variant-names-a-valid-copy", PositionError)
def _(f: Path) -> Any:
    # A file holding klunker-en's very rules: reading it would set the game up.
    data = cardshop.load_variant("klunker-en").to_data()
    data["starting_cash"] = {int(k): v for k, v in data["starting_cash"].items()}
    data["tax"]["per_player_count"] = {}
    (f / "copy.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    doc = position_doc()
    doc["variant"] = str(f / "copy.yaml")
    return from_position(doc)


@case(K, "variant-relative-path", PositionError)
def _(f: Path) -> Any:
    outside_variant(f)
    doc = position_doc()
    doc["variant"] = "../secret/x.yaml"
    return from_position(doc)


@case(K, "variant-dev-zero", PositionError, risky=True)
def _(_f: Path) -> Any:
    doc = position_doc()
    doc["variant"] = "/dev/zero"
    return from_position(doc)


@case(K, "variant-fifo", PositionError, risky=True)
def _(f: Path) -> Any:
    doc = position_doc()
    doc["variant"] = str(fifo(f))
    return from_position(doc)


_pos_mut("variant-nul-in-name", lambda d: d.__setitem__("variant", "klunker\x00en"))
_pos_mut("variant-100000-char-name", lambda d: d.__setitem__("variant", "x" * 100_000))
_pos_mut(
    "variant-as-mapping-with-huge-count",
    lambda d: d.__setitem__("variant", {"cards": {"a": HUGE}}),
    risky=True,
)
_pos_mut("no-seats", lambda d: d.__setitem__("seats", []))
_pos_mut("99-seats", lambda d: d.__setitem__("seats", [{}] * 99))
_pos_mut("1e6-seats", lambda d: d.__setitem__("seats", [{}] * 1_000_000), risky=True)
_pos_mut("hand-count-1e9", lambda d: d["seats"][0]["hand"].__setitem__("shoes", HUGE), risky=True)
_pos_mut(
    "hand-count-10**4400",
    lambda d: replace_once(json.dumps(d), '"hand": {', '"hand": {"shoes": ' + digits(4400) + ", "),
    risky=True,
)
_pos_mut("cash-count-1e9", lambda d: d["seats"][1].__setitem__("cash", HUGE), risky=True)
_pos_mut("negative-count", lambda d: d["seats"][0]["hand"].__setitem__("shoes", -1))
_pos_mut("count-as-text", lambda d: d["seats"][0]["hand"].__setitem__("shoes", "1"))
_pos_mut("count-fullwidth-digit", lambda d: d["seats"][0]["hand"].__setitem__("shoes", "\uff11"))
_pos_mut("count-bool", lambda d: d["seats"][0]["hand"].__setitem__("shoes", True))
_pos_mut("count-float", lambda d: d["seats"][0]["hand"].__setitem__("shoes", 1.0))
_pos_mut("unknown-kind", lambda d: d["seats"][0]["hand"].__setitem__("nosuch", 1))
_pos_mut("hand-above-hand-size", lambda d: d["seats"][0]["hand"].__setitem__("shoes", 7))
_pos_mut("unsold-complete-row", lambda d: d["seats"][0]["safe"].__setitem__("necklace", 4))
_pos_mut("round-zero", lambda d: d.__setitem__("round", 0))
_pos_mut("round-10**6", lambda d: d.__setitem__("round", 10**6))
_pos_mut(
    "round-10**4400",
    lambda d: replace_once(json.dumps(d), '"round": 2', '"round": ' + digits(4400)),
    risky=True,
)
_pos_mut(
    "seed-10**4400",
    lambda d: replace_once(json.dumps(d), '"seed": 1', '"seed": ' + digits(4400)),
    risky=True,
)
_pos_mut("seed-text", lambda d: d.__setitem__("seed", "abc"))
_pos_mut("phase-unknown", lambda d: d.__setitem__("phase", "dance"))
_pos_mut("start-player-99", lambda d: d.__setitem__("start_player", 99))
_pos_mut("turn-negative", lambda d: d.__setitem__("turn", -1))
_pos_mut("turn-99", lambda d: d.__setitem__("turn", 99))
_pos_mut(
    "purchase-cards-duplicate",
    lambda d: (d.__setitem__("phase", "store"), d.__setitem__("purchase_cards", [0, 1, 1, 0])),
)
_pos_mut("purchase-cards-wrong-length", lambda d: d.__setitem__("purchase_cards", [0] * 9))
_pos_mut("deck-unknown-kind", lambda d: d["deck"].__setitem__(0, "nosuch"))
_pos_mut("deck-1e6-entries", lambda d: d.__setitem__("deck", ["shoes"] * 1_000_000), risky=True)
_pos_mut("more-cards-than-the-variant-has", lambda d: d["discard"].__setitem__("shoes", 14))
_pos_mut("unknown-key", lambda d: d.__setitem__("colour", "red"))
_pos_mut("players-disagrees-with-seats", lambda d: d.__setitem__("players", 5))
_pos_mut("seats-as-mapping", lambda d: d.__setitem__("seats", {"0": {}}))


def _reglamentacja_position(key: str, value: Any) -> Callable[[Path], Any]:
    def make(_f: Path) -> Any:
        doc = json.loads(json.dumps(cardshop.new_game("reglamentacja", 3, seed=1).to_position()))
        doc[key] = value
        return from_position(doc)

    return make


for _label, _key, _value in [
    ("seed-10**90", "seed", 10**90),
    ("seed--10**90", "seed", -(10**90)),
    ("seed-bool", "seed", True),
    ("chance-10**90", "chance", 10**90),
    ("stats-10**90", "stats", {"trades": 10**90}),
]:
    add(K, f"reglamentacja-{_label}", _reglamentacja_position(_key, _value), PositionError)

for _label, _raw in [
    ("empty-text", ""),
    ("top-level-list", "[1, 2]"),
    ("top-level-scalar", "hello"),
    ("yaml-syntax-error", "seats: [\n"),
    ("alias", "variant: klunker-en\nseats: &s [{}]\nx: *s\n"),
    ("python-tag", "variant: !!python/object/apply:os.system ['true']\nseats: [{}]\n"),
    ("int-tag-on-text", "variant: klunker-en\nround: !!int 'abc'\nseats: [{}, {}, {}]\n"),
    ("timestamp-tag", "variant: klunker-en\nround: !!timestamp xyz\nseats: [{}, {}, {}]\n"),
    ("nul-byte", "variant: klunker-en\x00\nseats: [{}, {}, {}]\n"),
    ("tab-indentation", "variant: klunker-en\nseats:\n\t- {}\n"),
    ("duplicate-key", "variant: klunker-en\nround: 1\nround: 2\nseats: [{}, {}, {}]\n"),
]:
    add(K, _label, (lambda r: lambda _f: from_position(r))(_raw), PositionError)
add(
    K,
    "deep-nesting-40000",
    lambda _f: from_position("seats: " + "[" * 40_000 + "]" * 40_000),
    PositionError,
    risky=True,
)
add(
    K,
    "2-MB-text",
    lambda _f: from_position(
        "variant: klunker-en\n#" + "x" * 2_000_000 + "\nseats: [{}, {}, {}]\n"
    ),
    PositionError,
    risky=True,
)


# ======================================================================== action text
K = "action text"


def _parse_action(text: str) -> Callable[[Path], Any]:
    return lambda _f: lambda: fresh_game().parse_action(text)


def _apply(action: Any) -> Callable[[Path], Any]:
    return lambda _f: lambda: fresh_game().apply(action)


for _label, _text in [
    ("superscript-two", "window ²"),
    ("buy-superscript-two", "buy ²"),
    ("buy-superscript-one", "buy ¹"),
    ("buy-arabic-indic-one", "buy \u0661"),
    ("buy-devanagari-one", "buy \u0967"),
    ("buy-fullwidth-one", "buy \uff11"),
    ("buy-circled-one", "buy \u2460"),
    ("buy-negative", "buy -1"),
    ("buy-99", "buy 99"),
    ("buy-5000-digits", "buy " + "9" * 5000),
    ("buy-float", "buy 1.5"),
    ("buy-hex", "buy 0x1"),
    ("buy-underscore-digits", "buy 1_0"),
    ("buy-plus-sign", "buy +1"),
    ("empty", ""),
    ("blank", "   "),
    ("nul-byte", "\x00"),
    ("nul-in-kind", "window sho\x00es"),
    ("three-words", "window shoes now"),
    ("unknown-verb", "steal shoes"),
    ("unknown-kind", "window rubies"),
    ("missing-argument", "window"),
    ("done-with-argument", "done 3"),
    ("pass-with-argument", "pass shoes"),
    ("1e6-chars", "window " + "x" * 1_000_000),
    ("bidi-override", "window \u202eseohs"),
    ("zero-width-space", "window sh\u200boes"),
]:
    add(K, f"parse-{_label}", _parse_action(_text), ActionParseError)

add(K, "apply-buy-superscript-two", _apply("buy ²"), ActionParseError)
add(K, "apply-buy-arabic-indic-one", _apply("buy \u0661"), ActionParseError)
add(K, "apply-window-superscript-two", _apply("window ²"), ActionParseError)
add(K, "apply-text-not-legal-now", _apply("buy 1"), IllegalActionError)
add(K, "apply-action-not-legal-now", _apply(cardshop.Action("decline")), IllegalActionError)
add(
    K,
    "from-text-superscript-two",
    lambda _f: lambda: cardshop.Action.from_text("buy ²"),
    ActionParseError,
)
add(K, "from-text-empty", lambda _f: lambda: cardshop.Action.from_text(""), ActionParseError)
for _label, _value in [
    ("none", None),
    ("int", 5),
    ("bytes", b"done"),
    ("list", ["done"]),
    ("dict", {"verb": "done"}),
    ("object", object()),
    ("plain-tuple", ("done",)),
    ("buy-true", cardshop.Action("buy", True)),  # type: ignore[arg-type]
    ("buy-false", cardshop.Action("buy", False)),  # type: ignore[arg-type]
    ("buy-float", cardshop.Action("buy", 1.0)),  # type: ignore[arg-type]
    ("buy-text-digit", cardshop.Action("buy", "1")),
    ("window-int", cardshop.Action("window", 3)),
    ("verb-none", cardshop.Action(None)),  # type: ignore[arg-type]
    ("verb-int", cardshop.Action(5)),  # type: ignore[arg-type]
]:
    add(K, f"apply-{_label}", _apply(_value), ActionError)


# ============================================================================= record
K = "record"


def _rec_mut(
    label: str, mutate: Callable[[list[dict[str, Any]]], Any], *, risky: bool = False
) -> None:
    def make(f: Path) -> Any:
        lines = record_lines()
        out = mutate(lines)
        return replay_file(f, out if isinstance(out, (str, bytes)) else record_text(lines))

    add(K, label, make, RecordError, risky=risky)


def _header(key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    return lambda lines: lines[0].__setitem__(key, value)


def _act(line: int, key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    """Set ``key`` of the first action of a step line (a format-2 record)."""
    return lambda lines: lines[line]["actions"][0].__setitem__(key, value)


@case(K, "header-variant-names-a-fifo", RecordError, risky=True)
def _(f: Path) -> Any:
    lines = record_lines()
    lines[0]["variant"] = str(fifo(f))
    return replay_file(f, record_text(lines))


@case(K, "header-variant-names-dev-zero", RecordError, risky=True)
def _(f: Path) -> Any:
    lines = record_lines()
    lines[0]["variant"] = "/dev/zero"
    return replay_file(f, record_text(lines))


@case(K, "header-variant-names-a-changed-file", RecordError)
def _(f: Path) -> Any:
    # A path to another set of rules: reading it would replay against them (and fail
    # on the hash); a record names its variant by built-in name or embeds it.
    lines = record_lines()
    lines[0]["variant"] = str(outside_variant(f))
    return replay_file(f, record_text(lines))


_rec_mut("header-variant-etc-passwd", _header("variant", "/etc/passwd"))
_rec_mut("header-variant-relative-path", _header("variant", "../secret/x.yaml"))
_rec_mut("header-variant-nul", _header("variant", "klunker\x00en"))
_rec_mut("header-variant-100000-chars", _header("variant", "x" * 100_000))
_rec_mut("header-players-1e9", _header("players", HUGE), risky=True)
_rec_mut("header-players-negative", _header("players", -4))
_rec_mut(
    "header-seed-10**4400",
    lambda ls: replace_once(record_text(ls), '"seed": 1', '"seed": ' + digits(4400)),
    risky=True,
)
_rec_mut("header-option-first-player-99", _header("options", {"first_player": 99}))
_rec_mut("header-bots-not-a-list", _header("bots", "greedy"))
_rec_mut("header-bots-wrong-length", _header("bots", ["a"] * 9))
_rec_mut("header-format-wrong", _header("format", "cardshop-record/9"))
_rec_mut("header-variant-hash-mismatch", _header("variant_hash", "0" * 64))
_rec_mut(
    "header-variant-data-cards-1e9",
    lambda ls: ls[0]["variant_data"]["cards"].__setitem__("shoes", HUGE),
    risky=True,
)
_rec_mut("header-variant-data-not-a-mapping", _header("variant_data", [1]))
for _key in (
    "format",
    "variant",
    "variant_hash",
    "variant_data",
    "players",
    "seed",
    "family",
    "bots",
):
    _rec_mut(f"header-missing-{_key}", (lambda k: lambda ls: ls[0].pop(k))(_key))
_rec_mut("header-players-as-text", _header("players", "4"))
_rec_mut("header-players-as-bool", _header("players", True))
_rec_mut("action-unicode-digit", _act(1, "action", "buy ²"))
_rec_mut("action-arabic-indic-digit", _act(-1, "action", "buy \u0661"))
_rec_mut("action-number-skipped", lambda ls: ls[2].__setitem__("step", 99))
_rec_mut("action-seat-as-text", _act(1, "seat", "0"))
_rec_mut("action-seat-99", _act(1, "seat", 99))
_rec_mut("action-seat-bool", _act(1, "seat", True))
_rec_mut("action-not-text", _act(1, "action", 5))
_rec_mut("action-events-not-a-list", lambda ls: ls[1].__setitem__("events", "none"))
_rec_mut("action-events-edited", lambda ls: ls[1]["events"].append({"type": "Sold", "seat": 0}))
_rec_mut("action-illegal", _act(1, "action", "buy 3"))
_rec_mut("line-after-result", lambda ls: record_text([*ls, {"result": {}}, ls[1]]))
_rec_mut("result-not-an-object", lambda ls: record_text([*ls, {"result": 5}]))
_rec_mut("result-not-matching", lambda ls: record_text([*ls, {"result": {"scores": [99]}}]))
_rec_mut("line-not-an-object", lambda ls: record_text(ls) + "[1, 2]\n")
_rec_mut("line-not-json", lambda ls: record_text(ls) + "{not json\n")
_rec_mut("truncated-last-line", lambda ls: record_text(ls)[:-40])
_rec_mut("nan-in-line", lambda ls: record_text(ls) + '{"n": NaN}\n')
_rec_mut(
    "deep-nesting-line",
    lambda ls: record_text(ls) + "[" * 100_000 + "]" * 100_000 + "\n",
    risky=True,
)
_rec_mut(
    "deep-nesting-in-header",
    lambda ls: replace_once(
        record_text(ls), '"bots": [', '"x": ' + "[" * 100_000 + "]" * 100_000 + ', "bots": ['
    ),
    risky=True,
)
_rec_mut("header-only-a-list", lambda ls: "[]\n")
_rec_mut("empty-file", lambda ls: "")
_rec_mut("only-blank-lines", lambda ls: "\n\n  \n")
_rec_mut(
    "non-utf8-bytes",
    lambda ls: replace_once(record_text(ls), '"a"', '"\udcff"').encode("utf-8", "surrogateescape"),
)
_rec_mut("utf16-with-bom", lambda ls: record_text(ls).encode("utf-16"))
_rec_mut("nul-bytes", lambda ls: replace_once(record_text(ls), '"a"', '"\x00"'))
_rec_mut(
    "20000-action-lines",
    lambda ls: record_text(
        ls[:1]
        + [
            {"step": i, "actions": [{"seat": 0, "action": "done"}], "events": []}
            for i in range(20_000)
        ]
    ),
    risky=True,
)


@case(K, "record-is-a-directory", RecordError)
def _(f: Path) -> Any:
    (f / "dir.jsonl").mkdir()
    return lambda: cardshop.replay_record(f / "dir.jsonl")


@case(K, "record-is-dev-zero", RecordError, risky=True)
def _(_f: Path) -> Any:
    return lambda: cardshop.replay_record(Path("/dev/zero"))


@case(K, "record-is-a-fifo", RecordError, risky=True)
def _(f: Path) -> Any:
    path = fifo(f, "pipe.jsonl")
    return lambda: cardshop.replay_record(path)


@case(K, "record-missing", RecordError)
def _(f: Path) -> Any:
    return lambda: cardshop.read_record(f / "nosuch.jsonl")


# ======================================================================= command line
K = "command line"


def cli(argv: list[str], stdin: str = "") -> Callable[[Path], Cli]:
    return lambda _f: Cli(argv, stdin)


for _label, _argv in [
    ("no-arguments", []),
    ("unknown-command", ["nosuch"]),
    ("unknown-option", ["--nosuch"]),
    ("audit-without-variant", ["audit"]),
    ("audit-games-text", ["audit", "klunker-en", "--games", "abc"]),
    (
        "audit-players-99",
        ["audit", "klunker-en", "--players", "99", "--games", "2", "--examples", "0", "-q"],
    ),
    ("demo-players-text", ["demo", "--players", "abc"]),
    ("demo-players-1e30", ["demo", "--players", digits(31)]),
    ("demo-players-missing-value", ["demo", "--players"]),
    ("demo-seed-10**4400", ["demo", "--seed", digits(4400)]),
    ("demo-seed-superscript", ["demo", "--seed", "²"]),
    ("demo-first-player-99", ["demo", "--first-player", "99"]),
    ("demo-unknown-variant", ["demo", "klunker-nosuch"]),
    ("demo-extra-argument", ["demo", "klunker-en", "extra"]),
    ("show-without-variant", ["show"]),
    ("show-unknown-variant", ["show", "nosuch"]),
    ("show-etc-passwd", ["show", "/etc/passwd"]),
    ("show-control-char-in-name", ["show", "a\x01b"]),
    ("validate-without-files", ["validate"]),
    ("validate-missing-file", ["validate", "nosuch.yaml"]),
    ("validate-dev-null", ["validate", "/dev/null"]),
    ("schema-extra-argument", ["schema", "extra"]),
    ("variants-extra-argument", ["variants", "extra"]),
    ("simulate-without-variant", ["simulate"]),
    ("simulate-games-negative", ["simulate", "klunker-en", "--games", "-5", "-q"]),
    ("simulate-games-text", ["simulate", "klunker-en", "--games", "many"]),
    ("simulate-workers-zero", ["simulate", "klunker-en", "--games", "2", "--workers", "0", "-q"]),
    (
        "simulate-workers-negative",
        ["simulate", "klunker-en", "--games", "2", "--workers", "-1", "-q"],
    ),
    ("simulate-players-99", ["simulate", "klunker-en", "--players", "99", "--games", "2", "-q"]),
    ("simulate-unknown-bot", ["simulate", "klunker-en", "--games", "2", "--bot", "nosuch", "-q"]),
    ("replay-without-file", ["replay"]),
    ("replay-missing-file", ["replay", "nosuch.jsonl"]),
    ("play-players-text", ["play", "--players", "abc"]),
    ("play-seat-99", ["play", "klunker-en", "--seat", "99"]),
    ("play-unknown-bot", ["play", "klunker-en", "--bot", "nosuch"]),
    ("play-resume-missing", ["play", "--resume", "nosuch.jsonl"]),
]:
    add(K, _label, cli(_argv))


@case(K, "validate-directory")
def _(f: Path) -> Any:
    (f / "dir.yaml").mkdir()
    return Cli(["validate", str(f / "dir.yaml")])


@case(K, "validate-dev-zero", risky=True)
def _(_f: Path) -> Any:
    return Cli(["validate", "/dev/zero"])


@case(K, "validate-fifo", risky=True)
def _(f: Path) -> Any:
    return Cli(["validate", str(fifo(f))])


@case(K, "validate-extends-outside")
def _(f: Path) -> Any:
    outside_variant(f)
    path = variant_file(f, "extends: ../secret/x.yaml\nname: mine\n")
    return Cli(["validate", str(path)])


@case(K, "show-extends-etc-passwd")
def _(f: Path) -> Any:
    path = variant_file(f, "extends: /etc/passwd\nname: mine\n")
    return Cli(["show", str(path)])


@case(K, "validate-huge-count", risky=True)
def _(f: Path) -> Any:
    path = variant_file(f, with_key(("players",), {"min": 3, "max": HUGE}))
    return Cli(["validate", str(path)])


@case(K, "validate-deep-nesting", risky=True)
def _(f: Path) -> Any:
    path = variant_file(f, "x: " + "[" * 40_000 + "]" * 40_000 + "\n")
    return Cli(["validate", str(path)])


@case(K, "replay-dev-zero", risky=True)
def _(_f: Path) -> Any:
    return Cli(["replay", "/dev/zero"])


@case(K, "replay-record-naming-a-fifo", risky=True)
def _(f: Path) -> Any:
    lines = record_lines()
    lines[0]["variant"] = str(fifo(f))
    (f / "game.jsonl").write_text(record_text(lines), encoding="utf-8")
    return Cli(["replay", str(f / "game.jsonl")])


@case(K, "replay-non-utf8")
def _(f: Path) -> Any:
    (f / "game.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    return Cli(["replay", str(f / "game.jsonl")])


@case(K, "play-resume-bad-record")
def _(f: Path) -> Any:
    (f / "game.jsonl").write_text('{"format": "cardshop-record/1"}\n', encoding="utf-8")
    return Cli(["play", "--resume", str(f / "game.jsonl")])


_PLAY = ["play", "klunker-en", "--players", "3", "--seed", "1", "--bot", "random"]
for _label, _stdin in [
    ("play-input-superscript-two", "²\nquit\n"),
    ("play-input-buy-superscript", "buy ²\nquit\n"),
    ("play-input-arabic-indic-digit", "\u0661\nquit\n"),
    ("play-input-nul-byte", "window \x00\nquit\n"),
    ("play-input-save-nul-path", "save a\x00b\nquit\n"),
    ("play-input-save-to-directory", "save .\nquit\n"),
    ("play-input-10**4400", digits(4400) + "\nquit\n"),
    ("play-input-garbage-then-eof", "\x1b[2J\x07 ;;; $(rm -rf /)\n"),
]:
    add(K, _label, cli(_PLAY, _stdin), exit_code=0)


# ================================================ work bounds, bot specs, output paths
# A small input must not ask for unbounded work: variants whose every count is in
# bounds but whose product is not, budgets and game counts past their limits.

K = "variant YAML"
for _label, _text in [
    (
        "wuhltisch-20-rounds-of-100000-ticks",
        "extends: wuhltisch\nname: long\nrounds: 20\nround_ticks: 100000\n",
    ),
    (
        "wuhltisch-1-round-of-100000-ticks-5-players",
        "extends: wuhltisch\nname: long\nrounds: 1\nround_ticks: 100000\n",
    ),
    (
        "reglamentacja-12-stamp-kinds-max-trade-3",
        "extends: reglamentacja\nname: wide\nplayers: {min: 3, max: 4}\n"
        "stamps: {coffee: 5, tea: 5, eggs: 5, milk: 5, oil: 5}\nspin: {min: 100, max: 100}\n",
    ),
    (
        "reglamentacja-max-trade-4",
        "extends: reglamentacja\nname: wide\nplayers: {min: 3, max: 3}\nmax_trade: 4\n",
    ),
    (
        "reglamentacja-long-spins-and-turn-cap-5000",
        "extends: reglamentacja\nname: long\nspin: {min: 100, max: 100}\nturn_cap: 5000\n",
    ),
]:
    add(K, _label, (lambda t: lambda _f: parse(t))(_text), VariantError)

K = "game setup"


def _simulate(**kwargs: Any) -> Callable[[Path], Any]:
    call = {"players": 4, "games": 2, **kwargs}
    return lambda _f: lambda: cardshop.simulate("klunker-en", **call)


add(K, "simulate-games-10**30", _simulate(games=10**30), SetupError)
add(K, "simulate-games-10**4400", _simulate(games=10**4400), SetupError, risky=True)
add(K, "simulate-games-bool", _simulate(games=True), SetupError)
add(K, "simulate-5-bots-for-4-seats", _simulate(bots="random," * 4 + "random"), SetupError)
add(K, "simulate-empty-bot-in-list", _simulate(bots="greedy,,random"), SetupError)
add(K, "simulate-seed-bool", _simulate(seed=True, engine="reference"), SetupError)
add(K, "simulate-seed-10**400", _simulate(seed=10**400), SetupError)


@case(K, "new-game-seed-bool", SetupError)
def _(_f: Path) -> Any:
    return lambda: cardshop.new_game("klunker-en", 4, True)


@case(K, "audit-seed-bool", SetupError)
def _(_f: Path) -> Any:
    return lambda: run_audit("klunker-en", games=1, examples=0, seed=True)  # type: ignore[arg-type]


@case(K, "audit-games-10**9", AuditError)
def _(_f: Path) -> Any:
    return lambda: run_audit("klunker-en", games=10**9, examples=0)


@case(K, "kernel-play-stop-10**12", SetupError, risky=True)
def _(_f: Path) -> Any:
    from cardshop.klunker import kernel

    variant = cardshop.load_variant("klunker-en")
    return lambda: kernel.play(variant, 4, ("random",), seed=0, start=0, stop=10**12)


@case(K, "kernel-compile-rules-of-wuhltisch", SetupError)
def _(_f: Path) -> Any:
    from cardshop.klunker import kernel

    variant = cardshop.load_variant("wuhltisch")
    return lambda: kernel.compile_rules(variant, 3)  # type: ignore[arg-type]


@case(K, "kernel-compile-rules-99-players", SetupError)
def _(_f: Path) -> Any:
    from cardshop.klunker import kernel

    variant = cardshop.load_variant("klunker-en")
    return lambda: kernel.compile_rules(variant, 99)  # type: ignore[arg-type]


K = "bot spec"

for _variant in ("klunker-en", "wuhltisch", "reglamentacja"):
    for _label, _spec in [
        ("ismcts-nan-seconds", "ismcts:nans"),
        ("ismcts-1e400-seconds", "ismcts:1e400s"),
        ("ismcts-10**9-iterations", "ismcts:1000000000"),
    ]:
        add(
            K,
            f"{_variant}-{_label}",
            (lambda v, b: lambda _f: lambda: cardshop.make_bot(b, v))(_variant, _spec),
            SetupError,
        )
for _label, _spec in [
    ("ismcts-inf-seconds", "ismcts:infs"),
    ("ismcts-hour", "ismcts:3600s"),
    ("ismcts-zero-seconds", "ismcts:0s"),
    ("ismcts-zero-iterations", "ismcts:0"),
    ("ismcts-negative-iterations", "ismcts:-5"),
    ("ismcts-exponent-iterations", "ismcts:1e5"),
    ("ismcts-arabic-indic-digit", "ismcts:\u0665"),
    ("ismcts-underscored-iterations", "ismcts:1_000"),
    ("ismcts-three-parts", "ismcts:5:1s:2s"),
    ("ismcts-two-iteration-budgets", "ismcts:5:6"),
    ("ismcts-empty-option", "ismcts:"),
    ("ismcts-5000-digit-iterations", "ismcts:" + DIGITS_5000),
    ("random-with-an-option", "random:5"),
    ("a-10000-character-name", "x" * 10_000),
    ("empty", ""),
]:
    add(
        K,
        _label,
        (lambda b: lambda _f: lambda: cardshop.make_bot(b, "klunker-en"))(_spec),
        SetupError,
    )
for _label, _kwargs in [
    ("class-time-limit-nan", {"time_limit": float("nan")}),
    ("class-time-limit-inf", {"time_limit": float("inf")}),
    ("class-iterations-10**9", {"iterations": 10**9}),
    ("class-iterations-float", {"iterations": 1.5}),
    ("class-max-playout-10**12", {"max_playout": 10**12}),
    ("class-exploration-nan", {"exploration": float("nan")}),
]:
    add(
        K,
        _label,
        (lambda kw: lambda _f: lambda: cardshop.ISMCTSBot("klunker-en", **kw))(_kwargs),
        SetupError,
    )

K = "command line"
for _label, _argv in [
    ("simulate-games-10**30", ["simulate", "klunker-en", "--games", digits(31), "-q"]),
    ("simulate-bot-ismcts-nans", ["simulate", "klunker-en", "-n", "2", "-b", "ismcts:nans", "-q"]),
    ("simulate-bot-ismcts-1e400s", ["simulate", "wuhltisch", "-n", "2", "-b", "ismcts:1e400s"]),
    ("simulate-bot-ismcts-10**9", ["simulate", "reglamentacja", "-b", "ismcts:1000000000"]),
    ("simulate-csv-a-folder", ["simulate", "klunker-en", "-n", "2", "-q", "--csv", "."]),
    ("play-bot-ismcts-nans", ["play", "klunker-en", "--bot", "ismcts:nans"]),
    ("audit-games-10**9", ["audit", "klunker-en", "--games", digits(10), "--examples", "0"]),
]:
    add(K, _label, cli(_argv))


def full_device(folder: Path) -> str:
    """A device like /dev/full in ``folder`` (as root: a failing writer could replace
    a device, so never risk the system's own), else /dev/full itself."""
    path = folder / "full"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError:  # not root: /dev cannot be written, /dev/full is safe
        return "/dev/full"
    return str(path)


@case(K, "simulate-json-full-device")
def _(f: Path) -> Any:
    return Cli(["simulate", "klunker-en", "-n", "2", "-q", "--json", full_device(f)])


@case(K, "simulate-json-fifo-nobody-reads", risky=True)
def _(f: Path) -> Any:
    return Cli(["simulate", "klunker-en", "-n", "2", "-q", "--json", str(fifo(f, "out.json"))])


@case(K, "play-resume-record-with-bot-ismcts-10**9")
def _(f: Path) -> Any:
    lines = record_lines()
    lines[0]["bots"] = ["human", "ismcts:1000000000", "random", "random"]
    (f / "game.jsonl").write_text(record_text(lines), encoding="utf-8")
    return Cli(["play", "--resume", str(f / "game.jsonl")], "quit\n")


@case(K, "validate-wuhltisch-10**7-decisions")
def _(f: Path) -> Any:
    path = variant_file(f, "extends: wuhltisch\nname: long\nrounds: 20\nround_ticks: 100000\n")
    return Cli(["validate", str(path)])


# ------------------------------------------------------------------------- catalogue


def catalogue() -> list[tuple[str, int, str]]:
    """Rows of the docs table: (kind, number of cases, expected outcomes)."""
    rows = []
    for kind in KINDS:
        cases = [c for c in CASES if c.kind == kind]
        outcomes: dict[str, int] = {}
        for c in cases:
            outcomes[c.outcome] = outcomes.get(c.outcome, 0) + 1
        if len(outcomes) == 1:
            text = next(iter(outcomes))
        else:
            text = "; ".join(f"{name} ({n})" for name, n in outcomes.items())
        rows.append((kind, len(cases), text))
    return rows


def catalogue_table() -> str:
    """The catalogue as the Markdown table of docs/security.md."""
    lines = ["| input kind | cases | outcome |", "| --- | --: | --- |"]
    lines += [f"| {kind} | {n} | {text} |" for kind, n, text in catalogue()]
    lines.append(f"| **all** | **{len(CASES)}** | |")
    return "\n".join(lines) + "\n"


def by_id() -> dict[str, Case]:
    return {c.id: c for c in CASES}


def iter_kind(kind: str) -> Iterator[Case]:
    return (c for c in CASES if c.kind == kind)


_ids = [c.id for c in CASES]
assert len(_ids) == len(set(_ids)), sorted({i for i in _ids if _ids.count(i) > 1})


if __name__ == "__main__":  # print the docs table: python tests/hostile/_cases.py
    print(catalogue_table(), end="")
