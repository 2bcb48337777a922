"""Per rule id (RULES.md §3): a passing and a failing board, with the ids, cells and messages reported.

Every failing board is a valid example map with a few cells (or a briefing field) changed so that
exactly the intended rule breaks; the tests assert every violation, not just the one wanted.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constraints.catalogue import check_map, get_chapter, with_hill_numbers
from constraints.rules import pattern_fits
from mapgen.mapfile import parse_pattern, read_map
from mapgen.model import Map
from mapgen.terrain import Terrain


def edit(m: Map, changes: dict[str, str], **briefing) -> Map:
    """A copy of ``m`` with cells changed (``{"A1": "Fz"}``) and briefing fields replaced."""
    cells = list(m.cells)
    for name, code in changes.items():
        cells[m.board.index(name)] = Terrain.from_code(code)
    out = m.with_cells(cells)
    if briefing:
        out = dataclasses.replace(out, briefing=dataclasses.replace(out.briefing, **briefing))
    return out


def found(m: Map) -> list[tuple[str, tuple[str, ...]]]:
    return [(v.rule, v.cells) for v in check_map(m)]


def messages(m: Map) -> list[str]:
    return [str(v) for v in check_map(m)]


# (example, cell changes, every violation expected as (rule id, cells)): one rule broken each time.
FAILING = {
    "T1 a code of another chapter": ("fauna-201", {"A1": "Fz", "A2": "Fz"}, [("T1", ("A1", "A2"))]),
    "T1 Vine on Vameter": ("vameter-201", {"A6": "Vi"}, [("T1", ("A6",))]),
    # C8 is a core rule of every chapter but Training, so a stray Field on Vameter is checked by it too.
    "T1 plain Field on Vameter": ("vameter-201", {"A6": "Fi"}, [("T1", ("A6",)), ("C8", ("A6",))]),
    "T1 Skull in Training": ("training-201", {"B6": "Sk"}, [("T1", ("B6",))]),
    "C1 Water without Wood": ("fauna-201", {"A1": "Wa"}, [("C1", ("A1",))]),
    "C1 Wood without Water": ("fauna-201", {"A7": "Hi"}, [("C1", ("B7",))]),
    "C2 Food without Tipi": ("fauna-201", {"A1": "Fo"}, [("C2", ("A1",))]),
    "C2 Tipi without Food": ("fauna-201", {"C4": "Hi"}, [("C2", ("D3",))]),
    "C3 Tipi without Skull": ("fauna-201", {"G1": "Hi"}, [("C3", ("G2",))]),
    "C3 Skull without Tipi": ("fauna-201", {"A1": "Sk"}, [("C3", ("A1",))]),
    "C4 two Woods in a row and a column": ("fauna-201", {"G7": "Wo"}, [("C4", ("G4", "G7")), ("C4", ("B7", "G7"))]),
    "C4 no Wood in a row and a column": (
        "fauna-202",
        {"G5": "Hi"},
        [("C4", ("G1", "G2", "G3", "G4", "G5", "G6", "G7")), ("C4", ("A5", "B5", "C5", "D5", "E5", "F5", "G5"))],
    ),
    "C4 on the 5x5 Training board": ("training-201", {"B3": "Wo"}, [("C4", ("B3", "B7")), ("C4", ("B3", "E3"))]),
    "C5 Mud without Water": ("fauna-201", {"A2": "Mu"}, [("C5", ("A2",))]),
    "C5 Mud without Rock": ("fauna-201", {"G7": "Mu"}, [("C5", ("G7",))]),
    "C5 Mud without either": ("fauna-201", {"A1": "Mu"}, [("C5", ("A1",)), ("C5", ("A1",))]),
    "C6 Rock on the edge": ("fauna-201", {"A2": "Ro"}, [("C6", ("A2",))]),
    "C6 Rock on the Training edge": ("training-201", {"B5": "Ro"}, [("C6", ("B5",))]),
    "C6 Rocks in two groups": ("fauna-202", {"E4": "Hi"}, [("C6", ("E3",))]),
    "C6 Rocks in three groups": ("fauna-202", {"E5": "Hi"}, [("C6", ("E3", "E4", "E6", "F6"))]),
    "C6 Peak not a Rock": ("fauna-202", {"F6": "Hi"}, [("C6", ("F6",))]),
    "C7 inner Skull, 4 sides": ("fauna-201", {"G5": "Vi"}, [("C7", ("F5",))]),
    "C7 edge Skull, 3 sides": ("vameter-201", {"A1": "Ti"}, [("C7", ("A2",))]),
    "C7 corner Skull, 2 sides": ("vameter-202", {"B1": "Hi"}, [("C7", ("A1",))]),
    "C8 Field without Food": ("fauna-201", {"A4": "Fi"}, [("C8", ("A4",))]),
    "C8 Field without Wood": ("fauna-202", {"G1": "Fi"}, [("C8", ("G1",))]),
    "C9 Flora creature changes a Hill's count": ("flora-201", {"C2": "Fc"}, [("C9", ("C5",))]),
    "C9 Fezron Camp changes a Hill's count": ("vameter-201", {"E6": "Fz"}, [("C9", ("A6",))]),
    "F1 Vine without Rock": ("fauna-201", {"A1": "Vi"}, [("F1", ("A1",))]),
    "F1 Rock without Vine": ("fauna-201", {"A3": "Hi"}, [("F1", ("B3",))]),
    "F2 two Forts": ("fauna-201", {"F3": "Hi"}, [("F2", ("D5", "E5"))]),
    "F2 Fort off its pattern": ("fauna-201", {"D4": "Hi"}, [("F2", ("D5",))]),
    "L1 Petrified Forest too far in": ("flora-201", {"C4": "Pf"}, [("L1", ("C4",))]),
    "L1 Petrified Forest on the edge": ("flora-201", {"A4": "Pf"}, [("L1", ("A4",))]),
    "L2 no Sacagawea": ("flora-201", {"B2": "Hi"}, [("L2", ())]),
    "L2 Sacagawea with 2 Woods": ("flora-201", {"A1": "Sa", "B2": "Wa"}, [("L2", ("A1",))]),
    "L2 two Sacagawea": ("flora-201", {"C2": "Sa", "A4": "Hi"}, [("L2", ("B2", "C2")), ("L2", ("C2",))]),
    "L3 too few Flora creatures": ("flora-201", {"D1": "Hi"}, [("L3", ("C1", "C7", "G3"))]),
    "L3 too many Flora creatures": (
        "flora-202",
        {"A1": "Fc"},
        [("L3", ("A1", "A2", "A7", "C7", "D1", "D3", "D4", "F7", "G7"))],
    ),
    "L4 a second Fort": ("flora-201", {"C2": "Ft"}, [("L4", ("C2", "F7"))]),
    "L4 no Fort at the start": ("flora-201", {"F7": "Hi"}, [("L4", ()), ("L4", ("F7",))]),
    "V1 Fezron Camp without Mud": ("vameter-202", {"C7": "Fz"}, [("V1", ("C7",))]),
    "V1 Mud without Fezron Camp": ("vameter-201", {"B5": "Mu"}, [("V1", ("B5",))]),
    "V2 Skull next to a Fezron Camp": ("vameter-201", {"G5": "Sk"}, [("V2", ("G4",))]),
    "V2 Fezron Camp next to a Skull": ("vameter-202", {"F4": "Fz"}, [("V2", ("F4",))]),
    "V3 Mushroom Field without Food": ("vameter-201", {"A6": "Mf"}, [("V3", ("A6",))]),
    "V3 Mushroom Field without Wood": ("vameter-201", {"B3": "Mf"}, [("V3", ("B3",))]),
    "M1 Maldonado without Skull": ("maldonado-202", {"A1": "Ma"}, [("M1", ("A1",))]),
    "M1 Skull without Maldonado": ("maldonado-201", {"B4": "Sk"}, [("M1", ("B4",))]),
    "M2 too few Fields": ("maldonado-201", {"B1": "Hi"}, [("M2", ("B6", "C7"))]),
    "M2 too few Mud": ("maldonado-201", {"D2": "Hi"}, [("M2", ("E6", "F5"))]),
}

# (example, cell changes): boards that stress a rule and still break nothing.
PASSING = {
    "C1 Water with one Wood": ("fauna-201", {"G5": "Wa"}),
    "C2 Food with one diagonal Tipi": ("fauna-201", {"C7": "Fo"}),
    "C3 C7 edge Skull with 3 different sides": ("fauna-201", {"C7": "Sk"}),
    "C5 Mud between Water and Rock": ("maldonado-202", {"B3": "Mu"}),
    "C6 inner Rock joined to the group": ("flora-201", {"C4": "Ro"}),
    "C8 Field with Food and Wood": ("fauna-201", {"C7": "Fi"}),
    "F1 second Vine in a Rock column": ("fauna-201", {"A2": "Vi"}),
    "L1 Petrified Forest one in": ("flora-202", {"D2": "Pf"}),
    "L3 five Flora creatures": ("flora-201", {"A7": "Fc"}),
    "V1 Fezron Camp beside Mud": ("vameter-202", {"D6": "Fz"}),
    "V3 Mushroom Field with Food and Wood": ("vameter-202", {"C5": "Mf"}),
    "M1 Maldonado with its Skull": ("maldonado-202", {"B3": "Ma"}),
    "M2 a fourth Field": ("maldonado-201", {"B3": "Fi"}),
    "T1 Vameter's own Mushroom Field": ("vameter-202", {"C5": "Mf"}),
    "V2 a new Fezron Camp away from Skulls": ("vameter-202", {"D6": "Fz"}),
    "L1 Petrified Forest turned to Skull": ("flora-202", {"B3": "Sk"}),
    "C9 an unnumbered Hill anywhere": ("fauna-201", {"E1": "Hi"}),
}

# Passing boards for the other ids (C4, F2, L2, L4) are the valid examples themselves and, for F2,
# the rotation tests below; C9 with numbers is checked by with_hill_numbers below.


@pytest.mark.parametrize("case", FAILING, ids=list(FAILING))
def test_failing_board_breaks_exactly_the_intended_rule(example, case):
    name, changes, want = FAILING[case]
    assert found(example(name)) == [], "the starting example must be valid"
    assert found(edit(example(name), changes)) == want


@pytest.mark.parametrize("case", PASSING, ids=list(PASSING))
def test_passing_board(example, case):
    name, changes = PASSING[case]
    assert found(edit(example(name), changes)) == []


def test_every_rule_id_has_a_failing_board():
    ids = {rule for _, _, want in FAILING.values() for rule, _ in want}
    chapters = ["training", "fauna", "flora", "vameter", "maldonado"]
    assert ids == {rid for ch in chapters for rid in get_chapter(ch).rule_ids}


@pytest.mark.parametrize(
    ("name", "changes", "want"),
    [
        (
            "fauna-201",
            {"A1": "Fz", "A2": "Fz"},
            "T1 Chapter terrains: Fezron Camp (Fz) at A1, A2 is not a terrain of this chapter",
        ),
        ("fauna-201", {"A1": "Wa"}, "C1 Water–Wood: the Water at A1 has no Wood orthogonally next to it"),
        ("fauna-201", {"A7": "Hi"}, "C1 Water–Wood: the Wood at B7 has no Water orthogonally next to it"),
        ("fauna-201", {"C4": "Hi"}, "C2 Food–Tipi: the Tipi at D3 has no Food diagonally next to it"),
        ("fauna-201", {"A1": "Sk"}, "C3 Tipi–Skull: the Skull at A1 has no Tipi among its 8 neighbours"),
        ("fauna-202", {"G5": "Hi"}, "C4 Wood lines: row G has 0 Woods, expected exactly 1"),
        ("fauna-201", {"G7": "Wo"}, "C4 Wood lines: column 7 has 2 Woods (B7, G7), expected exactly 1"),
        ("fauna-201", {"G7": "Mu"}, "C5 Mud: the Mud at G7 has no Rock orthogonally next to it"),
        ("fauna-201", {"A2": "Ro"}, "C6 Rock: the Rock at A2 is on the edge of the board"),
        (
            "fauna-202",
            {"E4": "Hi"},
            "C6 Rock: the Rocks form 2 separate groups (C4, C5, D5, E5, E6, F6; E3), expected one connected group",
        ),
        ("fauna-202", {"F6": "Hi"}, "C6 Rock: the Peak F6 is Hill, not Rock"),
        ("fauna-201", {"G5": "Vi"}, "C7 Skull sides: the Skull at F5 has Vine on two sides (G5, F4)"),
        ("fauna-202", {"G1": "Fi"}, "C8 Field: the Field at G1 has no Wood orthogonally next to it"),
        (
            "flora-201",
            {"C2": "Fc"},
            "C9 Hill numbers: the Hill at C5 shows 2 but its row and column hold 3 Flora creatures",
        ),
        (
            "vameter-201",
            {"E6": "Fz"},
            "C9 Hill numbers: the Hill at A6 shows 0 but its row and column hold 1 Fezron Camp",
        ),
        ("fauna-201", {"A3": "Hi"}, "F1 Vine–Rock columns: column 3 holds 1 Rock (B3) but no Vine"),
        ("fauna-201", {"F3": "Hi"}, "F2 Fort pattern: the map has 2 Forts (D5, E5), expected exactly 3"),
        ("fauna-201", {"D4": "Hi"}, "F2 Fort pattern: the Fort at D5 does not match the mini map in any rotation"),
        (
            "flora-201",
            {"C4": "Pf"},
            "L1 Petrified Forest ring: the Petrified Forest at C4 is 2 Paths in from the edge, expected 1",
        ),
        ("flora-201", {"B2": "Hi"}, "L2 Sacagawea: the map has 0 Sacagawea, expected exactly 1"),
        (
            "flora-201",
            {"A1": "Sa", "B2": "Wa"},
            "L2 Sacagawea: the Sacagawea at A1 has 2 Woods among its 8 neighbours (A2, B1), expected exactly 3",
        ),
        ("flora-201", {"D1": "Hi"}, "L3 Flora creatures: the map has 3 Flora creatures (C1, C7, G3), expected 4 to 8"),
        ("flora-201", {"C2": "Ft"}, "L4 Start Fort: the map has 2 Forts (C2, F7), expected exactly 1"),
        ("vameter-202", {"C7": "Fz"}, "V1 Fezron–Mud: the Fezron Camp at C7 has no Mud diagonally next to it"),
        (
            "vameter-201",
            {"G5": "Sk"},
            "V2 Fezron–Skull apart: the Fezron Camp at G4 has 1 Skull among its 8 neighbours (G5), expected none",
        ),
        (
            "vameter-201",
            {"A6": "Mf"},
            "V3 Mushroom Field: the Mushroom Field at A6 has no Food orthogonally next to it",
        ),
        (
            "maldonado-202",
            {"A1": "Ma"},
            "M1 Maldonado–Skull: the Maldonado at A1 has no Skull exactly two steps diagonally away",
        ),
        ("maldonado-201", {"B1": "Hi"}, "M2 Plenty: the map has 2 Fields (B6, C7), expected at least 3"),
    ],
)
def test_message_in_the_rulebooks_words(example, name, changes, want):
    assert want in messages(edit(example(name), changes))


def test_violation_json_shape(example):
    # As in the issue: {"rule": "C7", "cells": ["C4"], ...}: the cells that break the rule (the Skull);
    # the message names the other cells involved.
    (v,) = check_map(edit(example("fauna-201"), {"G5": "Vi"}))
    assert v.to_json() == {
        "rule": "C7",
        "cells": ["F5"],
        "message": "the Skull at F5 has Vine on two sides (G5, F4)",
    }


# --- C6: the Peak named by the briefing ---------------------------------------------------------


def test_c6_peak_moved_off_the_rocks(example):
    m = edit(example("fauna-201"), {}, peak=example("fauna-201").board.index("C4"))
    assert messages(m) == ["C6 Rock: the Peak C4 is Food, not Rock"]


def test_c6_peak_on_another_rock_passes(example):
    m = example("fauna-201")
    assert found(edit(m, {}, peak=m.board.index("B2"))) == []


# --- C9: with and without a number ---------------------------------------------------------------


def test_c9_wrong_number_on_a_hill(example):
    m = example("fauna-201")
    g5 = m.board.index("G5")
    assert m.hills[g5] == 2
    wrong = m.with_cells(m.cells, hills={**m.hills, g5: 3})
    assert messages(wrong) == ["C9 Hill numbers: the Hill at G5 shows 3 but its row and column hold 2 Forts"]


def test_c9_hill_without_a_number_is_not_checked(example):
    m = edit(example("flora-201"), {"C2": "Fc"})
    assert found(m) == [("C9", ("C5",))]
    assert found(m.with_cells(m.cells, hills={})) == []


@pytest.mark.parametrize("name", ["fauna-201", "flora-201", "vameter-201", "maldonado-201"])
def test_c9_with_hill_numbers_gives_the_numbers_of_the_file(example, name):
    m = example(name)
    assert m.hills, "these examples show their Hill numbers"
    assert with_hill_numbers(m).hills == m.hills
    unnumbered = m.with_cells(m.cells, hills={})
    assert with_hill_numbers(unnumbered).hills == m.hills


def test_c9_numbers_follow_the_counted_terrain(example):
    m = edit(example("flora-201"), {"C2": "Fc"})
    fixed = with_hill_numbers(m)
    assert fixed.hills[m.board.index("C5")] == 3
    assert found(fixed) == []


# --- F2: rotations, mirrors, the board's edge ----------------------------------------------------


def with_pattern(m: Map, text: str) -> Map:
    return dataclasses.replace(m, briefing=dataclasses.replace(m.briefing, fort_pattern=parse_pattern(text)))


def rotate_text(text: str, quarter_turns: int) -> str:
    """The pattern's rows turned clockwise by 90° ``quarter_turns`` times."""
    rows = [line.split() for line in text.strip().splitlines()]
    for _ in range(quarter_turns):
        rows = [list(r) for r in zip(*rows[::-1], strict=True)]
    return "\n".join(" ".join(r) for r in rows)


