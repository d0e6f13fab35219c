"""The Wühltisch family's :class:`~cardshop.core.Family` record: what it gives the core.

Registered through the ``cardshop.families`` entry point (``pyproject.toml``) as
``cardshop.wuhltisch:FAMILY``, which the package re-exports from here.
"""

from __future__ import annotations

from cardshop.core import AuditDefaults, Dynamics, Family, optionless_bot
from cardshop.wuhltisch.bots import WuhltischGreedyBot
from cardshop.wuhltisch.events import CODEC, describe_event
from cardshop.wuhltisch.game import WuhltischGame, new_game
from cardshop.wuhltisch.invariants import INVARIANTS
from cardshop.wuhltisch.sampling import sample
from cardshop.wuhltisch.search import SEARCH
from cardshop.wuhltisch.spaces import action_space, observation_encoder, render
from cardshop.wuhltisch.variant import WuhltischVariant
from cardshop.wuhltisch.verify import VERIFY
from cardshop.wuhltisch.view import table_view

__all__ = ["FAMILY"]


FAMILY = Family.for_engine(
    WuhltischGame,
    CODEC,
    name="wuhltisch",
    dynamics=Dynamics.SIMULTANEOUS,
    variant_model=WuhltischVariant,
    new_game=new_game,
    action_space=action_space,
    observation_encoder=observation_encoder,
    render=render,
    table_view=table_view,
    describe_event=describe_event,
    invariants=INVARIANTS,
    bots={"greedy": optionless_bot("greedy", WuhltischGreedyBot)},
    sampler=sample,
    search=SEARCH,
    verify=VERIFY,
    digest="wuhltisch-rules.md",
    variant_strategy="cardshop.wuhltisch.strategies:variants",
    kernel="cardshop.wuhltisch.kernel",
    description="Wühltisch: a real-time shopping game played in simultaneous ticks.",
    length_unit="round",  # a game is counted in rounds of ticks (WT-END-3)
    audit=AuditDefaults(
        bots=("greedy",),
        games=100,
        cap_policy="report",
        note="its greedy bots call rounds as players do, where uniform random ones play "
        "some ten thousand ticks a game into the tick cap; a round that reaches the cap "
        "ends as if called by nobody, which the rules allow, so capped games are reported",
    ),
)
