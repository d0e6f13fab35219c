"""Build hook: compile the engine's hot modules with mypyc, or fall back to pure Python.

hatchling runs this hook for every wheel it builds (``pip install .``, ``python -m
build``). It compiles :data:`COMPILED` with mypyc (which ships with mypy) into C
extensions that sit beside the ``.py`` files in the wheel; Python imports an extension
before a source file of the same name. Where that cannot be done (no working C
compiler or Python headers, or mypyc refuses the code), the hook warns and the wheel
is the pure-Python one: an install never fails for want of a compiler.

By default a wheel build tries to compile and falls back to pure Python with a warning.
Environment variables:

* ``CARDSHOP_COMPILE=1``: the default, said explicitly: compile where possible, else
  fall back to pure Python with a warning.
* ``CARDSHOP_REQUIRE_COMPILED=1``: compile, and fail the build if that cannot be done
  (for CI and for packagers who want the fast engine or nothing).
* ``CARDSHOP_PURE=1``: build the pure-Python wheel, whatever else is set.

mypyc compiles a copy of ``src/`` in which ``cardshop/core/checked.pyi`` makes
``Checked[T]`` admit any object (see that module): the engine's entry points check
hostile arguments themselves, so both builds raise the same errors.

Editable installs (``pip install -e .``) are always pure Python: tests patch engine
internals, and a source edit should take effect without a rebuild.

``cardshop.compiled`` tells at run time which build is in use.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED = (
    "src/cardshop/core/actions.py",
    "src/cardshop/core/chance.py",
    "src/cardshop/core/series.py",
    "src/cardshop/klunker/rules.py",
    "src/cardshop/klunker/game.py",
    "src/cardshop/wuhltisch/rules.py",
    "src/cardshop/wuhltisch/game.py",
    "src/cardshop/reglamentacja/rules.py",
    "src/cardshop/reglamentacja/offers.py",
    "src/cardshop/reglamentacja/game.py",
)
"""The modules compiled: the engines' hot path (actions and chance, matches, the three
families' compiled rules and games, Reglamentacja's offer tables; docs/performance.md
says why these)."""

BUILD_REQUIRES = [
    "mypy>=1.10",
    "setuptools>=65",
    "pydantic>=2.6,<3",
    "PyYAML>=6.0",
    "types-PyYAML",
    "lark>=1.2",
    "hypothesis>=6.100",
]
"""What compiling needs in the build environment: mypyc, setuptools to drive the C
compiler, and what mypy needs to type the modules and every module they import, as
``import cardshop`` does (the pydantic plugin; lark for the expression language;
hypothesis for the audit's state machine, which the package's API reaches)."""

CHECKED_STUB = """from typing import Any, TypeVar, Union

T = TypeVar("T")
Checked = Union[T, Any]

