"""Safe output files: the destination checked before any work, atomic writes, no overwrite without force.

Every writer of the toolkit (maps, puzzles, pictures, replays) goes through this module:

- ``check_file(path, force=...)`` / ``check_folder(path)`` before the work starts, so a missing or unwritable
  folder or an existing file fails in a second, not after an hour of solving;
- ``writing(path, force=...)`` / ``write_text(...)``: a temp file in the same folder renamed into place, so a
  crash, a full disk or Ctrl-C never leaves half a file; without ``force`` an existing file is never replaced
  (not even one that appeared while the work ran);
- files get the usual mode (``0o666`` less the umask), not ``mkstemp``'s 0600;
- a Ctrl-C at any moment of a write leaves no temp file behind.

Problems are ``OutputError``: one line naming the file, for the CLI's exit code 2.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from mapgen.errors import InputError

#: told of each folder ``prepare_folder`` creates, as it was named (the CLI says "created folder a/b" on stderr);
#: unset (the library, the web app): nobody is told
folder_created: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "folder_created", default=None
)


#: the files a command reads, as (device, inode): no output may replace one, not even with ``force`` (``solve
#: puzzle.toml -o puzzle.toml --force`` replaced the puzzle with its solution). The CLI sets them from its command
#: line (``mapgen.cli``); unset (the library, the web app): nothing is kept
inputs_kept: contextvars.ContextVar[frozenset[tuple[int, int]]] = contextvars.ContextVar(
    "inputs_kept", default=frozenset()
)


def file_identity(path: str | os.PathLike) -> tuple[int, int] | None:
    """``path``'s regular file (its link followed) as (device, inode), for ``inputs_kept``; None when it is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


#: what an existing destination's error tells the user to do: the CLI's option (a Python API names its keyword)
FORCE_HINT = "use --force to overwrite"


