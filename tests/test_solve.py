"""Deduction on partial maps: exact counts, forced cells, probabilities, targets, conflicts (RULES.md §6)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import chapter_names, get_chapter
from constraints.csp import count_completions_csp
from mapgen.solving.bruteforce import completions_brute
from mapgen.solving.solve import CircuitStore, NoCompletion, Solver
from mapgen.terrain import Terrain


@pytest.fixture(scope="module")
def expected_states(data_dir):
    return json.loads((data_dir / "states" / "expected.json").read_text(encoding="utf-8"))


def state_names(data_dir_path=None):
    from tests.conftest import DATA

    return sorted(p.stem for p in (DATA / "states").glob("*.toml"))


@pytest.mark.parametrize("name", state_names())
def test_example_states_count_and_forced_exactly(name, example, expected_states):
    state = example(name, "states")
    want = expected_states[name]
    solver = Solver.for_chapter(state.chapter)
    result = solver.count(state)
    assert (result.count, result.exact) == (want["count"], want["exact"])
    forced = {state.board.name(i): t.code for i, t in solver.forced(state).items()}
    assert forced == want["forced"]
    possible = solver.possible(state)
    assert {state.board.name(i): next(iter(ts)).code for i, ts in possible.items() if len(ts) == 1} == want["forced"]


def hidden_states(chapter_names, k, per_map, seed):
    """States made by hiding k random cells of each valid example map."""
    from mapgen.mapfile import read_map
    from tests.conftest import DATA

    rng = random.Random(seed)
    for path in sorted((DATA / "valid").glob("*.toml")):
        m = read_map(path)
        if m.chapter not in chapter_names:
            continue
        for _ in range(per_map):
            yield path.stem, m.hide(rng.sample(range(m.board.size), k))


@pytest.mark.parametrize("name,state", list(hidden_states(chapter_names(), 3, 2, 1)))
def test_cpsat_counts_equal_brute_force_and_python_constraint(name, state):
    solver = Solver.for_chapter(state.chapter)
    brute = list(completions_brute(state))
    assert solver.count(state).count == len(brute) == count_completions_csp(state, time_limit=60)
    if brute:
        tallies = {i: Counter(c.cells[i] for c in brute) for i in state.unrevealed()}
        shares, exact = solver.probabilities(state)
        assert exact
        for i, counts in tallies.items():
            for t, n in counts.items():
                assert shares[i][t] == pytest.approx(n / len(brute))
            assert sum(shares[i].values()) == pytest.approx(1.0)


@pytest.mark.parametrize("name,state", list(hidden_states(("training", "maldonado", "flora"), 9, 1, 2)))
def test_larger_states_agree_with_python_constraint(name, state):
    solver = Solver.for_chapter(state.chapter)
    assert solver.count(state).count == count_completions_csp(state, time_limit=120)


def test_large_counts_use_the_exact_counter(example):
    m = example("training-201")
    state = m.hide(range(10, 25))  # 15 unknown cells: far beyond brute force, counted exactly
    result = Solver.for_chapter("training").count(state)
    assert result.exact and result.method == "d-dnnf" and result.count > 2_000
    # the compiled circuit's count is Ganak's, and its tallies add up to it in every cell
    from constraints.cnf import count_completions_cnf

    assert result.count == count_completions_cnf(state, time_limit=60)
    assert all(sum(d.values()) == result.count for d in result.tallies.values())
    # without a circuit (none cached, none compiled) the budget goes to the other counters
    alone = Solver(get_chapter("training"), circuits=CircuitStore(None, compiles=False))
    assert alone.count(state, time_limit=60).method == "model counter"
    capped = alone.count(state, limit=50, time_limit=30, exact_counter=False)
    assert (capped.count, capped.exact) == (50, False)


def test_unique_state_and_targets(example):
    m = example("fauna-201-k34", "states")
    solver = Solver.for_chapter("fauna")
    target = solver.target(m, Terrain.FORT)
    assert target["deduced"] and target["cells"] == ["D5", "E5", "F3"]
    full = example("fauna-201")
    assert solver.is_unique(full.hide([0]))
    assert not solver.is_unique(m)


def test_no_completion_names_rules_and_cells(example):
    bad = example("fauna-202-m", "invalid")
    with pytest.raises(NoCompletion) as err:
        Solver.for_chapter("fauna").count(bad.hide([0]))
    assert "C1" in err.value.rules
    assert "F4" in err.value.cells


def test_a_briefing_no_map_can_have_names_its_cell(example):
    """A hand-made briefing with the Peak on the board's edge (no Rock may stand there): the conflict names the
    Peak's cell, not only "rule C6 Rock conflicts with the briefing"."""
    from dataclasses import replace

    m = example("training-201")
    state = replace(m, briefing=replace(m.briefing, peak=m.board.index("B3"))).hide(range(m.board.size))
    with pytest.raises(NoCompletion) as err:
        Solver.for_chapter("training").count(state)
    assert err.value.rules == ("C6",)
    assert err.value.cells == ()  # a reason's cells are revealed ones: the Peak is named in words
    assert str(err.value) == "no completion: rule C6 Rock conflicts with the briefing: it makes the Peak B3 a Rock"


def test_a_briefing_at_odds_with_itself_names_its_rules_not_revealed_cells(example):
    """A hand-made Flora briefing whose start Fort is the Peak's cell: nothing revealed, yet solve said "the revealed
    cells conflict" (and named none). The rules whose briefing cells clash are named, with the cell."""
    from dataclasses import replace

    m = example("flora-201")
    peak = m.briefing.peak
    state = replace(m, briefing=replace(m.briefing, start=peak)).hide(range(m.board.size))
    with pytest.raises(NoCompletion) as err:
        Solver.for_chapter("flora").count(state)
    assert set(err.value.rules) == {"C6", "L4"} and err.value.cells == ()
    name = m.board.name(peak)
    assert str(err.value) == (
        "no completion: rules C6 Rock and L4 Start Fort conflict with the briefing: "
        f"it makes the Peak {name} a Rock and the start {name} a Fort"
    )


