"""Counts estimated by sequential Monte Carlo (mapgen.solving.smc): intervals that hold the exact count, the same
answer for the same seed, and the estimate ``mapgen solve`` prints when no exact count comes in time."""

from __future__ import annotations

import hashlib
import json
import math
import time

import numpy as np
import pytest
from click.testing import CliRunner

import mapgen.solving.solve as solve_module
import maps
from cli import main
from constraints.catalogue import get_chapter
from constraints.cnf import count_completions_cnf
from mapgen.mapfile import read_map
from mapgen.solving import sampler, smc
from mapgen.solving.solve import CircuitStore, Solver
from tests.conftest import DATA
from tests.test_estimates import small_states

EXPECTED = json.loads((DATA / "states" / "expected.json").read_text(encoding="utf-8"))
SMALL = smc.SmcBudget(particles=200, runs=6)


def program(state):
    solver = Solver.for_chapter(state.chapter)
    return sampler.compile_program(solver.chapter, state, solver.possible(state, 60))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_interval_holds_the_worked_examples_exact_count(name):
    state = read_map(DATA / "states" / f"{name}.toml")
    got = smc.estimate(program(state), budget=SMALL, seed=3)
    assert got is not None and got.low <= EXPECTED[name]["count"] <= got.high
    assert got.low <= got.value <= got.high


@pytest.mark.parametrize("k", [0, 4, 8])
def test_the_interval_holds_the_exact_count_of_training_states(k):
    m = read_map(DATA / "valid" / "training-201.toml")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[k:])
    exact = Solver.for_chapter("training").count(state, time_limit=60)
    assert exact.exact
    got = smc.estimate(program(state), budget=smc.SmcBudget(particles=400, runs=8), seed=1)
    assert got is not None and got.low <= exact.count <= got.high
    assert got.high < 2 * got.low  # an interval that says something: within a factor of two here


def test_the_same_seed_gives_the_same_estimate_and_another_seed_another():
    state = read_map(DATA / "states" / "training-201-k16.toml").hide(range(5, 15))
    prog = program(state)
    a = smc.estimate(prog, budget=SMALL, seed=5)
    b = smc.estimate(prog, budget=SMALL, seed=5)
    c = smc.estimate(prog, budget=SMALL, seed=6)
    assert a.log_estimates == b.log_estimates and (a.value, a.low, a.high) == (b.value, b.low, b.high)
    assert c.log_estimates != a.log_estimates


def test_a_board_with_nothing_left_to_fill_counts_one():
    m = read_map(DATA / "valid" / "training-201.toml")
    got = smc.estimate(program(m), budget=SMALL)
    assert (got.value, got.low, got.high) == (1, 1, 1)


def test_the_interval_on_logs_and_with_dead_runs():
    centre, low, high = smc.interval([10.0, 10.2, 9.8, 10.0])
    assert low < 10.0 < high and centre > 10.0  # the lognormal's mean sits above the logs' mean
    # runs far apart: never above the mean of their estimates (fauna-1's empty board said 28 times the largest run)
    logs = [math.log(x) for x in (1.31e7, 2.33e9, 2.98e9, 2.31e11)]
    centre, low, high = smc.interval(logs)
    assert math.exp(centre) == pytest.approx((1.31e7 + 2.33e9 + 2.98e9 + 2.31e11) / 4, rel=1e-9)
    assert math.exp(centre) < 2.31e11
    assert low < centre < high
    # runs far apart, whose mean lies below the t interval: the interval reaches down to the estimate (solve moved
    # the estimate up to the low end: "about 3.35e+22 (95%: 3.35e+22 to 3.37e+28)")
    logs = [math.log(x) for x in (1e20, 1e21, 1e28)]
    centre, low, high = smc.interval(logs)
    assert math.exp(centre) == pytest.approx((1e20 + 1e21 + 1e28) / 3, rel=1e-9)
    assert low <= centre <= high
    assert smc.interval([5.0, float("-inf"), float("-inf")]) is None  # one run alive: no interval
    assert smc.interval([5.0, 5.0, 5.2, float("-inf")]) is None  # a run died: heavy tails, no interval
    assert smc.interval([5.0]) is None


@pytest.mark.parametrize("name,state", small_states(3, 14, 7))
def test_count_estimates_by_smc_where_no_exact_count_comes(name, state, monkeypatch):
    exact = count_completions_cnf(state, time_limit=120)
    solver = Solver(get_chapter(state.chapter), circuits=CircuitStore(None, compiles=False))  # no circuit either
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: None)  # as if Ganak ran out of time
    result = solver.count(state, limit=3, time_limit=60)
    if exact < 3:
        assert result.exact and result.count == exact
        return
    e = result.estimate
    assert not result.exact and result.method == e["method"] == "smc" and e["confidence"] == 0.95
    assert e["proven_low"] <= e["low"] <= result.count == e["value"] <= e["high"] <= e["proven_high"]
    assert e["low"] <= exact <= e["high"]


