"""The ``mapgen`` console entry point (``cli:main``); the commands live in the ``mapgen.cli`` package."""

from __future__ import annotations

from mapgen.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    main(prog_name="mapgen")
