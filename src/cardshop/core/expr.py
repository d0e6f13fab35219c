"""A small, safe expression language for the numbers of a variant that depend on the game.

Where a rule's number may depend on the state of the game (the price of a purchase, a
row's payout, a term of the final score, a bonus), a variant may write an expression
instead of an integer::

    purchase:
      price: "max(1, window / 2)"      # one cash card per two cards in the window

The language is a small subset of CEL (Google's Common Expression Language), the rule
language of Kubernetes' custom resources:

* integers (``0``, ``12``) and the booleans ``true`` and ``false``;
* ``+ - * / %`` on integers, and unary ``-``; ``/`` divides and truncates toward zero
  (``7 / 2 == 3``, ``-7 / 2 == -3``), ``%`` leaves the remainder with the sign of the
  dividend; **dividing by zero gives 0** (``x / 0 == 0``, ``x % 0 == 0``), and a literal
  zero divisor is refused when the file is read;
* comparisons ``== != < <= > >=`` (integers to a boolean), ``&& || !`` on booleans, and
  the conditional ``condition ? then : else``;
* the functions ``min(a, b, ...)``, ``max(a, b, ...)`` and ``abs(a)``;
* the names each place documents (``window``, ``players``, ``round``, ...), each an
  integer with a stated range.

There are no loops, no powers, no attribute access, no strings and no user
functions, so an expression always ends, in time linear in its length. It is parsed
once, when the variant is read, by a grammar for `lark <https://lark-parser.readthedocs.io>`_
(never ``eval``), and checked there: unknown names (with the valid ones and the
closest spelling), types (an integer where a number is due), and bounds (from the
ranges of the names, the range the expression can take; an expression that can never
give an allowed value is refused, and a value outside the place's range is clamped to
its nearest bound when the game runs). Then it is compiled to plain Python closures; an
expression without names is folded to its constant, so a variant written with
integers runs exactly as fast as before.
"""

from __future__ import annotations

import difflib
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "MAX_EXPRESSION_CHARS",
    "MAX_EXPRESSION_DEPTH",
    "Env",
    "Expression",
    "ExpressionError",
    "Name",
    "closest",
    "compile_expression",
    "describe_names",
]

MAX_EXPRESSION_CHARS = 500
"""Longest expression text, in characters."""
MAX_EXPRESSION_DEPTH = 32
"""Deepest nesting of an expression's operations."""
MAX_LITERAL = 1_000_000
"""Largest integer literal: every count a variant holds is smaller."""

Env = Mapping[str, int]
"""The values of the names an expression reads, by name."""

_GRAMMAR = r"""
?start: cond

?cond: or_expr
     | or_expr "?" cond ":" cond        -> ternary

?or_expr: and_expr
        | or_expr "||" and_expr         -> or_
?and_expr: not_expr
         | and_expr "&&" not_expr       -> and_
?not_expr: compare
         | "!" not_expr                 -> not_
?compare: sum
        | sum CMP sum                   -> compare
?sum: product
    | sum ADD product                   -> arith
?product: unary
        | product MUL unary             -> arith
?unary: atom
      | "-" unary                       -> neg
?atom: INT                              -> number
     | "true"                           -> true
     | "false"                          -> false
     | NAME "(" [cond ("," cond)*] ")"  -> call
     | NAME                             -> name
     | "(" cond ")"

CMP: "==" | "!=" | "<=" | ">=" | "<" | ">"
ADD: "+" | "-"
MUL: "*" | "/" | "%"
NAME: /[a-z_][a-z0-9_]*/
INT: /[0-9]+/

%ignore /[ \t]+/
"""


@lru_cache(maxsize=1)
def _parser() -> Any:
    from lark import Lark  # imported when a variant first holds an expression

    return Lark(_GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False)


class ExpressionError(ValueError):
    """An expression that cannot be read or can never be right.

    ``column`` is the 1-based column in the expression's text where the problem is.
    The variant loader adds it to the position of the value in the file.
    """

    def __init__(self, reason: str, column: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.column = column

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True, slots=True)
class Name:
    """A quantity an expression may read: what it means and the range it takes."""

    doc: str
    low: int = 0
    high: int = MAX_LITERAL


