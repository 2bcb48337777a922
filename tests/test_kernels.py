"""The compiled loops' disk cache as a new user meets it: a first solve compiles them before its time limit."""

from __future__ import annotations

import pytest
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


@pytest.fixture
def fresh_install(monkeypatch):
    """A process on a fresh install (no compiled loops on disk, none warmed yet): the list of warm-ups made."""
    from mapgen.solving import solve

    warmed: list[int] = []
    monkeypatch.setattr(solve, "_WARM", False)
    monkeypatch.setattr(solve, "kernels_on_disk", lambda: False)
    monkeypatch.setattr(solve, "warm_kernels", lambda: warmed.append(1))
    return warmed


def test_a_first_question_from_python_compiles_the_loops_before_its_budget(fresh_install):
    """From Python, the first sampled odds on a fresh install compiled the loops inside the question's time limit
    (SolveTimeout after 14.7 s with 10 s): they are compiled first, once a process."""
    from mapgen.solving import solve

    m = maps.load("training-1")
    warmed = fresh_install
    solver = solve.Solver("training")
    got = solver.odds_answer(m.hide(range(8)), time_limit=20.0, method="sampler")
    assert got.method == "sampler" and warmed == [1]
    solver.count(m.hide(range(10)), time_limit=20.0)
    assert warmed == [1]


def test_a_first_question_from_python_says_once_through_logging_that_it_compiles(fresh_install, caplog):
    """From Python the first sampled odds on a fresh install sat silent for half a minute, where the CLI says
    "first use: compiling ...". It is now said once, as a library says it: a WARNING of the ``mapgen.solving.solve``
    logger (Python prints it on stderr when the program set no logging up, as matplotlib says it builds its font
    cache; a program silences it with ``logging``), never printed, never a ``warnings`` warning."""
    import logging
    import warnings

    from mapgen.solving import solve

    m = maps.load("training-1")
    warmed = fresh_install
    solver = solve.Solver("training")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warnings.warn
        with caplog.at_level(logging.INFO, logger="mapgen"):
            solver.odds_answer(m.hide(range(8)), time_limit=20.0, method="sampler")
            solver.odds_answer(m.hide(range(9)), time_limit=20.0, method="sampler")
    said = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert said == [
        (
            "mapgen.solving.solve",
            logging.WARNING,
            "mapgen: first use: compiling the sampler's loops (about half a minute, once: later runs skip it)",
        )
    ]
    assert warmed == [1]


def _fake_cache(folder):
    folder.mkdir(parents=True)
    for name in ("sampler._enumerate", "sampler._chain", "smc._smc", "smc._witnessed", "bot_kernels.weights"):
        (folder / f"{name}-1.py311.nbi").write_bytes(b"")
    for name in ("bot_kernels.expected_values", "bot_kernels.cell_values"):
        (folder / f"{name}-2.py311.nbi").write_bytes(b"")


def test_the_kernels_are_looked_for_where_numba_keeps_them_with_numba_cache_dir(tmp_path, monkeypatch):
    """With NUMBA_CACHE_DIR set (as container images do), numba keeps its cache there, not beside the sources: the
    check looked beside the sources, said nothing, and a first `mapgen solve flora-2 --reveal none --probabilities`
    compiled inside its 10 s and exited 3 ("the time limit ran out before the sampler started")."""
    import hashlib
    import os

    from mapgen.solving import solve

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert not solve.kernels_on_disk()  # an empty cache there: a first use, whatever lies beside the sources
    source = os.path.dirname(os.path.abspath(solve.__file__))
    where = tmp_path / "numba" / f"solving_{hashlib.sha1(source.encode()).hexdigest()}"
    assert solve.kernel_cache_dir() == where
    _fake_cache(where)
    assert solve.kernels_on_disk()


def test_a_read_only_install_looks_in_numbas_user_cache(tmp_path, monkeypatch):
    """Where the sources' folder cannot be written (an install of another user), numba caches in its user-wide
    folder: the check looked beside the sources and said "first use: compiling…" on every run."""
    import sys

    from mapgen.solving import solve

    if sys.platform != "linux":
        import pytest

        pytest.skip("the user cache folder is XDG's on Linux")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(solve, "_writable", lambda folder: False)
    where = solve.kernel_cache_dir()
    assert where.parent == tmp_path / "cache" / "numba" and where.name.startswith("solving_")
    assert not solve.kernels_on_disk()
    _fake_cache(where)
    assert solve.kernels_on_disk()
