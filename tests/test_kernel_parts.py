"""The kernel's chance, part by part, against the standard library it reproduces:
BLAKE2b-64 (``derive_seed``) against :mod:`hashlib`, the Mersenne Twisters seeded
in one interleaved pass against :class:`random.Random` (docs/kernel.md), and the
streams of chance model 2 against :data:`cardshop.core.STREAMED` (docs/chance.md)."""

from __future__ import annotations

import hashlib
import random

import pytest

pytest.importorskip("numba", reason="the kernel extra (numba) is not installed")

import numpy as np

from cardshop import load_variant, simulate
from cardshop.kernels import chance

# Seeds at the edges of init_by_array's key: a zero high word (a one-word key, seeded
# apart), zero low word, all ones, high word all ones (its +1 wraps), small ints.
EDGE_SEEDS = [0, 1, 2**32 - 1, 2**32, 2**33 + 5, 2**64 - 1, 0xFFFFFFFF00000000, 12345]


def test_blake64_is_hashlib_blake2b_with_an_8_byte_digest() -> None:
    rng = random.Random(3)
    work = np.zeros(40, np.uint64)
    for length in [*range(0, 140), 255, 256, 257, 300]:
        data = bytes(rng.randrange(256) for _ in range(length))
        msg = np.frombuffer(data + b"\0", dtype=np.uint8).copy()
        want = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")
        assert int(chance.blake64(msg, length, work)) == want, length


def test_a_stream_block_is_hashlib_blake2b_512_salted_with_its_number() -> None:
    rng = random.Random(5)
    work = np.zeros(40, np.uint64)
    out = np.zeros(64, np.uint8)
    for length in [0, 1, 20, 127, 128, 129, 255, 256, 300]:
        data = bytes(rng.randrange(256) for _ in range(length))
        msg = np.frombuffer(data + b"\0", dtype=np.uint8).copy()
        for index in (0, 1, 2, 255, 2**40):
            chance.stream_block(msg, length, index, work, out)
            salt = index.to_bytes(16, "little")
            assert out.tobytes() == hashlib.blake2b(data, digest_size=64, salt=salt).digest()


def test_stream_draws_and_shuffles_are_chance_model_2s() -> None:
    """The kernel's reading of a stream draws what ``cardshop.core.STREAMED`` draws:
    numbers below sizes of one to six bytes, across blocks, and shuffles of decks
    shorter and longer than 256 cards."""
    from cardshop.core import STREAMED

    work = np.zeros(40, np.uint64)
    sb = np.zeros(64, np.uint8)
    ss = np.zeros(2, np.int64)
    sizes = [1, 2, 3, 7, 8, 9, 200, 256, 257, 5000, 2**20 + 3, 2**40 + 1] * 9
    for seed in (0, 7, 2**63 + 5):
        text = repr((seed, "heap", 3)).encode()
        msg = np.frombuffer(text, dtype=np.uint8).copy()
        chance.stream_start(sb, ss, msg, len(text), work)
        got = [int(chance.stream_below(sb, ss, n, msg, len(text), work)) for n in sizes]
        assert got == STREAMED.places(sizes, seed, "heap", 3)
        for length in (0, 1, 2, 94, 300):
            text = repr((seed, "deal", length)).encode()
            msg = np.frombuffer(text, dtype=np.uint8).copy()
            deck = np.arange(length, dtype=np.int64)
            chance.stream_start(sb, ss, msg, len(text), work)
            chance.stream_shuffle(sb, ss, deck, length, msg, len(text), work)
            want = list(range(length))
            STREAMED.shuffle((want,), seed, "deal", length)
            assert deck.tolist() == want


@pytest.mark.parametrize("count", [1, 5, 64])
def test_blake64_of_messages_side_by_side_is_hashlib_blake2b(count: int) -> None:
    """Every length of one block (0 to 128 bytes), messages of mixed lengths in one call,
    and a seed's labels as the Wühltisch kernel hashes them."""
    rng = random.Random(count)
    datas = [bytes(rng.randrange(256) for _ in range(length)) for length in range(129)]
    datas += [repr((rng.randrange(2**64), "heap", n)).encode() for n in range(0, 10**6, 9973)]
    for at in range(0, len(datas), count):
        batch = datas[at : at + count]
        msgs = np.zeros((count, 128), np.uint8)
        lengths = np.zeros(count, np.int64)
        for c, data in enumerate(batch):
            msgs[c, : len(data)] = np.frombuffer(data, dtype=np.uint8)
            lengths[c] = len(data)
        out = np.zeros(count, np.uint64)
        chance.blake64_lanes(msgs, lengths, len(batch), out, np.zeros((16, count), np.uint64))
        want = [int.from_bytes(hashlib.blake2b(d, digest_size=8).digest(), "big") for d in batch]
        assert [int(x) for x in out[: len(batch)]] == want


