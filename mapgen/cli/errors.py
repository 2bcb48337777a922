"""The one place where library errors become exit codes and one-line messages, for every command.

Exit codes: 0 success; 1 a rule broken, no completion, an impossible request; 2 unreadable or invalid input
(map, profile, rules, replay files, an output destination that cannot be used); 3 a time limit ran out.
Every error is ONE line on stderr, ``error: FILE: what is wrong``; never a traceback, never click's "Error:".

A library module raises its own typed exception (MapFileError, SolveTimeout, ...), whose base in ``mapgen.errors``
(the library's table) says which exit code it means. A command raises ``BadInput``, ``RuleBroken`` or ``OutOfTime``
for what it checks itself.

Ctrl-C (130, ``error: FILE: interrupted``): ``catching_ctrl_c`` puts mapgen's SIGINT handler in place for a
command's run and remembers that Ctrl-C came, so that an error it caused (an interrupted import) is reported
as the interrupt; a KeyboardInterrupt dropped in a finalizer is delivered again. Solver calls stop at once
(constraints.cpsat.make_solver), worker processes ignore SIGINT and end with their parent (mapgen.workers).
"""

from __future__ import annotations

import _thread
import contextlib
import errno
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

import click

from mapgen import errors
from mapgen.errors import BAD_INPUT, BROKEN, INTERRUPTED, OK, TIMEOUT

__all__ = ["BAD_INPUT", "BROKEN", "INTERRUPTED", "OK", "TIMEOUT", "BadInput", "OutOfTime", "RuleBroken", "about"]


class CommandError(Exception):
    """A problem found by a command itself: ``subject`` (a file, or an option) and what is wrong."""

    code = BROKEN

    def __init__(self, subject: str | None, problem: str):
        self.subject = subject
        self.problem = problem
        super().__init__(f"{subject}: {problem}" if subject else problem)


class BadInput(CommandError):
    """Unreadable or invalid input: exit 2."""

    code = BAD_INPUT


class RuleBroken(CommandError):
    """A rule broken, no completion, a request that cannot be met: exit 1."""

    code = BROKEN


class OutOfTime(CommandError):
    """A time limit ran out: exit 3."""

    code = TIMEOUT


def found_then_out_of_time(
    subject: str, reason: str, time_limit: float, missing, found: str = "printed what was found"
) -> OutOfTime:
    """The time-out of a command that printed (or drew) what it found first: ``error: FILE: REASON (--time-limit
    N); printed what was found, missing: count, probabilities``, exit 3 (``solve``, ``hint``, ``render``)."""
    return printed(
        OutOfTime(subject, f"{reason} (--time-limit {time_limit:g}); {found}, missing: {', '.join(missing)}")
    )


def printed(e: BaseException) -> BaseException:
    """Mark ``e`` as raised after the command printed its report (``--json``'s document): ``json_failure`` then
    prints no second one."""
    with contextlib.suppress(AttributeError):
        e.mapgen_printed = True  # type: ignore[attr-defined]
    return e


#: ``ctx.meta``'s key (shared by the group's context and the command's): the running command was given --json
JSON_ASKED = "mapgen.json"


def json_failure(e: BaseException, mapped: Failure) -> None:
    """With --json, a failure with exit 1 or 3 whose command printed no report prints its error on stdout as one
    JSON document in the web's 409 body's shape, ``{"error", "rules", "cells"}`` (the conflict's rules and cells
    where the error names them, else empty lists; ``error`` is stderr's line without ``error: ``), so a script
    reading stdout has one document to parse. Exit 2 (unreadable input) stays stderr's line alone."""
    if mapped.exit_code not in (BROKEN, TIMEOUT) or getattr(e, "mapgen_printed", False):
        return
    import json  # deferred: only for a failure

    body = {
        "error": mapped.message,
        "rules": [str(r) for r in getattr(e, "rules", None) or ()],
        "cells": [str(c) for c in getattr(e, "cells", None) or ()],
    }
    click.echo(json.dumps(body, indent=2, ensure_ascii=False))


class Interrupted(CommandError):
    """Ctrl-C: ``error: FILE: interrupted``, exit 130 (never reported as a time limit)."""

    code = INTERRUPTED


#: errors writing to stdout (``mapgen generate > /dev/full``)
STDOUT_ERRNOS = (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG)


