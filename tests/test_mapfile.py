"""Map files (RULES.md §7): round trips, the optional header and row letters, and every error in words."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from constraints.catalogue import check_map, with_hill_numbers
from mapgen.mapfile import MapFileError, dumps_map, parse_map, read_map, write_map
from mapgen.terrain import Terrain

DATA = Path(__file__).parent / "data"
EXAMPLES = sorted(p for folder in ("valid", "invalid", "states") for p in (DATA / folder).glob("*.toml"))
TEXTS = [p.read_text(encoding="utf-8") for p in EXAMPLES]
TRAINING = (DATA / "valid" / "training-201.toml").read_text(encoding="utf-8")
FAUNA = (DATA / "valid" / "fauna-201.toml").read_text(encoding="utf-8")
FLORA = (DATA / "valid" / "flora-201.toml").read_text(encoding="utf-8")


def problem(text: str, source: str = "fauna-3.toml") -> str:
    """The message of the MapFileError that parsing ``text`` raises."""
    with pytest.raises(MapFileError) as caught:
        parse_map(text, source)
    return str(caught.value)


def grid(text: str) -> list[str]:
    """The terrain lines of a map file (header included)."""
    return text.split('terrain = """\n', 1)[1].split('"""', 1)[0].splitlines()


def with_grid(text: str, lines: list[str]) -> str:
    head = text.split('terrain = """\n', 1)[0]
    return head + 'terrain = """\n' + "\n".join(lines) + '\n"""\n'


# --- round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=[f"{p.parent.name}/{p.stem}" for p in EXAMPLES])
def test_read_dumps_parse_gives_the_same_map(path):
    m = read_map(path)
    text = dumps_map(m)
    again = parse_map(text, "again.toml")
    assert again == m
    assert dumps_map(again) == text  # a fixed layout: equal maps give equal bytes


def test_partial_maps_keep_their_unrevealed_cells(example):
    m = example("fauna-201-k34", "states")
    assert not m.complete
    assert len(m.unrevealed()) == 15
    assert m.board.name(m.unrevealed()[0]) == "A2"
    assert parse_map(dumps_map(m)).unrevealed() == m.unrevealed()


def test_write_then_read_gives_the_same_map(tmp_path, example):
    m = example("flora-201")
    write_map(m, tmp_path / "out.toml")
    assert read_map(tmp_path / "out.toml") == m


def test_a_complete_map_is_written_with_its_hill_numbers(tmp_path, example):
    m = example("fauna-202")  # its file shows bare "Hi"
    assert m.hills == {}
    numbered = with_hill_numbers(m)
    write_map(numbered, tmp_path / "numbered.toml")
    text = (tmp_path / "numbered.toml").read_text(encoding="utf-8")
    back = read_map(tmp_path / "numbered.toml")
    hills = back.cells_of(Terrain.HILL)
    assert sorted(back.hills) == hills  # every Hill carries a number
    assert check_map(back) == []  # and every number is right
    # fauna-202 has Forts at A5, C2, D4: Hill E7 sees none, D7 sees D4, G1 sees none.
    assert {back.board.name(i): n for i, n in back.hills.items()} == {"D7": 1, "E1": 0, "E7": 0, "G1": 0}
    assert "Hi1" in text and "Hi0" in text


def test_meta_fields_survive_a_round_trip(example):
    text = 'generator = "mapgen 0.1"\n' + FAUNA + "[grade]\nseed = 7\nweights = [1, 2]\n"
    m = parse_map(text)
    assert m.meta == {"generator": "mapgen 0.1", "grade": {"seed": 7, "weights": [1, 2]}}
    assert parse_map(dumps_map(m)) == m


@pytest.mark.parametrize("text", ['colour = "red"\n' + FAUNA, FAUNA + "[profile]\nseed = 7\n"])
def test_an_unknown_field_is_refused_naming_it(text):
    """RULES.md §7's fields, and the records mapgen writes itself (generator, grade); a typo is not kept."""
    key = "colour" if "colour" in text else "profile"
    with pytest.raises(MapFileError) as e:
        parse_map(text, "m.toml")
    assert str(e.value) == (
        f"m.toml: unknown field {key!r} (map files have: chapter, number, name, peak, start, fort_pattern, "
        "greek_fire, terrain, generator, grade)"
    )


