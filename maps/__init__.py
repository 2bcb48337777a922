"""The shipped maps: five or more generated maps per chapter, usable by name (``fauna-1``).

Made by one command (see README.md in this folder), each checked by ``mapgen validate``.
"""

from __future__ import annotations

from pathlib import Path

from mapgen.mapfile import read_map
from mapgen.model import Map

FOLDER = Path(__file__).parent


def names(chapter: str | None = None) -> list[str]:
    """Names of the shipped maps (``fauna-1`` …), in chapter and number order."""

    def key(p: Path):
        ch, _, n = p.stem.rpartition("-")
        return ch, int(n) if n.isdigit() else 0

    found = sorted(FOLDER.glob("*.toml"), key=key)
    return [p.stem for p in found if chapter is None or p.stem.rpartition("-")[0] == chapter]


def path(name: str) -> Path:
    """The file of a shipped map; KeyError when there is none by that name."""
    p = FOLDER / f"{name.removesuffix('.toml')}.toml"
    if not p.is_file():
        raise KeyError(name)
    return p


def resolve(name_or_path: str) -> str:
    """A path as given when it exists (or looks like a path), else the shipped map of that name."""
    given = Path(name_or_path)
    if given.exists() or given.suffix or "/" in name_or_path or "\\" in name_or_path:
        return name_or_path
    try:
        return str(path(name_or_path))
    except KeyError:
        return name_or_path


def load(name: str) -> Map:
    """A shipped map by name: ``maps.load("fauna-1")``."""
    return read_map(path(name))
