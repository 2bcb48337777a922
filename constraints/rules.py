"""Rule kinds: each is one class with a plain-Python ``check`` (every violation, exact messages).

A chapter is a list of instances of these kinds (see ``catalogue.py``); one rule id of RULES.md §3
may be several instances ("both ways" rules are two one-way instances with the same id).
Compilation to CP-SAT (``post``) and to python-constraint (``post_csp``) lives in sibling modules
that dispatch on these same classes, so the check path never imports a solver.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from mapgen.board import Board
from mapgen.terrain import Terrain

if TYPE_CHECKING:  # mapgen.model reads boards from the chapter registry, which imports this module
    from mapgen.model import Map

HOOD_WORDS = {
    "orthogonal": "orthogonally next to it",
    "diagonal": "diagonally next to it",
    "king": "among its 8 neighbours",
    "diagonal2": "exactly two steps diagonally away",
}
_MASS = {Terrain.FOOD, Terrain.WATER, Terrain.MUD, Terrain.SACAGAWEA, Terrain.MALDONADO}


def plural(t: Terrain, n: int) -> str:
    """``1 Wood``, ``2 Woods``, ``2 Water`` (mass nouns stay singular)."""
    word = t.label if n == 1 or t in _MASS else t.label + "s"
    return f"{n} {word}"


def cell_list(board: Board, cells) -> str:
    return ", ".join(board.name(i) for i in cells)


@dataclass(frozen=True)
class Violation:
    """One broken rule: its id and title, the cells involved (named like E3) and a message."""

    rule: str
    title: str
    cells: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        return f"{self.rule} {self.title}: {self.message}"

    def to_json(self) -> dict:
        return {"rule": self.rule, "cells": list(self.cells), "message": self.message}


class View:
    """A complete map prepared once for checking: the board, the cells, where each terrain lies."""

    __slots__ = ("board", "cells", "map", "where")

    def __init__(self, m: Map):
        self.map = m
        self.board = m.board
        self.cells = m.cells
        where: dict[Terrain | None, list[int]] = defaultdict(list)  # None: the unrevealed cells
        for i, t in enumerate(m.cells):
            where[t].append(i)
        self.where = where


@dataclass(frozen=True)
class Rule:
    """Base of every rule kind. ``id`` and ``title`` come from the chapter's catalogue.

    ``setting`` names the design-profile setting an instance comes from (``counts.Wa``), empty for a
    chapter's own rules; a guarded CP-SAT model switches each setting on its own (``label``).
    """

    id: str
    title: str
    setting: str = ""
    kind: ClassVar[str] = ""
    # -- traits: declared here once, read by every encoder (CP-SAT, CNF, CSP, the SAT session, the heuristic) --
    #: Whether the rule reads the briefing (a briefing-free model leaves it for ``with_briefing``).
    reads_briefing: ClassVar[bool] = False
    #: Whether the rule constrains one cell at a time (an edge, a ring, a briefing cell, the chapter's terrains):
    #: encoders post these first, as domain reductions, so later rules see narrow domains.
    one_cell: ClassVar[bool] = False
    #: The briefing fields a ``field`` setting may name (empty: the kind has no such setting).
    briefing_fields: ClassVar[tuple[str, ...]] = ()

    @property
    def label(self) -> str:
        """The name of the rule's switch in a guarded model: its setting, else its id."""
        return self.setting or self.id

    def check(self, view: View) -> list[Violation]:
        raise NotImplementedError

    def violation(self, view: View, cells, message: str) -> Violation:
        return Violation(self.id, self.title, tuple(view.board.name(i) for i in cells), message)

    def where_needed(self, m: Map) -> tuple:
        """Briefing fields this rule reads, for error messages of impossible requests."""
        return ()

    def rules_out(self, board: Board, i: int, t: Terrain) -> bool:
        """Whether this rule alone, by position, forbids terrain ``t`` at cell ``i`` whatever the other cells
        hold (an edge, a ring); the solvers' "possible at all" tables read it."""
        return False

    def vacuous(self, terrains: Collection[Terrain]) -> bool:
        """Whether the rule holds on every board of only these terrains because what it speaks of is never there
        ("every Field has ..." in a chapter without Fields): a chapter's description leaves such a rule out. The
        checks and the encoders keep it (it costs them nothing)."""
        return False


