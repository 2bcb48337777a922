"""The one reader for every file and text a user gives mapgen: maps, profiles, rules (chapter files), card files,
replays, and the web API's bodies.

The same limits and the same words everywhere:

- at most ``MAX_BYTES`` (1 MiB) read: a map is a few hundred bytes and a profile a few kilobytes, so
  ``--rules /dev/zero`` is refused at once instead of filling the memory;
- UTF-8, with or without a byte-order mark (editors on Windows write one);
- nesting at most ``MAX_DEPTH`` levels (``x = [[[[...]]]]`` a thousand deep is refused, never a
  RecursionError in the parser or in the code that walks the result);
- a file that cannot be opened says why: no such file, a directory, a loop of symbolic links, no permission.

Every problem is an ``Unreadable`` carrying the problem alone; the caller raises its own error (MapFileError,
ProfileError, ChapterError, ...) naming the file, so the line reads ``error: FILE: problem`` as before.
"""

from __future__ import annotations

import errno
import json
import numbers
import os
from collections.abc import Iterable
from typing import Any

import tomli  # tomllib's own source, compiled (mypyc): a map is read in a quarter of the time

MAX_BYTES = 1024 * 1024
#: deeper than any file mapgen reads (a profile's tables are 3 levels deep, a replay 3)
MAX_DEPTH = 32
#: the longest free text a person types (a map's name): drawn on pictures, whose drawing time grows with it
MAX_TEXT = 200