def test_foreign_terrain_is_no_completion(example):
    m = example("training-201")
    state = m.with_cells([Terrain.SKULL, *m.cells[1:]]).hide([5, 6])
    with pytest.raises(NoCompletion) as err:
        Solver.for_chapter("training").possible(state)
    assert err.value.rules == ("T1",)


# -- the command line ----------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_json_contract(data_dir, expected_states):
    path = data_dir / "states" / "vameter-202-k34.toml"
    r = run("solve", str(path), "--json", "--probabilities", "--target")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    want = expected_states["vameter-202-k34"]
    assert {k: data[k] for k in ("count", "exact", "unique", "forced")} == want
    from mapgen.mapfile import read_map

    state = read_map(path)
    assert set(data["probabilities"]) == {state.board.name(i) for i in state.unrevealed()}
    for shares in data["probabilities"].values():
        assert sum(shares.values()) == pytest.approx(1.0)
    assert data["target"]["terrain"] == "Fz"


def test_cli_on_a_complete_map_says_nothing_is_left_to_deduce():
    """`mapgen solve fauna-1` (the README's example of a shipped map by name) ended in "forced: 0 of 0 unrevealed
    cells (marked *)": a count of nothing, marks that mark nothing. It says what `hint` says of such a map."""
    r = run("solve", "fauna-1")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("fauna-1: 1 completion (unique)\n")
    assert r.stdout.splitlines()[-1] == "forced: none: every cell is revealed, nothing left to deduce"


def test_cli_conflict_names_its_rules_as_a_list(tmp_path):
    """Four rules in conflict read as a list ("A, B, C and D"), not as "A and B and C and D"."""
    path = tmp_path / "f4.toml"
    path.write_text(
        'chapter = "fauna"\nnumber = 4\npeak = "D3"\nstart = "column 7"\n'
        'fort_pattern = """\nTi Fo Sk\n.. Ft ..\nWa .. ..\n"""\nterrain = """\n'
        "   1   2   3   4   5   6   7\n"
        "A  ..  ..  ..  ..  ..  ..  ..\n"
        "B  Hi0 ..  ..  ..  Hi2 ..  ..\n"
        "C  Mu  ..  Vi  Fi  ..  ..  ..\n"
        "D  ..  ..  ..  ..  Wa  ..  ..\n"
        "E  ..  ..  ..  ..  ..  ..  ..\n"
        "F  ..  ..  ..  Fo  ..  ..  ..\n"
        "G  ..  ..  ..  ..  ..  ..  ..\n"
        '"""\n',
        encoding="utf-8",
    )
    r = run("solve", str(path))
    assert r.exit_code == 1, r.output
    assert "no completion: rules C1 Water–Wood, C8 Field, C9 Hill numbers and F2 Fort pattern conflict" in r.stderr
    r = run("solve", str(path), "--json")
    assert json.loads(r.stdout)["conflict"]["rules"] == ["C1", "C8", "C9", "F2"]


