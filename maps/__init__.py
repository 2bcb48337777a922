"""The shipped maps, usable by name (``fauna-1``): files here, or in a folder per chapter (``fauna/fauna-1.toml``,
the graded library that ``python -m maps.build`` makes).

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

    found = sorted(files(), key=key)
    return [p.stem for p in found if chapter is None or p.stem.rpartition("-")[0] == chapter]


def files() -> list[Path]:
    """Every shipped map file: ``maps/NAME.toml`` and ``maps/CHAPTER/NAME.toml``."""
    return [*FOLDER.glob("*.toml"), *(p for p in FOLDER.glob("*/*.toml") if p.parent.name == p.stem.rpartition("-")[0])]


def path(name: str) -> Path:
    """The file of a shipped map; KeyError when there is none by that name."""
    stem = name.removesuffix(".toml")
    p = FOLDER / f"{stem}.toml"
    if not p.is_file() and "/" not in stem and "\\" not in stem:
        p = FOLDER / stem.rpartition("-")[0] / f"{stem}.toml"
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