@pytest.mark.parametrize(
    ("key", "meant"), [("Peak", "peak"), ("FORT_PATTERN", "fort_pattern"), ("greekfire", "greek_fire")]
)
def test_an_unknown_field_names_the_field_it_most_likely_meant(key, meant):
    """`Peak = "D4"` is refused suggesting `peak` (case first, then spelling), as `--chapter faun` suggests fauna."""
    with pytest.raises(MapFileError) as e:
        parse_map(f'{key} = "D4"\n' + FAUNA, "m.toml")
    assert str(e.value).startswith(f"m.toml: unknown field {key!r}: did you mean {meant}? (map files have: chapter, ")


def test_number_and_name_survive_a_round_trip():
    m = parse_map('number = 101\nname = "Bitterroot \\"pass\\""\n' + FAUNA)
    assert (m.briefing.number, m.briefing.name) == (101, 'Bitterroot "pass"')
    assert parse_map(dumps_map(m)) == m


def test_a_name_is_one_line_of_at_most_200_characters():
    assert parse_map('name = "' + "x" * 200 + '"\n' + FAUNA).briefing.name == "x" * 200
    assert problem('name = "' + "x" * 500_000 + '"\n' + FAUNA, "f.toml") == (
        "f.toml: field 'name' is 500,000 characters long (at most 200)"
    )
    for text, code in (("x\\u0007\\ny", "0007"), ("a\\tb", "0009"), ("a\\u0085b", "0085")):
        assert problem(f'name = "{text}"\n' + FAUNA, "f.toml") == (
            f"f.toml: field 'name' holds a control character (U+{code}); text is one line of printable characters"
        )
    assert parse_map('name = "Hügel – Ørsted 北"\n' + FAUNA).briefing.name == "Hügel – Ørsted 北"


def test_text_in_a_record_table_is_bounded_too():
    assert problem(FAUNA + '\n[grade]\ntier = "' + "T" * 2001 + '"\n', "f.toml") == (
        "f.toml: field 'grade.tier' is 2,001 characters long (at most 2,000)"
    )
    assert problem(FAUNA + '\n[grade]\nflags = ["a\\nb"]\n', "f.toml") == (
        "f.toml: field 'grade.flags' holds a control character (U+000A); text is one line of printable characters"
    )


@pytest.mark.parametrize("number", [-5, -1, 2**63, 99999999999999999999])
def test_a_number_is_checked_as_seeds_are(number):
    assert problem(f"number = {number}\n" + FAUNA, "f.toml") == (
        f"f.toml: field 'number' must be from 0 to 9223372036854775807 (as a seed), not {number}"
    )


@pytest.mark.parametrize("number", [0, 1, 2**63 - 1])
def test_numbers_from_0_to_the_largest_seed_are_read(number):
    assert parse_map(f"number = {number}\n" + FAUNA).briefing.number == number


# --- the grid: header, row letters, case, unrevealed cells ---------------------------------------


def test_header_and_row_letters_are_optional():
    lines = grid(TRAINING)
    bare = [line.split(maxsplit=1)[1] for line in lines[1:]]  # no header, no letters
    letters_only = lines[1:]
    header_only = [lines[0], *bare]
    full = parse_map(TRAINING)
    for variant in (bare, letters_only, header_only):
        assert parse_map(with_grid(TRAINING, variant)) == full


def test_codes_and_row_letters_are_case_insensitive():
    lower = with_grid(FAUNA, [line.lower() for line in grid(FAUNA)])
    assert lower != FAUNA
    assert parse_map(lower) == parse_map(FAUNA)


def test_blank_lines_and_extra_spaces_in_the_grid_are_ignored():
    lines = ["", *["  " + "    ".join(line.split()) + "  " for line in grid(TRAINING)], ""]
    assert parse_map(with_grid(TRAINING, lines)) == parse_map(TRAINING)