@dataclass(frozen=True)
class TerrainSet(Rule):
    """Every cell holds a terrain of the chapter."""

    terrains: frozenset[Terrain] = frozenset()
    kind: ClassVar[str] = "terrain_set"
    one_cell: ClassVar[bool] = True

    def check(self, view):
        return [
            self.violation(
                view, cells, f"{t.label} ({t.code}) at {cell_list(view.board, cells)} is not a terrain of this chapter"
            )
            for t, cells in view.where.items()
            if t is not None and t not in self.terrains
        ]


@dataclass(frozen=True)
class Neighbours(Rule):
    """Every ``subject`` has between ``at_least`` and ``at_most`` cells of ``target`` in ``hood``."""

    subject: Terrain = Terrain.WATER
    target: Terrain = Terrain.WOOD
    hood: str = "orthogonal"
    at_least: int = 1
    at_most: int | None = None
    kind: ClassVar[str] = "neighbours"

    def vacuous(self, terrains: Collection[Terrain]) -> bool:
        return self.subject not in terrains

    def check(self, view):
        out = []
        table = view.board.hood(self.hood)
        cells = view.cells
        for i in view.where.get(self.subject, ()):
            found = [j for j in table[i] if cells[j] is self.target]
            n = len(found)
            if n < self.at_least or (self.at_most is not None and n > self.at_most):
                out.append(self.violation(view, [i], self._message(view.board, i, found)))
        return out

    def _message(self, board, i, found):
        s, t, n = self.subject.label, self.target, len(found)
        where = HOOD_WORDS[self.hood]
        at = f"the {s} at {board.name(i)}"
        if self.at_most == 0:
            return f"{at} has {plural(t, n)} {where} ({cell_list(board, found)}), expected none"
        if n == 0:
            return f"{at} has no {t.label} {where}"
        if self.at_most is None:
            return f"{at} has {plural(t, n)} {where} ({cell_list(board, found)}), expected at least {self.at_least}"
        want = f"exactly {self.at_least}" if self.at_least == self.at_most else f"{self.at_least} to {self.at_most}"
        return f"{at} has {plural(t, n)} {where} ({cell_list(board, found)}), expected {want}"

    def describe(self) -> str:
        return f"{self.subject.label} needs {self.target.label} {self.hood}"


@dataclass(frozen=True)
class LineCount(Rule):
    """Exactly ``count`` of ``terrain`` in every row and every column."""

    terrain: Terrain = Terrain.WOOD
    count: int = 1
    kind: ClassVar[str] = "line_count"

    def check(self, view):
        out, b, cells = [], view.board, view.cells
        lines = [(f"row {b.row_label(r)}", line) for r, line in enumerate(b.rows)]
        lines += [(f"column {b.col_label(c)}", line) for c, line in enumerate(b.cols)]
        for label, line in lines:
            found = [i for i in line if cells[i] is self.terrain]
            if len(found) != self.count:
                shown = found or line
                detail = f" ({cell_list(b, found)})" if found else ""
                out.append(
                    self.violation(
                        view,
                        shown,
                        f"{label} has {plural(self.terrain, len(found))}{detail}, expected exactly {self.count}",
                    )
                )
        return out


@dataclass(frozen=True)
class Connected(Rule):
    """All cells of ``terrain`` form one orthogonally connected group."""

    terrain: Terrain = Terrain.ROCK
    kind: ClassVar[str] = "connected"

    def check(self, view):
        groups = components(view.board, view.where.get(self.terrain, ()))
        if len(groups) <= 1:
            return []
        groups.sort(key=lambda g: (-len(g), g))
        apart = sorted(i for g in groups[1:] for i in g)
        b = view.board
        parts = "; ".join(cell_list(b, g) for g in groups)
        return [
            self.violation(
                view,
                apart,
                f"the {self.terrain.label}s form {len(groups)} separate groups ({parts}), expected one connected group",
            )
        ]


def components(board: Board, cells) -> list[list[int]]:
    """Orthogonally connected groups of the given cells, each sorted."""
    todo, groups = set(cells), []
    orth = board.hood("orthogonal")
    while todo:
        stack = [todo.pop()]
        group = []
        while stack:
            i = stack.pop()
            group.append(i)
            for j in orth[i]:
                if j in todo:
                    todo.remove(j)
                    stack.append(j)
        groups.append(sorted(group))
    return groups


