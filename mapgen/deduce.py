"""How a complete map deduces: a minimal reveal set, rule ablation, the logical solve path (reveal
profile) and its deduction grade."""

from __future__ import annotations

import math
import random
import time
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from constraints.catalogue import Chapter, as_chapter, get_chapter
from mapgen.deduce_text import TIERS
from mapgen.errors import UnmetError
from mapgen.model import Map, expect_map
from mapgen.solving.explain import explain_cell
from mapgen.solving.sat import Budget, check_time_limit
from mapgen.solving.solve import CircuitStore, Solver, SolveTimeout, agrees, compile_from
from mapgen.terrain import Terrain


def reveal(m: Map, cells) -> Map:
    """The state showing only ``cells`` of a complete map (revealed Hills show their numbers)."""
    keep = set(cells)
    return m.hide(i for i in range(m.board.size) if i not in keep)


def puzzle_of(m: Map, reveal_set) -> Map:
    """The pencil-and-paper puzzle of a complete map, as ``mapgen deduce --puzzle`` writes it (and the studio's
    deduce job gives it): only ``reveal_set`` (cell names, ``deduce_report``'s) revealed, revealed Hills with their
    numbers. The map's ``[grade]`` stays with the map: its flags name hidden cells ("B7 is a Skull"), a spoiler here;
    so do its ``[generator]`` seed and profile (``mapgen generate --seed`` makes the answer again). Of that table the
    puzzle keeps only the house rules it is under (``RULES_KEYS``): the rules to solve it by."""
    from mapgen.generate import RULES_KEYS  # deferred: the generator's module, only where a puzzle is made

    puzzle = reveal(m, [m.board.index(c) for c in reveal_set]).without_grade()
    rules = {k: v for k, v in (m.meta.get("generator") or {}).items() if k in RULES_KEYS}
    meta = {k: v for k, v in puzzle.meta.items() if k != "generator"}
    return replace(puzzle, meta={**meta, "generator": rules} if rules else meta)


def minimal_reveal_set(
    m: Map,
    *,
    seed: int = 0,
    time_limit: float = 60.0,
    solver: Solver | None = None,
    within: list[int] | None = None,
    chapter: Chapter | None = None,
) -> list[int]:
    """Cells whose reveal makes the map unique; removing any one of them breaks uniqueness.

    Greedy: from the full map, drop cells one at a time (in a seeded order) while the state stays
    unique. A cell kept once stays needed later, since fewer givens never give fewer completions.
    Alternative completions found on the way are remembered and refute later drops without a solve.
    ``within``: start from these cells instead of the full map (a puzzle's givens, whose reveal must leave
    ``m`` the only map); the set is then a subset of them. ``chapter``: the rules asked under (house rules,
    ``constraints.catalogue.load_chapter``; default: the map's chapter, or ``solver``'s).
    """
    expect_map(m, "minimal_reveal_set", complete=True)
    check_time_limit(time_limit, "minimal_reveal_set")
    solver = solver or Solver(chapter or get_chapter(m.chapter))
    budget = solver.budget(time_limit)
    order = list(range(m.board.size)) if within is None else sorted(set(within))
    random.Random(seed).shuffle(order)
    kept = set(order)
    others: list[tuple[Terrain, ...]] = []
    for i in order:
        trial = reveal(m, kept - {i})
        if any(agrees(solver.chapter, w, trial) for w in others):
            continue
        alt = solver.other_completion(trial, m.cells, budget)
        if alt is None:
            kept.discard(i)
        else:
            others.append(alt)
    return sorted(kept)


def sole_completion(state: Map, *, time_limit: float = 60.0, chapter: Chapter | None = None) -> Map:
    """The one map a partial map (a hand-made puzzle) leaves, every Hill numbered: the map ``deduce_report``
    trims the puzzle's givens on (``within=`` its revealed cells). NoCompletion (exit 1) names the rules and
    cells in conflict when there is none; PuzzleNotUnique (exit 1) when there are more than one. ``chapter``: the
    rules it is solved under (default: the map's chapter)."""
    from constraints.catalogue import with_hill_numbers  # deferred: beside the solver, only when asked

    check_time_limit(time_limit, "sole_completion")
    chapter = chapter or get_chapter(state.chapter)
    solver = Solver(chapter)
    budget = solver.budget(time_limit)
    found = solver.completion(state, budget)
    if found is None:
        raise solver.explain(state)
    if solver.other_completion(state, found, budget) is not None:
        raise PuzzleNotUnique(
            "a partial map with more than one completion (`mapgen solve` counts them): only a puzzle whose "
            "givens leave one map can be trimmed"
        )
    return with_hill_numbers(state.with_cells(found, hills={}), chapter).without_grade()


