"""``cardshop diff`` and ``cardshop compare`` (and ``audit A B``), and their Python API.

The diff resolves ``extends`` and lists every key path that differs, with what the key
means and its rule clause; compare heads the paired audit with that diff and adds each
seat's mean score in both variants, with every measure's difference and interval.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cardshop
from cardshop.audit.paired import PairedComparison, compare_variants
from cardshop.cli import run
from cardshop.variantdiff import CLAUSE, Change, diff_variants

SMALL = ["--players", "3", "--games", "20", "--examples", "0", "--seed", "3", "-w", "1", "-q"]


def cardshop_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the command takes seconds
        check=False,
    )


def price_of(name: str) -> int:
    price = cardshop.load_variant(name).purchase.price  # type: ignore[attr-defined]
    constant = getattr(price, "constant", price)
    assert isinstance(constant, int)
    return constant


@pytest.fixture
def dearer(tmp_path: Path) -> Path:
    """klunker-en with a dearer purchase: the price one above the edition's."""
    path = tmp_path / "dearer.yaml"
    path.write_text(
        f"extends: klunker-en\nname: dearer\npurchase:\n  price: {price_of('klunker-en') + 1}\n",
        encoding="utf-8",
    )
    return path


def by_key(changes: list[Change]) -> dict[str, Change]:
    return {c.key: c for c in changes}


def test_a_changed_key_says_old_new_meaning_and_clause(dearer: Path) -> None:
    changes = by_key(diff_variants("klunker-en", dearer))
    price = changes["purchase.price"]
    old = price_of("klunker-en")
    assert (price.kind, price.a, price.b) == ("changed", old, old + 1)
    assert price.text() == f"purchase.price: {old} -> {old + 1}"
    model = cardshop.klunker.variant.Purchase
    described = model.model_fields["price"].description
    assert described is not None
    assert price.meaning == " ".join(described.split())
    assert price.clauses == tuple(dict.fromkeys(CLAUSE.findall(described)))
    assert price.clauses  # the price cites its clause
    assert changes["name"].b == "dearer"
    # keys left alike are not listed
    assert not [k for k in changes if k.startswith(("cards", "sale", "players"))]


def test_editions_differ_in_items_added_and_removed() -> None:
    a, b = cardshop.load_variant("klunker-en"), cardshop.load_variant("klunker-es")
    changes = diff_variants(a, b)
    found = by_key(changes)
    for count in set(b.starting_cash) - set(a.starting_cash):  # type: ignore[attr-defined]
        assert found[f"starting_cash.{count}"].kind == "added"
    steps_a, steps_b = a.steps, b.steps  # type: ignore[attr-defined]
    for i in range(len(steps_a), len(steps_b)):
        assert found[f"steps[{i}]"].kind == "added"
    assert all(c.a != c.b for c in changes)


def test_keyed_lists_are_matched_by_their_key(tmp_path: Path) -> None:
    """Reglamentacja's cards are matched by name: a card edited is one change inside
    it, not a run of changes of every card after it."""
    base = cardshop.load_variant("reglamentacja")
    field = type(base).LIST_KEYS["cards"]
    cards = base.to_data()["cards"]
    dropped = cards[0][field]
    path = tmp_path / "fewer.yaml"
    path.write_text(
        "extends: reglamentacja\nname: fewer\ncards:\n  $remove: [" + dropped + "]\n",
        encoding="utf-8",
    )
    try:
        changes = diff_variants(base, path)
    except cardshop.VariantError:
        pytest.skip("the list markers of extends are not in this checkout")
    removed = [c for c in changes if c.kind == "removed"]
    assert [c.key for c in removed] == [f"cards.{dropped}"]
    assert not [c for c in changes if c.key.startswith("cards") and c.kind != "removed"]


