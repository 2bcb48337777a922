"""Worker processes for the web app's solver and drawing work, each pool at its own OS priority.

The server process answers HTTP, checks (validate, parse) and the answer cache. Solver questions (CP-SAT,
the explanations, the counts) and drawing (matplotlib) are CPU-bound Python: in a thread of the server
they hold its GIL, and every validation then waits for them. In worker processes they cannot, and with a
higher ``nice`` the kernel gives the server the CPU first whenever it has something to do.

Each worker process keeps its own solver sessions (``service.solver_for``); circuits compiled in one
reach the others through the disk cache. Answers do not depend on which worker gives them (budgets count
work, not time). Workers are spawned (no solver state or lock inherited from the server's threads),
ignore Ctrl-C (the server stops them) and end with the server.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from mapgen.workers import release_on_sigterm, start_worker

#: Ctrl-C blocked while a worker is spawned: the new interpreter starts with it blocked (the signal mask
#: survives exec), so a Ctrl-C while it imports its first modules is not a "Fatal Python error" on the
#: terminal; once it ignores Ctrl-C, ``_start`` unblocks it (a pending one is then dropped)
_BLOCKED = {signal.SIGINT}


def _start(nice: int) -> None:
    """In a new worker: ignore Ctrl-C, end with the server, yield the CPU to it, and import the work."""
    start_worker()
    release_on_sigterm()
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _BLOCKED)
    if nice:
        try:
            os.nice(nice)
        except (AttributeError, OSError):  # not allowed here: equal priority, still out of the server's GIL
            pass
    from mapgen.solving import compiled  # deferred: the work's modules, in the worker only
    from mapgen.solving.solve import warm_kernels  # deferred: numba's loads, in the worker only
    from mapgen.web import (  # noqa: F401  # deferred: the work's modules, in the worker only (ready for its first request)
        service,
    )

    # a worker lives as long as the server: loading numba once pays from a large circuit's first question on
    compiled.KERNEL_FROM_QUERY = 1
    compiled.KERNELS_PAID = True
    warm_kernels()


def _ready() -> int:
    return os.getpid()


class ProcessPool:
    """``workers`` spawned processes at ``nice``, started when first needed; one that dies (killed, out of
    memory) fails the requests it was running and a fresh pool takes the next ones."""

    def __init__(self, workers: int, nice: int = 0, name: str = "mapgen"):
        self.workers = workers
        self.nice = nice
        self.name = name
        self._pool: ProcessPoolExecutor | None = None  # made on first use: its queues hold OS semaphores
        self._closed = False

    def _make(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers, mp_context=mp.get_context("spawn"), initializer=_start, initargs=(self.nice,)
        )

    def submit(self, fn, /, *args) -> Future:
        """``fn(*args)`` in a worker (one is spawned when none is idle and fewer than ``workers`` run)."""
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown")
        with _ctrl_c_blocked():
            if self._pool is None:
                self._pool = self._make()
            try:
                return self._pool.submit(fn, *args)
            except BrokenProcessPool:  # a worker died since: the requests it ran have failed; start afresh
                self._pool.shutdown(wait=False)
                self._pool = self._make()
                return self._pool.submit(fn, *args)

    def warm(self) -> list[Future]:
        """Start every worker now (each imports the work), rather than on the requests that find none idle."""
        return [self.submit(_ready) for _ in range(self.workers)]

    def pids(self) -> list[int]:
        """The worker processes running now."""
        return [p.pid for p in list((getattr(self._pool, "_processes", None) or {}).values()) if p.is_alive()]

    def shutdown(self, *, cancel_futures: bool = True) -> None:
        """Stop: requests not started are cancelled and running ones ended (their workers terminated: when the
        server stops without waiting for them, a second Ctrl-C), then the workers are reaped and the
        executor's queues (OS semaphores) released, so that nothing is left behind or warned about."""
        pool, self._pool, self._closed = self._pool, None, True
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())  # the executor's: no public way
        # its manager thread holds the queues; the first shutdown forgets it, so a second shutdown(wait=True) does
        # not wait for it: it is joined here, and with it gone the queues' semaphores are unlinked before this
        # returns (``mapgen serve`` ends with os._exit after Ctrl+C: no atexit handler would unlink them later, and
        # Python's resource tracker warned of "leaked semaphore objects" under the command's one line)
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=cancel_futures)
        for p in processes:
            if p.is_alive():
                p.terminate()
        for p in processes:
            p.join(5)
            if p.is_alive():  # its release still waiting behind C code: ended now
                p.kill()
                p.join(1)
        if manager is not None:
            manager.join(5)  # it sees its workers gone and closes its queues
        pool.shutdown(wait=True)


class StickyPool:
    """``workers`` pools of one worker each, a request going to the one its ``key`` names (``submit_keyed``):
    the questions about one map reach the worker that already holds its solver session and circuits (a
    session is about 0.1 s of encoding per briefing and worker; a hint on it then takes 30 ms), instead of
    whichever is free. ``submit`` without a key takes the worker with the fewest requests in flight."""

    def __init__(self, workers: int, nice: int = 0, name: str = "mapgen"):
        self.workers = workers
        self.nice = nice
        self.shards = [ProcessPool(1, nice, name=f"{name}-{k}") for k in range(workers)]
        self._running = [0] * workers
        self._lock = threading.Lock()  # the counts change in the server's loop and in the executors' threads

    def _on(self, k: int, fn, args) -> Future:
        with self._lock:
            self._running[k] += 1
        try:
            f = self.shards[k].submit(fn, *args)
        except BaseException:
            self._done(k)
            raise
        f.add_done_callback(lambda _f: self._done(k))
        return f

    def _done(self, k: int) -> None:
        with self._lock:
            self._running[k] -= 1

    def submit_keyed(self, key: int, fn, /, *args) -> Future:
        return self._on(key % self.workers, fn, args)

    def submit(self, fn, /, *args) -> Future:
        with self._lock:
            k = min(range(self.workers), key=self._running.__getitem__)
        return self._on(k, fn, args)

    def warm(self) -> list[Future]:
        return [f for shard in self.shards for f in shard.warm()]

    def pids(self) -> list[int]:
        return [pid for shard in self.shards for pid in shard.pids()]

    def shutdown(self, *, cancel_futures: bool = True) -> None:
        for shard in self.shards:
            shard.shutdown(cancel_futures=cancel_futures)


class _ctrl_c_blocked:
    """Ctrl-C blocked in this thread while the block runs (where the thread may spawn a worker): a Ctrl-C
    meanwhile is delivered when it ends (POSIX; elsewhere nothing)."""

    def __enter__(self):
        self._before = (
            signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED) if hasattr(signal, "pthread_sigmask") else None
        )

    def __exit__(self, *exc):
        if self._before is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._before)