class PuzzleNotUnique(UnmetError, ValueError):
    """A partial map given to be trimmed that leaves more maps than one: exit 1."""


@dataclass
class Step:
    """One step of the reveal profile: the ``cell`` revealed and its ``terrain``, ``reason`` "forced" (deduced) or
    "guess" (a Hill's terrain, its number shown by the reveal: ``hill``), the ``count`` of completions left (``exact``, else ``estimate``'s proven bounds), the ``forced`` cells,
    the targets ``deduced`` by this reveal and, for a forced step, its ``explanation``."""

    step: int
    cell: str
    terrain: str
    reason: str  # "forced" or "guess"
    count: int
    exact: bool
    forced: int
    deduced: list[str] = field(default_factory=list)  # target cells deduced by this reveal
    estimate: dict | None = None  # when the count is not exact: proven low and high
    explanation: dict | None = None  # for a forced step: why (rules, cells, text)
    hill: int | None = None  # a Hill revealed: the number it shows (RULES.md §6)

    def to_json(self) -> dict:
        out = {
            "step": self.step,
            "cell": self.cell,
            "terrain": self.terrain,
            "reason": self.reason,
            "count": self.count,
            "exact": self.exact,
            "forced": self.forced,
            "deduced": self.deduced,
        }
        if self.estimate is not None:
            out["estimate"] = self.estimate
        if self.explanation is not None:
            out["explanation"] = self.explanation
        if self.hill is not None:
            out["hill"] = self.hill
        return out


#: The deterministic budget of a reveal profile (SAT propagations, ``mapgen.solving.sat``): the path and
#: its explanations (what the grade reads) are the same on any machine, however busy; the wall-clock time
#: limit only ends the work (SolveTimeout).
PROFILE_BUDGET = 600.0


#: The CPU seconds one compile of a profile's state may take (from ``solve.compile_from(chapter)`` revealed
#: cells on, when no cached circuit answers it): the states tried are those ``COMPILE_EVERY`` reveals apart
#: from there, and those where a Hill is newly shown. The counts before the first circuit are proven bounds
#: (never part of the grade).
COMPILE_CPU = 3.0
COMPILE_EVERY = 6
#: Going back, a state whose circuit has more edges than this is the last tried: the state before it would
#: most likely not compile within ``COMPILE_CPU``, and trying costs that whole budget. Measured on the 24
#: shipped Flora, Vameter and Maldonado maps, going back without this stop: of the 21 states that did not
#: compile, 16 came after a circuit of more edges (31,605 to 363,601), saving 2.8 CPU s each; of the 12 that
#: did after a circuit of more than 5,000 edges, one came after more (vameter-7, 62,685 edges, one reveal
#: back, where a Hill was shown), so its first exact count moves one step later. Circuits are deterministic
#: (d4 on the same CNF): where the first exact count falls does not move with the machine.
COMPILE_STOP_EDGES = 30_000


