"""The app served by uvicorn in a background thread on loopback: for browser tests and benchmarks."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

from mapgen.web import LOOPBACK_NAMES, create_app, is_loopback


@contextmanager
def live_server(host: str = "127.0.0.1", app=None, **app_options):
    """Serve ``app`` (by default ``create_app(**app_options)``) on ``host`` at a free port until the block
    ends; yields the base URL. Pass an app to reach its state (``app.state.answers``) while it serves."""
    import uvicorn  # deferred: uvicorn, only when serving

    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    if app is None and is_loopback(host):
        app_options.setdefault("allowed_hosts", LOOPBACK_NAMES)
    config = uvicorn.Config(
        app if app is not None else create_app(**app_options),
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="mapgen-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
