"""Monte-Carlo campaigns: many independent seeded tasks on local processes or on a Ray cluster.

A campaign is a list of ``Task``s. Each task is a module-level function and its arguments, and carries
its own seed among them, so its result depends on nothing but the task: the same tasks give the same
results in the same order whether they ran in this process, on ``jobs`` local processes or on a Ray
cluster, and however the scheduler interleaved them. ``run`` returns the results in task order.

Backends:

- ``Local(jobs)``: this process (``jobs`` 1) or a pool of ``jobs`` forked processes (the default);
- ``Ray(address)``: ``"auto"`` joins the Ray cluster this machine belongs to (``RAY_ADDRESS``, or one
  started by ``ray start --head``) and otherwise starts a local one; ``"local"`` always starts a new
  local one; any other value is a cluster's address (``ray://head:10001``, ``head:6379``). Ray is optional: ``pip install ".[ray]"`` in the mapgen folder.
  Every node must have the same mapgen installed (tasks import it there).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import socket
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import mapgen
from mapgen.errors import InputError
from mapgen.inputs import a_kind, is_whole
from mapgen.workers import ctrl_c_held, start_worker


class CampaignError(InputError):
    """A campaign that cannot run (Ray missing or unreachable); one line, for the CLI (exit 2)."""


#: how long a cluster's address may take to accept a connection before ``--ray`` gives up on it
PROBE_SECONDS = 10.0


def _host_port(address: str) -> tuple[str, int] | None:
    """The host and port a cluster address names (``head:6379``, ``ray://head:10001``, ``[::1]:6379``), or None
    (no port: Ray says what is wrong with it)."""
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


#: what a client of Ray's gRPC servers (the GCS at head:6379, the Ray Client server at ray://head:10001) sends first:
#: HTTP/2's connection preface and an empty SETTINGS frame; a gRPC server answers with a SETTINGS frame of its own
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _settings(got: bytes) -> bool:
    """Whether ``got`` starts with an HTTP/2 SETTINGS frame's header on stream 0 (a gRPC server's first words)."""
    return len(got) >= 9 and got[3] == 0x04 and got[5:9] == b"\x00\x00\x00\x00"


def _probe(address: str, said: str, source: str = "") -> None:
    """CampaignError unless something at ``address`` answers as Ray's gRPC servers do within PROBE_SECONDS in all.
    Ray's own connection loop waits many minutes on an address nothing answers at, inside its C++ core, where Ctrl-C
    cannot reach it, and as long at an address where something else listens (a web server): a socket here fails at
    once (or within PROBE_SECONDS) and Ctrl-C ends it. The server is asked in HTTP/2, as gRPC speaks it (not under
    RAY_USE_TLS, whose servers speak TLS first: there only the connection is tried)."""
    where = _host_port(address)
    if where is None:
        return
    shown = f"[{where[0]}]:{where[1]}" if ":" in where[0] else f"{where[0]}:{where[1]}"
    deadline = time.monotonic() + PROBE_SECONDS
    try:
        conn = socket.create_connection(where, timeout=PROBE_SECONDS)
    except OSError as e:
        why = "no answer" if isinstance(e, TimeoutError) else (e.strerror or str(e))
        raise CampaignError(
            f"--ray {said}: nothing answers at {shown} ({f'{source}; ' if source else ''}{why})"
        ) from None
    with conn:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return
        got = b""
        try:
            conn.sendall(H2_PREFACE)
            # a frame's 9-byte header; past it, anything else up to its first line (what a person can read)
            while (left := deadline - time.monotonic()) > 0:
                if len(got) >= 9 and (_settings(got) or b"\n" in got or len(got) >= 200):
                    break
                conn.settimeout(left)
                chunk = conn.recv(200)
                if not chunk:
                    break
                got += chunk
        except OSError:  # a reset, or the time out: what came (if anything) says what it is
            pass
    if _settings(got):
        return
    first = got.split(b"\r\n", 1)[0].split(b"\n", 1)[0].decode("ascii", "replace")
    words = "".join(ch for ch in first if ch.isprintable())[:60]
    heard = f"it answered {words!r}" if words else "it said nothing"
    raise CampaignError(f"--ray {said}: not a Ray head at {shown} ({f'{source}; ' if source else ''}{heard})")


@dataclass(frozen=True)
class Task:
    """One unit of work: ``fn(*args)``, where the arguments include everything (seed too) the result depends on.

    ``weight`` is the work it stands for in a progress bar (games played, candidates graded).
    """

    fn: Callable[..., Any]
    args: tuple = ()
    weight: int = 1

    def __post_init__(self):
        # a lambda or a nested function ran on one process and failed on two ("Can't pickle local object"): a
        # campaign's results must not depend on where it runs, so it is refused on every backend
        name = getattr(self.fn, "__qualname__", "")
        if not callable(self.fn) or "<" in name:
            raise TypeError(
                "a Task's fn is a module-level function (each task may run in another process, which imports it by "
                f"name), not {name or repr(self.fn)}"
            )
        if not isinstance(self.args, tuple):
            raise TypeError(f"a Task's args is a tuple of the function's arguments, not {a_kind(self.args)}")


def _call(task: Task):
    return task.fn(*task.args)


class Local:
    """Tasks on this machine: in this process (``jobs`` 1) or on ``jobs`` forked worker processes."""

    #: what a progress bar says until the first task is done: nothing, the work starts at once
    starting: str | None = None

    def __init__(self, jobs: int = 1):
        """``jobs``: processes, 0 for one per core (``--jobs``); CampaignError for what is no whole number from 0."""
        if not is_whole(jobs, 0):  # -1 ran on one process, "2" on two, 2.5 on two
            raise CampaignError(f"Local's jobs is a whole number of processes from 0 (0: one per core), not {jobs!r}")
        self.jobs = max(1, jobs or os.cpu_count() or 1)

    @property
    def workers(self) -> int:
        return self.jobs

    def describe(self) -> str:
        return f"{self.jobs} local process{'es' if self.jobs > 1 else ''}"

    def run(self, tasks: Sequence[Task], progress: Callable[[int], None] | None = None) -> list:
        out: list = [None] * len(tasks)
        done = 0
        if self.jobs <= 1 or len(tasks) < 2:
            for k, task in enumerate(tasks):
                out[k] = _call(task)
                done += task.weight
                if progress:
                    progress(done)
            return out
        # Not multiprocessing.Pool: its workers are daemons, and a task may start a process of its own (the
        # exact model counter runs in one).
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        pool = ProcessPoolExecutor(min(self.jobs, len(tasks)), mp_context=ctx, initializer=start_worker)
        try:
            with ctrl_c_held():  # the workers are forked as the tasks are submitted; a Ctrl-C meanwhile waits
                futures = {pool.submit(_call, t): k for k, t in enumerate(tasks)}
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    k = futures[f]
                    out[k] = f.result()
                    done += tasks[k].weight
                    if progress:
                        progress(done)
        except BaseException:
            _stop(pool)  # Ctrl-C, a failed task: do not wait for the tasks still running
            raise
        pool.shutdown()
        return out


def _stop(pool) -> None:
    """End a process pool now: cancel what has not started, kill its workers (each worker's own child ends
    with it, mapgen.workers.end_with_parent) and reap them."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            p.kill()
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            p.join(5.0)