def own_abc_caches(cls: type[Any]) -> None: ...
"""
"""What mypyc sees of ``cardshop.core.checked``: ``Checked[T]`` admits any object, so that
compiled functions leave the checking of such arguments to their own code (which raises
the library's errors) instead of raising ``TypeError`` on entry."""

PURE = "CARDSHOP_PURE"
COMPILE = "CARDSHOP_COMPILE"
REQUIRE = "CARDSHOP_REQUIRE_COMPILED"


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def compiler_problem() -> str | None:
    """Why no C extension can be built here, or None: compiles a file that includes
    ``Python.h`` with the compiler setuptools would use (``$CC``, else Python's own)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    include = sysconfig.get_paths()["include"]
    with tempfile.TemporaryDirectory(prefix="cardshop-cc-") as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("#include <Python.h>\nint cardshop_probe(void) { return 0; }\n")
        command = [
            *shlex.split(cc),
            f"-I{include}",
            "-c",
            str(source),
            "-o",
            str(Path(tmp) / "p.o"),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"no C compiler: {shlex.join(command[:1])} cannot run ({exc})"
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            tail = f": {detail[-1]}" if detail else ""
            return f"the C compiler {cc!r} cannot build a Python extension{tail}"
    return None


_WEAKREF_MEMBER = re.compile(r'^[ \t]*\{"__weakref__", T_OBJECT_EX, [^\n]*\},\n', re.M)
_WEAKLIST_OFFSET = re.compile(r"\.tp_weaklistoffset = [^,\n]+,")


def _no_weakrefs(c_dir: Path) -> int:
    """Make the compiled classes refuse weak references, as the pure-Python ones do.

    On Python 3.11 and earlier, mypyc gives a compiled class with a Python base class
    (the engine's ``Game`` derives from the core's ``Game``, an ``abc.ABC``) a list of
    weak references, but its deallocator never clears that list and releases its head
    as if it owned it: dropping a game that something weakly references frees the weak
    reference under its holder, and the interpreter crashes later, in the garbage
    collector (mypyc issue 1102; hypothesis weakly references the values it draws).
    The pure-Python classes have ``__slots__`` without ``__weakref__`` and refuse weak
    references; this makes the compiled ones do the same, by zeroing
    ``tp_weaklistoffset`` and dropping the ``__weakref__`` member in the generated C.
    (From Python 3.12 mypyc sets no weak reference list, and nothing matches.)
    Returns the number of classes changed.
    """
    changed = 0
    for path in sorted(c_dir.rglob("*.c")):
        text = path.read_text(encoding="utf-8")
        new, count = _WEAKLIST_OFFSET.subn(".tp_weaklistoffset = 0,", text)
        new = _WEAKREF_MEMBER.sub("", new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += count
    return changed


def _editable_requested() -> bool:
    """Whether the build frontend asked what an editable install needs to build.

    hatchling asks a hook for its dependencies without saying for which build; an
    editable one is asked for through the backend's ``get_requires_for_build_editable``
    (PEP 660), which is then on the call stack. Without this, ``pip install -e .``
    would install mypy and setuptools into its build environment for nothing."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "get_requires_for_build_editable":
            return True
        frame = frame.f_back
    return False


class MypycBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Compiles :data:`COMPILED` into the wheel, or leaves the wheel pure Python."""

    PLUGIN_NAME = "custom"

    def _mode(self) -> str:
        if _flag(PURE):
            return "pure"
        if _flag(REQUIRE):
            return "require"
        return "auto"  # CARDSHOP_COMPILE=1 says the same

    def dependencies(self) -> list[str]:
        # Called before a build to install what it needs; nothing extra for a pure one,
        # nor for an editable one (always pure).
        if _editable_requested():
            return []
        if self._mode() == "pure" or (self._mode() == "auto" and compiler_problem()):
            return []
        return list(BUILD_REQUIRES)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._tmp: str | None = None
        mode = self._mode()
        if version == "editable" or self.target_name != "wheel":
            return
        if mode == "pure":
            self.app.display_info(f"cardshop: building the pure-Python wheel, as {PURE} asks")
            return
        try:
            problem = compiler_problem()
            if problem is not None:
                raise RuntimeError(problem)
            built = self._compile()
        except Exception as exc:  # any failure: fall back, unless compiled is required
            message = f"cardshop: the compiled engine cannot be built ({exc})"
            if mode == "require":
                raise RuntimeError(f"{message}; {REQUIRE} is set, so the build fails") from exc
            self.app.display_warning(
                f"WARNING: {message}; building the pure-Python wheel instead, which works "
                f"the same but plays more slowly. Set {PURE}=1 to skip the attempt."
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data.setdefault("force_include", {}).update(built)
        self.app.display_info(f"cardshop: compiled {', '.join(built.values())}")

    def _compile(self) -> dict[str, str]:
        """mypyc the modules; returns {built extension file: its path in the wheel}."""
        from mypyc.build import mypycify
        from setuptools import Distribution
        from setuptools.command.build_ext import build_ext

        root = Path(self.root)
        self._tmp = tempfile.mkdtemp(prefix="cardshop-mypyc-")
        tmp = Path(self._tmp)
        # Compile a copy of the sources, with the stub of cardshop.core.checked beside it.
        junk = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")
        shutil.copytree(root / "src", tmp / "src", ignore=junk)
        (tmp / "src" / "cardshop" / "core" / "checked.pyi").write_text(
            CHECKED_STUB, encoding="utf-8"
        )
        here = Path.cwd()
        os.chdir(tmp)  # mypyc names modules by their paths below src/
        report = io.StringIO()  # mypy's messages: the reason if it stops
        try:
            with contextlib.redirect_stdout(report), contextlib.redirect_stderr(report):
                extensions = mypycify(
                    [
                        "--config-file",
                        str(root / "pyproject.toml"),
                        "--cache-dir",
                        str(tmp / "mypy_cache"),
                        *COMPILED,
                    ],
                    opt_level="3",
                    target_dir=str(tmp / "c"),
                    group_name="cardshop",
                )
            _no_weakrefs(tmp / "c")
            distribution = Distribution({"name": "cardshop", "ext_modules": extensions})
            command = build_ext(distribution)
            command.build_lib = str(tmp / "lib")
            command.build_temp = str(tmp / "obj")
            command.ensure_finalized()
            command.run()
        except SystemExit:  # mypy reports type errors by exiting
            lines = report.getvalue().strip().splitlines()
            errors = [line for line in lines if "error:" in line]
            # An internal error of mypyc prints a traceback and no "error:" line: its
            # last line (the file, line and exception) is the reason.
            reason = "; ".join(errors[:5] or lines[-2:-1] or ["no reason given"])
            raise RuntimeError(f"mypyc stopped: {reason}") from None
        finally:
            os.chdir(here)
        lib = tmp / "lib"
        built = {
            str(p): p.relative_to(lib).as_posix() for p in sorted(lib.rglob("*")) if p.is_file()
        }
        expected = {Path(m).relative_to("src").with_suffix("").as_posix() for m in COMPILED}
        found = {name.split(".")[0] for name in built.values()}
        if not expected <= found:
            raise RuntimeError(f"mypyc built {sorted(found)}, not all of {sorted(expected)}")
        return built

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_tmp", None):
            shutil.rmtree(str(self._tmp), ignore_errors=True)


if __name__ == "__main__":  # `python hatch_build.py`: can this machine compile?
    print(compiler_problem() or "a C compiler that builds Python extensions is available")
    sys.exit(0)
