"""Arguments and options shared by the commands: one map type, one way to say --json, --force, --seed ...

Choices come from the registries (bots: ``mapgen.engine.bots.BOTS``; chapters: ``constraints.catalogue.chapter_names()``).
Heavy modules are imported inside the converters, when a command runs, never when this module is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import click

import maps
from constraints.catalogue import Chapter, check_map, get_chapter, load_chapter, misfit, with_every_hill_number
from constraints.catalogue import chapter_names as registry_names
from mapgen.cli.errors import JSON_ASKED, BadInput, RuleBroken
from mapgen.engine.variants import VARIANTS
from mapgen.inputs import STDIN, Unreadable, near_name, read_stdin
from mapgen.mapfile import NOT_MAP_TEXT, MapFileError, cell_code, comment_lines, parse_map, read_map_text
from mapgen.model import Map, WrongMapError, expect_map
from mapgen.terrain import Terrain
from mapgen.validate import made_under
from maps import resolve

#: TOML integers are signed 64-bit: the largest seed a map file or a report can record
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class MapInput:
    """A map given on the command line: as the user wrote it (``fauna-1``) and as read."""

    source: str
    map: Map
    #: the lines of the file that hold a TOML comment (``comment_lines``): a map written from it keeps none of them
    comments: tuple[int, ...] = ()


def typed(name: str) -> bool:
    """Whether the option behind parameter ``name`` was given on the command line (not left at its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source is click.core.ParameterSource.COMMANDLINE


def map_path(spec: str) -> str:
    """The file for a map argument: the path as given, or a shipped map's file for its name (``fauna-1``). A shipped
    name with a map file of that name here (``mapgen generate -c fauna --seed 2 > fauna-2.toml``, then ``mapgen
    solve fauna-2``) is the shipped map, said in a note on stderr with the file's name to give instead."""
    path = resolve(spec)
    beside = Path(f"{spec}.toml")
    if path != spec and beside.is_file():
        click.echo(f"note: {spec} is the shipped map {spec}; for the file here, give {beside}", err=True)
    return path


def unknown_map_name(spec: str, path: str) -> str | None:
    """The problem with a map argument that is neither a file nor a shipped map's name, else None."""
    if not maps.names_nothing(spec, path):
        return None
    return f"no such file, and no shipped map of that name{maps.unknown(spec, '`mapgen maps` lists them')}"


def told_map_problem(problem: str) -> str:
    """A map file's problem as the command line tells it: a file (or a map piped in) holding only a shipped map's
    name gets the hint to give that name instead."""
    word = problem.partition(" is not a map file's text")[0].strip("'")
    if problem == NOT_MAP_TEXT.format(line=word) and word in maps.names():  # a shipped map's name in a file
        return f"{problem}; for the shipped map, give its name instead: {word}"
    return problem


def load_map(spec: str, *, complete: bool = False, valid: bool = False, command: str = "this command") -> MapInput:
    """Read a map argument; MapFileError/BadInput (exit 2) when unreadable or partial, RuleBroken (exit 1) when it
    breaks a rule of its chapter (only with ``valid``)."""

    try:
        if spec == STDIN:  # a map piped in: mapgen deduce m.toml --puzzle - | mapgen solve -
            try:
                text = read_stdin("map file")
            except Unreadable as e:
                raise BadInput(spec, str(e)) from None
            m = parse_map(text, spec, from_file=True)
        else:
            path = map_path(spec)
            problem = unknown_map_name(spec, path)
            if problem:
                raise BadInput(spec, problem)
            text, m = read_map_text(path)  # the text kept: its comments are noted where a map is written from it
    except MapFileError as e:
        told = told_map_problem(e.problem)
        if told != e.problem:
            raise MapFileError(e.source, told) from None
        raise
    return checked_map(MapInput(spec, m, comment_lines(text)), complete=complete, valid=valid, command=command)


def comments_note(map_in: MapInput) -> str | None:
    """The note for a command that writes a map made from ``map_in`` (repair, generate --from): the file's comments
    are not in it (a map file is written afresh from its fields), said with their lines; None for a file without."""
    n = map_in.comments
    if not n:
        return None
    lines = f"line{'s' if len(n) > 1 else ''} {', '.join(map(str, n))}"
    them = ("comments", "are", "them") if len(n) > 1 else ("comment", "is", "it")
    return (
        f"note: {map_in.source}: its {them[0]} ({lines}) {them[1]} not kept in the map written: "
        f"copy {them[2]} over by hand"
    )


def checked_map(
    map_in: MapInput,
    *,
    complete: bool = False,
    valid: bool = False,
    command: str = "this command",
    chapter: Chapter | None = None,
):
    """``map_in`` when it is complete (with ``complete``) and keeps every rule (with ``valid``): load_map's checks,
    for a command that decides after reading its options (``deduce --puzzle`` takes a partial map too).
    ``chapter``: the rules it must keep (the --rules house chapter, ``rules_for``; default: the map's)."""
    spec, m = map_in.source, map_in.map
    if complete:
        try:
            expect_map(m, command, complete=True)
        except WrongMapError as e:
            raise BadInput(spec, str(e)) from None
    if chapter is not None:
        rules_for(map_in, chapter)  # a map of another chapter than the rules': exit 2, in validate's words
    if valid:
        broken = check_map(m, chapter)
        if broken:
            n = len(broken)
            # the rest are violations, not rules: my-map.toml's 4 break 2 rules (C9 twice, F2 twice)
            rest = list(dict.fromkeys(v.rule for v in broken[1:]))
            rules = f"rule{'s' if len(rest) > 1 else ''} {', '.join(rest)}"
            more = f", and {n - 1} more violation{'s' if n > 2 else ''} ({rules})" if n > 1 else ""
            under, see, hint = house_words(m, chapter)
            error = RuleBroken(
                spec,
                f"not a valid {m.chapter} map{under}: it breaks {broken[0]}{more}; see `mapgen validate{see}`{hint}",
            )
            # what --json's failure document names (mapgen.cli.errors.json_failure): the rules broken and where
            error.rules = tuple(dict.fromkeys(v.rule for v in broken))  # type: ignore[attr-defined]
            error.cells = tuple(dict.fromkeys(c for v in broken for c in v.cells))  # type: ignore[attr-defined]
            raise error
    return map_in


class MapType(click.ParamType):
    """A map file or the name of a shipped map (``fauna-1``), read when the command starts."""

    name = "map"

    def __init__(self, *, complete: bool = False, valid: bool = False, partial: str = ""):
        self.complete = complete
        self.valid = valid
        self.partial = partial  # with complete: what a partial map given here is told, after "needs a complete map"

    def convert(self, value, param, ctx):
        if isinstance(value, MapInput):
            return value
        command = f"mapgen {ctx.info_name}" if ctx is not None and ctx.info_name else "this command"
        map_in = load_map(value, command=command)
        try:
            return checked_map(map_in, complete=self.complete, valid=self.valid, command=command)
        except BadInput as e:
            if not self.partial or map_in.map.complete:
                raise
            raise BadInput(e.subject, f"{e.problem} ({self.partial})") from None


def map_argument(name: str = "map_in", *, complete: bool = False, valid: bool = False, **kw):
    """``MAP``: a map file or a shipped map's name; the command receives a ``MapInput``."""
    metavar = "MAP..." if kw.get("nargs") == -1 else "MAP"  # several maps: the usage line says so
    return click.argument(name, metavar=metavar, type=MapType(complete=complete, valid=valid), **kw)


#: what a file option given ``-`` is told: standard input is a MAP's (``chapters fauna -o - | validate --rules -``
#: said "-: no such file" with the rules piped in)
NOT_STDIN = "- is standard input, which only a MAP reads: name a file"


class InName(click.ParamType):
    """An input file's name as given, other than a MAP's: ``-`` is refused (``NOT_STDIN``)."""

    name = "file"

    def convert(self, value, param, ctx):
        if value == STDIN:
            self.fail(NOT_STDIN, param, ctx)
        return value


class RulesType(InName):
    """A house-rule chapter file, loaded (ChapterError, exit 2, when it cannot be used)."""

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        value = super().convert(value, param, ctx)  # ``-`` refused
        if ctx is not None:  # the file as given: an impossible set of its rules names it (``generate``)
            ctx.meta[RULES_FILE] = value
        return load_chapter(value)  # ChapterError (exit 2): no such file, a symlink loop, too large, ...


class HouseRulesType(InName):
    """``serve --rules``, which takes several: a house-rule chapter file, loaded, with the file as given
    (``(FILE, Chapter)``; ChapterError, exit 2, when it cannot be used)."""

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        value = super().convert(value, param, ctx)  # ``-`` refused
        return value, load_chapter(value)


#: Where ``RulesType`` keeps the --rules file as given, in the command's context (``rules_file``).
RULES_FILE = "mapgen.rules_file"


def rules_file() -> str | None:
    """The --rules file as the user wrote it (None without --rules, or outside a command)."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get(RULES_FILE)


def house_words(m: Map, rules: Chapter | None) -> tuple[str, str, str]:
    """How a message about the rules ``m`` breaks names the house rules: " under the house rules of FILE" and
    " --rules FILE" for `mapgen validate` with --rules; without them, for a map that records the house rules it
    was made under (``made_under``), the hint to give them (validate's note, in one line)."""
    house = rules_file() if rules is not None else None
    made = made_under(m)
    if house and rules is not None:
        return f" under the house rules of {house}", f" --rules {house}", _other_rules(made, rules, house)
    made = made if rules is None else None
    return "", "", f" (it was made under the house rules of {made['rules']}: give --rules FILE)" if made else ""


def _other_rules(made: dict | None, rules: Chapter, house: str) -> str:
    """For a map asked under --rules FILE that records other house rules it was made under (another fingerprint):
    both named, as validate's note names them; else ""."""
    if made is None:
        return ""
    from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for such a map

    given, fingerprint = chapter_fingerprint(rules), made["fingerprint"]
    if given == fingerprint:
        return ""
    shown = f" (fingerprint {fingerprint})" if fingerprint else ""
    return f" (it was made under the house rules of {made['rules']}{shown}, not those of {house} (fingerprint {given}))"


def rules_for(map_in: MapInput, rules: Chapter | None) -> Chapter:
    """The chapter a question about ``map_in`` is asked under: the --rules house chapter, else the map's own.
    A map of another chapter than the rules' is BadInput (exit 2), in the words ``mapgen validate`` gives."""
    if rules is None:
        return get_chapter(map_in.map.chapter)
    problem = misfit(map_in.map, rules)
    if problem:
        raise BadInput(map_in.source, problem)
    return rules


def house_chapter(rules: Chapter, chapter_name: str | None) -> str:
    """The chapter a --rules file's new maps are made for (its ``name``): BadInput (exit 2) when -c names another
    chapter, or when it names no shipped chapter (a map file names its chapter, and only a shipped one reads back)."""
    if chapter_name is not None and chapter_name.lower() != rules.name:
        reject("--rules", f"a chapter file of {rules.name}, but --chapter is {chapter_name.lower()}")
    if rules.name not in registry_names():
        reject(
            "--rules",
            f"a generated map names its chapter, and {rules.name!r} is no shipped chapter "
            f"({', '.join(registry_names())}): keep name the chapter the house rules vary",
        )
    return rules.name


def json_option(f, help: str = "Print JSON for machines instead of a report."):
    """``--json``; given, a failure with exit 1 or 3 that printed no report prints its error as JSON on stdout
    (``mapgen.cli.errors.json_failure``), so a script reading stdout always has one document to parse."""
    return click.option("--json", "as_json", is_flag=True, callback=_json_asked, help=help)(f)


def _json_asked(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[JSON_ASKED] = value  # ctx.meta is shared by the group's context, where failures are reported
    return value


def variant_option(played: str):
    """``--variant NAME`` (repeatable) of ``playtest`` and ``grade``: a named variant ``played`` are played under
    (``mapgen/engine/variants.py``); a name no variant has is exit 2 here, a variant of another chapter the game's
    GameError (exit 1), named by ``about_settings``."""

    def deco(f):
        return click.option(
            "--variant",
            "variants",
            multiple=True,
            type=NearChoice(sorted(VARIANTS)),
            help=f"A named variant {played} are played under (repeatable): another reading of an ambiguous rule, or "
            "a house rule (mapgen/engine/README.md quotes the rulebook for each). Default: the rulebooks' literal "
            "reading.",
        )(f)

    return deco


def rules_option(f):
    return click.option(
        "--rules",
        "rules",
        type=RulesType(),
        default=None,
        help="A house-rule chapter file (TOML, same shape as constraints/chapters/*.toml).",
    )(f)


def force_option(what: str, *, several: bool = False):
    def deco(f):
        exists = "they exist" if several else "it exists"
        return click.option("--force", is_flag=True, help=f"Overwrite {what} if {exists}.")(f)

    return deco


def force_unused(force: bool, outputs: tuple[str | None, ...], names: str) -> None:
    """One note on stderr where ``--force`` is given but the command writes no file this time (each of its
    ``outputs`` not given, or ``-``: stdout): "--force has no effect without --out" (it said nothing, as if it had
    done something). The command goes on as without it."""
    if force and all(o is None or o == "-" for o in outputs):
        click.echo(f"note: --force has no effect without {names}", err=True)


class OutName(click.Path):
    """An output file's or folder's name as given (``kind``: "file" or "folder"). An empty one, a script's unset
    variable (``--out "$DIR"``), is refused: ``generate --out ''`` wrote into the current folder, ``playtest --replay
    ''`` saved nothing without a word, and a file's refusal named no file (``error: : is a folder``). A folder's
    ``-`` too: it is standard output wherever one file is written, and ``generate --out -`` made a folder ``-``."""

    def __init__(self, kind: str = "file", **path):
        super().__init__(readable=False, **path)  # only the name is checked here; mapgen.output checks the rest
        self.kind = kind

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            where = " (. is the current folder)" if self.kind == "folder" else ""
            self.fail(f"an empty {self.kind} name{where}", param, ctx)
        if self.kind == "folder" and value == "-":  # -o - prints one file; a folder of them has no stdout
            self.fail("- is standard output, not a folder: name a folder (./- for one named -)", param, ctx)
        return super().convert(value, param, ctx)


class Listed(click.ParamType):
    """A list option's text as given (``--characters``, ``--gear``): an empty one, a script's unset variable, is
    refused: ``playtest --characters ""`` played the default team without a word."""

    name = "TEXT"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("an empty list (leave the option out for the default)", param, ctx)
        return value


class FiniteRange(click.FloatRange):
    """A float within a range, never NaN (which every comparison lets through) nor infinite."""

    def _describe_range(self) -> str:
        # no bounds (a check of its own later, pack --cell-mm): click would describe it as "x<=None" in the help
        return "" if self.min is None and self.max is None else super()._describe_range()

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value} is not a finite number.", param, ctx)
        return number


class Share(FiniteRange):
    """A share from 0 to 1, or the same as a percentage (``0.2`` or ``20%``), as ``--win-rate`` takes its band:
    ``--max-walled-in 20%`` said "'20%' is not a number" beside ``--win-rate 25%-60%``."""

    def __init__(self):
        super().__init__(0, 1)

    def convert(self, value, param, ctx):
        if not (isinstance(value, str) and value.strip().endswith("%")):
            return super().convert(value, param, ctx)
        try:
            number = float(value.strip()[:-1]) / 100
        except ValueError:
            self.fail(f"{value!r} is not a share (0.2) or a percentage (20%)", param, ctx)
        if not (math.isfinite(number) and 0 <= number <= 1):
            self.fail(f"{value} is not in the range 0<=x<=1 (0% to 100%)", param, ctx)
        return number


def time_limit_option(default: float | None, *, minimum: float = 0.1, help: str = "Seconds allowed."):
    def deco(f):
        return click.option(
            "--time-limit",
            type=FiniteRange(minimum, 86_400),
            default=default,
            show_default=default is not None,
            help=help + " When it runs out: exit 3.",
        )(f)

    return deco


def seed_option(default: int | None = 0, *, help: str = "Seed: same seed, same result.", short: bool = True):
    def deco(f):
        names = ("--seed", "-s") if short else ("--seed",)
        return click.option(
            *names, type=click.IntRange(0, MAX_SEED), default=default, show_default=default is not None, help=help
        )(f)

    return deco


def jobs_option(help: str = "Local processes (0: one per core)."):
    def deco(f):
        return click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(0, 256), help=help)(f)

    return deco


def chapter_names() -> list[str]:
    return list(registry_names())


def chapter_option(*names: str, **kw):
    def deco(f):
        return click.option(
            *(names or ("--chapter", "-c")),
            "chapter_name",
            type=NearChoice(chapter_names(), case_sensitive=False),
            **kw,
        )(f)

    return deco


class NearChoice(click.Choice):
    """A ``click.Choice`` whose refusal names the nearest choice: "'heuristc' is not one of ... (did you mean
    heuristic?)", as a misspelt map name does. Any case is taken (``--bot Heuristic``), as chapters, grades and
    terrain codes are: it said "did you mean heuristic?"."""

    def __init__(self, choices, case_sensitive: bool = False):
        super().__init__(choices, case_sensitive=case_sensitive)

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as e:
            near = near_name(value, self.choices) if isinstance(value, str) else None
            if near is not None:
                e.message = f"{e.message.rstrip('.')} (did you mean {near}?)."
            raise


def bot_names() -> list[str]:
    from mapgen.engine.bots import BOTS  # deferred: the bots import ortools; only for commands that take --bot

    return list(BOTS)


def bot_option(f):
    return click.option(
        "--bot", "-b", default="heuristic", show_default=True, type=NearChoice(bot_names()), help="Who plays."
    )(f)


def out_file(path: str | None, *, force: bool) -> None:
    """Check an output file before the work starts (OutputError, exit 2): folder exists and takes files, and
    nothing is there unless --force."""
    if path is not None:
        from mapgen.output import (  # deferred: mapgen.output (tempfile, shutil), only for commands that write a file
            check_file,
        )

        check_file(path, force=force)


def map_out_file(path: str | None, *, force: bool) -> None:
    """A map file to write (``repair -o``, ``deduce --puzzle``): named ``.toml``, then checked as ``out_file``.
    A ``--puzzle puzzle.png`` asked for a picture and got a map file named ``.png``."""
    suffix = "" if path is None else Path(path).suffix.lower()
    if path is not None and suffix != ".toml":
        picture = " (a picture of it: mapgen render)" if suffix in (".png", ".svg", ".pdf") else ""
        raise BadInput(path, f"a map file is TOML; name the file .toml{picture}")
    out_file(path, force=force)


def reveal_option(f):
    return click.option(
        "--reveal",
        metavar="CELLS",
        default=None,
        help="Ask about MAP as a table sees it: every cell hidden but these, comma-separated: A7 (its terrain in "
        "MAP), A7=Wa (this terrain; a Hill with its number, G7=Hi1), or none (the board before the first reveal).",
    )(f)


def revealed_input(map_in: MapInput, cells: str | None, chapter: Chapter | None = None) -> MapInput:
    """``map_in`` with only the ``--reveal`` cells shown (None: as read). A cell named alone takes MAP's terrain
    (a cell MAP hides needs its terrain given); ``CELL=CODE`` sets it, a terrain of ``chapter`` (the --rules
    house chapter; default: the map's). BadInput (exit 2) names the item."""
    if cells is None:
        return map_in
    m = map_in.map
    board = m.board
    shown: dict[int, Terrain | None] = {}
    hills: dict[int, int] = {}
    if not cells.strip():
        reject("--reveal", "name cells like A7,B7 or A7=Wa, or none for the empty board")
    items = [] if cells.strip().lower() == "none" else [i.strip() for i in cells.split(",")]
    chapter = chapter or get_chapter(m.chapter)
    m = with_every_hill_number(m, chapter)  # a revealed Hill shows its number, also where the file writes `Hi`
    for item in items:
        name, given, code = item.partition("=")
        name, code = name.strip(), code.strip()
        if not item:  # a trailing comma (a script's list), or two together
            reject("--reveal", f"an empty cell name in {cells!r} (a comma too many?): name cells like {_pair(board)}")
        if not name:
            reject("--reveal", f"{item!r}: a cell name first, like A7 or A7=Wa")
        if name.lower() == "none":  # none,A7: the empty board is asked alone
            reject("--reveal", "none is the board before the first reveal, alone: name cells, or none")
        try:
            i = board.index(name)
        except ValueError as e:
            apart = any(ch.isspace() or ch == ";" for ch in name)  # a list typed with spaces or semicolons
            reject("--reveal", f"{e}: separate cells with commas, like {_pair(board)}" if apart else str(e))
        if i in shown:
            reject("--reveal", f"{board.name(i)} is named twice")
        if given:
            if code in ("", ".."):  # hidden is what a cell not named is
                reject("--reveal", f"{item}: give a terrain code after '=', like {board.name(i)}=Wa")
            try:
                terrain, number = cell_code(code, f"for {board.name(i)}", chapter.listed)
                if terrain is not None:
                    chapter.terrain(terrain.code)  # one this chapter's maps hold
            except ValueError as e:
                reject("--reveal", str(e))
        else:
            terrain, number = m.cells[i], m.hills.get(i)
            if terrain is None:
                reject(
                    "--reveal",
                    f"{board.name(i)} is hidden in {map_in.source}: give its terrain, like {board.name(i)}=Wa",
                )
        shown[i] = terrain
        if number is not None:
            hills[i] = number
    state = m.with_cells((shown.get(i) for i in range(board.size)), hills)
    return MapInput(map_in.source, state, map_in.comments)


def _pair(board) -> str:
    """Two cells of ``board``'s start column as ``--reveal`` writes them: ``A7,B7`` (Training: ``B7,C7``)."""
    column = [n for n in board.names if n.endswith(board.names[-1][1:])]
    return f"{column[0]},{column[1]}"


def reject(option: str, problem: str):
    """An option value that cannot be used: exit 2 with ``error: OPTION: problem``."""
    raise BadInput(option, problem)


def kernels_ready(timed: bool = True) -> None:
    """Before a timed question that may sample or estimate: on a fresh install the sampler's and the counter's
    loops compile on first use (about half a minute of CPU, once: 31-36 CPU s measured on the project's 2-core
    machine); say so, in words a player reads (how long, that it is once, that --time-limit does not pay for it),
    and compile them now, outside the time limit (``timed``: the command has a --time-limit; ``serve`` has none)."""
    from mapgen.solving.solve import ensure_kernels  # deferred: ortools, when asked

    note = FIRST_USE.format(", not counted in --time-limit" if timed else "")
    ensure_kernels(lambda: click.echo(note, err=True))


#: What a first question on a fresh install says before it compiles the loops (``kernels_ready``).
FIRST_USE = "first use: compiling the sampler's loops (about half a minute, once: later runs skip it{})…"


def cache_note(file: str) -> None:
    """After a question's answer: when a circuit it compiled could not be kept (a read-only or full cache folder),
    one note on stderr saying so and why, as `mapgen compile` says it; the answer stands, but every later question
    compiles the state again and nothing else would say why it never gets faster."""
    from mapgen.solving.solve import default_store  # deferred: ortools, loaded already by the commands that ask

    cache = default_store().cache
    why = cache.not_stored if cache is not None else None
    if why and why.startswith("not cached: "):  # the system's error, not the size cap (a very large circuit)
        click.echo(f"note: {file}: the compiled circuit was {why}", err=True)
