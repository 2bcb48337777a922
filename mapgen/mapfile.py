"""Reading and writing map files (RULES.md §7): TOML with a terrain grid, human-editable."""

from __future__ import annotations

import os
import re

from constraints.catalogue import BRIEFING_FIELDS, ChapterError, get_chapter, unknown_chapter
from mapgen.board import Board, CellError
from mapgen.errors import InputError
from mapgen.inputs import (
    MAX_TEXT,
    Unreadable,
    a_kind,
    did_you_mean,
    parse_json,
    parse_toml,
    read_text,
    text_problem,
    unknown_key,
)
from mapgen.model import START_COLUMN, Briefing, Map, Pattern, expect_map
from mapgen.terrain import Terrain, quantity

KNOWN_FIELDS = ("chapter", "number", "name", "peak", "start", "fort_pattern", "greek_fire", "terrain")
#: tables mapgen itself writes into a map file and keeps on a round trip (Map.meta): how it was generated, graded
RECORD_FIELDS = ("generator", "grade")
#: a map's number, as a seed (mapgen.batch.MAX_SEED): what a TOML integer holds, never negative
MAX_NUMBER = 2**63 - 1
#: the key a ``[generator]`` table gets once its map is edited by hand (``edited_by_hand``): its seed and profile made
#: the map as it was, not as it is
EDITED = "edited"
#: the longest text in a record table (a grade's flag names cells and reasons: 181 characters in maps/)
MAX_RECORD_TEXT = 2000
_HILL = re.compile(r"^hi(\d+)$", re.IGNORECASE | re.ASCII)
_HILL_DIGITS = 2  # a Hill counts at most 12 cells (its row plus its column)
_NUMBERED = re.compile(r"^([a-z]{2})\d+$", re.IGNORECASE | re.ASCII)  # `Wa3`: a number on what is no Hill
_SHOWN = 40  # the most of a wrong value's text an error message repeats


class MapFileError(InputError, ValueError):
    """A map file that cannot be read; the message names the file and what is wrong."""

    def __init__(self, source: str | None, problem: str):
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}" if source else problem)