class OutputError(InputError, OSError):
    """A destination that cannot be written; ``str()`` is one line naming the file and what is wrong.

    An OSError, so callers that already catch OSError around a write keep working."""

    def __init__(self, path: str | os.PathLike, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class OutputExistsError(OutputError, FileExistsError):
    """The destination exists and ``force`` was not given."""


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _why(e: OSError) -> str:
    return e.strerror or str(e)


def _why_not_in(folder: Path, e: OSError, *, here: bool = False) -> str:
    """Why nothing could be made in ``folder``: the OSError's words, unless they are "No such file or directory"
    for a folder that exists (Linux's /proc and /sys refuse new entries so): then what is really wrong, said of
    "there" when ``here`` (the message has named the folder already)."""
    if isinstance(e, FileNotFoundError):
        existing = next((d for d in (folder, *folder.parents) if d.exists()), None)
        if existing is not None and existing.is_dir():
            return f"nothing new can be created {'there' if here and existing == folder else f'in {existing}'}"
    return _why(e)


def _probe(folder: Path, named: str | os.PathLike) -> None:
    """Create and remove a temp file in ``folder``: the only honest writability test (root ignores modes)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".mapgen-probe-")
    except OSError as e:
        raise OutputError(named, f"cannot write in folder {folder} ({_why_not_in(folder, e, here=True)})") from None
    os.close(fd)
    os.unlink(tmp)


def check_folder_exists(folder: Path, named: str | os.PathLike) -> None:
    if not folder.exists():
        raise OutputError(named, f"folder {folder} does not exist")
    if not folder.is_dir():
        raise OutputError(named, f"{folder} is not a folder")


def _regular_or_missing(p: Path, named: str | os.PathLike) -> None:
    """Only a regular file may be replaced: never a folder, and never /dev/full or a pipe. A name ending in a
    slash names a folder (``Path`` drops the slash: ``-o out/`` wrote a file named ``out``)."""
    if str(named).endswith(("/", os.sep)) and not p.is_dir():
        raise OutputError(named, "ends in / (a folder's name); name a file")
    _not_an_input(p, named)
    if p.is_dir():
        raise OutputError(named, "is a folder; name a file")
    if p.exists() and not p.is_file():
        raise OutputError(named, "is not a regular file; name a new file")


def _not_an_input(p: Path, named: str | os.PathLike) -> None:
    """OutputError when ``p`` is the very file of one of the command's inputs (``inputs_kept``), however spelt. A
    symbolic link named as the output is replaced itself, not its target: only the entry ``p`` names counts."""
    kept = inputs_kept.get()
    if not kept:
        return
    try:
        st = os.lstat(p)
    except (OSError, ValueError):
        return
    if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) in kept:
        raise OutputError(
            named, "is also an input of this command; write to another file (--force never replaces an input)"
        )


def check_file(path: str | os.PathLike, *, force: bool = False) -> Path:
    """Check that ``path`` can be written (folder exists and takes files; no file there unless ``force``)."""
    p = Path(path)
    _regular_or_missing(p, path)
    if p.exists() and not force:
        raise OutputExistsError(path, f"already exists; {FORCE_HINT}")
    folder = _folder(p)
    check_folder_exists(folder, path)
    _probe(folder, path)
    return p


def check_files(paths: list[Path], *, force: bool = False, total: int | None = None) -> None:
    """Check several files in one folder at once; the error counts the files that already exist (of ``total``
    files to write, default ``len(paths)``)."""
    if not paths:
        return
    total = len(paths) if total is None else total
    if not force:
        clash = [p for p in paths if p.exists()]
        if clash:
            more = f" (and {len(clash) - 1} more of the {total} files)" if len(clash) > 1 else ""
            raise OutputExistsError(clash[0], f"already exists{more}; {FORCE_HINT}")
    for p in paths:
        _regular_or_missing(p, p)


def prepare_folder(folder: str | os.PathLike) -> Path:
    """An output folder: created (with parents) when missing, and ``folder_created`` told; OutputError when it
    cannot hold files."""
    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise OutputError(folder, "not a folder")
    missing = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(folder, f"cannot create the folder ({_why_not_in(d.parent, e)})") from None
    tell = folder_created.get()
    if missing and tell is not None:
        tell(str(folder))
    _probe(d, folder)
    return d


def _cannot_create(path: str | os.PathLike, folder: Path, e: OSError) -> OutputError:
    """Why a temp file could not be made in ``folder``, for the file ``path``."""
    if isinstance(e, FileNotFoundError) and not folder.is_dir():
        return OutputError(path, f"folder {folder} does not exist")
    if isinstance(e, NotADirectoryError):
        return OutputError(path, f"{folder} is not a folder")
    return OutputError(path, f"cannot write in folder {folder} ({_why_not_in(folder, e, here=True)})")


@contextlib.contextmanager
def writing(
    path: str | os.PathLike, *, force: bool = False, suffix: str = ".tmp", to_force: str = FORCE_HINT
) -> Iterator[str]:
    """Yield a temp path in ``path``'s folder to write; on success it becomes ``path`` atomically.

    Without ``force`` an existing ``path`` is never replaced (``os.link`` fails if it appeared meanwhile); the
    error ends with ``to_force``, what the caller's user can do about it (the CLI's ``--force`` by default).
    On any failure, Ctrl-C at any moment included, the temp file is removed and ``path`` is left as it was;
    OSErrors become OutputError. The temp file is made with the usual mode (0o666 less the umask).
    """
    p = Path(path)
    folder = _folder(p)
    _regular_or_missing(p, path)
    if not force and p.exists():
        raise OutputExistsError(path, f"already exists; {to_force}")
    # the temp file's name is chosen before the file exists, and ``made`` is set before the file is created,
    # so a Ctrl-C between creating the file and remembering its name cannot leave it behind (mkstemp returns
    # the name only after the file exists: a temp file was left so in the Ctrl-C test on a busy machine)
    tmp = folder / f".{p.name}.{secrets.token_hex(6)}{suffix}"
    made = False
    try:
        try:
            made = True  # before the call: a Ctrl-C right after the file appears must still remove it
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except OSError as e:
            made = False  # nothing made (or, for FileExistsError, not ours: 48 random bits, never in practice)
            raise _cannot_create(path, folder, e) from None
        try:
            yield str(tmp)
            if force:
                os.replace(tmp, p)
            else:
                os.link(tmp, p)  # fails if the file appeared meanwhile: never clobber
        except FileExistsError:
            raise OutputExistsError(path, f"already exists; {to_force}") from None
        except OutputError:
            raise
        except OSError as e:
            raise OutputError(path, f"cannot write ({_why(e)})") from None
    finally:
        # the temp file removed whatever Ctrl-C does meanwhile: a KeyboardInterrupt that lands during the removal
        # is kept and raised once the file is gone. The loop is written out here, not called: a function call
        # is itself a moment where a pending Ctrl-C is raised. ``_thread.interrupt_main`` (the Ctrl-C
        # watchdog's redelivery) is not held back by a blocked SIGINT, so no mask could close this window.
        pending: BaseException | None = None
        while made:
            try:
                os.unlink(tmp)
                made = False
            except KeyboardInterrupt as e:
                pending = e
            except OSError:  # already gone (published by os.replace), or the folder went away
                made = False
        if pending is not None:
            raise pending


def write_text(path: str | os.PathLike, text: str, *, force: bool = False, to_force: str = FORCE_HINT) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; never replaces a file unless ``force`` (``to_force``: as in
    ``writing``)."""
    with writing(path, force=force, to_force=to_force) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    return Path(path)


#: the list of the files mapgen wrote in a folder as a numbered series (``pack --out``, ``playtest --replay``), with
#: their SHA-256: what a later run with --force may remove of them, and nothing else
MANIFEST = ".mapgen-files.json"
_MANIFEST_ABOUT = "the files mapgen wrote in this folder, by series, with their SHA-256 (mapgen removes no other)"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _shortlist(names: list[str]) -> str:
    return ", ".join(names) if len(names) <= 3 else f"{names[0]}, {names[1]} ... {names[-1]}"


