"""``--ray ADDRESS`` that cannot work fails at once, in one line (exit 2), before anything is made.

These start no cluster (the Ray tests that do are tests/test_campaign_ray.py).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def closed_port() -> int:
    """A local port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mapgen(*args, cwd=None, env=None, timeout=120):
    return subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


@pytest.mark.slow  # real processes, each importing Ray
@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_address_where_nothing_answers_fails_at_once(scheme):
    """Found by an audit: `mapgen grade MAP --ray 127.0.0.1:1` waited in Ray's connection loop for over 11 minutes
    (Ctrl-C and SIGTERM ignored: the loop is in Ray's C++ core) instead of failing "before any candidate is made"."""
    pytest.importorskip("ray")
    address = f"{scheme}127.0.0.1:{closed_port()}"
    r = mapgen(
        "grade", "training-1", "--games", "2", "--bots", "heuristic", "--no-deduction", "--ray", address, timeout=60
    )
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.startswith(f"error: --ray {address}: nothing answers at 127.0.0.1:"), r.stderr
    assert len(r.stderr.splitlines()) == 1


@pytest.mark.slow  # a real process, importing Ray
def test_auto_with_a_ray_address_where_nothing_answers_fails_at_once():
    """--ray auto joins RAY_ADDRESS when it is set: an address nothing answers at fails as one given by hand."""
    pytest.importorskip("ray")
    address = f"127.0.0.1:{closed_port()}"
    env = {**os.environ, "RAY_ADDRESS": address}
    r = mapgen(
        "grade",
        "training-1",
        "--games",
        "2",
        "--bots",
        "heuristic",
        "--no-deduction",
        "--ray",
        "auto",
        env=env,
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr == f"error: --ray auto: nothing answers at {address} (RAY_ADDRESS; Connection refused)\n"


def test_without_ray_installed_nothing_is_made(tmp_path, monkeypatch):
    """Found by an audit: `generate --grade ... --out NEW --ray auto` without Ray made the folder NEW, said so on
    stderr, and only then failed on the missing Ray: an option that cannot work is refused before anything."""
    from click.testing import CliRunner

    from cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as where it is not installed
    out = tmp_path / "new"
    args = ["generate", "-c", "training", "--seed", "1", "--grade", "Gentle", "--out", str(out), "--ray", "auto"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    assert r.stderr == (
        'error: --ray: Ray is not installed (pip install ".[ray]" in the mapgen folder, or pip install ray)\n'
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "given, line",
    [
        (
            ["--ray", "auto"],
            (
                "error: --ray: only a quality target's candidates (--grade, --win-rate, --max-walled-in, a profile's "
                "[quality] table) run on Ray; plain generation runs here, in one process"
            ),
        ),
        (
            ["--jobs", "2"],
            (
                "error: --jobs: only a quality target's candidates (--grade, --win-rate, --max-walled-in, a profile's "
                "[quality] table) run on several processes; plain generation runs here, in one process"
            ),
        ),
    ],
)
@pytest.mark.parametrize("source", [["-c", "training"], ["--from", str(ROOT / "examples" / "my-sketch.toml")]])
def test_generate_without_a_target_refuses_campaign_options(tmp_path, given, line, source):
    """Found by an audit: plain `generate -c fauna --count 20 --out DIR --ray auto` (or --jobs 4) ran in one process,
    the option silently ignored (no cluster contacted, one core used)."""
    from click.testing import CliRunner

    from cli import main

    out = tmp_path / "new"
    r = CliRunner().invoke(main, ["generate", *source, "--seed", "1", "--count", "2", "--out", str(out), *given])
    assert r.exit_code == 2, r.output
    assert r.stderr == line + "\n"
    assert not out.exists()


@pytest.mark.parametrize(
    "given, line",
    [
        (["--ray", ""], "error: --ray: an address (auto, local, HOST:PORT or ray://HOST:PORT), not ''"),
        (["--ray", " "], "error: --ray: an address (auto, local, HOST:PORT or ray://HOST:PORT), not ' '"),
        (["--ray", "auto", "--jobs", "2"], "error: --jobs: not used with --ray, whose cluster's CPUs run the tasks"),
    ],
)
def test_ray_options_that_would_be_ignored_are_refused(given, line):
    """Found by an audit: `--ray ""` ran on one local process, and `--jobs 2` beside `--ray` was dropped, both
    without a word."""
    from click.testing import CliRunner

    from cli import main

    r = CliRunner().invoke(main, ["grade", "training-1", "--games", "2", "--bots", "heuristic", *given])
    assert r.exit_code == 2, r.output
    assert r.stderr == line + "\n"
