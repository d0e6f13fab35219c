"""The Reglamentacja family's :class:`~cardshop.core.Family` record: what it gives the core.

Registered through the ``cardshop.families`` entry point (``pyproject.toml``) as
``cardshop.reglamentacja:FAMILY``, which the package re-exports from here.
"""

from __future__ import annotations

from cardshop.core import AuditDefaults, Dynamics, Family, optionless_bot
from cardshop.reglamentacja.bots import ReglamentacjaBaselineBot, ReglamentacjaGreedyBot
from cardshop.reglamentacja.events import CODEC
from cardshop.reglamentacja.game import ReglamentacjaGame, new_game
from cardshop.reglamentacja.invariants import INVARIANTS
from cardshop.reglamentacja.sampling import determinizer, sample
from cardshop.reglamentacja.search import SEARCH
from cardshop.reglamentacja.spaces import action_factors, action_space, observation_encoder, render
from cardshop.reglamentacja.variant import ReglamentacjaVariant
from cardshop.reglamentacja.verify import VERIFY
from cardshop.reglamentacja.view import table_view

__all__ = ["FAMILY"]


FAMILY = Family.for_engine(
    ReglamentacjaGame,  # its readers check that a variant is a Reglamentacja one
    CODEC,
    name="reglamentacja",
    dynamics=Dynamics.SEQUENTIAL,
    variant_model=ReglamentacjaVariant,
    new_game=new_game,  # checks that the variant is a Reglamentacja one
    action_space=action_space,
    observation_encoder=observation_encoder,
    render=render,
    table_view=table_view,
    invariants=INVARIANTS,
    bots={
        "baseline": optionless_bot(
            "baseline", lambda variant, seed: ReglamentacjaBaselineBot(seed)
        ),
        "greedy": optionless_bot("greedy", ReglamentacjaGreedyBot),
    },
    sampler=sample,
    determinizer=determinizer,
    search=SEARCH,
    digest="reglamentacja-rules.md",
    variant_strategy="cardshop.reglamentacja.strategies:variants",
    description="Queues, ration stamps, a speculator and negotiation.",
    length_unit="turn",  # a game is counted in shopping turns (RG-END)
    factored=action_factors,  # offers part by part, for learning agents (docs/envs.md)
    verify=VERIFY,  # state key, clauses and shrinker for cardshop verify
    kernel="cardshop.reglamentacja.kernel",
    audit=AuditDefaults(
        bots=("greedy",),
        games=100,
        cap_policy="report",
        note="its greedy bots trade, discard and shop by the value of their hands, where "
        "a uniform random player offers on nearly every turn among thousands of offers; "
        "nothing proves a game ends, and the rules end one at the turn cap as capped, so "
        "capped games are reported",
    ),
)
