"""The core's seeded chance: the fast draws give what ``derive_rng``'s generator gives."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardshop.core import SEED_LIMIT, derive_below, derive_rng, derive_seed, derive_shuffle

seeds = st.integers(-SEED_LIMIT + 1, SEED_LIMIT - 1)
labels = st.lists(st.one_of(st.integers(0, 10**6), st.text(max_size=8)), max_size=3)


@given(seeds, labels)
def test_derive_seed_is_the_blake2b_64_hash_of_the_labels_repr(
    seed: int, words: list[int | str]
) -> None:
    """The chance model every record and kernel relies on: BLAKE2b-64 of the repr of
    ``(seed, *labels)``, big-endian (each call from a fresh state, whatever came before)."""
    text = repr((seed, *words)).encode()
    expected = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")
    assert derive_seed(seed, *words) == expected
    assert derive_seed(seed, *words) == expected


@given(seeds, labels, st.integers(1, 2**70))
def test_derive_below_draws_what_randrange_draws(seed: int, words: list[int | str], n: int) -> None:
    assert derive_below(n, seed, *words) == derive_rng(seed, *words).randrange(n)


@given(seeds, labels, st.integers(1, 6), st.integers(1, 20))
def test_derive_below_makes_randint(seed: int, words: list[int | str], low: int, span: int) -> None:
    high = low + span - 1
    assert low + derive_below(span, seed, *words) == derive_rng(seed, *words).randint(low, high)


@given(seeds, labels, st.lists(st.integers(0, 200), max_size=120))
def test_derive_shuffle_orders_as_random_shuffle(
    seed: int, words: list[int | str], cards: list[int]
) -> None:
    expected = cards.copy()
    derive_rng(seed, *words).shuffle(expected)
    derive_shuffle(cards, seed, *words)
    assert cards == expected


@pytest.mark.parametrize("n", [0, -3])
def test_derive_below_refuses_an_empty_range(n: int) -> None:
    with pytest.raises(ValueError, match="empty range"):
        derive_below(n, 1, "x")
