"""The ``mapgen`` command line: a thin click layer over the mapgen and constraints libraries.

One module per command (or family) in this package, listed in ``COMMANDS`` and imported only when that
command runs (``mapgen validate`` imports no solver and no matplotlib). Shared arguments and options live in
``options``; ``errors`` is the one place where library errors become exit codes (0/1/2/3) and one-line messages.

To add a command (``hint``, say):

1. ``mapgen/cli/hint.py``: a ``@click.command()`` function built from ``options`` (``map_argument()``,
   ``json_option``, ``time_limit_option(30.0)``, ``seed_option()``, ``force_option(...)``, ...). Import the
   library (ortools, matplotlib) inside the function, never at module level: ``mapgen --help`` imports every
   command module. End the help with an ``Example:`` block (after a line holding only backslash-b, as
   click wants) whose MAPs are shipped names (``fauna-1``), so it runs from any folder
   (tests/test_cli_errors.py checks this for every command).
2. Let the library's typed exceptions propagate; a new exception class derives from the base of its exit
   code in ``mapgen.errors`` (``InputError``, ``UnmetError``, ``TimeLimitError``). For what the command checks itself, raise ``BadInput``/``RuleBroken``/``OutOfTime``
   (``options.reject`` for a bad option value). Wrap solver calls in ``with about(map_in.source, time_limit):``
   so their messages name the file and the limit. Never ``sys.exit`` or print ``error:`` yourself.
3. Writing a file: an option of ``type=options.OutName("file")`` (or ``"folder"``; its name in ``OUTPUT_OPTIONS``
   below), ``options.out_file(path, force=force)`` before the work, then ``mapgen.output.write_text``/``writing``
   (atomic, never replaces without ``force``, never replaces an input).
4. One line in ``COMMANDS`` below, and a row for it in tests/test_cli_errors.py (bad inputs and destinations).

An option of an existing command (``solve --explain``) goes into that command's module.
"""

from __future__ import annotations

import codecs
import contextlib
import importlib
import itertools
import os
import re
import stat
import sys
from pathlib import Path

import click

from mapgen import __version__
from mapgen.cli.errors import (
    BAD_INPUT,
    INTERRUPTED,
    JSON_ASKED,
    Failure,
    catching_ctrl_c,
    failure,
    interrupted,
    json_failure,
)

#: command name -> "module:attribute", in the order `mapgen --help` lists them
COMMANDS: dict[str, str] = {
    "validate": "mapgen.cli.validate:validate",
    "chapters": "mapgen.cli.chapters:chapters",
    "maps": "mapgen.cli.maps:maps_",
    "generate": "mapgen.cli.generate:generate",
    "solve": "mapgen.cli.solve:solve",
    "compile": "mapgen.cli.compile:compile_",
    "hint": "mapgen.cli.hint:hint",
    "deduce": "mapgen.cli.deduce:deduce",
    "playtest": "mapgen.cli.playtest:playtest",
    "grade": "mapgen.cli.grade:grade",
    "render": "mapgen.cli.render:render",
    "pack": "mapgen.cli.pack:pack",
    "repair": "mapgen.cli.repair:repair",
    "serve": "mapgen.cli.serve:serve",
}