@dataclass(frozen=True)
class NotOnEdge(Rule):
    """No ``terrain`` on the board's outer rows or columns."""

    terrain: Terrain = Terrain.ROCK
    kind: ClassVar[str] = "not_on_edge"
    one_cell: ClassVar[bool] = True

    def vacuous(self, terrains: Collection[Terrain]) -> bool:
        return self.terrain not in terrains

    def check(self, view):
        b = view.board
        return [
            self.violation(view, [i], f"the {self.terrain.label} at {b.name(i)} is on the edge of the board")
            for i in view.where.get(self.terrain, ())
            if b.is_edge(i)
        ]

    def rules_out(self, board: Board, i: int, t: Terrain) -> bool:
        return t is self.terrain and board.is_edge(i)


@dataclass(frozen=True)
class BriefingCell(Rule):
    """The briefing's ``field`` cell (the Peak, Flora's start) holds ``terrain``."""

    field: str = "peak"
    terrain: Terrain = Terrain.ROCK
    kind: ClassVar[str] = "briefing_cell"
    one_cell: ClassVar[bool] = True
    briefing_fields: ClassVar[tuple[str, ...]] = ("peak", "start", "greek_fire")
    reads_briefing: ClassVar[bool] = True

    def cell(self, m: Map) -> int | None:
        return getattr(m.briefing, self.field)

    def what(self) -> str:
        """The field in words: the Peak, the start, the greek_fire."""
        return {"peak": "the Peak", "start": "the start"}.get(self.field, f"the {self.field}")

    def makes(self, m: Map) -> str:
        """What the briefing fixes, in words ("the Peak B3 a Rock"); empty when it names no such cell."""
        i = self.cell(m)
        return "" if i is None else f"{self.what()} {m.board.name(i)} a {self.terrain.label}"

    def check(self, view):
        i = self.cell(view.map)
        if i is None:
            return [Violation(self.id, self.title, (), f"the briefing names no {self.field} cell")]
        t = view.cells[i]
        if t is self.terrain:
            return []
        return [self.violation(view, [i], f"{self.what()} {view.board.name(i)} is {t.label}, not {self.terrain.label}")]


@dataclass(frozen=True)
class DistinctNeighbours(Rule):
    """The terrains in ``hood`` around every ``terrain`` are pairwise different."""

    terrain: Terrain = Terrain.SKULL
    hood: str = "orthogonal"
    kind: ClassVar[str] = "distinct_neighbours"

    def vacuous(self, terrains: Collection[Terrain]) -> bool:
        return self.terrain not in terrains

    def check(self, view):
        out, b, cells = [], view.board, view.cells
        table = b.hood(self.hood)
        for i in view.where.get(self.terrain, ()):
            seen: dict[Terrain, list[int]] = defaultdict(list)
            for j in table[i]:
                seen[cells[j]].append(j)
            for t, js in seen.items():
                if len(js) > 1:
                    count = {2: "two", 3: "three", 4: "four"}[len(js)]
                    out.append(
                        self.violation(
                            view,
                            [i],
                            f"the {self.terrain.label} at {b.name(i)} has {t.label} on {count} sides ({cell_list(b, js)})",
                        )
                    )
        return out


@dataclass(frozen=True)
class HillNumbers(Rule):
    """A Hill's number is the count of ``counted`` in the Hill's row plus its column."""

    counted: Terrain = Terrain.FORT
    hill: Terrain = Terrain.HILL
    kind: ClassVar[str] = "hill_numbers"

    def vacuous(self, terrains: Collection[Terrain]) -> bool:
        return self.hill not in terrains

    def check(self, view):
        out, m, b = [], view.map, view.board
        for i in view.where.get(self.hill, ()):
            if i not in m.hills:
                continue
            n = hill_number(b, view.cells, i, self.counted)
            if n != m.hills[i]:
                out.append(
                    self.violation(
                        view,
                        [i],
                        f"the {self.hill.label} at {b.name(i)} shows {m.hills[i]} but its row and column hold {plural(self.counted, n)}",
                    )
                )
        return out


def hill_line(board: Board, i: int) -> tuple[int, ...]:
    """The cells a Hill at i counts (C9): its row and its column, without the Hill itself."""
    r, c = board.rc(i)
    return tuple(j for j in (*board.rows[r], *board.cols[c]) if j != i)


def hill_number(board: Board, cells, i: int, counted: Terrain) -> int:
    """Count of ``counted`` in cell i's row plus its column (the cell itself is a Hill)."""
    r, c = board.rc(i)
    return sum(cells[j] is counted for j in board.rows[r]) + sum(cells[j] is counted for j in board.cols[c])


