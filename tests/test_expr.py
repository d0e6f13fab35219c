"""The variant expression language: parsed by its grammar, checked, compiled to closures."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardshop.core.expr import (
    MAX_EXPRESSION_CHARS,
    ExpressionError,
    Name,
    compile_expression,
)

NAMES = {
    "window": Name("cards in the window", 0, 100),
    "players": Name("players", 2, 6),
}


def value(text: str | int, **env: int) -> int:
    return compile_expression(text, NAMES)({"window": 0, "players": 2, **env})


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("max(1, window / 2)", {"window": 7}, 3),
        ("max(1, window / 2)", {"window": 0}, 1),
        ("window > 3 ? 2 : 1", {"window": 4}, 2),
        ("window > 3 ? 2 : 1", {"window": 3}, 1),
        ("1 + 2 * 3", {}, 7),
        ("(1 + 2) * 3", {}, 9),
        ("window % 3", {"window": 8}, 2),
        ("min(window, players, 4)", {"window": 9, "players": 5}, 4),
        ("abs(players - window)", {"window": 9, "players": 5}, 4),
        ("window >= 2 && players == 3 ? 5 : 0", {"window": 2, "players": 3}, 5),
        ("!(window < 2) || false ? 1 : 0", {"window": 2}, 1),
        ("window / (players - 2)", {"window": 9, "players": 2}, 0),  # x / 0 is 0
        ("window % (players - 2)", {"window": 9, "players": 2}, 0),
        (5, {}, 5),
    ],
)
def test_expressions_compute(text: str | int, env: dict[str, int], expected: int) -> None:
    assert value(text, **env) == expected


def test_division_truncates_toward_zero() -> None:
    names = {"x": Name("x", -10, 10)}
    div = compile_expression("x / 2 + 10", names)
    mod = compile_expression("x % 3 + 10", names)
    assert div({"x": -7}) == 7  # -7 / 2 == -3
    assert mod({"x": -7}) == 9  # -7 % 3 == -1


def test_constants_fold() -> None:
    expr = compile_expression("2 * 3 + max(1, 4)", NAMES)
    assert expr.constant == 10
    assert expr.names == frozenset()
    assert compile_expression("window + 1", NAMES).names == frozenset({"window"})
    assert compile_expression("window + 1", NAMES).constant is None


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("windw + 1", 1, "did you mean 'window'"),
        ("mni(1, 2)", 1, "did you mean 'min'"),
        ("window >", 9, "ends too early"),
        ("window ** 2", 9, "unexpected '*'"),
        ("window.size", 7, "no strings, attributes or powers"),
        ("'a'", 1, "no strings"),
        ("window / 0", 8, "divides by zero"),
        ("window > 1", 1, "condition"),
        ("true ? 1 : window > 2", 8, "both branches"),
        ("window + true", 10, "needs an integer"),
        ("min(window)", 1, "two or more"),
        ("abs(1, 2)", 1, "one argument"),
        ("max", 1, "is a function"),
        ("0 - 1 - window", 1, "never a value"),
        ("9999999 + window", 1, "larger than"),
        ("", 1, "empty"),
    ],
)
def test_errors_say_where_and_what(text: str, column: int, words: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expression(text, NAMES)
    assert words in str(caught.value)
    assert caught.value.column == column


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ExpressionError, match="the names here: players, window"):
        compile_expression("cash", NAMES)


def test_bounds() -> None:
    with pytest.raises(ExpressionError, match="between 0 and 5"):
        compile_expression(6, NAMES, high=5)
    with pytest.raises(ExpressionError, match="longer than"):
        compile_expression("1+" * MAX_EXPRESSION_CHARS + "1", NAMES)
    with pytest.raises(ExpressionError, match="nested deeper"):
        compile_expression("-(" * 40 + "window" + ")" * 40, NAMES)
    with pytest.raises(ExpressionError, match="integer or an expression"):
        compile_expression(True, NAMES)


@given(
    window=st.integers(0, 100),
    players=st.integers(2, 6),
    a=st.integers(0, 50),
    b=st.integers(-50, 50),
)
def test_range_holds_every_value(window: int, players: int, a: int, b: int) -> None:
    """The range the checker states contains every value the closure gives."""
    texts = [
        f"window * {a} - players * {abs(b)}",
        f"window / (players - {a % 7}) + {a}",
        f"window % (players + {b}) + 60",
        f"max(window, {a}) - min(players, {b}) + 60",
        f"abs(window - {a}) + (players > {b} ? window : players)",
    ]
    for text in texts:
        try:
            expr = compile_expression(text, NAMES, low=-10_000, high=10_000)
        except ExpressionError:
            continue
        got = expr({"window": window, "players": players})
        assert expr.low <= got <= expr.high, text


def test_a_value_outside_the_place_is_clamped_to_its_bounds() -> None:
    expr = compile_expression("window - 3", NAMES, low=0, high=5)
    assert (expr.low, expr.high) == (0, 5)
    assert [expr({"window": w}) for w in (0, 3, 4, 8, 100)] == [0, 0, 1, 5, 5]
    inside = compile_expression("min(window, 5)", NAMES, low=0, high=5)
    assert inside({"window": 2}) == 2


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("window ** 2", "no powers"),
        ("window = 2 ? 1 : 0", "compare with =="),
        ("window > 1 & window < 3 ? 1 : 0", "write &&"),
    ],
)
def test_common_slips_get_a_hint(text: str, hint: str) -> None:
    with pytest.raises(ExpressionError, match=hint):
        compile_expression(text, NAMES)


def test_a_flag_of_0_or_1_stands_alone_as_a_condition() -> None:
    names = {**NAMES, "caller": Name("1 if this player called", 0, 1)}
    expr = compile_expression("caller ? 3 : 0", names)
    assert [expr({"caller": c}) for c in (0, 1)] == [0, 3]
    both = compile_expression("caller && window > 2 ? 1 : 0", names)
    assert [both({"caller": 1, "window": w}) for w in (2, 3)] == [0, 1]
    assert compile_expression("!caller ? 5 : 1", names)({"caller": 0}) == 5
    with pytest.raises(ExpressionError, match=r"compare it \(e\.g\. '> 0'\)"):
        compile_expression("window ? 1 : 0", names)


def test_an_expression_pickles_as_its_text_and_place() -> None:
    for source in (4, "max(1, window / 2)", "players * 2"):
        expr = compile_expression(source, NAMES, low=0, high=50)
        back = pickle.loads(pickle.dumps(expr))
        assert back == expr
        assert (back.low, back.high, back.constant) == (expr.low, expr.high, expr.constant)
        assert back({"window": 7, "players": 3}) == expr({"window": 7, "players": 3})