def test_cli_out_writes_the_one_completion_as_a_map(tmp_path, data_dir):
    """``solve -o`` had no way to write a puzzle's one completion; now it is a complete map file (Hill numbers
    filled in), an existing file is kept without --force and a bad path fails before the work (exit 2), and a
    state with several completions or none exits 1 with nothing written."""
    import maps
    from mapgen.mapfile import read_map

    puzzle = tmp_path / "puzzle.toml"
    assert run("deduce", "fauna-4", "--no-profile", "--puzzle", str(puzzle)).exit_code == 0  # Hills hidden
    out = tmp_path / "solution.toml"
    r = run("solve", str(puzzle), "-o", str(out))
    assert r.exit_code == 0, r.output
    assert r.stdout.endswith(f"the completion written to {out}\n")
    done = read_map(out)
    assert done.complete and done.cells == maps.load("fauna-4").cells and done.hills == maps.load("fauna-4").hills
    assert len(done.hills) > len(read_map(puzzle).hills)
    r = run("solve", str(puzzle), "-o", str(out))
    assert r.exit_code == 2 and r.stderr == f"error: {out}: already exists; use --force to overwrite\n"
    r = run("solve", str(puzzle), "-o", str(out), "--force", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["out"] == str(out)
    missing = tmp_path / "nope" / "x.toml"
    r = run("solve", str(puzzle), "-o", str(missing))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {missing}: ") and r.stdout == ""
    many = tmp_path / "many.toml"
    r = run("solve", "training-1", "--reveal", "B4", "-o", str(many))
    assert r.exit_code == 1 and not many.exists()
    assert r.stderr.endswith(f" completions, not one: nothing written to {many}\n")
    assert r.stderr.startswith("error: training-1: ")
    none = tmp_path / "none.toml"
    r = run("solve", str(data_dir / "invalid" / "training-201-m.toml"), "-o", str(none))
    assert r.exit_code == 1 and "no completion: rule C6 Rock conflicts" in r.stderr and not none.exists()


def test_cli_out_dash_prints_the_completion_and_reports_on_stderr(tmp_path, monkeypatch):
    """``solve puzzle.toml -o -`` was refused as "a map file is TOML; name the file .toml", though ``deduce --puzzle
    -`` and ``repair -o -`` print their map on stdout: a puzzle maker piping the answer key got no key. Now the one
    completion alone goes to stdout (a map file), the report to stderr, and no file named "-" is made; with --json
    (its report on stdout) it is refused before the work, and a state with several completions prints no map."""
    import maps
    from mapgen.mapfile import parse_map

    monkeypatch.chdir(tmp_path)
    puzzle = tmp_path / "puzzle.toml"
    assert run("deduce", "training-1", "--no-profile", "--puzzle", str(puzzle)).exit_code == 0
    r = run("solve", str(puzzle), "-o", "-")
    assert r.exit_code == 0, r.output
    done = parse_map(r.stdout)
    assert done.complete and done.cells == maps.load("training-1").cells
    assert r.stderr.startswith(f"{puzzle}: 1 completion (unique)\n")
    assert "written to" not in r.stderr and not (tmp_path / "-").exists()
    r = run("solve", str(puzzle), "-o", "-", "--json")
    assert r.exit_code == 2 and r.stdout == ""
    assert (
        r.stderr == "error: --out: - (stdout) cannot go with --json, which prints its report there: name a .toml file\n"
    )
    r = run("solve", "training-1", "--reveal", "B4", "-o", "-")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.endswith(" completions, not one: no map printed\n")


def test_cli_exit_codes(data_dir, tmp_path):
    assert run("solve", str(data_dir / "states" / "training-201-k16.toml")).exit_code == 0
    r = run("solve", str(data_dir / "invalid" / "training-201-m.toml"))
    assert r.exit_code == 1 and "no completion: rule C6 Rock conflicts" in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('chapter = "fauna"\npeak = "Z9"\n', encoding="utf-8")
    r = run("solve", str(bad))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {bad}: ")
    r = run("solve", str(data_dir / "states" / "training-201-k16.toml"), "--target", "Qq")
    assert r.exit_code == 2 and "unknown terrain code 'Qq'" in r.output


def test_a_deterministic_budget_gives_the_same_answer_in_every_session(example):
    """The deducer bot's budget: SAT propagations, not seconds, so a question's answer (or its timeout)
    does not depend on the machine's load nor on the questions other sessions were asked."""
    from constraints.catalogue import get_chapter
    from mapgen.solving.solve import SolveTimeout

    m = example("fauna-201")
    state = m.hide(range(30))
    solver = Solver(get_chapter("fauna"), time_limit=0.02, deterministic=True)

    def ask():
        session = solver.session(state.briefing)
        try:
            return solver.possible(state, cells=state.unrevealed()[:8], session=session)
        except SolveTimeout:
            return "timeout"

    first = ask()
    other = m.hide(range(20, 49))  # same briefing, its Hills shown: the shared session learns their numbers
    assert other.hills
    solver.possible(other, 5.0)
    assert ask() == first
    assert solver.spent > 0


@pytest.mark.slow
@pytest.mark.parametrize("chapter", ["training", "vameter", "fauna"])
def test_possible_on_an_empty_board_equals_cpsat_per_pair(chapter):
    """Possible terrains of a briefing-only board (the wall-clock path, on the rules-fixed session)
    equal CP-SAT's answer asked pair by pair: every (cell, terrain) is feasible or not."""
    from ortools.sat.python import cp_model

    import maps
    from constraints.catalogue import get_chapter
    from constraints.cpsat import ChapterModel

    m = maps.load(f"{chapter}-1")
    empty = m.hide(range(m.board.size))
    solver = Solver(get_chapter(chapter))
    possible = solver.possible(empty, 60)
    cm = ChapterModel(get_chapter(chapter), empty.briefing)
    cp = cp_model.CpSolver()
    cp.parameters.num_workers = 1
    cp.parameters.max_time_in_seconds = 30
    expected = {i: set() for i in range(m.board.size)}
    for i in range(m.board.size):
        for t, v in cm.x[i].items():
            if t in expected[i]:
                continue  # already in a completion CP-SAT found
            model = cm.model.clone()
            model.add(v == 1)
            status = cp.solve(model)
            assert status in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE)
            if status != cp_model.INFEASIBLE:
                for j, cell in enumerate(cm.x):
                    expected[j] |= {u for u, x in cell.items() if cp.value(x)}
    assert possible == {i: frozenset(ts) for i, ts in expected.items()}
    # and the deterministic (guarded-session) path gives the same answer
    det = Solver(get_chapter(chapter), time_limit=60, deterministic=True)
    assert det.possible(empty) == possible


def _partial_states(seed: int):
    """Per valid example map, states with random cells hidden (revealed Hills show their numbers), and
    the same with one revealed cell changed to a random terrain (often no completion)."""
    from constraints.catalogue import get_chapter
    from mapgen.mapfile import read_map
    from tests.conftest import DATA

    rng = random.Random(seed)
    for path in sorted((DATA / "valid").glob("*.toml")):
        m = read_map(path)
        for k in (40, 28):
            hidden = rng.sample(range(m.board.size), min(k, m.board.size - 2))
            state = m.hide(hidden)
            yield path.stem, state
            i = rng.choice([i for i in range(m.board.size) if i not in hidden])
            cells = list(state.cells)
            cells[i] = rng.choice(get_chapter(m.chapter).terrains)
            yield path.stem, state.with_cells(cells)


@pytest.mark.slow
def test_the_lazy_ruled_session_answers_like_the_guarded_session():
    """Wall-clock ``possible`` runs on the ruled session (the Rocks' connection checked lazily, counts as
    native cardinality constraints); the deterministic path keeps the full guarded encoding. On partial
    states of every chapter both give the same possible terrains (or both no completion), and every
    completion the ruled session returns keeps every rule by the plain-Python check."""
    from constraints.catalogue import check_map, get_chapter

    answered = conflicts = 0
    solvers = {}
    for _name, state in _partial_states(3):
        chapter = get_chapter(state.chapter)
        if state.chapter not in solvers:
            solvers[state.chapter] = Solver(chapter), Solver(chapter, time_limit=120, deterministic=True)
        fast, full = solvers[state.chapter]
        fast.slot(state.briefing).witnesses.clear()  # every pair asked of the ruled session again
        try:
            got = fast.possible(state, 60)
        except NoCompletion:
            got = None
        try:
            want = full.possible(state)
        except NoCompletion:
            want = None
        assert got == want
        answered += got is not None
        conflicts += got is None
        for w in fast.slot(state.briefing).witnesses:
            assert check_map(state.with_cells(w, hills={}), chapter) == []
    assert answered >= 12 and conflicts >= 3, (answered, conflicts)  # both kinds of answer were compared


