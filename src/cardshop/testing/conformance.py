"""The conformance suite every family's tests subclass: the whole battery in one class.

Like zarr's ``StoreTests``, :class:`FamilyTests` is a base class of test methods. A
family's test module subclasses it, names its variants, and pytest (or unittest's
discovery of ``test_*`` methods) runs the battery on them::

    from cardshop.testing import FamilyTests

    class TestMyFamily(FamilyTests):
        variants = ("variants/my-game.yaml",)

The battery, on seeded random playouts (bots pick uniformly among the legal actions,
through :mod:`cardshop.driver`) at the smallest and largest player counts:

* every invariant (the generic ones and the family's) after every step, in
  :class:`~cardshop.invariants.CheckedGame`, until each game ends; at the end the
  running ``scores()`` and ``progress()`` agree with ``result()``, and each
  observation names its seat;
* clone, JSON (``type(game).from_json`` and ``cardshop.Game.from_json``) and position
  round trips;
* illegal actions, unknown action texts and seats that do not act change nothing;
* hidden information: a game that differs only in what a seat cannot see shows that
  seat the same observation and legal actions (the twin comes from the family's
  sampler; override :meth:`FamilyTests.hidden_twin` for a family without one), and
  the same text (``render(game, seat)``), which never holds the game's seed;
* action texts round-trip through ``parse_action``, and the family's ``action_space``
  holds every legal action;
* the legal-action view (:class:`~cardshop.core.LegalActions`) agrees exactly with its
  own enumeration: ``len``, indexing (0 .. len-1, negative, slices), ``in`` for every
  listed action and for unlisted ones, ``index``, ``sample`` (one draw, the pick of
  ``rng.choice``), equality with the list; :meth:`FamilyTests.check_legal_view` adds a
  family's own checks (Reglamentacja: its offer parts compose exactly the listed
  offers);
* the observation encoder's vectors have the documented length and bounds;
* the core's shared readers hold for the family: a position that names a file as its
  variant is refused (whether the file exists or not) and never opened; event dicts
  round-trip, and every malformed one raises :class:`~cardshop.RecordError`; an action
  text with digits other than ASCII ones raises :class:`~cardshop.ActionParseError`;
  a family's ``new_game`` refuses another family's variant with a
  :class:`~cardshop.SetupError`; a new game states its setup
  (:meth:`~cardshop.Game.setup_options`), and a game JSON
  whose history was tampered with (any one key of it taken from the game one step
  earlier), or that is out of the core's bounds, is refused.

Class attributes tune it: ``variants`` (required), ``players`` (player counts;
default the smallest and largest of each variant), ``seeds``, ``check_every``,
``max_steps`` (a game that has not ended by then fails the suite) and
``positions_keep_observations``. Override
:meth:`FamilyTests.register` to register a family at run time before each test.
"""

from __future__ import annotations

import json
import math
import pickle
import random
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from cardshop import driver
from cardshop.bots import RandomBot
from cardshop.core.actions import (
    Action,
    LegalActions,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    ActionParseError,
    CardshopError,
    PositionError,
    RecordError,
    SetupError,
)
from cardshop.core.family import Family
from cardshop.core.frontdoor import new_game
from cardshop.core.game import (
    Copy,
    Dynamics,
    Engine,
    Game,
)
from cardshop.core.loader import load_variant
from cardshop.core.registry import get_family
from cardshop.core.series import (
    current_game,
    family_for,
)
from cardshop.core.variant import VariantBase
from cardshop.invariants import CheckedGame, check_result

__all__ = ["FamilyTests"]

