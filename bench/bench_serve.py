"""mapgen serve benchmark, over HTTP on 127.0.0.1 only (issue 15 and 20 goals in brackets):
a helper tap on 20-given Fauna states: forced cells and count [<= 300 ms median]; validation per paint
[<= 50 ms median]; hints timed while long counts run; a bounded load test, 500 requests of every kind
(validate, parse, hint, table, solve, render) from 50 clients at once [0 lost, 0 errors; validate p99
<= 50 ms, hint and table p99 <= 500 ms; p50/p90/p99 per endpoint; each answer identical to the same
request's answer alone]; repair of one-cell mutants of the shipped maps
[share at Hamming distance 1; <= 200 ms median];
the table helper in phone-sized headless Chromium (issue 23): first load [<= 1 s] and tap to odds on
screen [<= 300 ms with a cached circuit].
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import urllib.error
import urllib.request

import maps
from constraints.catalogue import check_map, get_chapter
from mapgen.mapfile import dumps_map
from mapgen.model import Map
from mapgen.web import LOOPBACK_NAMES, create_app
from mapgen.web.live import live_server


def post(url: str, body: dict, timeout: float = 120.0) -> tuple[int, dict, float]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            payload = json.loads(r.read())
            status = r.status
    except urllib.error.HTTPError as e:
        payload, status = json.loads(e.read() or b"{}"), e.code
    return status, payload, time.perf_counter() - started


def pct(times: list[float], q: float) -> float:
    s = sorted(times)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def row(label: str, times: list[float], goal: str, extra: str = "") -> None:
    print(
        f"{label:<44} median {statistics.median(times) * 1000:>7.1f} ms   p95 {pct(times, 0.95) * 1000:>7.1f} ms   "
        f"n={len(times):<4} goal {goal}{extra}",
        flush=True,
    )


def states(chapter: str, givens: int, per_map: int, seed: int) -> list[tuple[Map, Map, int]]:
    """(map, state, next cell): a state of ``givens`` revealed cells and the cell a player taps next."""
    rng = random.Random(seed)
    out = []
    for name in maps.names(chapter):
        m = maps.load(name)
        for _ in range(per_map):
            order = rng.sample(range(m.board.size), givens + 1)
            shown = set(order[:givens])
            out.append((m, m.hide(i for i in range(m.board.size) if i not in shown), order[givens]))
    return out


def hint_ok(m: Map, payload: dict) -> bool:
    """A hint is right when its cell holds its terrain in the real map, or it rightly says nothing is forced
    (beyond the briefing's Peak) and ranks Paths by their odds instead."""
    if payload.get("forced"):
        e = payload["explanation"]
        return m.at(e["cell"]).code == e["terrain"] and e["cell"] != m.board.name(m.briefing.peak)
    return payload.get("message", "").startswith("no cell is forced")


def tap_latency(url: str, per_map: int) -> None:
    """The helper after a tap: the state before was just answered (a warm server), then one more cell shows."""
    times, exact = [], 0
    for m, before, cell in states("fauna", 19, per_map, 1):
        post(f"{url}/api/table", {"map": dumps_map(before), "count": "quick", "time_limit": 3})
        after = before.with_cells(m.cells[i] if i == cell else t for i, t in enumerate(before.cells))
        status, v, dt = post(f"{url}/api/table", {"map": dumps_map(after), "count": "quick", "time_limit": 3})
        assert status == 200 and all(m.at(c).code == t for c, t in v["forced"].items()), v
        times.append(dt)
        exact += bool(v["exact"])
    row("tap -> forced + count (20-given Fauna)", times, "<= 300 ms", f"   exact counts {exact}/{len(times)}")


def paint_latency(url: str, paints: int) -> None:
    rng = random.Random(2)
    times = []
    names = maps.names()
    for k in range(paints):
        m = maps.load(names[k % len(names)])
        ch = get_chapter(m.chapter)
        i = rng.randrange(m.board.size)
        painted = m.with_cells(rng.choice(ch.terrains) if j == i else t for j, t in enumerate(m.cells))
        status, report, dt = post(f"{url}/api/validate", {"map": dumps_map(painted)})
        assert status == 200 and report[0]["valid"] == (not check_map(painted))
        times.append(dt)
    row("validation per paint", times, "<= 50 ms")


def _answer(payload) -> object:
    """What an answer says, without how long it took (``seconds``): the part that must not depend on load."""
    if isinstance(payload, dict):
        return {k: _answer(v) for k, v in payload.items() if k != "seconds"}
    if isinstance(payload, list):
        return [_answer(v) for v in payload]
    return payload


def _decoded(raw: bytes, kind: str) -> object:
    """An answer's body as compared between runs: its JSON (without ``seconds``), or the SHA-256 of a picture."""
    import hashlib

    return _answer(json.loads(raw)) if "json" in kind else hashlib.sha256(raw).hexdigest()


def send(url: str, path: str, body: dict, timeout: float = 120.0) -> tuple[int, object, float]:
    """POST ``body``; (status, answer, seconds), the answer ``_decoded``; status 0 when no answer came (a lost
    request: refused, reset, timed out)."""
    data = json.dumps(body).encode()
    req = urllib.request.Request(f"{url}{path}", data=data, headers={"Content-Type": "application/json"}, method="POST")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw, status, kind = r.read(), r.status, r.headers.get("content-type", "")
    except urllib.error.HTTPError as e:
        raw, status, kind = e.read(), e.code, e.headers.get("content-type", "")
    except (OSError, urllib.error.URLError):
        return 0, None, time.perf_counter() - started
    return status, _decoded(raw, kind), time.perf_counter() - started


def requests_mix(total: int) -> list[tuple[str, str, dict]]:
    """(endpoint, path, body): ``total`` requests in a fixed shuffled order, as a studio and table helpers send
    them: mostly validations per paint, then parses, hints, quick table answers, solves and renders."""
    rng = random.Random(9)
    names = maps.names()
    painted = []
    for k in range(20):
        m = maps.load(names[k % len(names)])
        ch = get_chapter(m.chapter)
        i = rng.randrange(m.board.size)
        painted.append(dumps_map(m.with_cells(rng.choice(ch.terrains) if j == i else t for j, t in enumerate(m.cells))))
    taps = [dumps_map(st) for _, st, _ in states("fauna", 20, 1, 4)][:12]
    counts = [dumps_map(st) for _, st, _ in states("fauna", 30, 1, 3)][:6] + [
        dumps_map(st) for _, st, _ in states("training", 12, 1, 3)
    ][:4]
    kinds = {
        "validate": (0.35, [{"map": t} for t in painted]),
        "parse": (0.15, [{"map": t} for t in painted[:10]]),
        "hint": (0.15, [{"map": t, "time_limit": 15} for t in taps]),
        "table": (0.15, [{"map": t, "count": "quick", "time_limit": 3} for t in taps]),
        "solve": (0.12, [{"map": t, "time_limit": 15} for t in counts]),
        "render": (0.08, [{"name": n} for n in names[:4]]),
    }
    out = []
    for kind, (share, bodies) in kinds.items():
        n = max(1, round(total * share))
        out += [(kind, f"/api/{kind}", bodies[k % len(bodies)]) for k in range(n)]
    rng.shuffle(out)
    return out


def _send_all(url: str, mix: list[tuple[str, str, dict]], clients: int) -> list[tuple[int, object, float]]:
    """``mix`` sent by ``clients`` clients at once, each on a connection of its own, opened before the first
    request and kept open, as a browser with the page loaded has one: (status, answer, seconds) each, in order,
    status 0 for a lost request. One event loop with aiohttp's client (its HTTP parser is C), not ``clients``
    threads: the load generator shares this machine's two cores with the server, and whatever it spends on
    its own Python was timed as the server's. Measured on the same server, validate p99 from 50 threads of
    urllib 37-101 ms, from httpx2's async client 34-78 ms, from aiohttp 16-42 ms; the server's own time for
    it (``ServerClock``) p99 10-17 ms throughout."""
    import asyncio

    import aiohttp  # deferred: the test extra's HTTP client, only for the load test

    async def all_of_them() -> list[tuple[int, object, float]]:
        gate = asyncio.Semaphore(clients)  # a request waits here for a free client, outside its time
        async with aiohttp.ClientSession(url, connector=aiohttp.TCPConnector(limit=clients)) as session:

            async def connect() -> None:
                async with session.get("/api/chapters") as r:
                    await r.read()

            await asyncio.gather(*(connect() for _ in range(clients)))

            async def one(path: str, body: dict) -> tuple[int, object, float]:
                async with gate:
                    started = time.perf_counter()
                    try:
                        async with session.post(path, json=body, timeout=aiohttp.ClientTimeout(total=120)) as r:
                            raw, status, kind = await r.read(), r.status, r.headers.get("content-type", "")
                    except (aiohttp.ClientError, TimeoutError):
                        return 0, None, time.perf_counter() - started
                    dt = time.perf_counter() - started
                return status, _decoded(raw, kind), dt

            return list(await asyncio.gather(*(one(path, body) for _, path, body in mix)))

    return asyncio.run(all_of_them())


class ServerClock:
    """An ASGI wrapper that times each HTTP request inside the server: from its headers read to its last byte
    written. Beside the clients' times it says how much of a request's time the server itself took."""

    def __init__(self, app) -> None:
        self.app = app
        self.times: dict[str, list[float]] = {}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()

        async def timed(message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.times.setdefault(scope["path"], []).append(time.perf_counter() - started)

        await self.app(scope, receive, timed)


def endpoint_load(
    url: str, total: int, clients: int, answers=None, apart: bool = True, clock: ServerClock | None = None
) -> dict:
    """Every distinct request alone (one after another), then ``total`` of them from ``clients`` clients at
    once: per endpoint p50/p90/p99, answers lost (no response) and errors (not 200), and whether each answer
    under load is the one the same request got alone. ``answers``: the server's kept answers (``Answers``),
    forgotten between the two phases, so that the load is not answered from what the requests alone left
    there; its counts (kept answers given, requests that joined one in flight, computations) are printed.
    ``apart``: the clients run in a process of their own, as browsers do (live_server's server runs in a
    thread of this process: clients in it would hold its GIL and time their own Python too). ``clock``: the
    server's own times (``ServerClock``), printed beside the clients' p99 per endpoint."""
    mix = requests_mix(total)
    alone: dict[str, tuple[object, float]] = {}
    for kind, path, body in mix:
        key = path + json.dumps(body, sort_keys=True)
        if key not in alone:
            status, answer, dt = send(url, path, body)
            assert status == 200, (path, status, answer)
            alone[key] = (answer, dt)

    differ: dict[str, tuple[object, object]] = {}
    if answers is not None:
        answers.clear()
    if clock is not None:
        clock.times.clear()
    started = time.perf_counter()
    if apart:
        import multiprocessing  # deferred: only when the clients run apart
        from concurrent.futures import ProcessPoolExecutor  # deferred: only when the clients run apart

        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as process:
            process.submit(send, url, "/api/chapters", {}).result()  # started, its modules imported, before the clock
            started = time.perf_counter()
            sent = process.submit(_send_all, url, mix, clients).result()
    else:
        sent = _send_all(url, mix, clients)
    wall = time.perf_counter() - started
    results = []
    for (kind, path, body), (status, answer, dt) in zip(mix, sent, strict=True):
        before = alone[path + json.dumps(body, sort_keys=True)][0]
        if status == 200 and answer != before:
            differ.setdefault(kind, (before, answer))
        results.append((kind, status, answer == before, dt))
    summary = {}
    where = "a process of their own" if apart else "the server's process"
    print(f"load: {len(mix)} requests from {clients} clients at once ({where}) in {wall:.1f} s (loopback)", flush=True)
    if answers is not None:
        stats = answers.stats()
        print(
            f"  answers (kept ones forgotten before the load): {stats['computed']} computed, "
            f"{stats['shared']} shared with one in flight, {stats['hits']} given again",
            flush=True,
        )
    goals = {"validate": 0.050, "hint": 0.500, "table": 0.500}
    for kind in dict.fromkeys(k for k, _, _ in mix):
        mine = [r for r in results if r[0] == kind]
        times = [dt for _, status, _, dt in mine if status == 200]
        lost = sum(status == 0 for _, status, _, _ in mine)
        errors = sum(status not in (0, 200) for _, status, _, _ in mine)
        same = sum(ok for _, status, ok, _ in mine if status == 200)
        solo = [dt for key, (_, dt) in alone.items() if key.startswith(f"/api/{kind}{{")]
        p = {q: pct(times, q) if times else float("nan") for q in (0.5, 0.9, 0.99)}
        goal = goals.get(kind)
        verdict = (
            "" if goal is None else f"   goal p99 <= {goal * 1000:.0f} ms: {'met' if p[0.99] <= goal else 'MISSED'}"
        )
        inside = (clock.times.get(f"/api/{kind}") or []) if clock is not None else []
        server = f"   in the server p99 {pct(inside, 0.99) * 1000:>6.1f}" if inside else ""
        print(
            f"  {kind:<9} n={len(mine):<4} p50 {p[0.5] * 1000:>7.1f}  p90 {p[0.9] * 1000:>7.1f}  p99 {p[0.99] * 1000:>7.1f} ms"
            f"{server}   alone p50 {statistics.median(solo) * 1000:>6.1f} ms   lost {lost}  errors {errors}"
            f"   identical to alone {same}/{len(mine) - lost - errors}{verdict}",
            flush=True,
        )
        summary[kind] = {
            "n": len(mine),
            "p50": p[0.5],
            "p90": p[0.9],
            "p99": p[0.99],
            "lost": lost,
            "errors": errors,
            "identical": same,
            "server_p99": pct(inside, 0.99) if inside else None,
        }
    for kind, (before, answer) in differ.items():  # the first answer per endpoint that differs, to see how
        print(f"  {kind} differs: alone {json.dumps(before)[:600]}\n    under load {json.dumps(answer)[:600]}")
    return summary


def hint_beside_long_counts(url: str, hints: int) -> None:
    """Hints while two long counts fill the slow pool: they must not wait for the counts."""
    import threading

    def hints_on(seed: int) -> list[float]:
        times = []
        for m, st, _ in states("fauna", 20, 1, seed)[:hints]:
            status, payload, dt = post(f"{url}/api/hint", {"map": dumps_map(st)})
            assert status == 200 and hint_ok(m, payload), payload
            times.append(dt)
        return times

    row("hint, nothing else running", hints_on(8), "(for comparison)")
    empty = dumps_map(maps.load("fauna-1").hide(range(49)))
    counts = [
        threading.Thread(
            target=post, args=(f"{url}/api/solve", {"map": empty, "probabilities": True, "time_limit": 30}), daemon=True
        )
        for _ in range(2)
    ]
    for t in counts:
        t.start()
    time.sleep(1.0)
    times = hints_on(7)
    busy = sum(t.is_alive() for t in counts)
    row("hint while 2 long counts run", times, "not held up", f"   counts still running after: {busy}/2")
    for t in counts:
        t.join()


def repair_mutants(per_map: int) -> None:
    from mapgen.repair import repair_map

    rng = random.Random(6)
    times, at_one, nearer, n = [], 0, 0, 0
    for name in maps.names():
        m = maps.load(name)
        ch = get_chapter(m.chapter)
        done = 0
        while done < per_map:
            i = rng.randrange(m.board.size)
            broken = m.with_cells(
                rng.choice([t for t in ch.terrains if t is not m.cells[i]]) if j == i else t
                for j, t in enumerate(m.cells)
            )
            if not check_map(broken):
                continue
            done += 1
            t0 = time.perf_counter()
            r = repair_map(broken)
            times.append(time.perf_counter() - t0)
            n += 1
            at_one += r.distance == 1 and check_map(r.map) == []
            nearer += r.distance == 0 and check_map(r.map) == []  # only a Hill number set right
    if not n:
        return
    row(
        "repair of one-cell mutants",
        times,
        "<= 200 ms",
        f"   at distance 1: {at_one}/{n} = {at_one / n:.0%}; at 0 (a Hill number set right): {nearer}",
    )


def browser_latency(url: str, runs: int = 5) -> None:
    """The table helper in a phone-sized (390x844) headless Chromium: first load (navigation start until the
    first count is on screen) [<= 1 s] and tap to odds (the palette choice until the count and the
    chance of Fort are final on screen) [<= 300 ms with a cached circuit]. Needs Debian's chromium and
    chromium-driver (``.ci/install-chromium``); says so and returns when they are missing."""
    try:
        from tests.web_support import chrome, chromium_paths
    except ImportError:
        print("browser: run from the repository root (tests.web_support)", flush=True)
        return
    if chromium_paths() is None:
        print("browser: chromium and chromium-driver are not installed (.ci/install-chromium)", flush=True)
        return
    from selenium.webdriver.common.by import By

    helper = f"{url}/helper#ch=fauna&from=fauna-1&peak=F2&fp=Ti-..-Vi/Sk-Ft-../..-..-Hi&heat=Ft"
    column_7 = ["A7Wa", "B7Sk", "C7Ti", "D7Wo", "E7Wa", "F7Fo", "G7Hi0", "B6Ft"]
    loads, first_loads, taps, first_taps, exact = [], [], [], [], 0
    # in the page: resolves [ms to the first answer drawn, ms to the final answer], from t0 (0: navigation start)
    watch = (
        "const [t0, done] = [arguments[0] === null ? 0 : performance.now(), arguments[arguments.length - 1]];"
        "if (arguments[0]) arguments[0].click();"
        "let first = null;"
        "const tick = () => {"
        "  const t = document.getElementById('count').textContent;"
        "  const drawn = t && t !== '…' && document.querySelector('#board .cell');"
        "  if (first === null && drawn && !/^working/.test(t)) first = performance.now() - t0;"
        "  if (drawn && !/working|counting|compiling/.test(t) && !document.body.classList.contains('busy'))"
        "    done([first === null ? performance.now() - t0 : first, performance.now() - t0]);"
        "  else requestAnimationFrame(tick); };"
        "requestAnimationFrame(tick);"
    )
    d = chrome(390, 844)
    try:
        d.set_script_timeout(120)
        for _ in range(runs):
            d.get("about:blank")
            d.get(f"{helper}&r={','.join(column_7[:-1])}")
            first, done = d.execute_async_script(watch, None)
            first_loads.append(first / 1000)
            loads.append(done / 1000)
            # one tap: B6 as a Fort, timed in the page from the palette's click until the answer is drawn
            d.find_element(By.CSS_SELECTOR, '.cell[data-cell="B6"]').click()
            button = d.find_element(By.CSS_SELECTOR, '#terrains button[data-code="Ft"]')
            first, done = d.execute_async_script(watch, button)
            first_taps.append(first / 1000)
            taps.append(done / 1000)
            exact += "(exact)" in d.find_element(By.ID, "count").text
    finally:
        d.quit()
    row("browser 390x844: first load to first answer", first_loads, "(forced cells, a bound)")
    row("browser 390x844: first load to final count", loads, "<= 1 s")
    row("browser 390x844: tap to first answer", first_taps, "(forced cells, a bound)")
    row("browser 390x844: tap to final odds", taps, "<= 300 ms", f"   exact answers {exact}/{len(taps)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-map", type=int, default=4, help="20-given Fauna states per shipped map")
    ap.add_argument("--paints", type=int, default=100)
    ap.add_argument("--requests", type=int, default=500, help="requests in the load test (0: none)")
    ap.add_argument("--clients", type=int, default=50, help="requests in flight at once in the load test")
    ap.add_argument(
        "--clients-in-server",
        action="store_true",
        help="the load test's clients in the server's process (sharing its GIL), not in one of their own",
    )
    ap.add_argument("--mutants", type=int, default=4, help="one-cell mutants per shipped map")
    ap.add_argument("--browser-runs", type=int, default=5, help="loads and taps in phone-sized headless Chromium")
    args = ap.parse_args(argv)
    print(__doc__.splitlines()[0])
    app = create_app(allowed_hosts=LOOPBACK_NAMES, warm=True)
    clock = ServerClock(app)
    with live_server("127.0.0.1", app=clock) as url:
        if args.browser_runs:
            browser_latency(url, args.browser_runs)
        tap_latency(url, args.per_map)
        paint_latency(url, args.paints)
        hint_beside_long_counts(url, 5)
        if args.requests:
            endpoint_load(
                url, args.requests, args.clients, app.state.answers, apart=not args.clients_in_server, clock=clock
            )
    repair_mutants(args.mutants)


if __name__ == "__main__":
    main()
