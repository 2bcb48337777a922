"""Counts that never fail: labelled estimates whose bounds hold, the house-chapter count, and the
exit codes of `mapgen solve` (0 a completion, 1 none, 2 unreadable, 3 out of time; Ctrl-C says so)."""

from __future__ import annotations

import dataclasses
import json
import random
import resource
import time

import pytest
from click.testing import CliRunner

import mapgen.report
from cli import main
from constraints.catalogue import get_chapter
from constraints.cnf import count_completions_cnf
from mapgen.solving.sat import Budget
from mapgen.solving.solve import CircuitStore, Solver, SolveTimeout
from tests.conftest import DATA


def small_states(n: int, hidden: int, seed: int):
    """States of the example maps with ``hidden`` random cells hidden: exact counts in the thousands."""
    from mapgen.mapfile import read_map

    rng = random.Random(seed)
    out = []
    for path in sorted((DATA / "valid").glob("*-201.toml"))[:n]:
        m = read_map(path)
        out.append((path.stem, m.hide(rng.sample(range(m.board.size), min(hidden, m.board.size - 4)))))
    return out


@pytest.mark.parametrize("name,state", small_states(5, 14, 7))
def test_estimate_bounds_hold_against_the_exact_count(name, state, monkeypatch):
    exact = count_completions_cnf(state, time_limit=120)
    solver = Solver(get_chapter(state.chapter), circuits=CircuitStore(None, compiles=False))  # no circuit either
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: None)  # as if Ganak ran out of time
    monkeypatch.setattr(solver, "_smc_count", lambda *a, **k: None)  # and the SMC gave no interval
    result = solver.count(state, limit=3, time_limit=60)
    if exact < 3:
        assert result.exact and result.count == exact
        return
    e = result.estimate
    assert not result.exact and e["method"] == "approxmc" and e["confidence"] == pytest.approx(0.8)
    assert e["proven_low"] <= exact <= e["proven_high"]  # proven: always
    assert e["low"] <= exact <= e["high"]  # probabilistic, but ApproxMC is seeded: these runs hold
    assert e["low"] <= result.count <= e["high"]


@pytest.mark.parametrize("name,state", small_states(3, 12, 8))
def test_proven_bounds_alone_hold(name, state, monkeypatch):
    exact = count_completions_cnf(state, time_limit=120)
    solver = Solver(get_chapter(state.chapter), circuits=CircuitStore(None, compiles=False))  # no circuit either
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: None)
    monkeypatch.setattr(solver, "_approx_count", lambda *a, **k: None)  # ApproxMC too
    monkeypatch.setattr(solver, "_smc_count", lambda *a, **k: None)  # and the SMC
    result = solver.count(state, limit=2, time_limit=60)
    if result.exact:
        assert result.count == exact
        return
    e = result.estimate
    assert e["method"] == "bounds" and e["confidence"] == 1.0
    assert e["low"] <= exact <= e["high"] and result.count == e["low"] >= 2


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended (the counters run in children)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def wide_wall_clock(monkeypatch, seconds: float = 120.0) -> None:
    """Budgets made from a time limit keep their seconds, whose shares (in CPU seconds and deterministic
    work) decide the answer, but get ``seconds`` of wall clock: on a busy machine (another pytest-xdist
    worker, other jobs) the wall clock would end the work with SolveTimeout before its CPU shares did.
    The tests check the CPU the answer took instead."""
    real = Solver.budget

    def budget(self, time_limit=None):
        b = real(self, time_limit)
        if not isinstance(time_limit, Budget) and not b.deterministic:
            b.deadline = max(b.deadline, time.monotonic() + seconds)
        return b

    monkeypatch.setattr(Solver, "budget", budget)


