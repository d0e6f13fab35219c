"""Family-independent vocabulary: seats, actions with a text form, seeded chance.

Nothing here knows the rules of any game: a family of games (``cardshop.klunker``)
builds its engine from these pieces, and so would a new family beside it.
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, overload

from cardshop._checked import Checked, own_abc_caches
from cardshop._errors import ActionParseError, SetupError, format_value
from cardshop._protocol import (  # apart: a protocol must not be compiled (mypyc)
    ActionList,
    SupportsGame,
)

__all__ = [
    "MASTER_SEED_LIMIT",
    "MAX_ACTION_TEXT",
    "SEED_LIMIT",
    "Action",
    "ActionList",
    "Checked",
    "LegalActions",
    "Seat",
    "SupportsGame",
    "action_number",
    "action_words",
    "actions_by_verb",
    "check_seed",
    "choose_by_verb",
    "derive_below",
    "derive_rng",
    "derive_seed",
    "derive_shuffle",
    "is_seed",
    "own_abc_caches",
    "shuffle",
]

MAX_ACTION_TEXT = 100
"""The longest action text :meth:`Action.from_text` reads (longer texts are refused)."""

SEED_LIMIT = 2**64
"""Seeds are ints with ``-SEED_LIMIT < seed < SEED_LIMIT`` (64 bits and a sign)."""

MASTER_SEED_LIMIT = 2**1024
"""The master seed of a simulation or an audit, from which each game's seed is derived
(:func:`derive_seed`), is an int with ``-MASTER_SEED_LIMIT < seed < MASTER_SEED_LIMIT``."""

Seat = int
"""A player's place at the table, ``0 .. players-1``; play goes clockwise, seat+1."""


class Action(NamedTuple):
    """One decision, as a verb and an optional argument.

    The text form (``str(action)``) is what a person types and what records store;
    :meth:`from_text` parses it back, and ``repr`` is code that rebuilds the action::

        >>> Action.from_text("window shoes")
        Action.from_text('window shoes')
        >>> str(Action("buy", 2))
        'buy 2'

    Whether an action is *legal* is for a game to say (``game.parse_action``
    checks the argument against the variant; ``game.apply`` checks the rules).
    """

    verb: str
    arg: str | int | None = None

    def __str__(self) -> str:
        return self.verb if self.arg is None else f"{self.verb} {self.arg}"

    def __repr__(self) -> str:
        return f"Action.from_text({str(self)!r})"

    @classmethod
    def from_text(cls, text: Checked[str]) -> Action:
        """Parse ``"verb"`` or ``"verb arg"``; an argument of ASCII digits becomes an int.

        Only ASCII digits make a number: ``"buy ²"`` and ``"buy \u0661"`` are refused, not
        read as ``buy 2`` or ``buy 1``. Texts longer than :data:`MAX_ACTION_TEXT`
        characters, and anything that is not a ``str``, raise :class:`ActionParseError`.
        """
        parts = action_words(text)
        if len(parts) > 2:
            raise ActionParseError(f"cannot parse action {text!r}: expected 'verb' or 'verb arg'")
        verb = parts[0]
        if len(parts) == 1:
            return cls(verb)
        arg = parts[1]
        number = action_number(arg.removeprefix("-"), text)
        if number is not None:
            return cls(verb, -number if arg.startswith("-") else number)
        return cls(verb, arg)


def action_words(text: Checked[str]) -> list[str]:
    """The words of an action text, lower-cased: the one tokenizer of every family.

    Raises :class:`ActionParseError` for anything that is not a ``str``, a text longer
    than :data:`MAX_ACTION_TEXT` characters, and a text with no word.
    """
    if not isinstance(text, str):
        raise ActionParseError(f"an action text must be a str, not {type(text).__name__}")
    if len(text) > MAX_ACTION_TEXT:
        raise ActionParseError(
            f"action text of {len(text)} characters is longer than {MAX_ACTION_TEXT}"
        )
    words = text.lower().split()
    if not words:
        raise ActionParseError(f"cannot parse action {text!r}: it is empty")
    return words


