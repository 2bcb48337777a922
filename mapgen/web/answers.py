"""Answers shared by identical requests: one computation for requests in flight at once, and the last
answers kept (least recently used out first).

Answers are deterministic (the solver's budgets count work, not time), so the same endpoint with the same
body gets the same answer whenever it is asked: a table helper asking again after an undo, or a second
phone at the same table, is answered at once. What is kept is decided by the caller (``keep``): never a
time-out, an answer that says a compile is still under way, or a made-up map.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable


def request_key(endpoint: str, body: dict) -> str:
    """The endpoint and the body in one canonical text (keys sorted, no spaces): equal for equal requests."""
    return endpoint + " " + json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Answers:
    """Computations by request key: in flight (shared) and finished (at most ``size`` kept; 0 keeps none).

    ``hits`` counts answers given from the kept ones, ``shared`` requests that joined one in flight,
    ``computed`` computations started.
    """

    def __init__(self, size: int = 256):
        self.size = size
        self._kept: OrderedDict[str, object] = OrderedDict()
        self._running: dict[str, asyncio.Future] = {}
        self._waiting: dict[str, list] = {}
        self.hits = self.shared = self.computed = 0

    async def get(
        self,
        key: str,
        compute: Callable[[Callable[[], Awaitable[bool]]], Awaitable[object]],
        keep: Callable[[object], bool] = lambda answer: True,
        client=None,
    ) -> object:
        """The answer for ``key``: a kept one, the one in flight, or ``compute(wanted)``'s. ``client`` is the
        asking request (anything with an async ``is_disconnected()``); ``await wanted()`` says whether a
        client still waits for the answer (when every one has gone, the computation need not start)."""
        if key in self._kept:
            self.hits += 1
            self._kept.move_to_end(key)
            return self._kept[key]
        task = self._running.get(key)
        if task is None:
            self.computed += 1
            task = asyncio.ensure_future(compute(lambda: self._wanted(key)))
            self._running[key] = task
            task.add_done_callback(lambda done: self._finish(key, done, keep))
        else:
            self.shared += 1
        claim = [client]  # a fresh list per request: removed by identity, not by equality
        self._waiting.setdefault(key, []).append(claim)
        try:
            # shielded: one waiter cancelled (the server stopping under it) does not cancel the others' answer
            return await asyncio.shield(task)
        finally:
            claims = self._waiting[key]
            claims.remove(claim)
            if not claims:
                del self._waiting[key]

    async def _wanted(self, key: str) -> bool:
        for (client,) in list(self._waiting.get(key, [])):
            if client is None or not await client.is_disconnected():
                return True
        return False

    def _finish(self, key: str, task: asyncio.Future, keep) -> None:
        self._running.pop(key, None)
        if task.cancelled() or task.exception() is not None or self.size <= 0 or not keep(task.result()):
            return
        self._kept[key] = task.result()
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every kept answer and the counts (answers in flight still reach their requests)."""
        self._kept.clear()
        self.hits = self.shared = self.computed = 0

    def stats(self) -> dict:
        return {"hits": self.hits, "shared": self.shared, "computed": self.computed, "kept": len(self._kept)}
