"""The results of docs/skill.md: run the measures, and write the page from their JSON.

Write the page again from the committed results (docs/skill/*.json)::

    python scripts/skill_page.py

Run one measure again (its JSON is replaced), then write the page::

    nice -n 10 python scripts/skill_page.py --run klunker-en-depth --workers 2
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import NamedTuple

from cardshop.ladder.depth import DepthResult, GradedResult, graded_steps, read_result, skill_depth

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "skill.md"
RESULTS = ROOT / "docs" / "skill"
SEED = 2026


class Measure(NamedTuple):
    """One measure of the page: a graded ladder (``rungs``) or a skill depth."""

    key: str
    variant: str
    players: int
    deals: int
    rungs: tuple[str, ...] = ()
    bot: str = "ismcts"
    start: int = 5
    doublings: int = 3
    note: str = ""


MEASURES = (
    Measure(
        "klunker-en-graded",
        "klunker-en",
        4,
        25,
        rungs=("baseline", "random", "greedy", "ismcts:50"),
        note=(
            "In the committed run the graded ladder holds: each rung wins significantly "
            "against the one below it. `baseline` (a kind of action first, then an action "
            "of it) is the weakest player of Klunker, weaker than `random`, and "
            "`ismcts:50` is the first searching rung above Klunker's `greedy` rule: at 5 "
            "to 20 iterations ISMCTS loses to it (docs/ladder.md)."
        ),
    ),
    Measure(
        "klunker-en-depth",
        "klunker-en",
        4,
        12,
        doublings=4,
        note=(
            "In the committed run three doublings, from 5 to 40 iterations, win "
            "significantly; the fourth, 80 against 40, reads above the fair share but "
            "its interval reaches it on 48 games: more deals may still tell them apart."
        ),
    ),
    Measure(
        "reglamentacja-graded",
        "reglamentacja",
        3,
        20,
        rungs=("baseline", "random", "greedy", "pimc:100"),
        note=(
            "Only `greedy > random` is significant in the committed run: `random` reads "
            "above `baseline` and `pimc:100` above `greedy`, but both intervals reach the "
            "fair share on 60 games; more deals may tell them apart. (`pimc:100` beat "
            "`ismcts:50` decisively: docs/bots.md.)"
        ),
    ),
    Measure(
        "reglamentacja-depth",
        "reglamentacja",
        3,
        12,
        doublings=3,
        note=(
            "Every doubling measured, from 5 to 40 iterations, wins significantly in the "
            "committed run: the depth is at least 3, and more doublings (at a greater "
            "cost) would find where it ends."
        ),
    ),
    Measure(
        "wuhltisch-graded",
        "wuhltisch",
        3,
        10,
        rungs=("baseline", "random", "greedy", "pimc:50:0.02"),
        note=(
            "Only `greedy > random` is significant in the committed run, on 30 games a "
            "step: `random` and `baseline` are not told apart, and `pimc:50:0.02`, which "
            "keeps the greedy rule's move unless its playouts find a clearly better one, "
            "plays about as well as `greedy` (it beat `ismcts:50` in every game: "
            "docs/bots.md)."
        ),
    ),
    Measure(
        "wuhltisch-depth",
        "wuhltisch",
        3,
        3,
        start=1,
        doublings=1,
        note=(
            "ISMCTS searches a Wühltisch tick by tick, and against other ISMCTS seats a "
            "game has many ticks: in a trial one game of `ismcts:2` against two "
            "`ismcts:1` cost 22 s of CPU and one of `ismcts:4` against two `ismcts:2` "
            "52 s (a whole game of `greedy` seats: a twentieth of a second). This "
            "page's budget allows one doubling from a budget of 1 on 3 deals only: a "
            "depth of 0 here says that so few games cannot tell the budgets apart."
        ),
    ),
)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(measure: Measure, workers: int) -> None:
    """Play one measure and write its JSON (with its measured cost) to docs/skill/."""
    played = 0

    def progress(n: int) -> None:
        nonlocal played
        played += n
        print(f"  {measure.key}: {played} games", file=sys.stderr, flush=True)

    wall, cpu = time.perf_counter(), _cpu()
    result: GradedResult | DepthResult
    if measure.rungs:
        result = graded_steps(
            measure.variant,
            list(measure.rungs),
            players=measure.players,
            deals=measure.deals,
            seed=SEED,
            workers=workers,
            progress=progress,
        )
    else:
        result = skill_depth(
            measure.variant,
            measure.bot,
            measure.start,
            max_doublings=measure.doublings,
            players=measure.players,
            deals=measure.deals,
            seed=SEED,
            workers=workers,
            progress=progress,
        )
    data = result.to_dict()
    data["cost"] = {
        "wall_seconds": round(time.perf_counter() - wall, 1),
        "cpu_seconds": round(_cpu() - cpu, 1),
        "workers": workers,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{measure.key}.json").write_text(json.dumps(data, indent=1) + "\n")


INTRO = """\
# Skill: graded strengths and skill depth

