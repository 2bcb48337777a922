"""The rule catalogue as data: each chapter's board, terrains and rule ids, and house-rule chapter files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from constraints.catalogue import CHAPTER_DIR, ChapterError, chapter_from_data, check_map, get_chapter, load_chapter
from mapgen.board import FULL, TRAINING
from mapgen.mapfile import read_map
from mapgen.reference import chapter_json, chapter_text
from mapgen.terrain import Terrain

CORE = ["T1", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"]


@pytest.mark.parametrize(
    ("name", "board", "codes", "counted", "ids"),
    [
        ("training", TRAINING, "Fo Wo Wa Mu Ro", None, ["T1", "C1", "C4", "C5", "C6"]),
        ("fauna", FULL, "Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft", "Ft", [*CORE, "F1", "F2"]),
        ("flora", FULL, "Fo Wo Wa Mu Ro Sk Ti Fi Hi Ft Pf Sa Fc", "Fc", [*CORE, "L1", "L2", "L3", "L4"]),
        ("vameter", FULL, "Fo Wo Wa Mu Ro Sk Ti Hi Fz Mf", "Fz", [*CORE, "V1", "V2", "V3"]),
        ("maldonado", FULL, "Fo Wo Wa Mu Ro Sk Ti Fi Hi Ma", "Ma", [*CORE, "M1", "M2"]),
    ],
)
def test_chapters_follow_rules_md(name, board, codes, counted, ids):
    ch = get_chapter(name)
    assert ch.board == board
    assert {t.code for t in ch.terrains} == set(codes.split())
    assert (ch.counted.code if ch.counted else None) == counted
    assert list(ch.rule_ids) == ids
    assert all(info.text for info in ch.info)
    assert {r.id for r in ch.rules} == set(ids)  # every id has at least one check


def test_maldonado_peak_default():
    assert get_chapter("maldonado").default_peak == "C4"


def test_unknown_chapter():
    with pytest.raises(ChapterError, match=r"^unknown chapter 'atlantis' \(expected one of training, fauna"):
        get_chapter("atlantis")


def test_violations_come_in_rule_order(example):
    m = example("fauna-201-m", "invalid")
    assert [v.rule for v in check_map(m)] == ["C1", "C2", "C3", "C5"]


# --- the Reference Board as text ----------------------------------------------------------------


def test_reference_board_text_lists_terrains_and_rules_in_words():
    text = chapter_text(get_chapter("fauna"))
    assert text.splitlines()[0] == "fauna: Chapter 1: Fauna"
    assert "Vine (Vi)" in text and "Fort (Ft)" in text
    assert "Hills count: Fort (Ft)" in text
    assert "C7  Skull sides: The terrains orthogonally around a Skull" in text
    assert "F2  Fort pattern: Exactly 3 Forts" in text


def test_reference_board_text_names_the_fields_a_map_file_needs():
    # a designer writing a Flora or Fauna map by hand learnt of fort_pattern or start only from an exit 2
    assert "  map file fields: chapter, peak, fort_pattern, terrain (required)" in chapter_text(get_chapter("fauna"))
    flora = chapter_text(get_chapter("flora"), full=False).splitlines()
    assert "  map file fields: chapter, peak, start, terrain (required); greek_fire (optional)" in flora


def test_reference_board_json():
    data = chapter_json(get_chapter("training"))
    assert data["board"] == {"rows": "BCDEF", "columns": [3, 4, 5, 6, 7]}
    assert data["terrains"] == ["Fo", "Wo", "Wa", "Mu", "Ro"]
    assert data["counted"] is None
    assert [r["id"] for r in data["rules"]] == ["T1", "C1", "C4", "C5", "C6"]


# --- house rules: a chapter is data ---------------------------------------------------------------

FAUNA_TEXT = (CHAPTER_DIR / "fauna.toml").read_text(encoding="utf-8")
HOUSE_RULE = """
[[rule]]
id = "H1"
title = "Plenty of Food"
text = "At least 4 Food."
checks = [{ kind = "count", terrain = "Fo", at_least = 4 }]
"""


def test_a_shipped_chapter_file_loads_the_same_as_get_chapter():
    assert load_chapter(CHAPTER_DIR / "fauna.toml") == get_chapter("fauna")


def test_a_house_rule_needs_no_code(tmp_path, example):
    path = tmp_path / "house.toml"
    path.write_text(FAUNA_TEXT + HOUSE_RULE, encoding="utf-8")
    house = load_chapter(path)
    assert house.rule_ids[-1] == "H1"
    m = example("fauna-201")
    assert [m.board.name(i) for i in m.cells_of(Terrain.FOOD)] == ["C4", "D7", "E7", "F1"]
    assert check_map(m, house) == []
    cells = list(m.cells)
    cells[m.board.index("C4")] = Terrain.HILL  # leaves D7, E7, F1, but breaks C2 for the Tipi at D3
    fewer = m.with_cells(cells)
    got = [(v.rule, v.cells, v.message) for v in check_map(fewer, house)]
    assert got == [
        ("C2", ("D3",), "the Tipi at D3 has no Food diagonally next to it"),
        ("H1", ("D7", "E7", "F1"), "the map has 3 Food (D7, E7, F1), expected at least 4"),
    ]


def test_a_house_chapter_can_drop_a_rule(tmp_path, example):
    path = tmp_path / "no-c5.toml"
    path.write_text(FAUNA_TEXT.replace('"C5", ', ""), encoding="utf-8")
    house = load_chapter(path)
    assert "C5" not in house.rule_ids
    m = example("fauna-201-m", "invalid")
    assert {v.rule for v in check_map(m, house)} == {"C1", "C2", "C3"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"', "chapter file: missing 'terrains'"),
        ('terrains = ["Fo"]', "chapter file: missing 'name'"),
        ('name = "x"\nterrains = "Fo"', "chapter file: 'terrains' must be a list of terrain codes, not 'Fo'"),
        ('name = "x"\nterrains = ["Qq"]', "terrains: unknown terrain code 'Qq'"),
        ('name = "x"\nterrains = ["Fo"]\nboard = "9x9"', "chapter file: board must be 7x7 or 5x5, not '9x9'"),
        (
            'name = "x"\nterrains = ["Fo"]\nrules = ["Z9"]',
            "unknown shared rule 'Z9' (shared rules: T1, C1, C2, C3, C4, C5, C6, C7, C8, C9)",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\nrule = 3',
            "chapter file: each rule must be a [[rule]] table with id, title and checks",
        ),
        ('name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\nchecks = []', "rule H1: missing 'title'"),
        (  # every report names a rule by its id: "   Two Muds: ..." named none
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = ""\ntitle = "t"\nchecks = []',
            "a [[rule]] table: 'id' must be a name like H1, without spaces, not ''",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H 1"\ntitle = "t"\nchecks = []',
            "a [[rule]] table: 'id' must be a name like H1, without spaces, not 'H 1'",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = 3',
            "rule H1: 'checks' must be a list of checks, not 3",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = [{ kind = "nope" }]',
            (
                "rule H1: unknown rule kind 'nope' (known: briefing_cell, column_pair, connected, count, "
                "distinct_neighbours, hill_numbers, line_count, neighbours, not_on_edge, pattern, ring, terrain_set)"
            ),
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = [{ kind = "count", colour = 3 }]',
            "rule H1: a count rule has no setting 'colour'",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = [{ kind = "neighbours", hood = "hex" }]',
            "rule H1: unknown neighbourhood 'hex' (known: orthogonal, diagonal, king, diagonal2)",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = [{ kind = "count", at_least = "3" }]',
            "rule H1: at_least must be a whole number of 0 or more, not '3'",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = [{ kind = "hill_numbers", counted = "chapter" }]',
            "rule H1: the chapter has no counted terrain",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = [{ kind = "briefing_cell", field = "colour" }]',
            "rule H1: a briefing_cell rule reads the briefing field peak, start, greek_fire, not 'colour'",
        ),
    ],
)
def test_bad_chapter_files_say_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "house.toml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ChapterError) as caught:
        load_chapter(path)
    assert str(caught.value) == f"{path}: {message}"


def _house(rule: str) -> str:
    return FAUNA_TEXT + HOUSE_RULE.replace('checks = [{ kind = "count", terrain = "Fo", at_least = 4 }]', rule)


CODES = "(the chapter's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            FAUNA_TEXT + HOUSE_RULE.replace('id = "H1"', 'id = "C3"'),
            (
                "rule C3: C3 is the id of the shared rule Tipi–Skull (core.toml); give this rule an id of its own, "
                "like H1 (to change C3, drop it from 'rules' and add yours under a new id)"
            ),
        ),
        (
            FAUNA_TEXT.replace('"C7", ', "") + HOUSE_RULE.replace('id = "H1"', 'id = "C7"'),
            (
                "rule C7: C7 is the id of the shared rule Skull sides (core.toml); give this rule an id of its own, "
                "like H1 (to change C7, drop it from 'rules' and add yours under a new id)"
            ),
        ),
        (
            FAUNA_TEXT + HOUSE_RULE.replace('id = "H1"', 'id = "F2"'),
            "rule F2: two rules have this id; each rule needs an id of its own",
        ),
        (
            FAUNA_TEXT.replace('"C1", ', '"C1", "C1", '),
            "rule C1: 'rules' lists it twice; each rule needs an id of its own",
        ),
        (
            _house('checks = [{ terrain = "Fo", at_least = 4 }]'),
            (
                'rule H1: a check without a kind: write { kind = "count", ... } (known: briefing_cell, column_pair, '
                "connected, count, distinct_neighbours, hill_numbers, line_count, neighbours, not_on_edge, pattern, ring, "
                "terrain_set)"
            ),
        ),
        (  # a range no map can be in: refused as the profile's counts = [5, 4] is, not "expected 5 to 4" on every map
            _house('checks = [{ kind = "count", terrain = "Fo", at_least = 5, at_most = 4 }]'),
            "rule H1: at_least = 5 is more than at_most = 4: no map can hold it",
        ),
        (  # every map would break it ("the briefing names no start cell"): no map could be generated
            _house('checks = [{ kind = "briefing_cell", field = "start", terrain = "Wa" }]'),
            (
                "rule H1: a briefing_cell check reads the briefing's start, which fauna maps do not hold "
                "(briefing: peak, fort_pattern): add start to briefing"
            ),
        ),
        (
            FAUNA_TEXT.replace(', fort_pattern = "required"', ""),
            (
                "rule F2: a pattern check reads the briefing's fort_pattern, which fauna maps do not hold "
                "(briefing: peak): add fort_pattern to briefing"
            ),
        ),
        (
            _house('checks = [{ kind = "count", terrain = "Fd", at_least = 4 }]'),
            f"rule H1: unknown terrain code 'Fd' {CODES}",
        ),
        (
            _house('checks = [{ kind = "neighbours", subject = "Vi", target = "Pf", hood = "orthogonal" }]'),
            f"rule H1: Petrified Forest (Pf) is not a terrain of the chapter {CODES}; add it to terrains",
        ),
        (
            _house('checks = [{ kind = "terrain_set", terrains = ["Fo", "Ma"] }]'),
            f"rule H1: Maldonado (Ma) is not a terrain of the chapter {CODES}; add it to terrains",
        ),
        (
            (Path(__file__).parent.parent / "examples" / "my-map.toml").read_text(encoding="utf-8"),
            (
                "a map file, not a chapter file (it says chapter = ...); a chapter file says name = ..., terrains and "
                "rules: mapgen chapters CHAPTER -o FILE writes one to start from"
            ),
        ),
        (
            (Path(__file__).parent.parent / "mapgen" / "profiles" / "fauna.toml").read_text(encoding="utf-8"),
            (
                "a design profile, not a chapter file (it says chapter = ...); a chapter file says name = ..., terrains "
                "and rules: mapgen chapters CHAPTER -o FILE writes one to start from"
            ),
        ),
        (
            FAUNA_TEXT.replace('profile = "fauna.toml"', 'profile = "mine.toml"'),
            (
                "profile: no file 'mine.toml' in mapgen/profiles/ "
                "(there: fauna.toml, flora.toml, maldonado.toml, training.toml, vameter.toml)"
            ),
        ),
        (
            FAUNA_TEXT.replace('profile = "fauna.toml"', 'profile = "flora.toml"'),
            "profile: 'flora.toml' is a profile of chapter flora, not fauna",
        ),
        (
            FAUNA_TEXT.replace('name = "fauna"', 'name = "fauna-4forts"'),
            (
                "name: 'fauna-4forts' is no shipped chapter (training, fauna, flora, vameter, maldonado): keep name "
                "the chapter the house rules vary, the chapter its maps and its profile 'fauna.toml' name"
            ),
        ),
        (  # 'Fauna' beside the list that holds fauna, with no word on the case: chapter = "Fauna" in a map is taken
            FAUNA_TEXT.replace('name = "fauna"', 'name = "Fauna"'),
            (
                "name: 'Fauna' is no shipped chapter: did you mean fauna? (training, fauna, flora, vameter, maldonado): "
                "keep name the chapter the house rules vary, the chapter its maps and its profile 'fauna.toml' name"
            ),
        ),
        (
            FAUNA_TEXT.replace('board = "7x7"', 'board = "5x5"'),
            (
                'board: fauna maps are drawn on the 7x7 board, not 5x5: keep board = "7x7" (a map names its '
                "chapter and is read on that chapter's board)"
            ),
        ),
        (
            FAUNA_TEXT.replace('"core.toml", "fauna.toml"]', '"core.toml", "mine.toml"]'),
            (
                "cards: no file 'mine.toml' in mapgen/engine/cards/ "
                "(there: core.toml, fauna.toml, flora.toml, maldonado.toml, vameter.toml)"
            ),
        ),
        (
            FAUNA_TEXT.replace("mapgen.engine.chapters:Fauna", "mapgen.engine.fauna:Fauna"),
            (
                "engine: no module 'mapgen.engine.fauna' to import (the shipped chapters' plug-ins are in "
                'mapgen.engine.chapters, like "mapgen.engine.chapters:Fauna")'
            ),
        ),
    ],
)
def test_a_house_chapter_designers_mistakes_say_what_to_write(tmp_path, text, message):
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ChapterError) as caught:
        load_chapter(path)
    assert str(caught.value) == f"{path}: {message}"


def test_unreadable_chapter_file(tmp_path):
    with pytest.raises(ChapterError, match="nope.toml"):
        load_chapter(tmp_path / "nope.toml")
    (tmp_path / "bad.toml").write_text("name = \n", encoding="utf-8")
    with pytest.raises(ChapterError, match="bad.toml"):
        load_chapter(tmp_path / "bad.toml")


SHIPPED = [p.read_text(encoding="utf-8") for p in sorted(CHAPTER_DIR.glob("*.toml")) if p.stem != "core"]
MAPS = [read_map(p) for p in sorted((Path(__file__).parent / "data" / "valid").glob("*.toml"))]
SYMBOLS = list(" \n\"'=[]{},#-_0123456789abcdefghiklmnoprstuvwxyzFWRSTHVMPCA*")


@st.composite
def mangled_chapter(draw) -> str:
    text = draw(st.sampled_from(SHIPPED))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text) - 1))
        op = draw(st.sampled_from(["delete", "replace", "insert", "line-delete"]))
        if op == "delete":
            text = text[:i] + text[i + 1 :]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(SYMBOLS)) + text[i + 1 :]
        elif op == "insert":
            text = text[:i] + draw(st.text(st.sampled_from(SYMBOLS), max_size=5)) + text[i:]
        else:
            lines = text.split("\n")
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "\n".join(lines)
    return text


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled_chapter())
def test_mangled_chapter_files_load_or_raise_chapter_error_and_then_check(text):
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    try:
        chapter = chapter_from_data(data)
    except ChapterError:
        return
    for m in MAPS:  # a chapter that loads can check any map of its board without crashing
        if m.board == chapter.board:
            chapter.check(m)
