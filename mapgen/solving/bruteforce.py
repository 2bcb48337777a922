"""Brute-force completions of tiny states: every assignment of the unrevealed cells, checked by ``check_map``.

This is the definition of RULES.md §6 written out with no cleverness, as the oracle that the solvers
(CP-SAT, python-constraint, the CNF counter) are cross-checked against. It tries every terrain of the
chapter on every unrevealed cell, so it is only for states with a handful of unrevealed cells.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from constraints.catalogue import Chapter, chapter_for
from mapgen.model import Map
from mapgen.terrain import Terrain

#: More unrevealed cells than this is refused: 13 terrains on 7 cells is already 6e7 maps to check.
MAX_UNKNOWN = 7


def completions_brute(state: Map, *, max_unknown: int = MAX_UNKNOWN, chapter: Chapter | None = None) -> Iterator[Map]:
    """Every completion of ``state``, in the order of the chapter's terrains, as complete maps.

    Revealed Hills keep their numbers (``check_map`` then checks them); a cell that is unrevealed in
    the state carries no number in its completions. Raises ValueError for more than ``max_unknown``
    unrevealed cells.
    """
    chapter = chapter or chapter_for(state)
    unknown = state.unrevealed()
    if len(unknown) > max_unknown:
        raise ValueError(f"brute force takes at most {max_unknown} unrevealed cells; this state has {len(unknown)}")
    cells = list(state.cells)
    for choice in itertools.product(chapter.terrains, repeat=len(unknown)):
        for i, t in zip(unknown, choice):
            cells[i] = t
        full = state.with_cells(cells)
        if not chapter.check(full):
            yield full


def count_completions_brute(
    state: Map, limit: int | None = None, *, max_unknown: int = MAX_UNKNOWN, chapter: Chapter | None = None
) -> int:
    """The number of completions of ``state``, stopping at ``limit`` when given."""
    n = 0
    for _ in completions_brute(state, max_unknown=max_unknown, chapter=chapter):
        n += 1
        if limit is not None and n >= limit:
            break
    return n


def forced_brute(state: Map, *, max_unknown: int = MAX_UNKNOWN) -> dict[int, Terrain]:
    """Unrevealed cells holding the same terrain in every completion (empty when there is none)."""
    unknown = state.unrevealed()
    seen: dict[int, set[Terrain]] = {i: set() for i in unknown}
    any_completion = False
    for full in completions_brute(state, max_unknown=max_unknown):
        any_completion = True
        for i in unknown:
            t = full.cells[i]
            assert t is not None  # a completion
            seen[i].add(t)
    if not any_completion:
        return {}
    return {i: next(iter(ts)) for i, ts in seen.items() if len(ts) == 1}
