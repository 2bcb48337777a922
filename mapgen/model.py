"""The map model: a chapter's board, its briefing, its terrain (with unrevealed cells) and Hill numbers."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from mapgen.board import Board, CellError
from mapgen.errors import InputError
from mapgen.inputs import a_kind
from mapgen.terrain import Terrain, as_terrain, quantity

START_COLUMN = "column 7"


@dataclass(frozen=True)
class Pattern:
    """Fauna's mini map: terrains at (row, column) offsets from the Fort; ``None`` is ``..``."""

    rows: tuple[tuple[Terrain | None, ...], ...]

    @property
    def origin(self) -> tuple[int, int]:
        """The (row, column) of the Fort in the pattern's rows; ValueError when it holds none."""
        for r, row in enumerate(self.rows):
            for c, t in enumerate(row):
                if t is Terrain.FORT:
                    return r, c
        raise ValueError("the pattern holds no Ft")

    def cells(self) -> list[tuple[int, int, Terrain | None]]:
        """Every pattern cell as (dr, dc, terrain) relative to the Fort, ``..`` cells included."""
        r0, c0 = self.origin
        return [(r - r0, c - c0, t) for r, row in enumerate(self.rows) for c, t in enumerate(row)]

    def rotations(self) -> list[list[tuple[int, int, Terrain | None]]]:
        """The four 90° clockwise rotations (never mirrored), each as ``cells()``."""
        out, cells = [], self.cells()
        for _ in range(4):
            out.append(cells)
            cells = [(dc, -dr, t) for dr, dc, t in cells]
        return out

    def text(self) -> str:
        """The pattern as a map file writes it: codes and ``..``, one row a line."""
        return "\n".join(" ".join(t.code if t else ".." for t in row) for row in self.rows)


@dataclass(frozen=True)
class Briefing:
    """The Mission Briefing of one map (RULES.md §4)."""

    peak: int
    start: int | None = None  # a cell for Flora; None means "column 7"
    fort_pattern: Pattern | None = None
    greek_fire: int | None = None
    number: int | None = None
    name: str | None = None


