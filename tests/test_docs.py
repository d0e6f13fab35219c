"""The documentation: the site builds with ``mkdocs build --strict``, the generated
reference covers every key of the variant format, and the code examples of README.md
and docs/ run.

How examples run, file by file, in a fresh folder (``variants/`` and ``examples/``
of the repository are linked into it):

* a fenced block with a ``title="NAME"`` (``yaml title="my.yaml"``) is written to
  that file when the reader reaches it;
* ``python`` blocks run in order in one namespace per page; ``pycon`` blocks (and
  python blocks that start with ``>>>``) run as doctests in that namespace;
* in ``console`` blocks of the pages listed in ``RUN_COMMANDS``, every ``$ cardshop
  ...`` and ``$ python ...`` command runs and must succeed, and every other line
  of the block must appear in its output (``...`` in a line stands for any text; a
  line of just ``...`` for any lines); ``pip`` commands do not run;
* a block right after the line ``<!-- docs-test: skip -->`` does not run.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cardshop.klunker.variant import Variant

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)])
RUN_COMMANDS = {"docs/index.md", "docs/quickstart.md", "docs/tutorial.md", "docs/envs.md"}
SKIP_MARK = "<!-- docs-test: skip -->"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)(?P<rest>.*)$")


@dataclass
class Block:
    lang: str
    title: str | None
    code: str
    line: int
    skip: bool


def blocks_of(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order."""
    lines = text.splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m["indent"], m["fence"]
        title = re.search(r'title="([^"]+)"', m["rest"])
        previous = next((x.strip() for x in reversed(lines[:i]) if x.strip()), "")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        out.append(
            Block(
                lang=m["lang"].lower(),
                title=title[1] if title else None,
                code="\n".join(body) + "\n",
                line=i + 1,
                skip=previous == SKIP_MARK,
            )
        )
        i = j + 1
    return out


def run_command(command: str, cwd: Path) -> str:
    argv = shlex.split(command)
    if argv[0] == "cardshop":
        argv = [sys.executable, "-m", "cardshop", *argv[1:]]
    elif argv[0] == "python":
        argv = [sys.executable, *argv[1:]]
    # A hang guard: a documented command takes seconds; 900 s is 100 times that.
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"`{command}` exited with {proc.returncode}:\n{output}"
    return output


def run_console(block: Block, cwd: Path, where: str) -> None:
    command: str | None = None
    expected: list[str] = []

    def finish() -> None:
        if command is None:
            return
        words = shlex.split(command)
        if words[0] not in ("cardshop", "python"):
            return
        output = run_command(command, cwd)
        for line in expected:
            pattern = ".*".join(re.escape(part) for part in line.split("..."))
            assert re.search(pattern, output), (
                f"{where}: `{command}` did not print {line!r}:\n{output}"
            )

    for raw in block.code.splitlines():
        if raw.startswith("$ "):
            finish()
            command, expected = raw[2:].strip(), []
        elif raw.strip() and raw.strip() != "...":
            expected.append(raw.strip())
    finish()


