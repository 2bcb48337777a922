"""Board geometry: cell names, edges and the three neighbourhoods (RULES.md §1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from mapgen.errors import InputError

#: Neighbourhood offsets (row, column). ``diagonal2`` is Maldonado's "two diagonal steps".
HOODS: dict[str, tuple[tuple[int, int], ...]] = {
    "orthogonal": ((-1, 0), (0, 1), (1, 0), (0, -1)),
    "diagonal": ((-1, 1), (1, 1), (1, -1), (-1, -1)),
    "king": ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)),
    "diagonal2": ((-2, 2), (2, 2), (2, -2), (-2, -2)),
}

ROW_LETTERS = "ABCDEFG"


class CellError(InputError, ValueError):
    """A cell name that is malformed or off the board (invalid input: exit 2; a ValueError, as it always was)."""


@dataclass(frozen=True)
class Board:
    """A rectangular board whose cells keep their 7x7 names (Training uses B3..F7).

    Cells are numbered row-major from 0; ``name(i)`` gives ``"E3"``-style names.
    """

    first_row: int  # 0 for row A
    first_col: int  # 1 for column 1
    height: int
    width: int
    _hoods: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    @property
    def size(self) -> int:
        """The number of cells (49 on the full board, 25 on Training's)."""
        return self.height * self.width

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Every cell's name by index: ``("A1", "A2", …)``."""
        return tuple(
            f"{ROW_LETTERS[self.first_row + r]}{self.first_col + c}"
            for r in range(self.height)
            for c in range(self.width)
        )

    @cached_property
    def _by_name(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    @property
    def row_letters(self) -> str:
        """The row letters from the top: ``"ABCDEFG"`` (Training: ``"BCDEF"``)."""
        return ROW_LETTERS[self.first_row : self.first_row + self.height]

    @property
    def col_numbers(self) -> tuple[int, ...]:
        """The printed column numbers from the west: ``(1, …, 7)`` (Training: ``(3, …, 7)``)."""
        return tuple(range(self.first_col, self.first_col + self.width))

    def name(self, i: int) -> str:
        """The name of cell index ``i``: ``name(6)`` is ``"A7"`` on the full board; CellError for an index off the
        board or anything but an index."""
        try:
            if i >= 0:
                return self.names[i]
        except (IndexError, TypeError):
            pass
        if isinstance(i, str):
            raise CellError(f"{i!r} is a cell's name where its index belongs: Board.index({i!r}) gives the index")
        raise CellError(f"{i!r} is not a cell index of this board (0 to {self.size - 1}, {self.names[0]} = 0)")

    def index(self, name: str) -> int:
        """The index of a cell named like ``E3`` (case-insensitive); CellError if off the board."""
        if not isinstance(name, str):  # an index, or a (row, column) pair: which convention is not ours to guess
            raise CellError(
                f"{name!r} is not a cell name: cells are named like E3 (a row letter and a column number); "
                "for a row and a column counted from 0, Board.at(r, c) gives the index"
            )
        key = name.strip().upper()
        if key in self._by_name:
            return self._by_name[key]
        letter, number = key[:1], key[1:]
        if letter.isascii() and letter.isalpha() and number.isascii() and number.isdecimal():
            raise CellError(f"cell {key} is off the board ({self.names[0]} to {self.names[-1]})")
        raise CellError(f"{name!r} is not a cell name (a row letter and a column number, like E3)")

    def rc(self, i: int) -> tuple[int, int]:
        """The board-relative (row, column) of cell index ``i``, both from 0."""
        return divmod(i, self.width)

    def at(self, r: int, c: int) -> int | None:
        """The index at board-relative row r, column c, or None off the board."""
        if 0 <= r < self.height and 0 <= c < self.width:
            return r * self.width + c
        return None

    def neighbours(self, i: int, hood: str) -> tuple[int, ...]:
        """The on-board neighbours of cell index ``i`` in a neighbourhood of ``HOODS`` (``"orthogonal"``,
        ``"diagonal"``, ``"king"``, ``"diagonal2"``); CellError for a name (``index(name)`` gives its index) or an
        index off the board."""
        table = self.hood(hood)
        try:
            return table[i] if i >= 0 else table[self.size]  # a negative index is off the board, not from the end
        except (IndexError, TypeError):
            self.name(i)  # raises the CellError that says what was wrong with i
            raise

    def hood(self, hood: str) -> tuple[tuple[int, ...], ...]:
        """For every cell, the on-board cells of a neighbourhood, in offset order; ValueError for a neighbourhood
        not in ``HOODS``."""
        table = self._hoods.get(hood)
        if table is None:
            offsets = HOODS.get(hood)
            if offsets is None:
                raise ValueError(f"unknown neighbourhood {hood!r} (one of {', '.join(HOODS)})")
            table = tuple(
                tuple(j for dr, dc in offsets if (j := self.at(i // self.width + dr, i % self.width + dc)) is not None)
                for i in range(self.size)
            )
            self._hoods[hood] = table
        return table

    @cached_property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        """The cell indices of each row, from the top."""
        return tuple(tuple(range(r * self.width, (r + 1) * self.width)) for r in range(self.height))

    @cached_property
    def cols(self) -> tuple[tuple[int, ...], ...]:
        """The cell indices of each column, from the west."""
        return tuple(tuple(range(c, self.size, self.width)) for c in range(self.width))

    def edge_distance(self, i: int) -> int:
        """0 on the outer ring, 1 one Path in, and so on."""
        r, c = self.rc(i)
        return min(r, c, self.height - 1 - r, self.width - 1 - c)

    def is_edge(self, i: int) -> bool:
        """Whether cell ``i`` is on the outer ring."""
        return self.edge_distance(i) == 0

    def col_cells(self, column: int) -> tuple[int, ...]:
        """Cells of a column given by its printed number (7 is east)."""
        return self.cols[column - self.first_col]

    def row_label(self, r: int) -> str:
        """The letter of board-relative row ``r`` (from 0)."""
        return self.row_letters[r]

    def col_label(self, c: int) -> str:
        """The printed number of board-relative column ``c`` (from 0)."""
        return str(self.first_col + c)


FULL = Board(first_row=0, first_col=1, height=7, width=7)
TRAINING = Board(first_row=1, first_col=3, height=5, width=5)