def _no_fair_odds(monkeypatch):
    """A solver with no circuit at hand, UniGen out of CPU and no sampler's run in time."""
    import mapgen.solving.solve as S

    monkeypatch.setattr(S, "unigen_samples", lambda *a, **k: None)
    solver = Solver(get_chapter("flora"), circuits=CircuitStore(None, compiles=False))
    monkeypatch.setattr(solver, "sampled_odds", lambda *a, **k: None)
    # nor do Ganak or ApproxMC count it (they spend their CPU share on such a state and give up, as here)
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: None)
    monkeypatch.setattr(solver, "_approx_count", lambda *a, **k: None)
    return solver


def test_without_a_circuit_or_a_sampler_no_odds_are_made_up(monkeypatch):
    """Issue 24: odds come from the circuit (exact) or a sampler whose error is known, never from the completions
    a solver finds first. Without either, only the cells whose terrain is known have a share (1.0), and the report
    says there are no odds rather than printing biased ones."""
    import maps
    from mapgen.report import solve_report, solve_text

    solver = _no_fair_odds(monkeypatch)
    m = maps.load("flora-3")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[5:])
    possible = solver.possible(state)
    shares, method = solver.odds(state, time_limit=10.0)
    assert method == "none"
    assert shares == {i: {next(iter(ts)): 1.0} for i, ts in possible.items() if len(ts) == 1}
    assert solver.probabilities(state, time_limit=10.0) == (shares, False)
    heat, how = solver.heat(state, Terrain.WOOD, time_limit=10.0)
    assert how == "none"
    for i, ts in possible.items():
        assert heat[i] == (0.0 if Terrain.WOOD not in ts else 1.0 if ts == {Terrain.WOOD} else None)
    report = solve_report(state, probabilities=True, time_limit=20.0, solver=solver)
    assert report["probabilities_method"] == "none" and report["probabilities_exact"] is False
    assert set(report["probabilities"]) == {state.board.name(i) for i, ts in possible.items() if len(ts) == 1}
    text = solve_text(state, report, "s.toml")
    assert "probabilities: none in time (no compiled circuit, and the sampler did not finish" in text
    assert "%" not in text.split("probabilities:")[1]


def test_unigen_odds_are_labelled_as_almost_uniform_samples(monkeypatch):
    """Where UniGen answers, the odds are the shares over its samples, and say so."""
    import mapgen.solving.solve as S
    import maps
    from mapgen.report import solve_report, solve_text

    m = maps.load("training-1")
    state = m.hide(range(6))
    completions = [w.cells for w in completions_brute(state)][:4]
    drawn = [completions[k % len(completions)] for k in range(40)]
    monkeypatch.setattr(S, "unigen_samples", lambda *a, **k: drawn)
    solver = Solver(get_chapter("training"), circuits=CircuitStore(None, compiles=False))
    monkeypatch.setattr(solver, "exact_tallies", lambda *a, **k: None)
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: None)
    monkeypatch.setattr(solver, "_approx_count", lambda *a, **k: None)
    got = solver.odds_answer(state, time_limit=10.0, limit=1, method="unigen")
    shares, method = got.shares, got.method
    assert method == "unigen"
    for i in state.unrevealed():
        want = Counter(w[i] for w in drawn)
        assert shares[i] == pytest.approx({t: n / len(drawn) for t, n in want.items()})
    report = solve_report(state, probabilities=True, time_limit=20.0, solver=solver, limit=1, method="unigen")
    assert report["probabilities_method"] == "unigen"
    assert "probabilities (estimated from almost-uniform samples (UniGen)):" in solve_text(state, report, "s.toml")


def test_an_estimated_count_reads_for_people_and_the_completions_found_are_not_a_lower_count():
    """``solve flora-1 --reveal none`` printed "about 1.69e+22 completions (95%: 2.68e+21 to 3.34e+23 ...; proven:
    at least 709)": the e-notation read as noise, and "at least 709", which rose (709, 733, 743) as cells were
    revealed while the estimate fell, read as the count going up. The figures are now in words and the 709 are
    the completions found so far; the JSON keeps its numbers."""
    from mapgen.report import count_words

    smc = {"method": "smc", "value": 16_900_000_000_000_000_000_000, "low": 2_680_000_000_000_000_000_000}
    smc.update(high=334_000_000_000_000_000_000_000, confidence=0.95, runs=4, runs_planned=4, proven_low=709)
    report = {"count": smc["value"], "exact": False, "estimate": smc}
    assert count_words(report) == (
        "about 1.69 × 10²² completions (95%: 2.68 × 10²¹ to 3.34 × 10²³, estimated by sequential Monte Carlo; "
        "709 found so far)"
    )
    approx = {"method": "approxmc", "value": 11_903_456, "low": 6_612_000, "high": 21_426_000, "confidence": 0.8}
    approx.update(proven_low=1_000, proven_high=4_100_000_000_000)
    assert count_words({"count": approx["value"], "exact": False, "estimate": approx}) == (
        "about 11.9 million completions (estimate: ApproxMC, between 6,612,000 and 21.4 million with probability "
        "80%; 1,000 found so far; proven: at most 4.1 trillion)"
    )
    bounds = {"method": "bounds", "value": 500, "low": 500, "high": 2_980_000_000}
    assert count_words({"count": 500, "exact": False, "estimate": bounds}).startswith(
        "between 500 and 2.98 billion completions (proven bounds only"
    )
    assert count_words({"count": 11_887_738_830, "exact": True}) == "11,887,738,830 completions"  # exact: in full


def test_one_unrevealed_cell_is_said_in_the_singular(tmp_path):
    import maps
    from mapgen.mapfile import dumps_map

    m = maps.load("training-1")
    f = tmp_path / "one.toml"
    f.write_text(dumps_map(m.hide([m.board.index("C4")])), encoding="utf-8")
    r = CliRunner().invoke(main, ["solve", str(f)])
    assert r.exit_code == 0 and "forced: 1 of 1 unrevealed cell (marked *): C4 Ro\n" in r.stdout