def read_map(path: str | os.PathLike) -> Map:
    """Read a map file; raises MapFileError for anything unreadable (mapgen.inputs: size, encoding, nesting), and
    TypeError for a path that is no str or Path (a number would be read as a file descriptor, then closed)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"read_map takes a map file's path (a str or a Path), not {a_kind(path)}: "
            'maps.load("fauna-1") reads a shipped map by name, parse_map(text) a map file\'s text'
        )
    return read_map_text(path)[1]


def read_map_text(path: str | os.PathLike) -> tuple[str, Map]:
    """``read_map``'s reading, with the file's text beside the map (its comments: ``comment_lines``)."""
    source = str(path)
    try:
        text = read_text(path, "map file")
    except Unreadable as e:
        raise MapFileError(source, str(e)) from None
    return text, parse_map(text, source, from_file=True)


#: what a file of one word (``fauna-1``) is told: it is no map file (a map file's first line has a key = value)
NOT_MAP_TEXT = "{line!r} is not a map file's text (a map file holds chapter, peak and terrain fields)"


def parse_map(text: str, source: str | None = None, *, from_file: bool = False) -> Map:
    """Parse map file text (``read_map(path)`` reads a file); raises MapFileError (and nothing else) on bad input.
    ``from_file``: the text is a file's (read_map, a map piped in), so one word in it is told as a file's content,
    not as a path given where text belongs."""
    if not isinstance(text, str):
        raise TypeError(f"parse_map takes a map file's text (a str), not {a_kind(text)}: read_map(path)")
    try:
        data = parse_toml(text)  # a BOM (editors on Windows) is allowed
    except Unreadable as e:
        json_problem = _json_problem(text, source)
        if json_problem:
            raise MapFileError(source, json_problem) from None
        line = text.strip()
        if line and "\n" not in line and "=" not in line and from_file:  # one word in a file: no map file
            raise MapFileError(source, NOT_MAP_TEXT.format(line=line)) from None
        if line and "\n" not in line and "=" not in line:  # a file's path or a shipped map's name, not a file's text
            raise MapFileError(
                source,
                f"{line!r} is not a map file's text: read_map(path) reads a file, maps.load(name) a shipped map",
            ) from None
        raise MapFileError(source, str(e)) from None
    if not data:  # an empty file, or one of comments only: "missing field 'chapter'" would hide that
        raise MapFileError(source, "the file holds no fields (a map file needs chapter, peak and terrain)")
    try:
        return _from_data(data)
    except (ValueError, CellError) as e:
        raise MapFileError(source, str(e)) from None


def comment_lines(text: str) -> tuple[int, ...]:
    """The numbers (from 1) of the lines of a map file's text that hold a TOML comment: a ``#`` outside every
    string. mapgen writes a map file afresh from its fields (``dumps_map``), so a repaired or filled map keeps none
    of them; the commands that write one say so."""
    found = []
    closing = None  # the three quotes that close the multi-line string the line starts in, if any
    for n, line in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        k = 0
        while k < len(line):
            if closing is not None:
                end = line.find(closing, k)
                if end < 0:
                    break
                k, closing = end + 3, None
                continue
            ch = line[k]
            if ch == "#":
                found.append(n)
                break
            if line.startswith(('"""', "'''"), k):
                closing, k = line[k : k + 3], k + 3
            elif ch in "\"'":  # a one-line string: to its closing quote (a basic string's \" escaped)
                k += 1
                while k < len(line) and line[k] != ch:
                    k += 2 if ch == '"' and line[k] == "\\" else 1
                k += 1
            else:
                k += 1
    return tuple(found)


def _json_problem(text: str, source: str | None) -> str | None:
    """What to say of a JSON document given as a map file ("not valid TOML (Invalid statement ...)" said nothing
    of it), pointing ``mapgen deduce --json``'s report at the command that draws it; None for text that does not
    start as JSON does."""
    if not text.lstrip("\ufeff \t\r\n").startswith("{"):  # no TOML document starts so
        return None
    try:
        data = parse_json(text)
    except Unreadable:
        data = None
    said = "a JSON file, not a map file (a map file is TOML, as mapgen generate, repair or deduce --puzzle write it)"
    if isinstance(data, dict) and "reveal_set" in data:  # deduce --json's report
        said += "; it looks like `mapgen deduce --json`'s report"
        if "profile" in data:
            said += f": `mapgen render {source or 'FILE'} --profile -o profile.png` draws its reveal profile"
        else:
            said += " (made with --no-profile: it holds no reveal profile to draw)"
    return said


def _require(data: dict, key: str, kind: type, what: str):
    if key not in data:
        raise ValueError(f"missing field '{key}'")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"field '{key}' must be {what}, not {_shown(value)}")  # noqa: TRY004 - MapFileError wraps ValueError
    return value


