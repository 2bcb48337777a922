"""Shared fixtures: the worked example maps kept under tests/data (valid, invalid, states)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mapgen.mapfile import read_map

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True, scope="session")
def _circuit_cache(tmp_path_factory):
    """Compiled briefings go to a folder of this test run (never the user's cache); child processes
    (CLI runs) inherit it through the environment. The web app's briefing compiles are off."""
    import os

    folder = tmp_path_factory.mktemp("circuits")
    # and no web test starts a briefing's compile (minutes of CPU) unless it asks for one
    saved = {k: os.environ.get(k) for k in ("MAPGEN_CACHE_DIR", "MAPGEN_BRIEFING_COMPILES")}
    os.environ["MAPGEN_CACHE_DIR"] = str(folder)
    os.environ["MAPGEN_BRIEFING_COMPILES"] = "0"
    yield folder
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(autouse=True, scope="session")
def _kernels_loaded():
    """The sampler's and the counter's numba loops compiled (a fresh clone: about 30 CPU s, once, then cached on
    disk) or loaded before the first test, never inside a test's time limit."""
    from mapgen.solving.solve import warm_kernels

    warm_kernels()


@pytest.fixture
def slow_clock(monkeypatch):
    """The wall clock (``time.monotonic``) run 50 times slower for one test. Answers are decided by counted work, the
    wall clock only a safety net, which a busy machine (load 10 on 2 cores) can reach first: a test of what the
    work gives then fails on the machine's load. Under this clock only the work decides, as on an idle machine."""
    import time

    real = time.monotonic
    monkeypatch.setattr(time, "monotonic", lambda: real() / 50)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: ``valid/``, ``invalid/`` and ``states/`` examples with their ``expected.json``."""
    return DATA


@pytest.fixture(scope="session")
def example():
    """A loader: ``example("fauna-201")`` reads ``valid/fauna-201.toml``; ``example(name, "states")`` another folder."""

    def load(name: str, folder: str = "valid"):
        return read_map(DATA / folder / f"{name}.toml")

    return load


@pytest.fixture(scope="session")
def expected_invalid() -> dict[str, list[str]]:
    """Rule ids each ``invalid/`` example breaks."""
    return json.loads((DATA / "invalid" / "expected.json").read_text(encoding="utf-8"))


# -- one browser per test run: the browser tests (tests/test_web_browser.py, tests/test_pack_browser.py) are one
# xdist group (``BROWSER``), so under ``-n`` they run on one worker and share its Chromium and its server


@pytest.fixture(scope="session")
def base_url():
    """A live ``mapgen serve`` on loopback for the whole test run (its URL)."""
    from tests.web_support import live_server

    with live_server() as url:
        yield url


@pytest.fixture(scope="session")
def downloads(tmp_path_factory):
    """Where the desktop browser saves what it downloads."""
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="session")
def driver(downloads):
    """The desktop-sized headless Chromium (1280 x 900) that every browser test of the run drives."""
    from tests.web_support import chrome

    d = chrome(1280, 900, downloads=str(downloads))
    yield d
    d.quit()


@pytest.fixture(scope="session")
def phone():
    """The phone-sized headless Chromium (390 x 844, touch) that every phone test of the run drives."""
    from tests.web_support import chrome

    d = chrome(390, 844)
    yield d
    d.quit()


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject.toml's default): one worker per core this process may use, at most 8 (several
    tests start process pools of their own, and a compiled briefing can take a gigabyte)."""
    import os

    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def pytest_addoption(parser):
    parser.addoption(
        "--update-readme",
        action="store_true",
        help="rewrite the README's console blocks whose output no longer matches (tests/test_readme.py); "
        "MAPGEN_UPDATE_README=1 does the same",
    )