<!-- Generated by scripts/skill_page.py from docs/skill/*.json: edit the script, not
this page. -->

How much does a variant reward playing better? Two measures answer it with games
between bots of known strength order (the Python API is `cardshop.ladder.depth`, the
command `cardshop skill-depth`):

* **The graded ladder.** Rungs of bots, weakest first: `random`, `baseline`, the
  family's `greedy`, then `ismcts` at doubling budgets. Each adjacent pair is a
  *step*: one seat of the stronger bot against the weaker bot in every other seat.
  The ladder *holds* when every step is won significantly: the variant tells each bot
  from the next, all the way up.
* **The skill depth** (after SkillTrace). A searching bot against itself at half the
  budget: `ismcts:10` in one seat against `ismcts:5` in the others, then `ismcts:20`
  against `ismcts:10`, and so on. The depth is the number of consecutive doublings,
  from the start, that still win significantly; the measure stops at the first that
  does not. A deep game keeps rewarding more thought; a shallow one stops telling a
  better search from a worse one after a doubling or two (or its outcomes drown in
  luck, see [the luck measure](measures.md)). A depth that reaches the last doubling
  measured is reported as "at least".

## What is measured

A step plays `deals` deals, each once per rotation of the seats: the stronger bot
plays every seat of every deal once, so a seat's advantage cancels out, and a step at
N players has `deals x N` games. Every step plays the *same* deals (deal d is set up
from the seed that `cardshop simulate` gives its game d, whatever the bots: paired
deals), so two steps differ by the bots only.

For each step:

* **Win share**: the stronger bot's share of first places (k seats sharing first
  place count 1/k each), with its 95% Wilson interval;
* **Fair**: the share a bot no better than the others would have, 1/N;
* **Score diff**: the mean of the stronger seat's score minus the mean score of the
  other seats, with its 95% interval;
* **Significant**: yes when the win share's whole interval lies above the fair share.

How to read it: a step that is not significant means the games played could not tell
the two bots apart, not that they are equal: more deals narrow the interval. The
interval counts games as independent; the rotations of one deal are not (a deal good
for one seat is bad for the others), which makes the interval, if anything, wider
than it need be. Each step is tested on its own at 95%: over a long ladder, one step
in twenty between truly equal bots may come out significant by chance.

Run it:

```bash
cardshop skill-depth klunker-en --bot ismcts --start 5 --doublings 4 --players 4 --deals 20
cardshop skill-depth klunker-en --graded baseline,random,greedy,ismcts:50 --players 4
cardshop skill-depth klunker-en --graded default --json graded.json --markdown graded.md
```

In Python (small counts, so that this example runs in seconds):

```python
from cardshop.ladder.depth import graded_steps, skill_depth

graded = graded_steps("klunker-en", ["random", "greedy"], players=4, deals=5, workers=1)
depth = skill_depth("klunker-en", "ismcts", 2, max_doublings=2, players=4, deals=2, workers=1)
print(graded.holds, depth.depth_text())  # depth_text: "1", or "at least 2"
print(depth.to_text())  # the table; to_markdown() and to_json() too
```

Any bot whose option is a number of iterations works for the depth (`ismcts`,
`pimc`, a registered one); `--graded default` takes `random`, `baseline`, the
family's `greedy` if it has one, then `--bot` budgets from `--start`. The JSON
(schemas `cardshop-graded/1` and `cardshop-skill-depth/1`) holds each step's counts;
the interval and the significance are computed again when it is read.

## Results per built-in family

Measured with seed {seed}, on small budgets (a few CPU minutes each): each run's
deals and games are in its table, its cost below it. Run them again with
`python scripts/skill_page.py --run KEY --workers 2` (KEY is the file name in
`docs/skill/`).
"""


def _cost(data: dict[str, object]) -> str:
    cost = data.get("cost")
    if not isinstance(cost, dict):
        return ""
    return (
        f"Cost: {cost.get('cpu_seconds')} s of CPU ({cost.get('wall_seconds')} s on "
        f"{cost.get('workers')} worker processes)."
    )


def render() -> str:
    """The page, from the committed JSON of each measure."""
    parts = [INTRO.replace("{seed}", str(SEED))]
    for measure in MEASURES:
        path = RESULTS / f"{measure.key}.json"
        kind = "graded ladder" if measure.rungs else "skill depth"
        if not path.exists():
            parts.append(
                f"### {measure.variant}, {measure.players} players: {kind}\n\n"
                f"Not measured yet (`{measure.key}`).\n"
            )
            continue
        text = path.read_text(encoding="utf-8")
        result = read_result(text)
        block = result.to_markdown(heading="###").rstrip("\n")
        extra = [_cost(json.loads(text)), measure.note]
        block += "\n\n" + "\n\n".join(e for e in extra if e)
        parts.append(block.rstrip("\n") + f"\n\nThe result: `docs/skill/{measure.key}.json`.\n")
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--run", action="append", default=[], help="a measure to run again")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    known = {m.key: m for m in MEASURES}
    for key in args.run:
        if key not in known:
            parser.error(f"--run takes one of {', '.join(known)}, not {key!r}")
        run(known[key], args.workers)
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