def closest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The choice closest in spelling to ``word``, if one is close enough."""
    found = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return found[0] if found else None


def describe_names(names: Mapping[str, Name]) -> str:
    """The names of one place, for documentation and messages."""
    return "; ".join(f"{n} ({names[n].doc}, {names[n].low}..{names[n].high})" for n in names)


Fn = Callable[[Env], Any]


@dataclass(frozen=True, slots=True)
class _Node:
    """One checked operation: its closure, type, range and constant value if known."""

    fn: Fn
    kind: str  # "int" or "bool"
    low: int
    high: int
    const: Any = None  # the value if the node reads no name

    @property
    def is_const(self) -> bool:
        return self.const is not None


def _constant_fn(value: Any) -> Callable[[Env], Any]:
    def constant(env: Env) -> Any:
        return value

    return constant


def _const(value: int | bool) -> _Node:
    kind = "bool" if isinstance(value, bool) else "int"
    v = int(value)
    return _Node(_constant_fn(value), kind, v, v, value)


def _div(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _mod(a: int, b: int) -> int:
    if b == 0:
        return 0
    return a - b * _div(a, b)


def _arith_range(op: str, a: _Node, b: _Node) -> tuple[int, int]:
    if op == "+":
        return a.low + b.low, a.high + b.high
    if op == "-":
        return a.low - b.high, a.high - b.low
    if op == "*":
        corners = (a.low * b.low, a.low * b.high, a.high * b.low, a.high * b.high)
        return min(corners), max(corners)
    if op == "/":
        # |a / b| <= |a| and the sign may be either; 0 when b is 0.
        top = max(abs(a.low), abs(a.high))
        low = 0 if a.low >= 0 and b.low >= 0 else -top
        high = 0 if a.high <= 0 and b.low >= 0 else top
        return low, high
    # %: |a % b| < |b| and <= |a|, with the sign of a
    top = min(max(abs(a.low), abs(a.high)), max(abs(b.low), abs(b.high)))
    return (0 if a.low >= 0 else -top), (0 if a.high <= 0 else top)


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": _div,
    "%": _mod,
}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_FUNCTIONS = ("abs", "max", "min")
_WORDS = ("true", "false")


class _Checker:
    """Walks lark's tree once: checks names, types and ranges, and builds closures."""

    def __init__(self, names: Mapping[str, Name]) -> None:
        self.names = names

    def fail(self, reason: str, node: Any) -> ExpressionError:
        column = getattr(getattr(node, "meta", None), "column", None)
        if column is None:
            column = getattr(node, "column", 1) or 1
        return ExpressionError(reason, column)

    def flag(self, node: _Node, tree: Any, what: str) -> _Node:
        """``node`` as a condition: a condition as it is, an integer of range 0..1 (a
        flag such as ``caller``) as "is 1"; anything else is a type error."""
        if node.kind == "int" and node.low >= 0 and node.high <= 1:
            if node.is_const:
                return _const(bool(node.const))
            f = node.fn
            return _Node(lambda env: f(env) != 0, "bool", 0, 1)
        if node.kind == "int":
            raise self.fail(
                f"{what} needs a condition (true or false), not an integer that may be "
                f"{node.low}..{node.high}: compare it (e.g. '> 0'); only a name of 0 or 1 "
                "may stand alone as a condition",
                tree,
            )
        return node

    def want(self, node: _Node, kind: str, tree: Any, what: str) -> None:
        if node.kind != kind:
            article = "an integer" if kind == "int" else "a condition (true or false)"
            got = "an integer" if node.kind == "int" else "a condition"
            raise self.fail(f"{what} needs {article}, not {got}", tree)

    def walk(self, tree: Any, depth: int = 0) -> _Node:
        from lark import Token

        if depth > MAX_EXPRESSION_DEPTH:
            raise self.fail(f"the expression is nested deeper than {MAX_EXPRESSION_DEPTH}", tree)
        if isinstance(tree, Token):  # pragma: no cover - the grammar wraps every token
            raise self.fail(f"unexpected {tree!s}", tree)
        rule = tree.data
        kids = tree.children
        sub = depth + 1
        if rule == "number":
            value = int(kids[0])
            if value > MAX_LITERAL:
                raise self.fail(f"the number {kids[0]} is larger than {MAX_LITERAL}", kids[0])
            return _const(value)
        if rule == "true":
            return _const(True)
        if rule == "false":
            return _const(False)
        if rule == "name":
            return self.name(kids[0])
        if rule == "neg":
            a = self.walk(kids[0], sub)
            self.want(a, "int", kids[0], "'-'")
            if a.is_const:
                return _const(-a.const)
            f = a.fn
            return _Node(lambda env: -f(env), "int", -a.high, -a.low)
        if rule == "not_":
            a = self.flag(self.walk(kids[0], sub), kids[0], "'!'")
            if a.is_const:
                return _const(not a.const)
            f = a.fn
            return _Node(lambda env: not f(env), "bool", 0, 1)
        if rule in ("and_", "or_"):
            a, b = self.walk(kids[0], sub), self.walk(kids[1], sub)
            what = "'&&'" if rule == "and_" else "'||'"
            a, b = self.flag(a, kids[0], what), self.flag(b, kids[1], what)
            if a.is_const and b.is_const:
                return _const(a.const and b.const if rule == "and_" else a.const or b.const)
            fa, fb = a.fn, b.fn
            if rule == "and_":
                return _Node(lambda env: fa(env) and fb(env), "bool", 0, 1)
            return _Node(lambda env: fa(env) or fb(env), "bool", 0, 1)
        if rule == "compare":
            a, op, b = self.walk(kids[0], sub), str(kids[1]), self.walk(kids[2], sub)
            self.want(a, "int", kids[0], f"{op!r}")
            self.want(b, "int", kids[2], f"{op!r}")
            cmp = _COMPARE[op]
            if a.is_const and b.is_const:
                return _const(cmp(a.const, b.const))
            fa, fb = a.fn, b.fn
            return _Node(lambda env: cmp(fa(env), fb(env)), "bool", 0, 1)
        if rule == "arith":
            a, op, b = self.walk(kids[0], sub), str(kids[1]), self.walk(kids[2], sub)
            self.want(a, "int", kids[0], f"{op!r}")
            self.want(b, "int", kids[2], f"{op!r}")
            if op in "/%" and b.is_const and b.const == 0:
                raise self.fail(f"'{op} 0' divides by zero", kids[1])
            fn = _ARITH[op]
            if a.is_const and b.is_const:
                return _const(fn(a.const, b.const))
            low, high = _arith_range(op, a, b)
            fa, fb = a.fn, b.fn
            if op == "+":
                return _Node(lambda env: fa(env) + fb(env), "int", low, high)
            if op == "-":
                return _Node(lambda env: fa(env) - fb(env), "int", low, high)
            if op == "*":
                return _Node(lambda env: fa(env) * fb(env), "int", low, high)
            return _Node(lambda env: fn(fa(env), fb(env)), "int", low, high)
        if rule == "ternary":
            c, a, b = (self.walk(k, sub) for k in kids)
            c = self.flag(c, kids[0], "the condition before '?'")
            if a.kind != b.kind:
                raise self.fail(
                    "both branches of '? :' must be integers or both conditions", kids[1]
                )
            if c.is_const:
                return a if c.const else b
            fc, fa, fb = c.fn, a.fn, b.fn
            return _Node(
                lambda env: fa(env) if fc(env) else fb(env),
                a.kind,
                min(a.low, b.low),
                max(a.high, b.high),
            )
        if rule == "call":
            return self.call(kids[0], [self.walk(k, sub) for k in kids[1:]], kids)
        raise self.fail(f"unsupported expression {rule!r}", tree)  # pragma: no cover

    def name(self, token: Any) -> _Node:
        word = str(token)
        if word in _FUNCTIONS:
            raise self.fail(f"{word} is a function: write {word}(...)", token)
        found = self.names.get(word)
        if found is None:
            valid = sorted(self.names)
            near = closest(word, valid)
            hint = f" (did you mean {near!r}?)" if near else ""
            listed = ", ".join(valid) if valid else "none (write a number)"
            raise self.fail(f"unknown name {word!r}{hint}; the names here: {listed}", token)
        return _Node(lambda env: env[word], "int", found.low, found.high)

    def call(self, token: Any, args: list[_Node], kids: list[Any]) -> _Node:
        word = str(token)
        if word not in _FUNCTIONS:
            near = closest(word, list(_FUNCTIONS))
            hint = f" (did you mean {near!r}?)" if near else ""
            raise self.fail(
                f"unknown function {word!r}{hint}; the functions: {', '.join(_FUNCTIONS)}",
                token,
            )
        for arg, tree in zip(args, kids[1:], strict=True):
            self.want(arg, "int", tree, f"{word}()")
        if word == "abs":
            if len(args) != 1:
                raise self.fail(f"abs() takes one argument, not {len(args)}", token)
            (a,) = args
            if a.is_const:
                return _const(abs(a.const))
            f = a.fn
            low = 0 if a.low <= 0 <= a.high else min(abs(a.low), abs(a.high))
            return _Node(lambda env: abs(f(env)), "int", low, max(abs(a.low), abs(a.high)))
        if len(args) < 2:
            raise self.fail(f"{word}() takes two or more arguments, not {len(args)}", token)
        pick = min if word == "min" else max
        if all(a.is_const for a in args):
            return _const(pick(a.const for a in args))
        fns = tuple(a.fn for a in args)
        low = pick(a.low for a in args)
        high = pick(a.high for a in args)
        if len(fns) == 2:
            f0, f1 = fns
            return _Node(lambda env: pick(f0(env), f1(env)), "int", low, high)
        return _Node(lambda env: pick(f(env) for f in fns), "int", low, high)