def test_the_deducers_ruled_session_answers_like_the_guarded_session():
    """The deducer's session (``Solver.session(..., ruled=True)``: made without the lazily checked connections'
    layers, its variables numbered again) answers ``possible`` on kept proofs as the guarded session answers,
    on partial states of every chapter; it makes ruled forks only."""
    from mapgen.solving.proofs import Proofs
    from mapgen.solving.sat import SatSession

    compared = 0
    for _name, state in _partial_states(3):
        chapter = get_chapter(state.chapter)
        solver = Solver(chapter, time_limit=60, deterministic=True)
        session = solver.session(state.briefing, ruled=True)
        hidden = state.unrevealed()
        try:
            want = solver.possible(state, cells=hidden)
        except NoCompletion:
            continue
        got = solver.possible(state, cells=hidden, session=session, proofs=Proofs(chapter))
        assert got == want
        compared += 1
    assert compared >= 12
    with pytest.raises(ValueError):
        SatSession(chapter, state, lazy=True).fork()


class _Call:
    """A SAT call as the watchdog sees it: ``interrupt`` is what it calls past the deadline."""

    def __init__(self):
        import threading

        self.stopped = threading.Event()

    def interrupt(self):
        self.stopped.set()


def test_the_watchdog_interrupts_a_call_past_its_deadline_and_no_other():
    """The one thread that ends SAT calls at their wall-clock deadline: a call armed later with an earlier deadline
    is still interrupted on time (the thread sleeps until the nearest deadline), a call disarmed in time never is."""
    import time

    from mapgen.solving.sat import _Watchdog

    dog = _Watchdog()
    slow, late, quick = _Call(), _Call(), _Call()
    now = time.monotonic()
    dog.arm(slow, now + 3600)  # the thread now sleeps for an hour...
    dog.arm(late, now + 0.05)  # ...and must wake for this one
    dog.arm(quick, now + 0.05)
    dog.disarm(quick)
    assert late.stopped.wait(30), "a call past its deadline was not interrupted"
    time.sleep(0.1)
    assert not quick.stopped.is_set() and not slow.stopped.is_set()
    dog.disarm(late)
    dog.disarm(slow)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child")
def test_a_child_forked_while_the_watchdog_is_awake_still_gets_its_deadlines():
    """playtest's and grade's workers are forked from a process whose SAT calls started the watchdog's thread. Its
    lock is held whenever that thread is awake; a fork at that moment left the child's copy held by a thread the
    child does not have, and the child's first call with a deadline waited for it for good (a CI run hung on a
    test until its 90-minute limit). A forked child now starts its watchdog afresh, and it interrupts on time."""
    import threading
    import time

    from mapgen.solving import sat as sat_module
    from mapgen.workers import ForkedChild

    dog = sat_module._WATCH
    awake = threading.Event()
    leave = threading.Event()

    def hold():  # the watchdog's thread, awake (it holds the lock while it looks at the deadlines)
        with dog._cond:
            awake.set()
            leave.wait(30)

    def child():  # a call with a deadline 50 ms away: exit 0 only once it was interrupted
        call = _Call()
        dog.arm(call, time.monotonic() + 0.05)
        assert call.stopped.wait(10)
        dog.disarm(call)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert awake.wait(30)
        forked = ForkedChild(child)
        forked.start()
    finally:
        leave.set()
        holder.join(30)
    forked.join(20)
    if forked.is_alive():
        forked.kill()
        forked.join()
        pytest.fail("the forked child's call with a deadline hung on the watchdog's lock")
    assert forked.exitcode == 0, "the child's watchdog did not interrupt its call"


def test_reveal_asks_about_a_map_as_the_table_sees_it(tmp_path):
    """`--reveal` spares a player writing a partial map by hand: the shipped map's briefing with only the named
    cells shown (their terrain from the map, or the one given) answers as that state's file does."""
    import maps
    from mapgen.mapfile import dumps_map

    m = maps.load("training-1")
    state = tmp_path / "state.toml"
    keep = {"B7", "C7", "D7"}
    state.write_text(dumps_map(m.hide(n for n in m.board.names if n not in keep)), encoding="utf-8")
    by_file = run("solve", str(state), "--json")
    by_reveal = run("solve", "training-1", "--reveal", "B7, C7,D7", "--json")
    assert by_file.exit_code == by_reveal.exit_code == 0, by_reveal.output
    assert json.loads(by_reveal.stdout) == json.loads(by_file.stdout)
    # a terrain given is the one shown, a Hill with its number; cells given in a partial map's hidden cells too
    d7 = m.cells[m.board.index("D7")].code
    given = run("solve", str(state), "--reveal", f"B7,C7,D7={d7}", "--json")
    assert json.loads(given.stdout) == json.loads(by_file.stdout)
    empty = run("hint", "training-1", "--reveal", "none", "--json")  # the board before the first reveal
    assert (
        empty.exit_code == 0
        and json.loads(empty.stdout)["message"]
        == "no cell is forced but the Peak at C6, known from the briefing: you must guess"
    )
    for bad, problem in [
        ("Z9", "cell Z9 is off the board (B3 to F7)"),
        ("B7,B7", "B7 is named twice"),
        ("B7=", "B7=: give a terrain code after '=', like B7=Wa"),
        ("B7=Qq", "unknown terrain code 'Qq' for B7 (Training's codes: Fo Wo Wa Mu Ro)"),
        ("", "name cells like A7,B7 or A7=Wa, or none for the empty board"),
    ]:
        r = run("solve", "training-1", "--reveal", bad)
        assert (r.exit_code, r.stderr) == (2, f"error: --reveal: {problem}\n"), bad
    r = run("solve", str(state), "--reveal", "B6")  # hidden in the file: its terrain must be given
    assert (r.exit_code, r.stderr) == (2, f"error: --reveal: B6 is hidden in {state}: give its terrain, like B6=Wa\n")


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ("B7,", "an empty cell name in 'B7,' (a comma too many?): name cells like B7,C7"),
        ("B7,,C7", "an empty cell name in 'B7,,C7' (a comma too many?): name cells like B7,C7"),
        (
            "B7 C7",
            "'B7 C7' is not a cell name (a row letter and a column number, like E3): separate cells with commas, like B7,C7",
        ),
        (
            "B7;C7",
            "'B7;C7' is not a cell name (a row letter and a column number, like E3): separate cells with commas, like B7,C7",
        ),
        ("none,B7", "none is the board before the first reveal, alone: name cells, or none"),
        ("B7,none", "none is the board before the first reveal, alone: name cells, or none"),
    ],
)
def test_a_reveal_list_typed_as_a_list_is_told_how_to_write_it(bad, problem):
    """`--reveal A7,` (a script's trailing comma) said "'': a cell name first, like A7 or A7=Wa", and `--reveal
    "A7 B7"` or `A7;B7` said only that it is no cell name, as `none,A7` did of none: each now says what to write."""
    r = run("solve", "training-1", "--reveal", bad)
    assert (r.exit_code, r.stderr) == (2, f"error: --reveal: {problem}\n")


