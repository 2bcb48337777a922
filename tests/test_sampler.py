"""The block heat-bath sampler (mapgen.solving.sampler): its rules agree with RULES.md's counts, every draw is a
completion, its odds match exact ones within their error bars, and `solve` reports them with their errors."""

from __future__ import annotations

import functools
import hashlib
import json
import random
import time
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import get_chapter
from mapgen.report import sampler_words, share_words
from mapgen.solving import sampler as S
from mapgen.solving.bruteforce import completions_brute
from mapgen.solving.solve import Solver, SolveTimeout
from mapgen.solving.unigen import Z95
from mapgen.terrain import Terrain


@pytest.fixture(scope="module")
def expected_states(data_dir):
    return json.loads((data_dir / "states" / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "name",
    [
        "training-201-k16",
        "training-202-k16",
        "fauna-201-k34",
        "fauna-202-k34",
        "flora-201-k34",
        "flora-202-k34",
        "maldonado-201-k34",
        "maldonado-202-k34",
    ],
)
def test_the_sampler_s_rules_count_every_example_state_exactly(name, example, expected_states):
    """The kernels' encoding of the rules, enumerated over every unrevealed cell, counts the worked examples'
    completions exactly (RULES.md through an independent route: the shared examples' counts)."""
    state = example(name, "states")
    prog = S.compile_program(get_chapter(state.chapter), state)
    assert S.count_small(prog) == expected_states[name]["count"]


@pytest.mark.parametrize("chapter", ["training", "fauna", "flora", "vameter", "maldonado"])
def test_a_complete_valid_map_is_valid_to_the_kernels_and_a_one_cell_change_is_judged_like_the_rules(chapter):
    """``valid`` (the kernels' full check) agrees with the plain-Python rules on a shipped map and on every
    one-cell change of a few of its cells."""
    m = maps.load(f"{chapter}-1")
    ch = get_chapter(chapter)
    prog = S.compile_program(ch, m.hide(range(m.board.size)))
    x = S.encode(prog, m.cells)
    assert S.valid(prog, x)
    rng = random.Random(7)
    for i in rng.sample(range(m.board.size), 6):
        for t in ch.terrains:
            y = x.copy()
            y[i] = prog.terrains.index(t)
            changed = m.with_cells(t if j == i else u for j, u in enumerate(m.cells))
            broken = [v for v in ch.check(changed) if v.rule != "C9"]  # Hill numbers: none shown in this state
            assert S.valid(prog, y) == (not broken), (m.board.name(i), t, broken)


def _completions(state):
    return [w.cells for w in completions_brute(state)]


@functools.cache
def _small_state():
    """training-1 with its first 7 cells hidden, and its completions (brute force: about 7 CPU s, so once)."""
    state = maps.load("training-1").hide(range(7))
    return state, _completions(state)


def _game_state(name: str, shown: int, chains: int):
    """``name`` with its first ``shown`` cells of a game-like order revealed (column 7 from the top, then 6, ...),
    a solver of its chapter, and ``chains`` completions to start chains from (a private SAT session's)."""
    m = maps.load(name)
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[shown:])
    solver = Solver(get_chapter(m.chapter))
    return state, solver, solver.sample(state, chains, 20, session=solver.session(state.briefing))


def test_every_draw_is_a_completion_of_the_state():
    state, solver, starts = _game_state("fauna-2", 12, 4)
    odds = S.sample_odds(solver.chapter, state, starts, budget=S.Budget(4, 20, 5), seed=3)
    ch = get_chapter("fauna")
    for w in odds.completions():
        assert all(t is None or t is u for t, u in zip(state.cells, w))
        assert [v for v in ch.check(state.with_cells(w)) if v.rule != "C9"] == []


def test_draws_are_uniform_over_a_small_state_s_completions():
    """On a state with a handful of completions, each is drawn about equally often (a heat-bath chain's
    stationary law is uniform), within a bound a fair die meets with overwhelming probability."""
    state, every = _small_state()
    assert 4 <= len(every) <= 60
    prog = S.compile_program(get_chapter("training"), state)
    assert S.count_small(prog) == len(every)
    starts = [S.encode(prog, every[0])] * 4
    draws, _ = S.run_chains(prog, starts, sweeps=600, burn=20, seed=11)
    seen = Counter(tuple(int(v) for v in row) for row in draws.reshape(-1, prog.size))
    assert len(seen) == len(every)
    n = draws.shape[0] * draws.shape[1]
    for w in every:
        share = seen[tuple(S.encode(prog, w))] / n
        assert abs(share - 1 / len(every)) < 0.35 / len(every) + 0.01


