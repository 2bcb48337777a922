"""The deducer bot's link to the solve API: each unrevealed cell's possible terrains, with a time limit."""

from __future__ import annotations


class PossibleTerrains:
    """``possible(map)`` from ``mapgen.solve.Solver``, bounded in time; {} when the solver gives up."""

    def __init__(self, chapter: str, time_limit: float = 1.0):
        from mapgen.solve import Solver

        self.solver = Solver.for_chapter(chapter)
        self.time_limit = time_limit
        self.timeouts = 0

    def possible(self, state_map):
        from mapgen.solve import NoCompletion, SolveTimeout

        try:
            return self.solver.possible(state_map, time_limit=self.time_limit)
        except SolveTimeout:
            self.timeouts += 1
            return {}
        except NoCompletion:  # cannot happen on a valid map; play on the heuristic's guesses
            return {}


_CACHE: dict[str, PossibleTerrains] = {}


def solver_for(chapter: str) -> PossibleTerrains:
    """One per chapter and process (the solver caches one model per briefing)."""
    if chapter not in _CACHE:
        _CACHE[chapter] = PossibleTerrains(chapter)
    return _CACHE[chapter]
