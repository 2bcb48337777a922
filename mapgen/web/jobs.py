"""Long jobs (playtest, deduce) in worker processes, off the request threads, with progress and cancel.

Each job runs in its own process (spawned, so no solver state or lock is inherited from the server's
threads); at most ``workers`` run at once and the rest wait in line. A job reports progress through a
queue, ends with its report (the CLI's ``--json``) and a PNG chart, and can be cancelled at any time
(its process is terminated). A job also ends when it outlives its wall-clock limit.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import queue
import tempfile
import threading
import time
from dataclasses import dataclass, field

from mapgen.errors import TimeLimitError, exit_code
from mapgen.mapfile import dumps_map, parse_map

KEEP = 50  # finished jobs kept for their results; older ones are forgotten
WAITING_CAP = 20  # jobs in line before new ones are refused


class JobsFull(Exception):
    """Too many jobs waiting."""


@dataclass
class Job:
    id: str
    kind: str
    args: dict
    limit: float
    status: str = "queued"  # queued, running, done, failed, cancelled, timeout
    done: int = 0
    total: int = 0
    result: dict | None = None
    words: dict | None = None  # a playtest's figures as ``mapgen playtest`` says them (report_words), beside result
    error: str | None = None
    code: int | None = None  # a failed job's exit code as the CLI's (2 bad input, 3 a time limit); None: 1
    plot: bytes | None = None
    puzzle: str | None = None  # a deduce's puzzle file (``mapgen deduce --puzzle``'s), once its reveal set was found
    started: float | None = None
    ended: float | None = None
    process: object = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def exit_code(self) -> int:
        """The CLI's exit code for the job so far: 3 for a result kept when time ran out (``"timed_out"``: a deduce
        report's later parts, ``"missing"`` naming them, as ``mapgen deduce`` exits 3; a playtest's games past the job's
        limit) or a job past its limit; a failure's own (2 bad input, 3 a time limit, as the CLI's), else 1."""
        if self.status == "done":
            return 3 if self.result is not None and "timed_out" in self.result else 0
        if self.status == "failed":
            return self.code or 1
        return 3 if self.status == "timeout" else 0

    def to_json(self) -> dict:
        out = {
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "progress": {"done": self.done, "total": self.total},
        }
        if self.result is not None:
            out["result"] = self.result
        if self.words is not None:
            out["words"] = self.words
        if self.error is not None:
            out["error"] = self.error
        if self.plot is not None:
            out["plot"] = f"/api/jobs/{self.id}/plot.png"
        if self.puzzle is not None:
            out["puzzle"] = f"/api/jobs/{self.id}/puzzle.toml"
        return out


def playtest_title(source: str, games: int, bot: str) -> str:
    """The playtest chart's title: the map's name when it has one (a painted map is just "map"), the games
    and the bot."""
    what = f"{games} game{'' if games == 1 else 's'}, {bot} bot"
    return f"Playtest: {what}" if source == "map" else f"Playtest of {source}: {what}"


def _run(kind: str, args: dict, out, limit: float | None = None) -> None:
    """In the worker process: run one job, sending ("progress", done, total), then ("done", report, png, words, puzzle)
    (``puzzle``: a deduce's puzzle file text, as ``mapgen deduce --puzzle`` writes it; None for a playtest) or
    ("failed", message, the CLI's exit code or None).
    ``limit``: the job's wall-clock limit (its process is ended there); a playtest stops taking games a tenth of it
    (at most a minute) before, and reports the games played."""
    from mapgen.workers import start_worker  # deferred: mapgen.workers (multiprocessing), in the job's worker only

    started = time.monotonic()
    start_worker()  # Ctrl-C stops the server, which stops its jobs; a job never prints a traceback of its own
    try:
        m = parse_map(args["text"], "map")
        words = puzzle = None
        if kind == "playtest":
            from mapgen.engine.playtest import (  # deferred: ortools, in the job's worker only
                Settings,
                report_words,
                run_playtest,
                summarise,
            )
            from mapgen.render import plot_playtest  # deferred: mapgen.render, in the job's worker only

            s = Settings(
                bot=args["bot"],
                players=args["players"],
                seed=args["seed"],
                mode=args["mode"],
                reference=args.get("rules"),  # the house chapter ``mapgen serve --rules`` gave this map's chapter
            )
            games = args["games"]
            out.put(("progress", 0, games))
            step = max(1, games // 50)
            stop = None
            if limit is not None:  # the games played before the job's end, kept (the supervisor would end them all)
                deadline = started + limit - min(60.0, limit / 10)
                stop = lambda k: time.monotonic() >= deadline
            records = run_playtest(
                m, s, games, 1, progress=lambda k: k % step == 0 and out.put(("progress", k, games)), stop=stop
            )
            played = len(records)
            if played == 0:
                raise TimeLimitError(f"the job's time limit of {limit:g} s ran out before its first game ended")
            report = summarise(records, m, s, args["source"])
            title = playtest_title(args["source"], played, s.bot)
            chart = lambda path: plot_playtest([report], path, title=title)
            words = report_words(report)
            if played < games:  # what `mapgen playtest --games PLAYED` reports, with what did not come in time
                report["games_asked"] = games
                report["timed_out"] = f"the job's time limit of {limit:g} s ran out after {played} of {games} games"
                words["missing"] = (
                    f"not in time: {games - played:,} of the {games:,} games asked (the job's time limit of {limit:g} s "
                    f"ran out); the figures are of the {played:,} games played"
                )
        else:
            from mapgen.deduce import deduce_report, puzzle_of  # deferred: ortools, in the job's worker only
            from mapgen.deduce_text import not_in_time  # deferred: with deduce_report, in the job's worker only
            from mapgen.render import plot_profile  # deferred: mapgen.render, in the job's worker only

            out.put(("progress", 0, 0))
            report = deduce_report(
                m,
                seed=args["seed"],
                time_limit=args["time_limit"],
                profile=args["profile"],
                progress=lambda k, n: out.put(("progress", k, n)),
                chapter=args.get("rules"),  # the house chapter ``mapgen serve --rules`` gave this map's chapter
                partial=True,  # the reveal set found, a later time-out keeps it, as ``mapgen deduce`` (exit 3)
            )
            chart = (
                (lambda path: plot_profile(report["profile"], path, title="reveal profile"))
                if "profile" in report
                else None
            )
            if "missing" in report:  # the note the studio shows, in the words of deduce's text
                words = {"missing": not_in_time(report, args["time_limit"])}
            puzzle = dumps_map(puzzle_of(m, report["reveal_set"]))  # found even when later parts ran out (exit 3)
        if args.get("rules_file") is not None:  # the house-rule file it was played or deduced under
            report["rules"] = args["rules_file"]
        png = None
        if chart is not None:
            with tempfile.TemporaryDirectory(prefix="mapgen-chart-") as folder:
                path = f"{folder}/chart.png"
                chart(path)
                with open(path, "rb") as f:
                    png = f.read()
        out.put(("done", report, png, words, puzzle))
    except Exception as e:  # noqa: BLE001 - reported to the user as one line, never a traceback
        # the user reads what went wrong, never the exception's class name ("failed: ValueError: ..."); an
        # error that is not the library's is a bug, said as one
        text = str(e).strip()
        if exit_code(e) is None:
            text = f"an internal error ({text}); please report it" if text else "an internal error; please report it"
        out.put(("failed", " ".join(text.split())[:300], exit_code(e)))  # the CLI's exit code; None for a bug


class Jobs:
    """A line of long jobs, at most ``workers`` running at once, each in its own process."""

    def __init__(self, workers: int = 2, limit: float = 900.0):
        self.workers = workers
        self.limit = limit
        self._ctx = mp.get_context("spawn")
        self._slots = threading.Semaphore(workers)
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def submit(self, kind: str, args: dict, limit: float | None = None) -> Job:
        with self._lock:
            waiting = sum(j.status == "queued" for j in self._jobs.values())
            if waiting >= WAITING_CAP:
                raise JobsFull(f"the server's job line is full ({waiting} jobs waiting); try again in a minute")
            job = Job(f"{next(self._ids)}", kind, args, limit or self.limit)
            self._jobs[job.id] = job
            ended = [j for j in self._jobs.values() if j.ended is not None]
            for old in sorted(ended, key=lambda j: j.ended)[:-KEEP] if len(ended) > KEEP else []:
                del self._jobs[old.id]
        threading.Thread(target=self._supervise, args=(job,), name=f"job-{job.id}", daemon=True).start()
        return job

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self._jobs.get(job_id)
        if job is not None and job.ended is None:
            job.cancel.set()
            p = job.process
            if p is not None and p.is_alive():
                p.terminate()
        return job

    def shutdown(self) -> None:
        for job in list(self._jobs.values()):
            self.cancel(job.id)

    def _supervise(self, job: Job) -> None:
        with self._slots:
            if job.cancel.is_set():
                self._end(job, "cancelled")
                return
            q = self._ctx.Queue()
            p = self._ctx.Process(target=_run, args=(job.kind, job.args, q, job.limit), daemon=True)
            job.process, job.status, job.started = p, "running", time.monotonic()
            try:
                p.start()
            except Exception as e:  # noqa: BLE001 - one line for the user
                job.error = f"the worker process could not start ({type(e).__name__})"
                self._end(job, "failed")
                return
            try:
                while True:
                    if job.cancel.is_set():
                        self._end(job, "cancelled")
                        return
                    if time.monotonic() - job.started > job.limit:
                        p.terminate()
                        job.error = f"the job ran out of its time limit of {job.limit:g} s"
                        self._end(job, "timeout")
                        return
                    try:
                        msg = q.get(timeout=0.2)
                    except queue.Empty:
                        if job.cancel.is_set():
                            continue
                        if not p.is_alive() and q.empty():
                            job.error = job.error or "the worker process ended without a report"
                            self._end(job, "failed")
                            return
                        continue
                    if msg[0] == "progress":
                        job.done, job.total = msg[1], msg[2]
                    elif msg[0] == "done":
                        job.result, job.plot, job.words, job.puzzle = msg[1], msg[2], msg[3], msg[4]
                        if job.total:
                            job.done = job.total
                        self._end(job, "done")
                        return
                    else:
                        job.error, job.code = msg[1], msg[2]
                        self._end(job, "failed")
                        return
            finally:
                if p.is_alive():
                    p.terminate()
                p.join(timeout=5)
                q.close()

    @staticmethod
    def _end(job: Job, status: str) -> None:
        job.status, job.ended = status, time.monotonic()
