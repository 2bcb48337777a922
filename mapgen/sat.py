"""Incremental SAT over a chapter's CNF with one switch per rule: the fast engine behind deduction.

One CNF per (chapter, briefing) holds every cell as variables (``constraints.cnf``'s encoding, the
one the exact counter uses) and every clause of a rule carries that rule's *guard*: the rule is
in force only while its guard is assumed. A state's revealed cells and Hill numbers are
assumptions too, so one incremental solver (pysat) answers any state of the briefing, and an
unsatisfiable answer names the rules and cells it used (``get_core``): that is what explanations
of forced cells (RULES.md §6) and of conflicts are built from.

Never guarded: T1 (the chapter's terrains are the variables' domains) and the briefing's cells
(the Peak is a Rock, Flora's start is a Fort): RULES.md §6 never cites them. A revealed Hill's
number is one more switch, assumed only together with C9 and that cell.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from pysat.solvers import Solver as _PySat

from constraints.catalogue import Chapter
from constraints.cnf import FALSE, TRUE, Cnf, encode_rule
from constraints.rules import BriefingCell, HillNumbers, NotOnEdge, Ring, Rule, TerrainSet
from mapgen.model import Map
from mapgen.terrain import Terrain

#: The SAT solver pysat runs: Minicard (MiniSat 2.2) takes assumptions, gives cores, phases,
#: propagation budgets and interrupts; measured 2-5x faster here than Glucose 4 (CaDiCaL has no budgets).
BACKEND = "minicard"
#: Propagations per "deterministic second" of a budget (about a second of glucose's work here).
PROPAGATIONS_PER_SECOND = 20_000_000


class SatTimeout(Exception):
    """A SAT call ran out of its budget."""


@dataclass
class GuardedCnf(Cnf):
    """A CNF whose every rule clause is switched off unless the rule's guard literal holds."""

    guards: dict[str, int] = field(default_factory=dict)

    def guard(self, rule_id: str) -> int:
        g = self.guards.get(rule_id)
        if g is None:
            g = self.guards[rule_id] = self.new_var(f"guard_{rule_id}")
        return g

    def add(self, clause, rule: Rule | None = None) -> None:
        if rule is not None and not isinstance(rule, (TerrainSet, BriefingCell)):
            clause = [*clause, -self.guard(rule.id)]
        super().add(clause, rule)


@dataclass
class Budget:
    """A time budget for one question: wall-clock seconds, or deterministic ones (SAT propagations).

    A deterministic budget gives the same answers on a busy machine as on an idle one; a wall
    clock of ``wall_factor`` times the budget stays as a safety net.
    """

    seconds: float
    deterministic: bool = False
    wall_factor: float = 200.0
    spent: float = 0.0  # deterministic seconds used
    deadline: float = 0.0

    def __post_init__(self):
        factor = self.wall_factor if self.deterministic else 1.0
        self.deadline = time.monotonic() + factor * self.seconds

    def left(self) -> float:
        if self.deterministic:
            return min(self.seconds - self.spent, self.deadline - time.monotonic())
        return self.deadline - time.monotonic()