def test_unrevealed_cells_and_hill_numbers():
    m = parse_map(
        FAUNA.replace("B   Mu  Ro", "B   ..  Ro").replace("G   Sk  Ti  Wa  Wo  Hi2", "G   Sk  Ti  Wa  Wo  hi2")
    )
    assert m.at("B1") is None
    assert m.unrevealed() == [m.board.index("B1")]
    assert m.at("G5") is Terrain.HILL
    assert m.hills[m.board.index("G5")] == 2


def test_chapter_name_is_case_insensitive():
    assert parse_map(TRAINING.replace('"training"', '"Training"')).chapter == "training"


def test_training_keeps_its_7x7_cell_names():
    m = parse_map(TRAINING)
    assert m.board.names[0] == "B3" and m.board.names[-1] == "F7"
    assert m.board.name(m.briefing.peak) == "C5"
    assert m.start_cells() == [m.board.index(c) for c in ("B7", "C7", "D7", "E7", "F7")]


def test_flora_start_and_greek_fire():
    m = parse_map(FLORA)
    assert m.board.name(m.briefing.start) == "F7"
    assert m.board.name(m.briefing.greek_fire) == "C2"
    assert m.start_cells() == [m.briefing.start]


# --- errors name the file and say what is wrong --------------------------------------------------


def test_wrong_row_length():
    text = FAUNA.replace("C   Wa  Wa  Wo  Fo  Vi  Sk  Hi0", "C   Wa  Wa  Wo  Fo  Vi  Sk")
    assert problem(text) == "fauna-3.toml: terrain row C has 6 cells, expected 7"


def test_too_many_cells_in_a_row():
    text = FAUNA.replace("C   Wa  Wa  Wo  Fo  Vi  Sk  Hi0", "C   Wa  Wa  Wo  Fo  Vi  Sk  Hi0  Wa")
    assert problem(text) == "fauna-3.toml: terrain row C has 8 cells, expected 7"


def test_unknown_terrain_code():
    text = FAUNA.replace("C   Wa  Wa  Wo  Fo", "C   Wa  Qq  Wo  Fo")
    assert (
        problem(text)
        == "fauna-3.toml: unknown terrain code 'Qq' at C2 (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)"
    )


def test_wrong_number_of_rows():
    text = with_grid(FAUNA, grid(FAUNA)[:-1])
    assert problem(text) == "fauna-3.toml: terrain has 6 rows, expected 7 (rows A to G): row G is missing"


#: a designer's slip in the number of rows -> what the message adds: which row, or which line, is at fault
#: (with row letters it can tell; without them it can only count)
ROW_SLIPS = {
    "a row left out": (
        lambda lines: lines[:4] + lines[5:],
        "terrain has 6 rows, expected 7 (rows A to G): row D is missing",
    ),
    "a row typed twice": (
        lambda lines: lines[:5] + [lines[4]] + lines[5:],
        "terrain has 8 rows, expected 7 (rows A to G): row D appears twice",
    ),
    "a row off the board": (
        lambda lines: [*lines, "H   Sk  Ti  Wa  Wo  Hi2  Wa  Hi0"],
        "terrain has 8 rows, expected 7 (rows A to G): row H is off the board",
    ),
    "a comment line": (
        lambda lines: lines[:3] + ["# the river runs here"] + lines[3:],
        "terrain has 8 rows, expected 7 (rows A to G): the line '# the river runs here' is no row of terrain codes",
    ),
    "no row letters": (
        lambda lines: [line[4:] for line in lines[1:-1]],
        "terrain has 6 rows, expected 7 (rows A to G)",
    ),
}


@pytest.mark.parametrize("slip", ROW_SLIPS, ids=list(ROW_SLIPS))
def test_a_wrong_number_of_rows_names_the_row_or_line_at_fault(slip):
    change, message = ROW_SLIPS[slip]
    assert problem(with_grid(FAUNA, change(grid(FAUNA)))) == f"fauna-3.toml: {message}"


def test_wrong_header():
    text = with_grid(TRAINING, ["1 2 3 4 5", *grid(TRAINING)[1:]])
    assert problem(text, "t.toml") == "t.toml: terrain header reads 1 2 3 4 5, expected 3 4 5 6 7"


