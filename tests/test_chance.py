"""The core's seeded chance: the fast draws give what ``derive_rng``'s generator gives."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardshop.core import (
    CHANCE_MODELS,
    SEED_LIMIT,
    SEEDED,
    STREAMED,
    ScriptedChance,
    chance_source,
    derive_below,
    derive_rng,
    derive_seed,
    derive_shuffle,
    drawing_from,
    stream_bytes,
)

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


# ------------------------------------------------------------------ chance model 2


def _read_below(n: int, data: bytes, at: int) -> tuple[int, int]:
    """A number below ``n`` read from ``data`` at ``at`` as model 2 reads one, written
    from its definition: ``ceil(k / 8)`` bytes little-endian, the top ``k`` bits, ``k``
    the bits of ``n - 1``, until below ``n``; nothing for ``n == 1``."""
    if n == 1:
        return 0, at
    k = (n - 1).bit_length()
    size = (k + 7) // 8
    while True:
        assert at + size <= len(data), "the test read past the bytes it hashed"
        r = int.from_bytes(data[at : at + size], "little") >> (8 * size - k)
        at += size
        if r < n:
            return r, at


@given(seeds, labels, st.integers(0, 300))
def test_the_stream_is_blake2b_512_digests_with_the_block_as_salt(
    seed: int, words: list[int | str], count: int
) -> None:
    text = repr((seed, *words)).encode()
    blocks = b"".join(
        hashlib.blake2b(text, digest_size=64, salt=j.to_bytes(16, "little")).digest()
        for j in range(5)
    )
    assert stream_bytes(count, seed, *words) == blocks[:count]


@given(seeds, labels, st.lists(st.integers(1, 2**40), max_size=12))
def test_model_2_draws_numbers_as_its_definition_reads_them(
    seed: int, words: list[int | str], sizes: list[int]
) -> None:
    data = stream_bytes(8 * 64, seed, *words)
    at, expected = 0, []
    for n in sizes:
        r, at = _read_below(n, data, at)
        expected.append(r)
    assert STREAMED.places(sizes, seed, *words) == expected
    if sizes:
        assert STREAMED.below(sizes[0], seed, *words) == expected[0]


@given(seeds, labels, st.lists(st.integers(0, 700), max_size=3))
def test_model_2_shuffles_as_its_definition_walks(
    seed: int, words: list[int | str], lengths: list[int]
) -> None:
    """Fisher-Yates from the last place, one stream for every group in turn (decks
    over 256 cards read two bytes a place there)."""
    data = stream_bytes(64 * 256, seed, *words)
    at = 0
    groups = [list(range(length)) for length in lengths]
    expected = [list(group) for group in groups]
    for cards in expected:
        for i in range(len(cards) - 1, 0, -1):
            j, at = _read_below(i + 1, data, at)
            cards[i], cards[j] = cards[j], cards[i]
    STREAMED.shuffle(groups, seed, *words)
    assert groups == expected


def test_model_2_draws_are_uniform_enough() -> None:
    """Each face of a die about as often as the others over many events (a
    chi-squared test far from its 0.001 critical value, 20.5 for 5 degrees)."""
    rolls = [STREAMED.below(6, 7, "die", n) for n in range(60_000)]
    chi2 = sum((rolls.count(face) - 10_000) ** 2 / 10_000 for face in range(6))
    assert chi2 < 20.5
    firsts = [0] * 10
    for n in range(20_000):
        cards = list(range(10))
        STREAMED.shuffle((cards,), 7, "deal", n)
        firsts[cards[0]] += 1
    chi2 = sum((count - 2_000) ** 2 / 2_000 for count in firsts)
    assert chi2 < 27.9  # 9 degrees


def test_the_source_in_effect_follows_the_model_unless_a_script_is_set() -> None:
    assert chance_source() is SEEDED
    assert chance_source(1) is SEEDED
    assert chance_source(2) is STREAMED
    assert CHANCE_MODELS == {1: SEEDED, 2: STREAMED}
    assert SEEDED.seeded
    assert STREAMED.seeded
    script = ScriptedChance([0])
    with drawing_from(script):
        assert chance_source(2) is script
        assert not script.seeded
    assert STREAMED.pick(1000, 5, "pay", 1) == SEEDED.pick(1000, 5, "pay", 1)
    with pytest.raises(ValueError, match="empty range"):
        STREAMED.below(0, 5, "x")
