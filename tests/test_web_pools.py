"""The web app's pools and shared answers (issue 20): solver work in worker processes at a lower priority, so
that validations are answered while every solver worker is busy; identical requests in flight computed once;
a kept answer never given for another body; errors from a worker whole (status, exit code, extra fields)."""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import threading
import time
import urllib.error
import urllib.request

import pytest

import maps
from mapgen.mapfile import dumps_map
from mapgen.web import app as web_app
from mapgen.web import create_app
from mapgen.web.answers import Answers, request_key
from mapgen.web.live import live_server
from mapgen.web.service import ApiError
from mapgen.workers import cpu_seconds


def _post(url: str, path: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class Client:
    def __init__(self, gone: bool = False):
        self.gone = gone

    async def is_disconnected(self) -> bool:
        return self.gone


# -- Answers: one computation per request in flight, kept answers by exact request ---------------------


def test_the_request_key_is_canonical_and_tells_bodies_and_endpoints_apart():
    assert request_key("hint", {"a": 1, "b": [1, 2]}) == request_key("hint", {"b": [1, 2], "a": 1})
    assert request_key("hint", {"map": "x"}) != request_key("table", {"map": "x"})
    assert request_key("hint", {"map": "x"}) != request_key("hint", {"map": "x", "exclude": []})
    assert request_key("hint", {"map": "x"}) != request_key("hint", {"map": "x "})


def test_identical_requests_at_once_compute_once_and_others_apart():
    calls: list[str] = []

    async def main():
        answers = Answers()
        release = asyncio.Event()

        def compute(name):
            async def run(wanted):
                calls.append(name)
                await release.wait()
                return f"answer of {name}"

            return run

        waiting = [asyncio.ensure_future(answers.get(k, compute(k))) for k in ("a", "a", "a", "b")]
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        release.set()
        got = await asyncio.gather(*waiting)
        again = await answers.get("a", compute("a"))
        return got, again, answers.stats()

    got, again, stats = asyncio.run(main())
    assert got == ["answer of a", "answer of a", "answer of a", "answer of b"]
    assert sorted(calls) == ["a", "b"]  # one computation per distinct request
    assert again == "answer of a" and stats == {"hits": 1, "shared": 2, "computed": 2, "kept": 2}


def test_answers_not_to_keep_errors_and_size_zero_are_computed_again():
    async def main():
        count = {"n": 0}

        async def compute(wanted):
            count["n"] += 1
            return count["n"]

        async def fail(wanted):
            raise ApiError("the time limit ran out (ask for a larger time_limit)", exit=3)

        none_kept = Answers(0)
        assert [await none_kept.get("k", compute) for _ in range(2)] == [1, 2]
        kept = Answers(2)
        assert await kept.get("x", compute, keep=lambda a: False) == 3
        assert await kept.get("x", compute) == 4  # not kept before: computed again, kept now
        assert await kept.get("x", compute) == 4
        for _ in range(2):
            with pytest.raises(ApiError):
                await kept.get("t", fail)
        assert kept.stats()["computed"] == 4  # x twice, t twice (a time-out is never kept)
        await kept.get("y", compute)
        await kept.get("z", compute)  # at most 2 kept: x, the least recently used, goes
        assert await kept.get("x", compute) == 7
        kept.clear()
        assert kept.stats() == {"hits": 0, "shared": 0, "computed": 0, "kept": 0}

    asyncio.run(main())


def test_a_computation_is_wanted_while_one_of_its_clients_waits():
    async def main():
        answers = Answers()
        seen = []

        async def compute(wanted):
            await asyncio.sleep(0)
            seen.append(await wanted())
            return "done"

        gone, here = Client(gone=True), Client()
        both = [answers.get("k", compute, client=gone), answers.get("k", compute, client=here)]
        assert await asyncio.gather(*both) == ["done", "done"]
        await answers.get("j", compute, client=Client(gone=True))
        return seen

    assert asyncio.run(main()) == [True, False]


def test_an_api_error_from_a_worker_keeps_its_exit_status_and_fields():
    e = pickle.loads(pickle.dumps(ApiError("no map meets it", exit=1, rules=["C6"], cells=["F2"])))
    assert (str(e), e.exit, e.status, e.to_json()) == (
        "no map meets it",
        1,
        409,
        {"error": "no map meets it", "rules": ["C6"], "cells": ["F2"]},
    )
    assert pickle.loads(pickle.dumps(ApiError("gone", status=499))).status == 499


# -- the app ---------------------------------------------------------------------------------------


def test_two_identical_hints_at_once_are_computed_once_and_a_third_body_apart(monkeypatch):
    calls, started, release = [], threading.Event(), threading.Event()

    def hint(body, rules):  # the service functions take the served rules too (mapgen serve --rules)
        calls.append(body)
        started.set()
        release.wait(30)
        return 0, {"forced": False, "message": f"for {body['map']}"}

    monkeypatch.setitem(web_app.QUICK, "hint", hint)
    app = create_app(processes=False)  # threads: the patched work runs in this process
    with live_server(app=app) as url:
        results: dict[int, tuple] = {}

        def ask(k, text):
            results[k] = _post(url, "/api/hint", {"map": text})

        first = threading.Thread(target=ask, args=(0, "one"))
        first.start()
        assert started.wait(30)
        others = [threading.Thread(target=ask, args=(1, "one")), threading.Thread(target=ask, args=(2, "two"))]
        for t in others:
            t.start()
        while app.state.answers.stats()["computed"] + app.state.answers.stats()["shared"] < 3:
            threading.Event().wait(0.01)  # both asked: the first two share one computation
        release.set()
        for t in (first, *others):
            t.join(60)
        again = _post(url, "/api/hint", {"map": "two"})
    assert results[0] == results[1] == (200, {"forced": False, "message": "for one"})
    assert results[2] == again == (200, {"forced": False, "message": "for two"})
    assert sorted(b["map"] for b in calls) == ["one", "two"]
    assert app.state.answers.stats() == {"hits": 1, "shared": 1, "computed": 2, "kept": 2}


def test_a_compiling_table_answer_is_not_kept():
    assert web_app._keep((0, {"count": 3, "exact": False, "compiling": {"seconds": 1.0}})) is False
    assert web_app._keep((0, {"count": 3, "exact": True}))
    assert web_app._keep((b"png", "image/png", "fauna-1.png"))


@pytest.mark.slow
def test_validate_is_answered_while_every_solver_worker_is_busy():
    """Long counts fill the slow and hint workers; validations and parses are answered meanwhile, by the
    server process, whose solver workers run at a lower priority."""
    empty = dumps_map(maps.load("fauna-1").hide(range(49)))
    complete = dumps_map(maps.load("fauna-2"))
    app = create_app(slow_workers=2, hint_workers=2, warm=True)
    with live_server(app=app) as url:
        for kind in ("slow", "hints"):  # every worker started (its priority set) before the long work
            assert all(f.result(120) for f in app.state.pools[kind].warm())
        pids = {kind: app.state.pools[kind].pids() for kind in ("slow", "hints")}
        long = [
            ("/api/solve", {"map": empty, "probabilities": True, "time_limit": 30, "limit": 1_000_000 - k})
            for k in range(2)
        ]
        # hints of two maps that the sticky hint pool sends to its two workers (a map's questions go to one)
        blanks = [dumps_map(maps.load(n).hide(range(49))) for n in ("fauna-1", "fauna-2")]
        assert len({web_app.map_key({"map": b}) % 2 for b in blanks}) == 2
        long += [("/api/hint", {"map": b, "time_limit": 15, "exclude": ["A1"]}) for b in blanks]
        busy = [threading.Thread(target=_post, args=(url, *item), daemon=True) for item in long]
        for t in busy:
            t.start()
        used = {p: cpu_seconds(p) for ps in pids.values() for p in ps}
        deadline = time.monotonic() + 90
        while any(cpu_seconds(p) < t + 0.2 for p, t in used.items()):  # every worker at its long work
            assert time.monotonic() < deadline, "a solver worker never started its long work"
            threading.Event().wait(0.05)
        checks = [_post(url, "/api/validate", {"map": complete}) for _ in range(5)]
        checks.append(_post(url, "/api/parse", {"name": "fauna-3"}))
        still = sum(t.is_alive() for t in busy)
        priorities = {kind: {os.getpriority(os.PRIO_PROCESS, p) for p in ps} for kind, ps in pids.items()}
    for t in busy:
        t.join(60)
    assert [status for status, _ in checks] == [200] * 6 and checks[0][1][0]["valid"] is True
    assert still >= 1  # answered while solver work was still running
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert priorities == {kind: {min(19, mine + web_app.NICE[kind])} for kind in ("slow", "hints")}


@pytest.mark.slow
def test_a_worker_that_dies_fails_its_request_in_one_line_and_the_next_is_answered():
    import signal

    empty = dumps_map(maps.load("fauna-1").hide(range(49)))
    app = create_app(hint_workers=1, warm=True)
    with live_server(app=app) as url:
        pool = app.state.pools["hints"]
        assert all(f.result(120) for f in pool.warm())
        (pid,) = pool.pids()
        got: list = []
        asking = threading.Thread(target=lambda: got.append(_post(url, "/api/hint", {"map": empty, "time_limit": 15})))
        asking.start()
        start = cpu_seconds(pid)
        while cpu_seconds(pid) < start + 0.2:  # at its work
            threading.Event().wait(0.05)
        os.kill(pid, signal.SIGKILL)
        asking.join(60)
        status, body = got[0]
        assert (status, body) == (500, {"error": "a worker process ended before its answer; please try again"})
        again = _post(url, "/api/hint", {"map": dumps_map(maps.load("fauna-2").hide(range(10, 49))), "time_limit": 15})
        assert again[0] == 200 and "forced" in again[1]
        assert pool.pids() and pool.pids() != [pid]


def test_a_sticky_pool_sends_the_questions_about_one_map_to_one_worker():
    """The quick and hint pools route by map: the worker that already holds a map's session answers its
    later questions (a fresh worker would encode the briefing again first)."""
    from mapgen.web.pools import StickyPool

    pool = StickyPool(2, name="mapgen-test")
    try:
        pids = {k: pool.submit_keyed(k, os.getpid).result(120) for k in (0, 1, 2, 3)}
        assert pids[0] == pids[2] != pids[1] == pids[3]
        assert sorted(pool.pids()) == sorted({pids[0], pids[1]})
        assert pool.submit(os.getpid).result(120) in (pids[0], pids[1])  # no key: the least busy worker
    finally:
        pool.shutdown()
    assert pool.pids() == []


def test_every_state_of_a_map_has_the_maps_key():
    m, other = maps.load("fauna-1"), maps.load("fauna-2")
    keys = {web_app.map_key({"map": dumps_map(m.hide(range(k)))}) for k in (0, 10, 49)}
    assert len(keys) == 1 and web_app.map_key({"map": dumps_map(other)}) not in keys
    assert web_app.map_key({"name": "fauna-1"}) == web_app.map_key({"name": "fauna-1"})


def test_a_pool_shut_down_has_released_its_os_semaphores(monkeypatch):
    """`mapgen serve` stopped with Ctrl+C now and then printed Python's "resource_tracker: There appear to be 5
    leaked semaphore objects to clean up at shutdown" (and the line of code that warns) under its one line: the
    command ends with ``os._exit(130)`` (no atexit handlers), and a pool's queues, which hold OS semaphores, were
    let go only when its executor's manager thread, still running when ``shutdown`` returned, ended. A pool that
    has shut down has released them (unlinked, and the resource tracker told)."""
    import multiprocessing.resource_tracker as tracker

    from mapgen.web.pools import ProcessPool

    made: list[str] = []
    released: list[str] = []
    register, unregister = tracker.register, tracker.unregister

    def registered(name, rtype):
        if rtype == "semaphore":
            made.append(name)
        register(name, rtype)

    def unregistered(name, rtype):
        if rtype == "semaphore":
            released.append(name)
        unregister(name, rtype)

    monkeypatch.setattr(tracker, "register", registered)
    monkeypatch.setattr(tracker, "unregister", unregistered)
    pool = ProcessPool(1, name="mapgen-test")
    assert pool.submit(os.getpid).result(120) != os.getpid()
    pool.shutdown()
    assert made and sorted(set(made) - set(released)) == []


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="named semaphores are files in /dev/shm on Linux")
def test_a_worker_stopped_with_its_pool_releases_the_semaphores_of_its_own_runs():
    """A table answer from the pool of draws starts, in the worker, a process of its own for the sampler's runs, whose
    queues hold OS semaphores. The server stopped its workers with SIGTERM, which left those unlinked (Ctrl+C on
    `mapgen serve` after the helper's odds on Flora: "There appear to be 5 leaked semaphore objects"): SIGTERM's
    default skips multiprocessing's exit handler, which unlinks them. A worker its pool stops unlinks them first."""
    from mapgen.web.pools import ProcessPool
    from tests.web_support import start_the_draws_runs

    pool = ProcessPool(1, name="mapgen-test")
    try:
        names = pool.submit(start_the_draws_runs).result(120)
    finally:
        pool.shutdown()
    assert len(names) == 5
    assert [n for n in names if os.path.exists(f"/dev/shm/sem.{n.lstrip('/')}")] == []
