"""The helper's Hint: one forced cell that is easy to see, with its reason in words.

This is the one place the web app asks for a hint. Today it uses ``Solver``: among the forced cells it
prefers one forced by the fewest revealed cells close to it (tried within one step, then two), thinned
to a subset-minimal set of those cells; when none is forced locally it names the cell forced by the whole
state. When the deduction library's explanations land, swap the body of ``easiest_hint`` for them.
"""

from __future__ import annotations

import time

from mapgen.model import Map
from mapgen.solve import Solver, SolveTimeout


def _near(state: Map, i: int, radius: int) -> list[int]:
    b = state.board
    r0, c0 = b.rc(i)
    return [j for j, t in enumerate(state.cells) if t is not None and max(abs(b.rc(j)[0] - r0), abs(b.rc(j)[1] - c0)) <= radius]


def _only(state: Map, keep: list[int]) -> Map:
    keep_set = set(keep)
    return state.hide(j for j in range(state.board.size) if j not in keep_set)


def _forced_by(solver: Solver, state: Map, cells: list[int], i: int, t, deadline: float, others: list) -> bool:
    """Whether the revealed ``cells`` alone (with the rules and the briefing) force terrain t at cell i.

    One solve: the rules, those cells and "i is not t". Completions found on the way go into ``others``
    and refute later questions without a solve.
    """
    from constraints.rules import hill_number

    b, counted = state.board, solver.chapter.counted
    for w in others:
        if w[i] is not t and all(w[j] is state.cells[j] for j in cells) and (
            counted is None or all(hill_number(b, w, j, counted) == n for j, n in state.hills.items() if j in cells)
        ):
            return False
    cm = solver.slot(state.briefing).cm
    lits = cm.given_literals(_only(state, cells))
    not_t = cm.lit(i, t)
    if lits is None or not_t is None:
        return False
    model = cm.model.clone()
    model.add_bool_and([*lits, not_t.Not()])
    found = solver.solve_model(model, deadline)
    if found is None:
        return True
    others.append(cm.decode(found.boolean_value))
    return False


def easiest_hint(state: Map, *, solver: Solver | None = None, time_limit: float = 5.0) -> dict:
    """``{"hint": {"cell", "terrain", "label", "cells", "rules", "reason"} or None, "forced": {...}, "message"}``.

    Raises ``NoCompletion`` when the state has no completion and ``SolveTimeout`` when even the forced
    cells cannot be found within the time limit.
    """
    solver = solver or Solver.for_chapter(state.chapter)
    deadline = time.monotonic() + time_limit
    b = state.board
    forced = solver.forced(state, time_limit=time_limit)
    names = {b.name(i): t.code for i, t in sorted(forced.items())}
    if not forced:
        return {"hint": None, "forced": names, "message": "nothing is forced yet: reveal another Path"}
    br = state.briefing
    given = {i: why for i, why in ((br.peak, "it is the briefing's Peak"), (br.start, "it is the briefing's start Fort"))
             if i is not None and i in forced}
    others = {i: t for i, t in forced.items() if i not in given}
    if not others:  # only what the briefing already says
        i = min(given)
        return _answer(state, names, i, forced[i], [], given[i])
    seen: list = []  # completions met on the way: each refutes later questions at once
    try:
        for radius in (1, 2):
            ranked = sorted(others, key=lambda i: (len(_near(state, i, radius)), i))
            for i in ranked:
                near = _near(state, i, radius)
                if not near or time.monotonic() > deadline:
                    continue
                if _forced_by(solver, state, near, i, forced[i], deadline, seen):
                    kept = _thin(solver, state, near, i, forced[i], deadline, seen)
                    return _answer(state, names, i, forced[i], kept, "")
    except SolveTimeout:
        pass
    i = min(others)
    return _answer(state, names, i, forced[i], None, "")


def _thin(solver: Solver, state: Map, cells: list[int], i: int, t, deadline: float, others: list) -> list[int]:
    """Drop revealed cells one by one while the rest still force t at i (a subset-minimal set)."""
    kept = list(cells)
    for j in list(cells):
        if time.monotonic() > deadline:
            break
        trial = [k for k in kept if k != j]
        try:
            if _forced_by(solver, state, trial, i, t, deadline, others):
                kept = trial
        except SolveTimeout:
            break
    return kept


def _answer(state: Map, names: dict, i: int, t, cells: list[int] | None, because: str) -> dict:
    b = state.board

    def shown(j: int) -> str:
        return f"{b.name(j)} ({state.cells[j].code}{state.hills.get(j, '')})"

    cell = b.name(i)
    if because:
        reason = f"{cell} must be {t.label}: {because}."
    elif cells is None:
        reason = f"{cell} is forced to {t.label} by everything revealed so far."
    elif len(cells) == 1:
        reason = f"{cell} must be {t.label}: the revealed {shown(cells[0])} leaves nothing else under the rules."
    else:
        reason = (f"{cell} must be {t.label}: the revealed " + ", ".join(shown(j) for j in cells[:-1])
                  + f" and {shown(cells[-1])} leave nothing else under the rules.")
    hint = {"cell": cell, "terrain": t.code, "label": t.label,
            "cells": None if cells is None else [b.name(j) for j in cells], "rules": None, "reason": reason}
    return {"hint": hint, "forced": names, "message": reason}