#: command name -> the first paragraph of its help, which `mapgen --help` shortens without importing the
#: command's module (the playtest command's bots load the solver: ortools and pandas, half a second).
#: tests/test_cli.py checks each against the command's own help.
SUMMARIES: dict[str, str] = {
    "validate": "Check complete map files (or shipped maps by name) against every rule of their chapter.",
    "chapters": "Show the chapters, their terrains and their rules: the Reference Board as text.",
    "maps": "List the shipped maps by chapter: each map's name, deduction grade and play difficulty.",
    "generate": "Generate new maps that keep every rule of their chapter and the design defaults.",
    "solve": "Deduce a partial map: forced cells, their reasons, completions, probabilities and targets.",
    "compile": "Compile a map's briefing, or a partial map as revealed, to a d-DNNF circuit (d4) and cache it.",
    "hint": "The single easiest deduction on a partial map, with its reason in words, like a hint button.",
    "deduce": "Report how a complete map deduces: a minimal reveal set, the rules it relies on, the reveal "
    "profile of a logical explorer playing from the start (a count at every step, the reason of every forced "
    "step) and the map's deduction grade: Gentle, Moderate, Tricky or Fiendish.",
    "playtest": "Play a map many times with a bot and report how often, how well and why games are won or lost.",
    "grade": "Grade maps for print: how each deduces and plays, with flags for maps a designer should not print.",
    "render": "Draw a map, a partial map or its reveal profile as SVG, PNG or PDF.",
    "pack": "Make a map folder to print and play: a PDF with a cover, the maps at Map Board size, and a play log.",
    "repair": "Find the valid map nearest to MAP: the fewest cells changed, the briefing kept.",
    "serve": "Start a local web app and print its URL: a table helper for players and a map studio for designers.",
}


#: what a terminal that cannot show a character gets instead (``--help``, ``chapters``, ``grade`` and the counts use
#: the en dash, the ellipsis, the times and plus-minus signs); anything else becomes "?"
PLAIN = {"–": "-", "—": "-", "−": "-", "…": "...", "×": "x", "±": "+/-", "≤": "<=", "≥": ">=", "→": "->", "’": "'"}


def _plain_characters(error: UnicodeError) -> tuple[str, int]:
    """The codec error handler "mapgen-plain": each character a terminal cannot show, as ``PLAIN`` spells it."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(PLAIN.get(c, "?") for c in error.object[error.start : error.end]), error.end


codecs.register_error("mapgen-plain", _plain_characters)


def plain_streams() -> None:
    """stdout and stderr write what their encoding cannot hold in ASCII (``PLAIN``) rather than fail: on a
    latin-1 or cp1252 terminal (``PYTHONIOENCODING=latin-1``) `mapgen chapters` ended in a UnicodeEncodeError
    traceback at its first en dash (click itself only replaces an ASCII stream)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):  # a replaced stream: a test's, a pipe's
            stream.reconfigure(errors="mapgen-plain")


