"""The helper's Hint: the one place the web app asks for a hint.

It is ``mapgen hint``'s answer (``mapgen.solving.explain.hint``): the forced cell whose explanation needs the
fewest rules, then the fewest revealed cells, with its reason in words; when nothing is forced, the
Paths with the best odds of the target terrain.
"""

from __future__ import annotations

from mapgen.model import Map
from mapgen.solving.solve import Solver
from mapgen.terrain import Terrain


def easiest_hint(
    state: Map, *, solver: Solver | None = None, target: Terrain | None = None, time_limit: float = 5.0
) -> dict:
    """What ``mapgen hint --json`` prints: ``{"forced": true, "explanation": {"cell", "terrain", "rules",
    "cells", "text"}, "forced_cells"}``, or ``{"forced": false, "message", ...odds of target}``.

    ``target`` defaults to the chapter's counted terrain. Raises ``NoCompletion`` when the state has no
    completion and ``SolveTimeout`` when the forced cells cannot be found in time.
    """
    from mapgen.solving.explain import hint

    solver = solver or Solver.for_chapter(state.chapter)
    return hint(solver, state, target if target is not None else solver.chapter.counted, time_limit=time_limit)