def test_reveal_of_a_hill_the_file_writes_without_its_number_shows_the_number(tmp_path):
    """RULES.md C9 lets a complete map's file write a Hill as plain `Hi`; at the table a revealed Hill shows its
    number (RULES.md §6), and the map fixes it. `--reveal A6` of such a file revealed a Hill with no number: solve,
    hint and render reasoned without what the players see. A number the file gives is kept as given."""
    import re

    from mapgen.cli.options import MapInput, revealed_input
    from mapgen.mapfile import dumps_map, parse_map

    m = maps.load("maldonado-1")
    bare = parse_map(re.sub(r"\bHi\d+", "Hi ", dumps_map(m)))
    assert not bare.hills
    names = [m.board.name(i) for i in m.cells_of(Terrain.HILL)]
    shown = revealed_input(MapInput("bare.toml", bare), ",".join(names)).map
    assert shown.hills == m.hills
    f = tmp_path / "bare.toml"
    f.write_text(dumps_map(bare), encoding="utf-8")
    by_bare = run("solve", str(f), "--reveal", ",".join(names), "--json", "--limit", "1")
    by_shipped = run("solve", "maldonado-1", "--reveal", ",".join(names), "--json", "--limit", "1")
    assert json.loads(by_bare.stdout)["forced"] == json.loads(by_shipped.stdout)["forced"]


def test_solve_loads_ortools_only_to_enumerate():
    """ortools (with pandas: 0.4 CPU s a process) is imported where a count enumerates with CP-SAT, not by
    ``mapgen solve``'s modules nor by the SAT questions (possible terrains, forced cells): a state whose count a
    circuit gives never pays for it. An enumeration still counts after the deferred import."""
    script = (
        "import sys, maps\n"
        "import mapgen.report\n"
        "from mapgen.solving.solve import Solver\n"
        "m = maps.load('fauna-1')\n"
        "state = m.hide(range(8))\n"
        "s = Solver.for_chapter(m.chapter)\n"
        "s.possible(state, 30)\n"
        "s.forced(state, 30)\n"
        "print('before:', 'ortools' in sys.modules, 'pandas' in sys.modules)\n"
        "slot = s.slot(state.briefing)\n"
        "import time\n"
        "tally = s._enumerate(slot, state, 10_000, time.monotonic() + 60)\n"
        "print('after:', 'ortools' in sys.modules, tally.count)\n"
    )
    root = Path(__file__).parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, cwd=root, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.splitlines()[-2:]
    assert before == "before: False False"
    m = maps.load("fauna-1")
    state = m.hide(range(8))
    assert after == f"after: True {Solver.for_chapter(m.chapter).count(state, time_limit=60).count}"


def test_unigen_out_of_its_budget_is_a_time_limit_not_a_success(tmp_path, slow_clock):
    """``solve --method unigen`` asks for UniGen's odds; where UniGen cannot draw its samples within the time limit
    (the empty Training board: about 200 CPU s for its 400 samples) the odds are missing, so the command says so and
    exits 3 after printing what it found (the guide's convention), never exit 0 with no odds. (At load 9-10 the
    exact count, well under a CPU second, had not come within 2 s, then 6 s, of the wall clock: under ``slow_clock``
    it always comes, while UniGen's child still has its 6 CPU seconds.)"""
    out = CliRunner().invoke(
        main, ["solve", "training-1", "--reveal", "none", "--method", "unigen", "--time-limit", "6", "--json"]
    )
    assert out.exit_code == 3, out.output
    report = json.loads(out.stdout)
    assert report["probabilities_method"] == "none" and "probabilities" in report["missing"]
    assert report["forced"] is not None and report["count"] == 7108570  # what was found is kept
    assert "missing: probabilities" in out.stderr and "Traceback" not in out.output


def test_a_unique_puzzle_s_board_shows_its_hidden_hills_numbers_as_the_answer_key_has_them(tmp_path):
    """Audit: ``solve`` on a puzzle with one completion showed its hidden Hills as ``Hi*``, though the one completion
    (the answer key ``-o`` writes) numbers them. A unique state's Hills show their numbers (``Hi1*``, and in the list
    of forced cells), ``--json`` adds ``"hill_numbers"``; a state with more completions keeps ``Hi*`` (only the
    terrain is forced) and says so, so the two cannot be confused."""
    import maps
    from mapgen.mapfile import dumps_map, read_map

    puzzle = tmp_path / "p.toml"
    assert run("deduce", "fauna-1", "--no-profile", "--puzzle", str(puzzle)).exit_code == 0
    state, key = read_map(puzzle), maps.load("fauna-1")
    b = state.board
    hidden = {b.name(i): key.hills[i] for i in state.unrevealed() if i in key.hills}
    assert hidden  # the puzzle hides Hills
    r = run("solve", str(puzzle))
    assert r.exit_code == 0, r.output
    rows = {line[0]: line[3:].split() for line in r.stdout.splitlines()[2:9]}
    for cell, n in hidden.items():
        assert rows[cell[0]][int(cell[1]) - 1] == f"Hi{n}*"
        assert f"{cell} Hi{n}" in r.stdout.splitlines()[9]
    assert "Hi*" not in r.stdout
    assert "(marked *; Hills numbered as in the one completion)" in r.stdout
    data = json.loads(run("solve", str(puzzle), "--json").stdout)
    assert data["hill_numbers"] == dict(sorted(hidden.items()))
    assert all(data["forced"][c] == "Hi" for c in hidden)  # the forced codes stay codes

    # B5 and C6 hidden leave 6 maps: A5 is a Hill in all of them, and a 1 in all of them (below: shown so)
    few = tmp_path / "few.toml"
    few.write_text(dumps_map(key.hide([b.index(c) for c in ("A5", "B5", "C6")])), encoding="utf-8")
    r = run("solve", str(few))
    assert r.exit_code == 0 and r.stdout.startswith(f"{few}: 6 completions\n")
    assert "Hills numbered as in the one completion" not in r.stdout  # more than one: not said of them