def test_wrong_row_letter():
    text = FAUNA.replace("C   Wa  Wa", "X   Wa  Wa")
    assert problem(text) == "fauna-3.toml: terrain row 3 is labelled X, expected C"


def test_rows_out_of_order():
    lines = grid(FAUNA)
    lines[1], lines[2] = lines[2], lines[1]
    assert problem(with_grid(FAUNA, lines)) == "fauna-3.toml: terrain row 1 is labelled B, expected A"


def test_too_large_hill_number():
    text = FAUNA.replace("G   Sk  Ti  Wa  Wo  Hi2", "G   Sk  Ti  Wa  Wo  Hi123")
    assert problem(text) == "fauna-3.toml: Hill number 'Hi123' at G5 is too large (a Hill counts at most 12 cells)"


#: a hand-written slip in the grid (a row of fauna-201 as a designer mistyped it) -> what the message says; the
#: cell is named (a row often holds the same code twice) and the hint says what was meant
HAND_SLIPS = {
    "a typo": (
        "G   Sk  Ti  Wq  Wo  Hi2  Wa  Hi0",
        "unknown terrain code 'Wq' at G3 (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)",
    ),
    "a Hill's number not in digits": (
        "G   Sk  Ti  Wa  Wo  Hix  Wa  Hi0",
        "unknown terrain code 'Hix' at G5 (a Hill is Hi, or Hi with its number: Hi2)",
    ),
    "a negative Hill number": (
        "G   Sk  Ti  Wa  Wo  Hi-1  Wa  Hi0",
        "unknown terrain code 'Hi-1' at G5 (a Hill is Hi, or Hi with its number: Hi2)",
    ),
    "a number on no Hill": (
        "G   Sk  Ti  Wa3  Wo  Hi2  Wa  Hi0",
        "unknown terrain code 'Wa3' at G3 (only a Hill carries a number, like Hi2)",
    ),
    "one dot for unrevealed": (
        "G   Sk  Ti  .  Wo  Hi2  Wa  Hi0",
        "unknown terrain code '.' at G3 (an unrevealed cell is two dots: ..)",
    ),
    "a space in a Hill": (
        "G   Sk  Ti  Wa  Wo  Hi 2  Wa  Hi0",
        "terrain row G has 8 cells, expected 7 ('2' is no terrain code)",
    ),
    "a row letter with a dot": (
        "G.  Sk  Ti  Wa  Wo  Hi2  Wa  Hi0",
        "terrain row G has 8 cells, expected 7 ('G.' is no terrain code)",
    ),
}


@pytest.mark.parametrize("slip", HAND_SLIPS, ids=list(HAND_SLIPS))
def test_a_hand_written_slip_names_its_cell_and_what_was_meant(slip):
    row, message = HAND_SLIPS[slip]
    assert problem(FAUNA.replace("G   Sk  Ti  Wa  Wo  Hi2  Wa  Hi0", row)) == f"fauna-3.toml: {message}"


def test_a_hill_number_in_the_fort_pattern_is_refused_not_ignored():
    """The mini map is terrains (RULES.md §7): a Hill there has no number. 'Hi2' was read as a plain Hill and its
    number dropped without a word, so a designer who meant "a Hill showing 2" got a pattern that never asks it."""
    text = FAUNA.replace(".. .. Ti", ".. .. Hi2")
    assert problem(text) == (
        "fauna-3.toml: Hill number 'Hi2' in fort_pattern row 3: the mini map holds terrains, not Hill numbers (write Hi)"
    )


def test_an_unknown_code_in_the_fort_pattern_names_its_row():
    text = FAUNA.replace("Sk Ft ..", "Sk Ft Zz")
    assert problem(text) == (
        "fauna-3.toml: unknown terrain code 'Zz' in fort_pattern row 2 (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)"
    )


@pytest.mark.parametrize("text", ["", "\n \n", "# my new map, to do\n"], ids=["empty", "blank", "comments only"])
def test_an_empty_file_says_so(text):
    assert problem(text) == "fauna-3.toml: the file holds no fields (a map file needs chapter, peak and terrain)"