def f2_cells(m: Map) -> list[tuple[str, ...]]:
    return [v.cells for v in check_map(m) if v.rule == "F2"]


def test_f2_each_fort_matches_in_its_own_rotation(example):
    # Skull north of the Fort: F3 as drawn, E5 turned 180° (Skull south), D5 turned 270° (Skull west).
    assert found(with_pattern(example("fauna-201"), "Sk\nFt")) == []


def test_f2_a_fort_matching_only_a_quarter_turn_passes(example):
    # Tipi north of the Fort: D5 and E5 have their Tipi east (90°); F3 has no Tipi beside it.
    assert f2_cells(with_pattern(example("fauna-201"), "Ti\nFt")) == [("F3",)]


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_f2_rotated_mini_map_still_matches(example, turns):
    m = example("fauna-201")
    assert found(with_pattern(m, rotate_text(m.briefing.fort_pattern.text(), turns))) == []


@pytest.mark.parametrize(
    "mirrored",
    [".. Vi ..\n.. Ft Sk\nTi .. ..", ".. .. Ti\nSk Ft ..\n.. Vi .."],
    ids=["left-right", "top-bottom"],
)
def test_f2_mirrored_mini_map_fails(example, mirrored):
    # fauna-201's mini map is ".. Vi .. / Sk Ft .. / .. .. Ti"; its mirror images match no Fort.
    assert f2_cells(with_pattern(example("fauna-201"), mirrored)) == [("D5",), ("E5",), ("F3",)]