_DIGITS = str.maketrans(
    "0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"
)
_SUPERSCRIPTS = str.maketrans(
    "0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)
_GARBAGE = ("", "   ", "no-such-verb", "no-such-verb 12", "x" * 500, "\x00", "take -1 2 3")


def _same(a: Game, b: Game) -> bool:
    if type(a).__eq__ is object.__eq__:
        return a.to_dict() == b.to_dict()
    return bool(a == b) and a.moves == b.moves


def _levels(mine: Any, theirs: Any, copy: Copy) -> Iterator[bool]:
    """For each list level that ``copy`` copies, whether the two values hold distinct
    list objects there (``True``: not shared)."""
    if copy is Copy.VALUE:
        return
    yield mine is not theirs
    if copy is not Copy.LIST:
        for a, b in zip(mine, theirs, strict=True):
            yield from _levels(a, b, Copy(copy - 1))


def _first_difference(a: str, b: str) -> str:
    """The first line where two texts differ, as both show it."""
    for mine, theirs in zip(a.splitlines(), b.splitlines(), strict=False):
        if mine != theirs:
            return f"{mine!r} against {theirs!r}"
    return f"{len(a.splitlines())} lines against {len(b.splitlines())}"


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True, default=str))


class FamilyTests:
    """The conformance battery; subclass it and set :attr:`variants` (see the module)."""

    variants: ClassVar[Sequence[str]] = ()
    """Built-in names or paths of the variants to test."""
    players: ClassVar[Sequence[int] | None] = None
    """Player counts (default: each variant's smallest and largest)."""
    seeds: ClassVar[Sequence[int]] = (0, 1)
    """Seeds of the playouts (one game per variant, player count and seed)."""
    check_every: ClassVar[int] = 4
    """Playouts run the thorough checks after every ``check_every``-th step."""
    max_steps: ClassVar[int] = 100_000
    """A playout still running after this many steps fails the suite."""
    positions_keep_observations: ClassVar[bool] = True
    """Whether a game set up from another's position shows every seat the same
    observation (false for a family whose positions do not keep card identities
    that its observations show)."""
    positions_per_game: ClassVar[int] = 8
    """How many moments of each playout the round-trip tests look at."""

    # ------------------------------------------------------------------ hooks

    def register(self) -> None:
        """Make the family known before each test (for families registered at run time)."""

    def setup_method(self, method: Any = None) -> None:
        self.register()

    def setUp(self) -> None:
        self.register()

    def hidden_twin(self, game: Game, seat: Seat, rng: random.Random) -> Game | None:
        """A game that differs from ``game`` only in what ``seat`` cannot see.

        The default deals one from the family's sampler; ``None`` when it has none.
        """
        family = family_for(game.variant)
        if family.sampler is None:
            return None
        return family.sampler(game.observation(seat), game.variant, rng)

    def check_legal_view(self, game: Game, seat: Seat, view: LegalActions) -> None:
        """A family's own checks of a legal-action view (the base checks have passed).

        Called for every acting seat of the moments the battery looks at; the default
        checks nothing more.
        """

    # ---------------------------------------------------------------- helpers

    def _setups(self) -> Iterator[tuple[VariantBase, int, int]]:
        if not self.variants:
            raise AssertionError(f"{type(self).__name__} names no variants")
        for ref in self.variants:
            variant = load_variant(ref)
            counts = self.players or sorted({variant.players.min, variant.players.max})
            for players in counts:
                for seed in self.seeds:
                    yield variant, players, seed

    def _playout(self, variant: VariantBase, players: int, seed: int) -> Iterator[Game]:
        """A seeded random game of ``variant``; yields it (live) after every step."""
        game = new_game(variant, players, derive_seed(seed, "conformance", players))
        bots = [RandomBot(derive_seed(seed, "conformance-bot", seat)) for seat in range(players)]
        yield game
        for _ in range(self.max_steps):
            if game.is_over:
                return
            driver.apply(game, driver.choose(game, bots))
            yield game
        raise AssertionError(
            f"a {variant.name} game of {players} players (seed {seed}) did not end within "
            f"{self.max_steps} steps"
        )

    def positions(self) -> Iterator[tuple[Family, Game]]:
        """Copies of moments of every playout: the start, some middle steps, the end."""
        for variant, players, seed in self._setups():
            family = family_for(variant)
            rng = random.Random(derive_seed(seed, "conformance-moments", players))
            seen = 0
            last: Game | None = None
            for game in self._playout(variant, players, seed):
                last = game
                if seen < self.positions_per_game - 1 and (seen == 0 or rng.random() < 0.15):
                    seen += 1
                    yield family, game.clone()
            assert last is not None
            yield family, last.clone()

    @staticmethod
    def _refused(
        game: Game, before: str, step: dict[Seat, Action | str], what: str, core: bool = False
    ) -> None:
        """``step`` must raise a :class:`~cardshop.CardshopError` and change nothing
        (played by the core's ``apply`` and ``apply_joint`` where ``core`` is true)."""
        try:
            FamilyTests._step(game, step, core)
        except CardshopError:
            pass
        else:
            raise AssertionError(f"{what} was accepted" + (" by the core" if core else ""))
        assert game.to_json() == before, f"{what} changed the game"

    @staticmethod
    def _step(game: Game, actions: dict[Seat, Action | str], core: bool = False) -> list[Any]:
        """Play one step by the game's ``apply`` (one seat of a turn-based game) or
        ``apply_joint``; by the core's (:class:`Game`'s) where ``core`` is true."""
        cls = Game if core else type(game)
        if game.dynamics is Dynamics.SEQUENTIAL and len(actions) == 1:
            ((seat, action),) = actions.items()
            return cls.apply(game, action, seat)
        return cls.apply_joint(game, actions)

    # ------------------------------------------------------------------ tests

    def test_invariants_hold_over_random_playouts(self) -> None:
        for variant, players, seed in self._setups():
            game = new_game(variant, players, derive_seed(seed, "conformance-checked", players))
            checked = CheckedGame(game, every=self.check_every)
            bots = [RandomBot(derive_seed(seed, "conformance-bot", s)) for s in range(players)]
            for _ in range(self.max_steps):
                if game.is_over:
                    break
                actions = driver.choose(game, bots)
                if game.dynamics is Dynamics.SEQUENTIAL and len(actions) == 1:
                    ((seat, action),) = actions.items()
                    checked.apply(action, seat)
                else:
                    checked.apply_joint(actions)
            assert game.is_over, f"{variant.name}: no end within {self.max_steps} steps"
            assert check_result(game) is None
            result = game.result()
            assert len(result.scores) == players
            # The protocol the tools read: running scores and progress end where the
            # result does; every observation says whose it is.
            assert game.scores() in (None, result.scores), "scores() disagrees with result()"
            assert game.progress() in (None, result.rounds), (
                f"progress() is {game.progress()} at the end, result().rounds {result.rounds}"
            )
            for s in range(players):
                assert getattr(game.observation(s), "seat", None) == s, (
                    f"observation({s}) has no seat {s} (searches read observation.seat)"
                )

    def test_clone_json_and_position_round_trips(self) -> None:
        for _, game in self.positions():
            clone = game.clone()
            assert clone is not game, "clone() returns the game itself"
            assert _same(clone, game), "clone() differs from the game"
            text = game.to_json()
            for again in (
                type(game).from_json(text),
                Game.from_json(text),
                Game.from_json(game.to_dict()),
            ):
                assert type(again) is type(game)
                assert _same(again, game), "a JSON round trip changes the game"
                assert again.to_json() == text
            if game.is_over:
                continue  # a position is a game to continue from
            # A match's position is that of its current game (cardshop.core.series).
            inner = current_game(game)
            position = inner.to_position()
            single = inner.variant.model_copy(update={"match": None})
            placed = Game.from_position(position, single)
            if isinstance(placed, Engine):
                assert placed.setup_options() is None, (
                    "a game set up from a position claims a setup its moves do not start "
                    "at: its field _from_setup must be false, as Engine._empty leaves it"
                )
            assert placed.acting == inner.acting
            assert not placed.is_over
            for seat in range(inner.players) if self.positions_keep_observations else ():
                assert placed.observation(seat) == inner.observation(seat), (
                    f"seat {seat} observes another game after a position round trip"
                )
            for seat in inner.acting:
                assert placed.legal_actions(seat) == inner.legal_actions(seat)
            assert _plain(placed.to_position()) == _plain(position)
            self._step(clone, {s: clone.legal_actions(s)[0] for s in clone.acting})
            assert game.to_json() == text, "playing on a clone changed the game"

    def test_state_is_declared_once(self) -> None:
        """``Game.STATE`` names every field; the family's clone is the derived one; the
        copies share no list with the game; pickling and ``==`` follow."""
        for _, outer in self.positions():
            game = current_game(outer)
            cls = type(game)
            declared = [f.name for f in cls.STATE]
            assert declared, f"{cls.__name__} declares no STATE"
            assert len(set(declared)) == len(declared), f"{cls.__name__}.STATE repeats a field"
            slots = {n for k in cls.__mro__ for n in getattr(k, "__slots__", ()) if n}
            fields = slots if slots else set(getattr(game, "__dict__", {}))
            if fields:  # a compiled class shows neither its slots nor a __dict__
                assert set(declared) == fields, (
                    f"{cls.__name__}.STATE leaves out {sorted(fields - set(declared))} "
                    f"or names no field {sorted(set(declared) - fields)}"
                )
            fast, derived = game.clone(), game.derived_clone()
            for f in cls.STATE:
                mine, theirs = getattr(game, f.name), getattr(fast, f.name)
                assert theirs == getattr(derived, f.name) == mine, (
                    f"clone() and derived_clone() differ in {f.name}"
                )
                for level in _levels(mine, theirs, f.copy):
                    assert level, f"clone() shares a list of {f.name} with the game"
            assert fast == game == derived
            assert pickle.loads(pickle.dumps(game)) == game, "a pickled game differs"

    def test_illegal_actions_change_nothing(self) -> None:
        rng = random.Random(7)
        spaces: dict[tuple[str, int], list[Action]] = {}
        for family, game in self.positions():
            before = game.to_json()

            if game.is_over:
                for seat in range(game.players):
                    self._refused(
                        game, before, {seat: "pass"}, f"an action by seat {seat} after the end"
                    )
                continue
            key = (game.variant.name, game.players)
            space = spaces.get(key)
            if space is None:
                space = spaces[key] = list(family.action_space(game.variant, game.players))
            legal = {s: game.legal_actions(s) for s in game.acting}
            for seat in game.acting:
                others = {s: legal[s][0] for s in game.acting if s != seat}
                allowed = set(legal[seat])
                picks = rng.sample(space, min(200, len(space)))
                illegal = [a for a in picks if a not in allowed]
                for action in rng.sample(illegal, min(10, len(illegal))):
                    self._refused(
                        game, before, {**others, seat: action}, f"{str(action)!r} for seat {seat}"
                    )
                for text in _GARBAGE:
                    self._refused(
                        game,
                        before,
                        {**others, seat: text},
                        f"the text {text[:20]!r} for seat {seat}",
                    )
            idle = [s for s in range(game.players) if s not in game.acting]
            for seat in idle[:2]:
                action = rng.choice(space)
                self._refused(
                    game,
                    before,
                    {seat: action},
                    f"{str(action)!r} by seat {seat}, which does not act",
                )
            if len(game.acting) > 1:
                seat = game.acting[0]
                self._refused(
                    game,
                    before,
                    {s: legal[s][0] for s in game.acting if s != seat},
                    f"a tick without seat {seat}'s action",
                )

    def test_apply_agrees_with_the_cores_bookkeeping(self) -> None:
        """A family's own ``apply`` and ``apply_joint``, where it writes them (for
        speed), do what the core's do with its ``_record`` and ``_play``: the same
        events, state and moves after a legal step, by action or by text, and the same
        refusals, which change nothing."""
        rng = random.Random(13)
        for _, outer in self.positions():
            game = current_game(outer)
            before = game.to_json()
            if game.is_over:
                self._refused(game, before, {0: "pass"}, "an action after the end", core=True)
                continue
            legal = {s: game.legal_actions(s) for s in game.acting}
            chosen = {s: rng.choice(v) for s, v in legal.items()}
            steps: list[dict[Seat, Action | str]] = [
                {**chosen},
                {s: str(a) for s, a in chosen.items()},
            ]
            for step in steps:
                mine, core = game.clone(), game.clone()
                events = self._step(mine, step)
                assert self._step(core, step, core=True) == events, (
                    f"{step}: the family's apply and the core's give other events"
                )
                assert core.to_json() == mine.to_json(), f"{step}: the states differ"
                assert core.moves == mine.moves, f"{step}: the moves differ"
            seat = game.acting[0]
            bad: list[Any] = [*_GARBAGE[:4], Action(chosen[seat].verb, True), None]
            for action in bad:
                wrong: dict[Seat, Any] = {**chosen, seat: action}
                self._refused(game, before, wrong, f"{action!r} for seat {seat}", core=True)

    def test_hidden_information(self) -> None:
        rng = random.Random(11)
        twins = differed = 0
        for _, game in self.positions():
            if game.is_over:
                continue
            game = current_game(game)  # a match hides what its current game hides
            for seat in range(game.players):
                twin = self.hidden_twin(game, seat, rng)
                if twin is None:
                    continue
                twins += 1
                differed += twin.to_dict() != game.to_dict()
                assert twin.observation(seat) == game.observation(seat), (
                    f"seat {seat}'s observation changes when only what it cannot see changes"
                )
                if seat in game.acting:
                    assert twin.legal_actions(seat) == game.legal_actions(seat), (
                        f"seat {seat}'s legal actions change when only hidden things change"
                    )
        if twins == 0:
            raise AssertionError(
                f"{type(self).__name__}: the family has no sampler; override hidden_twin "
                "to deal a game that differs only in what a seat cannot see"
            )
        assert differed, "no twin differed from its game: the test proved nothing"

    def test_render_shows_a_seat_only_what_it_may_see(self) -> None:
        """A seat's text (the family's ``render(game, seat)``: what ``play`` shows a
        person and a server sends a seat without a graphical view) holds nothing the
        seat's observation hides. Two checks, on every moment of the playouts before
        the end: the text never contains the seed of the game, nor of the game a match
        is playing (every hidden card follows from it), and it is the same for a hidden
        twin (:meth:`hidden_twin`: a game that differs only in what the seat cannot
        see, its seed included for a sampler's twin)."""
        rng = random.Random(13)
        for family, game in self.positions():
            if game.is_over:
                continue
            inner = current_game(game)  # a match draws its current game
            own = get_family(game.variant.family)
            # The playouts' seeds are derived 63-bit numbers: 8 digits or more never
            # turn up in a text by chance.
            seeds = {str(s) for s in (game.seed, inner.seed) if len(str(s)) >= 8}
            for seat in range(game.players):
                text = family.render(game, seat)
                for seed in seeds:
                    assert seed not in text, (
                        f"render(game, {seat}) shows the seed {seed}, from which every "
                        f"hidden card follows: {text[:200]!r}"
                    )
                twin = self.hidden_twin(inner, seat, rng)
                if twin is None:
                    continue
                mine, theirs = own.render(inner, seat), own.render(twin, seat)
                assert mine == theirs, (
                    f"render(game, {seat}) changes when only what seat {seat} cannot see "
                    f"changes: {_first_difference(mine, theirs)}"
                )

    def test_action_texts_round_trip(self) -> None:
        """Every legal action's text parses back to it, and the same text with its
        ASCII digits written in other scripts (``buy \u0663``, ``buy \u00b3``) is refused."""
        checked_space: set[tuple[str, int]] = set()
        digits = 0
        for family, game in self.positions():
            for seat in game.acting:
                for i, action in enumerate(game.legal_actions(seat)):
                    text = str(action)
                    assert game.parse_action(text, seat) == action, (
                        f"{text!r} does not parse back to the same action"
                    )
                    if i < 50 and any(c.isdigit() for c in text):
                        digits += 1
                        for table in (_DIGITS, _SUPERSCRIPTS):
                            hostile = text.translate(table)
                            try:
                                game.parse_action(hostile, seat)
                            except ActionParseError:
                                continue
                            raise AssertionError(f"{hostile!r} was read as an action")
            key = (game.variant.name, game.players)
            if key not in checked_space and not game.is_over:
                checked_space.add(key)
                seat = game.acting[0]
                space = list(family.action_space(game.variant, game.players))
                for action in random.Random(3).sample(space, min(2000, len(space))):
                    assert game.parse_action(str(action), seat) == action, (
                        f"{str(action)!r} of the action space does not parse back"
                    )
        assert digits, "no legal action has a number: the digit check proved nothing"

    def test_action_space_covers_every_legal_action(self) -> None:
        spaces: dict[tuple[str, int], set[Action]] = {}
        for family, game in self.positions():
            key = (game.variant.name, game.players)
            if key not in spaces:
                space = list(family.action_space(game.variant, game.players))
                assert len(set(space)) == len(space), "the action space repeats an action"
                spaces[key] = set(space)
            for seat in game.acting:
                missing = [str(a) for a in game.legal_actions(seat) if a not in spaces[key]]
                assert not missing, f"legal actions outside the action space: {missing[:10]}"

    def test_legal_actions_view_agrees_with_its_enumeration(self) -> None:
        rng = random.Random(23)
        spaces: dict[tuple[str, int], list[Action]] = {}
        checked = 0
        for family, game in self.positions():
            key = (game.variant.name, game.players)
            if key not in spaces:
                spaces[key] = list(family.action_space(game.variant, game.players))
            for seat in game.acting:
                view = game.legal_actions(seat)
                assert isinstance(view, LegalActions), (
                    f"legal_actions returned a {type(view).__name__}, not a LegalActions view"
                )
                full = list(view)
                n = len(view)
                assert len(full) == n, f"len(view) is {n}, iterating it gives {len(full)}"
                assert n, f"seat {seat} acts with no legal action"
                listed = set(full)
                assert len(listed) == n, "the view lists an action twice"
                # Indexing: every index of a small view, a sample of a large one.
                indices = range(n) if n <= 3000 else sorted({0, n - 1, *rng.sample(range(n), 2000)})
                for i in indices:
                    assert view[i] == full[i], (
                        f"view[{i}] is {view[i]}, the {i}-th listed {full[i]}"
                    )
                    assert view[i - n] == full[i], f"view[{i - n}] differs from the listing"
                assert view[:5] == full[:5], "the slice [:5] differs from the listing"
                assert view[-3:] == full[-3:], "the slice [-3:] differs from the listing"
                for i in (n, -n - 1):
                    try:
                        view[i]
                    except IndexError:
                        pass
                    else:
                        raise AssertionError(f"view[{i}] of {n} actions raised no IndexError")
                # Membership and position, listed and not.
                for i in rng.sample(range(n), min(n, 300)):
                    assert full[i] in view, f"{full[i]} is listed but not 'in' the view"
                    assert view.index(full[i]) == i, f"view.index({full[i]}) is not {i}"
                space = spaces[key]
                unlisted: list[object] = [
                    a for a in rng.sample(space, min(400, len(space))) if a not in listed
                ]
                unlisted += [Action("no-such-verb"), Action("no-such-verb", 1), str(full[0])]
                for action in unlisted:
                    assert action not in view, f"{action!r} is 'in' the view but not listed"
                    assert view.count(action) == 0
                # Equality with the list, and sampling.
                assert view == full, "the view is not equal to its listing"
                assert full == view, "the listing is not equal to the view"
                assert view != full[:-1], "the view equals a shorter list"
                assert view != [*full, full[0]], "the view equals a longer list"
                for draw in range(5):
                    picked = view.sample(random.Random(draw))
                    assert picked in listed, f"sample gave {picked}, which is not listed"
                    assert picked == random.Random(draw).choice(full), (
                        "sample(rng) is not the pick of one uniform draw over the length"
                    )
                self.check_legal_view(game, seat, view)
                checked += 1
        assert checked, "no acting seat was looked at: the test proved nothing"

    def test_observation_encoder(self) -> None:
        encoders: dict[tuple[str, int], Any] = {}
        for family, game in self.positions():
            key = (game.variant.name, game.players)
            encoder = encoders.get(key)
            if encoder is None:
                encoder = encoders[key] = family.observation_encoder(game.variant, game.players)
                size = len(encoder.labels)
                assert size == len(encoder.low) == len(encoder.high) > 0
                assert all(lo <= hi for lo, hi in zip(encoder.low, encoder.high, strict=True))
            for seat in range(game.players):
                vector = encoder.encode(game.observation(seat))
                assert len(vector) == len(encoder.labels)
                for label, value, lo, hi in zip(
                    encoder.labels, vector, encoder.low, encoder.high, strict=True
                ):
                    assert math.isfinite(value), f"{label} = {value} (seat {seat})"
                    assert lo <= value <= hi, (
                        f"{label} = {value} lies outside {lo}..{hi} (seat {seat})"
                    )

    # ------------------------------------------------------- the shared readers

    def test_positions_never_open_a_file(self) -> None:
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory(prefix="cardshop-conformance-") as tmp:
            for variant, players, seed in self._setups():
                game = new_game(variant, players, derive_seed(seed, "conformance-file"))
                position = game.to_position()
                # A real variant file, so that opening it would succeed: a refusal proves
                # the path was not followed, not that the file was missing.
                copy = Path(tmp) / f"{variant.name}.json"
                copy.write_text(json.dumps(game.to_dict()["variant"]), encoding="utf-8")
                for ref in (str(copy), f"../{copy.name}", copy.name, f"./{copy.name}"):
                    hostile = {**position, "variant": ref}
                    for read in (Game.from_position, type(game).from_position):
                        try:
                            read(hostile)
                        except PositionError:
                            continue
                        raise AssertionError(f"a position naming the file {ref!r} was read")

    def test_event_dicts_round_trip_and_refuse_garbage(self) -> None:
        for variant, players, seed in self._setups():
            family = family_for(variant)
            game = new_game(variant, players, derive_seed(seed, "conformance-events"))
            bots = [RandomBot(derive_seed(seed, "conformance-bot", s)) for s in range(players)]
            kinds: dict[str, dict[str, Any]] = {}
            for _ in range(min(self.max_steps, 400)):
                if game.is_over:
                    break
                for event in driver.apply(game, driver.choose(game, bots)):
                    data = _plain(family.event_to_dict(event))
                    assert family.event_from_dict(data) == event, f"{data} does not read back"
                    kinds.setdefault(data["type"], data)
            assert kinds, "a playout caused no events"
            for data in kinds.values():
                fields = [k for k in data if k != "type"]
                broken: list[Any] = [
                    [data],
                    {**data, "type": "NoSuchEvent"},
                    {**data, "type": 7},
                    {**data, "extra-field": 1},
                ]
                if fields:
                    first = fields[0]
                    broken += [
                        {k: v for k, v in data.items() if k != first},
                        {**data, first: {"nested": [1, 2]}},
                        {**data, first: 10**400},
                        {**data, first: None},
                    ]
                for bad in broken:
                    try:
                        family.event_from_dict(bad)
                    except RecordError:
                        continue
                    except Exception as exc:
                        raise AssertionError(
                            f"a malformed event {bad!r:.120} raised {type(exc).__name__}, "
                            "not RecordError"
                        ) from exc
                    raise AssertionError(f"a malformed event {bad!r:.120} was read")

    def test_tampered_histories_and_json_out_of_bounds_are_refused(self) -> None:
        from cardshop.core.game import (
            MAX_GAME_JSON_BYTES,
            MAX_GAME_JSON_DEPTH,
        )

        for variant, players, seed in self._setups():
            game = new_game(variant, players, derive_seed(seed, "conformance-history"))
            assert game.setup_options() is not None, (
                "a new game must state its setup (Game.setup_options; an Engine's reads "
                "its field _from_setup, which Engine.new sets true), so that a game "
                "read from JSON can be replayed from it"
            )
            bots = [RandomBot(derive_seed(seed, "conformance-bot", s)) for s in range(players)]
            earlier = game.clone()
            for _ in range(min(self.max_steps, 40)):
                if game.is_over:
                    break
                earlier = game.clone()
                driver.apply(game, driver.choose(game, bots))
            now, before = json.loads(game.to_json()), json.loads(earlier.to_json())
            assert _same(Game.from_json(now), game), "a game does not read back from its JSON"
            spliced = [key for key in now if key in before and now[key] != before[key]]
            assert spliced, "a step changed nothing in the game's JSON"
            for key in spliced:
                hostile = {**now, key: before[key]}
                if hostile == before:
                    continue  # the game one step earlier, whole: a true game
                try:
                    Game.from_json(json.dumps(hostile))
                except PositionError:
                    continue
                raise AssertionError(f"a game JSON whose {key!r} is from one step earlier was read")
            text = json.dumps(now)
            deep = "[" * (MAX_GAME_JSON_DEPTH + 1) + "]" * (MAX_GAME_JSON_DEPTH + 1)
            for hostile_text in (
                text + " " * (MAX_GAME_JSON_BYTES + 1 - len(text)),
                text[:-1] + ', "x": ' + deep + "}",
                text[:-1] + ', "x": ' + str(10**30) + "}",
                text[:-1] + ', "x": NaN}',
                "[" + text + "]",
            ):
                for read in (Game.from_json, type(game).from_json):
                    try:
                        read(hostile_text)
                    except PositionError:
                        continue
                    raise AssertionError(f"an out-of-bounds game JSON was read ({read})")

    def test_new_game_refuses_another_familys_variant(self) -> None:
        """The family's own ``new_game``, given a variant of another family, raises
        :class:`~cardshop.SetupError` (the core's
        :meth:`~cardshop.core.VariantBase.of_family` says so), not an assertion or a
        ``TypeError`` from inside the engine."""
        for variant, players, seed in self._setups():
            family = family_for(variant)
            other = load_variant("wuhltisch" if family.name == "klunker" else "klunker-en")
            refusal = ""
            try:
                family.new_game(other, players, seed)
            except SetupError as exc:
                refusal = str(exc)
            assert refusal, f"{family.name}'s new_game took a {other.family} variant"
            assert other.name in refusal, f"the refusal does not name the variant: {refusal}"

    def test_first_player_through_new_game_and_replay(self) -> None:
        """A family whose games take a first player takes it through
        :func:`cardshop.new_game` and :func:`cardshop.replay`, and states it in its
        setup."""
        from cardshop.core.family import game_options
        from cardshop.core.frontdoor import replay

        for variant, players, seed in self._setups():
            family = family_for(variant)
            if "first_player" not in game_options(family):
                continue
            for first in range(players):
                game = new_game(variant, players, derive_seed(seed, "first"), first)
                assert (game.setup_options() or {}).get("first_player") == first
                bots = [RandomBot(derive_seed(seed, "first-bot", s)) for s in range(players)]
                steps: list[dict[Seat, Action]] = []
                for _ in range(min(self.max_steps, 30)):
                    if game.is_over:
                        break
                    actions = driver.choose(game, bots)
                    driver.apply(game, actions)
                    steps.append(actions)
                again = replay(
                    variant, players, derive_seed(seed, "first"), first, [dict(a) for a in steps]
                )
                assert _same(again, game), f"replay with first_player={first} differs"
