"""The helper's Hint: the one place the web app asks for a hint.

It is ``mapgen hint``'s answer (``mapgen.solving.explain.hint``): the forced cell whose explanation needs the
fewest rules, then the fewest revealed cells, with its reason in words; when nothing is forced, the
Paths with the best odds of the target terrain. Two things on top for the page:

- ``exclude``: cells already hinted on this state; "Next hint" asks for the easiest forced cell not among
  them (and says so once every forced cell has been named, or that those left found no explanation in time);
- a best guess whenever nothing is forced and no Path the player can explore next may hold the target
  (a blank board): the Path whose terrain is least certain, the one whose reveal tells the most;
- ``given``: the odds of the target the page's board shades (its pool's estimate, or exact), sent with the request:
  the Paths are ranked by them, never by odds of the hint's own, so the hint and the board never disagree.
"""

from __future__ import annotations

import math
import time

from mapgen.model import Map
from mapgen.solving.explain import (
    GivenOdds,
    briefing_cell_words,
    easiest_explanation,
    forced_count,
    frontier,
    hint,
    reasons_budget,
    said_with_number,
)
from mapgen.solving.sat import Budget, check_time_limit
from mapgen.solving.solve import Solver, SolveTimeout
from mapgen.solving.unigen import ODDS_EXACT, ODDS_NONE, ODDS_SAMPLER, SAMPLE_SECONDS
from mapgen.terrain import Terrain, listed, quantity


def easiest_hint(
    state: Map,
    *,
    solver: Solver | None = None,
    target: Terrain | None = None,
    time_limit: float = 5.0,
    exclude: tuple[str, ...] = (),
    given: GivenOdds | None = None,
) -> dict:
    """What ``mapgen hint --json`` prints: ``{"forced": true, "explanation": {"cell", "terrain", "rules",
    "cells", "text"}, "forced_cells", "from_briefing"}``, or ``{"forced": false, "message", ...odds of target,
    "guess"}``; ``forced_cells`` counts every forced cell (the hidden Peak too: ``forced_count``), ``next`` the hints.

    ``target`` defaults to the chapter's counted terrain; ``exclude`` (cell names) are skipped as hints.
    Raises ``NoCompletion`` when the state has no completion and ``SolveTimeout`` when the forced cells
    cannot be found in time; when the odds or the best guess run out of time, the answer keeps what was found and
    says so: ``missing``, the keys that did not come (``["explanation"]`` when cells are forced but none was
    explained within its share of the work, ``["odds"]``, as `hint --json`'s, then ``"guess"``),
    ``timed_out`` the first reason, and ``missing_text`` the page's sentence (exit 3).
    ``given``: the odds of ``target`` the page's board shows for this state (``hint``'s): the Paths are ranked by them,
    never by odds worked out here; while the board has no chance yet for a Path that may hold the target, no best guess
    is made either (its shares would be odds the board then contradicts).
    """
    check_time_limit(time_limit, "easiest_hint")
    solver = solver or Solver.for_chapter(state.chapter)
    target = target if target is not None else solver.chapter.counted
    started = time.monotonic()
    b = state.board
    skip = {b.index(c) for c in exclude if _is_cell(b, c)}
    if skip:
        budget = solver.budget(max(0.1, time_limit - min(1.5, 0.15 * time_limit)))
        known = solver.slot(state.briefing).sat.briefing_cells
        every = solver.forced(state, budget)  # the briefing's cells too: what hill_numbers takes
        forced = {i: t for i, t in every.items() if i not in known}  # what a hint may name
        counted = forced_count(b, every, known)  # every forced cell, as solve lists them: the hidden Peak too
        rest = {i: t for i, t in forced.items() if i not in skip}
        if rest:
            best = easiest_explanation(solver, state, reasons_budget(budget, 0.6), rest)
            if best is not None:
                return {
                    "forced": True,
                    "explanation": said_with_number(solver, state, best.to_json(b), budget, every),
                    **counted,
                    "next": len(forced) - len(rest) + 1,
                }
        out = hint(solver, state, None, time_limit=time_limit, deadline=started + time_limit)
        if forced:
            briefing_words = [briefing_cell_words(state, i, every) for i in sorted(every) if i in known]
            also = f", and {listed(briefing_words)} the briefing gives" if briefing_words else ""
            message = f"every forced cell has been named ({len(forced)}{also}): reveal one, or guess"
            if rest:  # cells left to name, but none explained within its share of the work (the same on any load)
                message = (
                    f"{quantity(len(rest), 'forced cell')} not named yet, but no explanation was found in time: "
                    "reveal one, or guess"
                )
            out = {"forced": False, "message": message, **counted}
            if rest:  # as hint's own answer: the explanation is missing (exit 3), more time gives its search more work
                out["missing"] = ["explanation"]
    else:
        out = hint(solver, state, target, time_limit=time_limit, given=given)
    no_odds = out.get("odds_method") == ODDS_NONE  # where the target may be is no ranking: guess as without one
    pending = _board_pending(out)  # the board still works its chances out: the hint waits with it
    if not out.get("forced") and state.unrevealed() and (no_odds or not out.get("best")) and not pending:
        odds = Budget.until(0.5 * time_limit, started + time_limit)  # a share of the limit, not of what is left
        try:
            guess = best_guess(solver, state, odds, sample_seconds=SAMPLE_SECONDS * time_limit)  # solve's odds
        except SolveTimeout as e:  # what is exact (nothing forced, the odds above) stays; the guess is said missing
            out["missing"] = [*out.get("missing", []), "guess"]
            out.setdefault("timed_out", str(e))  # the first reason, as `hint --json` gives it
        else:
            if guess is not None:
                out["guess"] = guess
    if out.get("missing"):  # the page's sentence; ``missing`` stays the list of keys the CLI prints
        out["missing_text"] = missing_text(out, time_limit)
    return out