def test_solve_json_and_text_say_the_estimate_and_its_interval(monkeypatch):
    """The ``solve --json`` contract where no exact count comes: ``"exact": false``, ``"method": "smc"`` and an
    ``estimate`` with its interval; the text says "about N completions (95%: LO to HI, estimated ...)"."""
    path = DATA / "states" / "training-201-k16.toml"
    state = read_map(path).hide(range(5, 12))
    exact = count_completions_cnf(state, time_limit=60)
    monkeypatch.setattr(Solver, "exact_tallies", lambda *a, **k: None)  # no circuit
    monkeypatch.setattr(Solver, "model_count", lambda *a, **k: None)  # no Ganak
    monkeypatch.setattr(solve_module, "ENUMERATION_CAP", 2)  # enumeration stops at 2
    from mapgen.mapfile import write_map

    out = DATA.parent / "_smc_state.toml"
    try:
        write_map(state, out)
        r = CliRunner().invoke(main, ["solve", str(out), "--json", "--time-limit", "30"])
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
        e = data["estimate"]
        assert data["exact"] is False and data["method"] == "smc" and e["method"] == "smc"
        assert set(e) >= {"method", "value", "low", "high", "confidence", "proven_low", "proven_high", "note"}
        assert set(e) >= {"particles", "runs", "runs_planned", "seed"}
        assert data["count"] == e["value"] and e["low"] <= exact <= e["high"]
        r = CliRunner().invoke(main, ["solve", str(out), "--time-limit", "30"])
        first = r.stdout.splitlines()[0]
        assert f"about {e['value']:,} completions (95%: {e['low']:,} to {e['high']:,}, estimated" in first
        assert first.endswith(f"; {e['proven_low']:,} found so far)")  # never "proven: at least N" beside it
    finally:
        out.unlink(missing_ok=True)


def test_a_larger_budget_whose_run_dies_falls_back_to_a_smaller_one_s_interval():
    """ "A longer --time-limit never gives less than a shorter one" (issue 40). fauna-1's empty board with
    --probabilities: at --time-limit 10 (and 5) the count's SMC, 4 runs of 100 particles, gives an interval that holds
    the exact 11,887,738,830; at --time-limit 20 its 4 runs of 156 particles lose one (no interval), ApproxMC does not
    land, and solve said only "proven bounds: between 1,112 and 1.9 x 10^46" (measured, exit 3). A budget whose run
    dies now falls back to the smaller budgets' work (halving, down to the 100 particles every shorter limit runs)."""
    state = maps.load("fauna-1").hide(range(49))
    s = Solver.for_chapter("fauna")
    possible = s.possible(state, 60)
    far = time.monotonic() + 600  # work decides, never the clock
    floor = s._smc_count(state, possible, 1.15, far, 0)  # --time-limit 10's share: 4 runs of 100 particles
    assert floor is not None and floor.budget.particles == 100 and floor.low <= 11_887_738_830 <= floor.high
    prog = sampler.compile_program(s.chapter, state, possible)
    check = s._smc_check(state, prog)
    died = smc.estimate(prog, budget=smc.SmcBudget.for_seconds(2.5), seed=0, deadline=far, check=check)
    assert died is None  # --time-limit 20's own work: a run dies, no interval
    got = s._smc_count(state, possible, 2.5, far, 0)
    assert got is not None and (got.value, got.low, got.high) == (floor.value, floor.low, floor.high)


def test_draws_are_valid_completions_near_uniform_and_seeded():
    """``smc.draws`` (the sampler's chain starts): every draw a completion of the state, the same for the same seed,
    and on a state with a handful of completions each drawn about equally often (a run's weighted particles
    stand for the uniform law; with 200 particles a run, within a bound a fair die meets)."""
    from collections import Counter

    import numpy as np

    import maps

    state = maps.load("training-1").hide(range(7))
    prog = program(state)
    total = sampler.count_small(prog)
    assert 4 <= total <= 60
    got = smc.draws(prog, 600, seed=2)
    assert len(got) == 600 and all(sampler.valid(prog, x) for x in got)
    assert [x.tolist() for x in smc.draws(prog, 5, seed=2)] == [x.tolist() for x in got[:5]]
    assert [x.tolist() for x in smc.draws(prog, 5, seed=3)] != [x.tolist() for x in got[:5]]
    seen = Counter(tuple(int(v) for v in x) for x in got)
    assert len(seen) == total
    for k in seen.values():
        assert abs(k / len(got) - 1 / total) < 0.5 / total + 0.02
    assert np.all(got[0][[i for i, t in enumerate(state.cells) if t is not None]] >= 0)