@dataclass(frozen=True, eq=False)
class Expression:
    """A checked, compiled expression (or a plain integer).

    ``source`` is what the variant wrote (an int or the text); ``constant`` is its
    value if it reads no name (then the engine uses the int and never calls it);
    ``names`` are the names it reads; ``low``..``high`` the range of its values (a
    value outside the range of the place that holds it is clamped to that range).
    """

    source: int | str
    fn: Callable[[Env], int]
    constant: int | None
    names: frozenset[str]
    low: int
    high: int

    place: tuple[Mapping[str, Name], int, int] | None = None
    """The names and the range of the place it was compiled for (to pickle it)."""

    def __call__(self, env: Env) -> int:
        return self.fn(env)

    def __reduce__(self) -> tuple[Any, ...]:
        # A closure does not pickle: an expression pickles as its text and its place,
        # and is compiled again when unpickled.
        names, low, high = self.place if self.place is not None else ({}, -MAX_LITERAL, MAX_LITERAL)
        return (_recompile, (self.source, dict(names), low, high))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Expression):
            return self.source == other.source
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.source)

    def __repr__(self) -> str:
        return f"Expression({self.source!r})"


def _names_read(tree: Any) -> frozenset[str]:
    from lark import Token, Tree

    out: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            if node.data == "name":
                out.add(str(node.children[0]))
            stack.extend(c for c in node.children if isinstance(c, (Tree, Token)))
    return frozenset(out)