class MapgenGroup(click.Group):
    """Imports a command's module on first use, and maps every library error to an exit code and one line."""

    def list_commands(self, ctx):
        return [*COMMANDS, *(n for n in self.commands if n not in COMMANDS)]

    def format_commands(self, ctx, formatter) -> None:
        """click's command list, from ``SUMMARIES``: `mapgen --help` imports no command module."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        for name in names:
            if name in SUMMARIES and name not in self.commands:
                rows.append((name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)))
            elif (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def get_command(self, ctx, name):
        if name not in self.commands and name in COMMANDS:
            module, attr = COMMANDS[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)

    def main(self, args=None, *rest, **kwargs):
        # mapgen's own command line (the console script, ``python -m cli``), not a caller's list of arguments
        self.command_line = args is None
        if self.command_line:
            plain_streams()
        try:
            return super().main(args, *rest, **kwargs)
        except SystemExit as e:
            if e.code == INTERRUPTED and _own_process():
                # Ctrl-C during an extension module's import (its init code run through PyRun_String) leaves
                # CPython's "unhandled KeyboardInterrupt" mark set although the interrupt was handled here, and
                # the interpreter would then end itself by SIGINT (-2) instead of exiting 130: exit now, after
                # the one line is out (every cleanup in a finally already ran on the way here). Whether or not
                # mapgen's own handler was in place yet: an import in Python's start-up, before it, is the same.
                for stream in (sys.stdout, sys.stderr):
                    with contextlib.suppress(Exception):
                        stream.flush()
                os._exit(INTERRUPTED)
            raise

    def parse_args(self, ctx, args):
        ctx.meta["mapgen.args"] = list(args)
        try:  # `mapgen --help` and `--version` print here, before any command runs
            return super().parse_args(ctx, args)
        except KeyboardInterrupt:
            subject = _subject_of(list(args)) or next((a for a in args if not a.startswith("-")), "mapgen")
            raise Failure(f"{subject}: interrupted", INTERRUPTED) from None
        except OSError as e:  # `mapgen --help > /dev/full`
            mapped = failure(e)
            if mapped is None:
                raise
            raise mapped from None
        except click.UsageError as e:  # `mapgen --colour`: one line, as a command's options say it
            if isinstance(e, click.exceptions.NoArgsIsHelpError):  # `mapgen` alone: the help
                raise
            raise self._usage(e, ctx) from None

    def resolve_command(self, ctx, args):
        """click's, with the command nearest a misspelt name (`mapgen solv`: "No such command 'solv': did you
        mean solve?"), as options and shipped maps' names are suggested."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            from mapgen.inputs import near_name  # deferred: only for a command line that names no command

            name = args[0] if args else ""
            near = near_name(name, self.list_commands(ctx)) if name and not name.startswith("-") else None
            if near is None:
                raise
            raise click.UsageError(f"No such command '{name}': did you mean {near}?", ctx) from None

    def _usage(self, e: click.UsageError, ctx) -> Failure:
        """click's refusal of the command line, one line, exit 2: a named option's value as every other option
        error reads (``--count: 0 is not in the range 1<=x<=100000``), anything else in click's words and where
        the help is (``Missing argument 'MAP'. See 'mapgen solve --help'.``)."""
        command = self.commands.get(ctx.invoked_subcommand or "")
        problem = option_problem(e, command)
        if problem is not None:
            return Failure(problem, BAD_INPUT)
        where = e.ctx.command_path if e.ctx is not None else ctx.command_path
        if e.ctx is None and command is not None:
            where = f"{ctx.command_path} {ctx.invoked_subcommand}"
        message = e.format_message() + _extra_meant(e.format_message(), command)
        if not message.endswith((".", "?", "!")):  # mapgen's own refusals end their sentence, as click's do
            message += "."
        return Failure(f"{message} See '{where} --help'.", BAD_INPUT)

    def invoke(self, ctx):
        try:
            return self._tracking(ctx)
        except KeyboardInterrupt:  # before ``_invoke``'s handler is in place (mapgen.output's import): one line, 130
            raise self._interrupted(ctx) from None

    def _tracking(self, ctx):
        """``_invoke``, with the output folders it makes removed again when it fails, and its inputs kept."""
        from mapgen.output import folder_created, inputs_kept  # deferred: mapgen.output, when a command runs

        made: list[str] = []  # the output folders this command created, as named

        def tell(folder: str) -> None:
            made.append(folder)
            click.echo(f"created folder {folder}", err=True)

        told = folder_created.set(tell)
        kept = inputs_kept.set(_inputs_of(ctx.meta.get("mapgen.args", [])))
        try:
            return self._invoke(ctx)
        except click.exceptions.Exit as e:
            if e.exit_code:
                _unmake(made)
            raise
        except BaseException:
            _unmake(made)
            raise
        finally:
            inputs_kept.reset(kept)
            folder_created.reset(told)

    def _invoke(self, ctx):
        with catching_ctrl_c(then_ignore=getattr(self, "command_line", False) and _own_process()):
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt:  # outside a command's `about` (an import, reading the arguments)
                raise self._interrupted(ctx) from None
            except click.UsageError as e:  # a missing argument, a bad option value: one line too, exit 2
                if interrupted():
                    raise self._interrupted(ctx) from None
                raise self._usage(e, ctx) from None
            except Failure as e:
                if interrupted() and e.exit_code != INTERRUPTED:
                    raise self._interrupted(ctx) from None
                raise
            except (click.ClickException, click.exceptions.Exit, click.Abort):
                raise
            except Exception as e:
                mapped = failure(e)
                if interrupted() and (mapped is None or mapped.exit_code != INTERRUPTED):
                    # whatever broke after Ctrl-C broke because of it (``ImportError: initialization failed``)
                    raise self._interrupted(ctx) from None
                if mapped is None:
                    raise
                if ctx.meta.get(JSON_ASKED):
                    json_failure(e, mapped)
                raise mapped from None

    @staticmethod
    def _interrupted(ctx) -> Failure:
        """``FILE: interrupted``, the file its arguments name (a command's ``about`` names it itself)."""
        args = ctx.meta.get("mapgen.args", [])
        subject = _subject_of(args) or next((a for a in args if not a.startswith("-")), ctx.info_name)
        return Failure(f"{subject}: interrupted", INTERRUPTED)