class _StepCounter:
    """The profile's counts: exact from a compiled circuit, else proven bounds.

    While the path is played, only a cached circuit answers (``note``). Once it is known (the counts never
    change the path), ``settle`` compiles states of it from the last back to the first: a state with more
    reveals compiles much faster (about 20 times per 4 reveals), so going backwards costs about one compile
    of the earliest state that compiles plus one that does not, where going forwards cost one budget per
    state that did not. The earliest circuit, conditioned, then answers every later step (a Hill number it
    lacks is summed over its placements). A compile's budget is CPU seconds, so where the first exact count
    falls is the same under any load (the wall clock passing ends the profile: SolveTimeout). It uses its own
    solver, so the path's solver (and so the grade) never depends on what was cached."""

    def __init__(self, chapter, solver: Solver | None = None):
        self.solver = solver or Solver(chapter)
        self.start = compile_from(chapter)
        self.states: list[Map] = []

    def note(self, state: Map, possible, forced, sat):
        """The step's count as the path reaches it: exact from a circuit at hand, else proven bounds."""
        self.states.append(state)
        c = self.solver.circuit(state, 0.0)
        if c is not None:
            return c.count(state), True, None
        high = math.prod(
            1
            if i in forced
            else len(possible[i])
            if i in possible
            else sum(sat.lit(i, t) is not None for t in sat.x[i])
            for i in state.unrevealed()
        )
        return 1, False, {"method": "bounds", "value": 1, "low": 1, "high": high, "confidence": 1.0}

    def _circuit(self, state: Map, deadline: float):
        """A circuit at hand (cached, or compiled for a later step; asked with no budget first, so a large one
        is not compiled again for this state), else ``state`` compiled within ``COMPILE_CPU``."""
        return self.solver.circuit(state, 0.0) or self.solver.circuit(state, COMPILE_CPU, deadline=deadline)

    def settle(self, steps: list[Step], deadline: float) -> None:
        """Exact counts for the steps from the earliest state that compiles within ``COMPILE_CPU`` on."""
        tries, hills = [], None
        for k, state in enumerate(self.states):
            revealed = sum(t is not None for t in state.cells)
            new_hill = state.hills != hills
            hills = state.hills
            if revealed >= self.start and ((revealed - self.start) % COMPILE_EVERY == 0 or new_hill):
                tries.append(k)
        first = None
        for k in reversed(tries):
            state = self.states[k]
            # a step a cached circuit answered costs no compile; if that circuit was compiled for this very state
            # (by an earlier run of this walk), its size stops the walk as it did then: else a map deduced again
            # went on past where its first run had stopped and spent the budget on a state that does not compile
            exact = steps[k].exact
            c = self.solver.circuit(state, 0.0) if exact else self._circuit(state, deadline)
            if c is None and not exact:
                break
            first = k
            own = c is not None and (not exact or c.base.cells == state.cells)
            if own and c.stats.edges > COMPILE_STOP_EDGES:
                break  # the next state back would not compile within the budget
        if first is None:
            return
        for k in range(first, len(steps)):
            if steps[k].exact:
                continue
            state = self.states[k]
            c = self._circuit(state, deadline)
            if c is not None:
                steps[k].count, steps[k].exact, steps[k].estimate = c.count(state), True, None


def reveal_profile(
    m: Map,
    *,
    time_limit: float = 120.0,
    solver: Solver | None = None,
    counter: Solver | None = None,
    progress=None,
    explain: bool = True,
    chapter: Chapter | None = None,
) -> dict:
    """The logical solve path: play the map from its start by the exploring rules, like a careful player.

    Each new cell is orthogonally adjacent to an explored cell and never entered from a Rock. The
    explorer reveals a forced frontier cell when there is one, the one with the easiest explanation
    (fewest rules, then fewest cells: ``mapgen.solving.explain``), otherwise it guesses: the frontier cell
    with the fewest possible terrains (ties: one that may hold a target, then reading order). Per
    step: the completions (exact from a compiled circuit, ``_StepCounter``; before the first one, proven
    bounds, tightened afterwards since a count never grows as cells are revealed), the forced cells, the explanation
    of a forced step (until every target is known, or with no target the map is unique: what the
    grade reads), and which target cells (the chapter's counted terrain) were deduced before
    being revealed.

    The path runs on a fresh deterministic solver (``PROFILE_BUDGET``), never on one that answered other
    questions before, so a map gets the same path, explanations and grade from every command and under
    any load; ``time_limit`` wall-clock seconds only end the work (SolveTimeout). ``chapter``: the rules played
    under (house rules; default: ``solver``'s, else the map's chapter).
    """
    expect_map(m, "reveal_profile", complete=True)
    check_time_limit(time_limit, "reveal_profile")
    chapter = chapter or (solver.chapter if solver is not None else get_chapter(m.chapter))
    if solver is None:
        solver = Solver(chapter, deterministic=True, circuits=CircuitStore(None, compiles=False))
    budget = Budget(PROFILE_BUDGET, True)
    budget.deadline = time.monotonic() + time_limit
    counts = _StepCounter(chapter, counter)
    b = m.board
    target = chapter.counted
    targets = set(m.cells_of(target)) if target else set()
    state = m.hide(range(b.size))
    explored: set[int] = set()
    deduced_at: dict[int, int] = {}
    revealed_at: dict[int, int] = {}
    steps: list[Step] = []
    orth = b.hood("orthogonal")
    possible: dict = {}
    forced: dict = solver.forced(state, budget)
    while len(explored) < b.size:
        if budget.left() <= 0:
            raise SolveTimeout("the reveal profile ran out of time")
        if explored:
            front = sorted({j for i in explored if m.cells[i] is not Terrain.ROCK for j in orth[i]} - explored)
        else:
            front = sorted(set(m.start_cells()))
        if not front:
            break  # the rest cannot be reached (P1 broken): the profile stops here
        forced_now = [i for i in front if i in forced]
        why = None
        settled = (targets <= set(deduced_at) | set(revealed_at)) if targets else len(forced) == b.size - len(explored)
        if forced_now:
            reason = "forced"
            if explain and not settled:  # the grade reads explanations up to here; later ones cost time only
                found = []
                for i in forced_now[:2]:
                    e = explain_cell(solver, state, i, forced[i], budget, thorough=False)
                    if e is not None:
                        found.append(e)
                        if e.size <= 1:
                            break
                best = min(found, key=lambda e: e.key())
                cell, why = best.cell, best.to_json(b)
            else:
                cell = forced_now[0]
        else:
            possible = solver.possible(state, budget, cells=front)
            cell = min(front, key=lambda i: (len(possible[i]), not (target in possible[i]), i))
            reason = "guess"
        explored.add(cell)
        state = reveal(m, explored)
        if cell in targets:
            revealed_at[cell] = len(steps) + 1
        forced = solver.forced(state, budget) if len(explored) < b.size else {}
        count, exact, estimate = counts.note(state, possible, forced, solver.slot(state.briefing).sat)
        newly = sorted(i for i in set(forced) & targets if i not in deduced_at)
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
                estimate,
                why,
                m.hills.get(cell),
            )
        )
        if progress:
            progress(len(steps), b.size)
    counts.settle(steps, budget.deadline)
    _tighten(steps)
    events = {b.name(i): {"deduced": deduced_at.get(i), "revealed": revealed_at.get(i)} for i in sorted(targets)}
    all_known = max((min(v for v in (deduced_at.get(i), revealed_at.get(i)) if v) for i in targets), default=None)
    return {
        "steps": [s.to_json() for s in steps],
        "target": target.code if target else None,
        "targets": events,
        "all_targets_known_at": all_known,
        "unique_at": next((s.step for s in steps if s.exact and s.count == 1), None),
    }


