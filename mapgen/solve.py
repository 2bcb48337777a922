"""Deduction on partial maps (RULES.md §6): completions, forced cells, possible terrains, probabilities.

One CP-SAT model is built per (chapter, briefing) and reused: a state's revealed cells and Hill
numbers are assumptions. Completions found along the way are kept as *witnesses*, so repeated
queries on growing states (a game in progress) re-solve only what the witnesses do not settle.
Every solver call is bounded by a time limit.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import ClassVar

from ortools.sat.python import cp_model

from constraints.catalogue import Chapter, get_chapter
from constraints.cpsat import ChapterModel, make_solver
from mapgen.model import Briefing, Map
from mapgen.terrain import Terrain

ENUMERATION_CAP = 2_000  # enumerate up to this many completions before asking the model counter
WITNESS_CAP = 400


class SolveTimeout(Exception):
    """A solver call ran out of its time limit."""


class NoCompletion(Exception):
    """The state has no completion; ``rules`` and ``cells`` name a small conflicting set."""

    def __init__(self, message: str, rules: tuple[str, ...] = (), cells: tuple[str, ...] = ()):
        super().__init__(message)
        self.rules = rules
        self.cells = cells


@dataclass
class CountResult:
    count: int
    exact: bool
    method: str
    #: per unrevealed cell, completions holding each terrain (when the enumeration finished)
    tallies: dict[int, dict[Terrain, int]] | None = None


@dataclass
class _Slot:
    """A compiled model for one briefing and the completions seen for it."""

    cm: ChapterModel
    witnesses: list[tuple[Terrain, ...]] = field(default_factory=list)


class _Tally(cp_model.CpSolverSolutionCallback):
    def __init__(self, cell_vars, cells, limit, deadline):
        super().__init__()
        self.cell_vars, self.cells, self.limit, self.deadline = cell_vars, cells, limit, deadline
        self.count = 0
        self.tally = {i: {} for i in cells}
        self.samples: list[list[int]] = []

    def on_solution_callback(self):
        self.count += 1
        values = [self.value(self.cell_vars[i]) for i in self.cells]
        for i, v in zip(self.cells, values):
            d = self.tally[i]
            d[v] = d.get(v, 0) + 1
        if len(self.samples) < 64:
            self.samples.append(values)
        if self.count >= self.limit:
            self.stop_search()


class Solver:
    """Answers deduction questions about states of one chapter; cheap to query repeatedly."""

    _shared: ClassVar[dict[str, Solver]] = {}

    def __init__(self, chapter: Chapter, *, time_limit: float = 30.0):
        self.chapter = chapter
        self.time_limit = time_limit
        self._slots: OrderedDict[Briefing, _Slot] = OrderedDict()

    @classmethod
    def for_chapter(cls, name: str) -> Solver:
        """A process-wide solver for a shipped chapter (models are cached per briefing)."""
        if name not in cls._shared:
            cls._shared[name] = cls(get_chapter(name))
        return cls._shared[name]

    # -- models ------------------------------------------------------------------------------
    def slot(self, briefing: Briefing) -> _Slot:
        s = self._slots.get(briefing)
        if s is None:
            s = self._slots[briefing] = _Slot(ChapterModel(self.chapter, briefing))
            if len(self._slots) > 16:
                self._slots.popitem(last=False)
        else:
            self._slots.move_to_end(briefing)
        return s

    def _givens(self, cm: ChapterModel, state: Map) -> list:
        lits = cm.given_literals(state)
        if lits is None:
            bad = next(i for i, t in enumerate(state.cells) if t is not None and cm.lit(i, t) is None)
            t = state.cells[bad]
            raise NoCompletion(
                f"{t.label} ({t.code}) at {state.board.name(bad)} is not a terrain of this chapter (T1)",
                ("T1",),
                (state.board.name(bad),),
            )
        return lits

    def _fixed(self, slot: _Slot, state: Map) -> cp_model.CpModel:
        """A copy of the briefing's model with the state's givens fixed (cheaper to solve than assumptions)."""
        givens = self._givens(slot.cm, state)
        model = slot.cm.model.clone()
        model.add_bool_and(givens)
        return model

    def solve_model(self, model: cp_model.CpModel, deadline: float):
        """Solve a prepared copy of a briefing's model by ``deadline`` (monotonic): a solver, or None if infeasible."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise SolveTimeout("the time limit ran out")
        solver = make_solver(left, presolve=False)
        solver.parameters.linearization_level = 0
        solver.parameters.use_sat_inprocessing = False
        name = solver.status_name(solver.solve(model))
        if name in ("OPTIMAL", "FEASIBLE"):
            return solver
        if name == "INFEASIBLE":
            return None
        raise SolveTimeout("the time limit ran out")

    def _deadline(self, time_limit: float | None) -> float:
        return time.monotonic() + (self.time_limit if time_limit is None else time_limit)

    @staticmethod
    def _agrees(w, state: Map) -> bool:
        return all(t is None or t is u for t, u in zip(state.cells, w))

    def _witnesses(self, slot: _Slot, state: Map) -> list[tuple[Terrain, ...]]:
        """Stored completions that are completions of this state too (Hill numbers included)."""
        out = [w for w in slot.witnesses if self._agrees(w, state)]
        if state.hills and self.chapter.counted is not None and out:
            from constraints.rules import hill_number

            b, c = state.board, self.chapter.counted
            out = [w for w in out if all(hill_number(b, w, i, c) == n for i, n in state.hills.items())]
        return out

    def _remember(self, slot: _Slot, w: tuple[Terrain, ...]) -> None:
        slot.witnesses.append(w)
        if len(slot.witnesses) > WITNESS_CAP:
            del slot.witnesses[: WITNESS_CAP // 4]

    # -- questions ---------------------------------------------------------------------------
    def completion(self, state: Map, time_limit: float | None = None) -> tuple[Terrain, ...] | None:
        """One completion, or None when there is none."""
        slot = self.slot(state.briefing)
        known = self._witnesses(slot, state)
        if known:
            return known[0]
        solver = self.solve_model(self._fixed(slot, state), self._deadline(time_limit))
        if solver is None:
            return None
        w = slot.cm.decode(solver.boolean_value)
        self._remember(slot, w)
        return w

    def possible(self, state: Map, time_limit: float | None = None, cells=None) -> dict[int, frozenset[Terrain]]:
        """For every unrevealed cell (or just ``cells``), the terrains it holds in at least one completion.

        Raises NoCompletion when there is no completion at all.
        """
        deadline = self._deadline(time_limit)
        slot = self.slot(state.briefing)
        cm = slot.cm
        hidden = state.unrevealed() if cells is None else [i for i in cells if state.cells[i] is None]
        if not hidden:
            if self.completion(state, time_limit) is None:
                raise self.explain(state)
            return {}
        seen: dict[int, set[Terrain]] = {i: set() for i in hidden}
        for w in self._witnesses(slot, state):
            for i in hidden:
                seen[i].add(w[i])
        model = None
        while True:
            unseen = [cm.x[i][t] for i in hidden for t in cm.x[i] if cm.possible(i, t) and t not in seen[i]]
            if not unseen:
                break
            if model is None:
                model = self._fixed(slot, state)
            model.add_bool_or(unseen)  # stronger than every earlier one: older ones stay harmless
            model.clear_hints()  # lean towards an unseen terrain in every cell at once: fewer rounds
            for i in hidden:
                want = next((t for t in cm.x[i] if cm.possible(i, t) and t not in seen[i]), None)
                if want is not None:
                    model.add_hint(cm.x[i][want], True)
            solver = self.solve_model(model, deadline)
            if solver is None:
                break
            w = cm.decode(solver.boolean_value)
            self._remember(slot, w)
            for i in hidden:
                seen[i].add(w[i])
        if not seen[hidden[0]]:
            raise self.explain(state)
        return {i: frozenset(ts) for i, ts in seen.items()}

    def forced(self, state: Map, time_limit: float | None = None) -> dict[int, Terrain]:
        """Unrevealed cells with the same terrain in every completion (a shrinking-disjunction loop)."""
        deadline = self._deadline(time_limit)
        slot = self.slot(state.briefing)
        cm = slot.cm
        hidden = state.unrevealed()
        known = self._witnesses(slot, state)
        if not known:
            first = self.completion(state, deadline - time.monotonic())
            if first is None:
                raise self.explain(state)
            known = [first]
        cand = {i: known[0][i] for i in hidden}
        for w in known[1:]:
            cand = {i: t for i, t in cand.items() if w[i] is t}
        model = None
        while cand:
            if model is None:
                model = self._fixed(slot, state)
            model.add_bool_or([cm.x[i][t].Not() for i, t in cand.items()])
            model.clear_hints()  # lean away from every candidate at once: fewer rounds
            for i, t in cand.items():
                model.add_hint(cm.x[i][t], False)
            solver = self.solve_model(model, deadline)
            if solver is None:
                break
            w = cm.decode(solver.boolean_value)
            self._remember(slot, w)
            cand = {i: t for i, t in cand.items() if w[i] is t}
        return cand

    def is_unique(self, state: Map, time_limit: float | None = None) -> bool:
        """Whether the state has exactly one completion (NoCompletion if it has none).

        Two stored completions that differ settle it at once; otherwise one completion and one
        solve for another that differs from it somewhere.
        """
        deadline = self._deadline(time_limit)
        slot = self.slot(state.briefing)
        cm = slot.cm
        known = self._witnesses(slot, state)
        if len(set(known)) > 1:
            return False
        first = known[0] if known else self.completion(state, deadline - time.monotonic())
        if first is None:
            raise self.explain(state)
        hidden = state.unrevealed()
        if not hidden:
            return True
        model = self._fixed(slot, state)
        model.add_bool_or([cm.x[i][first[i]].Not() for i in hidden])
        other = self.solve_model(model, deadline)
        if other is None:
            return True
        self._remember(slot, cm.decode(other.boolean_value))
        return False

    def count(
        self, state: Map, *, limit: int = 100_000, time_limit: float | None = None, exact_counter: bool = True
    ) -> CountResult:
        """The number of completions: enumerated (CP-SAT, one worker) while small, else counted exactly
        by the projected model counter; if neither finishes, at least ``limit`` with ``exact=False``."""
        deadline = self._deadline(time_limit)
        slot = self.slot(state.briefing)
        first_cap = min(limit, ENUMERATION_CAP) if exact_counter else limit
        tally = self._enumerate(slot, state, first_cap, deadline)
        if tally.count == 0:
            raise self.explain(state)
        if tally.count < first_cap:
            return CountResult(tally.count, True, "enumeration", self._tallies(tally, state))
        if exact_counter:
            exact = self._model_count(state, deadline)
            if exact is not None:
                return CountResult(exact, True, "model counter")
        if first_cap < limit:
            tally = self._enumerate(slot, state, limit, deadline, allow_partial=True)
            if tally.count < limit and not getattr(tally, "timed_out", False):
                return CountResult(tally.count, True, "enumeration", self._tallies(tally, state))
        return CountResult(tally.count, False, "enumeration (stopped)")

    def probabilities(
        self, state: Map, *, limit: int = 100_000, time_limit: float | None = None
    ) -> tuple[dict[int, dict[Terrain, float]], bool]:
        """Per unrevealed cell, the share of completions holding each terrain, and whether it is exact.

        Exact by enumeration when the count is small, else by counting completions with each
        (cell, terrain) fixed; when time runs out, shares over the completions enumerated so far.
        """
        deadline = self._deadline(time_limit)
        result = self.count(state, limit=limit, time_limit=max(0.1, deadline - time.monotonic()))
        hidden = state.unrevealed()
        if result.tallies is not None:
            return self._shares(result.tallies, result.count), True
        try:
            possible = self.possible(state, max(0.1, deadline - time.monotonic()))
            tallies: dict[int, dict[Terrain, int]] = {}
            for i in hidden:
                tallies[i] = {}
                if len(possible[i]) == 1:
                    tallies[i][next(iter(possible[i]))] = result.count
                    continue
                for t in possible[i]:
                    sub = state.with_cells(t if k == i else c for k, c in enumerate(state.cells))
                    n = self._model_count(sub, deadline)
                    if n is None:
                        raise SolveTimeout("the model counter did not finish")
                    tallies[i][t] = n
            return self._shares(tallies, result.count), result.exact
        except SolveTimeout:
            slot = self.slot(state.briefing)
            tally = self._enumerate(slot, state, min(limit, 20_000), time.monotonic() + 5.0, allow_partial=True)
            return self._shares(self._tallies(tally, state), tally.count), False

    def target(self, state: Map, terrain: Terrain, time_limit: float | None = None) -> dict:
        """Whether the cells of ``terrain`` are the same in every completion, and if so where."""
        possible = self.possible(state, time_limit)
        b = state.board
        revealed = [i for i, t in enumerate(state.cells) if t is terrain]
        sure = [i for i, ts in possible.items() if ts == {terrain}]
        maybe = [i for i, ts in possible.items() if terrain in ts and len(ts) > 1]
        cells = sorted(revealed + sure)
        return {
            "terrain": terrain.code,
            "deduced": not maybe,
            "cells": [b.name(i) for i in cells] if not maybe else None,
            "known": [b.name(i) for i in cells],
            "undecided": [b.name(i) for i in sorted(maybe)],
        }

    # -- internals ---------------------------------------------------------------------------
    @staticmethod
    def _cell_vars(cm: ChapterModel, model: cp_model.CpModel, cells) -> dict[int, cp_model.IntVar]:
        """Per cell, an integer holding its terrain's index: one read per cell in the callback."""
        out = {}
        for i in cells:
            v = model.new_int_var(0, len(Terrain) - 1, f"terrain_{cm.board.name(i)}")
            model.add(v == sum(t.index * lit for t, lit in cm.x[i].items()))
            out[i] = v
        return out

    def _enumerate(self, slot: _Slot, state: Map, limit: int, deadline: float, allow_partial=False) -> _Tally:
        model = self._fixed(slot, state)
        cell_vars = self._cell_vars(slot.cm, model, state.unrevealed())
        left = deadline - time.monotonic()
        if left <= 0:
            raise SolveTimeout("the time limit ran out")
        tally = _Tally(cell_vars, state.unrevealed(), limit, deadline)
        solver = make_solver(left)  # measured: presolve on and no LP relaxation enumerate 8x faster
        solver.parameters.enumerate_all_solutions = True
        solver.parameters.linearization_level = 0
        name = solver.status_name(solver.solve(model, tally))
        tally.timed_out = name == "UNKNOWN" or (name == "FEASIBLE" and tally.count < limit)
        if tally.timed_out and not allow_partial:
            raise SolveTimeout(f"enumeration stopped by the time limit after {tally.count} completions")
        return tally

    def _model_count(self, state: Map, deadline: float) -> int | None:
        try:
            from constraints.cnf import count_completions_cnf
        except ImportError:
            return None
        left = deadline - time.monotonic()
        if left <= 0.05:
            return None
        try:
            return count_completions_cnf(state, time_limit=left)
        except (TimeoutError, RuntimeError, OSError, EOFError):  # timed out or the counter failed: enumerate
            return None

    @staticmethod
    def _tallies(tally: _Tally, state: Map) -> dict[int, dict[Terrain, int]]:
        by_index = list(Terrain)
        return {i: {by_index[v]: n for v, n in d.items()} for i, d in tally.tally.items()}

    @staticmethod
    def _shares(tallies: dict[int, dict[Terrain, int]], total: int) -> dict[int, dict[Terrain, float]]:
        return {i: {t: n / total for t, n in sorted(d.items(), key=lambda kv: -kv[1])} for i, d in tallies.items()}

    def explain(self, state: Map) -> NoCompletion:
        """A small set of rules and revealed cells that admit no completion together."""
        cm = ChapterModel(self.chapter, state.briefing, guarded=True)
        b = state.board
        labels: dict[int, tuple[str, str]] = {}
        assumptions = [g.literal for g in cm.guards.values()]
        for g in cm.guards.values():
            labels[g.literal.index] = ("rule", g.label)
        for i, t in enumerate(state.cells):
            if t is None:
                continue
            lit = cm.lit(i, t)
            if lit is None:
                return NoCompletion(
                    f"{t.label} ({t.code}) at {b.name(i)} is not a terrain of this chapter (T1)", ("T1",), (b.name(i),)
                )
            assumptions.append(lit)
            labels[lit.index] = ("cell", b.name(i))
        for i, n in state.hills.items():
            lit = cm.hill_shows(i, n)
            assumptions.append(lit)
            labels[lit.index] = ("cell", b.name(i))
        cm.model.add_assumptions(assumptions)
        solver = make_solver(max(5.0, self.time_limit))
        status = solver.solve(cm.model)
        if solver.status_name(status) != "INFEASIBLE":
            return NoCompletion("no completion found (the time limit ran out while looking for one)")
        core = [labels[i] for i in solver.sufficient_assumptions_for_infeasibility() if i in labels]
        rule_ids = tuple(dict.fromkeys(name for kind, name in core if kind == "rule"))
        cells = tuple(sorted(dict.fromkeys(name for kind, name in core if kind == "cell"), key=b.index))
        words = " and ".join(f"{r} {self.chapter.rule_info(r).title}" for r in rule_ids)
        shown = ", ".join(f"{c} ({state.at(c).code}{state.hills.get(b.index(c), '')})" for c in cells)
        subject = (
            (f"rule {words} conflicts" if len(rule_ids) == 1 else f"rules {words} conflict")
            if rule_ids
            else ("the revealed cells conflict")
        )
        msg = f"no completion: {subject}"
        if rule_ids:
            msg += f" with the revealed cells {shown}" if cells else " with the briefing"
        elif cells:
            msg += f": {shown}"
        return NoCompletion(msg, rule_ids, cells)
