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

``SatSession.fork(ruled=True)`` makes the session behind wall-clock ``possible``: every rule in
force as unit clauses; a connected terrain with a sure cell (C6: the Rocks and the Peak) checked
lazily (``LazyConnected``) instead of by its layered reachability clauses, which cost the SAT
solver most of its time on Fauna; and each count of a terrain on the map (F2's 3 Forts, Flora's
Sacagawea, Maldonado's plenty) as Minicard's native cardinality constraints instead of a counter.
It answers exactly the same questions. The deducer bot's session is such a fork too: its cores name only
revealed cells and Hill numbers (every clause it adds is implied by the rules, all always in force there), so
they stay proofs for its questions, which are all asked under every rule. The guarded session (cores that
name rules, for explanations) and the exact counter keep ``constraints.cnf``'s encoding.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import pysolvers  # pysat's C module (its solvers' own functions)
from pysat.solvers import Solver as _PySat

from constraints.catalogue import Chapter
from constraints.cnf import FALSE, TRUE, Cnf, encode_rule
from constraints.rules import BriefingCell, Connected, Count, HillNumbers, Rule, TerrainSet, components
from mapgen.errors import InputError, TimeLimitError, UnmetError
from mapgen.inputs import seconds_problem
from mapgen.model import Map
from mapgen.terrain import Terrain

#: The SAT solver pysat runs: Minicard (MiniSat 2.2) takes assumptions, gives cores, phases,
#: propagation budgets and interrupts; measured 2-5x faster here than Glucose 4 (CaDiCaL has no budgets).
BACKEND = "minicard"
#: Propagations per "deterministic second" of a budget (about a second of glucose's work here).
PROPAGATIONS_PER_SECOND = 20_000_000


class QuestionError(InputError, ValueError):
    """A solver question's argument it cannot use (exit 2): an odds method that does not exist, a count's limit or
    a number of draws that is no whole number, a time limit below 0 or not a number, proofs without their session, a
    terrain the chapter's maps never hold (``target(state, "Ma")`` on Fauna)."""


def check_time_limit(time_limit: object, who: str) -> None:
    """QuestionError (invalid input, exit 2) for a time limit given to ``who`` (a public function that asks the
    solver) that is no number, below 0 or NaN: ``"deduce_report's time_limit is seconds (a number from 0), not
    -1"`` (a negative one ran out before the first question: a time-out, exit 3)."""
    problem = seconds_problem(time_limit)
    if problem is not None:
        raise QuestionError(f"{who}'s {problem}")


class SolveTimeout(TimeLimitError):
    """A solver call ran out of its time limit (``mapgen.solving.solve`` re-exports it, with ``NoCompletion``)."""


class NoCompletion(UnmetError):
    """The state has no completion; ``rules`` and ``cells`` name a small conflicting set."""

    def __init__(self, message: str, rules: tuple[str, ...] = (), cells: tuple[str, ...] = ()):
        super().__init__(message)
        self.rules = rules
        self.cells = cells

    def to_json(self) -> dict:
        """The conflict as every JSON answer names it: ``{"rules", "cells", "message"}``."""
        return {"rules": list(self.rules), "cells": list(self.cells), "message": str(self)}

    def report_json(self) -> dict:
        """The report of a state no map completes, as ``solve --json`` and the web's /api/solve give it."""
        return {"count": 0, "exact": True, "unique": False, "forced": {}, "conflict": self.to_json()}


#: What ``SatSession.count_switch``'s counters are named after (their clauses carry no rule's switch).
_DEFINITION = HillNumbers("number", "a Hill's number")


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

    @classmethod
    def until(cls, seconds: float, deadline: float, deterministic: bool = False) -> Budget:
        """``seconds`` of budget whose wall clock ends the work at ``deadline`` (``time.monotonic``)."""
        b = cls(seconds, deterministic)
        b.deadline = deadline
        return b

    def part(self, share: float) -> Budget:
        """``share`` of this budget's seconds with this budget's wall-clock deadline: a share that is the
        same on any load (a share of what is left is not); the deadline still ends the work."""
        return Budget.until(share * self.seconds, self.deadline, self.deterministic)

    def left(self) -> float:
        if self.deterministic:
            return min(self.seconds - self.spent, self.deadline - time.monotonic())
        return self.deadline - time.monotonic()


class _Watchdog:
    """One daemon thread that interrupts SAT calls past their wall-clock deadline (a thread per call
    costs more than most calls). It sleeps until the nearest deadline armed, woken only when an earlier one
    is armed: a call that ends in time costs no wake-up (polling every 5 ms took 7% of the deducer's CPU).

    A forked child (playtest's and grade's worker processes) starts afresh: it has no such thread, and the lock may
    have been held by the parent's at the fork (it holds it whenever it is awake), which would hang the child's
    first call with a deadline for good."""

    def __init__(self):
        self._start_afresh()
        os.register_at_fork(after_in_child=self._start_afresh)

    def _start_afresh(self) -> None:
        self._armed: dict[int, tuple[Any, float]] = {}  # a pysat solver (untyped) and its deadline
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._wake = math.inf  # when the thread wakes next (inf: when notified)

    def arm(self, sat, deadline: float) -> None:
        with self._cond:
            self._armed[id(sat)] = (sat, deadline)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sat-watchdog", daemon=True)
                self._thread.start()
            if deadline < self._wake:
                self._cond.notify()

    def disarm(self, sat) -> None:
        with self._cond:
            self._armed.pop(id(sat), None)

    def _run(self) -> None:
        with self._cond:  # interrupt under the lock: once disarmed, a solver is never interrupted late
            while True:
                now = time.monotonic()
                nearest = math.inf
                for key, (sat, deadline) in list(self._armed.items()):
                    if now > deadline:
                        sat.interrupt()
                        self._armed[key] = (sat, math.inf)  # interrupted once; disarmed when its call returns
                    else:
                        nearest = min(nearest, deadline)
                self._wake = nearest
                self._cond.wait(None if nearest == math.inf else nearest - now)


_WATCH = _Watchdog()


def _loaded(clauses: list[list[int]]) -> _PySat:
    """A new solver (``BACKEND``) holding ``clauses``. Minicard's are handed to its C function one by one in
    a tight loop (pysat's own loads check each clause's kind and pass it through two Python calls: about
    half of a hint's fresh session, 21,000 clauses on Fauna)."""
    sat = _PySat(name=BACKEND)
    inner: Any = getattr(sat, "solver", None)
    handle = getattr(inner, "minicard", None)
    if BACKEND != "minicard" or handle is None:
        sat.append_formula(clauses)
        return sat
    # every clause, even past one that makes the formula false; map() over the C function, no loop in Python
    # (8% of a load: a fork of the scout's session, 21,000 clauses on fauna-7, 4.5 -> 4.1 ms)
    added = list(map(pysolvers.minicard_add_cl, repeat(handle), clauses))
    if not all(added):
        inner.status = False  # what pysat's add_clause records when a clause makes the formula unsatisfiable
    return sat


def _var(s: SatSession, i: int, t: Terrain) -> int:
    """Cell i's variable for terrain t, where the caller knows the terrain is open (not fixed by the briefing)."""
    v = s.lit(i, t)
    assert v is not None, f"{s.board.name(i)} {t.code}: fixed by the briefing"
    return v


@dataclass
class LazyConnected:
    """A ``Connected`` rule checked on each model instead of encoded in full (lazy cuts).

    The cells of ``terrain`` must form one orthogonal group with ``root`` (a briefing cell that holds
    the terrain in every completion). Every clause added is implied by the rule: if cell v holds the
    terrain and v lies in a set C of cells without the root, then a path from v to the root leaves C,
    so some orthogonal neighbour of C outside C holds the terrain too (more generally: some cell of
    every set that separates v from the root does). ``seed`` posts these clauses for every connected
    C of up to ``SEED_SIZE`` cells and for the distance rings between each cell and the root; ``cut`` posts them for the groups of a model
    that miss the root (around the group, and around the root's group), so every model that breaks
    the rule is excluded and the solver is asked again. Answers stay exact: a model that passes
    ``cut`` keeps the rule, and the clauses only remove models that break it.
    """

    rule: Connected
    root: int
    guard: int
    #: Clauses for every connected set of up to this many cells (measured on the empty boards of
    #: every chapter: 3 is the fastest; 1 or 2 leave Maldonado more cut rounds, 4 costs more than it saves).
    SEED_SIZE = 3

    def _around(self, s: SatSession, group) -> list[int]:
        orth, inside = s.board.hood("orthogonal"), set(group)
        out = {u for v in group for u in orth[v] if u not in inside}
        return [v for u in sorted(out) if (v := s.lit(u, self.rule.terrain)) is not None]

    def _post(self, s: SatSession, group, around: list[int]) -> None:
        for v in group:
            s._sat.add_clause([-self.guard, -_var(s, v, self.rule.terrain), *around])

    def seed(self, s: SatSession) -> None:
        """Post the clauses of every connected set of up to SEED_SIZE possible cells without the
        root, and of the rings that separate a cell from the root: the cells at each distance from
        the root nearer than the cell, and at each distance from the cell nearer than the root
        (distances over the cells that may hold the terrain)."""
        t, orth = self.rule.terrain, s.board.hood("orthogonal")
        never = s.implied_false([self.guard])
        cand = {i for i in range(s.board.size) if (v := s.lit(i, t)) is not None and v not in never}
        cand.add(self.root)
        others = cand - {self.root}
        sets, layer = set(), {frozenset([i]) for i in others}
        for _ in range(self.SEED_SIZE):
            sets |= layer
            layer = {c | {u} for c in layer for v in c for u in orth[v] if u in others and u not in c}
        for group in sorted(sets, key=sorted):
            self._post(s, group, self._around(s, group))

        def rings(source: int) -> list[list[int]]:
            dist, todo = {source: 0}, [source]
            for a in todo:
                for b in orth[a]:
                    if b in cand and b not in dist:
                        dist[b] = dist[a] + 1
                        todo.append(b)
            out: list[list[int]] = [[] for _ in range(max(dist.values()) + 1)]
            for u in sorted(dist):
                out[dist[u]].append(u)
            return out

        from_root = rings(self.root)
        far = {u: k for k, ring in enumerate(from_root) for u in ring}
        for v in sorted(others):
            if v not in far:  # no path to the root at all: never the terrain
                self._post(s, [v], [])
                continue
            for ring in from_root[1 : far[v]]:
                self._post(s, [v], [_var(s, u, t) for u in ring])
            around_v = rings(v)
            for ring in around_v[2 : far[v]]:  # ring 1 (the neighbours) is one of the sets above
                self._post(s, [v], [_var(s, u, t) for u in ring])

    def cut(self, s: SatSession, w: tuple[Terrain, ...]) -> bool:
        """Post the clauses a model ``w`` breaks, if it breaks the rule (then True: solve again)."""
        t = self.rule.terrain
        groups = components(s.board, [i for i, u in enumerate(w) if u is t])
        if len(groups) <= 1 and (not groups or self.root in groups[0]):
            return False
        home = next((g for g in groups if self.root in g), [self.root])
        around_home = self._around(s, home)
        for group in groups:
            if self.root not in group:
                self._post(s, group, self._around(s, group))
                self._post(s, group, around_home)
        return True


class SatSession:
    """One briefing's guarded CNF loaded into an incremental SAT solver, and the completions seen."""

    def __init__(self, chapter: Chapter, state: Map, *, lazy: bool = False):
        """``lazy``: the session only a ruled fork is made from (``Solver.session(..., ruled=True)``): a Connected
        rule with a sure root cell gets its switch but not its layered clauses (the fork checks it lazily and
        would leave them out: on Fauna they are most of the session's making), and nothing is loaded into its own
        solver, which is never asked."""
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
        #: the rules a ruled fork posts its own way, each with its clauses' span in cnf.clauses:
        #: a Connected rule with a sure root cell (checked lazily), a Count (native cardinality)
        self._connected: list[tuple[Connected, int, int, int]] = []
        self._counts: list[tuple[Count, int, int]] = []
        for rule in sorted(chapter.rules, key=lambda r: not r.one_cell):  # one-cell rules first (the kind's trait)
            start = len(cnf.clauses)
            root = self._root(chapter, blank, rule) if isinstance(rule, Connected) else None
            if lazy and root is not None:
                cnf.guard(rule.id)
            else:
                encode_rule(rule, cnf)
            if isinstance(rule, Connected) and root is not None:
                self._connected.append((rule, root, start, len(cnf.clauses)))
            elif isinstance(rule, Count):
                self._counts.append((rule, start, len(cnf.clauses)))
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
        self._lazy = lazy
        self._sat = _loaded([] if lazy else cnf.clauses)
        self._done = len(cnf.clauses)
        self._pristine = (self._done, cnf.nvars)  # what a fork starts from, whatever was asked since
        self.witnesses: list[tuple[Terrain, ...]] = []
        self.spent = 0.0
        self.calls = 0
        self.lazy: list[LazyConnected] = []  # rules checked on each model (a ruled fork only)
        self._source: SatSession | None = None  # the session a fork was made from
        self._decoded: tuple[Terrain, ...] | None = None
        # ``x`` read without hashing a Terrain (an Enum's hash is a Python call), made on first use (forks share
        # ``x``, so theirs too): per cell, id(terrain) -> its variable, or 0 when fixed (TRUE or FALSE); and per
        # cell, (terrain, variable) in ``x``'s order without the FALSE ones, a TRUE one's variable 0
        self._xid: list[dict[int, int]] | None = None
        self._xpairs: list[list[tuple[Terrain, int]]] | None = None

    def _post_count(self, rule: Count) -> None:
        """A Count rule as Minicard's native cardinality constraints (no counter variables: the
        solver propagates the bounds itself; its guard is a unit clause in a ruled fork)."""
        lits = [v for i in range(self.board.size) if (v := self.lit(i, rule.terrain)) is not None]
        bounds = []
        if rule.at_most is not None:
            bounds.append((lits, rule.at_most))
        if rule.at_least:
            bounds.append(([-v for v in lits], len(lits) - rule.at_least))
        for lits_, k in bounds:
            if k < 0:
                self._sat.add_clause([-self.cnf.guards[rule.id]])
            else:
                self._sat.add_atmost(lits_, k)

    @staticmethod
    def _root(chapter: Chapter, blank: Map, rule: Connected) -> int | None:
        """A cell that holds the rule's terrain in every completion: a briefing cell (the Peak)."""
        for r in chapter.rules:
            if isinstance(r, BriefingCell) and r.terrain is rule.terrain and (i := r.cell(blank)) is not None:
                return i
        return None

    def fork(self, *, ruled: bool = False) -> SatSession:
        """A fresh solver on the same encoding as built (cheap: nothing is compiled again), with no
        witnesses and no Hill numbers: its answers never depend on questions asked of this one.

        ``ruled``: every rule fixed in force (guards as unit clauses, not assumptions: the solver
        simplifies with them) and each connected terrain with a sure cell checked lazily
        (``LazyConnected``) instead of by its layered clauses: only for questions under every rule
        (wall-clock ``possible``; the deducer bot's, whose cores then name revealed cells only).
        """
        src = self._source or self  # a fork of a fork starts from the session as built
        if src._lazy and not ruled:
            raise ValueError("a lazy session (its connections not encoded) makes ruled forks only")
        new = object.__new__(SatSession)
        new.__dict__.update(src.__dict__)
        new._source = src
        cnf, (done, nvars) = src.cnf, src._pristine
        clauses = cnf.clauses[:done]
        native = ruled and src._sat.supports_atmost()
        if ruled and (src._connected or (native and src._counts)):
            skip: set[int] = set()
            for _connected, _root, start, end in src._connected:
                skip.update(range(start, end))
            for _count, start, end in src._counts if native else ():
                skip.update(range(start, end))
            clauses = [c for k, c in enumerate(clauses) if k not in skip]
        names, guards, sampling = dict(cnf.names), dict(cnf.guards), cnf.sampling
        if ruled:
            # The variables of the clauses left out (a lazy rule's layers, a native count's counters: on Fauna 2,400
            # of 3,100) would be in no clause of this solver, yet it would decide each of them on every model it
            # finds and hand each out with every model (the deducer's SAT work and model reads): the variables
            # still used are numbered again from 1, in their order. The cells' variables come first (made
            # first: SatSession()) and keep their numbers, so ``x`` is shared; none of the others can be in a later
            # clause (the fork's Cnf has no definitions: new ones make new variables).
            used = {abs(v) for c in clauses for v in c}
            used.update(guards.values())
            used.update(v for cell in cnf.x for v in cell.values() if v is not TRUE and v is not FALSE)
            used.update(sampling)
            order = sorted(used)
            renumber = {v: k for k, v in enumerate(order, 1)}
            if any(renumber[v] != v for cell in cnf.x for v in cell.values() if v is not TRUE and v is not FALSE):
                # (cells numbered otherwise, which no session does) the unused variables fixed false instead
                clauses = [*clauses, *([-v] for v in range(1, nvars + 1) if v not in used)]
            else:
                nvars = len(order)
                clauses = [[renumber[v] if v > 0 else -renumber[-v] for v in c] for c in clauses]
                names = {renumber[v]: n for v, n in names.items() if v in renumber}
                guards = {r: renumber[v] for r, v in guards.items()}
                sampling = [renumber[v] for v in sampling]
        new.cnf = GuardedCnf(
            cnf.state,
            cnf.chapter,
            x=cnf.x,
            clauses=clauses,
            names=names,
            sampling=sampling,
            broken=list(cnf.broken),
            nvars=nvars,
            style=cnf.style,
            guards=guards,
        )
        new._hills = {}
        new._sat = _loaded(new.cnf.clauses)
        new._done = len(new.cnf.clauses)
        new.witnesses = []
        new.spent = 0.0
        new.calls = 0
        new.lazy = []
        new._decoded = None
        if ruled:
            for g in new.cnf.guards.values():
                new._sat.add_clause([g])
            for count, _start, _end in src._counts if native else ():
                new._post_count(count)
            for connected, root, _start, _end in src._connected:
                lazy = LazyConnected(connected, root, new.cnf.guards[connected.id])
                lazy.seed(new)
                new.lazy.append(lazy)
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

    def count_switch(self, cells, terrain: Terrain, lo: int, hi: int | None) -> int:
        """A fresh literal that, assumed, makes between ``lo`` and ``hi`` (None: no upper bound) of ``cells`` hold
        ``terrain``: a definition, under no rule's switch (a hidden Hill's number asked of the completions, whether
        or not the chapter's C9 is in force). Its clauses only bind when it is assumed."""
        scratch = Cnf(self.cnf.state, self.chapter, x=self.x, nvars=self.cnf.nvars)  # a plain Cnf: nothing guarded
        h = scratch.new_var(f"count_{terrain.code}_{lo}_{hi}")
        scratch.bounds([scratch.lit(j, terrain) for j in cells], lo, hi, _DEFINITION, cond=h)
        self.cnf.nvars = scratch.nvars
        self.cnf.names.update(scratch.names)
        self._sat.append_formula(scratch.clauses)
        return h

    def givens(self, state: Map, cells=None, rules=None) -> list[int] | None:
        """Assumptions for a state's revealed cells (all, or ``cells``) under ``rules`` (default all).

        None when a revealed terrain is not of the chapter (T1).
        """
        rules = self.rules if rules is None else rules
        guards = self.cnf.guards
        out = [guards[r] for r in rules]
        c9 = self.hill_rule is not None and self.hill_rule.id in rules
        hills = state.hills if c9 else None
        xid = self._xid
        if xid is None:
            xid = self._xid = [{id(t): 0 if v is TRUE or v is FALSE else v for t, v in c.items()} for c in self.x]
        terrains = state.cells
        for i in range(self.board.size) if cells is None else cells:
            t = terrains[i]
            if t is None:
                continue
            v = xid[i].get(id(t))
            if v is None:  # not a terrain of the chapter
                return None
            if not v:
                continue  # fixed by the briefing
            out.append(v)
            if hills and i in hills:
                switch = self.hill_switch(i, hills[i])
                assert switch is not None  # c9: the session has the Hill rule
                out.append(switch)
        return out

    # -- solving -------------------------------------------------------------------------------
    def solve(self, assumptions: list[int], budget: Budget, *, lazy: bool = True) -> bool:
        """Satisfiable under ``assumptions``? SatTimeout when the budget runs out first.

        With lazily checked rules, a model that breaks one is cut off and the solver asked again
        (each round excludes that model, so the loop ends; each is bounded by the same budget).
        ``lazy=False`` leaves them unchecked: satisfiable under the other rules and the cuts posted so far
        (a weaker question, never a wrong "no": the SMC's check, ``smc.sat_check``)."""
        while True:
            if not self._solve_once(assumptions, budget):
                return False
            if not self.lazy or not lazy:
                return True
            w = self.decode()
            broken = [lazy.cut(self, w) for lazy in self.lazy]  # each broken rule posts its cuts
            if not any(broken):
                return True

    def _solve_once(self, assumptions: list[int], budget: Budget) -> bool:
        self._decoded = None
        left = budget.left()
        if left <= 0:
            raise SatTimeout("the time limit ran out")
        self.calls += 1
        sat = self._sat
        before = sat.accum_stats().get("propagations", 0)
        if budget.deterministic:  # the deterministic seconds left (the watchdog keeps the wall-clock deadline)
            sat.prop_budget(max(1, int((budget.seconds - budget.spent) * PROPAGATIONS_PER_SECOND)))
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

    def model(self) -> list[int]:
        """The last satisfying assignment: item v - 1 is v (true) or -v (false)."""
        return self._sat.get_model() or []

    def decode(self) -> tuple[Terrain, ...]:
        """The terrain of every cell in the last model (decoded once per model)."""
        if self._decoded is None:
            self._decoded = self._decode()
        return self._decoded

    def _decode(self) -> tuple[Terrain, ...]:
        model = self._sat.get_model()  # model[v - 1] is v or -v: one look-up per literal
        pairs = self._xpairs
        if pairs is None:
            pairs = self._xpairs = [
                [(t, 0 if v is TRUE else v) for t, v in c.items() if v is not FALSE] for c in self.x
            ]
        out = []
        for cell in pairs:
            for t, v in cell:
                if not v or model[v - 1] > 0:
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
