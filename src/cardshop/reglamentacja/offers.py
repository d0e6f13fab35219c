"""Reglamentacja's offers as parts, and the legal actions of an offer turn as a view.

An offer (RG-TRADE-3) is four parts: the seat offered to (``target``), what the
offerer gives and what it asks for (``give`` and ``take``, indices into
``rules.multisets``: counts per stamp kind, 0 the empty multiset, texts in
``rules.ms_text``), and whether the two swap places in the queue (``place``, 0 or 1).
Offers trade at most ``max_trade`` stamps each way, never the same kind both ways, and
are never empty.

Offer turns list thousands of offers (13,273 to each target seat in the built-in
variant). Nothing here builds them all per turn: :class:`OfferTable` holds, once per
variant, the offers to one seat in the sorted order of their texts as parts, cut into
*runs* (maximal stretches with one ``give``; at most three per ``give``: the gift
alone, ``place`` alone, and the ``take`` block). Which offers are legal depends only
on the ``give`` (the offerer must hold it) and the target, so an offer turn's legal
actions are the runs of the held gives, for each legal target: :class:`OfferTurn`
answers ``len``, ``in`` and indexing from those runs with a few integer operations,
and builds an :class:`Action` only when one is asked for.

A hand's held gives and held runs are bit sets, each the ``and`` of one precomputed
bit set per stamp kind and count held (:attr:`OfferTable.level_masks`,
:attr:`OfferTable.run_levels`), found once per capped hand and kept
(:meth:`OfferTable.hand`), so that an offer turn costs a dictionary lookup and a few
integer operations whatever the hand. The offers in each block of eight runs, per
pattern of held runs, are a table (:attr:`OfferTable.block_sums`): a hand's running
totals by block give an offer turn's length, and the offer at an index is a
``bisect`` over them, then a walk of at most eight runs.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, compress
from math import comb
from operator import itemgetter
from typing import Any, Final

from cardshop.core import Action
from cardshop.reglamentacja.variant import Rules

__all__ = ["OfferTable", "OfferTurn", "offer_table"]

OFFER: Final = 0
"""The verb code of an offer in the game's decoded actions (:attr:`OfferTurn.last`)."""
MAX_TABLES = 16
"""Most offer tables kept (one per distinct stamp kinds, max_trade and price)."""
MAX_HANDS = 16384
"""Most capped hands an offer table keeps the parts of (:meth:`OfferTable.hand`; some
250 bytes each, shared tails apart), and most bit sets it keeps the held runs of
(:meth:`OfferTable.held_runs`, for ``index`` and iteration)."""

HeldRuns = tuple[tuple[int, ...], tuple[int, ...]]
"""See :meth:`OfferTable.held_runs`."""
HandParts = tuple[int, bytes, tuple[int, ...], tuple[Action, ...]]
"""See :meth:`OfferTable.hand`."""


def _getter(indices: Sequence[int]) -> Callable[[bytes], tuple[int, ...]]:
    """``lambda b: tuple(b[i] for i in indices)``, in C."""
    getter = itemgetter(*indices)
    if len(indices) == 1:
        return lambda b: (getter(b),)
    return getter


