"""Explanations of forced cells (RULES.md §6): sound, subset-minimal, in words; hints; the hint and --explain CLI.

Every explanation is re-checked on a model built apart from the solver's session: the CNF of a
chapter holding only the cited rules (plus the briefing and T1, which always hold) on the state
showing only the cited cells (a cited Hill's number counts only with C9, the rule that reads it):
the cell must be forced, and dropping any one rule or cell must un-force it.
"""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner
from pysat.solvers import Solver as SatSolver

import maps
from cli import main
from constraints.catalogue import get_chapter
from constraints.cnf import cnf_for_state
from constraints.rules import BriefingCell, TerrainSet
from mapgen.mapfile import dumps_map, read_map
from mapgen.solving.explain import (
    Explanation,
    easiest,
    easiest_explanation,
    explain_cell,
    explain_forced,
    hint,
    reasons_budget,
)
from mapgen.solving.solve import Solver
from mapgen.terrain import Terrain
from tests.conftest import DATA

STATES = sorted(p.stem for p in (DATA / "states").glob("*.toml"))


def forced_by(state, cell: int, terrain: Terrain, rules, cells) -> bool:
    """Whether every board keeping ``rules``, the terrains of ``cells`` and the briefing holds ``terrain`` at ``cell``.

    Built from scratch, apart from the solver's guarded session: the CNF of the state that shows only
    ``cells`` under a chapter that keeps only ``rules`` (and T1 and the briefing), with "not ``terrain``
    at ``cell``" added; a plain SAT call must find no board.
    """
    chapter = get_chapter(state.chapter)
    kept = tuple(r for r in chapter.rules if r.id in rules or isinstance(r, (BriefingCell, TerrainSet)))
    sub = state.hide(i for i in range(state.board.size) if i not in set(cells))
    cnf = cnf_for_state(sub, dataclasses.replace(chapter, rules=kept))
    if cnf.broken:
        return True
    lit = cnf.lit(cell, terrain)
    if lit is True:
        return True
    if lit is False:
        return False
    with SatSolver(name="minisat22", bootstrap_with=[*cnf.clauses, [-lit]]) as sat:
        return not sat.solve()


def assert_sound_and_minimal(state, cell, terrain, rules, cells) -> None:
    name = state.board.name(cell)
    assert forced_by(state, cell, terrain, rules, cells), f"{name}: not forced by its explanation"
    for r in rules:
        assert not forced_by(state, cell, terrain, [q for q in rules if q != r], cells), f"{name}: {r} not needed"
    for c in cells:
        rest = [k for k in cells if k != c]
        assert not forced_by(state, cell, terrain, rules, rest), f"{name}: {state.board.name(c)} not needed"


