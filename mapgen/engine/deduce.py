"""The deducer bot's deduction: which terrains each reachable cell can still hold.

``FrontierPossible`` asks exactly what ``mapgen.solve.Solver.possible`` answers (the terrains a
cell holds in at least one completion of the revealed state, under every rule of the chapter),
but only for the cells the bot may explore next: CP-SAT on the chapter's compiled model
(``constraints.cpsat.ChapterModel``), completions kept as witnesses between turns, one growing
disjunction of the (cell, terrain) pairs not yet witnessed. Far fewer and easier solves than for
every unrevealed cell. ``SolverPossible`` is the solve API itself, for comparison.
"""

from __future__ import annotations

import time

from constraints.catalogue import get_chapter
from constraints.cpsat import ChapterModel, make_solver
from constraints.rules import hill_number
from mapgen.model import Map
from mapgen.terrain import Terrain

WITNESS_CAP = 400
WALL_FACTOR = 200.0


class FrontierPossible:
    """Possible terrains of chosen unrevealed cells, exact, bounded per question.

    The bound is CP-SAT's *deterministic* time (``max_deterministic_time``, one worker), so the same
    question gets the same answer on a busy machine as on an idle one: playtests stay reproducible.
    A wall-clock limit (``WALL_FACTOR`` times longer) is only a safety net. ``spent`` adds up the
    deterministic time used. Use one ``session`` per game: completions are reused between its
    questions, and no other game changes its answers.
    """

    def __init__(self, chapter: str, time_limit: float = 0.05):
        self.chapter = get_chapter(chapter)
        self.time_limit = time_limit
        self.timeouts = 0
        self.calls = 0
        self.spent = 0.0
        self._slots: dict = {}

    def _slot(self, state: Map):
        slot = self._slots.get(state.briefing)
        if slot is None:
            if len(self._slots) > 8:
                self._slots.clear()
            slot = self._slots[state.briefing] = (ChapterModel(self.chapter, state.briefing), [])
        return slot

    def _agrees(self, w, state: Map) -> bool:
        if any(t is not None and t is not u for t, u in zip(state.cells, w)):
            return False
        c = self.chapter.counted
        return c is None or all(hill_number(state.board, w, i, c) == n for i, n in state.hills.items())

    def session(self, state: Map) -> tuple[ChapterModel, list]:
        """A private copy of the briefing's model and an empty witness list, for one game.

        Questions in one game then never depend on other games (Hill literals are added to the
        model as Hills are seen), so a game's answers are the same however games are spread
        over processes.
        """
        cm, _ = self._slot(state)
        new = object.__new__(ChapterModel)
        new.__dict__.update(cm.__dict__)
        new.model = cm.model.clone()
        new.guards = dict(cm.guards)
        new._hill_count = dict(cm._hill_count)
        new._hill_lits = dict(cm._hill_lits)
        return new, []

    def possible(
        self, state: Map, cells, time_limit: float | None = None, session=None
    ) -> dict[int, frozenset[Terrain]]:
        """{cell: terrains it can hold} for the given unrevealed cells; {} when time runs out.

        ``session`` (from ``session()``) keeps one game's questions apart from every other game's.
        """
        self.calls += 1
        cm, witnesses = session if session is not None else self._slot(state)
        lits = cm.given_literals(state)  # may add Hill literals to the model: before cloning it
        if lits is None:
            return {}
        cells = [i for i in cells if state.cells[i] is None]
        seen: dict[int, set[Terrain]] = {i: set() for i in cells}
        for w in witnesses:
            if self._agrees(w, state):
                for i in cells:
                    seen[i].add(w[i])
        budget = self.time_limit if time_limit is None else time_limit
        deadline = time.monotonic() + WALL_FACTOR * budget
        model = None
        while True:
            unseen = [cm.x[i][t] for i in cells for t in cm.x[i] if cm.possible(i, t) and t not in seen[i]]
            if not unseen:
                break
            if model is None:
                model = cm.model.clone()
                model.add_bool_and(lits)
            model.add_bool_or(unseen)
            left = deadline - time.monotonic()
            if left <= 0 or budget <= 0:
                self.timeouts += 1
                return {}
            solver = make_solver(left, presolve=False)
            solver.parameters.linearization_level = 0
            solver.parameters.max_deterministic_time = budget
            status = solver.status_name(solver.solve(model))
            used = solver.deterministic_time
            used = used() if callable(used) else used
            budget -= used
            self.spent += used
            if status == "INFEASIBLE":
                break
            if status not in ("OPTIMAL", "FEASIBLE"):
                self.timeouts += 1
                return {}
            w = cm.decode(solver.boolean_value)
            witnesses.append(w)
            if len(witnesses) > WITNESS_CAP:
                del witnesses[: WITNESS_CAP // 4]
            for i in cells:
                seen[i].add(w[i])
        return {i: frozenset(ts) for i, ts in seen.items() if ts}


class SolverPossible:
    """``mapgen.solve.Solver.possible`` for every unrevealed cell (slower: kept for comparison)."""

    def __init__(self, chapter: str, time_limit: float = 1.0):
        from mapgen.solve import Solver

        self.solver = Solver.for_chapter(chapter)
        self.time_limit = time_limit
        self.timeouts = 0
        self.calls = 0

    def possible(self, state: Map, cells=None, time_limit: float | None = None) -> dict[int, frozenset[Terrain]]:
        from mapgen.solve import NoCompletion, SolveTimeout

        self.calls += 1
        try:
            return self.solver.possible(state, time_limit=self.time_limit if time_limit is None else time_limit)
        except SolveTimeout:
            self.timeouts += 1
            return {}
        except NoCompletion:  # cannot happen on a valid map; play on the heuristic's guesses
            return {}


_CACHE: dict[str, FrontierPossible] = {}


def solver_for(chapter: str) -> FrontierPossible:
    """One per chapter and process (one compiled model per briefing, with its witnesses)."""
    if chapter not in _CACHE:
        _CACHE[chapter] = FrontierPossible(chapter)
    return _CACHE[chapter]