class OfferTable:
    """The offers to one seat of a variant, in sorted text order, as parts.

    The order is that of the texts after the target seat (``" give meat take flour"``),
    the same for every target. ``n_offer`` multisets (indices ``0 .. n_offer-1``) can
    be given or taken.
    """

    __slots__ = (
        "_actions",
        "bit_format",
        "block_sums",
        "by_hand",
        "cap",
        "draw_actions",
        "gives",
        "hands",
        "key_bits",
        "kind_names",
        "level_masks",
        "n_blocks",
        "n_offer",
        "part_position",
        "places",
        "position",
        "prefixes",
        "price_levels",
        "queue_places",
        "rules",
        "run_getter",
        "run_give",
        "run_len",
        "run_levels",
        "run_start",
        "suffixes",
        "swap_actions",
        "tails",
        "takes",
        "takes_of",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        """The rules the table was built from (one of those that share it)."""
        n_offer = comb(rules.k + rules.max_trade, rules.max_trade)
        self.n_offer = n_offer
        self.queue_places = places = rules.queue_places
        """Whether offers may swap places in the queue (RG-TRADE-5)."""
        place_flags = (0, 1) if places else (0,)
        ms = rules.multisets
        takes_of: list[tuple[int, ...]] = []
        rows: list[tuple[str, int, int, int]] = []
        for g in range(n_offer):
            gm = ms[g]
            ok = tuple(
                t
                for t in range(n_offer)
                if not any(a and b for a, b in zip(gm, ms[t], strict=True)) and (places or g or t)
            )
            takes_of.append(ok)
            for t in ok:
                for place in place_flags:
                    if g == 0 and t == 0 and not place:
                        continue
                    rows.append((rules.offer_text(0, g, t, bool(place))[1:], g, t, place))
        rows.sort()
        self.takes_of = tuple(takes_of)
        """Per give: the takes it may go with (disjoint kinds), ascending."""
        self.suffixes = tuple(r[0] for r in rows)
        self.gives = tuple(r[1] for r in rows)
        self.takes = tuple(r[2] for r in rows)
        self.places = tuple(r[3] for r in rows)
        self.position = {r[0][1:]: i for i, r in enumerate(rows)}
        """An offer's text after its target seat and a space -> its position."""
        self.part_position = {r[1:]: i for i, r in enumerate(rows)}
        """An offer's parts ``(give, take, place)`` -> its position in the order."""
        run_give: list[int] = []
        run_start: list[int] = []
        for i, g in enumerate(self.gives):
            if not run_give or run_give[-1] != g:
                run_give.append(g)
                run_start.append(i)
        self.run_give = tuple(run_give)
        self.run_start = tuple(run_start)
        self.run_len = tuple(
            b - a for a, b in zip(run_start, (*run_start[1:], len(rows)), strict=True)
        )
        self.cap = cap = rules.hand_cap
        """The most stamps of one kind that make a difference to an offer turn."""
        self.key_bits = cap.bit_length()
        """Bits a kind's capped count takes in a hand's key (:meth:`hand`)."""
        self.level_masks = tuple(
            tuple(
                sum(1 << m for m, counts in enumerate(ms) if counts[i] <= c) for c in range(cap + 1)
            )
            for i in range(rules.k)
        )
        """Per kind and count held (capped at ``rules.hand_cap``): the bit set of the
        multisets (all of ``rules.multisets``) needing no more of that kind."""
        self.kind_names = tuple(tuple(text.split()) for text in rules.ms_text)
        """Per multiset (all of ``rules.multisets``): its kind names, alphabetical, repeated."""
        self.bit_format = f"0{len(ms)}b"
        self.run_getter = _getter(run_give)
        needs = [tuple(ms[g][i] for g in run_give) for i in range(rules.k)]
        self.run_levels = tuple(
            tuple(sum(1 << r for r, n in enumerate(needs[i]) if n <= c) for c in range(cap + 1))
            for i in range(rules.k)
        )
        """Per kind and count held (capped): the bit set of the runs whose give needs
        no more of that kind. A hand's held runs are the ``and`` over its kinds."""
        self.price_levels = tuple(
            tuple(
                sum(1 << q for q, m in enumerate(rules.price_sets) if ms[m][i] <= c)
                for c in range(cap + 1)
            )
            for i in range(rules.k)
        )
        """Per kind and count held (capped): the bit set of the speculator's prices
        (``rules.price_sets``, by position) needing no more of that kind."""
        n_runs = len(run_give)
        self.n_blocks = (n_runs + 7) // 8
        self.block_sums = tuple(
            tuple(
                sum(self.run_len[8 * b + j] for j in range(8) if p >> j & 1 and 8 * b + j < n_runs)
                for p in range(256)
            )
            for b in range(self.n_blocks)
        )
        """Per block of eight runs and pattern of held runs in it (bit ``j``: run
        ``8 * block + j``): how many offers those runs hold."""
        self.draw_actions = rules.draw_actions
        self.swap_actions = rules.swap_actions
        self.prefixes = tuple(str(seat) for seat in range(64))
        self.hands: dict[int, HeldRuns] = {}
        self.by_hand: dict[int, HandParts] = {}
        self._actions: dict[int, tuple[Action, ...]] = {}
        self.tails: dict[int, tuple[Action, ...]] = {}
        """The active seat's offer turns' tails, by the speculator prices it holds."""

    def __len__(self) -> int:
        return len(self.suffixes)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the rules it is built from (a game pickles its table with it)."""
        return (offer_table, (self.rules,))

    def hand(self, key: int) -> HandParts:
        """What a hand may offer, kept per hand; ``key`` is the hand's counts per kind,
        capped at :attr:`cap`, as :attr:`key_bits` bits each (kind 0 lowest):
        the bit set of the gives it holds, its held runs (bit ``r`` of the bytes, little
        end first: run ``r``), the running totals of its offers to one seat by block of
        eight runs (the last is all of them), and the tail of the active seat's offer
        turn (``pass``, the speculator trades it can pay, ``stop``)."""
        found = self.by_hand.get(key)
        if found is None:
            # The and, over the stamp kinds, of the gives (runs, prices) needing no
            # more of that kind than the hand holds.
            gives, runs_of, prices_of = self.level_masks, self.run_levels, self.price_levels
            bits = self.key_bits
            mask = (1 << bits) - 1
            ok = runs = prices = -1
            for i in range(len(gives)):
                c = key >> (bits * i) & mask
                ok &= gives[i][c]
                runs &= runs_of[i][c]
                prices &= prices_of[i][c]
            held = runs.to_bytes(self.n_blocks, "little")
            sums = self.block_sums
            cum = tuple(accumulate((sums[b][held[b]] for b in range(len(held))), initial=0))
            tail = self.tails.get(prices)
            if tail is None:
                flags = [prices >> q & 1 for q in range(len(self.draw_actions))]
                tail = self.tails[prices] = (
                    PASS,
                    *compress(self.draw_actions, flags),
                    *compress(self.swap_actions, flags),
                    STOP,
                )
            found = (ok, held, cum, tail)
            if len(self.by_hand) >= MAX_HANDS:
                self.by_hand.clear()
                self.tails.clear()
            self.by_hand[key] = found
        return found

    def held_runs(self, ok: int) -> HeldRuns:
        """Where the offers of a hand lie, from ``ok``, the bit set of the gives it holds
        (:meth:`hand`): the starts of the runs of held gives and their running totals
        (ending with the offers to one seat). Kept per bit set (a bounded number)."""
        found = self.hands.get(ok)
        if found is None:
            # In C-level steps: the bit set as one byte (0 or 1) per multiset, then
            # one per run.
            bits = format(ok, self.bit_format).encode().translate(_ZERO_ONE)[::-1]
            flags = self.run_getter(bits)
            starts = tuple(compress(self.run_start, flags))
            cum = tuple(accumulate(compress(self.run_len, flags), initial=0))
            found = (starts, cum)
            if len(self.hands) >= MAX_HANDS:
                self.hands.clear()
            self.hands[ok] = found
        return found

    def actions(self, target: int) -> tuple[Action, ...]:
        """Every offer to ``target`` in order (built once per target seat, then kept)."""
        acts = self._actions.get(target)
        if acts is None:
            prefix = str(target)
            acts = self._actions[target] = tuple(Action("offer", prefix + s) for s in self.suffixes)
        return acts

    def action(self, target: int, pos: int) -> Action:
        """The offer at position ``pos`` of the order, to ``target``."""
        return _new(Action, ("offer", self.prefixes[target] + self.suffixes[pos]))

    def locate(self, action: object) -> tuple[int, int] | None:
        """``(target, position)`` of a canonical offer action, else None."""
        if not isinstance(action, tuple) or len(action) != 2 or action[0] != "offer":
            return None
        arg = action[1]
        if not isinstance(arg, str):
            return None
        head, _, rest = arg.partition(" ")
        pos = self.position.get(rest)
        target = _SEATS.get(head)  # canonical seat texts only ("1", not "01")
        if pos is None or target is None:
            return None
        return target, pos


_SEATS: Final = {str(seat): seat for seat in range(64)}
_new: Final = tuple.__new__
PASS: Final = Action("pass")
"""``pass``: the first of an offer turn's tail (the game lists it after the offers)."""
STOP: Final = Action("stop")
"""``stop``: the last of the active seat's offer turn's tail."""
_ZERO_ONE: Final = bytes.maketrans(b"01", b"\x00\x01")

_TABLES: dict[tuple[tuple[str, ...], int, int, bool], OfferTable] = {}


def offer_table(rules: Rules) -> OfferTable:
    """The offer table of ``rules``, shared by variants with the same stamp kinds,
    ``max_trade``, speculator price (0: none) and queue trading (which decide the
    offers and the turns' tails)."""
    key = (rules.kinds, rules.max_trade, rules.spec_price, rules.queue_places)
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) >= MAX_TABLES:
            _TABLES.clear()
        table = _TABLES[key] = OfferTable(rules)
    return table