class Ray:
    """Tasks on a Ray cluster: one Ray task per campaign task, one CPU each.

    ``num_cpus`` only applies when this call starts a local Ray (tests start one with 2 CPUs).
    """

    #: what a progress bar says until the first task is done: joining or starting the cluster and its workers
    #: importing mapgen take 10-20 s, the bar at 0/N all the while
    starting: str | None = "starting Ray\u2026"

    def __init__(self, address: str = "auto", *, num_cpus: int | None = None):
        if not isinstance(address, str) or not address.strip():  # 5: "'int' object has no attribute 'removeprefix'"
            raise CampaignError(f"Ray's address is 'auto', 'local', HOST:PORT or ray://HOST:PORT, not {address!r}")
        self.address = address
        self.num_cpus = num_cpus
        self._ray = None
        self._remote = None
        _import_ray()  # a missing Ray is said now, before the command makes anything (an --out folder)

    def connect(self):
        """Join (or start) the cluster once; CampaignError when Ray is missing or the address is wrong."""
        if self._ray is not None:
            return self._ray
        ray = _import_ray()
        if not ray.is_initialized():
            if self.address not in ("auto", "local"):
                _probe(self.address, self.address)
            elif self.address == "auto" and os.environ.get("RAY_ADDRESS", "") not in ("", "auto", "local"):
                _probe(os.environ["RAY_ADDRESS"], "auto", "RAY_ADDRESS")
            quiet = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
            try:
                with _stderr_aside():
                    if self.address == "local":
                        ray.init(num_cpus=self.num_cpus, runtime_env=_local_env(), **quiet)
                    elif self.address == "auto":
                        try:
                            ray.init(address="auto", **quiet)
                        except ConnectionError:  # no cluster here: start one on this machine
                            ray.init(num_cpus=self.num_cpus, runtime_env=_local_env(), **quiet)
                    else:
                        ray.init(address=self.address, **quiet)
            except KeyboardInterrupt:  # Ctrl-C while Ray starts: what it started so far ends with this process
                with contextlib.suppress(Exception):
                    ray.shutdown()
                raise
            except Exception as e:  # noqa: BLE001 (Ray raises many kinds: ConnectionError, RuntimeError, ...)
                raise CampaignError(
                    f"--ray {self.address}: cannot connect ({' '.join(str(e).split())[:200]})"
                ) from None
        self._ray = ray
        self._remote = ray.remote(num_cpus=1, max_retries=2)(_call)
        return ray

    @property
    def workers(self) -> int:
        ray = self.connect()
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def describe(self) -> str:
        return f"Ray ({self.address}, {self.workers} CPUs)"

    def run(self, tasks: Sequence[Task], progress: Callable[[int], None] | None = None) -> list:
        ray = self.connect()
        refs = [self._remote.remote(t) for t in tasks]
        where = {ref: k for k, ref in enumerate(refs)}
        out: list = [None] * len(tasks)
        pending, done = list(refs), 0
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    k = where[ref]
                    try:
                        out[k] = ray.get(ref)
                    except ray.exceptions.RayTaskError as e:
                        # the task's own error (a time-out, a map that breaks a rule), as on local processes: Ray's
                        # wraps it with the remote traceback, which would be printed in the one-line error
                        for other in pending:
                            with contextlib.suppress(Exception):
                                ray.cancel(other, force=True)
                        cause = getattr(e, "cause", None)
                        if isinstance(cause, BaseException):
                            raise cause from None
                        raise
                    done += tasks[k].weight
                    if progress:
                        progress(done)
        except KeyboardInterrupt:  # Ctrl-C: the cluster's tasks stop too, and a Ray started here ends
            for ref in pending:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            with contextlib.suppress(Exception):
                ray.shutdown()  # a joined cluster stays up; this process's own local Ray (and its agents) end
            raise
        return out


