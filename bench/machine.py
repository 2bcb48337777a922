"""The machine a benchmark ran on, in one line, so that speed figures from two machines can be compared.

Speed goals (games or samples per CPU-second) were set on one machine and are read on others, and every figure
that Python's interpreter makes moves with the machine. Each speed benchmark prints first how long a pure-Python
loop of 10^7 additions in a function takes (``describe``; 0.33 CPU s on this project's 2-core machine at load 5,
2026-12-07), so a figure is read against its machine: a bot at 150 games per CPU-second where the loop takes
0.66 s would be about twice as fast where it takes 0.33 s. The loop itself is timed in CPU seconds, like the figures, so load changes it
less than wall time (a shared core still slows both).
"""

from __future__ import annotations

import os
import time

#: additions in the reference loop
LOOP = 10**7


def loop_seconds(n: int = LOOP) -> float:
    """CPU seconds of a pure-Python loop of ``n`` additions (the best of two runs: the first may pay for a cold
    cache or a frequency change)."""
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        total = 0
        for i in range(n):
            total += i
        best = min(best, time.process_time() - start)
    return best


def describe() -> str:
    """One line: cores, the load average and the reference loop's CPU seconds."""
    try:
        load = f"{os.getloadavg()[0]:.1f}"
    except OSError:  # no load average on this platform
        load = "unknown"
    return (
        f"machine: {os.cpu_count()} cores, load {load}, a pure-Python loop of 10^7 additions "
        f"{loop_seconds():.2f} CPU s (speed figures scale with it)"
    )