class OfferTurn:
    """The legal actions of an offer turn, computed from parts, never all built.

    The offers to each of ``targets`` (in that order) whose give the offerer holds
    (bit ``give`` of ``ok``, a bit set over ``rules.multisets``; ``runs`` and
    ``block_totals`` as :meth:`OfferTable.hand` gives them), in the table's order, then
    ``tail`` (``pass``, and the active player's speculator trades and ``stop``). Never
    changed.

    What a :class:`~cardshop.core.LegalActions` view wraps: ``len``, indexing,
    ``in``, iteration, ``index`` and ``count`` as a sequence of actions has them.
    """

    __slots__ = (
        "_blocks",
        "_gives",
        "_held",
        "_n_offers",
        "_per_target",
        "_runs",
        "last",
        "ok",
        "table",
        "tail",
        "targets",
    )

    def __init__(
        self,
        table: OfferTable,
        targets: tuple[int, ...],
        ok: int,
        runs: bytes,
        block_totals: tuple[int, ...],
        tail: tuple[Action, ...],
    ) -> None:
        self.table = table
        self.targets = targets
        self.ok = ok
        self.tail = tail
        self._runs = runs
        self._blocks = block_totals
        self._per_target = per = block_totals[-1]
        self.last: tuple[Action, tuple[int, int, int, int, int]] | None = None
        """The offer an index gave last (a legal action of this turn) with its parts as
        the game decodes them, set in one step: the game applies it without reading it."""
        self._n_offers = per * len(targets)
        self._gives: tuple[int, ...] | None = None
        self._held: HeldRuns | None = None

    def _held_runs(self) -> HeldRuns:
        held = self._held
        if held is None:
            held = self._held = self.table.held_runs(self.ok)
        return held

    # ----------------------------------------------------------- the parts

    def parts(self, chosen: Sequence[int] = ()) -> tuple[int, ...]:
        """The legal values of the offer part after ``chosen`` (see the module).

        Part 0 is the target seat (in :attr:`targets` order), 1 the give and 2 the take
        (multiset indices, ascending), 3 the place flag; empty when ``chosen`` is not
        the start of a legal offer or is complete. Every value listed leads on to a
        legal offer.
        """
        depth = len(chosen)
        if depth == 0:
            return self.targets if self._per_target else ()
        if depth > 4 or chosen[0] not in self.targets or not self._per_target:
            return ()
        if depth == 1:
            gives = self._gives
            if gives is None:
                ok = self.ok
                gives = self._gives = tuple(g for g in range(self.table.n_offer) if ok >> g & 1)
            return gives
        give = chosen[1]
        if type(give) is not int or not 0 <= give < self.table.n_offer or not self.ok >> give & 1:
            return ()
        takes = self.table.takes_of[give]
        if depth == 2:
            return takes
        take = chosen[2]
        if type(take) is not int or take not in takes:
            return ()
        if depth == 3:
            if not self.table.queue_places:
                return (0,)
            return (1,) if give == 0 and take == 0 else (0, 1)
        return ()

    def compose(self, target: int, give: int, take: int, place: int) -> Action | None:
        """The listed offer of these parts, or None if it is not a legal one here."""
        pos = self.table.part_position.get((give, take, place))
        if pos is None or target not in self.targets or not self.ok >> give & 1:
            return None
        return self.table.action(target, pos)

    def __len__(self) -> int:
        return self._n_offers + len(self.tail)

    def __getitem__(self, index: int) -> Action:
        n = self._n_offers
        if index < 0:
            index += n + len(self.tail)
        if index >= n:
            return self.tail[index - n]  # IndexError past the end
        if index < 0:
            raise IndexError("legal action index out of range")
        per = self._per_target
        t = index // per
        j = index - t * per
        # The block of eight runs that holds offer j from the running totals, then a
        # walk of its held runs.
        table = self.table
        runs = self._runs
        blocks = self._blocks
        b = bisect_right(blocks, j) - 1
        j -= blocks[b]
        pattern = runs[b]
        r = 8 * b
        run_len = table.run_len
        while True:
            if pattern & 1:
                n = run_len[r]
                if j < n:
                    break
                j -= n
            pattern >>= 1
            r += 1
        pos = table.run_start[r] + j
        target = self.targets[t]
        action = table.action(target, pos)
        self.last = (
            action,
            (OFFER, target, table.gives[pos], table.takes[pos], table.places[pos]),
        )
        return action

    def position(self, action: object) -> tuple[int, int] | None:
        """``(target, table position)`` of ``action`` if it is a legal offer here."""
        located = self.table.locate(action)
        if located is None:
            return None
        target, pos = located
        if target in self.targets and self.ok >> self.table.gives[pos] & 1:
            return located
        return None

    def __contains__(self, action: object) -> bool:
        if self.position(action) is not None:
            return True
        return action in self.tail

    def __iter__(self) -> Iterator[Action]:
        ok = self.ok
        runs = tuple(
            (s, s + n)
            for g, s, n in zip(
                self.table.run_give, self.table.run_start, self.table.run_len, strict=True
            )
            if ok >> g & 1
        )
        table = self.table
        for target in self.targets:
            acts = table.actions(target)
            for a, b in runs:
                yield from acts[a:b]
        yield from self.tail

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        """The index of ``value`` (computed, not searched)."""
        i = self._index(value)
        n = len(self)
        stop = n if stop is None else stop
        lo = start + n if start < 0 else start
        hi = stop + n if stop < 0 else stop
        if i is None or not lo <= i < hi:
            raise ValueError(f"{value!r} is not a legal action here")
        return i

    def _index(self, value: object) -> int | None:
        located = self.position(value)
        if located is None:
            if value in self.tail:
                return self._n_offers + self.tail.index(value)
            return None
        target, pos = located
        starts, cum = self._held_runs()
        r = bisect_right(starts, pos) - 1
        return self.targets.index(target) * self._per_target + cum[r] + pos - starts[r]

    def count(self, value: object) -> int:
        return 1 if value in self else 0