def test_f2_pattern_hanging_off_the_board_fails(example):
    m = example("fauna-202")  # Fort A5 on the north edge, Mud B5 south of it
    assert f2_cells(with_pattern(m, "Mu\nFt")) == []  # matches turned 180°
    # The same match with an any-terrain cell beyond the Fort would put that cell off the board.
    assert f2_cells(with_pattern(m, "Mu\nFt\n..")) == [("A5",)]


def test_f2_decoy_matching_cells_are_allowed(example):
    # "Skull north" is found around many cells that are not Forts; only the Forts must match.
    m = with_pattern(example("fauna-201"), "Sk\nFt")
    around = [[(dr, dc, t) for dr, dc, t in rot if (dr, dc) != (0, 0)] for rot in m.briefing.fort_pattern.rotations()]
    decoys = [
        i
        for i, t in enumerate(m.cells)
        if t is not Terrain.FORT and any(pattern_fits(m.board, m.cells, i, rot) for rot in around)
    ]
    assert len(decoys) > 3
    assert found(m) == []


# --- L4: the start named by the briefing ---------------------------------------------------------


def test_l4_start_not_on_the_fort(example):
    m = example("flora-201")
    moved = edit(m, {}, start=m.board.index("G7"))
    assert messages(moved) == ["L4 Start Fort: the start G7 is Food, not Fort"]


