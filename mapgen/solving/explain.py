"""Why a cell is forced: subset-minimal explanations (RULES.md §6), their words, and hints.

An explanation of a forced cell X = t is a set R of rule ids and a set C of revealed cells such that
every board keeping the rules of R, the terrains of C and the briefing holds t at X. It is found
on the solver's guarded SAT session (``mapgen.solving.sat``): every rule and every revealed cell is an
assumption, "X is not t" is one more, and the answer is unsatisfiable exactly when the
assumptions force X = t. From the solver's core:

1. fewest rules: no rule, every single rule, pairs of rules (every pair on a chapter of at most
   8 switchable rules, else the pairs holding a rule of the first core) and triples of the core's
   rules (when it has at most 6) are tried with all revealed cells; the first size that forces X
   wins, the subset whose core cites fewest cells among them; past that, deletion (drop each rule
   while X stays forced);
2. fewest cells: deletion over the cells of the last core, farthest from X first, each refuted
   drop shrinking the set to the new core.

Every rule and cell left is needed (dropping it un-forces X): subset-minimal. Fewer rules are
never possible with more cells, since more cells only remove boards.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass

from mapgen.model import Map
from mapgen.solving.sat import Budget, SatTimeout, SolveTimeout, check_time_limit
from mapgen.solving.unigen import (
    NO_ODDS,
    ODDS_EXACT,
    ODDS_NONE,
    ODDS_SAMPLER,
    ODDS_UNIGEN,
    SAMPLE_SECONDS,
    known_chance,
    share_words,
)
from mapgen.terrain import Terrain, listed

#: Rule subsets up to this size are searched exhaustively for the fewest rules (3 when the core is small).
SUBSET_SIZE = 2
#: Boards kept per rule subset while the easiest explanation of a state is searched (``_Reason.level``).
MODELS_KEPT = 8
#: The end of a hint's words when a guess is needed (no cell is forced, or only those the briefing decides)
MUST_GUESS = "you must guess"
#: A hint's words when no cell is forced at all
NO_FORCED = f"no cell is forced: {MUST_GUESS}"


@dataclass(frozen=True)
class Explanation:
    """Why ``cell`` must hold ``terrain``: ``rules`` (ids) and revealed ``cells`` (indices) force it."""

    cell: int
    terrain: Terrain
    rules: tuple[str, ...]
    cells: tuple[int, ...]
    text: str

    @property
    def size(self) -> int:
        return len(self.rules) + len(self.cells)

    def key(self) -> tuple:
        """Easiest first: fewest rules, then fewest cells, then reading order."""
        return (len(self.rules), len(self.cells), self.cell)

    def to_json(self, board) -> dict:
        return {
            "cell": board.name(self.cell),
            "terrain": self.terrain.code,
            "rules": list(self.rules),
            "cells": [board.name(i) for i in self.cells],
            "text": self.text,
        }


def _check(solver, slot, state: Map, rules, cells, extra: list[int], budget: Budget):
    """(forced?, core rules, core cells) for the given rules and revealed cells plus ``extra``."""
    sat = slot.sat
    assumptions = sat.givens(state, cells=cells, rules=rules)
    lit_of = {}
    for i in cells:
        t = state.cells[i]
        v = sat.lit(i, t)
        if v is not None:
            lit_of[v] = i
        if i in state.hills and sat.hill_rule is not None:
            lit_of[sat.hill_switch(i, state.hills[i])] = i
    if solver._sat(slot, [*assumptions, *extra], budget):
        return False, (), ()
    core = set(sat.core())
    core_rules = tuple(r for r in rules if sat.guard(r) in core)
    core_cells = tuple(sorted({lit_of[v] for v in core if v in lit_of}))
    return True, core_rules, core_cells


class _Reason:
    """The search of ``minimal_reason`` for one target, in its steps, so that the easiest reason of many
    targets can be found level by level (``easiest_explanation``) with the same steps per target."""

    def __init__(self, solver, state: Map, target, budget: Budget, thorough: bool, slot):
        self.solver, self.state, self.target, self.budget, self.slot = solver, state, target, budget, slot
        sat = slot.sat
        self.order = {r: k for k, r in enumerate(sat.rules)}
        # A revealed briefing cell (the Peak) is the briefing's own to explain a forced cell, but in a
        # conflict it may be the cause (the Peak revealed as Water), so it is a candidate then.
        self.revealed = [
            i for i, t in enumerate(state.cells) if t is not None and (target is None or i not in sat.briefing_cells)
        ]
        self.extra: list[int] = []
        self.fixed = False  # the target is fixed by the briefing (the Peak): the empty explanation
        if target is not None:
            v = sat.lit(*target)
            self.fixed = v is None
            self.extra = [] if v is None else [-v]
        self.thorough = thorough
        self.core_rules: tuple[str, ...] = ()

    def check(self, rules, cells):
        return _check(self.solver, self.slot, self.state, rules, cells, self.extra, self.budget)

    def start(self) -> bool:
        """Whether every rule and revealed cell force the target (or admit no completion)."""
        ok, rules, _ = self.check(self.slot.sat.rules, self.revealed)
        self.core_rules = rules
        return ok

    def level(self, k: int, models: dict | None = None):
        """1. fewest rules, with every revealed cell available: the (core rules, core cells) of the subsets
        of ``k`` rules (none, each single rule, pairs: all pairs on a small chapter, else those with a rule
        of the first core; triples of that core) that force the target and cite fewest cells; None if none.

        ``models``: per subset, boards found keeping it and every revealed cell (shared by the targets of one
        state): a subset one of them refutes (another terrain at the target) is not asked again; each new
        board found is added. Which subsets force the target is the same either way (boards are proofs)."""
        core = self.core_rules
        everyone = self.slot.sat.rules if self.thorough else core
        subsets: Iterable[tuple[str, ...]]
        if k <= 1:
            subsets = itertools.combinations(everyone, k)
        elif k == 2:
            pairs = itertools.combinations(everyone, 2)
            subsets = pairs if len(everyone) <= 8 else (p for p in pairs if set(p) & set(core))
        else:
            subsets = itertools.combinations(core, k) if len(core) <= 6 else iter(())
        best = None
        cell, terrain = self.target if self.target is not None else (-1, None)
        for subset in subsets:
            boards = models.get(subset) if models is not None else None
            if boards and any(w[cell] is not terrain for w in boards):
                continue  # a board keeping these rules holds another terrain there: they do not force it
            ok, r2, c2 = self.check(subset, self.revealed)
            if ok and (best is None or len(c2) < len(best[1])):
                best = (r2, c2)
            elif not ok and models is not None and len(models.setdefault(subset, [])) < MODELS_KEPT:
                models[subset].append(self.slot.sat.decode())
        return best

    def by_deletion(self):
        """1. fewest rules past the subsets: drop each rule of the first core while the target stays forced."""
        keep = list(self.core_rules)
        for r in list(keep):
            if r not in keep:
                continue
            ok, r2, _ = self.check([q for q in keep if q != r], self.revealed)
            if ok:
                keep = list(r2)
        _, r2, c2 = self.check(tuple(keep), self.revealed)
        return r2, c2

    def fewest_cells(self, rules, cells):
        """2. fewest cells, the farthest from the target dropped first: the final (rules, cells)."""
        b = self.state.board
        if self.target is not None:
            r0, c0 = b.rc(self.target[0])
            far = sorted(cells, key=lambda i: -(abs(b.rc(i)[0] - r0) + abs(b.rc(i)[1] - c0)))
        else:
            far = list(cells)
        keep_cells = list(cells)
        for i in far:
            if i not in keep_cells:
                continue
            ok, r2, c2 = self.check(rules, [j for j in keep_cells if j != i])
            if ok:
                keep_cells = list(c2)
                rules = r2 if set(r2) <= set(rules) else rules
        return tuple(sorted(rules, key=self.order.__getitem__)), tuple(sorted(keep_cells))


def minimal_reason(
    solver, state: Map, target: tuple[int, Terrain] | None, budget: Budget, *, thorough: bool = True, session=None
):
    """(rules, cells) forcing ``target`` = (cell, terrain), or, with ``target=None``, admitting no
    completion; subset-minimal, fewest rules first. None when it is not forced (or there is a completion).

    ``thorough=False`` searches only subsets of the first core's rules for the fewest rules (fewer
    solves; still subset-minimal): the solve path of ``mapgen deduce`` uses it.

    ``session`` (``Solver.session``): the SAT session to ask, else the briefing's shared one (whose cores,
    and so which minimal reason is found, can depend on what it was asked before).

    Raises ``mapgen.solving.solve.SolveTimeout`` when the budget runs out.
    """
    slot = session if session is not None else solver.slot(state.briefing)
    search = _Reason(solver, state, target, budget, thorough, slot)
    if search.fixed:
        return (), ()
    if not search.start():
        return None
    best = None
    for k in range(SUBSET_SIZE + 2):
        best = search.level(k)
        if best is not None:
            break
    return search.fewest_cells(*(best or search.by_deletion()))


def explain_cell(
    solver, state: Map, cell: int, terrain: Terrain, time_limit=None, *, thorough: bool = True, session=None
) -> Explanation | None:
    """A subset-minimal explanation of ``cell`` = ``terrain`` in ``state``, or None when it is not forced
    (``session``: as ``minimal_reason``'s)."""
    try:
        reason = minimal_reason(
            solver, state, (cell, terrain), solver.budget(time_limit), thorough=thorough, session=session
        )
    except SatTimeout:
        raise SolveTimeout("the time limit ran out") from None
    if reason is None:
        return None
    rules, cells = reason
    return Explanation(cell, terrain, rules, cells, explanation_text(solver, state, cell, terrain, rules, cells))


def explain_forced(
    solver, state: Map, time_limit=None, forced: dict[int, Terrain] | None = None, per_cell: float | None = None
) -> list[Explanation]:
    """An explanation for every forced unrevealed cell, in reading order.

    The forced cells come first (exact; within ``time_limit`` of the solver's kind, else SolveTimeout). The
    explanations are counted work: each cell gets an equal share of ``time_limit``'s seconds as deterministic
    seconds (SAT propagations; ``per_cell`` of them at least when given), so which cells are explained, and how,
    is the same under any load. A deterministic budget (``solve --explain``, hints: ``reasons_budget``) keeps its
    own wall-clock deadline; a plain time limit gets ``Budget``'s safety net of 200 times the work. A cell whose
    share runs out is left out (the same on any machine; compare with ``forced``); the wall clock passing ends
    the work: SolveTimeout. NoCompletion when the state has no completion.
    """
    solver.check(state, "explain_forced")
    budget = solver.budget(time_limit)
    if forced is None:
        forced = solver.forced(state, budget)
    items = sorted(forced.items())
    if not items:
        return []
    share = budget.seconds / len(items) if per_cell is None else max(per_cell, budget.seconds / len(items))
    # The work's wall clock: a deterministic budget's own deadline, else a fresh safety net (the forced cells' wall
    # time, which depends on the load, takes nothing from the explanations' work).
    deadline = budget.deadline if budget.deterministic else Budget(share * len(items), deterministic=True).deadline
    # a fresh session of its own: the reasons found depend on the state alone, never on what the briefing's
    # shared session was asked before (a web hint beside other requests gave another reason for the same cell)
    session = solver.session(state.briefing)
    out = []
    for i, t in items:
        try:
            e = explain_cell(solver, state, i, t, Budget.until(share, deadline, deterministic=True), session=session)
        except SolveTimeout:
            if time.monotonic() >= deadline:
                raise
            continue  # its share of the work ran out: left out, on any load
        if e is not None:
            out.append(e)
    return out


def easiest_explanation(solver, state: Map, budget: Budget, forced: dict[int, Terrain]) -> Explanation | None:
    """The easiest explanation (``Explanation.key``) among the forced cells ``forced``: what
    ``easiest(explain_forced(...))`` finds, without explaining every cell in full.

    Each cell's search runs the steps of ``minimal_reason`` with a share of ``budget`` of its own (so which
    cells are explained, and how, depends on the state alone, as in ``explain_forced``), but level by level
    across the cells: once some cell is forced by k rules, no cell is searched for k + 1, and only the cells
    of the fewest rules have their cells reduced. A hint on a 20-reveal Fauna state asks a fifth of the
    solves. SolveTimeout when the wall clock ends the work; a cell whose share runs out is left out.
    """
    items = sorted(forced.items())
    if not items:
        return None
    session = solver.session(state.briefing)  # a fresh one: as explain_forced's
    share = budget.seconds / len(items)
    out = []
    searches: dict[int, _Reason] = {}
    for i, t in items:
        search = _Reason(
            solver, state, (i, t), Budget.until(share, budget.deadline, budget.deterministic), True, session
        )
        if search.fixed:  # the briefing alone decides it: the empty explanation
            out.append(Explanation(i, t, (), (), explanation_text(solver, state, i, t, (), ())))
        else:
            searches[i] = search

    def attempt(i, step, *args):
        """``step(*args)`` of cell ``i``'s search; a cell whose share runs out is left out (the wall clock
        passing ends everything)."""
        try:
            return step(*args)
        except SolveTimeout:
            if time.monotonic() >= budget.deadline:
                raise
            del searches[i]
            return None

    for i, search in list(searches.items()):
        if not attempt(i, search.start):
            searches.pop(i, None)
    found: dict[int, tuple] = {}
    models: dict = {}  # boards found per rule subset, refuting it for the other cells at once
    for k in range(SUBSET_SIZE + 2):
        for i, search in list(searches.items()):
            best = attempt(i, search.level, k, models)
            if best is not None:
                found[i] = best
        if found:
            break
    else:  # no cell within the subsets: every cell by deletion, the fewest rules among them
        for i, search in list(searches.items()):
            best = attempt(i, search.by_deletion)
            if best is not None:
                found[i] = best
        fewest = min((len(r) for r, _ in found.values()), default=0)
        found = {i: rc for i, rc in found.items() if len(rc[0]) == fewest}
    for i, (rules, cells) in found.items():
        reason = attempt(i, searches[i].fewest_cells, rules, cells)
        if reason is not None:
            t = forced[i]
            out.append(Explanation(i, t, reason[0], reason[1], explanation_text(solver, state, i, t, *reason)))
    return easiest(out)


def easiest(explanations: list[Explanation]) -> Explanation | None:
    return min(explanations, key=Explanation.key, default=None)


# -- words ----------------------------------------------------------------------------------------


def _shown(state: Map, i: int, with_number: bool) -> str:
    t = state.cells[i]
    assert t is not None, "a cited cell is a revealed one"
    name = state.board.name(i)
    if t is Terrain.HILL and with_number and i in state.hills:
        return f"the Hill at {name} showing {state.hills[i]}"
    return f"the {t.label} at {name}"


def _lower_first(text: str) -> str:
    """A rule's words mid-sentence: "Every Food ..." -> "every Food ...", "A Hill ..." -> "a Hill ..."; a first
    word in capitals of two letters or more (an acronym, "NW") is kept."""
    first = text.split(" ", 1)[0]
    return text if len(first) > 1 and first.isupper() else text[:1].lower() + text[1:]


def explanation_text(
    solver, state: Map, cell: int, terrain: Terrain, rules, cells, deduced: dict[int, int] | None = None
) -> str:
    """The reason in words, after the rulebook's worked example ("A must be Wood: Wood is always next
    to Water, and A is the only unexplored Path beside it"). ``deduced``: the state's cells that a solution
    path's earlier steps deduced, each with its step (``hint --steps``), worded as deduced, not revealed."""
    chapter = solver.chapter
    b = state.board
    name = b.name(cell)
    head = f"{name} must be {terrain.label}"
    if not rules and not cells:
        briefing = state.briefing
        if cell == briefing.peak:
            return f"{head}: it is the Peak, and the briefing makes the Peak a Rock."
        if cell == briefing.start:
            return f"{head}: it is the start, and the briefing puts the Fort there."
        return f"{head}: the briefing alone decides it."
    hill_rule = solver.slot(state.briefing).sat.hill_rule
    c9 = hill_rule is not None and hill_rule.id in rules
    said = []
    for r in rules:
        info = chapter.rule_info(r)
        if len(rules) <= 2 and c9 and r == hill_rule.id and chapter.counted is not None:
            # in this chapter's words, as the sheet's key says it: "the chapter's counted terrain" named
            said.append(f"each Hill shows the number of {chapter.counted.label}s in its row plus its column ({r})")
        elif len(rules) <= 2:
            words = _lower_first(info.text.split(". ")[0].rstrip(".") if info.text else info.title)
            said.append(f"{words} ({r})")
        else:
            said.append(f"{r} {info.title}")
    because = "; ".join(said) if len(rules) <= 2 else "rules " + ", ".join(said)
    if cells:
        # ``deduced``: cells a solution path's earlier steps deduced (hidden on the player's map): never "revealed"
        deduced = deduced or {}
        seen = [_shown(state, i, c9) for i in cells if i not in deduced]
        known = [f"{_shown(state, i, c9)} (deduced in step {deduced[i]})" for i in cells if i in deduced]
        given = ", and ".join(p for p in (listed(seen) + " revealed" if seen else "", listed(known)) if p)
        rule_word = "that rule" if len(rules) == 1 else ("these rules" if rules else "them")
        tail = f"With {given}, any other terrain at {name} would break {rule_word}."
        if not rules:
            tail = f"With {given}, nothing else fits at {name}."
        return f"{head}: {because}. {tail}" if rules else f"{head}. {tail}"
    return f"{head}: {because}; no other terrain at {name} keeps {'it' if len(rules) == 1 else 'them all'}."


# -- hints ----------------------------------------------------------------------------------------


def frontier(state: Map) -> list[int]:
    """The unexplored Paths a player may explore next: next to an explored cell that is not a Rock,
    or a start cell when nothing is explored yet.

    Flora's start Fort is explored before the first turn (the engine's setup: its Path token leaves play), so it
    counts as explored, revealed or not, and is never a Path to explore: `mapgen hint flora-1 --reveal none` named
    D7 itself as the one Path to explore, and after a first reveal ranked it among them at 0%."""
    b = state.board
    orth = b.hood("orthogonal")
    fort = state.briefing.start  # Flora's start cell (None: a column 7 start)
    opened = {i for i, t in enumerate(state.cells) if t is not None and t is not Terrain.ROCK}
    if fort is not None:
        opened.add(fort)
    if not opened:
        return sorted(i for i in state.start_cells() if state.cells[i] is None)
    return sorted({j for i in opened for j in orth[i] if state.cells[j] is None and j != fort})


#: The share of a question's time limit, in deterministic seconds, that proving its forced Hills' numbers may take
#: (``Solver.hill_numbers``, asked beside the forced cells by ``solve``, ``render --forced``, the web's table
#: and ``hint`` for the Hill it names):
#: a few SAT calls where a forced Hill's row or column holds an open cell, none otherwise.
HILL_SHARE = 0.05


def reasons_budget(budget: Budget, share: float = 1.0) -> Budget:
    """``share`` of ``budget``'s seconds as deterministic seconds (SAT propagations), with its wall-clock
    deadline: which cells get explained, and how, is then the same under any load (the deadline passing
    ends the work: SolveTimeout)."""
    return Budget.until(share * budget.seconds, budget.deadline, deterministic=True)


def said_with_number(solver, state: Map, said: dict, budget: Budget, forced: dict[int, Terrain]) -> dict:
    """A hint's explanation (``Explanation.to_json``) of a hidden Hill, with the number ``solve`` shows for it where
    every completion gives it the same one (``Solver.hill_numbers``, within ``HILL_SHARE`` of the budget's work, as
    ``solve_report`` asks it): ``"number"``, and a sentence after the reason (which proves the Hill, not its number);
    unchanged for another terrain, or a number not settled (never guessed)."""
    b = state.board
    cell = b.index(said["cell"])
    if forced.get(cell) is not Terrain.HILL:
        return said
    hills = solver.hill_numbers(state, reasons_budget(budget, HILL_SHARE), forced=forced)
    number = hills.numbers.get(cell)
    if number is None:
        return said
    return {
        **said,
        "number": number,
        "text": f"{said['text']} It shows {number}: every completion gives it that number.",
    }


def hint(
    solver,
    state: Map,
    target: Terrain | str | None = None,
    time_limit: float = 10.0,
    *,
    deadline: float | None = None,
    deduced: dict[int, int] | None = None,
    given: GivenOdds | None = None,
) -> dict:
    """The single easiest deduction (``{"forced": True, "explanation": ...}``), or, when no cell is
    forced, the unexplored Paths with the best odds of ``target`` (``{"forced": False, "odds": ...}``).
    Its budgets are shares of ``time_limit``; the wall clock ends the work at ``deadline`` (default
    ``time_limit`` from now).

    Cells the briefing alone decides (the Peak, Flora's start) are known to every player: never a hint.

    ``"forced_cells"`` counts every forced cell, as `solve` lists them (the Peak too where it is hidden), and
    ``"from_briefing"`` names those the briefing decides (``forced_count``).
    When cells are forced but none found its explanation within its share of the limit's work (counted: the same on
    any load, more with a larger ``time_limit``), the answer says so: ``"forced": False``, ``"forced_cells"`` and
    ``"missing": ["explanation"]`` (the command exits 3, as solve's explanations do).
    When the time limit runs out while ranking the Paths, what was found is returned with ``"timed_out"`` (the
    message) and ``"missing": ["odds"]`` (the command prints it and exits 3), and with it what is exact of the odds:
    ``"may_hold"``, the Paths that can hold ``target`` but need not, and ``"must_hold"``, those that must (from their
    possible terrains; when those ran out too, they are missing as well); a time-out before it is known whether
    a cell is forced raises ``SolveTimeout``; a state with no completion raises ``NoCompletion``.

    ``deduced``: the state's cells that earlier steps of a solution path deduced (``hint --steps``), each with its
    step: the reason words them as deduced (never "revealed": they are hidden on the player's map), and its JSON
    names them (``"deduced"``: cell name -> step, of the cells it cites).

    ``given``: the odds of ``target`` already had for this state (the table helper's board, which shades them): the
    Paths are ranked by them and no odds are worked out here, so the hint and the board never disagree; the answer
    says so (``"odds_from": "board"``). Where they give no chance for a Path that may hold the target (the board
    still works it out), the answer names the Paths that can hold it and those that must (exact), with
    ``"missing": ["odds"]`` as when the odds run out of time.
    """
    solver.check(state, "hint")
    check_time_limit(time_limit, "hint")
    target = None if target is None else solver.terrain(target)  # a Terrain, or its code ("Ft"), of the chapter
    budget = solver.budget(max(0.1, time_limit - min(1.5, 0.15 * time_limit)))  # a margin for printing
    if deadline is not None:
        budget.deadline = min(budget.deadline, deadline)
    b = state.board
    start = time.monotonic()
    known = solver.slot(state.briefing).sat.briefing_cells  # the Peak, Flora's start: a player knows them
    every = solver.forced(state, budget)  # the briefing's cells too: what hill_numbers takes
    forced = {i: t for i, t in every.items() if i not in known}
    counted = forced_count(b, every, known)
    if forced:
        best = easiest_explanation(solver, state, reasons_budget(budget, 0.6), forced)
        if best is not None:
            said = best.to_json(b)
            if deduced is not None:
                said["text"] = explanation_text(solver, state, best.cell, best.terrain, best.rules, best.cells, deduced)
                said["deduced"] = {b.name(i): deduced[i] for i in best.cells if i in deduced}
            said = said_with_number(solver, state, said, budget, every)
            return {"forced": True, "explanation": said, **counted}
    out: dict = {"forced": False, "message": NO_FORCED}
    if not state.unrevealed():
        out["message"] = "every cell is revealed: nothing left to deduce"
        return out
    if all(i in known for i in state.unrevealed()):  # only the Peak (Flora's start) hidden: a player knows it
        # each cell as the briefing makes it: "(C6)" alone read as the rule C6 Rock
        left = ", ".join(briefing_cell_words(state, i, every) for i in state.unrevealed())
        out["message"] = f"every cell is revealed or known from the briefing ({left}): nothing left to deduce"
        return out
    if every and not forced:  # only cells the briefing decides are forced (the hidden Peak): said, and counted as
        # solve lists them ("no cell is forced" beside solve's "forced: 1 of 25 ... D5 Ro" was not true)
        known_words = listed([briefing_cell_words(state, i, every) for i in sorted(every)])
        out["message"] = f"no cell is forced but {known_words}, known from the briefing: {MUST_GUESS}"
        out.update(counted)
    if forced:  # forced, but no explanation within its share of the limit's work: more --time-limit, more work
        out["message"] = "cells are forced but no explanation was found in time (raise --time-limit)"
        out.update(counted)
        out["missing"] = ["explanation"]
    if target is not None:
        cells = frontier(state)
        possible = None
        try:
            possible = solver.possible(state, budget, cells=cells)  # exact: kept if the odds run out
            if given is not None:
                out["odds_from"] = "board"
                odds, method, errors, route = given.ranked(cells, target, possible)
            else:
                odds, method, errors, route = _odds(solver, state, cells, target, budget, time_limit, possible=possible)
        except (SolveTimeout, OddsPending) as e:  # what was found stands (nothing is forced); say what is missing
            out["target"] = target.code
            if possible is not None:  # which Paths can hold the target, and which must (exact, as solve's "possible")
                out["may_hold"] = [b.name(i) for i in cells if target in possible[i] and len(possible[i]) > 1]
                out["must_hold"] = [b.name(i) for i in cells if possible[i] == {target}]
            if isinstance(e, SolveTimeout):
                out["timed_out"] = str(e)
            out["missing"] = [
                *out.get("missing", []),
                *(["odds"] if possible is not None else ["may_hold", "must_hold", "odds"]),
            ]
            out["seconds"] = round(time.monotonic() - start, 3)
            return out
        # unknown odds (None: the target may be there) rank after certainties, before the cells it cannot be in;
        # a sampled share of 0 the cell can hold (no chain met it there) after the sampled ones above 0, by its
        # bound, before the cells that cannot hold it
        ranked = sorted(
            ((odds[i], i) for i in cells),
            key=lambda p: (-(0.5 if p[0] is None else p[0]), -errors.get(p[1], 0.0), p[1]),
        )
        top = ranked[0][0] if ranked else 0.0
        out["target"] = target.code
        out["odds"] = [
            {"cell": b.name(i), "chance": p, **({"error": errors[i]} if i in errors else {})} for p, i in ranked
        ]
        out["best"] = [b.name(i) for p, i in ranked if p == top and (p is None or p > 0)]
        out["odds_exact"] = method == ODDS_EXACT
        out["odds_method"] = method
        out["method"] = route  # what answered: "d-dnnf" (a compiled circuit), as solve's JSON says it
    out["seconds"] = round(time.monotonic() - start, 3)
    return out


#: What answered a hint's odds (its JSON's ``"method"``, besides ``"odds_method"``): a compiled circuit (as
#: solve's ``"method"`` says it), the model counter's counts per cell, or the possible terrains alone (no Path
#: can hold the target); else the sampler, or none (``ODDS_SAMPLER``, ``ODDS_NONE``); or the odds given (``GivenOdds``:
#: the helper's board).
ROUTE_CIRCUIT, ROUTE_COUNTER, ROUTE_POSSIBLE, ROUTE_BOARD = "d-dnnf", "model counter", "possible terrains", "board"


class OddsPending(Exception):
    """The odds given for a state have no chance yet for a Path that may hold the target (the board works it out)."""


@dataclass(frozen=True)
class GivenOdds:
    """Odds of a hint's target already had for its state, as another view shows them (the table helper's board:
    its pool of sampler draws' estimate, or exact shares): ``chances`` per cell (None: not known yet), ``errors`` each
    estimated chance's standard error, ``exact`` whether they are exact shares."""

    chances: dict[int, float | None]
    errors: dict[int, float]
    exact: bool

    def ranked(
        self, cells: list[int], target: Terrain, possible: dict[int, frozenset[Terrain]]
    ) -> tuple[dict[int, float | None], str, dict[int, float], str]:
        """``_odds``'s answer for ``cells`` from these odds: a cell that cannot hold ``target`` 0 and one that must 1
        (possible terrains are exact), every other its given chance and error. OddsPending when one has none."""
        odds: dict[int, float | None] = {}
        errors: dict[int, float] = {}
        for i in cells:
            if target not in possible[i] or possible[i] == {target}:
                odds[i] = 0.0 if target not in possible[i] else 1.0
                continue
            chance = self.chances.get(i)
            if chance is None:
                raise OddsPending("the odds given have no chance yet for a Path that may hold the target")
            odds[i] = chance
            if not self.exact and self.errors.get(i):
                errors[i] = self.errors[i]
        return odds, (ODDS_EXACT if self.exact else ODDS_SAMPLER), errors, ROUTE_BOARD


def _odds(
    solver,
    state: Map,
    cells: list[int],
    target: Terrain,
    budget: Budget,
    time_limit: float,
    seed: int = 0,
    possible: dict[int, frozenset[Terrain]] | None = None,
) -> tuple[dict[int, float | None], str, dict[int, float], str]:
    """Per cell, the share of completions with ``target`` there, how it was had (``solve.ODDS_*``), for
    sampled odds each share's standard error, and what answered (``ROUTE_*``: "d-dnnf" for a compiled circuit) (``Solver.odds_answer``'s: a share of 0 with an error is a terrain
    the cell can hold that no chain met there).

    Exact when a circuit answers, or the count of the state and of each cell's sub-state (the cell set to
    ``target``) finish within their CPU shares of the budget; otherwise shares over almost-uniform samples
    (the block heat-bath sampler); else none (None) where the target may be: completions a solver finds first are
    no fair sample.
    A cell that cannot hold ``target`` (possible terrains are exact) has 0, one that must hold it 1, either way.
    ``possible``: the cells' possible terrains when found already (``hint`` keeps them if the odds run out).
    """
    if possible is None:
        possible = solver.possible(state, budget, cells=cells)
    can = [i for i in cells if target in possible[i]]
    odds: dict[int, float | None] = {i: 0.0 for i in cells}
    if not can:
        return odds, ODDS_EXACT, {}, ROUTE_POSSIBLE
    # A compiled circuit gives every cell's exact count at once (cached, or compiled within 30% of the
    # budget's seconds of CPU); else Ganak counts the state and each cell's sub-state within equal CPU shares
    # of 25%; else the sampler's odds, its work ``SAMPLE_SECONDS`` per second of the time limit (counted in sweeps).
    # Shares of the budget's seconds, never of what is left: the same under any load.
    cpu = 0.0 if budget.deterministic else budget.seconds
    got = solver.exact_tallies(state, 0.3 * cpu, deadline=budget.deadline)
    if got is not None and got[0]:
        total, tallies = got
        for i in can:
            odds[i] = tallies[i].get(target, 0) / total
        return odds, ODDS_EXACT, {}, ROUTE_CIRCUIT
    counted = solver.count(state, time_limit=budget.part(0.1), exact_counter=False, limit=2_000)
    share = 0.25 * cpu / (len(can) + (0 if counted.exact else 1))
    if counted.exact:
        total = counted.count
    else:  # Ganak, from the revealed cells where solve's count asks it (below, it never landed in its share)
        total = solver.model_count(state, share, budget.deadline) if solver.counter_reaches(state) else None
    parts = []
    for i in can if total else ():
        sub = state.with_cells(target if j == i else t for j, t in enumerate(state.cells))
        n = solver.model_count(sub, share, budget.deadline)
        if n is None:
            break
        parts.append(n)
    if total and len(parts) == len(can):
        for i, n in zip(can, parts, strict=True):
            odds[i] = n / total
        return odds, ODDS_EXACT, {}, ROUTE_COUNTER
    # the block heat-bath sampler (mapgen.solving.sampler) through the one interface solve, render and the web
    # use, its work sized as theirs at the same time limit (the same odds from each), else no number where the
    # target may be
    got = solver.odds_answer(
        state, time_limit=budget, method=ODDS_SAMPLER, sample_seconds=SAMPLE_SECONDS * time_limit, seed=seed
    )
    if got.method != ODDS_SAMPLER:
        return {i: known_chance(possible[i], target) for i in cells}, ODDS_NONE, {}, ODDS_NONE
    errors: dict[int, float] = {}
    for i in can:
        odds[i] = got.shares.get(i, {}).get(target, 0.0)
        errors[i] = float((got.errors or {}).get(i, {}).get(target, 0.0))
    return odds, ODDS_SAMPLER, errors, ODDS_SAMPLER


def forced_count(board, every: dict[int, Terrain], known: set[int]) -> dict:
    """A hint's count of the state's forced cells, ``{"forced_cells", "from_briefing"}``: every forced cell (RULES.md
    §6, as `solve` lists them: the hidden Peak too, which the briefing alone forces), and the names of those the
    briefing decides, which no hint names (every player knows them): the helper counts the others as its hints."""
    return {"forced_cells": len(every), "from_briefing": [board.name(i) for i in sorted(every) if i in known]}


def briefing_cell_words(state: Map, i: int, forced: dict[int, Terrain]) -> str:
    """A hidden cell the briefing decides, named as it makes it: "the Peak at C6", "the start Fort at E7"."""
    name = state.board.name(i)
    if i == state.briefing.peak:
        return f"the Peak at {name}"
    if i == state.briefing.start:
        return f"the start Fort at {name}"
    return f"the {forced[i].label} at {name}" if i in forced else name


def hint_text(state: Map, result: dict, source: str) -> str:
    if result["forced"]:
        e = result["explanation"]
        # "rule C6; cells C5, C6": rule ids C1-C9 are also cells' names, so each list says which it is
        rules, cells = e["rules"], e["cells"]
        cited = "; ".join(
            f"{word}{'s' if len(names) > 1 else ''} {', '.join(names)}"
            for word, names in (("rule", rules), ("cell", cells))
            if names
        )
        cited = cited or "the briefing"
        return f"{source}: {e['text']}\n  (cites {cited})"
    lines = [f"{source}: {result['message']}"]
    if "odds" not in result and "timed_out" in result:  # the Paths' odds ran out of time (exit 3)
        label = Terrain.from_code(result["target"]).label
        if "may_hold" in result:  # what is exact of the odds stays: which Paths can hold the target, which must
            may, must = result["may_hold"], result["must_hold"]
            lines.append(
                "exact (the odds did not come in time): "
                + (f"a {label} must be at {', '.join(must)}; " if must else "")
                + (  # of the frontier: "may be at D6" alone read as the one Path left where 31 may hold one
                    f"of the Paths you may explore next, a {label} may be at {', '.join(may)}"
                    if may
                    else f"no {'other ' if must else ''}Path you may explore next can hold a {label}"
                )
            )
        lines.append(f"not in time: the Paths' odds of a {label} ({result['timed_out']}): raise --time-limit")
    if "odds" in result:
        label = Terrain.from_code(result["target"]).label
        method = result["odds_method"]
        if method == ODDS_NONE:
            may = [o["cell"] for o in result["odds"] if o["chance"] is None]
            sure = [o["cell"] for o in result["odds"] if o["chance"] == 1.0]
            lines.append(
                f"no fair odds of a {label} in time ({NO_ODDS}): "
                + (f"a {label} must be at {', '.join(sure)}; " if sure else "")
                + (f"it may be at {', '.join(may)}" if may else f"no other Path here can hold a {label}")
            )
            return "\n".join(lines)
        kind = {ODDS_UNIGEN: " (from almost-uniform samples: UniGen)", ODDS_SAMPLER: " (estimated by the sampler)"}.get(
            method, ""
        )

        def words(o: dict) -> str:  # the sampler's ± and "up to", as solve prints them
            return share_words(o["cell"], o["chance"], o.get("error") or None)

        if result["best"]:
            lines.append(
                f"best odds of a {label}{kind}: "
                + ", ".join(words(o) for o in result["odds"] if o["cell"] in result["best"])
            )
        elif any(o.get("error") for o in result["odds"]):
            lines.append(f"no chain met a {label} on an unexplored Path next to the explored ones")
        else:  # every share is 0: name the Paths, never "then: A6 0%, B7 0%" after "none can hold"
            lines.append(f"no unexplored Path next to the explored ones can hold a {label}")
            paths = [o["cell"] for o in result["odds"]]
            if paths:
                lines.append(f"  the Paths you may explore: {', '.join(paths)}")
            return "\n".join(lines)
        others = [words(o) for o in result["odds"] if o["cell"] not in result["best"]]
        if others:
            lines.append("  then: " + ", ".join(others))
    return "\n".join(lines)
