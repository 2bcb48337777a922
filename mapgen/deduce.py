"""How a complete map deduces: a minimal reveal set, the reveal profile of a logical explorer, rule ablation."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from constraints.catalogue import Chapter, get_chapter
from constraints.cpsat import ChapterModel
from mapgen.model import Map
from mapgen.solve import Solver, SolveTimeout
from mapgen.terrain import Terrain


def _differs_from(solver: Solver, m: Map, state: Map, deadline: float, cm: ChapterModel | None = None):
    """A completion of ``state`` other than the map ``m``, or None when ``m`` is its only completion."""
    slot = solver.slot(m.briefing)
    cm = cm or slot.cm
    givens = cm.given_literals(state)
    model = cm.model.clone()
    model.add_bool_and(givens)
    model.add_bool_or([cm.x[i][m.cells[i]].Not() for i in state.unrevealed() if m.cells[i] in cm.x[i]])
    found = solver.solve_model(model, deadline)
    return None if found is None else cm.decode(found.boolean_value)


def reveal(m: Map, cells) -> Map:
    """The state showing only ``cells`` of a complete map (revealed Hills show their numbers)."""
    keep = set(cells)
    return m.hide(i for i in range(m.board.size) if i not in keep)


def minimal_reveal_set(m: Map, *, seed: int = 0, time_limit: float = 60.0, solver: Solver | None = None) -> list[int]:
    """Cells whose reveal makes the map unique; removing any one of them breaks uniqueness.

    Greedy: from the full map, drop cells one at a time (in a seeded order) while the state stays
    unique. A cell kept once stays needed later, since fewer givens never give fewer completions.
    Alternative completions found on the way are remembered and refute later drops without a solve.
    """
    solver = solver or Solver(get_chapter(m.chapter))
    deadline = time.monotonic() + time_limit
    order = list(range(m.board.size))
    random.Random(seed).shuffle(order)
    kept = set(order)
    others: list[tuple[Terrain, ...]] = []
    for i in order:
        trial = kept - {i}
        if any(all(w[j] is m.cells[j] for j in trial) and _hills_agree(m, w, trial, solver.chapter) for w in others):
            continue
        alt = _differs_from(solver, m, reveal(m, trial), deadline)
        if alt is None:
            kept = trial
        else:
            others.append(alt)
    return sorted(kept)


def _hills_agree(m: Map, w, revealed, chapter: Chapter) -> bool:
    if chapter.counted is None:
        return True
    from constraints.rules import hill_number

    return all(hill_number(m.board, w, j, chapter.counted) == n for j, n in m.hills.items() if j in revealed)


@dataclass
class Step:
    step: int
    cell: str
    terrain: str
    reason: str  # "forced" or "guess"
    count: int
    exact: bool
    forced: int
    deduced: list[str] = field(default_factory=list)  # target cells deduced by this reveal

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "cell": self.cell,
            "terrain": self.terrain,
            "reason": self.reason,
            "count": self.count,
            "exact": self.exact,
            "forced": self.forced,
            "deduced": self.deduced,
        }


def reveal_profile(
    m: Map,
    *,
    time_limit: float = 120.0,
    count_time: float = 1.0,
    count_limit: int = 2_000,
    solver: Solver | None = None,
    progress=None,
) -> dict:
    """Play the map from its start by the exploring rules with a logical explorer.

    Each new cell is orthogonally adjacent to an explored cell and never entered from a Rock. The
    explorer reveals a forced frontier cell when there is one, otherwise the frontier cell with the
    fewest possible terrains (ties: one that may hold a target, then reading order). Per step: the
    completions (exact when a count finishes within ``count_time``), the forced cells, and which
    target cells (the chapter's counted terrain) were deduced before being revealed.
    """
    chapter = get_chapter(m.chapter)
    solver = solver or Solver(chapter)
    deadline = time.monotonic() + time_limit
    b = m.board
    target = chapter.counted
    targets = set(m.cells_of(target)) if target else set()
    state = m.hide(range(b.size))
    explored: set[int] = set()
    deduced_at: dict[int, int] = {}
    revealed_at: dict[int, int] = {}
    steps: list[Step] = []
    orth = b.hood("orthogonal")
    while len(explored) < b.size:
        if time.monotonic() > deadline:
            raise SolveTimeout("the reveal profile ran out of time")
        if explored:
            frontier = sorted({j for i in explored if m.cells[i] is not Terrain.ROCK for j in orth[i]} - explored)
        else:
            frontier = sorted(set(m.start_cells()))
        if not frontier:
            break  # the rest cannot be reached (P1 broken): the profile stops here
        possible = solver.possible(state, max(0.1, deadline - time.monotonic()), cells=frontier)
        forced_now = [i for i in frontier if len(possible[i]) == 1]
        if forced_now:
            cell, reason = forced_now[0], "forced"
        else:
            cell = min(frontier, key=lambda i: (len(possible[i]), not (target in possible[i]), i))
            reason = "guess"
        explored.add(cell)
        state = reveal(m, explored)
        if cell in targets:
            revealed_at[cell] = len(steps) + 1
        try:  # the exact counter pays off once a dozen cells are known; before that counts run to 1e9+
            res = solver.count(state, limit=count_limit, time_limit=count_time, exact_counter=len(explored) >= 12)
            count, exact = res.count, res.exact
        except SolveTimeout:
            count, exact = count_limit, False
        forced = set(solver.forced(state, max(0.1, deadline - time.monotonic())))
        newly = sorted(i for i in forced & targets if i not in deduced_at)
        for i in newly:
            deduced_at[i] = len(steps) + 1
        steps.append(
            Step(
                len(steps) + 1,
                b.name(cell),
                m.cells[cell].code,
                reason,
                count,
                exact,
                len(forced),
                [b.name(i) for i in newly],
            )
        )
        if progress:
            progress(len(steps), b.size)
    events = {b.name(i): {"deduced": deduced_at.get(i), "revealed": revealed_at.get(i)} for i in sorted(targets)}
    all_known = max((min(v for v in (deduced_at.get(i), revealed_at.get(i)) if v) for i in targets), default=None)
    return {
        "steps": [s.to_json() for s in steps],
        "target": target.code if target else None,
        "targets": events,
        "all_targets_known_at": all_known,
        "unique_at": next((s.step for s in steps if s.exact and s.count == 1), None),
    }


def rule_ablation(m: Map, cells, *, time_limit: float = 60.0) -> dict[str, bool]:
    """For a unique reveal set: rule id -> True when dropping that rule breaks uniqueness."""
    chapter = get_chapter(m.chapter)
    state = reveal(m, cells)
    deadline = time.monotonic() + time_limit
    solver = Solver(chapter)
    out = {}
    for info in chapter.info:
        if info.id == "T1":  # built into the model's domains: only the chapter's terrains have variables
            continue
        rules = [r for r in chapter.rules if r.id != info.id]
        cm = ChapterModel(chapter, m.briefing, rules=rules)
        out[info.id] = _differs_from(solver, m, state, deadline, cm) is not None
    return out


def deduce_report(m: Map, *, seed: int = 0, time_limit: float = 300.0, profile: bool = True, progress=None) -> dict:
    """The designer's report on a complete map: reveal set, ablation and (optionally) reveal profile."""
    solver = Solver(get_chapter(m.chapter))
    t0 = time.monotonic()
    cells = minimal_reveal_set(m, seed=seed, time_limit=time_limit, solver=solver)
    b = m.board
    report = {
        "reveal_set": [b.name(i) for i in cells],
        "reveal_count": len(cells),
        "depends_on": sorted(k for k, v in rule_ablation(m, cells, time_limit=time_limit).items() if v),
    }
    if profile:
        left = max(1.0, time_limit - (time.monotonic() - t0))
        report["profile"] = reveal_profile(m, time_limit=left, solver=solver, progress=progress)
    return report
