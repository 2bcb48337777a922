"""The rules as a python-constraint model: the independent second solver for counts and forced cells.

One variable per unrevealed cell (named like ``E3``) whose domain is the chapter's terrains; revealed
cells are constants folded into the constraints. Every rule kind of ``constraints/rules.py`` is
compiled by ``post_csp`` (dispatch on the class) into constraints that are checked on *partial*
assignments: each says False only when the cells assigned so far already break the rule, so the
backtracking search prunes early, and forward checking narrows the last open cell of a constraint.
Rules on one cell (edge, ring, briefing cells, terrain set) narrow the domains before the search.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import singledispatch

from constraint import Constraint, Problem, RecursiveBacktrackingSolver

from constraints.catalogue import Chapter, chapter_for
from constraints.rules import (
    BriefingCell,
    ColumnPair,
    Connected,
    Count,
    DistinctNeighbours,
    HillNumbers,
    LineCount,
    Neighbours,
    NotOnEdge,
    PatternMatch,
    Ring,
    Rule,
    TerrainSet,
    pattern_placements,
)
from mapgen.model import Map
from mapgen.terrain import Terrain


class CspTimeout(TimeoutError):
    """The python-constraint search ran past its time limit."""


@dataclass
class CspModel:
    """A state compiled to python-constraint: the problem, the static domains, and whether it is already broken.

    ``domains[i]`` is the set of terrains cell i can still hold after the one-cell rules (a revealed
    cell: its own terrain). ``broken`` is set when the revealed cells alone break a rule (no completion).
    """

    state: Map
    chapter: Chapter
    problem: Problem
    domains: list[set[Terrain]]
    deadline: float | None = None
    broken: list[str] = field(default_factory=list)

    calls: int = 0

    def tick(self) -> None:
        """Count one constraint check; past the deadline, stop the search."""
        self.calls += 1
        if self.calls & 4095 == 0 and self.deadline is not None and time.monotonic() > self.deadline:
            raise CspTimeout("the python-constraint search ran past its time limit")

    def name(self, i: int) -> str:
        return self.state.board.name(i)

    def known(self, i: int) -> Terrain | None:
        return self.state.cells[i]

    def can_be(self, i: int, t: Terrain) -> bool:
        return t in self.domains[i]

    def restrict(self, i: int, allowed: Callable[[Terrain], bool], rule: Rule) -> None:
        """Keep only the terrains of cell i that ``allowed`` accepts; a revealed cell that fails breaks ``rule``."""
        keep = {t for t in self.domains[i] if allowed(t)}
        if keep != self.domains[i]:
            self.domains[i] = keep
            if not keep:
                self.broken.append(rule.id)

    def add(self, rule: Rule, cells: list[int], test: Callable[[list], bool]) -> None:
        """Post ``test`` over ``cells``: it gets each cell's terrain (None while unassigned) and says False
        only when the values seen already break the rule. With every cell revealed it is checked at once."""
        base = [self.known(i) for i in cells]
        slots = [(pos, self.name(i)) for pos, i in enumerate(cells) if self.known(i) is None]
        if not slots:
            if not test(base):
                self.broken.append(rule.id)
            return
        self.problem.addConstraint(_PartialConstraint(base, slots, test, self), [v for _, v in slots])


class _PartialConstraint(Constraint):
    """A rule's condition on some cells, checked on partial assignments (revealed cells are constants)."""

    def __init__(self, base: list, slots: list[tuple[int, str]], test: Callable[[list], bool], model: CspModel):
        self._base = base
        self._slots = slots
        self._test = test
        self._model = model

    def __call__(self, variables, domains, assignments, forwardcheck=False):
        self._model.tick()
        values = list(self._base)
        missing = 0
        for pos, var in self._slots:
            value = assignments.get(var)
            if value is None:
                missing += 1
            else:
                values[pos] = value
        if not self._test(values):
            return False
        if forwardcheck and missing == 1:
            return self.forwardCheck(variables, domains, assignments)
        return True


# --- one compilation per rule kind ------------------------------------------------------------


@singledispatch
def post_csp(rule: Rule, model: CspModel) -> None:
    """Add ``rule`` to the python-constraint model (dispatch on the rule kind)."""
    raise NotImplementedError(f"no python-constraint compilation for rule kind {type(rule).__name__}")