def test_chains_start_from_smc_draws_where_runs_survive():
    """``Solver.chain_starts``: as many starts as chains, each a completion of the state."""
    state = maps_state("vameter-1", 24)
    solver = Solver.for_chapter("vameter")
    starts = solver.chain_starts(state, 8, seed=1)
    assert len(starts) == 8
    ch = get_chapter("vameter")
    for w in starts:
        assert all(t is None or t is u for t, u in zip(state.cells, w))
        assert [v for v in ch.check(state.with_cells(w)) if v.rule != "C9"] == []


def test_chains_start_from_checked_runs_on_early_fauna(monkeypatch):
    """Fauna with 3 revealed: unchecked runs all die (the Forts' patterns), SAT-checked ones live, and the chains
    start from their draws, two a run (systematic picks), every start a completion; none from the SAT session."""
    state = maps_state("fauna-1", 3)
    solver = Solver.for_chapter("fauna")
    prog = sampler.compile_program(solver.chapter, state)
    assert smc.draws(prog, 6, seed=1, particles=150) == []  # unchecked: every run died
    monkeypatch.setattr(solver, "sample", lambda *a, **k: [])  # no SAT completions to fall back on
    starts = solver.chain_starts(state, 6, seed=1, particles=150)
    assert len(starts) == 6 and len(set(starts)) >= 3  # three runs at least, each its own draws
    ch = get_chapter("fauna")
    for w in starts:
        assert all(t is None or t is u for t, u in zip(state.cells, w))
        assert [v for v in ch.check(state.with_cells(w)) if v.rule != "C9"] == []


def test_the_chain_starts_reread_the_count_s_runs(monkeypatch):
    """The count estimate's SMC runs and the chain starts' are the same runs where they ask for the same particles
    (``smc.Runs``): after the count, the starts run nothing again, and they are the starts drawn without the count
    first. At ``solve``'s default both ask for the same (the starts cost nothing there)."""
    from mapgen.report import COUNT_SHARE_WITH_ODDS
    from mapgen.solving.solve import SAMPLE_SECONDS, SMC_SHARE

    limit = 10.0
    count_seconds = COUNT_SHARE_WITH_ODDS * (limit - min(1.5, 0.15 * limit))  # ``solve_report``'s count budget
    starts_particles = sampler.Budget.for_seconds(SAMPLE_SECONDS * limit).start_particles
    assert smc.SmcBudget.for_seconds(SMC_SHARE * count_seconds).particles == starts_particles == 100

    state = maps_state("vameter-1", 20)
    fresh = Solver.for_chapter("vameter").chain_starts(state, 8, seed=3, particles=100)
    solver = Solver(get_chapter("vameter"))
    solver._smc_count(state, None, 1.0, float("inf"), 3)  # the count's 4 runs of 100 particles
    calls = []
    real = smc._Runner.__call__
    monkeypatch.setattr(smc._Runner, "__call__", lambda self, key: calls.append(key) or real(self, key))
    assert solver.chain_starts(state, 8, seed=3, particles=100) == fresh
    assert calls == []
    # another program of the state (its terrains narrowed by ``possible``): its own runs, the answer a fresh
    # solver gives, whatever was asked before
    possible = solver.possible(state, 30)
    narrowed = Solver(get_chapter("vameter")).chain_starts(state, 8, seed=3, particles=100, possible=possible)
    assert solver.chain_starts(state, 8, seed=3, particles=100, possible=possible) == narrowed
    assert calls


def maps_state(name: str, k: int):
    import maps

    m = maps.load(name)
    order = [i for col in reversed(m.board.cols) for i in col]
    return m.hide(order[k:])