def action_number(word: str, text: str) -> int | None:
    """``word`` as a number if it is one written in ASCII digits, else ``None``.

    A word with any other digit (``²``, ``٣``) raises :class:`ActionParseError` naming
    ``text``: only ASCII digits make a number, and such a word is no name either.
    """
    if word and word.isascii() and word.isdigit():
        return int(word)
    if any(c.isdigit() or c.isnumeric() for c in word):
        if word.isascii():
            return None  # a name with digits in it, such as "x2"
        raise ActionParseError(
            f"cannot parse action {text!r}: a number must be written with ASCII digits 0-9"
        )
    return None


def is_seed(seed: object) -> bool:
    """Whether ``seed`` is a usable seed: an int (not a bool) within :data:`SEED_LIMIT`."""
    return isinstance(seed, int) and not isinstance(seed, bool) and -SEED_LIMIT < seed < SEED_LIMIT


def check_seed(seed: object, what: str = "seed", limit: int = SEED_LIMIT) -> int:
    """``seed`` if it is an int with ``-limit < seed < limit``; else a
    :class:`~cardshop.SetupError` naming ``what`` and the range.

    The one check of a seed that every setup makes: a game's (``limit`` is
    :data:`SEED_LIMIT`: ``new_game``, ``Engine.new``, a match, a record) or the master
    seed of a simulation or an audit (:data:`MASTER_SEED_LIMIT`). A bool is refused, as
    ``take True`` is no ``take 1``: ``True`` is the int 1 to one reader and not to
    another (``derive_seed(True)`` is not ``derive_seed(1)``), so two engines would play
    different games from it.
    """
    if isinstance(seed, int) and not isinstance(seed, bool) and -limit < seed < limit:
        return seed
    bound = f"2**{limit.bit_length() - 1}" if limit & (limit - 1) == 0 else str(limit)
    why = " (true and false are not seeds)" if isinstance(seed, bool) else ""
    raise SetupError(
        f"{what} must be an int with -{bound} < {what} < {bound}{why}, not {format_value(seed)}"
    )


def derive_seed(seed: int, *labels: int | str) -> int:
    """A 64-bit seed derived from ``seed`` and labels, stable across runs and machines."""
    h = hashlib.blake2b(repr((seed, *labels)).encode(), digest_size=8)
    return int.from_bytes(h.digest(), "big")


def derive_rng(seed: int, *labels: int | str) -> random.Random:
    """A private generator for one chance event (one shuffle, one draw).

    A game keeps only its seed and a counter of chance events; each event gets its
    own generator from them. State stays two ints (cheap to clone and serialise),
    and the global ``random`` module is never touched.
    """
    return random.Random(derive_seed(seed, *labels))


def derive_below(n: int, seed: int, *labels: int | str) -> int:
    """``derive_rng(seed, *labels).randrange(n)``, for ``n >= 1``, at a fraction of the cost.

    The same number from the same generator state: CPython's ``randrange`` draws
    ``getrandbits(n.bit_length())`` until the draw is below ``n``; this does the same
    on a generator seeded in C, without ``random.Random``'s Python-level seeding.
    ``a + derive_below(b - a + 1, ...)`` is ``randint(a, b)``. Raises
    :class:`ValueError` for ``n < 1``.
    """
    if n < 1:
        raise ValueError(f"empty range for derive_below: {n}")
    getrandbits = _random.Random(derive_seed(seed, *labels)).getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def derive_shuffle(cards: list[int], seed: int, *labels: int | str) -> None:
    """``derive_rng(seed, *labels).shuffle(cards)``, the same order, at a fraction of the cost."""
    shuffle(_random.Random(derive_seed(seed, *labels)), cards)


def shuffle(rng: _random.Random, cards: list[int]) -> None:
    """Shuffle in place exactly as ``rng.shuffle(cards)`` does, only faster.

    The same Fisher-Yates walk and the same rejection sampling of ``getrandbits``
    as CPython's ``Random.shuffle``, with the method lookups hoisted out of the loop.
    ``rng`` is a ``random.Random`` (or its C base, ``_random.Random``).
    """
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_MAX_INDEX = 2**63 - 1  # "to the end", as list.index takes it


