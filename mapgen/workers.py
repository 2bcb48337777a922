"""What every worker process (a campaign's pool, playtest's pool, the model counter's child) does first.

Ctrl-C in a terminal sends SIGINT to the whole process group: to the command and to every worker it started.
A worker ignores it, so that it prints nothing (no traceback from a process nobody asked about); the command
takes the KeyboardInterrupt, stops its workers itself and says ``error: FILE: interrupted``. A worker that
starts a process of its own (the exact model counter runs in one) asks the kernel to end that child when it
ends, so that killing the worker leaves nothing behind.
"""

from __future__ import annotations

import signal
import sys

#: prctl(2) option: the signal this process gets when its parent ends (Linux)
_PR_SET_PDEATHSIG = 1


def ignore_ctrl_c() -> None:
    """SIGINT ignored in this (worker) process; its parent handles Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def end_with_parent() -> None:
    """SIGKILL this process when the process that started it ends (Linux; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # deferred: only on Linux, only in a worker process

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no libc prctl: the parent still kills its child in a finally
        pass


def start_worker() -> None:
    """The first thing a worker process does: ignore Ctrl-C, end with its parent."""
    ignore_ctrl_c()
    end_with_parent()
