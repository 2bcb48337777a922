"""The reasons `hint`, `solve --explain`, `hint --steps` and `deduce` give are true, checked by a model of their own.

``tests/test_explain.py`` re-checks explanations on ``constraints.cnf``'s encoding, the one the explainer's guarded SAT
session is built from. Here every reason is checked on another encoding: OR-Tools CP-SAT (``constraints.cpsat``'s
per-rule posters) holding only the reason's rules (T1 and the briefing always; a cited Hill's number only with C9),
the state showing only the reason's cells, and "another terrain at the cell": no board may exist (sufficient), and
dropping any one rule or cell must let one exist (subset-minimal, RULES.md §6). C6's connected Rocks are checked
lazily (a cut for each disconnected group of a board found), not by the poster's distance labels, which CP-SAT proves
infeasible slowly; every board found is checked again by the rules' validator.
"""

from __future__ import annotations

import json

from click.testing import CliRunner
from ortools.sat.python import cp_model

from cli import main
from constraints.catalogue import get_chapter
from constraints.cpsat import ChapterModel
from constraints.rules import BriefingCell, Connected, View, components, hill_number
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain
from tests.conftest import DATA


def other_board(state, cell, terrain, rules, cells):
    """A board keeping ``rules`` (ids), T1, the briefing and the terrains of ``cells`` (a Hill's number with C9 only)
    with another terrain than ``terrain`` at ``cell``; None when there is none."""
    chapter = get_chapter(state.chapter)
    keep = [r for r in chapter.rules if r.id in set(rules) or r.id == "T1" or isinstance(r, BriefingCell)]
    cm = ChapterModel(chapter, state.briefing, rules=[r for r in keep if not isinstance(r, Connected)])
    m, b = cm.model, state.board
    for i in cells:
        m.add(cm.x[i][state.cells[i]] == 1)
        if "C9" in rules and i in state.hills:
            m.add(cm.hill_count(i) == state.hills[i])
    m.add(cm.x[cell][terrain] == 0)
    connected = [r for r in keep if isinstance(r, Connected)]
    if connected:  # few loose Rocks: the cuts below converge in a few rounds
        m.minimize(sum(cm.x[i][r.terrain] for r in connected for i in range(b.size)))
    for _ in range(200):
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_deterministic_time = 30.0
        status = solver.solve(m)
        if status == cp_model.INFEASIBLE:
            return None
        assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE), solver.status_name(status)
        board = cm.decode(solver.boolean_value)
        cut = False
        for r in connected:
            t = r.terrain
            sure = {getattr(state.briefing, q.field) for q in keep if isinstance(q, BriefingCell) and q.terrain is t}
            groups = components(b, [i for i in range(b.size) if board[i] is t])
            for g in groups if len(groups) > 1 else ():
                inside = set(g)
                border = {j for i in g for j in b.neighbours(i, "orthogonal") if j not in inside}
                out = [cm.x[u][t] for u in border if t in cm.x[u]]
                # a Rock beyond the Peak's group, or a group without the Peak, reaches out through the group's border
                beyond = [v for v in range(b.size) if v not in inside | border] if inside & sure else g
                for v in beyond:
                    if t in cm.x[v]:
                        m.add_bool_or([cm.x[v][t].Not(), *out])
                cut = True
        if cut:
            continue
        view = View(state.with_cells(board, hills={}))
        assert not [v for r in keep if not isinstance(r, BriefingCell) and r.id != "C9" for v in r.check(view)]
        if "C9" in rules:
            assert all(hill_number(b, board, i, chapter.counted) == state.hills[i] for i in cells if i in state.hills)
        return board
    raise AssertionError("the cuts did not converge")


def assert_true_reason(state, e: dict) -> None:
    """``e`` (an explanation's JSON) is sufficient and subset-minimal in ``state``, by the model above."""
    b = state.board
    cell, terrain = b.index(e["cell"]), Terrain.from_code(e["terrain"])
    rules, cells = list(e["rules"]), [b.index(c) for c in e["cells"]]
    assert all(state.cells[i] is not None for i in cells), e
    assert other_board(state, cell, terrain, rules, cells) is None, f"insufficient: {e}"
    for r in rules:
        assert other_board(state, cell, terrain, [q for q in rules if q != r], cells) is not None, f"{r} unneeded: {e}"
    for i in cells:
        fewer = [j for j in cells if j != i]
        assert other_board(state, cell, terrain, rules, fewer) is not None, f"{b.name(i)} unneeded: {e}"


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_solve_explain_and_hint_reasons_hold_on_a_model_of_their_own():
    """Every chapter: `solve --explain --json`'s first reasons and `hint --json`'s reason, on the example states."""
    checked = 0
    for path in sorted((DATA / "states").glob("*.toml")):
        state = read_map(path)
        r = run("solve", str(path), "--explain", "--json", "--time-limit", "60")
        assert r.exit_code == 0, r.output
        for e in [e for e in json.loads(r.stdout)["explanations"] if e["rules"]][:2]:
            assert_true_reason(state, e)
            checked += 1
        r = run("hint", str(path), "--json", "--time-limit", "60")
        assert r.exit_code == 0, r.output
        assert_true_reason(state, json.loads(r.stdout)["explanation"])
        checked += 1
    assert checked >= 25


def test_hint_steps_and_deduce_reasons_hold_on_the_state_each_step_saw():
    """`hint --steps`: each step's reason holds on the state of the cells revealed and deduced before it; `deduce`:
    each forced step's reason holds on the cells the explorer had revealed before it."""
    path = DATA / "states" / "training-202-k16.toml"
    state = read_map(path)
    r = run("hint", str(path), "--steps", "--json", "--time-limit", "60")
    assert r.exit_code == 0, r.output
    steps = json.loads(r.stdout)["steps"]
    assert len(steps) >= 3
    b = state.board
    for e in steps:
        assert_true_reason(state, e)
        i = b.index(e["cell"])
        state = state.with_cells(Terrain.from_code(e["terrain"]) if j == i else t for j, t in enumerate(state.cells))
    import maps

    m = maps.load("training-2")
    r = run("deduce", "training-2", "--json", "--time-limit", "120")
    assert r.exit_code == 0, r.output
    explored: list[int] = []
    explained = 0
    for s in json.loads(r.stdout)["profile"]["steps"]:
        if s.get("explanation"):
            seen = m.hide(i for i in range(m.board.size) if i not in set(explored))
            assert_true_reason(seen, s["explanation"])
            explained += 1
        explored.append(m.board.index(s["cell"]))
    assert explained >= 3