@pytest.mark.parametrize("count", [1, 7, 40, 96])
def test_generators_seeded_together_are_random_random(count: int) -> None:
    rng = random.Random(count)
    seeds = (EDGE_SEEDS + [rng.randrange(2**64) for _ in range(count)])[:count]
    chains = 96
    st = np.zeros((624, chains), np.uint32)
    pos = np.zeros(chains, np.int64)
    lo = np.zeros(chains, np.uint32)
    hi1 = np.zeros(chains, np.uint32)
    one = np.zeros(625, np.int64)
    chance.seed_chains(
        st, pos, np.array(seeds, dtype=np.uint64), lo, hi1, count, one
    )  # fmt: skip
    for c, seed in enumerate(seeds):
        ref = random.Random(seed)
        assert [int(x) for x in st[:, c]] == list(ref.getstate()[1][:624]), seed
        # 700 outputs: past the first regeneration of the state's words
        drawn = [int(chance.genrand_col(st, pos, c)) for _ in range(700)]
        assert drawn == [ref.getrandbits(32) for _ in range(700)], seed
        # bit lengths from the table (below 1024) and counted (from 1024 on)
        sizes = (1, 2, 3, 94, 1000, 1023, 1024, 1025, 70_000, 2**31 + 1)
        below = [int(chance.randbelow_col(st, pos, c, n)) for n in sizes]
        assert below == [ref.randrange(n) for n in sizes], seed


@pytest.mark.parametrize("rows", [1, 226, 227, 256, 623, 624])
def test_outputs_made_ahead_then_word_by_word_are_random_random(rows: int) -> None:
    """:func:`chance.draw_ahead`'s first outputs, then :func:`chance.genrand_ahead`'s
    twisting word by word, across the first twist's words that need twisted words
    (from 227 on) and past the second and third twists: the outputs of
    ``random.Random``, and draws below sizes its ``randrange``'s."""
    count = 40
    rng = random.Random(rows)
    seeds = (EDGE_SEEDS + [rng.randrange(2**64) for _ in range(count)])[:count]
    chains = 48
    st = np.zeros((624, chains), np.uint32)
    pos = np.zeros(chains, np.int64)
    chance.seed_chains(
        st, pos, np.array(seeds, dtype=np.uint64), np.zeros(chains, np.uint32),
        np.zeros(chains, np.uint32), count, np.zeros(625, np.int64),
    )  # fmt: skip
    outs = np.zeros((rows, chains), np.uint32)
    chance.draw_ahead(st, outs, pos, count)
    sizes = (1, 2, 3, 94, 1023, 1024, 1025, 70_000, 2**31 + 1)
    for c, seed in enumerate(seeds):
        ref = random.Random(seed)
        drawn = [int(chance.genrand_ahead(st, outs, pos, c)) for _ in range(1500)]
        assert drawn == [ref.getrandbits(32) for _ in range(1500)], seed
        below = [int(chance.randbelow_ahead(st, outs, pos, c, n)) for n in sizes * 80]
        assert below == [ref.randrange(n) for n in sizes * 80], seed
    fresh = random.Random(seeds[3])  # a block drawn from the start by randbelow alone
    chance.seed_chains(
        st, pos, np.array(seeds, dtype=np.uint64), np.zeros(chains, np.uint32),
        np.zeros(chains, np.uint32), count, np.zeros(625, np.int64),
    )  # fmt: skip
    chance.draw_ahead(st, outs, pos, count)
    below = [int(chance.randbelow_ahead(st, outs, pos, 3, n)) for n in sizes * 150]
    assert below == [fresh.randrange(n) for n in sizes * 150]


@pytest.mark.parametrize("first", [0, 9, 10**6])
def test_stream_heads_side_by_side_are_the_streams_first_bytes(first: int) -> None:
    """:func:`chance.stream_heads` hashes the events' texts as chance model 2 does, and
    :func:`chance.head_below` draws from those 8 bytes what the whole stream draws, or
    says it needs more (-1): sizes of one to three bytes, draws rejected until the
    bytes run out."""
    from cardshop.core import STREAMED

    count = 48
    heads = np.zeros(count, np.uint64)
    text = np.frombuffer(repr(2**64 - 5).encode(), dtype=np.uint8).copy()
    chance.stream_heads(
        heads, np.zeros(128, np.uint8), np.zeros(count, np.int64),
        np.zeros((16, count), np.uint64), text, len(text), chance.label("spin"), first,
    )  # fmt: skip
    needed = 0
    for c in range(count):
        event = repr((2**64 - 5, "spin", first + c)).encode()
        stream = hashlib.blake2b(event, digest_size=64, salt=bytes(16)).digest()
        assert int(heads[c]) == int.from_bytes(stream[:8], "little"), c
        for n in (2, 3, 5, 9, 129, 200, 257, 40_000, 2**20 + 1):
            got = int(chance.head_below(heads[c], n))
            if got < 0:
                needed += 1
                continue
            assert got == STREAMED.places([n], 2**64 - 5, "spin", first + c)[0], (c, n)
    assert needed  # some draws need more than the first 8 bytes (2**20 + 1: 3 bytes)


def test_a_pool_of_kernel_workers_gives_the_reference_result_in_game_order() -> None:
    variant = load_variant("klunker-en")
    games = 30
    bots = "greedy,random,random,random"
    pooled = simulate(
        variant, 4, games, bots, seed=11, workers=2, chunk_size=7, rotate=True, engine="kernel"
    )
    assert pooled.engine == "kernel"
    assert len(pooled) == games  # known before the outcomes are made
    reference = simulate(
        variant, 4, games, bots, seed=11, workers=1, rotate=True, engine="reference"
    )
    assert [o.game for o in pooled] == list(range(games))
    assert pooled == reference
    assert pooled.outcomes == reference.outcomes