def option_problem(e: click.UsageError, command: click.Command | None = None) -> str | None:
    """``--OPTION: what is wrong`` for click's refusal of a named option (a value out of its range, of the wrong
    type, not a choice, missing; the option required), else None (an unknown option keeps click's words and its
    "did you mean"). ``command`` finds the option's long name when click names it as typed (``-n``)."""
    if isinstance(e, click.BadParameter) and isinstance(e.param, click.Option):
        name = _long_name(e.param)
        if isinstance(e, click.MissingParameter):
            metavar = e.param.make_metavar(e.ctx) if e.ctx is not None else ""
            return f"{name}: required ({name} {metavar})".replace(" )", ")")
        return f"{name}: {_plain(e.message)}"
    if isinstance(e, click.BadOptionUsage):
        typed = e.option_name
        option = next(
            (p for p in getattr(command, "params", ()) if isinstance(p, click.Option) and typed in p.opts), None
        )
        name = _long_name(option) if option is not None else typed
        for said, plain in _OPTION_USAGE:
            if said.format(name=repr(typed)) == e.message:
                return f"{name}: {plain}"
        return f"{name}: {_plain(e.message)}"
    return None


#: click's words for an option used without its value (or given one it takes none of), and mapgen's
_OPTION_USAGE = (
    ("Option {name} requires an argument.", "needs a value"),
    ("Option {name} does not take a value.", "takes no value (it is a switch)"),
)

#: click's name of a number type as its refusal says it ("'x' is not a valid integer range"), and plain words
_NUMBER_WORDS = {
    "is not a valid integer range": "is not a whole number",
    "is not a valid float range": "is not a number",
}


def _long_name(option: click.Option) -> str:
    """``--count`` for ``-n/--count``: the name every mapgen message gives an option."""
    return next((o for o in option.opts if o.startswith("--")), option.opts[0])


def _plain(message: str) -> str:
    """A click refusal in plain words (a whole number, a number), on one line, without its closing full stop."""
    for said, plain in _NUMBER_WORDS.items():
        message = message.replace(said, plain)
    return " ".join(message.split()).rstrip(".")


def _own_process() -> bool:
    """mapgen runs as its own process (its stderr a real file), not inside a test's CliRunner."""
    try:
        return sys.stderr.fileno() == 2
    except (AttributeError, OSError, ValueError):
        return False


def _subject_of(args: list[str]) -> str | None:
    """The file a command line works on, before its command could read it: the first argument after the command
    that is a file or a shipped map's name, else the value of ``--out``; for ``serve``, its address."""
    rest = list(args[1:])
    if args[:1] == ["serve"]:  # the address it listens on (Ctrl+C stops a server)
        from mapgen.web import url_of  # deferred: mapgen.web, only for `mapgen serve` (not when cli is imported)

        given = dict(itertools.pairwise(rest))
        return url_of(given.get("--host", "127.0.0.1"), given.get("--port", "8000"))
    for a in rest:
        if not a.startswith("-") and (Path(a).exists() or _shipped(a)):
            return a
    for k, a in enumerate(rest[:-1]):
        if a in ("--out", "-o"):
            return rest[k + 1]
    return None