def _shown(value) -> str:
    """A wrong value as a message repeats it: an array or a table by its kind (its whole text could be a map's
    worth), a scalar as written, cut short past _SHOWN characters."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _cell(data: dict, key: str, board: Board) -> int:
    value = _require(data, key, str, "a cell name like E3")
    try:
        return board.index(value)
    except CellError as e:
        raise ValueError(f"field '{key}': {e}") from None


#: keys of the other TOML files mapgen reads, none of them a map file's: a design profile's, a chapter file's
PROFILE_ONLY = ("reachable", "counts", "quality")
CHAPTER_ONLY = ("terrains", "rules", "rule", "board")


def _other_kind(data: dict) -> str | None:
    """What a file given as a map is when it is another of mapgen's files (it said "unknown field 'reachable'"),
    with where it goes, as a map given to ``--rules`` is told; None for what may be a map file."""
    if "terrain" in data:
        return None
    if "chapter" not in data and "name" in data and any(k in data for k in CHAPTER_ONLY):
        return "a chapter file, not a map file (it says name = ..., terrains and rules): --rules takes it"
    if any(k in data for k in PROFILE_ONLY):
        return "a design profile, not a map file (it has no terrain): mapgen generate --profile takes it"
    return None


def _from_data(data: dict) -> Map:
    other = _other_kind(data)
    if other is not None:
        raise ValueError(other)
    unknown = unknown_key(data, KNOWN_FIELDS + RECORD_FIELDS)
    if unknown is not None:  # a typo (`colour`, `fortpattern`) would otherwise be kept and silently ignored
        known = KNOWN_FIELDS + RECORD_FIELDS  # `Peak` or `fortpattern` names the field meant, as `--chapter faun` does
        raise ValueError(
            f"unknown field {unknown!r}{did_you_mean(unknown, known)} (map files have: {', '.join(known)})"
        )
    for table in RECORD_FIELDS:  # a `name` added below [generator] is that table's key: said, not dropped
        inside = data.get(table)
        field = next((k for k in KNOWN_FIELDS if k in inside), None) if isinstance(inside, dict) else None
        if field is not None:
            raise ValueError(
                f"field '{field}' is inside the [{table}] table (TOML puts every line after [{table}] in that "
                f"table): move it above [{table}]"
            )
    chapter = _require(data, "chapter", str, "a chapter name").strip().lower()
    try:
        spec = get_chapter(chapter)  # the registry says which briefing fields this chapter's maps hold
    except ChapterError:
        raise ValueError(unknown_chapter(data["chapter"])) from None
    board = spec.board
    shown = chapter.title()
    listed = spec.listed  # what an unknown code's message offers
    for key in BRIEFING_FIELDS:
        if key in data and key not in spec.briefing and not (key == "start" and _is_start_column(data[key])):
            if key == "start":  # the chapter starts on the river: the field may only say so
                raise ValueError(
                    f"field 'start': {shown} maps start on {START_COLUMN} (start = \"{START_COLUMN}\" or no start),"
                    f" not {data[key]!r}"
                )
            raise ValueError(f"field '{key}' is not part of a {shown} briefing")
    peak = _cell(data, "peak", board)
    start = None
    if "start" in data:
        raw = _require(data, "start", str, f'"{START_COLUMN}" or a cell name')
        if not _is_start_column(raw):
            start = _cell(data, "start", board)
    if "start" in spec.required and start is None:
        raise ValueError(f"{shown} maps need 'start' to be the cell of the start Fort, like D7")
    pattern = None
    if "fort_pattern" in data:
        pattern = parse_pattern(_require(data, "fort_pattern", str, "text: rows of terrain codes"), listed)
    elif "fort_pattern" in spec.required:
        raise ValueError(f"missing field 'fort_pattern' ({shown}'s mini map)")
    greek_fire = _cell(data, "greek_fire", board) if "greek_fire" in data else None
    if greek_fire is None and "greek_fire" in spec.required:
        raise ValueError("missing field 'greek_fire'")
    number = _require(data, "number", int, "a whole number") if "number" in data else None
    if number is not None and not 0 <= number <= MAX_NUMBER:
        raise ValueError(f"field 'number' must be from 0 to {MAX_NUMBER} (as a seed), not {number}")
    name = _require(data, "name", str, "text") if "name" in data else None
    if name is not None and (wrong := text_problem(name, MAX_TEXT)):
        raise ValueError(f"field 'name' {wrong}")
    for key in RECORD_FIELDS:
        _check_record(data.get(key), key)
    terrain = _require(data, "terrain", str, "text: rows of terrain codes")
    cells, hills = parse_terrain(terrain, board, listed=listed)
    meta = {k: v for k, v in data.items() if k not in KNOWN_FIELDS}
    briefing = Briefing(peak=peak, start=start, fort_pattern=pattern, greek_fire=greek_fire, number=number, name=name)
    return Map(chapter=chapter, briefing=briefing, cells=cells, hills=hills, meta=meta, board=board)


def _check_record(value, where: str) -> None:
    """Every string in a record table (``[grade]``, ``[generator]``: a folder's cover prints its tier) is one
    line of at most MAX_RECORD_TEXT characters."""
    stack = [(value, where)]
    while stack:  # nesting is bounded by mapgen.inputs.MAX_DEPTH already
        item, path = stack.pop()
        if isinstance(item, str) and (wrong := text_problem(item, MAX_RECORD_TEXT)):
            raise ValueError(f"field '{path}' {wrong}")
        if isinstance(item, dict):
            stack.extend((v, f"{path}.{k}") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, path) for v in item)


def _is_start_column(value) -> bool:
    return isinstance(value, str) and value.strip().lower() == START_COLUMN


def cell_code(token: str, where: str, codes: str = "") -> tuple[Terrain | None, int | None]:
    """A cell's code as a map file writes it (``Wa``, ``Hi2``, ``..``): its terrain and Hill number; ValueError
    naming ``where`` (a cell, or a place in the mini map) and what the author likely meant: ``codes`` are the codes
    to list when nothing closer fits."""
    if token == "..":
        return None, None
    m = _HILL.match(token)
    if m:
        if len(m.group(1)) > _HILL_DIGITS:
            raise ValueError(f"Hill number {token!r} {where} is too large (a Hill counts at most 12 cells)")
        return Terrain.HILL, int(m.group(1))
    try:
        return Terrain.from_code(token), None
    except KeyError:
        raise ValueError(f"unknown terrain code {token!r} {where} ({_hint(token, codes)})") from None


def _hint(token: str, codes: str) -> str:
    """What an unknown code was probably meant to be."""
    numbered = _NUMBERED.match(token)
    if token.lower().startswith("hi"):
        return "a Hill is Hi, or Hi with its number: Hi2"
    if numbered and numbered.group(1).lower() in {t.code.lower() for t in Terrain}:
        return "only a Hill carries a number, like Hi2"
    if set(token) <= {"."}:
        return "an unrevealed cell is two dots: .."
    return codes or "the codes: " + " ".join(t.code for t in Terrain)


def _not_a_code(tokens: list[str]) -> str | None:
    """The first token that is no terrain code (nor ``..``), if any: what makes a row too long, often."""
    for token in tokens:
        try:
            cell_code(token, "")
        except ValueError:
            return token
    return None


def _is_label(token: str) -> bool:
    """A row letter at the start of a grid line (codes are two letters, so one letter is a label)."""
    return len(token) == 1 and token.isalpha()


def _row_at_fault(lines: list[list[str]], board: Board) -> str:
    """Why a grid has the wrong number of rows, when the lines can tell: a line that is no row (a comment, say),
    or, when every line carries its row letter, the row missing, typed twice or off the board. Empty when only
    the count is known (rows without letters)."""
    for tokens in lines:
        if not _is_label(tokens[0]) and _not_a_code(tokens[:1]) is not None:
            line = " ".join(tokens)
            return f": the line {line if len(line) <= 40 else line[:37] + '...'!r} is no row of terrain codes"
    if not lines or not all(_is_label(tokens[0]) for tokens in lines):
        return ""
    labels = [tokens[0].upper() for tokens in lines]
    for letter in labels:
        if letter not in board.row_letters:
            return f": row {letter} is off the board"
    for letter in board.row_letters:
        if labels.count(letter) > 1:
            return f": row {letter} appears twice"
    missing = [letter for letter in board.row_letters if letter not in labels]
    if missing:
        return (
            f": row{'s' if len(missing) > 1 else ''} {', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing"
        )
    return ""


def parse_terrain(text: str, board: Board, *, listed: str = "") -> tuple[tuple[Terrain | None, ...], dict[int, int]]:
    """Parse the terrain grid; an optional header of column numbers and row letters are checked. An unknown
    code is named by its cell, with ``listed`` (the chapter's codes, in words) when no closer hint fits."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    expected_cols = [str(c) for c in board.col_numbers]
    if lines and all(tok.isdigit() for tok in lines[0]):
        if lines[0] != expected_cols:
            raise ValueError(f"terrain header reads {' '.join(lines[0])}, expected {' '.join(expected_cols)}")
        lines = lines[1:]
    if len(lines) != board.height:
        raise ValueError(
            f"terrain has {len(lines)} rows, expected {board.height} (rows {board.row_letters[0]} to {board.row_letters[-1]})"
            + _row_at_fault(lines, board)
        )
    cells: list[Terrain | None] = []
    hills: dict[int, int] = {}
    for r, tokens in enumerate(lines):
        letter = board.row_letters[r]
        if tokens and _is_label(tokens[0]):
            if tokens[0].upper() != letter:
                raise ValueError(f"terrain row {r + 1} is labelled {tokens[0]}, expected {letter}")
            tokens = tokens[1:]
        if len(tokens) != board.width:
            odd = _not_a_code(tokens)
            raise ValueError(
                f"terrain row {letter} has {quantity(len(tokens), 'cell')}, expected {board.width}"
                + (f" ({odd!r} is no terrain code)" if odd is not None else "")
            )
        for c, token in enumerate(tokens):
            terrain, number = cell_code(token, f"at {board.name(board.rows[r][c])}", listed)
            if number is not None:
                hills[len(cells)] = number
            cells.append(terrain)
    return tuple(cells), hills


def parse_pattern(text: str, listed: str = "") -> Pattern:
    """Parse Fauna's mini map: rows of codes with exactly one Ft; ``..`` is any terrain (``listed``: as in
    parse_terrain)."""
    rows: list[tuple[Terrain | None, ...]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        where = f"in fort_pattern row {len(rows) + 1}"
        row = []
        for tok in line.split():
            terrain, number = cell_code(tok, where, listed)
            if number is not None:  # the mini map is terrains: a number there would be dropped without a word
                raise ValueError(
                    f"Hill number {tok!r} {where}: the mini map holds terrains, not Hill numbers (write Hi)"
                )
            row.append(terrain)
        rows.append(tuple(row))
    if not rows:
        raise ValueError(
            "fort_pattern is empty: a Fauna briefing needs its mini map (rows of codes with one Ft, '..' any)"
        )
    if len({len(row) for row in rows}) != 1:
        raise ValueError("fort_pattern rows have different lengths")
    forts = sum(t is Terrain.FORT for row in rows for t in row)
    if forts != 1:
        raise ValueError(f"fort_pattern must hold exactly one Ft, found {forts}")
    return Pattern(rows=tuple(rows))


def terrain_text(m: Map) -> str:
    """The terrain grid with a header of column numbers and row letters, Hill numbers shown."""
    b = m.board
    lines = ["   " + " ".join(f"{c:<3}" for c in b.col_numbers).rstrip()]
    for r, letter in enumerate(b.row_letters):
        codes = []
        for i in b.rows[r]:
            t = m.cells[i]
            codes.append(".." if t is None else t.code + (str(m.hills[i]) if i in m.hills else ""))
        lines.append(f"{letter}  " + " ".join(f"{code:<3}" for code in codes).rstrip())
    return "\n".join(lines) + "\n"


def dumps_map(m: Map) -> str:
    """The map as file text, fields in a fixed order (so equal maps give equal bytes)."""
    import tomli_w  # deferred: only writers need it, not the readers (`mapgen validate`)

    expect_map(m, "dumps_map")
    b = m.board
    head: dict = {"chapter": m.chapter}
    br = m.briefing
    if br.number is not None:
        head["number"] = br.number
    if br.name is not None:
        head["name"] = br.name
    head["peak"] = b.name(br.peak)
    head["start"] = START_COLUMN if br.start is None else b.name(br.start)
    if br.fort_pattern is not None:
        head["fort_pattern"] = br.fort_pattern.text() + "\n"
    if br.greek_fire is not None:
        head["greek_fire"] = b.name(br.greek_fire)
    scalars = {k: v for k, v in m.meta.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in m.meta.items() if isinstance(v, dict)}
    head.update(scalars)
    head["terrain"] = terrain_text(m)
    head.update(tables)
    return tomli_w.dumps(head, multiline_strings=True)


#: the key of a ``[grade]`` table that records the map it graded (``map_fingerprint``)
GRADED_MAP = "map"


def map_fingerprint(m: Map) -> str:
    """A short hash of what a grade measures of a map: its chapter, briefing (not its ``name`` or ``number``: a folder
    numbers its maps) and cells (a Hill as ``Hi``: its number follows from the cells). A ``[grade]`` table records
    it (``GRADED_MAP``), so a map edited by hand since is known for one its table did not grade."""
    import hashlib  # deferred: only where grades are written or read

    br = m.board
    b = m.briefing
    parts = [
        m.chapter,
        br.name(b.peak),
        "" if b.start is None else br.name(b.start),
        "" if b.fort_pattern is None else b.fort_pattern.text(),
        "" if b.greek_fire is None else br.name(b.greek_fire),
        " ".join(".." if t is None else t.code for t in m.cells),
    ]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


def with_grade_table(m: Map, table: dict) -> Map:
    """``m`` with ``table`` as its ``[grade]`` table, recording the map it graded (``map_fingerprint``)."""
    from dataclasses import replace  # deferred: only where grades are written

    return replace(m, meta={**m.meta, "grade": {**table, GRADED_MAP: map_fingerprint(m)}})


def grade_table(m: Map) -> dict | None:
    """``m``'s ``[grade]`` table when it grades this map; None when there is none or it records another map (the
    cells or briefing edited by hand since: ``map_fingerprint``). A table without the record (written before it
    was kept) is taken as it is."""
    g = m.meta.get("grade")
    if not isinstance(g, dict):
        return None
    return None if GRADED_MAP in g and g[GRADED_MAP] != map_fingerprint(m) else g


def edited_by_hand(meta: dict) -> dict:
    """A map's record tables once its cells or briefing are edited by hand (the studio): ``[generator]`` kept (the
    house rules it names still say which rules the map was made for) and marked ``edited = true`` (its seed and
    profile no longer make this map), ``[grade]`` dropped, as ``repair`` and ``fill`` drop it (it graded another
    map: run ``mapgen grade`` again)."""
    out = {k: v for k, v in meta.items() if k != "grade"}
    if isinstance(out.get("generator"), dict):
        out["generator"] = {**out["generator"], EDITED: True}
    return out


def tail_text(name: str | None, meta: dict) -> str:
    """The fields a map file holds beside its chapter, briefing and terrain, as TOML to follow a terrain field:
    ``name``, then the record tables (``dumps_map``'s order); "" for none."""
    import tomli_w  # deferred: only writers need it

    head: dict = {} if name is None else {"name": name}
    head.update({k: v for k, v in meta.items() if not isinstance(v, dict)})
    head.update({k: v for k, v in meta.items() if isinstance(v, dict)})
    return tomli_w.dumps(head, multiline_strings=True) if head else ""


def write_map(m: Map, path: str | os.PathLike, *, overwrite: bool = False) -> None:
    """Write a map file atomically; never replaces an existing file unless ``overwrite``."""
    from mapgen.output import write_text  # deferred: only writers need it; atomic, the usual file mode

    expect_map(m, "write_map")
    write_text(path, dumps_map(m), force=overwrite, to_force="pass overwrite=True to replace it")