# --- the worked examples -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [f"{c}-{n}" for c in ("training", "fauna", "flora", "vameter", "maldonado") for n in (201, 202)],
)
def test_valid_examples_break_no_rule(example, name):
    assert check_map(example(name)) == []


def test_invalid_examples_break_exactly_the_expected_ids(example, expected_invalid):
    assert len(expected_invalid) == 10
    for name, ids in expected_invalid.items():
        got = {v.rule for v in check_map(example(name, "invalid"))}
        assert got == set(ids), name


# --- any board: check never crashes, and reports only its chapter's ids and real cells ------------


@st.composite
def random_map(draw) -> Map:
    """A complete map of a random chapter with random terrains (any of the 17) and random Hill numbers."""
    base = draw(st.sampled_from(BASES))
    cells = draw(st.lists(st.sampled_from(list(Terrain)), min_size=base.board.size, max_size=base.board.size))
    hills = {i: draw(st.integers(0, 12)) for i, t in enumerate(cells) if t is Terrain.HILL and draw(st.booleans())}
    return base.with_cells(cells, hills=hills)


BASES = [read_map(p) for p in sorted((Path(__file__).parent / "data" / "valid").glob("*.toml"))]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(random_map())
def test_any_board_gives_violations_with_chapter_ids_and_board_cells(m):
    chapter = get_chapter(m.chapter)
    names = set(m.board.names)
    violations = check_map(m)
    for v in violations:
        assert v.rule in chapter.rule_ids
        assert set(v.cells) <= names
        assert v.message and "\n" not in v.message
    outside = [i for i, t in enumerate(m.cells) if t not in chapter.terrains]
    assert any(v.rule == "T1" for v in violations) == bool(outside)


