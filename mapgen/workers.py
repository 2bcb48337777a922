"""What every worker process (a campaign's pool, playtest's pool, the model counter's child) does first.

Ctrl-C in a terminal sends SIGINT to the whole process group: to the command and to every worker it started.
A worker ignores it, so that it prints nothing (no traceback from a process nobody asked about); the command
takes the KeyboardInterrupt, stops its workers itself and says ``error: FILE: interrupted``. A worker that
starts a process of its own (the exact model counter runs in one) asks the kernel to end that child when it
ends, so that killing the worker leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection

#: prctl(2) option: the signal this process gets when its parent ends (Linux)
_PR_SET_PDEATHSIG = 1


def ignore_ctrl_c() -> None:
    """SIGINT ignored in this (worker) process; its parent handles Ctrl-C. A Ctrl-C held back since the fork
    (``ctrl_c_held``) is dropped with it (ignoring a signal discards it while pending)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Ctrl-C held back, never lost, while this thread forks worker processes. A worker is forked with the
    command's own Ctrl-C handler and ignores Ctrl-C only once ``start_worker`` runs: a Ctrl-C in between (a busy
    machine: the pool's second worker forked 2.5 s into ``playtest --jobs 2``) raised KeyboardInterrupt inside
    the half-started worker, whose traceback then followed ``error: FILE: interrupted``. Forked with SIGINT
    blocked, a worker keeps it pending until ``start_worker`` drops it; the command gets its own as soon as the
    forks are done. Elsewhere than in the main thread, or without ``pthread_sigmask``, nothing is held."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


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


def release_on_sigterm() -> None:
    """In a worker its pool stops with SIGTERM (the web app's): the OS semaphores it made are unlinked before it
    ends. A worker's own pool (the draws' process for sampler runs) holds them in its queues; SIGTERM's default, as
    ``os._exit``, skips multiprocessing's exit handler that unlinks them, and Python's resource tracker then warned
    of "leaked semaphore objects" under ``mapgen serve``'s one line after Ctrl+C."""
    signal.signal(signal.SIGTERM, _released)


def _released(signum: int, frame: object) -> None:
    from multiprocessing import util  # deferred: multiprocessing's finalizers, only when a worker is stopped

    # what multiprocessing's exit handler runs first: each semaphore's unlink (exit priority 0) among them
    with contextlib.suppress(Exception):
        util._run_finalizers(0)  # type: ignore[attr-defined]
    os._exit(0)


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far: the same for the same work however busy
    the machine is, unlike the wall clock (Linux /proc; elsewhere 0.0, so no CPU budget ever runs out)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read()
    except OSError:
        return 0.0
    fields = text[text.rindex(b")") + 2 :].split()  # after "pid (name) ": state, ppid, ... utime is the 12th
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_child(
    conn: Connection,
    pid: int,
    deadline: float,
    cpu_limit: float | None = None,
    progress: Callable[[float], object] | None = None,
) -> str:
    """Wait for a child's answer on ``conn``: ``"ok"`` once it is there, ``"cpu"`` when the child has used
    ``cpu_limit`` CPU seconds first (a budget: where it runs out does not depend on the load), ``"wall"`` when
    the monotonic ``deadline`` passes first. ``progress`` gets the seconds waited, about every quarter second."""
    started = time.monotonic()
    tick = 0.25 if cpu_limit is None else 0.02
    last = started
    while True:
        now = time.monotonic()
        if conn.poll(max(0.0, min(deadline - now, tick))):
            return "ok"
        if cpu_limit is not None and cpu_seconds(pid) >= cpu_limit:
            return "ok" if conn.poll() else "cpu"
        now = time.monotonic()
        if now >= deadline:
            return "ok" if conn.poll() else "wall"
        if progress is not None and now - last >= 0.25:
            progress(now - started)
            last = now


class ForkedChild:
    """``target(*args)`` in a child made by ``os.fork`` itself, with the parts of ``multiprocessing.Process``
    the compiler's parent uses (``start``, ``is_alive``, ``kill``, ``join``, ``exitcode``, ``pid``).

    Unlike a ``multiprocessing.Process`` it may be started from a daemonic worker (a ``multiprocessing.Pool``'s,
    as playtest's and the web app's jobs are), which multiprocessing forbids to have children: a compile then
    runs there as anywhere else, so what a bot plays does not depend on ``--jobs``. The child ends with
    ``os._exit`` (no atexit handler, no buffer of the parent's flushed twice); 1 when ``target`` raised.
    """

    def __init__(self, target: Callable[..., object], args: tuple = ()):
        self.target, self.args = target, args
        self.pid: int | None = None
        self._code: int | None = None

    @property
    def exitcode(self) -> int | None:
        """The child's exit code once it has ended (negative: the signal that ended it), else None."""
        self._reap(block=False)
        return self._code

    def start(self) -> None:
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                self.target(*self.args)
                code = 0
            finally:
                os._exit(code)
        self.pid = pid

    def _reap(self, block: bool) -> None:
        if self.pid is None or self._code is not None:
            return
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere (a SIGCHLD handler): it has ended
            self._code = -1
            return
        if pid:
            self._code = os.waitstatus_to_exitcode(status)

    def is_alive(self) -> bool:
        self._reap(block=False)
        return self.pid is not None and self._code is None

    def kill(self) -> None:
        if self.is_alive():
            assert self.pid is not None
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def join(self, timeout: float | None = None) -> None:
        if timeout is None:
            self._reap(block=True)
            return
        deadline = time.monotonic() + timeout
        while self.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