@pytest.fixture(scope="module")
def worked():
    return json.loads((DATA / "states" / "explanations.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("name", STATES)
def test_every_forced_cell_is_explained_soundly_and_minimally(name, worked):
    state = read_map(DATA / "states" / f"{name}.toml")
    solver = Solver.for_chapter(state.chapter)
    forced = solver.forced(state)
    found = explain_forced(solver, state, time_limit=60)
    assert {e.cell: e.terrain for e in found} == forced  # every forced cell, none missed
    b = state.board
    briefing = {state.briefing.peak, state.briefing.start}
    for e in found:
        assert "T1" not in e.rules and not (set(e.cells) & briefing)
        assert all(state.cells[i] is not None for i in e.cells)  # only revealed cells are cited
        assert_sound_and_minimal(state, e.cell, e.terrain, e.rules, e.cells)
    for ref in worked[name]:
        e = next(x for x in found if b.name(x.cell) == ref["cell"])
        # never more rules than the worked example's greedy explanation needs
        assert len(e.rules) <= len(ref["rules"]), (ref["cell"], e.rules, ref["rules"])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fauna-201-k34", "flora-202-k34", "training-202-k16"])
def test_the_checker_accepts_the_worked_explanations(name, worked):
    """The independent check reads RULES.md §6 as the worked examples do (briefing, T1, Hill numbers with C9)."""
    state = read_map(DATA / "states" / f"{name}.toml")
    b = state.board
    for ref in worked[name][:3]:
        cells = [b.index(c) for c in ref["cells"]]
        assert_sound_and_minimal(state, b.index(ref["cell"]), Terrain.from_code(ref["terrain"]), ref["rules"], cells)


def test_the_peak_has_the_empty_explanation():
    state = read_map(DATA / "states" / "fauna-201-k34.toml")
    solver = Solver.for_chapter("fauna")
    e = explain_cell(solver, state, state.briefing.peak, Terrain.ROCK)
    assert (e.rules, e.cells) == ((), ())
    assert e.text == "B4 must be Rock: it is the Peak, and the briefing makes the Peak a Rock."
    assert explain_cell(solver, state, state.board.index("A2"), Terrain.VINE) is None  # A2 is not forced


def test_explanation_json_contract_and_words():
    state = read_map(DATA / "states" / "training-201-k16.toml")
    solver = Solver.for_chapter("training")
    e = explain_cell(solver, state, state.board.index("B4"), Terrain.WATER)
    assert e.to_json(state.board) == {
        "cell": "B4",
        "terrain": "Wa",
        "rules": ["C5"],
        "cells": ["B5", "B6"],
        "text": "B4 must be Water: every Mud has at least 1 orthogonal Water and at least 1 orthogonal Rock (C5). "
        "With the Mud at B5 and the Food at B6 revealed, any other terrain at B4 would break that rule.",
    }


def test_a_cited_hill_brings_its_number_only_with_c9():
    state = read_map(DATA / "states" / "flora-202-k34.toml")
    solver = Solver.for_chapter("flora")
    e = explain_cell(solver, state, state.board.index("A7"), Terrain.FLORA_CREATURE)
    assert "C9" in e.rules and "showing" in e.text
    assert_sound_and_minimal(state, e.cell, e.terrain, e.rules, e.cells)


def test_a_rule_whose_words_start_with_a_one_letter_word_reads_in_lower_case_mid_sentence():
    """C9 ("A Hill may stand anywhere; ..."; now said in the chapter's words) and F1 ("A column that holds a Vine ...") were cited with their capital
    A mid-sentence ("B5 must be Fort: A Hill may stand anywhere; ..."), where every other rule reads "every Food ..."
    in `hint`, `hint --steps`, `solve --explain` and deduce's reveal profile: "A " was taken for an acronym."""
    from mapgen.solving.explain import explanation_text

    state = read_map(DATA / "states" / "flora-202-k34.toml")
    solver = Solver.for_chapter("flora")
    e = explain_cell(solver, state, state.board.index("A7"), Terrain.FLORA_CREATURE)
    assert "C9" in e.rules and len(e.rules) <= 2  # the rule cited in its own words, not by its title
    # C9 in this chapter's words, as the sheet's key says it: not "the chapter's counted terrain"
    assert "each Hill shows the number of Flora creatures in its row plus its column (C9)" in e.text
    assert "A Hill may" not in e.text and "counted terrain" not in e.text
    fauna = read_map(DATA / "states" / "fauna-201-k34.toml")
    f = Solver.for_chapter("fauna")
    words = explanation_text(f, fauna, fauna.board.index("A2"), Terrain.VINE, ("F1",), ())
    assert words.startswith("A2 must be Vine: a column that holds a Vine holds a Rock, and ")


def test_hint_gives_the_easiest_deduction():
    state = read_map(DATA / "states" / "vameter-201-k34.toml")
    solver = Solver.for_chapter("vameter")
    result = hint(solver, state, Terrain.FEZRON_CAMP)
    found = [e for e in explain_forced(solver, state, time_limit=60) if e.cell != state.briefing.peak]
    best = easiest(found)  # the Peak is known to every player: never a hint
    assert result["forced"] and result["explanation"] == best.to_json(state.board)
    assert result["explanation"]["cell"] != "B4" and best.key() == min(e.key() for e in found)
    assert Explanation.key(best)[:2] == (len(best.rules), len(best.cells))


def test_hint_counts_the_forced_cells_solve_lists_the_peak_among_them():
    """RULES.md §6: a cell is forced when every completion gives it the same terrain, and the hidden Peak is one (the
    briefing alone forces it: the empty explanation). `hint --json` said "forced_cells": 2 where `solve --json` listed
    3 forced cells of the same state (vameter-1 with C6, its Peak, D6 and E5 hidden): the Peak was left out of the
    count. The count is now solve's, and ``from_briefing`` names the forced cells the briefing decides, which a hint
    never names (every player knows them), for the helper's "Hint 1 of 2"."""
    state = read_map(maps.path("vameter-1"))
    state = state.hide(state.board.index(c) for c in ("C6", "D6", "E5"))
    assert [state.board.name(i) for i in state.unrevealed()] == ["C6", "D6", "E5"]
    text = dumps_map(state)
    solved = json.loads(CliRunner().invoke(main, ["solve", "-", "--json"], input=text).stdout)
    r = CliRunner().invoke(main, ["hint", "-", "--json"], input=text)
    assert r.exit_code == 0, r.output
    hinted = json.loads(r.stdout)
    assert sorted(solved["forced"]) == ["C6", "D6", "E5"]
    assert hinted["forced_cells"] == len(solved["forced"]) == 3
    assert hinted["from_briefing"] == ["C6"] and hinted["explanation"]["cell"] != "C6"
    from mapgen.web.hints import easiest_hint  # the helper's "Next hint" counts them alike

    after = easiest_hint(state, exclude=(hinted["explanation"]["cell"],))
    assert after["forced_cells"] == 3 and after["from_briefing"] == ["C6"] and after["next"] == 2
    last = easiest_hint(state, exclude=("D6", "E5"))
    assert last["forced"] is False and last["forced_cells"] == 3
    assert last["message"] == (
        "every forced cell has been named (2, and the Peak at C6 the briefing gives): reveal one, or guess"
    )


def test_explain_forced_with_a_plain_time_limit_explains_the_same_cells_under_any_load(monkeypatch):
    """``explain_forced(solver, state, time_limit=10)`` from the Python API gave each cell a share of what was left of
    the wall clock: on a busy machine fewer cells were explained (8 of fauna-201-k34's 12 with the clock run 50 times
    faster, as a load of 50 would). Each cell now gets an equal share of the limit's counted work (SAT propagations),
    the wall clock only a safety net, so the same cells are explained, the same way, under any load."""
    import time

    state = read_map(DATA / "states" / "fauna-201-k34.toml")
    solver = Solver.for_chapter(state.chapter)
    forced = solver.forced(state)
    idle = explain_forced(solver, state, time_limit=10, forced=forced)
    assert {e.cell: e.terrain for e in idle} == forced  # every cell within the work of 10 s
    real = time.monotonic
    monkeypatch.setattr(time, "monotonic", lambda: real() * 50)  # the wall clock runs 50 times faster: load 50
    busy = explain_forced(solver, state, time_limit=10, forced=forced)
    assert [(e.cell, e.rules, e.cells) for e in busy] == [(e.cell, e.rules, e.cells) for e in idle]


@pytest.mark.parametrize("name", ["fauna-201-k34", "flora-202-k34", "vameter-201-k34", "maldonado-201-k34"])
def test_the_easiest_explanation_searched_level_by_level_needs_the_fewest_rules(name):
    """What a hint names (``easiest_explanation``, which stops at the fewest rules any cell needs) needs as few
    rules as the easiest of every cell's full explanation, and is itself sound and subset-minimal."""
    state = read_map(DATA / "states" / f"{name}.toml")
    solver = Solver.for_chapter(state.chapter)
    forced = {i: t for i, t in solver.forced(state).items() if i != state.briefing.peak}
    full = easiest(explain_forced(solver, state, time_limit=60, forced=forced))
    best = easiest_explanation(solver, state, reasons_budget(solver.budget(60)), forced)
    assert best is not None and forced[best.cell] is best.terrain
    assert len(best.rules) == len(full.rules)
    assert_sound_and_minimal(state, best.cell, best.terrain, best.rules, best.cells)


@pytest.mark.slow
def test_hint_without_a_forced_cell_names_the_best_odds(example):
    m = example("training-201")
    state = m.hide(i for i in range(m.board.size) if i != m.briefing.peak)
    result = hint(Solver.for_chapter("training"), state, Terrain.WOOD)
    assert not result["forced"] and result["message"] == "no cell is forced: you must guess"
    cells = [o["cell"] for o in result["odds"]]
    assert sorted(cells) == ["B7", "C7", "D7", "E7", "F7"]  # nothing explored yet: the river column
    chances = [o["chance"] for o in result["odds"]]
    assert chances == sorted(chances, reverse=True) and result["best"][0] == cells[0]


# -- the command line ----------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_solve_explain_json():
    path = DATA / "states" / "training-201-k16.toml"
    r = run("solve", str(path), "--explain", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [e["cell"] for e in data["explanations"]] == sorted(data["forced"], key=lambda c: (c[0], int(c[1:])))
    for e in data["explanations"]:
        assert set(e) == {"cell", "terrain", "rules", "cells", "text"}
        assert data["forced"][e["cell"]] == e["terrain"]
    r = run("solve", str(path), "--explain")
    assert r.exit_code == 0 and "why:" in r.stdout and "B4 must be Water" in r.stdout


def test_cli_solve_explain_whose_share_runs_out_says_what_is_missing_and_exits_3(monkeypatch):
    """A forced cell whose explanation did not fit its share of the limit's work was listed in "unexplained" and the
    command exited 0, where the help promises exit 3 with what is missing when the time limit runs out later."""
    from mapgen import report

    path = DATA / "states" / "training-201-k16.toml"
    full = json.loads(run("solve", str(path), "--explain", "--json").stdout)
    real = report.explain_forced

    def short_of_one(*args, **kwargs):
        return real(*args, **kwargs)[1:]  # the first cell's explanation did not fit its share

    monkeypatch.setattr(report, "explain_forced", short_of_one)
    r = run("solve", str(path), "--explain", "--json")
    first = full["explanations"][0]["cell"]
    assert r.exit_code == 3
    data = json.loads(r.stdout)
    assert data["unexplained"] == [first] and data["missing"] == ["explanations"]
    assert data["explanations"] == full["explanations"][1:] and data["forced"] == full["forced"]
    assert r.stderr == (
        f"error: {path}: no explanation within the time limit for {first} (--time-limit 10); "
        "printed what was found, missing: explanations\n"
    )


def test_cli_solve_explain_with_no_explanation_in_time_never_says_no_cell_is_forced(monkeypatch):
    """When no forced cell's explanation fit its share of the work, `solve --explain` printed "why: no cell is forced"
    above the list of the forced cells it had not explained."""
    from mapgen import report

    path = DATA / "states" / "training-201-k16.toml"
    monkeypatch.setattr(report, "explain_forced", lambda *args, **kwargs: [])
    r = run("solve", str(path), "--explain")
    assert r.exit_code == 3
    lines = r.stdout.splitlines()
    why = lines.index("why:")
    assert lines[why + 1].endswith(": no explanation in time)") and "no cell is forced" not in r.stdout


def test_cli_hint_whose_forced_cells_find_no_explanation_in_time_exits_3(monkeypatch):
    """The hint "cells are forced but no explanation was found in time (raise --time-limit)" came with exit 0."""
    from mapgen.solving import explain

    path = DATA / "states" / "training-201-k16.toml"
    monkeypatch.setattr(explain, "easiest_explanation", lambda *args, **kwargs: None)
    r = run("hint", str(path), "--json")
    assert r.exit_code == 3 and not json.loads(r.stdout)["forced"]
    assert r.stderr == (
        f"error: {path}: cells are forced but no explanation was found within the time limit (--time-limit 10); "
        "printed what was found, missing: explanation\n"
    )


def test_a_forced_cell_without_an_explanation_is_missing_in_the_json_and_exit_3_in_the_cli_and_the_web(monkeypatch):
    """``mapgen hint`` exited 3 saying "missing: explanation" on stderr alone (its JSON did not say it), while the
    web's /api/hint gave the same answer with exit 0: the explanation's search is counted work, a share of the time
    limit (more --time-limit, more work), as solve's explanations are (exit 3, ``missing: ["explanations"]``).
    Both now exit 3 with ``"missing": ["explanation"]`` in the JSON, and the page's sentence names it."""
    from mapgen.solving import explain
    from mapgen.web import hints, service

    path = DATA / "states" / "training-201-k16.toml"
    monkeypatch.setattr(explain, "easiest_explanation", lambda *args, **kwargs: None)
    monkeypatch.setattr(hints, "easiest_explanation", lambda *args, **kwargs: None)
    cli = run("hint", str(path), "--json")
    assert cli.exit_code == 3
    printed = json.loads(cli.stdout)
    assert printed["missing"] == ["explanation"] and printed["forced_cells"] > 0
    code, web = service.do_hint({"map": path.read_text(), "time_limit": 10})
    assert code == 3 and web["missing"] == ["explanation"] and web["forced_cells"] == printed["forced_cells"]
    assert web["missing_text"] == (  # counted work: asking again would find the same none, so the page says so
        "an explanation of a forced cell: its search, sized by the time limit (10 s), found none "
        "(asking again gives the same answer)"
    )
    state = read_map(path)
    first = Solver.for_chapter(state.chapter).forced(state)
    named = state.board.name(next(iter(first)))
    left = hints.easiest_hint(state, exclude=(named,))  # "Next hint", the cells left finding no explanation
    assert left["missing"] == ["explanation"] and "not named yet" in left["message"]


def test_cli_hint():
    path = DATA / "states" / "training-201-k16.toml"
    r = run("hint", str(path), "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["forced"] and set(data["explanation"]) == {"cell", "terrain", "rules", "cells", "text"}
    r = run("hint", str(path))
    assert r.exit_code == 0 and "must be" in r.stdout
    r = run("hint", str(DATA / "invalid" / "training-201-m.toml"))
    assert r.exit_code == 1 and "no completion" in r.stderr
    r = run("hint", str(path), "--target", "Qq")
    assert r.exit_code == 2 and "unknown terrain code 'Qq'" in r.output


def test_hint_s_cites_line_tells_a_rule_from_a_cell_of_the_same_name():
    """Rule ids C1-C9 are also the names of cells C1-C7: `mapgen hint` on a Training puzzle printed "(cites C6, C5,
    C6)", the rule C6 Rock and the Rock revealed at C6 alike. The line names which are rules and which are cells."""
    from mapgen.solving.explain import hint_text

    state = read_map(DATA / "states" / "training-201-k16.toml")

    def cites(rules, cells):
        said = {"forced": True, "explanation": {"rules": rules, "cells": cells, "text": "D4 must be Rock: ..."}}
        return hint_text(state, said, "puzzle.toml").splitlines()[1]

    assert cites(["C6"], ["C5", "C6"]) == "  (cites rule C6; cells C5, C6)"
    assert cites(["C1", "C4"], ["B5"]) == "  (cites rules C1, C4; cell B5)"
    assert cites(["C6"], []) == "  (cites rule C6)"
    assert cites([], []) == "  (cites the briefing)"
    r = run("hint", str(DATA / "states" / "training-201-k16.toml"))
    assert r.exit_code == 0 and re.search(
        r"\n  \(cites rules? C\d(, C\d)*(; cells? [A-G]\d(, [A-G]\d)*)?\)\n$", r.stdout
    )


def test_cli_hint_json_on_a_state_with_no_completion_names_the_conflict_as_solve_does():
    """``hint --json`` on a state no map completes printed nothing on stdout (exit 1, the error on stderr), where
    ``solve --json`` prints the conflict and the web's /api/hint answers ``{"forced": false, "message", "conflict"}``:
    a script reading the JSON got nothing to read. Now the same object as the web's, exit 1, the one line on stderr."""
    path = DATA / "invalid" / "training-201-m.toml"
    r = run("hint", str(path), "--json")
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    solved = json.loads(run("solve", str(path), "--json").stdout)
    assert data == {"forced": False, "message": solved["conflict"]["message"], "conflict": solved["conflict"]}
    assert data["conflict"]["rules"] == ["C6"]
    assert r.stderr == f"error: {path}: {data['message']}\n"
    r = run("hint", str(path), "--steps", "--json")
    assert r.exit_code == 1 and json.loads(r.stdout) == {"steps": [], "end": data}


def test_cli_hint_on_a_chapter_that_counts_no_terrain_says_how_to_get_odds(tmp_path):
    """On Training with nothing forced, `mapgen hint` said only "you must guess": no odds, since Training counts no
    terrain, and no word of --target (which solve --target names)."""
    import maps

    m = maps.load("training-1")
    path = tmp_path / "start.toml"
    path.write_text(dumps_map(m.hide(range(m.board.size))), encoding="utf-8")
    r = run("hint", str(path))
    assert r.exit_code == 0, r.output
    assert r.stdout == (
        f"{path}: no cell is forced but the Peak at C6, known from the briefing: you must guess\n"
        "  (the training chapter counts no terrain: name one with --target CODE for the Paths' odds)\n"
    )
    assert "--target" not in run("hint", str(path), "--target", "Wo").stdout
    assert (
        json.loads(run("hint", str(path), "--json").stdout)["message"]
        == "no cell is forced but the Peak at C6, known from the briefing: you must guess"
    )


def test_a_hint_whose_only_forced_cell_is_the_peak_says_so_and_counts_it_as_solve_does():
    """Before the first move (training-start.toml: only the briefing known) `mapgen hint` said "no cell is forced: you
    must guess" where `mapgen solve` lists the hidden Peak among the forced cells ("forced: 1 of 25 ... D5 Ro"), and
    `hint --json` gave no "forced_cells", as it does wherever a cell is forced. The words now name the Peak as known
    from the briefing, the JSON counts it as solve does, and the helper's hint says the same."""
    from mapgen.web.hints import easiest_hint

    path = DATA.parent.parent / "examples" / "training-start.toml"
    solved = json.loads(run("solve", str(path), "--json").stdout)
    assert solved["forced"] == {"D5": "Ro"}  # the Peak, hidden
    said = "no cell is forced but the Peak at D5, known from the briefing: you must guess"
    r = run("hint", str(path))
    assert r.exit_code == 0, r.output
    assert r.stdout == (
        f"{path}: {said}\n  (the training chapter counts no terrain: name one with --target CODE for the Paths' odds)\n"
    )
    hinted = json.loads(run("hint", str(path), "--json").stdout)
    assert hinted["forced"] is False and hinted["message"] == said
    assert hinted["forced_cells"] == len(solved["forced"]) == 1 and hinted["from_briefing"] == ["D5"]
    web = easiest_hint(read_map(path))
    assert web["message"] == said and web["forced_cells"] == 1 and web["from_briefing"] == ["D5"]


def test_hint_where_no_path_can_hold_the_target_names_the_paths_without_odds():
    """`mapgen hint fauna-1 --reveal G7=Hi` (no Fort can be next) said "no unexplored Path ... can hold a Fort",
    then "then: F7 0%, G6 0%", as if those were the runners-up."""
    r = run("hint", "fauna-1", "--reveal", "G7=Hi")
    assert r.exit_code == 0, r.output
    assert r.stdout == (
        "fauna-1: no cell is forced but the Peak at F2, known from the briefing: you must guess\n"
        "no unexplored Path next to the explored ones can hold a Fort\n"
        "  the Paths you may explore: F7, G6\n"
    )


def test_a_target_with_a_hill_number_or_an_unknown_code_lists_the_chapter_s_codes():
    """`--target Hi1` said only "unknown terrain code 'Hi1'": neither that a terrain has no number nor the codes."""
    codes = "Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft"
    r = run("hint", "fauna-1", "--reveal", "none", "--target", "Hi1")
    assert r.exit_code == 2
    assert r.stderr == f"error: --target: unknown terrain code 'Hi1' ({codes}; a Hill is Hi, without its number)\n"
    r = run("solve", "fauna-1", "--reveal", "none", "--target", "Qq")
    assert r.exit_code == 2 and r.stderr == f"error: --target: unknown terrain code 'Qq' ({codes})\n"


def test_a_peak_revealed_as_another_terrain_is_a_conflict_named_by_the_briefing(tmp_path):
    """A revealed Peak that is not a Rock is the cause, found at once (never 'the time limit ran out')."""
    import maps
    from mapgen.solving.solve import NoCompletion

    m = maps.load("fauna-1")
    peak = m.board.index("F2")
    state = m.hide(range(m.board.size)).with_cells(Terrain.WATER if i == peak else None for i in range(m.board.size))
    e = Solver(get_chapter("fauna")).explain(state, time_limit=10)
    assert isinstance(e, NoCompletion) and e.rules == ("C6",) and e.cells == ("F2",)
    assert "the briefing makes the Peak F2 a Rock (C6)" in str(e) and "time limit" not in str(e)
    path = tmp_path / "state.toml"
    path.write_text(dumps_map(state), encoding="utf-8")
    r = CliRunner().invoke(main, ["solve", str(path)])
    assert r.exit_code == 1 and "the briefing makes the Peak F2 a Rock" in r.output


def test_target_odds_without_a_circuit_or_a_sampler_say_where_it_may_be(monkeypatch):
    """``hint --target`` with no fair odds in time: null where the target may be, 0 where it cannot, 1 where it
    must; the text names the cells and gives no percentage (issue 24: never odds from biased samples)."""
    import mapgen.solving.solve as S
    import maps
    from constraints.catalogue import get_chapter
    from mapgen.solving.explain import frontier, hint, hint_text
    from mapgen.solving.solve import CircuitStore, Solver
    from mapgen.terrain import Terrain

    monkeypatch.setattr(S, "unigen_samples", lambda *a, **k: None)
    m = maps.load("flora-5")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[2:])
    solver = Solver(get_chapter("flora"), circuits=CircuitStore(None, compiles=False))
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: None)
    monkeypatch.setattr(solver, "sampled_odds", lambda *a, **k: None)  # no sampler's run in time either
    out = hint(solver, state, Terrain.WOOD, time_limit=20.0)
    assert out["forced"] is False and out["odds_method"] == "none" and out["odds_exact"] is False
    possible = solver.possible(state)
    b = state.board
    for o in out["odds"]:
        ts = possible[b.index(o["cell"])]
        assert o["chance"] == (0.0 if Terrain.WOOD not in ts else 1.0 if ts == {Terrain.WOOD} else None)
    may = [b.name(i) for i in frontier(state) if Terrain.WOOD in possible[i] and possible[i] != {Terrain.WOOD}]
    assert may and set(out["best"]) == set(may)
    text = hint_text(state, out, "s.toml")
    assert f"it may be at {', '.join(o['cell'] for o in out['odds'] if o['chance'] is None)}" in text
    assert "%" not in text


@pytest.mark.parametrize("revealed, asked", [(0, False), (16, True)])
def test_a_hint_asks_the_model_counter_only_where_solve_s_count_does(monkeypatch, revealed, asked):
    """Below ``counter_from`` revealed cells Ganak was measured never to land within its share, and ``solve``'s
    count does not ask it; ``hint`` asked it all the same for the state's total (0.35 s of a 10 s limit on the empty
    maldonado-1 board, its odds then out of time on a busy machine). Now it asks it where solve does."""
    import maps
    from constraints.catalogue import get_chapter
    from mapgen.solving.explain import hint
    from mapgen.solving.solve import CircuitStore, Solver, counter_from
    from mapgen.terrain import Terrain

    m = maps.load("vameter-1")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[revealed:])
    solver = Solver(get_chapter("vameter"), circuits=CircuitStore(None, compiles=False))
    assert (revealed >= counter_from(solver.chapter)) is asked
    counted: list = []
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: counted.append(a) and None)
    monkeypatch.setattr(solver, "sampled_odds", lambda *a, **k: None)  # no odds: only the route to them matters
    out = hint(solver, state, Terrain.FEZRON_CAMP, time_limit=20.0)
    assert out["forced"] is False  # no cell forced: the odds are what a hint gives
    assert bool(counted) is asked