def test_a_wrong_kind_of_value_is_named_not_repeated_whole():
    """A terrain written as a TOML array (a map's worth of text) is called an array; a long scalar is cut short."""
    as_array = FAUNA.replace('terrain = """', 'terrain = ["""').rstrip() + "]\n"
    assert problem(as_array) == "fauna-3.toml: field 'terrain' must be text: rows of terrain codes, not an array"
    assert problem(FAUNA.replace('peak = "B4"', 'peak = {row = "B"}')) == (
        "fauna-3.toml: field 'peak' must be a cell name like E3, not a table"
    )
    long_number = FAUNA.replace('peak = "B4"', 'peak = "B4"\nnumber = "' + "9" * 100 + '"')
    assert problem(long_number) == "fauna-3.toml: field 'number' must be a whole number, not '" + "9" * 38 + "…"


def test_what_a_windows_editor_writes_is_read_alike():
    """Tabs between codes, a no-break space, lower-case codes and cell names, CRLF: the same map."""
    text = (
        FAUNA.replace("E   Fi  Wo  Sk", "E\tFi\tWo\u00a0Sk")
        .replace("D   Wo  Vi  Ti", "d   wo  vi  ti")
        .replace('peak = "B4"', 'peak = "b4"')
        .replace("\n", "\r\n")
    )
    assert parse_map(text) == parse_map(FAUNA)


@pytest.mark.parametrize("field", ["chapter", "peak", "terrain"])
def test_missing_field(field):
    text = "\n".join(line for line in TRAINING.splitlines() if not line.startswith(f"{field} ="))
    if field == "terrain":
        text = TRAINING.split("terrain =")[0]
    assert problem(text, "t.toml") == f"t.toml: missing field '{field}'"


def test_a_map_field_written_below_a_record_table_is_named_not_ignored():
    """TOML puts every line after ``[generator]`` in that table: a designer's `name` added at the end of a
    generated file was silently dropped, and a `peak` moved below it read as "missing field 'peak'"."""
    generated = TRAINING + '\n[generator]\nmapgen = "0.1.0"\nseed = 3\n'
    assert problem(generated + 'name = "River Bend"\n', "t.toml") == (
        "t.toml: field 'name' is inside the [generator] table (TOML puts every line after [generator] in that "
        "table): move it above [generator]"
    )
    no_peak = "\n".join(line for line in generated.splitlines() if not line.startswith("peak ="))
    assert problem(no_peak + '\npeak = "C5"\n', "t.toml") == (
        "t.toml: field 'peak' is inside the [generator] table (TOML puts every line after [generator] in that "
        "table): move it above [generator]"
    )
    assert parse_map(generated).briefing.name is None  # the table's own keys are no map fields


def test_comment_lines_are_the_hashes_outside_strings():
    """What `repair` and `generate --from` say they do not keep: a `#` in a name or a terrain string is none."""
    from mapgen.mapfile import comment_lines

    text = '\ufeff# draft\nname = "Map #3"\nterrain = """\nA  Wa # here\n"""  # after\npeak = \'C#\'\r\n'
    assert comment_lines(text) == (1, 5)
    assert comment_lines(TRAINING) == ()


def test_unknown_chapter():
    text = TRAINING.replace('"training"', '"atlantis"')
    assert problem(text, "t.toml") == (
        "t.toml: unknown chapter 'atlantis' (expected one of training, fauna, flora, vameter, maldonado)"
    )


def test_cell_off_the_training_board():
    text = TRAINING.replace('peak = "C5"', 'peak = "A1"')
    assert problem(text, "t.toml") == "t.toml: field 'peak': cell A1 is off the board (B3 to F7)"


def test_not_a_cell_name():
    text = TRAINING.replace('peak = "C5"', 'peak = "middle"')
    assert problem(text, "t.toml") == (
        "t.toml: field 'peak': 'middle' is not a cell name (a row letter and a column number, like E3)"
    )


def test_field_of_the_wrong_type():
    assert problem(TRAINING.replace('peak = "C5"', "peak = 5"), "t.toml") == (
        "t.toml: field 'peak' must be a cell name like E3, not 5"
    )
    assert problem("number = true\n" + TRAINING, "t.toml") == "t.toml: field 'number' must be a whole number, not True"