def _unmake(folders: list[str]) -> None:
    """After a failure, remove the output folders the command made (checked before the work: ``generate --from
    SKETCH --out new`` made new, then found the sketch cannot be completed) that are still empty; one that holds
    anything, or that was there before, is kept."""
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


#: the options whose value is a file or folder a command writes, not one it reads
OUTPUT_OPTIONS = frozenset({"-o", "--out", "--output", "--puzzle", "--plot", "--replay", "--cache-dir"})


def _extra_meant(message: str, command) -> str:
    """For click's "Got unexpected extra argument (fauna)", the option that takes such a word where the command has
    one: a chapter is ``--chapter fauna`` (``mapgen maps fauna``), a terrain ``--target Ft`` (``mapgen solve MAP
    --probabilities Ft``, as ``render`` takes it). Else nothing."""
    got = re.match(r"Got unexpected extra arguments? \((\S+)", message)
    if got is None or command is None:
        return ""
    word = got.group(1).rstrip(")")
    opts = {o for p in command.params for o in getattr(p, "opts", ())}
    from mapgen.cli.options import chapter_names  # deferred: the registry, only for this refusal

    if "--chapter" in opts and word.lower() in chapter_names():
        return f": a chapter is named with --chapter {word.lower()}"
    if "--target" in opts:
        from mapgen.terrain import Terrain  # deferred: only for this refusal

        try:
            code = Terrain.from_code(word).value
        except KeyError:
            return ""
        return f": a terrain is named with --target {code}"
    return ""


def _inputs_of(args: list[str]) -> frozenset[tuple[int, int]]:
    """The files a command line names to read (a MAP, a shipped map's name, --rules, --profile, --show ...), as
    ``mapgen.output.inputs_kept`` holds them: every argument that is a regular file, but the outputs' values."""
    import maps  # deferred: maps, when a command runs (every command's options import it already)
    from mapgen.output import file_identity  # deferred: mapgen.output, when a command runs

    kept = set()
    words = iter(args[1:])
    for word in words:
        if word in OUTPUT_OPTIONS:
            next(words, None)
            continue
        if word.startswith("--") and "=" in word:
            option, _, word = word.partition("=")
            if option in OUTPUT_OPTIONS:
                continue
        elif word == "-":  # a map piped in: the file behind it (``solve - -o p.toml --force < p.toml``) is kept
            identity = _stdin_identity()
            if identity is not None:
                kept.add(identity)
            continue
        elif word.startswith("-"):
            continue
        try:
            identity = file_identity(maps.resolve(word))
        except (OSError, ValueError):  # a name too long for a file, a NUL byte: no file, nothing to keep
            continue
        if identity is not None:
            kept.add(identity)
    return frozenset(kept)


def _stdin_identity() -> tuple[int, int] | None:
    """The regular file redirected to standard input (``< puzzle.toml``) as (device, inode), else None."""
    try:
        st = os.fstat(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):  # no stdin, or a test's stream with no file behind it
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def _shipped(name: str) -> bool:
    try:
        import maps  # deferred: maps reads the chapters; only for an interrupted command's message

        return name in maps.names()
    except Exception:  # noqa: BLE001 - only a guess for the message
        return False


@click.group("mapgen", cls=MapgenGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mapgen")
def main():
    """Generate, validate, solve, deduce, playtest and render Corps of Discovery maps.

    MAP arguments take a map file, the name of a shipped map (fauna-1, flora-3, ...: mapgen maps lists them) or -,
    a map piped in (mapgen deduce fauna-1 --puzzle - | mapgen solve -).

    Exit codes, for every command: 0 success; 1 a rule broken, no completion or an impossible
    request; 2 unreadable or invalid input (a map, profile, rules or replay file, an output file
    that exists without --force or cannot be written); 3 a time limit ran out; 130 interrupted
    (Ctrl-C). Errors are one line on stderr: "error: FILE: what is wrong".
    """