@pytest.mark.slow
def test_hint_ranks_by_the_odds_solve_prints_with_their_error_bars(monkeypatch, slow_clock):
    """On a state no circuit answers (maldonado-1 with C1 and G1 revealed, nothing forced), ``hint --target``
    ranks the Paths by the sampler's odds that ``solve --probabilities`` prints at the same time limit, with
    their error bars: it gave the sampler all of its budget where solve gave it 0.4 of the time limit (other
    sweeps, other odds: a hint could rank a cell first that solve's odds put second) and printed no ±."""
    import mapgen.report
    import mapgen.solving.explain
    import maps
    from mapgen.report import solve_report
    from mapgen.solving.explain import hint_text

    # the default 10 s's sampler work (4 s of sweeps) under a wall clock of 40 s, run 50 times slower (``slow_clock``):
    # the same odds on any load (a busy one ran out of the 40 s: a time-out, never other odds, but none to compare)
    for module in (mapgen.report, mapgen.solving.explain):
        monkeypatch.setattr(module, "SAMPLE_SECONDS", 0.1)
    m = maps.load("maldonado-1")
    b = m.board
    keep = {b.index("C1"), b.index("G1")}
    state = m.hide(i for i in range(b.size) if i not in keep)
    out = hint(Solver.for_chapter("maldonado"), state, Terrain.SKULL, time_limit=40.0)
    assert out["forced"] is False and out["odds_method"] == "sampler"
    rep = solve_report(state, probabilities=True, time_limit=40.0)
    assert rep["probabilities_method"] == "sampler"
    for o in out["odds"]:
        assert o["chance"] == rep["probabilities"][o["cell"]].get("Sk", 0.0), o
        assert o.get("error", 0.0) == rep["probabilities_error"][o["cell"]].get("Sk", 0.0), o
    chances = [o["chance"] for o in out["odds"]]
    assert chances == sorted(chances, reverse=True) and out["best"] == [out["odds"][0]["cell"]]
    # each with its error bar: a ±, or the range it holds where it reaches past 0% or 100% ("22% (0–94%)")
    assert re.search(r"\d% (±\d+|\(\d+–\d+%\))", hint_text(state, out, "s.toml"))


