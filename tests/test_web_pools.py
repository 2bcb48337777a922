"""The web app's pools (issue 20): solver work in worker processes at a lower priority, so that validations
are answered while every solver worker is busy; errors from a worker whole (status, exit code, extra fields)."""

from __future__ import annotations

import json
import os
import pickle
import threading
import urllib.error
import urllib.request

import pytest

import maps
from mapgen.mapfile import dumps_map
from mapgen.web import app as web_app
from mapgen.web import create_app
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
        long += [("/api/hint", {"map": empty, "time_limit": 15, "exclude": [f"A{k + 1}"]}) for k in range(2)]
        busy = [threading.Thread(target=_post, args=(url, *item), daemon=True) for item in long]
        for t in busy:
            t.start()
        used = {p: cpu_seconds(p) for ps in pids.values() for p in ps}
        while any(cpu_seconds(p) < t + 0.2 for p, t in used.items()):  # every worker at its long work
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
