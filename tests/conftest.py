"""Shared test setup: hypothesis profiles and small helpers.

Profiles (``CARDSHOP_HYPOTHESIS_PROFILE``): ``ci`` is deterministic and bounded and is
the default when ``CI`` is set; ``dev`` (default elsewhere) is a little larger;
``deep`` runs many more examples, for hand runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

import cardshop
from cardshop.klunker import Game
from cardshop.klunker.events import Event, Sold
from kernel_compiles import compile_kernels, forget_compiles

settings.register_profile(
    "ci",
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


settings.load_profile(
    os.environ.get("CARDSHOP_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """A run of the whole suite compiles the batch kernels first, side by side, before
    the workers start (:mod:`kernel_compiles`); a run of chosen tests does not."""
    config = session.config
    if hasattr(config, "workerinput") or config.args_source is not config.ArgsSource.TESTPATHS:
        return
    compile_kernels()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        forget_compiles()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep each ``xdist_group`` on one worker (:func:`_group_by_node_id`); on the
    compiled build (``cardshop.compiled``), skip the ``pure_only`` tests: they patch the
    engine's classes or module globals, which mypyc fixes at build time (or say in
    ``reason=`` why else they hold only for the pure build)."""
    _group_by_node_id(config, items)
    if not cardshop.compiled:
        return
    default = "patches engine internals, which the compiled build cannot change"
    for item in items:
        marker = item.get_closest_marker("pure_only")
        if marker is not None:
            reason = marker.kwargs.get("reason", default)
            item.add_marker(pytest.mark.skip(reason=f"pure_only: {reason}"))


def _group_by_node_id(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test of an ``xdist_group`` for ``--dist loadgroup`` (``addopts``), so
    that a group's tests run on one worker and share its fixtures (a docs site built
    once, a kernel compiled once).

    pytest-xdist names a test's group by adding ``@GROUP`` to its node id, through the
    attribute ``_nodeid``, which pytest 9.2 no longer reads (its node ids are
    ``_id``): without this, every group was spread over the workers. Done here through
    ``_id`` while xdist's own mark is missing; a pytest without ``_id`` keeps xdist's."""
    if not getattr(config.option, "loadgroup", False):
        return
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # an older pytest: xdist's own suffix works there
        return
    for item in items:
        names = {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        }
        if names and "@" not in item.nodeid and hasattr(item, "_id"):
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(sorted(names))}")


@pytest.fixture
def sale_drops_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """An injected engine fault: each sale loses one unpaid card (it ends in no zone).

    The audit, the invariants and the state machine must all catch it.
    """
    original = Game._sell_row

    def dropping(self: Game, seat: int, kind: int, events: list[Event]) -> None:
        original(self, seat, kind, events)
        sold = events[-1]
        assert isinstance(sold, Sold)
        if sold.discarded:
            self._where[sold.discarded[-1]] = 4 * self.n
            self._check_counts()

    monkeypatch.setattr(Game, "_sell_row", dropping)


@pytest.fixture
def tiny_registered() -> Iterator[None]:
    """The tiny test family registered, and registered again after the test: a test
    that registered a changed record of it leaves the real one."""
    import tinyfamily

    tinyfamily.register()
    yield
    tinyfamily.register()
