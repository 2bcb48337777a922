"""Design profiles: the generation defaults of RULES.md §5 (P1 reachable, P2 balanced) as settings."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from mapgen.board import Board, CellError
from mapgen.model import CHAPTER_NAMES, board_for
from mapgen.terrain import Terrain, parse_terrain

PROFILE_DIR = Path(__file__).parent / "profiles"


class ProfileError(ValueError):
    """A profile file that cannot be used."""


@dataclass(frozen=True)
class Profile:
    """Settings for generated maps; ``source`` names the file they came from."""

    chapter: str
    source: str = "default"
    reachable: bool = True
    peak: int | None = None  # None: random
    start: int | None = None  # Flora: None is random in column 7
    greek_fire: int | None = None
    counts: dict[Terrain, tuple[int | None, int | None]] = field(default_factory=dict)
    pattern_cells: tuple[int, int] = (2, 4)
    pattern_terrains: tuple[Terrain, ...] = ()
    fort_pattern: str | None = None  # a fixed mini map, in the map file's notation

    @property
    def board(self) -> Board:
        return board_for(self.chapter)


def _cell_or_random(data: dict, key: str, board: Board, source: str) -> int | None:
    value = data.get(key, "random")
    if value == "random":
        return None
    if not isinstance(value, str):
        raise ProfileError(f"{source}: '{key}' must be a cell name or \"random\", not {value!r}")
    try:
        return board.index(value)
    except CellError as e:
        raise ProfileError(f"{source}: '{key}': {e}") from None


def profile_from_data(data: dict, source: str, chapter: str | None = None) -> Profile:
    name = data.get("chapter", chapter)
    if name not in CHAPTER_NAMES:
        raise ProfileError(f"{source}: unknown chapter {name!r} (expected one of {', '.join(CHAPTER_NAMES)})")
    if chapter is not None and name != chapter:
        raise ProfileError(f"{source}: this profile is for chapter {name}, not {chapter}")
    board = board_for(name)
    counts: dict[Terrain, tuple[int | None, int | None]] = {}
    for code, bounds in data.get("counts", {}).items():
        try:
            t = parse_terrain(code)
        except ValueError as e:
            raise ProfileError(f"{source}: counts: {e}") from None
        ok = (
            isinstance(bounds, list)
            and len(bounds) == 2
            and all(b is None or (isinstance(b, int) and not isinstance(b, bool) and b >= 0) for b in bounds)
        )
        if not ok:
            raise ProfileError(f"{source}: counts.{code} must be [least, most] (whole numbers), not {bounds!r}")
        counts[t] = (bounds[0], bounds[1])
    fp = data.get("fort_pattern", {})
    if isinstance(fp, str):
        fixed, cells, terrains = fp, (2, 4), ()
    else:
        fixed = None
        cells = tuple(fp.get("cells", [2, 4]))
        if len(cells) != 2 or not all(isinstance(c, int) and 1 <= c <= 8 for c in cells) or cells[0] > cells[1]:
            raise ProfileError(
                f"{source}: fort_pattern.cells must be [least, most] between 1 and 8, not {list(cells)!r}"
            )
        try:
            terrains = tuple(parse_terrain(c) for c in fp.get("terrains", ["Vi", "Sk", "Ti", "Fi", "Mu", "Fo", "Wa"]))
        except ValueError as e:
            raise ProfileError(f"{source}: fort_pattern.terrains: {e}") from None
    reachable = data.get("reachable", True)
    if not isinstance(reachable, bool):
        raise ProfileError(f"{source}: 'reachable' must be true or false")
    return Profile(
        chapter=name,
        source=source,
        reachable=reachable,
        peak=_cell_or_random(data, "peak", board, source),
        start=_cell_or_random(data, "start", board, source),
        greek_fire=_cell_or_random(data, "greek_fire", board, source),
        counts=counts,
        pattern_cells=cells,
        pattern_terrains=terrains,
        fort_pattern=fixed,
    )


def default_profile(chapter: str) -> Profile:
    """The shipped profile of a chapter (``mapgen/profiles/CHAPTER.toml``)."""
    if chapter not in CHAPTER_NAMES:
        raise ProfileError(f"unknown chapter {chapter!r} (expected one of {', '.join(CHAPTER_NAMES)})")
    path = PROFILE_DIR / f"{chapter}.toml"
    return profile_from_data(tomllib.loads(path.read_text(encoding="utf-8")), "default", chapter)


def load_profile(path: str | Path, chapter: str | None = None) -> Profile:
    """A designer's profile file; ``chapter``, when given, must match the file's."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(f"{source}: cannot be read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{source}: not valid TOML ({e})") from None
    return profile_from_data(data, source, chapter)