class Failure(click.ClickException):
    """What the user sees: ``error: MESSAGE`` on stderr, one line, and the exit code."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.exit_code = code

    def show(self, file=None) -> None:
        click.echo(f"error: {self.message}", err=True)


def _stdout_failed(e: BaseException) -> bool:
    """A write to stdout failed (a full disk); file writes go through mapgen.output and name their file."""
    return isinstance(e, OSError) and e.errno in STDOUT_ERRNOS and not e.filename


def exit_code(e: BaseException) -> int | None:
    """The exit code a library or command error means; None for an unexpected one (a bug: let it show)."""
    if isinstance(e, CommandError):
        return e.code
    code = errors.exit_code(e)
    if code is not None:
        return code
    if _stdout_failed(e):
        return BAD_INPUT
    return None


def message(e: BaseException, code: int) -> str:
    """One line: the subject ``about`` attached (if any), the problem, and for a time-out what to do."""
    if _stdout_failed(e):
        text = f"stdout: cannot write ({e.strerror or e})"
    else:
        text = str(e).strip() or type(e).__name__
    subject = getattr(e, "mapgen_subject", None)
    if subject:
        text = f"{subject}: {text}"
    text += getattr(e, "mapgen_note", "")
    if code == TIMEOUT and "--time-limit" not in text:
        limit = getattr(e, "mapgen_time_limit", None)
        said = limit and f"{limit:g} s" in text  # the library's message gives the limit already: not twice
        text += f" ({limit:g} s; raise --time-limit)" if limit and not said else " (raise --time-limit)"
    return " ".join(text.split())  # one line whatever the library put in it


def failure(e: BaseException) -> Failure | None:
    code = exit_code(e)
    if code is None:
        return None
    if _stdout_failed(e):
        _silence_stdout()
    return Failure(message(e, code), code)


def _silence_stdout() -> None:
    """After stdout failed (a full disk), send what is still buffered nowhere so exit adds no second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test runner's stream)
        pass


#: the option of playtest's and grade's command lines that sets each game setting a GameError can name
SETTING_OPTIONS = {
    "characters": "--characters",
    "gear": "--gear",
    "players": "--players",
    "mode": "--mode",
    "rules": "--rules",
    "variants": "--variant",
}


@contextlib.contextmanager
def about_settings(source: str) -> Iterator[None]:
    """A game that cannot be made from the settings (``mapgen.engine.rules.GameError``) names the option at
    fault (``error: --gear: each Gear card exists once``), or else the map (``error: my.toml: the map is not
    complete ...``)."""
    try:
        yield
    except Exception as e:
        if exit_code(e) is not None and hasattr(e, "setting") and not getattr(e, "mapgen_subject", None):
            with contextlib.suppress(AttributeError):
                e.mapgen_subject = SETTING_OPTIONS.get(e.setting or "", source)
        raise


@contextlib.contextmanager
def about(subject: str | os.PathLike, time_limit: float | None = None, note: str = "") -> Iterator[None]:
    """Name ``subject`` (the input file) in any error raised inside whose message does not name it already
    (``no completion: rule C6 ...`` from the solver becomes ``state.toml: no completion: rule C6 ...``);
    a time-out's message gives ``time_limit``; Ctrl-C becomes ``FILE: interrupted``. ``note`` ends the message of
    a broken rule or no completion (exit 1): " (it was made under the house rules of ...)" (``house_words``)."""
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted(str(subject), "interrupted") from None
    except Exception as e:
        if time_limit is not None and exit_code(e) == TIMEOUT:
            with contextlib.suppress(AttributeError):
                e.mapgen_time_limit = time_limit
        if exit_code(e) is not None and not getattr(e, "mapgen_subject", None) and str(subject) not in str(e):
            with contextlib.suppress(AttributeError):
                e.mapgen_subject = str(subject)
        if note and exit_code(e) == BROKEN:
            with contextlib.suppress(AttributeError):
                e.mapgen_note = note
        raise


# -- Ctrl-C --------------------------------------------------------------------------------------------------------

#: set by the SIGINT handler: once Ctrl-C was pressed, whatever error comes out of the command was caused by it
#: (an extension module interrupted while it was imported raises ``ImportError: initialization failed``)
_interrupted = threading.Event()