# --- a second, independent reading of RULES.md §3, compared on boards near the valid examples ------

CHAPTER_CODES = {
    "training": "Fo Wo Wa Mu Ro",
    "fauna": "Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft",
    "flora": "Fo Wo Wa Mu Ro Sk Ti Fi Hi Ft Pf Sa Fc",
    "vameter": "Fo Wo Wa Mu Ro Sk Ti Hi Fz Mf",
    "maldonado": "Fo Wo Wa Mu Ro Sk Ti Fi Hi Ma",
}
COUNTED = {"fauna": "Ft", "flora": "Fc", "vameter": "Fz", "maldonado": "Ma"}
ORTH = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAG = ((-1, -1), (-1, 1), (1, -1), (1, 1))
KING = ORTH + DIAG
TWO_DIAG = ((-2, -2), (-2, 2), (2, -2), (2, 2))


def reference_ids(m: Map) -> set[str]:
    """The rule ids a complete map breaks, written straight from RULES.md without the library's rule kinds."""
    h, w, ch = m.board.height, m.board.width, m.chapter
    grid = {(r, c): (m.cells[r * w + c].code if m.cells[r * w + c] else None) for r in range(h) for c in range(w)}
    where = {code: [rc for rc, t in grid.items() if t == code] for code in {t.code for t in Terrain}}

    def near(rc, offsets, code):
        return [(rc[0] + dr, rc[1] + dc) for dr, dc in offsets if grid.get((rc[0] + dr, rc[1] + dc)) == code]

    def needs(a, b, offsets, low=1, high=99):
        return all(low <= len(near(rc, offsets, b)) <= high for rc in where[a])

    def rc_of(i):
        return divmod(i, w)

    ok = {"T1": all(t in CHAPTER_CODES[ch].split() for t in grid.values())}
    ok["C1"] = needs("Wa", "Wo", ORTH) and needs("Wo", "Wa", ORTH)
    ok["C2"] = needs("Fo", "Ti", DIAG) and needs("Ti", "Fo", DIAG)
    ok["C3"] = needs("Ti", "Sk", KING) and needs("Sk", "Ti", KING)
    rows = [[grid[r, c] for c in range(w)] for r in range(h)]
    cols = [[grid[r, c] for r in range(h)] for c in range(w)]
    ok["C4"] = all(line.count("Wo") == 1 for line in rows + cols)
    ok["C5"] = needs("Mu", "Wa", ORTH) and needs("Mu", "Ro", ORTH)
    rocks = set(where["Ro"])
    inner = all(0 < r < h - 1 and 0 < c < w - 1 for r, c in rocks)
    seen, todo = set(), [min(rocks)] if rocks else []
    while todo:
        r, c = todo.pop()
        if (r, c) in seen:
            continue
        seen.add((r, c))
        todo.extend(near((r, c), ORTH, "Ro"))
    ok["C6"] = inner and seen == rocks and grid[rc_of(m.briefing.peak)] == "Ro"
    sides = [[grid[r + dr, c + dc] for dr, dc in ORTH if (r + dr, c + dc) in grid] for r, c in where["Sk"]]
    ok["C7"] = all(len(set(s)) == len(s) for s in sides)
    ok["C8"] = needs("Fi", "Fo", ORTH) and needs("Fi", "Wo", ORTH)
    if ch in COUNTED:
        ok["C9"] = all(
            rows[r].count(COUNTED[ch]) + cols[c].count(COUNTED[ch]) == n
            for (r, c), n in ((rc_of(i), shown) for i, shown in m.hills.items())
        )
    if ch == "fauna":
        ok["F1"] = all(("Vi" in col) == ("Ro" in col) for col in cols)
        pattern = [[t.code if t else None for t in row] for row in m.briefing.fort_pattern.rows]

        def fits(fr, fc):
            turned = pattern
            for _ in range(4):
                pr, pc = next((i, j) for i, row in enumerate(turned) for j, t in enumerate(row) if t == "Ft")
                if all(
                    (fr + i - pr, fc + j - pc) in grid and (t is None or grid[fr + i - pr, fc + j - pc] == t)
                    for i, row in enumerate(turned)
                    for j, t in enumerate(row)
                ):
                    return True
                turned = [list(row) for row in zip(*turned[::-1], strict=True)]  # a quarter turn clockwise
            return False

        ok["F2"] = len(where["Ft"]) == 3 and all(fits(r, c) for r, c in where["Ft"])
    if ch == "flora":
        ok["L1"] = all(min(r, c, h - 1 - r, w - 1 - c) == 1 for r, c in where["Pf"])
        ok["L2"] = len(where["Sa"]) == 1 and needs("Sa", "Wo", KING, 3, 3)
        ok["L3"] = 4 <= len(where["Fc"]) <= 8
        ok["L4"] = where["Ft"] == [rc_of(m.briefing.start)]
    if ch == "vameter":
        ok["V1"] = needs("Fz", "Mu", DIAG) and needs("Mu", "Fz", DIAG)
        ok["V2"] = needs("Fz", "Sk", KING, 0, 0)
        ok["V3"] = needs("Mf", "Fo", ORTH) and needs("Mf", "Wo", ORTH)
    if ch == "maldonado":
        ok["M1"] = needs("Ma", "Sk", TWO_DIAG) and needs("Sk", "Ma", TWO_DIAG)
        ok["M2"] = all(len(where[code]) >= 3 for code in CHAPTER_CODES[ch].split())
    if ch == "training":
        ok = {k: ok[k] for k in ("T1", "C1", "C4", "C5", "C6")}
    return {rule for rule, good in ok.items() if not good}


@st.composite
def near_valid_map(draw) -> Map:
    """A valid example with 1 to 3 cells changed (mostly to the chapter's terrains) and maybe a Hill number."""
    base = draw(st.sampled_from(BASES))
    cells = list(base.cells)
    own = [Terrain.from_code(c) for c in CHAPTER_CODES[base.chapter].split()]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, base.board.size - 1))
        cells[i] = draw(st.sampled_from(own) if draw(st.integers(0, 9)) else st.sampled_from(list(Terrain)))
    hills = dict(base.hills)
    if draw(st.booleans()):
        for i, t in enumerate(cells):
            if t is Terrain.HILL and draw(st.integers(0, 3)) == 0:
                hills[i] = draw(st.integers(0, 4))
    return base.with_cells(cells, hills=hills)


def test_reference_reading_agrees_on_the_examples(example, expected_invalid):
    for m in BASES:
        assert reference_ids(m) == set()
    for name, ids in expected_invalid.items():
        assert reference_ids(example(name, "invalid")) == set(ids), name


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(near_valid_map())
def test_check_agrees_with_an_independent_reading_of_the_rules(m):
    assert {v.rule for v in check_map(m)} == reference_ids(m)