def test_the_connection_check_counts_a_cell_that_can_only_be_a_rock():
    """A particle is stopped as soon as a cell that may hold nothing but a Rock is cut off from the Rocks set so far
    (it used to run on until that cell was filled: every particle of a fauna-1 run died rows later)."""
    import numpy as np

    import maps

    state = maps.load("fauna-1").hide(range(49))
    prog = sampler.compile_program(get_chapter("fauna"), state)
    b = state.board
    codes = [t.code for t in prog.terrains]
    rock, wood = codes.index("Ro"), codes.index("Wo")
    m = np.full(b.size, -1, dtype=np.int64)
    m[b.index("C3")] = rock
    for c in range(1, 8):
        m[b.index(f"D{c}")] = wood  # a wall of set cells between rows C and E
    dom = np.ones_like(prog.dom)  # any cell may hold any terrain (the briefing's Peak, a Rock, left out)
    stack, seen = np.empty(b.size, dtype=np.int64), np.zeros(b.size, dtype=np.bool_)
    assert sampler._connectable(m, rock, dom, prog.nb, stack, seen)  # E5 may still hold something else
    dom[b.index("E5")] = False
    dom[b.index("E5"), rock] = True
    assert not sampler._connectable(m, rock, dom, prog.nb, stack, seen)
    m[b.index("D5")] = -1  # a way through: D5 unset, and it may hold a Rock
    assert sampler._connectable(m, rock, dom, prog.nb, stack, seen)


def test_the_sat_check_cuts_exactly_the_prefixes_without_a_completion():
    """``smc.sat_check`` (the SAT check between an SMC run's steps) says no only where a partial map has no
    completion: on a training state with 7 cells hidden, every assignment of its first two hidden cells, against
    the exact count of its completions."""
    _, state, prog, parts, alive = _training_prefixes(7)
    check = Solver.for_chapter("training")._smc_check(state, prog)
    assert [bool(g) for g in check(parts)] == alive
    assert 0 < sum(alive) < len(alive)  # some prefixes are doomed, some are not


def _training_prefixes(k: int):
    """training-1 with its first k cells hidden: its ruled SAT session, its program, and every assignment of its first two
    hidden cells (the other hidden cells unset), each with whether a completion extends it (the exact count)."""
    import itertools

    state = maps.load("training-1").hide(range(k))
    solver = Solver.for_chapter("training")
    prog = sampler.compile_program(solver.chapter, state)
    a, b = (int(c) for c in prog.hidden[:2])
    rest = np.asarray([int(c) for c in prog.hidden[2:]], dtype=np.int64)
    parts, alive = [], []
    for ta, tb in itertools.product(np.flatnonzero(prog.dom[a]), np.flatnonzero(prog.dom[b])):
        x = np.full(prog.size, -1, dtype=np.int64)
        for i in range(prog.size):
            if i not in prog.hidden:
                x[i] = int(np.argmax(prog.dom[i]))
        x[a], x[b] = ta, tb
        parts.append(x)
        alive.append(sampler.count_small(prog, x, order=rest) > 0)
    return solver.session(state.briefing, ruled=True).sat, state, prog, np.asarray(parts), alive


def test_the_sat_check_keeps_a_particle_a_model_found_before_completes_without_asking_again():
    """A particle whose set cells a model found earlier holds has a completion (that model): the check keeps it
    without a SAT call. The answers are the solver's: every prefix with a completion kept, every doomed one cut;
    asked again, the kept prefixes and every prefix of them (fewer cells set) cost no call."""
    session, state, prog, parts, alive = _training_prefixes(7)
    check = smc.sat_check(session, state, prog)
    assert [bool(g) for g in check(parts)] == alive
    calls = session.calls
    kept = parts[np.asarray(alive)]
    shorter = kept.copy()
    shorter[:, int(prog.hidden[1])] = -1  # the second hidden cell unset again
    assert check(np.concatenate([kept, shorter])).all()
    assert session.calls == calls  # every one witnessed by a model already found


def test_every_run_survives_where_the_sat_check_cuts_doomed_particles():
    """fauna-1 with 5 cells revealed (column 7 from the top): without the check every run's particles died (the
    Forts' patterns, rules meeting rows later); with it, every run of a default ``solve``'s estimate lives and
    the interval holds the exact count (8,302,241, from the compiled circuit: ``python -m bench count_estimate``)."""
    state = maps_state("fauna-1", 5)
    solver = Solver.for_chapter("fauna")
    prog = program(state)
    got = smc.estimate(
        prog,
        budget=smc.SmcBudget.for_seconds(solve_module.SMC_SHARE * 8.5),
        seed=1,
        check=solver._smc_check(state, prog),
    )
    assert got is not None and got.runs_done == got.budget.runs
    assert got.contains(8_302_241), (got.low, got.high)