class LegalActions(Sequence[Action]):
    """A seat's legal actions now, sorted by text: a read-only sequence of actions.

    ``Game.legal_actions`` returns one for every family. It supports what a list of the
    actions does for a reader: ``len``, ``in``, indexing (negative indices and slices
    too), iteration, ``index`` and ``count``, ``rng.choice(view)``, and it compares
    equal to a list (or tuple, or view) of the same actions in the same order::

        >>> view = LegalActions([Action("buy", 1), Action("pass")])
        >>> len(view), Action("pass") in view, view[-1], view == [Action("buy", 1), Action("pass")]
        (2, True, Action.from_text('pass'), True)

    :meth:`sample` draws one action uniformly with one draw of the generator.

    A view wraps ``items`` (an :class:`ActionList`): a family with few actions passes
    its own (cached, never changed) list or tuple, with no copy; a family with many
    passes an object whose ``len``, ``in`` and indexing compute their answer without
    building every action (Reglamentacja's offer turns), and may describe how they are
    built in :attr:`structure`. ``list(view)`` builds them all. A view is valid for the state
    it was taken from: take a new one after each ``apply``.
    """

    __slots__ = ("_items", "structure")

    def __init__(self, items: ActionList, structure: object = None) -> None:
        self._items = items
        self.structure = structure
        """What a family tells of how its actions are built, for bots and searches that
        pick one in steps (Reglamentacja's offer turns: the offer parts,
        ``cardshop.reglamentacja.offers.OfferTurn``); None for a plain list."""

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            items = self._items
            return [items[i] for i in range(*index.indices(len(items)))]
        return self._items[index]

    def __contains__(self, action: object) -> bool:
        return action in self._items

    def __iter__(self) -> Iterator[Action]:
        return iter(self._items)

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        """The index of ``value``; :class:`ValueError` if it is not listed there."""
        return self._items.index(value, start, _MAX_INDEX if stop is None else stop)

    def count(self, value: object) -> int:
        """How often ``value`` is listed: 1 or 0 (a legal action is listed once)."""
        return self._items.count(value)

    def __eq__(self, other: object) -> bool:
        theirs: ActionList
        if isinstance(other, LegalActions):
            theirs = other._items
        elif isinstance(other, (str, bytes)) or not isinstance(other, Sequence):
            return NotImplemented
        else:
            theirs = other
        items = self._items
        if isinstance(items, list) and isinstance(theirs, list):
            return items == theirs
        return len(items) == len(theirs) and all(a == b for a, b in zip(items, theirs, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which do not hash

    def __repr__(self) -> str:
        n = len(self._items)
        shown = ", ".join(repr(a) for a in self[:8])
        more = f", ... {n - 8} more" if n > 8 else ""
        return f"LegalActions([{shown}{more}])"

    def sample(self, rng: random.Random) -> Action:
        """One action drawn uniformly, with one draw of ``rng`` over the length.

        The draw is the one ``rng.choice(view)`` makes, so both pick the same action
        from the same generator state. Raises :class:`IndexError` when empty.
        """
        n = len(self._items)
        if not n:
            raise IndexError("no legal action to sample")
        return self._items[rng.randrange(n)]


own_abc_caches(LegalActions)  # compiled by mypyc, it would share Sequence's


def actions_by_verb(actions: Iterable[Action]) -> dict[str, list[Action]]:
    """The actions grouped by verb: verbs in the order they first appear, each verb's
    actions in the order given."""
    by_verb: dict[str, list[Action]] = {}
    for action in actions:
        by_verb.setdefault(action.verb, []).append(action)
    return by_verb


def choose_by_verb(legal_actions: Sequence[Action], rng: random.Random) -> Action:
    """A verb uniformly among the legal actions' verbs, then one of its actions uniformly.

    Two draws of ``rng``: every kind of action (``pass``, ``buy``, ``offer``, ...) has
    the same chance, however many actions of it are listed (the generic ``baseline``
    bot). Raises :class:`IndexError` when there is no legal action.
    """
    by_verb = actions_by_verb(legal_actions)
    if not by_verb:
        raise IndexError("no legal action to choose from")
    return rng.choice(by_verb[rng.choice(list(by_verb))])
