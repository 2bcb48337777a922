"""The compiled loops' disk cache as a new user meets it: a first solve compiles them before its time limit."""

from __future__ import annotations

from click.testing import CliRunner

import maps
from cli import main
from mapgen.mapfile import dumps_map


def test_the_kernels_are_found_on_disk_once_compiled():
    from mapgen.solving.solve import kernels_on_disk

    assert kernels_on_disk()  # the test run's workers loaded them first (conftest): numba wrote its cache


def test_a_first_solve_compiles_the_loops_before_its_time_limit_and_says_so(tmp_path, monkeypatch):
    from mapgen.solving import solve

    m = maps.load("training-1")
    state = tmp_path / "state.toml"
    state.write_text(dumps_map(m.hide(range(5))), encoding="utf-8")
    warmed = []
    monkeypatch.setattr(solve, "_WARM", False)  # a new process
    monkeypatch.setattr(solve, "kernels_on_disk", lambda: False)  # a fresh install
    monkeypatch.setattr(solve, "warm_kernels", lambda: warmed.append(1))
    r = CliRunner().invoke(main, ["solve", str(state), "--time-limit", "30"])
    assert r.exit_code == 0, r.output
    assert "first use: compiling the sampler's loops" in r.stderr and warmed == [1]
    # in a player's words: how long (it said "about 15 s", and took 31-36 CPU s on a 2-core machine), that it is
    # once, and that the time limit does not pay for it (it said "numba keeps them")
    assert r.stderr.startswith(
        "first use: compiling the sampler's loops (about half a minute, once: later runs skip it, "
        "not counted in --time-limit)…\n"
    )
    monkeypatch.setattr(solve, "kernels_on_disk", lambda: True)
    again = CliRunner().invoke(main, ["solve", str(state), "--time-limit", "30"])
    assert again.exit_code == 0 and "first use" not in again.stderr and warmed == [1]


def test_a_first_question_from_python_compiles_the_loops_before_its_budget(monkeypatch):
    """From Python, the first sampled odds on a fresh install compiled the loops inside the question's time limit
    (SolveTimeout after 14.7 s with 10 s): they are compiled first, once a process."""
    from mapgen.solving import solve

    m = maps.load("training-1")
    warmed = []
    monkeypatch.setattr(solve, "_WARM", False)
    monkeypatch.setattr(solve, "kernels_on_disk", lambda: False)  # a fresh install
    monkeypatch.setattr(solve, "warm_kernels", lambda: warmed.append(1))
    solver = solve.Solver("training")
    got = solver.odds_answer(m.hide(range(8)), time_limit=20.0, method="sampler")
    assert got.method == "sampler" and warmed == [1]
    solver.count(m.hide(range(10)), time_limit=20.0)
    assert warmed == [1]
