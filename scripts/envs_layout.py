"""Write the observation layouts of docs/envs.md, the tables of every observation vector.

The section between the two markers of ``cardshop.envs._layout`` (``LAYOUT_BEGIN``,
``LAYOUT_END``) is generated from the code: for each family with a built-in variant,
the parts of each built-in variant's vector (slices, meaning, labels and bounds), from
its family's observation encoder. ``tests/test_envs_layout.py`` fails when the committed
page is not the one this writes; ``python scripts/envs_layout.py`` brings it in step
(``--check`` only says whether it is, exit status 1 if not). It draws the families that
a fresh interpreter knows: cardshop's own and those installed with an entry point.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cardshop.envs._layout import LAYOUT_BEGIN, LAYOUT_END, layouts_section

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "envs.md"


def render() -> str:
    """docs/envs.md with its observation layouts as the code draws them now."""
    page = PAGE.read_text(encoding="utf-8")
    start = page.find(LAYOUT_BEGIN)
    end = page.find(LAYOUT_END)
    if start < 0 or end < start:
        raise SystemExit(f"{PAGE} has lost its markers: {LAYOUT_BEGIN} ... {LAYOUT_END}")
    return page[:start] + layouts_section() + page[end + len(LAYOUT_END) + 1 :]


def main() -> int:
    if sys.argv[1:] == ["--check"]:
        if PAGE.read_text(encoding="utf-8") != render():
            print(f"{PAGE.relative_to(ROOT)} is out of step: run python scripts/envs_layout.py")
            return 1
        print(f"{PAGE.relative_to(ROOT)} is in step with the code")
        return 0
    if sys.argv[1:]:
        print("usage: python scripts/envs_layout.py [--check]", file=sys.stderr)
        return 2
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