@post_csp.register
def _(rule: TerrainSet, model: CspModel) -> None:
    for i in range(model.state.board.size):
        model.restrict(i, lambda t: t in rule.terrains, rule)


@post_csp.register
def _(rule: NotOnEdge, model: CspModel) -> None:
    board = model.state.board
    for i in range(board.size):
        if board.is_edge(i):
            model.restrict(i, lambda t: t is not rule.terrain, rule)


@post_csp.register
def _(rule: Ring, model: CspModel) -> None:
    board = model.state.board
    for i in range(board.size):
        if board.edge_distance(i) != rule.depth:
            model.restrict(i, lambda t: t is not rule.terrain, rule)


@post_csp.register
def _(rule: BriefingCell, model: CspModel) -> None:
    i = rule.cell(model.state)
    if i is None:
        model.broken.append(rule.id)
        return
    model.restrict(i, lambda t: t is rule.terrain, rule)


@post_csp.register
def _(rule: Neighbours, model: CspModel) -> None:
    table = model.state.board.hood(rule.hood)
    subject, target, lo, hi = rule.subject, rule.target, rule.at_least, rule.at_most
    for i in range(model.state.board.size):
        if not model.can_be(i, subject):
            continue
        around = [j for j in table[i] if model.can_be(j, target)]

        def test(v):
            if v[0] is not subject:
                return True
            found = sum(x is target for x in v[1:])
            if hi is not None and found > hi:
                return False
            return found + sum(x is None for x in v[1:]) >= lo

        model.add(rule, [i, *around], test)


def _bounds_test(terrain: Terrain, lo: int, hi: int | None) -> Callable[[list], bool]:
    """Between lo and hi of ``terrain`` among the cells (all of which can hold it)."""

    def test(v):
        found = sum(x is terrain for x in v)
        if hi is not None and found > hi:
            return False
        return found + sum(x is None for x in v) >= lo

    return test


@post_csp.register
def _(rule: LineCount, model: CspModel) -> None:
    board = model.state.board
    for line in (*board.rows, *board.cols):
        model.add(
            rule, [i for i in line if model.can_be(i, rule.terrain)], _bounds_test(rule.terrain, rule.count, rule.count)
        )


@post_csp.register
def _(rule: Count, model: CspModel) -> None:
    cells = [i for i in range(model.state.board.size) if model.can_be(i, rule.terrain)]
    model.add(rule, cells, _bounds_test(rule.terrain, rule.at_least, rule.at_most))


@post_csp.register
def _(rule: HillNumbers, model: CspModel) -> None:
    state, board = model.state, model.state.board
    for i, number in state.hills.items():
        if state.cells[i] is not rule.hill:
            continue
        r, c = board.rc(i)
        line = [j for j in (*board.rows[r], *board.cols[c]) if j != i and model.can_be(j, rule.counted)]
        model.add(rule, line, _bounds_test(rule.counted, number, number))


@post_csp.register
def _(rule: ColumnPair, model: CspModel) -> None:
    first, second = rule.first, rule.second
    for col in model.state.board.cols:
        firsts = [i for i in col if model.can_be(i, first)]
        seconds = [i for i in col if model.can_be(i, second) and i not in firsts]
        if not firsts:
            continue
        cells = firsts + seconds

        def test(v):
            if not any(x is first for x in v):
                return True
            return any(x is second or x is None for x in v)

        model.add(rule, cells, test)


@post_csp.register
def _(rule: DistinctNeighbours, model: CspModel) -> None:
    table = model.state.board.hood(rule.hood)
    terrain = rule.terrain
    for i in range(model.state.board.size):
        if not model.can_be(i, terrain):
            continue

        def test(v):
            if v[0] is not terrain:
                return True
            seen = [x for x in v[1:] if x is not None]
            return len(seen) == len(set(seen))

        model.add(rule, [i, *table[i]], test)


@post_csp.register
def _(rule: Connected, model: CspModel) -> None:
    board, terrain = model.state.board, rule.terrain
    cells = [i for i in range(board.size) if model.can_be(i, terrain)]
    pos = {i: p for p, i in enumerate(cells)}
    orth = board.hood("orthogonal")
    links = [[pos[j] for j in orth[i] if j in pos] for i in cells]

    def test(v):
        placed = [p for p, x in enumerate(v) if x is terrain]
        if len(placed) <= 1:
            return True
        reached = {placed[0]}
        stack = [placed[0]]
        while stack:
            p = stack.pop()
            for q in links[p]:
                if q not in reached and (v[q] is terrain or v[q] is None):
                    reached.add(q)
                    stack.append(q)
        return all(p in reached for p in placed)

    model.add(rule, cells, test)