def compile_expression(
    source: object,
    names: Mapping[str, Name],
    *,
    low: int = 0,
    high: int = MAX_LITERAL,
) -> Expression:
    """Check and compile ``source`` (an int, or an expression's text) for a place whose
    names are ``names`` and whose values lie in ``low..high``.

    Raises :class:`ExpressionError` (a :class:`ValueError`) with the column of the
    problem. A result outside ``low..high`` is clamped to the nearest bound; an
    expression that can never give a value inside is refused.
    """
    if isinstance(source, bool) or not isinstance(source, (int, str)):
        raise ExpressionError(
            f"write an integer or an expression in quotes (got {type(source).__name__})"
        )
    if isinstance(source, int):
        if not low <= source <= high:
            raise ExpressionError(f"must be between {low} and {high} (got {source})")
        return Expression(
            source, _constant_fn(source), source, frozenset(), source, source, (names, low, high)
        )
    text = source
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    if not text.strip():
        raise ExpressionError("the expression is empty: write an integer or an expression")
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

    try:
        tree = _parser().parse(text)
    except UnexpectedCharacters as exc:
        pos = exc.pos_in_stream or 0
        char = text[pos] if pos < len(text) else ""
        hint = " (there are no strings, attributes or powers)" if char in "'\".[]^" else ""
        if char == "=":
            hint = " (compare with ==)"
        elif char == "&" or char == "|":
            hint = f" (write {char * 2})"
        raise ExpressionError(f"cannot read {char!r} here{hint}", exc.column) from None
    except UnexpectedEOF:
        raise ExpressionError("the expression ends too early", len(text) + 1) from None
    except UnexpectedInput as exc:
        token = getattr(exc, "token", None)
        if token is None or getattr(token, "type", "") == "$END" or not str(token):
            raise ExpressionError("the expression ends too early", len(text) + 1) from None
        column = getattr(exc, "column", 1)
        column = column if isinstance(column, int) and column > 0 else 1
        hint = ""
        if str(token) == "*" and text[column - 2 : column - 1] == "*":
            hint = " (there are no powers: multiply, e.g. window * window)"
        raise ExpressionError(f"unexpected {str(token)!r}{hint}", column) from None
    node = _Checker(names).walk(tree)
    if node.kind != "int":
        raise ExpressionError("the expression gives a condition; a number is needed here")
    if node.high < low or node.low > high:
        raise ExpressionError(
            f"the expression always gives {node.low}..{node.high}, never a value in {low}..{high}"
        )
    value = node.const
    if value is not None:
        return Expression(
            text, _constant_fn(value), int(value), frozenset(), value, value, (names, low, high)
        )
    fn = node.fn
    if node.low < low or node.high > high:
        # A value outside the place's range is clamped to its nearest bound (stated in
        # docs/variant-language.md), so the engine never sees an impossible number.
        raw, lo, hi = node.fn, low, high

        def fn(env: Env) -> int:
            value: int = raw(env)
            return lo if value < lo else hi if value > hi else value

    return Expression(
        text,
        fn,
        None,
        _names_read(tree),
        max(node.low, low),
        min(node.high, high),
        (names, low, high),
    )


def _recompile(source: int | str, names: dict[str, Name], low: int, high: int) -> Expression:
    """An unpickled expression: compiled again from its text for its place."""
    return compile_expression(source, names, low=low, high=high)
