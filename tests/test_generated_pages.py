"""The reference pages generated from the code are committed and in step with it.

A key added to a variant model, or a name to ``cardshop.core``, without regenerating
its page fails here with the command that brings the page in step.
"""

from __future__ import annotations

import pytest

from pages_support import GENERATED, ROOT, load_script


@pytest.mark.parametrize("page", sorted(GENERATED))
def test_the_committed_page_is_the_generated_one(page: str) -> None:
    script = GENERATED[page]
    if script == "core_reference":
        pytest.importorskip("griffe")  # the docs extra: that generator reads the source
    generated = load_script(script).render()
    assert (ROOT / page).read_text(encoding="utf-8") == generated, (
        f"{page} is not what the code says: run python scripts/{script}.py and commit the page"
    )