@post_csp.register
def _(rule: PatternMatch, model: CspModel) -> None:
    state, board, terrain = model.state, model.state.board, rule.terrain
    pattern = getattr(state.briefing, rule.field)
    if pattern is None:
        model.broken.append(rule.id)
        return
    rotations = pattern.rotations()
    for i in range(board.size):
        if not model.can_be(i, terrain):
            continue
        fits = []  # each rotation that can still fit: its (cell, terrain) pairs that name a terrain
        for rot in rotations:
            placed = pattern_placements(board, i, rot)
            if placed is None:
                continue
            need = [(j, t) for j, t in placed if t is not None and j != i]
            if all(model.can_be(j, t) for j, t in need):
                fits.append(need)
        if not fits:
            model.restrict(i, lambda t: t is not terrain, rule)
            continue
        cells = [i] + sorted({j for need in fits for j, _ in need})
        pos = {j: p for p, j in enumerate(cells)}
        options = [[(pos[j], t) for j, t in need] for need in fits]

        def test(v, options=options):
            if v[0] is not terrain:
                return True
            return any(all(v[p] is None or v[p] is t for p, t in need) for need in options)

        model.add(rule, cells, test)


# --- building and counting ---------------------------------------------------------------------


def build_csp(state: Map, *, time_limit: float | None = None, chapter: Chapter | None = None) -> CspModel:
    """Compile a state with every rule of its chapter; one-cell rules first, so later rules see narrow domains."""
    chapter = chapter or chapter_for(state)
    domains = [set(chapter.terrains) if t is None else {t} for t in state.cells]
    deadline = None if time_limit is None else time.monotonic() + time_limit
    model = CspModel(state, chapter, Problem(RecursiveBacktrackingSolver()), domains, deadline)
    unary = [r for r in chapter.rules if r.one_cell]  # the kind's trait: posted first, as domain reductions
    for rule in unary:
        post_csp(rule, model)
    # Pattern rules can rule a terrain out of a cell, so run them before the domains are fixed.
    for rule in chapter.rules:
        if isinstance(rule, PatternMatch):
            post_csp(rule, model)
    for i in state.unrevealed():
        if domains[i]:
            model.problem.addVariable(model.name(i), sorted(domains[i], key=lambda t: t.index))
    for rule in chapter.rules:
        if not rule.one_cell and not isinstance(rule, PatternMatch):
            post_csp(rule, model)
    return model


def completions_csp(state: Map, *, time_limit: float | None = None, chapter: Chapter | None = None) -> Iterator[Map]:
    """Every completion of ``state`` found by python-constraint; raises CspTimeout past ``time_limit`` seconds.

    ``chapter`` overrides the state's own chapter (a house-rule chapter on the same board)."""
    model = build_csp(state, time_limit=time_limit, chapter=chapter)
    if model.broken:
        return
    unknown = state.unrevealed()
    if not unknown:
        yield state
        return
    names = [model.name(i) for i in unknown]
    cells = list(state.cells)
    for solution in model.problem.getSolutionIter():
        for i, name in zip(unknown, names):
            cells[i] = solution[name]
        yield state.with_cells(cells)


def count_completions_csp(
    state: Map, limit: int | None = None, *, time_limit: float | None = None, chapter: Chapter | None = None
) -> int:
    """The number of completions, stopping at ``limit`` when given; raises CspTimeout past ``time_limit``."""
    n = 0
    for _ in completions_csp(state, time_limit=time_limit, chapter=chapter):
        n += 1
        if limit is not None and n >= limit:
            break
    return n


def forced_csp(state: Map, *, time_limit: float | None = None, chapter: Chapter | None = None) -> dict[int, Terrain]:
    """Unrevealed cells holding the same terrain in every completion (empty when there is no completion)."""
    unknown = state.unrevealed()
    seen: dict[int, set[Terrain]] = {i: set() for i in unknown}
    found = False
    for full in completions_csp(state, time_limit=time_limit, chapter=chapter):
        found = True
        for i in unknown:
            t = full.cells[i]
            assert t is not None  # a completion
            seen[i].add(t)
    if not found:
        return {}
    return {i: next(iter(ts)) for i, ts in seen.items() if len(ts) == 1}