def test_an_estimate_the_wall_clock_cut_short_is_a_time_out_not_another_answer(monkeypatch):
    """An SMC estimate over fewer runs than its work asks for (the wall clock ended the others: a busy machine)
    would be another interval than an idle machine's: the count is missing instead (SolveTimeout: exit 3, the
    forced cells kept), never an answer that depends on the load."""
    from mapgen.solving.solve import SolveTimeout

    state = maps_state("maldonado-1", 3)
    solver = Solver(get_chapter("maldonado"), circuits=CircuitStore(None, compiles=False))

    def cut_short(prog, *, budget, **kw):  # two of the runs done when the deadline passed between runs
        return smc.SmcEstimate(10**12, 10**11, 10**13, [27.6, 27.7], budget, kw["seed"], cut=True)

    monkeypatch.setattr(smc, "estimate", cut_short)
    with pytest.raises(SolveTimeout, match=r"2 of 4 runs"):
        solver.count(state, limit=3, time_limit=30)


@pytest.mark.parametrize("chapter,early", [("flora", 8), ("maldonado", 3)])
def test_an_early_count_leaves_the_model_counter_out_and_its_time_to_the_estimate(chapter, early, monkeypatch):
    """Below ``counter_from`` revealed cells Ganak was measured never to land within its share, and its share of
    the wall clock was what cut the SMC runs short (maldonado-1 with 3 revealed at 10 s): the count does not ask
    it there, and does from that many reveals on."""
    import maps

    m = maps.load(f"{chapter}-1")
    order = [i for col in reversed(m.board.cols) for i in col]  # column 7 from the top, then column 6, ...
    solver = Solver(get_chapter(chapter), circuits=CircuitStore(None, compiles=False))
    asked: list[str] = []
    monkeypatch.setattr(solver, "model_count", lambda *a, **k: asked.append("ganak"))
    monkeypatch.setattr(solver, "_smc_count", lambda *a, **k: asked.append("smc"))
    monkeypatch.setattr(solver, "_approx_count", lambda *a, **k: None)
    threshold = solve_module.counter_from(solver.chapter)
    assert early < threshold <= solve_module.COMPILE_FROM[chapter]
    for k, expected in ((early, ["smc"]), (threshold, ["ganak", "smc"])):
        asked.clear()
        result = solver.count(m.hide(order[k:]), limit=3, time_limit=60)
        assert not result.exact and asked == expected


def test_the_checks_distinct_particles_are_numpy_s_in_numpy_s_order():
    """The particles a SAT check asks about, in the order it asks (its session's answers may depend on the questions
    before): the distinct rows in lexicographic order and each row's index among them, as ``np.unique`` gives them,
    for rows holding -1 (unset) and terrain numbers, with many copies and with none."""
    rng = np.random.default_rng(3)
    for trial in range(60):
        width = int(rng.integers(1, 90))
        base = rng.integers(-1, 12, size=(int(rng.integers(1, 40)), width))
        rows = base[rng.integers(0, len(base), size=int(rng.integers(1, 300)))]
        rows[:, width // 2 :] = -1 if trial % 2 else rows[:, width // 2 :]
        want_rows, want_back = np.unique(rows, axis=0, return_inverse=True)
        got_rows, got_back = smc._distinct(rows)
        assert np.array_equal(got_rows, want_rows)
        assert np.array_equal(got_back, want_back.reshape(-1))


def test_a_run_draws_what_it_drew_before_copies_replayed_their_leader_s_step():
    """Same key, same run: a particle whose cells equal an earlier live one's replays that one's kept assignments
    (``smc._replay``: the same draws, the same choice, the same weight) instead of checking them again. Log estimates,
    resamplings and digests of the final particles and weights of runs made before that (2026-12-05), unchecked, on
    four chapters' states (fauna-1's run dies: its particles' deaths are the same too)."""
    got = []
    for name, k in (("training-1", 4), ("flora-1", 8), ("vameter-1", 20), ("fauna-1", 12)):
        m = maps.load(name)
        order = [i for col in reversed(m.board.cols) for i in col]
        prog = sampler.compile_program(get_chapter(m.chapter), m.hide(order[k:]))
        run = smc._Runner(prog, smc.SmcBudget(300, 1, 1))
        log_z, made = run("smc:5:0")
        digest = hashlib.sha256(run.out_m.tobytes() + run.out_w.tobytes()).hexdigest()[:16]
        got.append((name, repr(log_z), made, digest))
    assert got == [
        ("training-1", "13.737514001583435", 5, "2513d533d48c5f49"),
        ("flora-1", "41.237194321743", 19, "632d83b5098302f1"),
        ("vameter-1", "18.75579468041864", 16, "1b388a34ffeb1543"),
        ("fauna-1", "-inf", 17, "c8b8833421d88574"),
    ]