def test_chains_relaxing_a_count_rule_still_draw_each_completion_equally_often():
    """Maldonado's M2 (at least 3 of each terrain) is relaxed between sweeps (2 allowed, weighted): the chains
    visit such states, record only completions, and still draw each of a small state's completions about
    equally often."""
    m = maps.load("maldonado-1")
    hide = {j for i, t in enumerate(m.cells) if t is Terrain.MALDONADO for j in (i, *m.board.hood("king")[i])}
    state = m.hide(sorted(hide))
    prog = S.compile_program(get_chapter("maldonado"), state)
    total = S.count_small(prog)
    assert 4 <= total <= 60
    draws, stats = S.run_chains(prog, [S.encode(prog, m.cells)] * 4, sweeps=600, burn=20, seed=11)
    assert stats[3] > 4 * 620  # sweeps that ended outside the true rules were made, and not recorded
    seen = Counter(tuple(int(v) for v in row) for row in draws.reshape(-1, prog.size))
    assert len(seen) == total and all(S.valid(prog, np.asarray(w)) for w in seen)
    n = draws.shape[0] * draws.shape[1]
    for k in seen.values():
        assert abs(k / n - 1 / total) < 0.35 / total + 0.01


def _stuck_chains():
    """Four chains of 40 sweeps that never move: two on one completion of a Training state, two on another."""
    state, every = _small_state()
    prog = S.compile_program(get_chapter("training"), state)
    a, b = S.encode(prog, every[0]), S.encode(prog, every[1])
    draws = np.stack([np.tile(x, (40, 1)) for x in (a, a, b, b)]).astype(np.int8)
    return state, prog, a, b, draws


def test_chains_that_never_leave_their_start_get_an_error_bar_as_wide_as_their_disagreement():
    """Fauna's chains keep their start's Forts: two chains on one completion and two on another must not report
    the half-and-half share as known to within a few percent (batch means alone would: 0.08)."""
    state, prog, a, b, draws = _stuck_chains()
    odds = S.odds_of(draws, prog, state.unrevealed())
    i = next(j for j in state.unrevealed() if a[j] != b[j])
    t = prog.terrains[a[i]]
    assert odds.shares[i][t] == pytest.approx(0.5)
    assert odds.errors[i][t] >= 0.25 and odds.rhat == float("inf")


def test_chains_that_are_not_independent_count_as_one_in_the_error_bar():
    """Chains started from draws of one SMC run, or from one start, are not independent: four chains, two on each of
    two completions, grouped in pairs, get the bar of the two distinct chains (a Student t over two), not the
    narrower one of four independent chains."""
    state, prog, a, b, four = _stuck_chains()
    grouped = S.odds_of(four, prog, state.unrevealed(), groups=[0, 0, 1, 1])
    apart = S.odds_of(four, prog, state.unrevealed())
    two = S.odds_of(four[[0, 2]], prog, state.unrevealed())
    i = next(j for j in state.unrevealed() if a[j] != b[j])
    t = prog.terrains[a[i]]
    assert grouped.shares[i][t] == pytest.approx(0.5)
    assert grouped.errors[i][t] == pytest.approx(two.errors[i][t])
    assert grouped.errors[i][t] > 2 * apart.errors[i][t]


