"""``mapgen serve``: a table helper and a map studio in the browser, over a JSON API mirroring the CLI."""

from __future__ import annotations

import ipaddress
import socket

from mapgen.errors import InputError

__all__ = ["LOOPBACK_NAMES", "ServeError", "create_app", "is_loopback", "serve", "url_of"]

#: Host headers a loopback server answers (with or without a port)
LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1", "[::1]"]


class ServeError(InputError, OSError):
    """The address cannot be listened on (in use, not this machine's, not allowed)."""


def create_app(**kw):
    """The ASGI app (Starlette); see ``mapgen.web.app``."""
    from mapgen.web.app import (  # deferred: starlette, only when the app is made (the CLI imports mapgen.web)
        create_app as make,
    )

    return make(**kw)


def url_of(host: str, port: int | str) -> str:
    """The app's address as a browser takes it (an IPv6 host in brackets)."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def is_loopback(host: str) -> bool:
    """Whether ``host`` only listens on this machine (127.0.0.1, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str = "127.0.0.1", port: int = 8000, *, announce=print, prepare=None, rules=None) -> None:
    """Run the app with uvicorn until interrupted; ``announce`` gets the URL (and a warning off loopback, and each
    chapter served under house rules); ``prepare`` runs once the address is known to be usable, before the URL is
    announced. ``rules``: the chapters served under house rules (``mapgen.web.rules.ServedRules``; None: shipped)."""
    import uvicorn  # deferred: uvicorn, only when serving

    try:  # one clear line now rather than uvicorn's log when the port is taken
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(info[0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(info[4])
    except OSError as e:
        raise ServeError(f"{host}:{port}: cannot listen there ({e.strerror or e})") from None
    except UnicodeError:  # the IDNA codec refuses the name (an empty label: "not..a..host")
        raise ServeError(f"{host}:{port}: cannot listen there (not a valid host name)") from None
    if not is_loopback(host):
        announce(
            f"warning: listening on {host}: anyone who can reach this machine can use the app "
            "(it has no login); use the default 127.0.0.1 unless you mean it"
        )
    if prepare is not None:
        prepare()
    for file, chapter in rules.house if rules is not None else ():
        announce(f"house rules: {file} for every {chapter.name} map")
    announce(f"mapgen serve: {url_of(host, port)}  (table helper: /helper, studio: /studio; Ctrl+C stops)")
    hosts = LOOPBACK_NAMES if is_loopback(host) else None
    # Ctrl-C: uvicorn shuts down, raises the signal again for the handler in place and swallows the
    # KeyboardInterrupt; the command then reports it (``mapgen serve`` exits 130 like every other)
    served = {} if rules is None else {"rules": rules}
    uvicorn.run(create_app(allowed_hosts=hosts, **served), host=host, port=port, log_level="warning")