class Series:
    """A numbered series of files one run writes into ``folder``: ``name(k)`` for k in ``first``..``first+count-1``,
    ``pattern`` (one group: the number) matching any file of the series, of this run or an earlier one.

    ``check()`` before the work: a file of this run that exists is refused without ``force`` (``check_files``);
    a file of the series this run does not write (an earlier, larger run's) would pass for part of this run, so
    it is refused too, before any work: without ``force`` when mapgen listed it in ``MANIFEST`` as it wrote it
    ("use --force"), and always when it did not (a user's file, an older mapgen's, or one edited since: mapgen
    never removes a file it cannot prove its own). ``write`` each file, then ``finish()``: with ``force`` the
    earlier run's listed files are removed (each checked again first) and the list is written; it returns the
    names removed."""

    def __init__(
        self,
        folder: str | os.PathLike,
        series: str,
        pattern: str,
        name: Callable[[int], str],
        count: int,
        *,
        first: int = 0,
        force: bool = False,
    ):
        self.folder = Path(folder)
        self.series = series
        self.pattern = re.compile(pattern)
        self.name = name
        self.first, self.count = first, count
        self.force = force
        self.written: dict[str, str] = {}

    def _this_run(self, n: str) -> bool:
        """``n``, a name the pattern matches, is one this run writes."""
        m = self.pattern.fullmatch(n)
        return m is not None and self.first <= int(m[1]) < self.first + self.count and self.name(int(m[1])) == n

    def _listed(self) -> dict:
        """The folder's list of files mapgen wrote ({} when there is none); OutputError when the file by its name
        is not one (it is never replaced)."""
        path = self.folder / MANIFEST
        if not path.exists() and not path.is_symlink():
            return {}
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError) as e:
            raise OutputError(path, f"not a list of files mapgen wrote ({e}); move it away") from None
        files = data.get("files") if isinstance(data, dict) else None
        if not (
            isinstance(files, dict)
            and all(isinstance(v, dict) and all(isinstance(d, str) for d in v.values()) for v in files.values())
        ):
            raise OutputError(path, "not a list of files mapgen wrote (no files by series); move it away")
        return files

    def _scan(self) -> tuple[list[str], list[str], list[str]]:
        """The series' files in the folder, read once (a run may write millions): (this run's, sorted; the others,
        sorted, as two lists: listed as mapgen wrote them, and not)."""
        if not self.folder.is_dir():
            return [], [], []
        listed = self._listed().get(self.series, {})
        this: list[str] = []
        ours: list[str] = []
        others: list[str] = []
        for n in sorted(os.listdir(self.folder)):
            if not self.pattern.fullmatch(n):
                continue
            if self._this_run(n):
                this.append(n)
            else:
                (ours if self._unchanged(n, listed) else others).append(n)
        return this, ours, others

    def _unchanged(self, n: str, listed: dict) -> bool:
        p = self.folder / n
        if n not in listed or p.is_symlink() or not p.is_file():
            return False
        try:
            return _sha256(p.read_bytes()) == listed[n]
        except OSError:
            return False

    def paths(self) -> list[Path]:
        return [self.folder / self.name(k) for k in range(self.first, self.first + self.count)]

    def check(self) -> None:
        """Before the work (OutputError): see the class. The folder is not made here."""
        this, ours, others = self._scan()
        if others:  # first: --force would not help with these
            more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
            raise OutputError(
                self.folder / others[0],
                f"named like this run's files but not as mapgen wrote it here{more} (not in {MANIFEST}, or changed "
                "since): it would pass for part of this run and mapgen removes no file it did not write: move or "
                "delete it yourself, or write to another folder",
            )
        check_files([self.folder / n for n in this], force=self.force, total=self.count)
        if ours and not self.force:
            more = f" (and {len(ours) - 1} more this run would not replace)" if len(ours) > 1 else ""
            raise OutputExistsError(
                self.folder / ours[0],
                f"left by an earlier run{more}; use --force to replace that run (its files are removed), "
                "or write to another folder",
            )

    def write(self, path: str | os.PathLike, text: str) -> Path:
        """Write one file of the series (UTF-8, as ``write_text``) and list it."""
        p = write_text(path, text, force=self.force)
        self.written[p.name] = _sha256(text.encode("utf-8"))
        return p

    def finish(self) -> list[str]:
        """After every file is written: the earlier run's listed, unchanged files removed (with ``force``), the list
        written; the names removed."""
        ours = self._scan()[1] if self.force else []
        removed = []
        for n in ours:
            try:
                os.unlink(self.folder / n)
                removed.append(n)
            except FileNotFoundError:
                pass
            except OSError as e:
                raise OutputError(self.folder / n, f"cannot remove this file of an earlier run ({_why(e)})") from None
        files = self._listed()
        files[self.series] = dict(sorted(self.written.items()))
        text = json.dumps({"about": _MANIFEST_ABOUT, "files": files}, indent=1, sort_keys=True) + "\n"
        write_text(self.folder / MANIFEST, text, force=True)
        return removed


def removed_note(folder: str | os.PathLike, removed: list[str]) -> str | None:
    """The line that tells the user what ``Series.finish`` removed from ``folder`` (None when nothing was)."""
    if not removed:
        return None
    files = "file" if len(removed) == 1 else "files"
    return f"removed {len(removed)} {files} of an earlier run from {folder}: {_shortlist(removed)}"