def run_page(page: Path, cwd: Path) -> int:
    """Run the examples of one page in ``cwd``; return how many blocks ran."""
    rel = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    namespace: dict[str, object] = {"__name__": "__docs__"}
    ran = 0
    for block in blocks_of(page.read_text(encoding="utf-8")):
        where = f"{rel}:{block.line}"
        if block.title:
            (cwd / block.title).write_text(block.code, encoding="utf-8")
        if block.skip:
            continue
        is_doctest = block.lang == "pycon" or (
            block.lang == "python" and block.code.lstrip().startswith(">>>")
        )
        if is_doctest:
            test = doctest.DocTestParser().get_doctest(block.code, namespace, where, rel, 0)
            out = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, out=out.write, clear_globs=False)
            assert runner.failures == 0, f"{where}: doctest failed\n{out.getvalue()}"
            ran += 1
        elif block.lang == "python" and not block.title:
            code = compile(block.code, where, "exec")
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, namespace)
            ran += 1
        elif block.lang in ("console", "shell-session") and rel in RUN_COMMANDS:
            run_console(block, cwd, where)
            ran += 1
    return ran


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("variants", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    run_page(page, tmp_path)


def test_harness_runs_blocks_and_catches_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.md"
    good = (
        'Intro.\n\n```yaml title="x.yaml"\na: 1\n```\n\n'
        "```python\nimport pathlib\nvalue = pathlib.Path('x.yaml').read_text()\n```\n\n"
        "```pycon\n>>> value\n'a: 1\\n'\n```\n\n"
        f"{SKIP_MARK}\n```python\nraise SystemExit('skipped')\n```\n"
    )
    page.write_text(good, encoding="utf-8")
    blocks = blocks_of(page.read_text(encoding="utf-8"))
    assert [(b.lang, b.title, b.skip) for b in blocks] == [
        ("yaml", "x.yaml", False),
        ("python", None, False),
        ("pycon", None, False),
        ("python", None, True),
    ]
    assert run_page(page, tmp_path) == 2
    page.write_text(good.replace("'a: 1\\n'", "'a: 2\\n'"), encoding="utf-8")
    with pytest.raises(AssertionError, match="doctest failed"):
        run_page(page, tmp_path)
    page.write_text("```python\nimport no_such_module_here\n```\n", encoding="utf-8")
    with pytest.raises(ModuleNotFoundError):
        run_page(page, tmp_path)


def test_harness_runs_console_commands_and_checks_their_output(tmp_path: Path) -> None:
    ok = Block("console", None, '$ python -c "print(6 * 7)"\n42\n...\n$ pip install x\n', 1, False)
    run_console(ok, tmp_path, "here")
    dots = Block("console", None, "$ python -c \"print('a b c')\"\na ... c\n", 1, False)
    run_console(dots, tmp_path, "here")
    wrong = Block("console", None, '$ python -c "print(6 * 7)"\n43\n', 1, False)
    with pytest.raises(AssertionError, match="did not print '43'"):
        run_console(wrong, tmp_path, "here")
    failing = Block("console", None, '$ python -c "raise SystemExit(2)"\n', 1, False)
    with pytest.raises(AssertionError, match="exited with 2"):
        run_console(failing, tmp_path, "here")


# ------------------------------------------------------------------------ the site


def SITE(test: Any) -> Any:
    """A test of the built site: under pytest -n one worker runs them all, so the site
    is built once (a module fixture); the same whichever build runs pytest, so
    ``.ci/run``'s compiled stage leaves them out (source_only)."""
    return pytest.mark.source_only(pytest.mark.xdist_group("docs-site")(test))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,  # a hang guard: the build takes about 20 s, this is 90 times that
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@SITE
def test_mkdocs_build_strict(site: Path) -> None:
    assert (site / "index.html").is_file()
    assert (site / "tutorial.html").is_file()  # pages as files: the site works from file://
    assert (site / "changelog.html").is_file()


@SITE
def test_site_works_offline_with_no_request_to_another_host(site: Path) -> None:
    """Opened from disk (file://), every page finds its search index without a
    server (material's offline plugin) and asks no font server for its fonts."""
    assert (site / "search" / "search_index.js").is_file()
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in html, page
        assert "fonts.gstatic.com" not in html, page


def _all_fields(model: type[Variant]) -> set[str]:
    from pydantic import BaseModel

    names = set()
    todo: list[type[BaseModel]] = [model]
    while todo:
        current = todo.pop()
        for name, info in current.model_fields.items():
            names.add(name)
            for candidate in (info.annotation, *getattr(info.annotation, "__args__", ())):
                if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                    todo.append(candidate)
    return names


@SITE
def test_variant_reference_documents_every_key(site: Path) -> None:
    html = (site / "reference" / "variant.html").read_text(encoding="utf-8")
    fields = _all_fields(Variant)
    assert {"name", "payout", "broke_may_buy", "per_player_count"} <= fields
    for field in fields:
        assert f"<code>{field}</code>" in html, f"key {field!r} is not in the reference"
    described = Variant.model_fields["round_cap"].description
    assert described is not None
    assert described.split("(")[0].strip() in html
    schema = (site / "reference" / "variant.schema.json").read_text(encoding="utf-8")
    assert '"round_cap"' in schema


@SITE
def test_api_reference_is_generated_from_docstrings(site: Path) -> None:
    html = (site / "reference" / "api.html").read_text(encoding="utf-8")
    assert 'id="cardshop.load_variant"' in html
    assert 'id="cardshop.envs.ActionMap"' in html
    doc = "Load a variant by built-in name"
    assert doc in html


@SITE
def test_family_api_reference_shows_the_members_a_family_writes(site: Path) -> None:
    """The underscored members that the core calls on a family's game class are on the
    family API's page, though the site leaves other underscored names out."""
    html = (site / "reference" / "core.html").read_text(encoding="utf-8")
    for member in (
        "Game._play",
        "Game._record",
        "Game._init_empty",
        "Engine._setup",
        "Engine._rank_key",
    ):
        assert f'id="cardshop.core.{member}"' in html, member
    assert "carry out the legal" in html  # _play's docstring