@dataclass(frozen=True)
class Map:
    """A map or a partial map (a *state*): ``cells[i]`` is a Terrain or None when unrevealed.

    ``hills`` maps cell index to the number shown on that Hill, where one is given.
    ``meta`` holds extra file fields kept on a round trip (``generator`` and the like).
    ``board`` is the chapter's board (``constraints.catalogue.chapter_board(chapter)`` for a shipped chapter,
    ``Chapter.board`` for any): the map carries it, so the model needs no chapter registry.
    """

    chapter: str
    briefing: Briefing
    cells: tuple[Terrain | None, ...]
    hills: dict[int, int] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    board: Board = field(kw_only=True, compare=False, repr=False)

    @property
    def complete(self) -> bool:
        """Whether every cell is revealed (a map rather than a state)."""
        return all(t is not None for t in self.cells)

    def unrevealed(self) -> list[int]:
        """The indices of the unrevealed (``..``) cells, in reading order."""
        return [i for i, t in enumerate(self.cells) if t is None]

    def at(self, name: str) -> Terrain | None:
        """The terrain of a cell by name (``"A7"``, any case), None when unrevealed; CellError off the board."""
        return self.cells[self.board.index(name)]

    def cells_of(self, terrain: Terrain | str) -> list[int]:
        """The indices of the cells revealed as ``terrain`` (a Terrain or its code, ``"Ft"``)."""
        terrain = as_terrain(terrain)  # a code was compared with Terrain members: [] on every map
        return [i for i, t in enumerate(self.cells) if t is terrain]

    def with_cells(self, cells: Iterable[Terrain | None], hills: dict[int, int] | None = None) -> Map:
        """A copy with new terrain (one Terrain or None per cell); Hill numbers are kept only on cells that are still
        Hills."""
        new = tuple(cells)
        if len(new) != len(self.cells):
            raise WrongMapError(f"with_cells takes {len(self.cells)} cells (one per cell of the board), not {len(new)}")
        keep = self.hills if hills is None else hills
        return replace(self, cells=new, hills={i: n for i, n in keep.items() if new[i] is Terrain.HILL})

    def without_grade(self) -> Map:
        """A copy without the ``[grade]`` record: a grade describes one map's cells (its flags name them), never a
        puzzle of it nor a map made from it."""
        return replace(self, meta={k: v for k, v in self.meta.items() if k != "grade"})

    def hide(self, indices: Iterable[int | str] | str) -> Map:
        """A partial map with the given cells unrevealed (their Hill numbers hidden too): indices, or cell names
        like ``"A7"`` (one name alone too); CellError for a cell off the board or neither an index nor a name."""
        if isinstance(indices, str):  # one cell's name, not its characters
            indices = [indices]
        hidden = {self._cell(i) for i in indices}
        return self.with_cells(None if i in hidden else t for i, t in enumerate(self.cells))

    def _cell(self, i: int | str) -> int:
        """The index of a cell given by name or index; CellError off the board (an index was ignored there)."""
        if isinstance(i, str):
            return self.board.index(i)
        if hasattr(i, "__index__") and not isinstance(i, bool):  # an int, or numpy's
            k = operator.index(i)
            if 0 <= k < self.board.size:
                return k
            raise CellError(f"cell index {k} is off the board (0 to {self.board.size - 1}, {self.board.names[0]} = 0)")
        raise CellError(
            f"{i!r} is not a cell: give an index (0 to {self.board.size - 1}) or a name like E3; "
            "for a row and a column counted from 0, Board.at(r, c) gives the index"
        )

    def start_cells(self) -> list[int]:
        """Cells a first exploration may take: Flora's start Fort, otherwise all of column 7."""
        if self.briefing.start is not None:
            return [self.briefing.start]
        board = self.board
        return list(board.col_cells(7))

    def grid_text(self) -> str:
        """A plain grid with headers, for messages and debugging."""
        b = self.board
        lines = ["   " + " ".join(f"{c:>3}" for c in b.col_numbers)]
        for r, letter in enumerate(b.row_letters):
            codes = []
            for i in b.rows[r]:
                t = self.cells[i]
                code = ".." if t is None else t.code + (str(self.hills[i]) if i in self.hills else "")
                codes.append(f"{code:>3}")
            lines.append(f"{letter}  " + " ".join(codes))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.grid_text()


class WrongMapError(InputError, ValueError):
    """A Map that does not fit the call: a partial map where a complete one is needed, or a map of another chapter
    than the solver's."""


def expect_map(m: object, who: str, *, complete: bool = False) -> Map:
    """``m`` when it is a Map that ``who`` (a function's name, for the message) can take; otherwise an error that
    says what to pass: TypeError for anything but a Map (a file's path or a shipped map's name, most often) and for
    a cell that holds anything but a Terrain or None (a code), WrongMapError for a partial map when ``complete``."""
    if not isinstance(m, Map):
        what = f"{a_kind(m, shown=True)}" if isinstance(m, (str, bytes)) or hasattr(m, "__fspath__") else a_kind(m)
        raise TypeError(
            f"{who} takes a Map, not {what}: read a map file with mapgen.mapfile.read_map(path), "
            'or a shipped map with maps.load("fauna-1")'
        )
    bad = next((i for i, t in enumerate(m.cells) if t is not None and not isinstance(t, Terrain)), None)
    if bad is not None:  # a code where a Terrain belongs: an AttributeError deep inside a rule's check
        t = m.cells[bad]
        raise TypeError(
            f"cell {m.board.name(bad)} holds {t!r}, not a Terrain: a Map's cells are Terrain members or None"
            + (f" (Terrain.from_code({t!r}) for a code)" if isinstance(t, str) else "")
        )
    if complete and not m.complete:
        gaps = m.unrevealed()
        raise WrongMapError(
            f"a partial map ({quantity(len(gaps), 'unrevealed cell')}, first {m.board.name(gaps[0])}); "
            f"{who} needs a complete map"
        )
    return m