def test_flora_needs_a_start_cell():
    no_start = "\n".join(line for line in FLORA.splitlines() if not line.startswith("start ="))
    expected = "fl.toml: Flora maps need 'start' to be the cell of the start Fort, like D7"
    assert problem(no_start, "fl.toml") == expected
    assert problem(FLORA.replace('start = "F7"', 'start = "column 7"'), "fl.toml") == expected


def test_a_start_cell_on_a_river_chapter_says_where_the_chapter_starts():
    assert problem(FAUNA.replace('start = "column 7"', 'start = "column 3"'), "f.toml") == (
        "f.toml: field 'start': Fauna maps start on column 7 (start = \"column 7\" or no start), not 'column 3'"
    )
    assert problem(TRAINING.replace('start = "column 7"', 'start = "D7"'), "t.toml") == (
        "t.toml: field 'start': Training maps start on column 7 (start = \"column 7\" or no start), not 'D7'"
    )
    assert parse_map(FAUNA.replace('start = "column 7"', 'start = "Column 7"')).briefing.start is None


def test_fauna_needs_a_fort_pattern():
    text = FAUNA.replace('fort_pattern = """\n.. Vi ..\nSk Ft ..\n.. .. Ti\n"""\n', "")
    assert "fort_pattern" not in text
    assert problem(text) == "fauna-3.toml: missing field 'fort_pattern' (Fauna's mini map)"


def test_an_empty_fort_pattern_says_what_it_should_hold():
    """A Fauna briefing whose mini map is there but empty (a web link without it, a file's empty string) says what
    the mini map is, not only that a field is empty."""
    text = FAUNA.replace(".. Vi ..\nSk Ft ..\n.. .. Ti\n", "")
    assert problem(text) == (
        "fauna-3.toml: fort_pattern is empty: a Fauna briefing needs its mini map (rows of codes with one Ft, '..' any)"
    )


@pytest.mark.parametrize(
    ("pattern", "count"),
    [(".. Vi ..\nSk Wo ..", 0), (".. Vi ..\nSk Ft Ft", 2)],
)
def test_fort_pattern_needs_exactly_one_fort(pattern, count):
    text = FAUNA.replace(".. Vi ..\nSk Ft ..\n.. .. Ti", pattern)
    assert problem(text) == f"fauna-3.toml: fort_pattern must hold exactly one Ft, found {count}"


def test_fort_pattern_with_ragged_rows():
    text = FAUNA.replace(".. Vi ..\nSk Ft ..\n.. .. Ti", ".. Vi\nSk Ft ..")
    assert problem(text) == "fauna-3.toml: fort_pattern rows have different lengths"


def test_not_toml():
    assert problem("chapter = fauna\n").startswith("fauna-3.toml: not valid TOML (")


def test_json_is_named_as_json():
    """JSON given as a map said "not valid TOML (Invalid statement ...)" or, on one line, took it for a path."""
    said = "a JSON file, not a map file (a map file is TOML, as mapgen generate, repair or deduce --puzzle write it)"
    assert problem('{"chapter": "fauna"}') == f"fauna-3.toml: {said}"
    assert problem('\ufeff {\n  "count": 3,\n') == f"fauna-3.toml: {said}"  # broken JSON is still JSON's start