def _import_ray():
    """The ray module; CampaignError when it is not installed."""
    try:
        import ray  # deferred: ray, an optional extra, only for the Ray backend
    except ImportError:
        raise CampaignError(
            '--ray: Ray is not installed (pip install ".[ray]" in the mapgen folder, or pip install ray)'
        ) from None
    return ray


@contextlib.contextmanager
def _stderr_aside():
    """Ray's C++ core logs every retry of a connection on file descriptor 2; errors here are one line."""
    try:
        saved = os.dup(2)
    except OSError:  # no real stderr (an embedding host): nothing to set aside
        yield
        return
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _local_env() -> dict:
    """A Ray started here imports mapgen from where this process does (a checkout that is not installed)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(mapgen.__file__)))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {"env_vars": {"PYTHONPATH": path}}


Backend = Local | Ray


def backend(jobs: int = 1, ray: str | None = None) -> Backend:
    """The backend the CLI options ask for: ``--ray ADDRESS`` wins over ``--jobs``."""
    return Ray(ray) if ray else Local(jobs)


def run(tasks: Sequence[Task], where: Backend | None = None, progress: Callable[[int], None] | None = None) -> list:
    """Run every task; the results in task order, whatever ran where."""
    tasks = list(tasks)
    bad = next((t for t in tasks if not isinstance(t, Task)), None)
    if bad is not None:  # "'int' object has no attribute 'fn'" from inside a backend
        raise TypeError(f"run takes a list of Tasks (mapgen.campaign.Task(fn, args)), not {a_kind(bad, shown=True)}")
    return (where or Local(1)).run(tasks, progress)


def total_weight(tasks: Sequence[Task]) -> int:
    return sum(t.weight for t in tasks)


__all__ = ["Backend", "CampaignError", "Local", "Ray", "Task", "backend", "run", "total_weight"]