def missing_text(out: dict, time_limit: float) -> str:
    """What an answer's ``missing`` keys name, in the page's words: "the Paths' odds of a Flora creature and the
    best guess: the time limit (10 s) ran out"."""
    label = Terrain.from_code(out["target"]).label if out.get("target") else "the target"
    words = {
        "may_hold": f"which Paths can hold a {label}",
        "odds": f"the Paths' odds of a {label}",
        "guess": "the best guess",
        "explanation": "an explanation of a forced cell",
    }
    keys = [k for k in out["missing"] if k != "must_hold"]
    if _board_pending(out):  # not the time limit: the board's own answer has not come yet
        said = f"{words['odds']}: the board is still working them out (ask again once it shades them)"
        rest = [k for k in keys if k != "odds"]
        return said if not rest else f"{said}; {missing_text({**out, 'missing': rest, 'odds_from': None}, time_limit)}"
    if keys == ["explanation"]:  # counted work sized by the time limit: the same request finds the same none
        return (
            f"{words['explanation']}: its search, sized by the time limit ({time_limit:g} s), found none "
            "(asking again gives the same answer)"
        )
    parts = list(dict.fromkeys(words.get(k, k) for k in keys))
    return f"{listed(parts)}: the time limit ({time_limit:g} s) ran out"


def _board_pending(out: dict) -> bool:
    """Whether the answer ranked nothing because the board's odds it was given have no chance yet (``GivenOdds``)."""
    return out.get("odds_from") == "board" and "odds" in out.get("missing", ())


def _is_cell(board, name) -> bool:
    try:
        board.index(name)
    except (KeyError, ValueError, TypeError, IndexError):
        return False
    return True


def best_guess(
    solver: Solver, state: Map, time_limit: float | Budget, sample_seconds: float | None = None
) -> dict | None:
    """The explorable Path whose terrain is least certain (highest entropy of its terrain shares):
    ``{"cell", "shares": {code: share}, "exact", "method", "explorable"}`` (with ``method`` "sampler" also
    ``errors``, each share's standard error, and ``sampler``, the run's summary: R-hat, converged), or None
    when no Path is unrevealed.
    ``explorable``: chosen among the Paths the player can explore next (false: none can, so among every
    unrevealed Path). With no fair odds for the state (``method`` "none": no circuit, and no sampler for its
    rules) the Path with the most possible terrains, its ``shares`` empty and ``possible`` its terrains.
    SolveTimeout when the wall clock runs out before the odds' counted work is done. ``sample_seconds``: the
    sampler's work (``Solver.odds_answer``'s), ``SAMPLE_SECONDS`` per second of the request's time limit as `solve`
    and `hint` give it, so the guess reads the odds they print (default: of ``time_limit``'s seconds)."""
    explorable = frontier(state)
    cells = explorable or state.unrevealed()
    if not cells:
        return None
    possible = solver.possible(state, time_limit, cells=cells)
    # the odds' work is counted (sweeps, draws), so the guess is the same under any load; the wall clock running
    # out first is a time-out (SolveTimeout: exit 3, a 504), never a guess made without the odds it would have had
    got = solver.odds_answer(state, time_limit=time_limit, possible=possible, sample_seconds=sample_seconds)
    shares, method = got.shares, got.method
    if method == ODDS_NONE:
        i = min(cells, key=lambda i: (-len(possible[i]), i))
        return {
            "cell": state.board.name(i),
            "shares": {},
            "possible": [t.code for t in sorted(possible[i], key=lambda t: t.index)],
            "exact": False,
            "method": method,
            "explorable": bool(explorable),
        }

    def entropy(i: int) -> float:
        return -sum(p * math.log(p) for p in shares.get(i, {}).values() if p > 0)

    i = min(cells, key=lambda i: (-round(entropy(i), 9), i))
    out = {
        "cell": state.board.name(i),
        # likeliest first (the helper names the first three)
        "shares": {
            t.code: round(p, 4) for t, p in sorted(shares.get(i, {}).items(), key=lambda kv: (-kv[1], kv[0].index))
        },
        "exact": method == ODDS_EXACT,
        "method": method,
        "explorable": bool(explorable),
    }
    if method == ODDS_SAMPLER and got.sampled is not None:  # estimated: errors and R-hat
        out["errors"] = {t.code: round(e, 4) for t, e in (got.errors or {}).get(i, {}).items()}
        out["sampler"] = got.sampled.summary()
    return out