class _Watchdog:
    """One daemon thread that interrupts SAT calls past their wall-clock deadline (a thread per call
    costs more than most calls)."""

    def __init__(self):
        self._armed: dict[int, tuple[object, float]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def arm(self, sat, deadline: float) -> None:
        with self._lock:
            self._armed[id(sat)] = (sat, deadline)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sat-watchdog", daemon=True)
                self._thread.start()

    def disarm(self, sat) -> None:
        with self._lock:
            self._armed.pop(id(sat), None)

    def _run(self) -> None:
        while True:
            time.sleep(0.005)
            now = time.monotonic()
            with self._lock:  # interrupt under the lock: once disarmed, a solver is never interrupted late
                for sat, deadline in self._armed.values():
                    if now > deadline:
                        sat.interrupt()


_WATCH = _Watchdog()


class SatSession:
    """One briefing's guarded CNF loaded into an incremental SAT solver, and the completions seen."""

    def __init__(self, chapter: Chapter, state: Map):
        blank = state.hide(range(state.board.size))
        cnf = GuardedCnf(blank, chapter)
        for _i in range(blank.board.size):
            lits = {u: cnf.new_var(f"cell_{blank.board.name(_i)}_{u.code}") for u in chapter.terrains}
            cnf.x.append(lits)
            vs = list(lits.values())
            cnf.add(vs)
            for a in range(len(vs)):
                for b in range(a + 1, len(vs)):
                    cnf.add([-vs[a], -vs[b]])
        first = (TerrainSet, NotOnEdge, Ring, BriefingCell)
        for rule in sorted(chapter.rules, key=lambda r: not isinstance(r, first)):
            encode_rule(rule, cnf)
        self.hill_rule = next((r for r in chapter.rules if isinstance(r, HillNumbers)), None)
        if self.hill_rule is not None:
            cnf.guard(self.hill_rule.id)  # the numbers of revealed Hills are posted per state
        self.chapter = chapter
        self.board = blank.board
        self.cnf = cnf
        self.x = cnf.x
        #: rule ids with a switch, in the chapter's order
        self.rules = tuple(r.id for r in chapter.info if r.id in cnf.guards)
        self.briefing_cells = {
            i for r in chapter.rules if isinstance(r, BriefingCell) and (i := r.cell(blank)) is not None
        }
        self.broken = list(cnf.broken)  # rules broken by the briefing alone (only a briefing cell can)
        self._hills: dict[tuple[int, int], int] = {}
        self._sat = _PySat(name=BACKEND, bootstrap_with=cnf.clauses)
        self._done = len(cnf.clauses)
        self._pristine = (self._done, cnf.nvars)  # what a fork starts from, whatever was asked since
        self.witnesses: list[tuple[Terrain, ...]] = []
        self.spent = 0.0
        self.calls = 0

    def fork(self) -> SatSession:
        """A fresh solver on the same encoding as built (cheap: nothing is compiled again), with no
        witnesses and no Hill numbers: its answers never depend on questions asked of this one."""
        new = object.__new__(SatSession)
        new.__dict__.update(self.__dict__)
        cnf, (done, nvars) = self.cnf, self._pristine
        new.cnf = GuardedCnf(
            cnf.state,
            cnf.chapter,
            cnf.x,
            cnf.clauses[:done],
            dict(cnf.names),
            cnf.sampling,
            list(cnf.broken),
            nvars,
            dict(cnf.guards),
        )
        new._hills = {}
        new._sat = _PySat(name=BACKEND, bootstrap_with=new.cnf.clauses)
        new._done = len(new.cnf.clauses)
        new.witnesses = []
        new.spent = 0.0
        new.calls = 0
        return new

    # -- literals ------------------------------------------------------------------------------
    def guard(self, rule_id: str) -> int | None:
        return self.cnf.guards.get(rule_id)

    def lit(self, i: int, t: Terrain) -> int | None:
        v = self.x[i].get(t)
        return None if v is None or v is TRUE or v is FALSE else v

    def hill_switch(self, i: int, number: int) -> int | None:
        """A literal that, assumed with C9's guard, makes cell i's row and column hold ``number``."""
        if self.hill_rule is None:
            return None
        key = (i, number)
        if key not in self._hills:
            cnf, rule, b = self.cnf, self.hill_rule, self.board
            h = cnf.new_var(f"hill_{b.name(i)}_is_{number}")
            r, c = b.rc(i)
            line = [cnf.lit(j, rule.counted) for j in (*b.rows[r], *b.cols[c]) if j != i]
            cnf.bounds(line, number, number, rule, cond=h)
            self._sat.append_formula(cnf.clauses[self._done :])
            self._done = len(cnf.clauses)
            self._hills[key] = h
        return self._hills[key]

    def givens(self, state: Map, cells=None, rules=None) -> list[int] | None:
        """Assumptions for a state's revealed cells (all, or ``cells``) under ``rules`` (default all).

        None when a revealed terrain is not of the chapter (T1).
        """
        rules = self.rules if rules is None else rules
        out = [self.cnf.guards[r] for r in rules]
        c9 = self.hill_rule is not None and self.hill_rule.id in rules
        for i in range(self.board.size) if cells is None else cells:
            t = state.cells[i]
            if t is None:
                continue
            v = self.lit(i, t)
            if v is None:
                if t not in self.x[i]:
                    return None
                continue  # fixed by the briefing
            out.append(v)
            if c9 and i in state.hills:
                out.append(self.hill_switch(i, state.hills[i]))
        return out

    # -- solving -------------------------------------------------------------------------------
    def solve(self, assumptions: list[int], budget: Budget) -> bool:
        """Satisfiable under ``assumptions``? SatTimeout when the budget runs out first."""
        left = budget.left()
        if left <= 0:
            raise SatTimeout("the time limit ran out")
        self.calls += 1
        sat = self._sat
        before = sat.accum_stats().get("propagations", 0)
        if budget.deterministic:
            sat.prop_budget(max(1, int(left * PROPAGATIONS_PER_SECOND)))
        _WATCH.arm(sat, budget.deadline)
        try:
            result = sat.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            _WATCH.disarm(sat)
            sat.clear_interrupt()
            if budget.deterministic:
                sat.prop_budget(-1)
        used = (sat.accum_stats().get("propagations", 0) - before) / PROPAGATIONS_PER_SECOND
        budget.spent += used
        self.spent += used
        if result is None:
            raise SatTimeout("the time limit ran out")
        return result

    def implied_false(self, assumptions: list[int]) -> set[int]:
        """Variables unit propagation sets false under ``assumptions`` (no search: cheap)."""
        ok, implied = self._sat.propagate(assumptions=assumptions)
        return {-v for v in implied or () if v < 0} if ok else set()

    def core(self) -> list[int]:
        return list(self._sat.get_core() or [])

    def decode(self) -> tuple[Terrain, ...]:
        model = self._sat.get_model()  # model[v - 1] is v or -v: one look-up per literal
        out = []
        for cell in self.x:
            for t, v in cell.items():
                if v is TRUE or (v is not FALSE and model[v - 1] > 0):
                    out.append(t)
                    break
        return tuple(out)

    def switch(self, clause: list[int]) -> int:
        """A fresh literal that, when assumed, enforces ``clause``; ``retire`` it after use."""
        self.cnf.nvars += 1
        act = self.cnf.nvars
        self._sat.add_clause([-act, *clause])
        return act

    def retire(self, act: int) -> None:
        self._sat.add_clause([-act])

    def lean(self, lits: list[int]) -> None:
        """Prefer these literal values in the next solves (a phase hint)."""
        self._sat.set_phases(lits)

    def remember(self, w: tuple[Terrain, ...], cap: int) -> None:
        self.witnesses.append(w)
        if len(self.witnesses) > cap:
            del self.witnesses[: cap // 4]