@dataclass(frozen=True)
class ColumnPair(Rule):
    """A column that holds a ``first`` holds a ``second``."""

    first: Terrain = Terrain.VINE
    second: Terrain = Terrain.ROCK
    kind: ClassVar[str] = "column_pair"

    def check(self, view):
        out, b, cells = [], view.board, view.cells
        for c, col in enumerate(b.cols):
            firsts = [i for i in col if cells[i] is self.first]
            if firsts and not any(cells[i] is self.second for i in col):
                out.append(
                    self.violation(
                        view,
                        firsts,
                        f"column {b.col_label(c)} holds {plural(self.first, len(firsts))} ({cell_list(b, firsts)}) but no {self.second.label}",
                    )
                )
        return out


@dataclass(frozen=True)
class PatternMatch(Rule):
    """Every ``terrain`` matches the briefing's mini map in one of its four rotations, all on the board."""

    terrain: Terrain = Terrain.FORT
    field: str = "fort_pattern"
    kind: ClassVar[str] = "pattern"
    briefing_fields: ClassVar[tuple[str, ...]] = ("fort_pattern",)
    reads_briefing: ClassVar[bool] = True

    def check(self, view):
        pattern = getattr(view.map.briefing, self.field)
        if pattern is None:
            return [Violation(self.id, self.title, (), f"the briefing has no {self.field}")]
        b = view.board
        rotations = pattern.rotations()
        return [
            self.violation(
                view, [i], f"the {self.terrain.label} at {b.name(i)} does not match the mini map in any rotation"
            )
            for i in view.where.get(self.terrain, ())
            if not any(pattern_fits(b, view.cells, i, rot) for rot in rotations)
        ]


def pattern_placements(board: Board, i: int, rotation) -> list[tuple[int, Terrain | None]] | None:
    """The board cells a rotated pattern covers when its origin is at i, or None if any is off the board."""
    r, c = board.rc(i)
    out = []
    for dr, dc, t in rotation:
        j = board.at(r + dr, c + dc)
        if j is None:
            return None
        out.append((j, t))
    return out


def pattern_fits(board: Board, cells, i: int, rotation) -> bool:
    placed = pattern_placements(board, i, rotation)
    return placed is not None and all(t is None or cells[j] is t for j, t in placed)


@dataclass(frozen=True)
class Count(Rule):
    """The map holds between ``at_least`` and ``at_most`` of ``terrain``."""

    terrain: Terrain = Terrain.FORT
    at_least: int = 0
    at_most: int | None = None
    kind: ClassVar[str] = "count"

    def check(self, view):
        found = view.where.get(self.terrain, [])
        n = len(found)
        if n >= self.at_least and (self.at_most is None or n <= self.at_most):
            return []
        if self.at_least == self.at_most:
            want = f"exactly {self.at_least}"
        elif self.at_most is None:
            want = f"at least {self.at_least}"
        elif self.at_least == 0:
            want = f"at most {self.at_most}"
        else:
            want = f"{self.at_least} to {self.at_most}"
        detail = f" ({cell_list(view.board, found)})" if found else ""
        return [self.violation(view, found, f"the map has {plural(self.terrain, n)}{detail}, expected {want}")]


@dataclass(frozen=True)
class Ring(Rule):
    """Every ``terrain`` is exactly ``depth`` Paths in from the edge."""

    terrain: Terrain = Terrain.PETRIFIED_FOREST
    depth: int = 1
    kind: ClassVar[str] = "ring"

    def vacuous(self, terrains: Collection[Terrain]) -> bool:
        return self.terrain not in terrains

    one_cell: ClassVar[bool] = True

    def check(self, view):
        b = view.board
        return [
            self.violation(
                view,
                [i],
                f"the {self.terrain.label} at {b.name(i)} is {b.edge_distance(i)} Paths in from the edge, expected {self.depth}",
            )
            for i in view.where.get(self.terrain, ())
            if b.edge_distance(i) != self.depth
        ]

    def rules_out(self, board: Board, i: int, t: Terrain) -> bool:
        return t is self.terrain and board.edge_distance(i) != self.depth


#: The kinds a chapter file may use: rules of the game, which every solver (CP-SAT, CSP, CNF) compiles.
KINDS: dict[str, type[Rule]] = {
    k.kind: k
    for k in (
        TerrainSet,
        Neighbours,
        LineCount,
        Connected,
        NotOnEdge,
        BriefingCell,
        DistinctNeighbours,
        HillNumbers,
        ColumnPair,
        PatternMatch,
        Count,
        Ring,
    )
}
