"""``python -m cardshop`` and the ``cardshop`` command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line; user errors print one paragraph and return 2."""
    try:
        from cardshop.cli import run
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        print(
            f"cardshop: the command line needs the 'cli' extra ({exc.name} is missing): "
            'python -m pip install ".[cli]" in a clone of cardshop',
            file=sys.stderr,
        )
        return 2
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