#: States with a hidden forced Hill and more than one completion, with what brute force finds (RULES.md §6): the
#: numbers of the forced Hills every completion gives alike, and the forced Hills numbered differently.
HILL_STATES = [
    # 6 completions, A5 a Hill showing 1 in each: its row and column hold no cell that may be a Fort
    ("fauna-1", ("A5", "B5", "C6"), {"A5": 1}, set()),
    # 3 completions, G5 a Hill showing 1 in each, though G3 in its row is a Flora creature in two of them and a Hill
    # in the third (G2 takes the creature then): only a search proves it
    ("flora-4", ("G2", "G3", "G5"), {"G5": 1}, set()),
    # 6 completions, C5 a Hill showing 2 in five and 3 in one (C6 a Flora creature): no number to show
    ("flora-4", ("B5", "C5", "C6"), {}, {"C5"}),
]


def brute_hills(state) -> tuple[dict[str, int], set[str]]:
    """The forced Hills' numbers the same in every completion, and the forced Hills numbered otherwise, by brute force."""
    from constraints.rules import hill_number

    chapter, b = get_chapter(state.chapter), state.board
    done = list(completions_brute(state))
    hills = [i for i in state.unrevealed() if done and all(c.cells[i] is Terrain.HILL for c in done)]
    numbers = {i: {hill_number(b, c.cells, i, chapter.counted) for c in done} for i in hills}
    fixed = {b.name(i): next(iter(ns)) for i, ns in numbers.items() if len(ns) == 1}
    return fixed, {b.name(i) for i, ns in numbers.items() if len(ns) > 1}


@pytest.mark.parametrize("name,cells,numbers,varying", HILL_STATES)
def test_a_forced_hill_s_number_is_deduced_exactly_when_every_completion_gives_it(name, cells, numbers, varying):
    """Audit: a forced Hill of a state with more completions than one showed ``Hi*``, though its number may be the
    same in every completion, deduced as surely as the Hill. ``Solver.hill_numbers`` gives it exactly then, as brute
    force finds, and never for a Hill two completions number differently."""
    m = maps.load(name)
    state = m.hide([m.board.index(c) for c in cells])
    assert len(list(completions_brute(state))) > 1
    assert brute_hills(state) == (numbers, varying)
    got = Solver(state.chapter, time_limit=5.0).hill_numbers(state)
    b = state.board
    assert {b.name(i): n for i, n in got.numbers.items()} == numbers
    assert {b.name(i) for i in got.varying} == varying and not got.unsettled


@pytest.mark.parametrize("name", ["fauna-201", "flora-201", "vameter-201", "maldonado-201", "maldonado-202"])
def test_hill_numbers_agree_with_brute_force_on_small_states(name, example):
    """Every Hill of the example hidden with two cells of its row or column, and with two cells anywhere: the numbers
    ``Solver.hill_numbers`` proves are brute force's, the Hills it finds numbered otherwise too."""
    from constraints.rules import hill_line

    m = example(name)
    rng = random.Random(7)
    solver = Solver(m.chapter, time_limit=5.0)
    b = m.board
    assert m.cells_of(Terrain.HILL)
    for h in m.cells_of(Terrain.HILL):
        for others in (rng.sample(hill_line(b, h), 2), rng.sample([i for i in range(b.size) if i != h], 2)):
            state = m.hide([h, *others])
            got = solver.hill_numbers(state)
            assert not got.unsettled
            numbers, varying = brute_hills(state)
            assert ({b.name(i): n for i, n in got.numbers.items()}, {b.name(i) for i in got.varying}) == (
                numbers,
                varying,
            )


def _hill_state(tmp_path, name, cells):
    from mapgen.mapfile import dumps_map

    m = maps.load(name)
    path = tmp_path / f"{name}.toml"
    path.write_text(dumps_map(m.hide([m.board.index(c) for c in cells])), encoding="utf-8")
    return path


@pytest.mark.parametrize("name,cells,numbers,varying", HILL_STATES)
def test_solve_shows_a_forced_hill_s_number_where_every_completion_gives_it(tmp_path, name, cells, numbers, varying):
    """``solve`` shows a deduced number on the board and in the forced list (``Hi1*``), ``--json`` in
    ``"hill_numbers"``; a forced Hill numbered differently keeps ``Hi*``, and the text says when a number shows."""
    path = _hill_state(tmp_path, name, cells)
    r = run("solve", str(path))
    assert r.exit_code == 0, r.output
    rows = {line[0]: line[3:].split() for line in r.stdout.splitlines()[2:9]}
    forced_line = r.stdout.splitlines()[9]
    for cell, n in numbers.items():
        assert rows[cell[0]][int(cell[1]) - 1] == f"Hi{n}*" and f"{cell} Hi{n}" in forced_line
    for cell in varying:
        assert rows[cell[0]][int(cell[1]) - 1] == "Hi*" and f"{cell} Hi," in forced_line + ","
    assert "(marked *; a forced Hill shows its number where every completion gives it the same one)" in forced_line
    data = json.loads(run("solve", str(path), "--json").stdout)
    assert data["hill_numbers"] == numbers and "hill_numbers_unsettled" not in data
    assert not data["unique"] and all(data["forced"][c] == "Hi" for c in (*numbers, *varying))


