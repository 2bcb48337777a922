"""Ctrl-C and worker processes (``mapgen.workers``): a Ctrl-C that reaches a worker before it ignores Ctrl-C is
held back, never raised inside it, and the command that forked it still gets its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(signal, "pthread_sigmask"), reason="POSIX")

# A command's Ctrl-C handler raises KeyboardInterrupt (``mapgen.cli.errors``). A worker forked within
# ``ctrl_c_held`` is sent SIGINT before it calls ``start_worker``; it must finish quietly (exit 0, nothing on
# stderr), and the parent, sent SIGINT while it held Ctrl-C back, must get it once the block ends.
SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from mapgen.workers import ctrl_c_held, start_worker

    def on_sigint(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, on_sigint)
    HOLD = sys.argv[1] == "held"

    def fork_worker():
        pid = os.fork()
        if pid == 0:  # the worker: Ctrl-C arrives before it ignores Ctrl-C
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.2)
                start_worker()
                time.sleep(0.1)
            except KeyboardInterrupt:
                sys.stderr.write("worker: KeyboardInterrupt\\n")
                os._exit(1)
            os._exit(0)
        return pid

    got = "none"
    try:
        if HOLD:
            with ctrl_c_held():
                pid = fork_worker()
                os.kill(os.getpid(), signal.SIGINT)  # the parent's own Ctrl-C, while it forks
                time.sleep(0.1)
        else:
            pid = fork_worker()
        time.sleep(0.5)
    except KeyboardInterrupt:
        got = "parent: KeyboardInterrupt"
    _, status = os.waitpid(pid, 0)
    print(got, os.waitstatus_to_exitcode(status))
    """
)


def run(mode: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], check=False, env=env, capture_output=True, text=True, timeout=60
    )


def test_a_worker_forked_with_ctrl_c_held_never_raises_it_and_the_parent_still_gets_its_own():
    r = run("held")
    assert r.stderr == ""
    assert r.stdout.split() == ["parent:", "KeyboardInterrupt", "0"]


def test_without_holding_it_the_half_started_worker_raises_it():  # what the guard is for
    r = run("bare")
    assert "worker: KeyboardInterrupt" in r.stderr
    assert r.stdout.split() == ["none", "1"]