def test_identical_variants_and_different_families(capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_variants("klunker-en", "klunker-en") == []
    assert run(["diff", "klunker-en", "klunker-en"]) == 0
    assert "no differences" in capsys.readouterr().out
    with pytest.raises(cardshop.SetupError, match="only variants of one family"):
        diff_variants("klunker-en", "wuhltisch")
    assert run(["diff", "klunker-en", "wuhltisch"]) == 2
    err = capsys.readouterr().err
    assert "klunker" in err
    assert "wuhltisch" in err


def test_the_diff_command_as_text_and_json(
    dearer: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["diff", "klunker-en", str(dearer)]) == 0
    text = capsys.readouterr().out
    old = price_of("klunker-en")
    assert f"purchase.price: {old} -> {old + 1}" in text
    assert run(["diff", "klunker-en", str(dearer), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["changes"] == [c.to_dict() for c in diff_variants("klunker-en", dearer)]


def test_compare_as_a_library_function(dearer: Path) -> None:
    report = compare_variants("klunker-en", dearer, games=20, players=[3], examples=0, seed=3)
    assert isinstance(report, PairedComparison)
    assert report.changes is not None
    assert "purchase.price" in [c.key for c in report.changes]
    ((players, seats),) = report.seats
    assert players == 3
    assert len(seats) == 3
    pc_a, pc_b = report.a.player_counts[0], report.b.player_counts[0]
    for seat, d in enumerate(seats.values()):
        assert d.a == pytest.approx(sum(g.scores[seat] for g in pc_a.summaries) / pc_a.games)
        assert d.b == pytest.approx(sum(g.scores[seat] for g in pc_b.summaries) / pc_b.games)
        assert d.low is not None
        assert d.high is not None
        assert d.low <= d.difference <= d.high
    ((_, diffs),) = report.differences
    assert set(diffs) == set(pc_a.measures) & set(pc_b.measures)
    text = report.to_text()
    assert text.index("purchase.price") < text.index("Mean score per seat")
    assert text.index("Mean score per seat") < text.index("Balance across seats")


def test_compare_takes_the_audit_s_options(
    dearer: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The options are declared once for audit and compare: the cap policy, the check
    interval and the HTML page reach the comparison as they reach an audit."""
    html = tmp_path / "compare.html"
    args = ["klunker-en", str(dearer), "-n", "4", "-p", "3", "--examples", "0", "-q"]
    options = ["--cap-policy", "report", "--check-every", "3", "--html", str(html)]
    assert run(["compare", *args, *options, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [v["cap_policy"] for v in data["variants"]] == ["report", "report"]
    assert [v["check_every"] for v in data["variants"]] == [3, 3]
    assert "<h1>Comparison of klunker-en and " in html.read_text(encoding="utf-8")
    assert run(["compare", *args, "--cap-policy", "sometimes"]) == 2


def test_compare_and_audit_in_a_subprocess(dearer: Path) -> None:
    done = cardshop_cli("compare", "klunker-en", str(dearer), *SMALL, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "purchase.price" in [c["key"] for c in report["diff"]]
    ((count,),) = [report["mean_score_by_seat"]]
    assert count["players"] == 3
    assert len(count["seats"]) == 3
    for seat, variant in zip(count["seats"], report["variants"], strict=False):
        assert {"a", "b", "difference", "low", "high"} <= set(seat)
        assert variant["player_counts"]
    for d in report["comparison"]["player_counts"][0]["measures"].values():
        assert "low" in d
        assert "high" in d
    audited = cardshop_cli("audit", "klunker-en", str(dearer), *SMALL, "--json")
    assert audited.returncode == 0, audited.stderr
    assert json.loads(audited.stdout)["diff"] == report["diff"]
    text = cardshop_cli("audit", "klunker-en", str(dearer), *SMALL)
    assert "purchase.price" in text.stdout
    assert "Mean score per seat" in text.stdout
    other = cardshop_cli("compare", "klunker-en", "wuhltisch", *SMALL)
    assert other.returncode == 2
    assert "only variants of one family" in other.stderr
