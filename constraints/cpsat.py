"""Compilation of rule kinds to an OR-Tools CP-SAT model over one Boolean per (cell, terrain).

Every auxiliary variable (distance labels, pattern matches, Hill counts) is a *function* of the
terrain variables, reified both ways, so that solutions of the model are exactly the maps that
satisfy the rules and solution counts are exact.

With ``guarded=True`` every rule and every extra setting is enforced only under a literal of its
own; solving with those literals as assumptions lets CP-SAT name the rules that conflict
(``sufficient_assumptions_for_infeasibility``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ortools.sat.python import cp_model

from constraints.catalogue import Chapter
from constraints.design import NotAt, Reachable
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
from mapgen.model import Briefing, Map
from mapgen.terrain import Terrain


@dataclass(frozen=True)
class Guard:
    """A named switch for one rule or setting in a guarded model."""

    label: str
    literal: cp_model.IntVar


class ChapterModel:
    """A chapter's rules and one briefing compiled to CP-SAT; reuse it for many solves.

    ``x[i][t]`` is true when cell i holds terrain t; only the chapter's terrains get variables.
    """

    def __init__(
        self, chapter: Chapter, briefing: Briefing | None, *, guarded: bool = False, rules: Iterable[Rule] | None = None
    ):
        """Compile ``rules`` (default: all the chapter's). With ``briefing=None`` the rules that read the
        briefing (the Peak, the start, the mini map) are left out; add them with ``with_briefing``."""
        self.chapter = chapter
        self.briefing = briefing
        self.board = chapter.board
        self.guarded = guarded
        self.guards: dict[str, Guard] = {}
        self.model = cp_model.CpModel()
        m, n = self.model, self.board.size
        self.x: list[dict[Terrain, cp_model.IntVar]] = [
            {t: m.new_bool_var(f"cell_{self.board.name(i)}_{t.code}") for t in chapter.terrains} for i in range(n)
        ]
        for i in range(n):
            m.add_exactly_one(self.x[i].values())
        self._hill_count: dict[int, cp_model.IntVar] = {}
        self._hill_lits: dict[tuple[int, int], cp_model.IntVar] = {}
        for rule in chapter.rules if rules is None else rules:
            if briefing is not None or not rule.reads_briefing:
                self.post(rule)

    def with_briefing(self, briefing: Briefing) -> ChapterModel:
        """A copy of a briefing-free model with the briefing's rules added (cheap: the proto is cloned)."""
        if self.briefing is not None:
            raise ValueError("this model already has a briefing")
        new = self.copy()
        new.briefing = briefing
        for rule in self.chapter.rules:
            if rule.reads_briefing:
                new.post(rule)
        return new

    def copy(self) -> ChapterModel:
        """An independent copy: constraints added to one (Hill literals, rules) never reach the other."""
        new = object.__new__(ChapterModel)
        new.__dict__.update(self.__dict__)
        # Variables are indices into the proto, so the base model's variable objects serve the clone too.
        new.model = self.model.clone()
        new.guards = dict(self.guards)
        new._hill_count = dict(self._hill_count)
        new._hill_lits = dict(self._hill_lits)
        return new

    # -- helpers -------------------------------------------------------------------------------
    def possible(self, i: int, t: Terrain) -> bool:
        """Whether cell i can hold t at all, judged from the chapter's static rules (edge, ring)."""
        table = self.__dict__.get("_possible")
        if table is None:
            b, rules = self.board, self.chapter.rules
            table = self._possible = [
                frozenset(t for t in cell if not any(r.rules_out(b, k, t) for r in rules))
                for k, cell in enumerate(self.x)
            ]
        return t in table[i]

    def lit(self, i: int, t: Terrain):
        """The literal "cell i holds t", or None when t is not a terrain of this chapter."""
        return self.x[i].get(t)

    def guard(self, label: str) -> list:
        """Enforcement literals for a constraint labelled ``label`` (none in an unguarded model)."""
        if not self.guarded:
            return []
        g = self.guards.get(label)
        if g is None:
            g = self.guards[label] = Guard(label, self.model.new_bool_var(f"guard_{label}"))
        return [g.literal]

    def forbid(self, label: str, lits) -> None:
        """None of ``lits`` may be true (under the label's guard)."""
        for lit in lits:
            if lit is not None:
                self.model.add_bool_or([lit.Not()]).only_enforce_if(self.guard(label))

    def count_of(self, t: Terrain, cells) -> cp_model.LinearExpr:
        return sum(self.x[i][t] for i in cells if t in self.x[i])

    def terrain_at(self, solver: cp_model.CpSolver | Callable, i: int) -> Terrain:
        value = solver.boolean_value if hasattr(solver, "boolean_value") else solver
        return next(t for t, v in self.x[i].items() if value(v))

    def hill_count(self, i: int) -> cp_model.IntVar:
        """An integer equal to the count of the counted terrain in cell i's row plus column."""
        if i not in self._hill_count:
            b, counted = self.board, self.chapter.counted
            r, c = b.rc(i)
            cells = list(b.rows[r]) + list(b.cols[c])
            v = self.model.new_int_var(0, len(cells), f"hill_count_{b.name(i)}")
            self.model.add(v == (self.count_of(counted, cells) if counted else 0))
            self._hill_count[i] = v
        return self._hill_count[i]

    def hill_shows(self, i: int, number: int):
        """A literal true exactly when cell i's row and column hold ``number`` of the counted terrain."""
        key = (i, number)
        if key not in self._hill_lits:
            v = self.hill_count(i)
            lit = self.model.new_bool_var(f"hill_{self.board.name(i)}_is_{number}")
            self.model.add(v == number).only_enforce_if(lit)
            self.model.add(v != number).only_enforce_if(lit.Not())
            self._hill_lits[key] = lit
        return self._hill_lits[key]

    def distance_labels(self, label: str, member: list, roots: list, cells: list[int], name: str) -> None:
        """Require every member cell to be orthogonally connected to a root member.

        ``member[k]``/``roots[k]`` are literals (or None for false) for ``cells[k]``. Labels are exact BFS
        distances: d = 0 off the set, 1 on a root, else 1 + the least label among member neighbours.
        """
        m, b = self.model, self.board
        pos = {c: k for k, c in enumerate(cells)}
        big = len(cells) + 2
        d = [m.new_int_var(0, big, f"{name}_d_{b.name(c)}") for c in cells]
        g = self.guard(label)
        for k, c in enumerate(cells):
            mem, root = member[k], roots[k]
            if mem is None:
                m.add(d[k] == 0)
                continue
            nbrs = [pos[j] for j in b.neighbours(c, "orthogonal") if j in pos and member[pos[j]] is not None]
            m.add(d[k] == 0).only_enforce_if(mem.Not())
            if root is not None:
                m.add(d[k] == 1).only_enforce_if(root)
            not_root = [] if root is None else [root.Not()]
            if nbrs:
                # mn = least label among member neighbours (big off the set): a function of the terrain.
                mn = m.new_int_var(1, big, f"{name}_min_{b.name(c)}")
                m.add_min_equality(mn, [d[j] + big * (1 - member[j]) for j in nbrs])
                m.add(d[k] == mn + 1).only_enforce_if([mem, *not_root, *g])
                m.add(d[k] <= big - 1).only_enforce_if([mem, *g])
            else:
                m.add_bool_or([mem.Not(), *([root] if root is not None else [])]).only_enforce_if(g)

    # -- rules -----------------------------------------------------------------------------------
    def post(self, rule: Rule) -> None:
        """Add one rule instance's constraints."""
        post = _POSTERS.get(type(rule))
        if post is None:
            raise TypeError(f"no CP-SAT compilation for rule kind {type(rule).__name__}")
        post(self, rule)

    def post_counts(self, label: str, t: Terrain, lo: int | None, hi: int | None) -> None:
        """lo <= number of t <= hi (a design setting or a rule)."""
        total = self.count_of(t, range(self.board.size))
        g = self.guard(label)
        if lo is not None:
            self.model.add(total >= lo).only_enforce_if(g)
        if hi is not None:
            self.model.add(total <= hi).only_enforce_if(g)

    def post_reachable(self, label: str, blocker: Terrain, starts: list[int]) -> None:
        """P1: every cell can be reached from a start cell through cells that are not ``blocker``.

        Cells that can never be a blocker and connect to a start are reached for sure; distance labels
        cover only the rest. A blocker cell needs an open neighbour (it is revealed, not passed).
        """
        b, n = self.board, self.board.size
        sure = [i for i in range(n) if not self.possible(i, blocker)]
        reached, stack = set(), [i for i in starts if i in set(sure)]
        reached.update(stack)
        sure_set = set(sure)
        while stack:
            i = stack.pop()
            for j in b.neighbours(i, "orthogonal"):
                if j in sure_set and j not in reached:
                    reached.add(j)
                    stack.append(j)
        rest = [i for i in range(n) if i not in reached]
        opened = {i: self.model.new_constant(1) for i in reached}
        for i in rest:
            opened[i] = self.lit(i, blocker).Not() if self.possible(i, blocker) else self.model.new_constant(1)
        roots = []
        for i in rest:
            touches = any(j in reached for j in b.neighbours(i, "orthogonal")) or i in starts
            roots.append(opened[i] if touches else None)
        self.distance_labels(label, [opened[i] for i in rest], roots, rest, f"reach_{label}")
        g = self.guard(label)
        for i in rest:
            if self.possible(i, blocker):
                nb = [opened[j] for j in b.neighbours(i, "orthogonal")]
                self.model.add_bool_or([self.lit(i, blocker).Not(), *nb]).only_enforce_if(g)

    # -- solving ---------------------------------------------------------------------------------
    def given_literals(self, state: Map) -> list | None:
        """Assumption literals for a state's revealed cells and Hill numbers; None if a terrain is not of this chapter."""
        lits = []
        for i, t in enumerate(state.cells):
            if t is None:
                continue
            lit = self.lit(i, t)
            if lit is None:
                return None
            lits.append(lit)
        if any(isinstance(r, HillNumbers) for r in self.chapter.rules):
            for i, number in state.hills.items():
                lits.append(self.hill_shows(i, number))
        return lits

    def decode(self, value: Callable) -> tuple[Terrain, ...]:
        return tuple(next(t for t, v in cell.items() if value(v)) for cell in self.x)


class _Solver(cp_model.CpSolver):
    """A CpSolver that leaves Ctrl-C to Python and still stops at once.

    OR-Tools' own SIGINT handler (``catch_sigint_signal``) replaces Python's, and after the solve puts back the
    default disposition, not Python's: the next Ctrl-C killed the process without a word, or was never seen.
    So that is off; and because Python only runs its handler between bytecodes, which a solve in C++ never
    reaches, a solve started in the main thread runs in a helper thread while the main thread waits, ready to
    take the KeyboardInterrupt, stop the search (``stop_search``) and pass the interrupt on. Same answers: the
    search itself is unchanged (one worker stays deterministic)."""

    def solve(self, model, solution_callback=None):
        if threading.current_thread() is not threading.main_thread():
            return super().solve(model, solution_callback)
        done = threading.Event()
        result: list = []

        def run() -> None:
            try:
                result.append((True, super(_Solver, self).solve(model, solution_callback)))
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread below
                result.append((False, e))
            finally:
                done.set()

        interrupted = False
        worker = threading.Thread(target=run, name="cp-sat", daemon=True)
        try:
            worker.start()
        except KeyboardInterrupt:
            interrupted = True
        while worker.ident is not None and not done.is_set():
            try:
                if interrupted:  # again: a stop before the search had begun is not kept
                    self.stop_search()
                done.wait(0.05)
            except KeyboardInterrupt:
                interrupted = True
        if interrupted:
            raise KeyboardInterrupt
        ok, value = result[0]
        if not ok:
            raise value
        return value


def make_solver(
    time_limit: float, *, seed: int = 0, workers: int = 1, presolve: bool = True, work: float | None = None
) -> cp_model.CpSolver:
    """A CP-SAT solver bounded by a time limit; one worker by default (deterministic); Ctrl-C (KeyboardInterrupt)
    stops it within a fraction of a second and leaves Python's SIGINT handler in place (``_Solver``). ``work``:
    CP-SAT's deterministic seconds (``max_deterministic_time``), the bound an answer may depend on (the same on any
    load); the time limit is then the wall clock's safety net (``clock_stopped`` says which ended a solve)."""
    s = _Solver()
    s.parameters.catch_sigint_signal = False
    s.parameters.max_time_in_seconds = float(time_limit)
    s.parameters.num_workers = workers
    s.parameters.random_seed = seed
    if work is not None:
        s.parameters.max_deterministic_time = float(work)
    if not presolve:
        s.parameters.cp_model_presolve = False
    return s


def clock_stopped(solver: cp_model.CpSolver) -> bool:
    """Whether the wall clock, not the deterministic work, ended the solver's last solve short of its work (CP-SAT
    stops the work at or past its bound): what it found then is the load's doing, never an answer."""
    return solver.response_proto.deterministic_time < solver.parameters.max_deterministic_time * (1 - 1e-9)


# -- one poster per rule kind ---------------------------------------------------------------------


def _post_terrain_set(cm: ChapterModel, rule: TerrainSet) -> None:
    for i in range(cm.board.size):
        cm.forbid(rule.label, [v for t, v in cm.x[i].items() if t not in rule.terrains])


def _post_neighbours(cm: ChapterModel, rule: Neighbours) -> None:
    m, g = cm.model, cm.guard(rule.label)
    for i in range(cm.board.size):
        subj = cm.lit(i, rule.subject)
        if subj is None:
            continue
        targets = [v for j in cm.board.neighbours(i, rule.hood) if (v := cm.lit(j, rule.target)) is not None]
        if rule.at_least == 1 and rule.at_most is None:
            m.add_bool_or([subj.Not(), *targets]).only_enforce_if(g)
            continue
        if rule.at_least > len(targets):
            m.add_bool_or([subj.Not()]).only_enforce_if(g)
            continue
        total = sum(targets)
        if rule.at_least > 0:
            m.add(total >= rule.at_least).only_enforce_if([subj, *g])
        if rule.at_most is not None and rule.at_most < len(targets):
            if rule.at_most == 0:
                for v in targets:
                    m.add_bool_or([subj.Not(), v.Not()]).only_enforce_if(g)
            else:
                m.add(total <= rule.at_most).only_enforce_if([subj, *g])


def _post_line_count(cm: ChapterModel, rule: LineCount) -> None:
    for line in (*cm.board.rows, *cm.board.cols):
        cm.model.add(cm.count_of(rule.terrain, line) == rule.count).only_enforce_if(cm.guard(rule.label))


def _post_connected(cm: ChapterModel, rule: Connected) -> None:
    t = rule.terrain
    cells = [i for i in range(cm.board.size) if cm.possible(i, t)]
    member = [cm.lit(i, t) for i in cells]
    fixed_roots = (
        []
        if cm.briefing is None
        else [
            getattr(cm.briefing, r.field)
            for r in cm.chapter.rules
            if isinstance(r, BriefingCell) and r.terrain is t and getattr(cm.briefing, r.field) is not None
        ]
    )
    if fixed_roots:
        root_cell = fixed_roots[0]
        roots = [member[k] if c == root_cell else None for k, c in enumerate(cells)]
        if root_cell not in cells:  # the briefing cell cannot hold t: BriefingCell reports it
            return
    else:
        # The first cell (in reading order) that holds t is the root: a function of the terrain.
        roots, m = [], cm.model
        for k, c in enumerate(cells):
            r = m.new_bool_var(f"root_{rule.id}_{cm.board.name(c)}")
            earlier = member[:k]
            m.add_bool_and([member[k], *[e.Not() for e in earlier]]).only_enforce_if(r)
            m.add_bool_or([member[k].Not(), *earlier, r])
            roots.append(r)
    cm.distance_labels(rule.label, member, roots, cells, f"conn_{rule.id}_{t.code}")


def _post_not_on_edge(cm: ChapterModel, rule: NotOnEdge) -> None:
    cm.forbid(rule.label, [cm.lit(i, rule.terrain) for i in range(cm.board.size) if cm.board.is_edge(i)])


def _post_briefing_cell(cm: ChapterModel, rule: BriefingCell) -> None:
    i = getattr(cm.briefing, rule.field)
    lit = None if i is None else cm.lit(i, rule.terrain)
    if lit is None:
        cm.model.add_bool_or([]).only_enforce_if(cm.guard(rule.label))  # impossible: no such cell or terrain
    else:
        cm.model.add_bool_or([lit]).only_enforce_if(cm.guard(rule.label))


def _post_distinct_neighbours(cm: ChapterModel, rule: DistinctNeighbours) -> None:
    m, g = cm.model, cm.guard(rule.label)
    for i in range(cm.board.size):
        subj = cm.lit(i, rule.terrain)
        if subj is None:
            continue
        nbrs = cm.board.neighbours(i, rule.hood)
        if len(nbrs) < 2:
            continue
        for t in cm.chapter.terrains:
            lits = [cm.x[j][t] for j in nbrs]
            m.add_at_most_one(lits).only_enforce_if([subj, *g])


def _post_hill_numbers(cm: ChapterModel, rule: HillNumbers) -> None:
    """Hill numbers constrain only revealed, numbered Hills of a state (see ``given_literals``)."""


def _post_column_pair(cm: ChapterModel, rule: ColumnPair) -> None:
    m, g = cm.model, cm.guard(rule.label)
    for col in cm.board.cols:
        seconds = [v for i in col if (v := cm.lit(i, rule.second)) is not None]
        for i in col:
            first = cm.lit(i, rule.first)
            if first is not None:
                m.add_bool_or([first.Not(), *seconds]).only_enforce_if(g)


def _post_pattern(cm: ChapterModel, rule: PatternMatch) -> None:
    m, g, b = cm.model, cm.guard(rule.label), cm.board
    pattern = getattr(cm.briefing, rule.field)
    for i in range(b.size):
        subj = cm.lit(i, rule.terrain)
        if subj is None:
            continue
        options = []
        if pattern is not None:
            for k, rot in enumerate(pattern.rotations()):
                placed = pattern_placements(b, i, rot)
                if placed is None:
                    continue
                lits = [cm.lit(j, t) for j, t in placed if t is not None and j != i]
                if any(v is None for v in lits):
                    continue
                match = m.new_bool_var(f"match_{rule.id}_{b.name(i)}_r{k}")
                m.add_bool_and(lits).only_enforce_if(match)
                m.add_bool_or([match, *[v.Not() for v in lits]])
                options.append(match)
        m.add_bool_or([subj.Not(), *options]).only_enforce_if(g)


def _post_count(cm: ChapterModel, rule: Count) -> None:
    cm.post_counts(rule.label, rule.terrain, rule.at_least or None, rule.at_most)


def _post_reachable(cm: ChapterModel, rule: Reachable) -> None:
    if rule.reads_briefing and cm.briefing is not None and cm.briefing.start is not None:
        starts = [cm.briefing.start]
    else:  # an edge start reaches what column 7 reaches (see Reachable)
        starts = list(cm.board.col_cells(7))
    cm.post_reachable(rule.label, rule.blocker, starts)


def _post_not_at(cm: ChapterModel, rule: NotAt) -> None:
    i = getattr(cm.briefing, rule.field)
    if i is not None:
        cm.forbid(rule.label, [cm.lit(i, rule.terrain)])


def _post_ring(cm: ChapterModel, rule: Ring) -> None:
    b = cm.board
    cm.forbid(rule.label, [cm.lit(i, rule.terrain) for i in range(b.size) if b.edge_distance(i) != rule.depth])


_POSTERS: dict[type, Callable] = {
    TerrainSet: _post_terrain_set,
    Neighbours: _post_neighbours,
    LineCount: _post_line_count,
    Connected: _post_connected,
    NotOnEdge: _post_not_on_edge,
    BriefingCell: _post_briefing_cell,
    DistinctNeighbours: _post_distinct_neighbours,
    HillNumbers: _post_hill_numbers,
    ColumnPair: _post_column_pair,
    PatternMatch: _post_pattern,
    Count: _post_count,
    Ring: _post_ring,
    Reachable: _post_reachable,
    NotAt: _post_not_at,
}
