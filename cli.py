"""The ``mapgen`` console entry point (``cli:main``); the commands live in the ``mapgen.cli`` package."""

from __future__ import annotations

try:
    from mapgen.cli import main
except KeyboardInterrupt:  # Ctrl-C while mapgen itself is imported, before its own handler is in place
    import os
    import re
    import sys
    from pathlib import Path

    def _subject(args: list[str]) -> str:
        """The file the command line works on, guessed as mapgen.cli would: a file or a shipped map's name."""
        words = [a for a in args if not a.startswith("-")]
        for a in words[1:]:
            if Path(a).exists() or re.fullmatch(r"[a-z]+-\d+", a):
                return a
        for k, a in enumerate(args[:-1]):
            if a in ("--out", "-o"):
                return args[k + 1]
        return words[0] if words else "mapgen"

    sys.stderr.write(f"error: {_subject(sys.argv[1:])}: interrupted\n")
    sys.stderr.flush()
    os._exit(130)

__all__ = ["main"]

if __name__ == "__main__":
    main(prog_name="mapgen")