@pytest.mark.slow
def test_an_empty_board_gets_an_answer_within_its_time_limit(example, monkeypatch):
    m = example("fauna-201")
    state = m.hide(range(m.board.size))
    wide_wall_clock(monkeypatch)  # the work, not the wall clock, is what is measured
    before = cpu_seconds()
    result = Solver.for_chapter("fauna").count(state, time_limit=6)
    assert cpu_seconds() - before <= 6  # within its time limit (it took about 3 CPU seconds)
    assert not result.exact and result.estimate["proven_low"] >= 1
    assert result.estimate["low"] <= result.estimate["high"]


def test_a_house_chapter_counts_its_own_rules(example):
    """The CNF count uses the solver's own chapter (it used to count the shipped rules)."""
    training = get_chapter("training")
    house = dataclasses.replace(
        training,
        name="house",
        rules=tuple(r for r in training.rules if r.id != "C5"),
        info=tuple(i for i in training.info if i.id != "C5"),
    )
    state = example("training-201").hide(range(12, 25))
    shipped = Solver(training).count(state, time_limit=60)
    own = Solver(house).count(state, time_limit=60)
    assert own.exact and own.method == "d-dnnf"  # the circuit is keyed by the chapter's own rules
    assert own.count == count_completions_cnf(state, time_limit=60, chapter=house) == 35_832
    assert shipped.count == 1_024 != own.count
    from mapgen.solving.compiled import chapter_fingerprint

    assert chapter_fingerprint(house) != chapter_fingerprint(training)  # never one circuit for both


# -- exit codes ----------------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_solve_exit_codes(tmp_path, monkeypatch):
    state = str(DATA / "states" / "training-201-k16.toml")
    assert run("solve", state).exit_code == 0
    r = run("solve", str(DATA / "invalid" / "training-201-m.toml"))
    assert r.exit_code == 1 and "no completion" in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('chapter = "fauna"\n', encoding="utf-8")
    r = run("solve", str(bad))
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {bad}: ")

    def out_of_time(*a, **k):
        raise SolveTimeout("the time limit ran out")

    monkeypatch.setattr(mapgen.report.Solver, "possible", out_of_time)
    r = run("solve", state)
    assert r.exit_code == 3
    assert r.stderr == (
        f"error: {state}: the time limit ran out before the forced cells were known (10 s; raise --time-limit)\n"
    )

    def ctrl_c(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(mapgen.report.Solver, "possible", ctrl_c)
    r = run("solve", state)
    assert r.exit_code == 130 and r.stderr == f"error: {state}: interrupted\n" and "time" not in r.stderr


@pytest.mark.slow
def test_solve_answers_an_early_state_with_a_labelled_estimate(example, tmp_path, monkeypatch):
    from mapgen.mapfile import write_map

    m = example("vameter-201")
    path = tmp_path / "early.toml"
    write_map(m.hide(range(m.board.size)), path)
    wide_wall_clock(monkeypatch)  # the work, not the wall clock, is what is measured
    before = cpu_seconds()
    r = run("solve", str(path), "--json", "--time-limit", "4")
    assert r.exit_code == 0, r.output
    assert cpu_seconds() - before <= 4  # within its time limit (it took about 2 CPU seconds)
    data = json.loads(r.stdout)
    assert data["forced"] == {"B4": "Ro"}  # exact even on an empty board: only the Peak
    assert data["exact"] is False and set(data["estimate"]) >= {"method", "low", "high", "confidence"}
    r = run("solve", str(path), "--time-limit", "4")
    assert r.exit_code == 0 and "completions" in r.stdout.splitlines()[0]


def test_approxmc_counts_small_formulas_exactly():
    """Small counts come back exact (pyapproxmc 4.3/4.4 counted "x1 xor x2" as 1: hence the pin)."""
    from constraints.cnf import Cnf, approx_count_cnf
    from mapgen.model import Briefing, Map

    cnf = Cnf(
        Map("training", Briefing(peak=7), (None,) * 25, board=get_chapter("training").board), get_chapter("training")
    )
    cnf.nvars, cnf.sampling = 5, [1, 2, 4, 5]
    cnf.clauses = [[1, 2], [-1, -2], [4, 5], [-4, -5], [3, -1]]
    assert approx_count_cnf(cnf, time_limit=30) == 4