def test_chains_in_groups_are_checked_by_nested_r_hat_over_the_groups():
    """Many short chains in groups (one SMC run's starts each) are judged by nested R-hat: sixteen chains of 20
    draws, each draw uniform over a Training state's completions, in four groups of four, agree (at most 1.05) and
    say how it was had; two groups each stuck on its own completion never agree (infinite), though each group's
    chains agree with each other; without groups the check is split R-hat, as before."""
    state, every = _small_state()
    prog = S.compile_program(get_chapter("training"), state)
    rng = random.Random(5)
    mixed = np.asarray(
        [[S.encode(prog, rng.choice(every)) for _ in range(20)] for _ in range(16)], dtype=np.int8
    )  # 16 chains of 20 draws
    odds = S.odds_of(mixed, prog, state.unrevealed(), groups=[c // 4 for c in range(16)])
    assert odds.rhat_method == "nested" and odds.superchains == 4 and 1.0 <= odds.rhat <= 1.05 and odds.converged
    assert odds.summary()["rhat_method"] == "nested" and odds.summary()["superchains"] == 4
    assert odds.summary()["split_rhat"] == pytest.approx(odds.split_rhat, abs=1e-4)
    plain = S.odds_of(mixed, prog, state.unrevealed())
    assert plain.rhat_method == "split" and plain.rhat == plain.split_rhat == pytest.approx(odds.split_rhat)
    assert "superchains" not in plain.summary()
    _, prog2, _, _, four = _stuck_chains()
    stuck = S.odds_of(four, prog2, state.unrevealed(), groups=[0, 0, 1, 1])
    assert stuck.rhat_method == "nested" and stuck.rhat == float("inf") and not stuck.converged
    assert "nested R-hat 1.02 over 4 groups of chains" in sampler_words(
        {"samples": 320, "chains": 16, "effective_samples": 300.0, "rhat": 1.02, "converged": True}
        | {"rhat_method": "nested", "superchains": 4}
    )


def test_the_chain_starts_say_which_came_from_one_run():
    """``Solver.chain_starts`` groups its starts by SMC run (``RUNS`` runs, the starts shared among them), and
    ``sample_odds`` reads the groups."""
    solver = Solver(get_chapter("training"))
    state = maps.load("training-1").hide(range(9))
    for n in (8, 12):
        starts = solver.chain_starts(state, n, seed=1, particles=60)
        assert len(starts.groups) == len(starts) == n
        assert all(starts.groups.count(g) <= n // S.RUNS for g in set(starts.groups))
        assert len(set(starts.groups)) == S.RUNS


def test_a_possible_terrain_no_chain_met_is_listed_at_zero_with_an_honest_upper_bound():
    """Two chains stuck on one completion each (one sweep of a state whose cells can hold more): every terrain
    the exact ``possible`` gives a cell is listed, those the chains never met at share 0 with a 95% upper bound of
    1 - 0.05 ** (1 / chains) as their bar (the chains disagree: an island none started on may hold them); the
    shares still sum to 1, and the text says "up to"."""
    state, every = _small_state()
    solver = Solver(get_chapter("training"))
    possible = solver.possible(state, 30)
    prog = S.compile_program(solver.chapter, state, possible)
    a, b = S.encode(prog, every[0]), S.encode(prog, every[-1])
    draws = np.stack([np.tile(x, (20, 1)) for x in (a, b)]).astype(np.int8)
    odds = S.odds_of(draws, prog, state.unrevealed())
    odds.add_unseen(possible)
    bound = 1 - 0.05 ** (1 / 2)
    unseen = 0
    for i, ts in possible.items():
        assert set(odds.shares[i]) == set(ts) and set(odds.errors[i]) == set(ts)
        assert sum(odds.shares[i].values()) == pytest.approx(1.0)
        for t in ts:
            if t not in (prog.terrains[a[i]], prog.terrains[b[i]]):
                unseen += 1
                assert odds.shares[i][t] == 0.0
                assert Z95 * odds.errors[i][t] == pytest.approx(bound)
    assert unseen > 0
    assert "up to 78%" in share_words("Wa", 0.0, bound / Z95)
    assert share_words("Wa", 0.4, 0.03) == "Wa 40% ±6"


def test_an_estimate_whose_interval_reaches_past_0_or_100_is_said_as_a_range_within_them():
    """``Sk 5% ±14`` read as if the chance could be below 0: an interval that reaches past 0% or 100% is said as the
    range it holds, clipped (``Sk 5% (0–19%)``); one within them keeps its ±."""
    assert share_words("Sk", 0.05, 0.07) == "Sk 5% (0–19%)"
    assert share_words("Wa", 1.0, 0.1) == "Wa 100% (80–100%)"
    assert share_words("Wa", 0.12, 0.06) == "Wa 12% ±12"  # reaches 0 exactly: within
    assert share_words("Wa", 0.0, 0.1) == "Wa up to 20%"


def test_the_words_for_the_chains_agreement_say_what_would_help():
    """Chains that agree say so; chains that disagree are told to get more time; chains stuck on islands (R-hat
    infinite, ``None`` in JSON) are not told to get time that would not help."""
    base = {"samples": 960, "chains": 8, "effective_samples": 300.0}
    assert "the chains agree, R-hat 1.02" in sampler_words({**base, "rhat": 1.02, "converged": True})
    slow = sampler_words({**base, "rhat": 1.4, "converged": False})
    assert "NOT converged" in slow and "raise --time-limit" in slow
    stuck = sampler_words({**base, "rhat": None, "converged": False})
    assert "NOT converged" in stuck and "infinite" in stuck and "raise --time-limit" not in stuck
    assert "each reveal" in stuck


def test_the_unseen_bound_is_the_rule_of_three_where_the_chains_agree_and_the_island_bound_where_not():
    assert S.unseen_bound(8, float("inf"), 500.0) == pytest.approx(1 - 0.05 ** (1 / 8))  # 0.31
    assert S.unseen_bound(8, 1.01, 300.0) == pytest.approx(2.9957 / 300, rel=1e-3)
    assert S.unseen_bound(8, 1.01, 2.0) == pytest.approx(1 - 0.05 ** (1 / 8))  # never above the island bound


def test_odds_match_the_exact_odds_within_their_error_bars():
    m = maps.load("training-2")
    state = m.hide(range(0, 25, 2))
    solver = Solver(get_chapter("training"))
    got = solver.count(state, time_limit=30)
    assert got.exact and got.tallies is not None
    starts = solver.sample(state, 8, 20, session=solver.session(state.briefing))
    odds = S.sample_odds(solver.chapter, state, starts, budget=S.Budget(8, 150, 20), seed=5)
    assert odds.converged
    errors = []
    for i, tallies in got.tallies.items():
        for t, k in tallies.items():
            exact = k / got.count
            p = odds.shares.get(i, {}).get(t, 0.0)
            se = odds.errors.get(i, {}).get(t, 0.0)
            errors.append((abs(p - exact), se))
    assert max(e for e, _ in errors) < 0.08
    covered = sum(e <= 2.5 * se + 1e-9 for e, se in errors if 0 < se) / sum(1 for _, se in errors if se > 0)
    assert covered >= 0.85


def test_the_same_seed_gives_the_same_odds_and_another_seed_other_draws():
    state, solver, starts = _game_state("flora-1", 28, 2)
    work = S.Budget(2, 10, 2)
    a = S.sample_odds(solver.chapter, state, starts, budget=work, seed=1)
    b = S.sample_odds(solver.chapter, state, starts, budget=work, seed=1, threads=1)
    c = S.sample_odds(solver.chapter, state, starts, budget=work, seed=2)
    assert np.array_equal(a.draws, b.draws) and a.shares == b.shares
    assert not np.array_equal(a.draws, c.draws)


def test_an_infinite_r_hat_is_written_as_null_in_json():
    """A pair that never changes within a chain but differs between chains has an infinite R-hat; JSON (and the
    web's answers) have no infinity, so the summary says null."""
    state, every = _small_state()
    prog = S.compile_program(get_chapter("training"), state)
    a, b = (S.encode(prog, w) for w in (every[0], every[-1]))
    draws = np.stack([np.stack([a] * 8), np.stack([b] * 8)]).astype(np.int8)  # two chains that never move
    odds = S.odds_of(draws, prog, state.unrevealed())
    assert odds.rhat == float("inf") and not odds.converged
    assert json.loads(json.dumps(odds.summary(), allow_nan=False))["rhat"] is None


def test_the_budget_follows_the_time_limit_as_a_number():
    """More chains (from the same SMC runs) up to 10 s of work, longer ones past it; never the clock."""
    assert S.Budget.for_seconds(10) == S.Budget(S.CHAINS, S.SWEEPS, S.BURN_IN)
    assert S.Budget.for_seconds(20) == S.Budget(S.CHAINS, 2 * S.SWEEPS, S.BURN_IN)
    assert S.Budget.for_seconds(4) == S.Budget(3 * S.RUNS, S.SWEEPS, S.BURN_IN, 100)  # solve's default
    assert S.Budget.for_seconds(0.1) == S.Budget(2 * S.RUNS, S.SWEEPS, S.BURN_IN, 50)
    # a state with cells revealed gets more particles a run past solve's default (an empty board keeps them), and a
    # longer limit never fewer
    assert S.Budget.for_seconds(4, 0.5).start_particles == 100  # solve's default: the count's runs, reread
    assert S.Budget.for_seconds(10, 0.25) == S.Budget(S.CHAINS, S.SWEEPS, S.BURN_IN, S.MID_PARTICLES)
    assert S.Budget.for_seconds(10, 0.0).start_particles == S.START_PARTICLES
    for share in (0.0, 0.1, 0.3):
        got = [S.Budget.for_seconds(t, share).start_particles for t in (1, 4, 5, 8, 10, 30)]
        assert got == sorted(got)


def test_a_passed_deadline_stops_the_chains():
    m = maps.load("training-1")
    state = m.hide(range(10))
    prog = S.compile_program(get_chapter("training"), state)
    x = S.encode(prog, m.cells)
    with pytest.raises(S.SamplerTimeout):
        S.run_chains(prog, [x, x], sweeps=50, burn=0, seed=0, deadline=0.0)


def _write_state(tmp_path, name, keep):
    from mapgen.mapfile import dumps_map

    m = maps.load(name)
    order = [i for col in reversed(m.board.cols) for i in col]
    path = tmp_path / f"{name}-{keep}.toml"
    path.write_text(dumps_map(m.hide(order[keep:])), encoding="utf-8")
    return path


def test_solve_method_sample_reports_each_share_with_its_error(tmp_path):
    from mapgen.solving.unigen import SAMPLE_SECONDS

    path = _write_state(tmp_path, "training-1", 12)
    got = CliRunner().invoke(main, ["solve", str(path), "--probabilities", "--method", "sample", "--json"])
    assert got.exit_code == 0, got.output
    report = json.loads(got.output)
    assert report["probabilities_method"] == "sampler" and report["probabilities_exact"] is False
    assert set(report["probabilities_error"]) == set(report["probabilities"])
    for cell, shares in report["probabilities"].items():
        assert set(report["probabilities_error"][cell]) == set(shares)
        assert sum(shares.values()) == pytest.approx(1.0)
    summary = report["sampler"]
    work = S.Budget.for_seconds(SAMPLE_SECONDS * 10)  # solve's default time limit
    assert summary["chains"] == work.chains and summary["samples"] == work.chains * summary["sweeps"]
    assert {"rhat", "effective_samples", "converged", "seed"} <= set(summary)
    assert summary["rhat"] is None or summary["rhat"] >= 0.9  # None where a chain never moved a pair: infinite
    text = CliRunner().invoke(main, ["solve", str(path), "--probabilities", "--method", "sample"])
    assert "estimated by the sampler" in text.output and "±" in text.output
    alone = CliRunner().invoke(main, ["solve", str(path), "--method", "sample", "--json"])  # the method asks for odds
    assert alone.exit_code == 0 and json.loads(alone.output)["probabilities"] == report["probabilities"]


def test_the_sampler_s_odds_of_a_complete_map_are_empty_not_a_crash():
    """A complete map has no unrevealed cell to give odds of: ``mapgen solve fauna-1 --method sample`` and
    ``odds_answer(m, method="sampler")`` ended in a traceback from numpy ("cannot reshape array of size 0 into shape
    (0,11)"), where the exact odds answer with no cells."""
    m = maps.load("training-1")
    got = Solver.for_chapter("training").odds_answer(m, method="sampler")
    assert got.method == "sampler" and got.shares == {} and got.errors == {}
    run = CliRunner().invoke(main, ["solve", "training-1", "--method", "sample", "--json"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.output)
    assert report["count"] == 1 and report["probabilities"] == {} and report["probabilities_method"] == "sampler"


def test_solve_prints_the_forced_cells_when_the_count_runs_out(tmp_path, monkeypatch):
    """Issue 40, item 5: the exact answers come first and are printed even when the rest runs out (exit 3)."""
    path = _write_state(tmp_path, "training-1", 12)

    def out_of_time(*a, **k):
        raise SolveTimeout("the time limit ran out during the exact count")

    monkeypatch.setattr(Solver, "count", out_of_time)
    got = CliRunner().invoke(main, ["solve", str(path), "--json"])
    assert got.exit_code == 3
    report = json.loads(got.stdout)
    assert report["count"] is None and report["missing"] == ["count"] and "forced" in report
    assert "printed what was found, missing: count" in got.stderr
    text = CliRunner().invoke(main, ["solve", str(path)])
    assert text.exit_code == 3 and "forced:" in text.stdout and "not in time: count" in text.stdout


def test_solve_keeps_the_possible_terrains_when_the_odds_run_out(tmp_path, monkeypatch):
    """Issue 40, item 5: forced cells *and possible terrains* (exact, fast) are always printed. When the wall clock
    ends the odds (exit 3), the possible terrains of every unrevealed cell were found already: kept, in the JSON
    (``"possible"``: codes as RULES.md, cells by name) and in the text, never dropped with the odds."""
    path = _write_state(tmp_path, "training-1", 12)

    def out_of_time(*a, **k):
        raise SolveTimeout("the time limit ran out while the sampler ran (chain 3 of 12)")

    monkeypatch.setattr(Solver, "odds_answer", out_of_time)
    got = CliRunner().invoke(main, ["solve", str(path), "--probabilities", "--json"])
    assert got.exit_code == 3, got.output
    report = json.loads(got.stdout)
    assert report["missing"] == ["probabilities"] and "probabilities" not in report
    from mapgen.mapfile import read_map

    state = read_map(path)
    possible = Solver.for_chapter(state.chapter).possible(state)
    want = {
        state.board.name(i): [t.code for t in sorted(possible[i], key=lambda t: t.index)] for i in state.unrevealed()
    }
    assert report["possible"] == want
    assert {c: ts[0] for c, ts in want.items() if len(ts) == 1} == report["forced"]
    text = CliRunner().invoke(main, ["solve", str(path), "--probabilities"])
    assert text.exit_code == 3 and "possible terrains (exact" in text.stdout
    open_cell = next(c for c, ts in want.items() if len(ts) > 1)
    assert f"  {open_cell}: {', '.join(want[open_cell])}" in text.stdout
    assert "not in time: probabilities" in text.stdout


def test_the_odds_start_no_work_once_the_wall_clock_has_run_out(monkeypatch):
    """Measured on a 2-core machine at load 10 (``mapgen solve vameter-1 --reveal`` 8 cells ``--probabilities``): the
    count ran out of the wall clock, then the sampler still imported its kernels, forked a SAT session and loaded
    numba's cached loops before its first deadline check: 15.9 to 25 s for a 10 s time limit, exit 3 either way. A
    question whose wall clock has run out before its odds start raises SolveTimeout at once, before any of that."""
    state = maps.load("vameter-1").hide(range(8, 49))
    s = Solver.for_chapter("vameter")
    started = []
    monkeypatch.setattr(Solver, "chain_starts", lambda *a, **k: started.append(1) or S.Starts())
    monkeypatch.setattr(Solver, "_smc_check", lambda *a, **k: started.append(1))
    from mapgen.solving.sat import Budget

    spent = Budget.until(10.0, time.monotonic() - 0.01)  # 10 s of work, the wall clock already past its end
    with pytest.raises(SolveTimeout, match="time limit ran out"):
        s.odds_answer(state, time_limit=spent, method="sampler", possible=s.possible(state))
    with pytest.raises(SolveTimeout, match="time limit ran out"):
        s.sampled_odds(state, seconds=4.0, deadline=time.monotonic() - 0.01, possible=s.possible(state))
    assert not started


def test_a_plan_s_packed_checks_are_every_rule_centre_that_reads_the_step_s_cell():
    """Each step of a block's plan checks, at every cell, exactly the terrains whose local rules centred there read
    the cell set at that step (``make_plan`` packs a cell and its terrains' bits into one entry), one entry a cell in
    cell order; on an empty board and a revealed one (one terrain a revealed cell: fewer checks), plans made anew and
    from the program's kept checks alike."""
    m = maps.load("flora-1")
    order_all = [i for col in reversed(m.board.cols) for i in col]
    for hidden in (range(m.board.size), order_all[12:]):
        prog = S.compile_program(get_chapter(m.chapter), m.hide(hidden))
        nt = len(prog.terrains)
        for order in prog.blocks[:60:7]:
            for _ in range(2):  # the second from the kept checks
                plan = S.make_plan(prog, order)
                for k, c in enumerate(order.tolist()):
                    got = set()
                    entries = plan.c_idx[plan.c_ptr[k] : plan.c_ptr[k + 1]].tolist()
                    cells = [e & S.CELL_MASK for e in entries]
                    assert cells == sorted(set(cells))
                    for e in entries:
                        x = e & S.CELL_MASK
                        got |= {(x, t) for t in range(nt) if e >> (S.CELL_BITS + t) & 1}
                    want = {
                        (x, t)
                        for x in range(prog.size)
                        for t in range(nt)
                        if prog.dom[x, t]
                        and prog.by_terrain_ptr[t + 1] > prog.by_terrain_ptr[t]
                        and c in S._scope(prog, x, t)
                    }
                    assert got == want


def test_the_chains_draw_what_they_drew_before_the_kernels_were_sped_up():
    """Same seed, same draws: the kernels' speed-ups (packed checks, the leaf's checks written out) change no draw.
    Digests of the draws of the sampler before them (2026-12-05) on three states of three chapters."""
    got = []
    for name, k in (("training-1", 6), ("flora-1", 30), ("maldonado-1", 30)):
        m = maps.load(name)
        order = [i for col in reversed(m.board.cols) for i in col]
        prog = S.compile_program(get_chapter(m.chapter), m.hide(order[k:]))
        draws, stats = S.run_chains(prog, [S.encode(prog, m.cells)] * 2, sweeps=4, burn=2, seed=7, threads=1)
        got.append((hashlib.sha256(draws.tobytes()).hexdigest()[:16], stats.tolist()))
    assert got == [
        ("48700f0dbbe8fc7b", [1188, 165, 6790, 12]),
        ("86a0b8d262cc384c", [1356, 126, 4420, 12]),
        ("d30a461e678e4342", [2034, 40, 3413, 18]),
    ]


def _busy_clock(monkeypatch, step: float = 10.0) -> None:
    """The solver's wall clock as a machine far too busy shows it: ``step`` seconds pass between two readings (no
    real work is timed)."""
    import types

    from mapgen.solving import sat, solve

    now = [1000.0]

    def monotonic() -> float:
        now[0] += step
        return now[0]

    fake = types.SimpleNamespace(monotonic=monotonic, perf_counter=monotonic, time=monotonic)
    monkeypatch.setattr(sat, "time", fake)
    monkeypatch.setattr(solve, "time", fake)


def test_chain_starts_topped_up_by_sat_never_depend_on_the_load(monkeypatch):
    """Where the SMC runs die (here all of them), the chains start from a private SAT session's completions. Those
    were drawn within the wall clock's seconds left, and a SAT call past them ended the draws in silence: a busy
    machine started the chains from fewer completions (used in turn), so the same seed gave other odds. Now their
    work is counted (SAT propagations): the same starts, or SolveTimeout when the wall clock runs out first."""
    from mapgen.solving import smc

    monkeypatch.setattr(smc, "draws", lambda *a, **k: [])  # every run met a dead end
    m = maps.load("training-1")
    state = m.hide(range(5, m.board.size))
    calm = Solver(get_chapter("training")).chain_starts(state, 12, seed=3)
    assert len(calm) == 12
    _busy_clock(monkeypatch)
    try:
        busy = Solver(get_chapter("training")).chain_starts(state, 12, seed=3)
    except SolveTimeout:
        return  # honest: the time ran out
    assert list(busy) == list(calm) and busy.groups == calm.groups


def test_chains_run_ahead_beside_the_count_give_the_same_report_to_the_digit(monkeypatch):
    """``solve --probabilities`` starts the sampler's chains beside the count estimate, each run's as soon as that
    SMC run ends (``Solver.chains_ahead``): the sampler takes them from there, and the report is the one it gives
    without (a chain's draws depend on its start, index, seed and budget alone). A deterministic solver: its wall
    clock a safety net far off, so the work, not this machine's load, decides the answer."""
    from mapgen.report import solve_report

    m = maps.load("flora-1")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[8:])  # column G and A6 revealed: no circuit, the count estimated by SMC runs
    seen = []
    real = Solver.chains_ahead

    def spying(self, *a, **k):
        with real(self, *a, **k) as tally:
            seen.append(tally)
            yield tally

    import contextlib

    monkeypatch.setattr(Solver, "chains_ahead", contextlib.contextmanager(spying))
    ahead = solve_report(state, probabilities=True, solver=Solver(get_chapter("flora"), deterministic=True), seed=3)
    monkeypatch.setattr(Solver, "chains_ahead", lambda self, *a, **k: contextlib.nullcontext())
    alone = solve_report(state, probabilities=True, solver=Solver(get_chapter("flora"), deterministic=True), seed=3)
    assert ahead["probabilities_method"] == "sampler" and ahead["estimate"]["method"] == "smc"
    assert ahead == alone
    (tally,) = seen
    assert tally.started == ahead["sampler"]["chains"] and 0 < tally.taken <= tally.started


def test_chains_run_ahead_are_taken_only_for_the_same_program_start_and_budget():
    """A chain run ahead answers only the question it was run for: another seed, budget or start runs afresh (the
    same draws as if nothing had run ahead), and closing stops what is left."""
    state, solver, starts = _game_state("flora-1", 28, 2)
    prog = S.compile_program(solver.chapter, state)
    xs = [S.encode(prog, w) for w in starts]
    ahead = S.ChainsAhead(prog, chains=2, per_run=2, particles=50, step=1, sweeps=10, burn=2, seed=1)
    ahead.offer(prog, 99, 1, "smc:1:0", lambda k: xs[:k])  # another budget's run (the count's at another limit)
    assert ahead.tally.started == 0
    ahead.offer(prog, 50, 1, "smc:1:0", lambda k: xs[:k])
    try:
        plain = S.run_chains(prog, xs, sweeps=10, burn=2, seed=1)
        other_seed = S.run_chains(prog, xs, sweeps=10, burn=2, seed=2, ahead=ahead)
        assert ahead.tally.taken == 0
        assert np.array_equal(other_seed[0], S.run_chains(prog, xs, sweeps=10, burn=2, seed=2)[0])
        for job in list(ahead._jobs.values()):  # both run ahead to the end: taken, not run again
            job.result(timeout=60)
        taken = S.run_chains(prog, xs, sweeps=10, burn=2, seed=1, ahead=ahead)
        assert np.array_equal(taken[0], plain[0]) and np.array_equal(taken[1], plain[1])
        assert ahead.tally.started == 2 and ahead.tally.taken == 2
    finally:
        ahead.close()
    ahead.offer(prog, 50, 1, "smc:1:1", lambda k: xs[:k])  # closed: nothing starts
    assert ahead.tally.started == 2


def test_the_sampler_s_chains_start_as_their_smc_run_ends_with_the_same_odds(monkeypatch):
    """Outside ``solve`` (``hint``, ``render``, the web) the chain starts' own SMC runs feed chains run ahead
    (``Solver.sampled_odds``): each run's chains start as it ends, beside the next runs, and the odds are those of
    the starts and chains made one after the other."""
    m = maps.load("vameter-1")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[5:])
    started = []
    real = S.ChainsAhead.offer

    def counting(self, *a, **k):
        real(self, *a, **k)
        started.append(self.tally.started)

    monkeypatch.setattr(S.ChainsAhead, "offer", counting)
    got = Solver(get_chapter("vameter"), deterministic=True).sampled_odds(state, seconds=4, seed=5)
    solver = Solver(get_chapter("vameter"), deterministic=True)
    work = S.Budget.for_seconds(4, 5 / 49)
    starts = solver.chain_starts(state, work.chains, seed=5, particles=work.start_particles)
    alone = S.sample_odds(solver.chapter, state, starts, budget=work, seed=5)
    assert np.array_equal(got.draws, alone.draws) and got.shares == alone.shares and got.errors == alone.errors
    assert started and started[-1] == work.chains  # every chain was started ahead, run by run


def test_the_count_s_enumeration_beside_its_estimate_gives_the_estimate_made_after_it(monkeypatch):
    """Below the exact counter's rung the count's enumeration (CP-SAT) runs on a thread of its own while the
    sequential Monte Carlo estimate runs (``Solver._enumerate_beside``): the count is the one made one after the
    other, and an enumeration that finds every completion stops the estimate, which is then not needed."""
    from mapgen.solving import solve as solve_module
    from mapgen.solving.solve import _Tally

    m = maps.load("flora-1")
    order = [i for col in reversed(m.board.cols) for i in col]
    state = m.hide(order[8:])
    beside = Solver(get_chapter("flora"), deterministic=True)
    got = beside.count(state, time_limit=4, possible=beside.possible(state, 30), seed=2)
    monkeypatch.setattr(solve_module, "counter_from", lambda chapter: 0)  # the rung passed: one after the other
    alone = Solver(get_chapter("flora"), deterministic=True)
    want = alone.count(state, time_limit=4, possible=alone.possible(state, 30), seed=2)
    assert got.method == "smc" and not got.exact
    assert (got.count, got.estimate) == (want.count, want.estimate)

    def found_them_all():
        t = _Tally({}, [], 2000, None)
        t.count = 12
        return t

    solver = Solver(get_chapter("flora"), deterministic=True)
    possible = solver.possible(state, 30)
    real = solver._smc_count

    def once_the_enumeration_is_done(*a, stop, **k):
        until = time.monotonic() + 60
        while not stop() and time.monotonic() < until:
            time.sleep(0.01)
        return real(*a, stop=stop, **k)

    monkeypatch.setattr(solver, "_smc_count", once_the_enumeration_is_done)
    tally, early = solver._enumerate_beside(found_them_all, state, possible, 1.2, time.monotonic() + 60, 2)
    assert tally.count == 12 and early.result() is None  # stopped before its first run