def test_a_hill_number_the_counted_work_did_not_settle_is_not_shown(slow_clock):
    """The numbers are proven by counted work (SAT propagations), never by the wall clock: with too little of it the
    number is not shown, never guessed, and said to be unsettled; with enough it is, and two fresh solvers spend the
    same work on it (the answer does not depend on the machine's load, nor on the questions asked before)."""
    import time

    from mapgen.report import hill_fields, solve_text
    from mapgen.solving.sat import Budget

    m = maps.load("flora-4")
    b = m.board
    state = m.hide([b.index(c) for c in ("G2", "G3", "G5")])
    g5 = b.index("G5")
    forced = Solver("flora").forced(state)
    work = Budget.until(1e-6, time.monotonic() + 600, deterministic=True)  # 20 propagations, a wall clock to spare
    starved = Solver("flora").hill_numbers(state, work, forced=forced)
    assert starved.numbers == {} and starved.unsettled == (g5,)
    report = {"count": 3, "exact": True, "unique": False, "forced": {"G5": "Hi"}}
    report.update(hill_fields(state, starved, forced))
    assert report["hill_numbers"] == {} and report["hill_numbers_unsettled"] == ["G5"]
    text = solve_text(state, report, "s.toml")
    assert "G  Wa   ..   ..   Hi2  Hi*" in text
    assert "gives it the same one; G5: its number not settled in time): G5 Hi\n" in text + "\n"
    spent = []
    for _ in range(2):
        solver = Solver("flora")
        assert solver.hill_numbers(state, 1.0, forced=forced).numbers == {g5: 1}
        spent.append(solver.spent)
    assert spent[0] == spent[1] > 0


def test_chapters_without_hill_numbers_answer_as_before(tmp_path):
    """Training has no Hills: ``solve`` says nothing of Hill numbers, ``--json`` keeps ``"hill_numbers": {}`` only
    where the state is unique (as before) and adds no key."""
    from mapgen.mapfile import dumps_map

    m = maps.load("training-1")
    b = m.board
    for cells, unique in ((("B3",), True), ((), None)):
        hidden = [b.index(c) for c in cells] or list(range(5, 20))
        path = tmp_path / "t.toml"
        path.write_text(dumps_map(m.hide(hidden)), encoding="utf-8")
        data = json.loads(run("solve", str(path), "--json").stdout)
        text = run("solve", str(path)).stdout
        if unique:
            assert data["unique"] and data["hill_numbers"] == {}
        else:
            assert not data["unique"] and "hill_numbers" not in data
        assert "hill_numbers_unsettled" not in data and "(marked *)" in text and "Hill" not in text


def test_a_two_digit_hill_number_keeps_the_board_s_columns_aligned():
    """Vameter and Maldonado Hills can show up to 12: ``Hi12*`` is five characters, one more than a column held."""
    import maps
    from mapgen.report import solve_text

    m = maps.load("vameter-1")
    state = m.hide([m.board.index("A1")])
    report = {"count": 1, "exact": True, "unique": True, "forced": {"A1": "Hi"}, "hill_numbers": {"A1": 12}}
    rows = solve_text(state, report, "s.toml").splitlines()[1:9]
    assert rows[1].startswith("A  Hi12* ")
    starts = {tuple(i for i in range(1, len(r)) if r[i] != " " and r[i - 1] == " ") for r in rows}
    assert len(starts) == 1  # every column starts where the header's number does


def test_the_wall_clock_ending_the_hill_numbers_is_a_time_limit_not_a_guess(monkeypatch):
    """Where the wall clock (not the counted work) ends the Hill numbers' proof, ``solve_report`` shows none of them,
    lists the forced Hills as unsettled and says what is missing (exit 3), keeping the forced cells."""
    from mapgen.report import solve_report
    from mapgen.solving.solve import SolveTimeout

    def late(self, *args, **kwargs):
        raise SolveTimeout("the time limit ran out")

    m = maps.load("fauna-1")
    state = m.hide([m.board.index(c) for c in ("A5", "B5", "C6")])
    monkeypatch.setattr(Solver, "hill_numbers", late)
    report = solve_report(state, solver=Solver("fauna"))
    assert report["forced"] == {"A5": "Hi"} and report["hill_numbers"] == {}
    assert report["hill_numbers_unsettled"] == ["A5"] and report["missing"] == ["hill_numbers"]
    assert report["timed_out"] == "the time limit ran out" and report["count"] == 6


def test_a_conflict_s_reason_is_the_same_on_a_busy_machine(monkeypatch):
    """A state with no completion names the rules and revealed cells that conflict (``Solver.explain``). Their search
    had 5 s of the wall clock: on a machine busy enough that its 0.05-0.1 CPU s took longer, the same state was "no
    completion found (the time limit ran out while looking for its reason)", no rule named (and exit 1, as a found
    reason). The search is counted work now (SAT propagations): the same reason under any load, the wall clock only
    a safety net far beyond it. Shown with a wall clock 1000 times faster than the CPU (a 0.03 CPU s search: 30 s)."""
    import time

    m = maps.load("fauna-1")
    b = m.board
    shown = {b.index(c): m.at(c) for c in ("A7", "B7", "C7", "D7", "E7", "F7", "G7", "C6", "D6", "E5")}
    shown[b.index("D6")] = Terrain.ROCK if m.at("D6") is not Terrain.ROCK else Terrain.WATER
    state = m.hide(range(b.size)).with_cells(shown.get(i) for i in range(b.size))

    def fresh() -> Solver:
        solver = Solver(get_chapter("fauna"))
        solver.slot(state.briefing)  # its SAT session built before the search's budget starts
        return solver

    idle = fresh().explain(state)
    assert idle.rules and "time limit" not in str(idle), idle
    busy = fresh()
    real = time.monotonic
    start = real()
    monkeypatch.setattr(time, "monotonic", lambda: start + 1000 * (real() - start))
    loaded = busy.explain(state)
    assert (str(loaded), loaded.rules, loaded.cells) == (str(idle), idle.rules, idle.cells)