def _tighten(steps: list[Step]) -> None:
    """Counts never grow along the path: a later count bounds an earlier one from below, an earlier
    bound bounds a later one from above (both proven)."""
    later_low = 1
    for s in reversed(steps):
        low = s.count if s.exact else s.estimate["low"]
        later_low = max(later_low, low)
        if not s.exact:
            s.estimate["low"] = s.estimate["value"] = s.count = later_low
    high = None
    for s in steps:
        if s.exact:
            high = s.count
        else:
            if high is not None:
                s.estimate["high"] = min(s.estimate["high"], high)
            high = s.estimate["high"]
            if s.estimate["low"] >= s.estimate["high"]:
                s.count, s.exact, s.estimate = s.estimate["high"], True, None


# The deduction tiers (``TIERS``, easiest first) are ``mapgen.deduce_text``'s; the thresholds per chapter live in
# ``grade_thresholds``.


def grade(profile: dict, chapter: str) -> dict:
    """The deduction grade of a map from its logical solve path (see ``grade_thresholds``).

    ``guesses``: guesses made before every target is known (Training: before the map is unique);
    ``largest_reason``: the largest explanation (rules + cells) any forced step up to then needed;
    ``deduced_share``: the share of those steps that were deductions rather than guesses.
    """
    steps = profile["steps"]
    end = profile.get("all_targets_known_at") or profile.get("unique_at") or len(steps)
    used = steps[:end]
    guesses = sum(s["reason"] == "guess" for s in used)
    sizes = [len(s["explanation"]["rules"]) + len(s["explanation"]["cells"]) for s in used if s.get("explanation")]
    largest = max(sizes, default=0)
    share = round(sum(s["reason"] == "forced" for s in used) / max(1, len(used)), 3)
    score = difficulty_score(guesses, largest, share)
    cuts = grade_thresholds(chapter)
    tier = TIERS[sum(score > c for c in cuts)]
    return {
        "tier": tier,
        "guesses": guesses,
        "largest_reason": largest,
        "deduced_share": share,
        "score": round(score, 2),
        "steps": end,
    }


def difficulty_score(guesses: int, largest_reason: int, deduced_share: float) -> float:
    """One number per path, higher is harder: each guess counts 1, each cited rule or cell of the
    largest explanation 0.25, and a path guessed rather than deduced throughout 2 more (a short path
    makes the share noisy, so it weighs least)."""
    return guesses + 0.25 * largest_reason + 2 * (1 - deduced_share)


