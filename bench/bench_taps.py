"""Tap-to-answer latency of the table helper with a warm pool of sampler draws (issue 40, item 4).

A live server (worker processes, as ``mapgen serve``) plays flora-2 with the heat map of Flora creatures: the
empty board is asked first and its sampler run awaited (the pool warm), then ``--taps`` reveals one at a time
(the map's own terrains, column 7 first, then 6, ...). Each tap is one quick table request (what the page asks
first); its wall-clock time is the tap-to-answer latency. After each tap the pool's refill for the new state is
awaited (a player's pace: seconds between reveals), so every tap meets a warm pool. Prints how long the pool took
to warm after the briefing was chosen (the empty board's first answer from its own run), p50 and p90, how many
taps were answered with an estimate (``heat_method: "sampler"``) or ``sampling``, and the machine's load.

Example: ``python -m bench.bench_taps --taps 20``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import urllib.error
import urllib.request

import maps
from mapgen.mapfile import dumps_map
from mapgen.web.live import live_server


def _ask(url: str, body: dict) -> tuple[float, dict]:
    """The wall-clock time of one table request and its answer (a time-out: ``{"error", "status": 504}``)."""
    req = urllib.request.Request(
        url + "/api/table", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            out = json.loads(r.read())
    except urllib.error.HTTPError as e:
        out = {**json.loads(e.read() or b"{}"), "status": e.code}
    return time.perf_counter() - started, out


def _settle(url: str, body: dict, seconds: float = 600.0, poll: float = 2.0) -> dict:
    """Ask again until the answer is the state's own run (or exact): the pool is warm for the next tap."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        _, v = _ask(url, body)
        if v.get("heat_method") == "exact" or (v.get("sampler") or {}).get("own"):
            return v
        time.sleep(poll)
    return v


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--taps", type=int, default=20)
    p.add_argument("--map", default="flora-2")
    p.add_argument("--heat", default="Fc")
    args = p.parse_args(argv)
    m = maps.load(args.map)
    b = m.board
    order = [i for c in reversed(b.col_numbers) for i in b.col_cells(c) if i not in (m.briefing.peak, m.briefing.start)]
    shown: list[int] = []

    def body() -> dict:
        state = m.hide(i for i in range(b.size) if i not in shown)
        return {"map": dumps_map(state), "count": "quick", "heat": args.heat, "time_limit": 3}

    times, kinds = [], []
    with live_server(warm=True) as url:
        started = time.monotonic()
        _settle(url, body(), poll=0.25)
        print(f"pool warm {time.monotonic() - started:.1f} s after the briefing was chosen (goal: 30 s)", flush=True)
        for i in order[: args.taps]:
            shown.append(i)
            took, v = _ask(url, body())
            times.append(took)
            kind = "time-out" if "status" in v else v.get("heat_method") if "sampling" not in v else "sampling"
            if kind == "sampler" and not v["sampler"]["own"]:
                kind = f"pool ({v['sampler']['agreeing']} of {v['sampler']['samples']} agree)"
            kinds.append(kind)
            print(f"tap {len(shown):2d} {b.name(i)} {took * 1000:6.0f} ms  {kind}", flush=True)
            _settle(url, body())
    q = statistics.quantiles(times, n=10)
    print(f"{len(times)} taps: p50 {statistics.median(times) * 1000:.0f} ms, p90 {q[8] * 1000:.0f} ms")
    print(
        f"answered from the pool: {sum(k.startswith('pool') for k in kinds)}, sampling: {kinds.count('sampling')}, "
        f"exact: {kinds.count('exact')}, time-outs: {kinds.count('time-out')}"
    )
    print("load average (1, 5, 15 min):", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