def interrupted() -> bool:
    """Ctrl-C was pressed while the command ran."""
    return _interrupted.is_set()


#: how long Ctrl-C may go unhandled (no KeyboardInterrupt on its way out of the main thread) before it is
#: delivered again
REDELIVER_AFTER = 0.5
_WATCH_EVERY = 0.05

#: the running command's "over" event (set when it has returned), one per command, so that a watchdog left
#: from an earlier command never acts on a later one; None between commands
_command: threading.Event | None = None
#: re-entrant: the SIGINT handler takes it, and a second SIGINT (``timeout -s INT`` signals the process and then
#: its group: two at once) runs the handler again in the main thread while the first one holds it
_watch_lock = threading.RLock()
_watched: threading.Event | None = None  # the command a watchdog runs for


def _on_sigint(signum, frame):
    over = _command
    if over is None or over.is_set():  # delivered again just as the command ended: nothing left to stop
        return
    _interrupted.set()
    _start_watchdog(over)
    raise KeyboardInterrupt


def _start_watchdog(over: threading.Event) -> None:
    global _watched
    with _watch_lock:
        if over.is_set() or _watched is over:
            return
        _watched = over
    # started outside the lock: Thread.start waits for the thread, and the watchdog's first act may be to take it
    threading.Thread(target=_watch, args=(over,), name="ctrl-c", daemon=True).start()


def _from_interrupt(active) -> bool:
    """``active`` (what ``sys._current_exceptions`` gives for a thread) is Ctrl-C on its way out, or an error
    raised while handling it (``Interrupted``, ``ImportError: initialization failed`` from an interrupted import)."""
    e = active[1] if isinstance(active, tuple) else active
    seen = 0
    while isinstance(e, BaseException) and seen < 20:
        if isinstance(e, KeyboardInterrupt) or exit_code(e) == INTERRUPTED:
            return True
        e = e.__cause__ or e.__context__
        seen += 1
    return False


def _watch(over: threading.Event) -> None:
    """Deliver Ctrl-C again while the command runs on as if it had never come. Some C code takes Python's
    KeyboardInterrupt and drops it (seen twice in some 800 Ctrl-Cs in the middle of an import: the command
    ran to its end and exited 0); then the main thread handles no exception. While it handles the interrupt
    (a finally or an except on the way out, however long its cleanup takes) nothing is sent: only
    ``REDELIVER_AFTER`` seconds without it in sight send it again (a solver call being stopped takes it again,
    harmlessly)."""
    main = threading.main_thread().ident
    quiet_since = time.monotonic()
    while not over.wait(_WATCH_EVERY):
        if _from_interrupt(sys._current_exceptions().get(main)):
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= REDELIVER_AFTER:
            with _watch_lock:
                if not over.is_set():
                    _thread.interrupt_main(signal.SIGINT)
            quiet_since = time.monotonic()


@contextlib.contextmanager
def catching_ctrl_c(*, then_ignore: bool = False) -> Iterator[None]:
    """Python's Ctrl-C (KeyboardInterrupt) for the command's run, remembering that it came; the previous
    handler afterwards (a test runner's), or, with ``then_ignore`` (mapgen as its own process), none: a
    Ctrl-C once the command has returned, its output written, while the interpreter shuts down, would end
    the process by SIGINT (exit -2) instead of with the command's own code. Ignoring it survives the
    interpreter's finalization (which puts back the default for a Python handler, not for SIG_IGN)."""
    global _command
    _interrupted.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _on_sigint)
    previous_hook = sys.unraisablehook

    def unraisable(hook_args) -> None:
        # Ctrl-C that lands in a finalizer (a __del__ the garbage collector runs) is printed as "Exception
        # ignored in ..." and dropped, and the command would run on to the end: deliver it again instead,
        # a moment later from another thread, so that it arrives once the finalizer has returned (if it
        # lands in one again, this comes round again).
        if hook_args.exc_type is not None and issubclass(hook_args.exc_type, KeyboardInterrupt):
            threading.Timer(0.05, _thread.interrupt_main, (signal.SIGINT,)).start()
            return
        previous_hook(hook_args)

    sys.unraisablehook = unraisable
    over = _command = threading.Event()
    try:
        yield
    finally:
        with _watch_lock:
            over.set()
        sys.unraisablehook = previous_hook
        if then_ignore:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        else:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