def grade_thresholds(chapter: str) -> tuple[float, float, float]:
    """Score cuts between Gentle|Moderate|Tricky|Fiendish for a chapter (``mapgen/grades.toml``:
    the quartiles of the scores of generated maps, see ``bench/calibrate_grade.py``)."""
    data = tomllib.loads((Path(__file__).parent / "grades.toml").read_text(encoding="utf-8"))
    cuts = data["thresholds"].get(chapter) or data["thresholds"]["default"]
    return tuple(cuts)


def rule_ablation(
    m: Map, cells, *, time_limit: float = 60.0, solver: Solver | None = None, chapter: Chapter | None = None
) -> dict[str, bool]:
    """For a unique reveal set: rule id -> True when dropping that rule breaks uniqueness (under ``chapter``,
    default ``solver``'s, else the map's chapter)."""
    chapter = chapter or (solver.chapter if solver is not None else get_chapter(m.chapter))
    solver = solver or Solver(chapter)
    state = reveal(m, cells)
    budget = solver.budget(time_limit)
    switched = solver.slot(m.briefing).sat.rules
    out = {}
    for info in chapter.info:
        if info.id == "T1":  # built into the model's domains: only the chapter's terrains have variables
            continue
        rules = [r for r in switched if r != info.id]
        out[info.id] = solver.other_completion(state, m.cells, budget, rules=rules) is not None
    return out


def deduce_report(
    m: Map,
    *,
    seed: int = 0,
    time_limit: float = 300.0,
    profile: bool = True,
    progress=None,
    circuits: CircuitStore | None = None,
    within: list[int] | None = None,
    chapter: Chapter | str | None = None,
    partial: bool = False,
) -> dict:
    """The designer's report on a complete map: reveal set, ablation and (optionally) the reveal
    profile with its deduction grade; one solver session serves them all. ``circuits``: the compiled
    circuits its questions and the profile's counts use (default: the process's store over the user's cache).
    ``within``: the reveal set is a subset of these cells (a puzzle's givens: see ``sole_completion``).
    ``chapter``: the rules everything is asked under (house rules, ``constraints.catalogue.load_chapter``; default:
    the map's chapter). The grade's tier cuts are calibrated on the shipped chapter's generated maps only: under
    house rules the grade says so (``calibrated_on``: the shipped chapter whose cuts placed it).

    Returns a dict: ``reveal_set`` (cell names), ``reveal_count``, ``depends_on`` (rule ids) and, with ``profile``,
    ``profile`` (``reveal_profile``'s dict, its ``steps`` each a ``Step.to_json()``) and ``grade`` (a dict).
    WrongMapError for a partial map (a puzzle: ``sole_completion`` first), TypeError for what is not a Map,
    SolveTimeout past ``time_limit``. With ``partial``, a time-out after the reveal set was found (all a puzzle needs)
    returns what was found instead, with ``"timed_out"`` (the message) and ``"missing"`` (the keys that did not come:
    ``depends_on``, ``profile``, ``grade``), as ``mapgen.report.solve_report`` keeps its exact answers."""
    expect_map(m, "deduce_report", complete=True)
    check_time_limit(time_limit, "deduce_report")
    shipped = get_chapter(m.chapter)
    chapter = shipped if chapter is None else as_chapter(chapter, "deduce_report")
    solver = Solver(chapter, circuits=circuits)
    t0 = time.monotonic()
    cells = minimal_reveal_set(m, seed=seed, time_limit=time_limit, solver=solver, within=within)
    b = m.board
    report: dict = {"reveal_set": [b.name(i) for i in cells], "reveal_count": len(cells)}
    later = ["depends_on", *(["profile", "grade"] if profile else [])]  # what a time-out from here leaves missing
    try:
        ablation = rule_ablation(m, cells, time_limit=time_limit, solver=solver)
        report["depends_on"] = sorted(k for k, v in ablation.items() if v)
        later.remove("depends_on")
        if profile:
            left = max(1.0, time_limit - (time.monotonic() - t0))
            counter = None if circuits is None else Solver(chapter, circuits=circuits)
            report["profile"] = reveal_profile(m, time_limit=left, counter=counter, progress=progress, chapter=chapter)
    except SolveTimeout as e:
        if not partial:
            raise
        return {**report, "timed_out": str(e), "missing": later}
    if profile:
        report["grade"] = grade(report["profile"], m.chapter)
        if chapter != shipped:  # the score is the house rules' path; its tier, shipped maps' quartiles of scores
            report["grade"]["calibrated_on"] = m.chapter
    return report