def test_read_map_names_the_file(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(MapFileError) as caught:
        read_map(missing)
    assert str(caught.value) == f"{missing}: no such file"
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00chapter")
    with pytest.raises(MapFileError, match=r"bin\.toml: is not a text file \(not UTF-8\)$"):
        read_map(tmp_path / "bin.toml")
    with pytest.raises(MapFileError, match="is a directory"):
        read_map(tmp_path)


# --- write_map never clobbers ------------------------------------------------------------------


def test_write_map_refuses_to_overwrite(tmp_path, example):
    target = tmp_path / "map.toml"
    target.write_text("original\n", encoding="utf-8")
    # the caller's way to replace it is the keyword: "use --force" named an option Python has not
    with pytest.raises(FileExistsError, match=r"map\.toml: already exists; pass overwrite=True to replace it$"):
        write_map(example("fauna-201"), target)
    assert target.read_text(encoding="utf-8") == "original\n"
    assert [p.name for p in tmp_path.iterdir()] == ["map.toml"]  # no temporary file left behind
    write_map(example("fauna-201"), target, overwrite=True)
    assert read_map(target) == example("fauna-201")


# --- junk in, MapFileError out -------------------------------------------------------------------

SYMBOLS = list(" \n\t\"'=[]{}.,#-+_:0123456789ABCDEFGabcdefgHhiIoOwWaAuUrRkKtTsScCzZmMqQéß²⁷\\\r\x00")


@st.composite
def mangled(draw) -> str:
    """An example file with a few characters or lines deleted, duplicated, replaced or swapped."""
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 5))):
        if not text:
            break
        op = draw(
            st.sampled_from(["delete", "duplicate", "replace", "insert", "line-delete", "line-duplicate", "line-swap"])
        )
        i = draw(st.integers(0, len(text) - 1))
        if op == "delete":
            text = text[:i] + text[i + 1 :]
        elif op == "duplicate":
            text = text[: i + 1] + text[i:]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(SYMBOLS)) + text[i + 1 :]
        elif op == "insert":
            text = text[:i] + draw(st.text(st.sampled_from(SYMBOLS), max_size=6)) + text[i:]
        else:
            lines = text.split("\n")
            j, k = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if op == "line-delete":
                del lines[j]
            elif op == "line-duplicate":
                lines.insert(j, lines[j])
            else:
                lines[j], lines[k] = lines[k], lines[j]
            text = "\n".join(lines)
    return text


def parses_or_says_why(text: str):
    """Parse junk: a Map or a MapFileError naming the source; any other exception fails the test."""
    try:
        return parse_map(text, "junk.toml")
    except MapFileError as e:
        assert str(e).startswith("junk.toml: ") and e.problem
        assert "\n" not in str(e)  # the CLI prints it as one line
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_random_text_only_raises_map_file_error(text):
    parses_or_says_why(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(st.sampled_from(SYMBOLS), max_size=300))
def test_random_map_like_text_only_raises_map_file_error(text):
    parses_or_says_why(text)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled())
def test_mangled_files_only_raise_map_file_error_and_round_trip(text):
    m = parses_or_says_why(text)
    if m is not None:
        assert parse_map(dumps_map(m)) == m


def test_windows_line_endings_and_a_byte_order_mark(tmp_path):
    (tmp_path / "crlf.toml").write_bytes(TRAINING.replace("\n", "\r\n").encode())
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + TRAINING.encode())
    assert read_map(tmp_path / "crlf.toml") == parse_map(TRAINING)
    assert read_map(tmp_path / "bom.toml") == parse_map(TRAINING)


def test_a_huge_file_is_refused_without_reading_it_all(tmp_path):
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (1024 * 1024) + b"\n")
    with pytest.raises(MapFileError) as caught:
        read_map(big)
    assert str(caught.value) == f"{big}: too large for a map file (over 1 MiB)"


BASES = [read_map(p) for p in sorted((DATA / "valid").glob("*.toml"))]


@st.composite
def random_state(draw):
    """Any map or partial map: random terrains (or unrevealed cells) and random Hill numbers."""
    base = draw(st.sampled_from(BASES))
    options = st.one_of(st.none(), st.sampled_from(list(Terrain)))
    cells = draw(st.lists(options, min_size=base.board.size, max_size=base.board.size))
    hills = {i: draw(st.integers(0, 12)) for i, t in enumerate(cells) if t is Terrain.HILL and draw(st.booleans())}
    return base.with_cells(cells, hills=hills)


@settings(max_examples=100, deadline=None)
@given(random_state())
def test_any_map_round_trips_through_its_file_text(m):
    assert parse_map(dumps_map(m)) == m


def test_a_row_of_one_cell_is_said_in_the_singular():
    lines = grid(FAUNA)
    lines[3] = "C  Wa"
    assert problem(with_grid(FAUNA, lines)) == "fauna-3.toml: terrain row C has 1 cell, expected 7"