class Unreadable(ValueError):
    """Text or a file that cannot be read; ``str(e)`` is the problem, without the file's name (the caller raises
    its own error, which names the file and carries the exit code: mapgen.errors)."""


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """The UTF-8 text of ``path`` without a byte-order mark, at most MAX_BYTES; Unreadable otherwise. ``what``
    names the kind of file in a message (``"is a directory, not a map file"``). TypeError for a path that is no
    str, bytes or PathLike: ``open`` takes a number as a file descriptor, and closes it after (``read_map(1)``
    closed the process's stdout)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"a {what}'s path is a str or a Path, not {a_kind(path)}")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)  # never more: /dev/zero, a log file given by mistake
    except FileNotFoundError:
        raise Unreadable("no such file") from None
    except IsADirectoryError:
        raise Unreadable(f"is a directory, not a {what}") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Unreadable("a loop of symbolic links (no file at its end)") from None
        raise Unreadable(f"cannot be read ({e.strerror or e})") from None
    if len(raw) > MAX_BYTES:
        raise Unreadable(f"too large for a {what} (over {MAX_BYTES // (1024 * 1024)} MiB)")
    return decode(raw)


#: a MAP argument that names standard input (``mapgen deduce m.toml --puzzle - | mapgen solve -``)
STDIN = "-"
_stdin_read: tuple[object, str] | None = None  # (the stream, its text): read once, asked twice (render --profile)


def read_stdin(what: str = "file") -> str:
    """The UTF-8 text piped in on standard input, at most MAX_BYTES, read once per stream (a command that looks
    at its input twice gets the same text); Unreadable when it is a terminal (nothing was piped in: a command
    would wait for typing without a word) or as ``read_text``."""
    global _stdin_read
    import sys  # deferred: the stream of the moment (a test's runner swaps it)

    stream = sys.stdin
    if _stdin_read is not None and _stdin_read[0] is stream:
        return _stdin_read[1]
    if stream is None or stream.isatty():
        raise Unreadable(f"standard input is a terminal: pipe a {what} in (mapgen generate ... | mapgen solve -)")
    raw = stream.buffer.read(MAX_BYTES + 1) if hasattr(stream, "buffer") else stream.read().encode("utf-8")
    if len(raw) > MAX_BYTES:
        raise Unreadable(f"too large for a {what} (over {MAX_BYTES // (1024 * 1024)} MiB)")
    text = decode(raw)
    _stdin_read = (stream, text)
    return text


def _utf16_text(raw: bytes) -> bool:
    """Whether ``raw`` is UTF-16 text as an editor or a shell writes it: its byte-order mark, either way round, then
    mostly ASCII characters (a map file's are), not binary bytes that happen to start so."""
    if not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    try:
        text = raw.decode("utf-16")
    except UnicodeDecodeError:
        return False
    return sum(c.isascii() for c in text) >= 0.9 * len(text)


def decode(raw: bytes) -> str:
    """UTF-8 text, a byte-order mark dropped; Unreadable for other bytes (said of UTF-16 text, which Windows
    PowerShell's ``>`` writes: ``mapgen generate ... > my-map.toml`` there, then ``mapgen validate my-map.toml``)."""
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        if _utf16_text(raw):
            raise Unreadable(
                "is UTF-16 text, not UTF-8 (as Windows PowerShell's > writes it): save it as UTF-8"
            ) from None
        raise Unreadable("is not a text file (not UTF-8)") from None


def parse_toml(text: str) -> dict:
    """A TOML document (a BOM at its start allowed, nesting at most MAX_DEPTH); Unreadable otherwise."""
    if len(text) > MAX_BYTES:
        raise Unreadable(f"too large (over {MAX_BYTES // (1024 * 1024)} MiB)")
    try:
        data = tomli.loads(text.removeprefix("\ufeff"))
    except tomli.TOMLDecodeError as e:
        raise Unreadable(f"not valid TOML ({e})") from None
    except RecursionError:
        raise Unreadable(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    except (ValueError, TypeError) as e:  # defensive: the parser on pathological input
        raise Unreadable(f"not valid TOML ({e})") from None
    check_depth(data)
    return data


def parse_json(text: str | bytes, what: str | None = None) -> Any:
    """A JSON document (nesting at most MAX_DEPTH); Unreadable otherwise, ``not a WHAT (why)`` when ``what``
    names the kind of file."""
    if len(text) > MAX_BYTES:
        raise Unreadable(f"too large (over {MAX_BYTES // (1024 * 1024)} MiB)")
    if isinstance(text, bytes):
        text = decode(text)
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except RecursionError:
        raise Unreadable(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as e:
        raise Unreadable(f"not a {what} ({e})" if what else f"not valid JSON ({e})") from None
    check_depth(data)
    return data


def read_toml(path: str | os.PathLike, what: str = "file") -> dict:
    return parse_toml(read_text(path, what))


def read_json(path: str | os.PathLike, what: str = "file") -> Any:
    return parse_json(read_text(path, what), what)


def check_depth(data: Any, limit: int = MAX_DEPTH) -> None:
    """Unreadable when tables/arrays nest deeper than ``limit`` (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    raise Unreadable(f"nested too deeply (more than {limit} levels)")
                stack.append((child, depth + 1))


def is_whole(value: object, least: int | None = None) -> bool:
    """Whether ``value`` is a whole number (an int, never a bool), from ``least`` when given: what a count, a seed
    or a budget given in code or read from JSON must be."""
    return isinstance(value, int) and not isinstance(value, bool) and (least is None or value >= least)


def a_kind(value: object, shown: bool = False) -> str:
    """The kind of ``value`` with its article, for a message that says what was given instead: ``"an int"``,
    ``"a str"``, ``"None"`` (not "a int", not "a NoneType"); ``shown``: the value too (``"an int 5"``)."""
    if value is None:
        return "None"
    name = type(value).__name__
    kind = f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
    return f"{kind} {value!r}" if shown else kind


def seconds_problem(value: object, name: str = "time_limit") -> str | None:
    """What is wrong with a time limit given in code (``"time_limit is seconds (a number from 0), not -1"``): no
    number, below 0, or NaN (a negative one has run out before anything is tried, and a NaN deadline never passes:
    either was reported as a time-out, exit 3, where the input is at fault); None for a number from 0 (infinity
    too: no limit). The one check of every public function's ``time_limit``; each raises its module's own input
    error with the text (``--time-limit`` is checked by its option, mapgen/cli/options.py)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) >= 0:
        return f"{name} is seconds (a number from 0), not {value!r}"
    return None


def text_problem(value: str, limit: int = MAX_TEXT) -> str | None:
    """What is wrong with a piece of free text (a map's name) that is drawn and printed as one line: longer
    than ``limit`` characters, or holding a control character (a bell, a line break: no font draws them);
    None when it is fine."""
    if len(value) > limit:
        return f"is {len(value):,} characters long (at most {limit:,})"
    bad = next((ch for ch in value if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0), None)
    if bad is not None:
        return f"holds a control character (U+{ord(bad):04X}); text is one line of printable characters"
    return None


def unknown_key(table: dict, known: Iterable[str]) -> str | None:
    """The first key of ``table`` not in ``known`` (None when all are known)."""
    known = set(known)
    return next((k for k in table if k not in known), None)


def near_name(value: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` a misspelt ``value`` most likely meant (``heuristc`` -> ``heuristic``, ``Peak`` ->
    ``peak``: the case is ignored), or None."""
    import difflib  # deferred: only for a value that is not a choice

    low = {n.lower(): n for n in names}
    near = difflib.get_close_matches(str(value).lower(), list(low), n=1, cutoff=0.75)
    return low[near[0]] if near else None


def did_you_mean(value: str, names: Iterable[str]) -> str:
    """``": did you mean heuristic?"`` for a misspelt ``value`` near one of ``names``, else ``""``."""
    near = near_name(value, names)
    return f": did you mean {near}?" if near else ""