def test_hint_with_only_the_peak_hidden_says_nothing_is_left_not_guess():
    """A puzzle solved but for its Peak (a Rock every player knows from the briefing): `mapgen hint` said "no cell
    is forced: you must guess", and with `--target Ro` "best odds of a Rock: C6 100%"."""
    cells = ",".join(f"{r}{c}" for r in "BCDEF" for c in range(3, 8) if f"{r}{c}" != "C6")
    for extra in ([], ["--target", "Ro"]):
        r = run("hint", "training-1", "--reveal", cells, *extra)
        assert r.exit_code == 0, r.output
        assert (
            r.stdout
            == "training-1: every cell is revealed or known from the briefing (the Peak at C6): nothing left to deduce\n"
        )
    data = json.loads(run("hint", "training-1", "--reveal", cells, "--json").stdout)
    assert data["forced"] is False and "odds" not in data and data["message"].endswith("nothing left to deduce")


def test_hint_steps_walks_a_puzzle_to_its_one_completion(tmp_path):
    """A puzzle maker wants the worked solution of a `deduce --puzzle` file: `hint` gave one step, and each next
    step needed the file edited by hand. `--steps` reveals each easiest deduction in turn until nothing is left."""
    import maps

    m = maps.load("training-1")
    path = tmp_path / "puzzle.toml"
    assert run("deduce", "training-1", "--no-profile", "--puzzle", str(path)).exit_code == 0
    puzzle = read_map(path)
    hidden = {m.board.name(i) for i in puzzle.unrevealed()} - {"C6"}  # the Peak: known from the briefing
    r = run("hint", str(path), "--steps", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert {e["cell"] for e in data["steps"]} == hidden and len(data["steps"]) == len(hidden)
    assert all(m.at(e["cell"]).code == e["terrain"] for e in data["steps"])
    assert data["end"]["message"].endswith("nothing left to deduce")
    text = run("hint", str(path), "--steps").stdout.splitlines()
    assert text[0] == f"{path}: {len(hidden)} steps, each the easiest deduction"
    assert text[1].startswith("   1. ") and " must be " in text[1]
    # "(C6)" alone read as the rule C6 Rock: the cell is named as what the briefing makes it
    assert (
        text[-1] == "then: every cell is revealed or known from the briefing (the Peak at C6): nothing left to deduce"
    )


def test_a_flora_puzzle_solved_but_for_its_peak_and_start_names_both_as_the_briefing_makes_them():
    m = maps.load("flora-1")
    peak, start = m.board.name(m.briefing.peak), m.board.name(m.briefing.start)
    cells = ",".join(m.board.name(i) for i in range(49) if m.board.name(i) not in (peak, start))
    r = run("hint", "flora-1", "--reveal", cells)
    assert r.exit_code == 0, r.output
    said = {m.briefing.peak: f"the Peak at {peak}", m.briefing.start: f"the start Fort at {start}"}
    left = ", ".join(said[i] for i in sorted(said))  # in the board's order
    assert r.stdout == f"flora-1: every cell is revealed or known from the briefing ({left}): nothing left to deduce\n"


def test_hint_steps_stops_where_a_guess_is_needed():
    r = run("hint", "training-1", "--reveal", "none", "--steps", "--target", "Wo")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "training-1: 0 steps, each the easiest deduction"
    assert lines[1] == "then: no cell is forced but the Peak at C6, known from the briefing: you must guess" and lines[
        2
    ].startswith("best odds of a Wood: ")


def test_hint_steps_that_run_out_of_time_print_the_steps_found_and_exit_3(monkeypatch):
    from mapgen.solving import explain
    from mapgen.solving.solve import SolveTimeout

    real, calls = explain.hint, []

    def second_runs_out(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise SolveTimeout("the time limit ran out")
        return real(*args, **kwargs)

    monkeypatch.setattr(explain, "hint", second_runs_out)
    r = run("hint", str(DATA / "states" / "training-201-k16.toml"), "--steps")
    assert r.exit_code == 3, r.output
    lines = r.stdout.splitlines()
    assert lines[0].endswith(": 1 step, each the easiest deduction") and lines[1].startswith("   1. ")
    assert lines[2] == "then: the time limit ran out here (raise --time-limit)"
    assert "time limit ran out" in r.stderr


def test_hint_steps_give_every_step_the_same_work_whatever_the_clock_says(monkeypatch):
    """`mapgen hint puzzle.toml --steps` twice on a busy machine (load 8) printed 6 steps, then 3: each step's search
    was given what was left of the wall clock, so how far a step's search went, and which cell came out easiest,
    followed the load. Each step now has the --time-limit's work (counted, the same on any machine); the wall clock
    still ends the whole path at the limit (exit 3, the steps found printed)."""
    import time

    from mapgen.solving import explain

    real, limits = explain.hint, []

    def slow_machine(*args, **kwargs):
        limits.append(kwargs["time_limit"])
        time.sleep(0.3)  # a busy machine: the wall clock runs on between and within the steps
        return real(*args, **kwargs)

    monkeypatch.setattr(explain, "hint", slow_machine)
    r = run("hint", str(DATA / "states" / "training-201-k16.toml"), "--steps", "--time-limit", "20")
    assert r.exit_code == 0, r.output
    assert len(limits) >= 3 and set(limits) == {20.0}, limits


def test_flora_s_start_fort_is_explored_so_the_first_paths_are_its_neighbours():
    """Flora's start Fort is explored before the first turn (its Path token leaves play): `mapgen hint flora-1
    --reveal none` named D7 itself as the one Path to explore, and after a first reveal ranked it at 0%."""
    import maps
    from mapgen.solving.explain import frontier

    m = maps.load("flora-1")
    b = m.board
    blank = m.hide(range(b.size))
    assert [b.name(i) for i in frontier(blank)] == ["C7", "D6", "E7"]
    first = blank.with_cells(m.cells[i] if b.name(i) == "D6" else None for i in range(b.size))
    assert "D7" not in [b.name(i) for i in frontier(first)]
    fauna = maps.load("fauna-1")  # a column 7 start: the column until something is explored
    assert [fauna.board.name(i) for i in frontier(fauna.hide(range(b.size)))] == [f"{r}7" for r in "ABCDEFG"]


def test_hint_whose_odds_run_out_of_time_prints_what_was_found_and_exits_3(monkeypatch):
    """`mapgen hint flora-1 --reveal D7,D6,C7,E7,C6` on a busy machine: the sampler ran out of time and the hint
    printed nothing but the error, though it knew no cell was forced; now it says so, names what is missing and
    exits 3, as `solve` does."""
    from mapgen.solving import explain
    from mapgen.solving.solve import SolveTimeout

    def runs_out(*args, **kwargs):
        raise SolveTimeout("the time limit ran out while the sampler ran (chain 3 of 12)")

    monkeypatch.setattr(explain, "_odds", runs_out)
    r = run("hint", "flora-1", "--reveal", "D7,D6,C7,E7,C6")
    assert r.exit_code == 3, r.output
    assert r.stdout == (
        "flora-1: no cell is forced but the Peak at F3, known from the briefing: you must guess\n"
        "exact (the odds did not come in time): of the Paths you may explore next, a Flora creature may be at B6, B7, C5, "
        "D5, E6, F7\n"
        "not in time: the Paths' odds of a Flora creature (the time limit ran out while the sampler ran (chain 3 of "
        "12)): raise --time-limit\n"
    )
    assert r.stderr.endswith("printed what was found, missing: odds\n")
    data = json.loads(run("hint", "flora-1", "--reveal", "D7,D6,C7,E7,C6", "--json").stdout)
    assert data["forced"] is False and data["missing"] == ["odds"] and "odds" not in data


def test_hint_says_whether_a_compiled_circuit_gave_its_odds(example, tmp_path, slow_clock):
    """`solve --json` says `"method": "d-dnnf"` where a compiled circuit answered, as the README promises of `hint`
    too; `hint --json` said only `"odds_method": "exact"`, the same for a circuit as for the model counter's
    counts per cell. Now `"method"` names the route, and the odds are the same either way."""
    import maps
    from mapgen.solving.compiled import CircuitCache
    from mapgen.solving.solve import CircuitStore

    m = example("training-201")
    state = m.hide(i for i in range(m.board.size) if i != m.briefing.peak)
    chapter = get_chapter("training")
    compiled = hint(Solver(chapter, circuits=CircuitStore(CircuitCache(tmp_path))), state, Terrain.WOOD, time_limit=120)
    counted = hint(Solver(chapter, circuits=CircuitStore(None, compiles=False)), state, Terrain.WOOD, time_limit=120)
    # (what answers is the CPU shares' doing; the wall clock, 50 times slower here, only ends the work: a busy
    # machine ran out of 120 s of it, a time-out with no odds to compare)
    assert (compiled.get("method"), compiled["odds_method"]) == ("d-dnnf", "exact"), compiled
    assert (counted.get("method"), counted["odds_method"]) == ("model counter", "exact"), counted
    assert compiled["odds"] == counted["odds"]
    nowhere = hint(Solver.for_chapter("fauna"), maps.load("fauna-1").hide(range(49)).with_cells(
        Terrain.HILL if i == 48 else None for i in range(49)), Terrain.FORT, time_limit=120)  # fmt: skip
    assert nowhere["odds_method"] == "exact" and nowhere["method"] == "possible terrains", nowhere


def test_hint_steps_say_a_cited_cell_was_deduced_by_an_earlier_step_not_revealed():
    """`mapgen hint training-1 --reveal ... --steps`: step 2 cited "the Water at E4 revealed", but E4 is hidden on the
    player's map: step 1 deduced it. A cell an earlier step deduced is worded as deduced, with that step's number, in
    the text and in the JSON (``deduced``: the cited cells that earlier steps deduced, by their step)."""
    reveal = "B7,C7,D7,E7,F7,C6,D6,E6,B5,C5,D5,F6,B6,E5,F5"
    r = run("hint", "training-1", "--reveal", reveal, "--steps", "--json")
    assert r.exit_code == 0, r.output
    steps = json.loads(r.stdout)["steps"]
    shown = set(reveal.split(","))
    found: dict[str, int] = {}
    cited_deduced = 0
    for n, e in enumerate(steps, 1):
        assert set(e["cells"]) <= shown | set(found)  # a step uses only cells revealed or deduced before it
        earlier = {c: found[c] for c in e["cells"] if c in found}
        assert e.get("deduced", {}) == earlier
        for c, k in earlier.items():
            cited_deduced += 1
            assert re.search(rf"at {c} \(deduced in step {k}\)", e["text"]), e["text"]
        revealed_words = e["text"].split(" revealed")[0] if " revealed" in e["text"] else ""
        assert not any(f"at {c}" in revealed_words for c in earlier), e["text"]  # never "E4 ... revealed"
        found[e["cell"]] = n
    assert cited_deduced >= 2  # the path does lean on its own deductions
    text = run("hint", "training-1", "--reveal", reveal, "--steps").stdout
    for e, line in zip(steps, text.splitlines()[1:], strict=False):
        assert line.endswith(e["text"])


def test_a_hint_out_of_time_before_its_possible_terrains_says_what_is_missing_in_words(monkeypatch):
    """When the wall clock ends a hint before the Paths' possible terrains, its JSON's ``missing`` is
    ``["may_hold", "must_hold", "odds"]``; stderr said those keys ("missing: may_hold, must_hold, odds"). It says
    them in words now, the JSON keeps its keys."""
    from mapgen.solving.solve import SolveTimeout

    real = Solver.possible

    def runs_out(self, state, *args, **kwargs):
        if kwargs.get("cells") is not None:  # the frontier's possible terrains, asked after the forced cells
            raise SolveTimeout("the time limit ran out while the possible terrains were found")
        return real(self, state, *args, **kwargs)

    monkeypatch.setattr(Solver, "possible", runs_out)
    r = run("hint", "flora-1", "--reveal", "D7,D6,C7,E7,C6", "--json")
    assert r.exit_code == 3, r.output
    assert json.loads(r.stdout)["missing"] == ["may_hold", "must_hold", "odds"]
    assert r.stderr.endswith("missing: which Paths may hold the target, which must, odds\n"), r.stderr


def test_hint_whose_odds_run_out_of_time_keeps_which_paths_may_hold_the_target(monkeypatch, slow_clock):
    """When the wall clock ends a hint's odds (exit 3), which Paths can hold the target and which must (the exact
    possible terrains, found before the odds) were dropped with them; `solve` keeps its possible terrains there. Now
    `hint --json` keeps them (``"may_hold"``: Paths that can hold the target but need not, ``"must_hold"``: those
    that must), the text says so in a line, "odds" stays absent (odds are not exact) and the web's /api/hint answers
    the same keys."""
    import maps
    from mapgen.solving import explain
    from mapgen.solving.explain import frontier
    from mapgen.solving.solve import Solver, SolveTimeout
    from mapgen.web import hints, service

    def runs_out(*args, **kwargs):
        raise SolveTimeout("the time limit ran out while the sampler ran (chain 3 of 12)")

    monkeypatch.setattr(explain, "_odds", runs_out)  # the one time-out here: the wall clock runs 50 times slower, so
    # that the possible terrains before it come on a busy machine too (there they ran out: "may_hold" missing as well)
    m = maps.load("flora-1")
    b = m.board
    keep = {b.index(c) for c in ("D7", "D6", "C7", "E7", "C6")}
    state = m.hide(i for i in range(b.size) if i not in keep)
    solver = Solver.for_chapter(m.chapter)
    cells = frontier(state)
    possible = solver.possible(state, cells=cells)
    fc = solver.chapter.counted
    may = [b.name(i) for i in cells if fc in possible[i] and len(possible[i]) > 1]
    must = [b.name(i) for i in cells if possible[i] == {fc}]
    assert may  # a state where the answer says something
    r = run("hint", "flora-1", "--reveal", "D7,D6,C7,E7,C6", "--json")
    assert r.exit_code == 3, r.output
    data = json.loads(r.stdout)
    assert data["may_hold"] == may and data["must_hold"] == must and data["target"] == "Fc"
    assert data["missing"] == ["odds"] and "odds" not in data
    assert r.stderr.endswith("printed what was found, missing: odds\n")
    text = run("hint", "flora-1", "--reveal", "D7,D6,C7,E7,C6")
    assert text.exit_code == 3
    # of the Paths a player may explore next (the frontier), never "may be at D6" alone where the board shades 31
    # Paths that may hold one (flora-2 with 10 reveals)
    said = f"exact (the odds did not come in time): of the Paths you may explore next, a Flora creature may be at {', '.join(may)}"
    assert said in text.stdout
    monkeypatch.setattr(hints, "best_guess", lambda *a, **k: None)  # the page's guess: not what is asked here
    code, web = service.do_hint({"map": dumps_map(state), "target": "Fc"})
    assert code == 3 and web["may_hold"] == may and web["must_hold"] == must and "odds" not in web


def test_a_hinted_hill_carries_the_number_solve_shows_for_it(tmp_path):
    """flora-4 with G2, G3 and G5 hidden: `solve` shows G5 as ``Hi1*`` (every completion numbers it 1:
    ``Solver.hill_numbers``) while `hint` said "G5 must be Hill" without it. The hint's text and JSON now carry it
    (``"number"``), and a solution path's later steps see it as a Hill showing 1."""
    state = maps.load("flora-4").hide(["G2", "G3", "G5"])
    path = tmp_path / "f4.toml"
    path.write_text(dumps_map(state))
    solved = json.loads(run("solve", str(path), "--json").stdout)
    assert solved["hill_numbers"] == {"G5": 1}
    r = run("hint", str(path), "--json")
    assert r.exit_code == 0, r.output
    e = json.loads(r.stdout)["explanation"]
    assert (e["cell"], e["terrain"], e["number"]) == ("G5", "Hi", 1)
    assert e["text"].startswith("G5 must be Hill") and e["text"].endswith(
        "It shows 1: every completion gives it that number."
    )
    text = run("hint", str(path))
    assert text.exit_code == 0 and "It shows 1: every completion gives it that number." in text.stdout
    steps = json.loads(run("hint", str(path), "--steps", "--json").stdout)["steps"]
    assert steps[0]["cell"] == "G5" and steps[0]["number"] == 1
