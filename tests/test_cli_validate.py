"""`mapgen validate` and `mapgen chapters` through click's CliRunner: exit codes, exact text, JSON shape."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import main

DATA = Path(__file__).parent / "data"
VALID = DATA / "valid"
INVALID = DATA / "invalid"
PROFILES = Path(__file__).parent.parent / "mapgen" / "profiles"
FAUNA = (VALID / "fauna-201.toml").read_text(encoding="utf-8")


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def write(tmp_path):
    """Write text to a file in tmp_path and return its path as a string."""

    def make(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return make


# --- exit codes and the readable report ----------------------------------------------------------


def test_valid_maps_exit_0():
    files = [str(p) for p in sorted(VALID.glob("*.toml"))]
    result = run("validate", *files)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"{f}: valid" for f in files]
    assert result.stderr == ""


def test_a_broken_rule_exits_1_with_a_line_per_violation():
    f = str(INVALID / "fauna-202-m.toml")
    result = run("validate", f)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{f}: 2 violations",
        "  C1 Water–Wood: the Wood at F4 has no Water orthogonally next to it",
        "  C1 Water–Wood: the Wood at G5 has no Water orthogonally next to it",
    ]
    assert result.stderr == ""


def test_skull_sides_report_in_the_rulebooks_words(write):
    # fauna-201 with G5 (a Hill) turned into a Vine: the Skull at F5 then has Vine at F4 and G5.
    f = write("c7.toml", FAUNA.replace("G   Sk  Ti  Wa  Wo  Hi2", "G   Sk  Ti  Wa  Wo  Vi"))
    result = run("validate", f)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{f}: 1 violation",
        "  C7 Skull sides: the Skull at F5 has Vine on two sides (G5, F4)",
    ]


@pytest.mark.parametrize("name", sorted(p.stem for p in INVALID.glob("*.toml")))
def test_every_invalid_example_exits_1_with_its_rule_ids(name):
    expected = json.loads((INVALID / "expected.json").read_text(encoding="utf-8"))[name]
    result = run("validate", "--json", str(INVALID / f"{name}.toml"))
    assert result.exit_code == 1
    (report,) = json.loads(result.stdout)
    assert {v["rule"] for v in report["violations"]} == set(expected)


# --- unreadable files: exit 2, one line on stderr, never a traceback -------------------------------

UNREADABLE = {
    "not TOML": ("chapter = fauna\n", "not valid TOML (Invalid value (at line 1, column 11))"),
    "unknown chapter": (
        FAUNA.replace('"fauna"', '"atlantis"'),
        "unknown chapter 'atlantis' (expected one of training, fauna, flora, vameter, maldonado)",
    ),
    "unknown code": (
        FAUNA.replace("C   Wa  Wa  Wo", "C   Wa  Qq  Wo"),
        "unknown terrain code 'Qq' at C2 (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)",
    ),
    "wrong row length": (
        FAUNA.replace("C   Wa  Wa  Wo  Fo  Vi  Sk  Hi0", "C   Wa  Wa  Wo  Fo  Vi  Sk"),
        "terrain row C has 6 cells, expected 7",
    ),
    "wrong number of rows": (
        FAUNA.replace("G   Sk  Ti  Wa  Wo  Hi2  Wa  Hi0\n", ""),
        "terrain has 6 rows, expected 7 (rows A to G): row G is missing",
    ),
    "cell off the board": (
        (VALID / "training-201.toml").read_text(encoding="utf-8").replace('peak = "C5"', 'peak = "A1"'),
        "field 'peak': cell A1 is off the board (B3 to F7)",
    ),
    "missing field": (FAUNA.replace('peak = "B4"\n', ""), "missing field 'peak'"),
    "partial map": (
        FAUNA.replace("B   Mu  Ro", "B   ..  Ro"),
        "partial map (1 unrevealed cell, first B1); validate needs a complete map, use `mapgen solve` for partial ones",
    ),
}


@pytest.mark.parametrize("case", UNREADABLE, ids=list(UNREADABLE))
def test_unreadable_file_exits_2_with_one_error_line(write, case):
    text, problem = UNREADABLE[case]
    f = write("fauna-3.toml", text)
    result = run("validate", f)
    assert result.exit_code == 2
    assert result.stderr == f"error: {f}: {problem}\n"
    assert "Traceback" not in result.output
    # a partial map was read: stdout says why it was not validated, not that it could not be read
    assert result.stdout == f"{f}: {'partial map: not validated' if case == 'partial map' else 'unreadable'}\n"


def test_the_issues_example_errors(write):
    f = write("fauna-3.toml", FAUNA.replace("C   Wa  Wa  Wo  Fo  Vi  Sk  Hi0", "C   Wa  Qq  Wo  Fo  Vi  Sk"))
    assert run("validate", f).stderr == f"error: {f}: terrain row C has 6 cells, expected 7 ('Qq' is no terrain code)\n"


def test_partial_map_points_to_mapgen_solve():
    f = str(DATA / "states" / "fauna-201-k34.toml")
    result = run("validate", f)
    assert result.exit_code == 2
    assert "`mapgen solve`" in result.stderr
    assert result.stderr.startswith(f"error: {f}: partial map (15 unrevealed cells, first A2)")
    assert result.stdout == f"{f}: partial map: not validated\n"  # it was read: "unreadable" was untrue
    body = json.loads(run("validate", f, "--json").stdout)  # --json's keys stay as they were
    assert body == [{"file": f, "valid": False, "violations": [], "error": result.stderr[len(f"error: {f}: ") : -1]}]


def test_help_says_a_partial_map_exits_2():
    """`mapgen validate --help` said "2 when any file cannot be read", but a partial map, read, exits 2 as well
    (the README says so): the help now says it, and where a partial map is deduced."""
    text = " ".join(run("validate", "--help").stdout.split())
    assert "2 when any file cannot be read or is a partial map (mapgen solve deduces one)" in text


def test_missing_file_and_directory(tmp_path):
    missing = str(tmp_path / "nope.toml")
    result = run("validate", missing, str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {missing}: no such file",
        f"error: {tmp_path}: is a directory, not a map file",
    ]


def test_no_files_is_a_usage_error():
    result = run("validate")
    assert result.exit_code == 2
    assert "Missing argument 'FILES...'" in result.stderr


# --- mixed files: 2 beats 1 beats 0 --------------------------------------------------------------


def test_mixed_valid_invalid_unreadable_exits_2(write):
    bad = write("bad.toml", "chapter = \n")
    files = [str(VALID / "flora-201.toml"), str(INVALID / "flora-201-m.toml"), bad]
    result = run("validate", *files)
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == f"{files[0]}: valid"
    assert result.stdout.splitlines()[1] == f"{files[1]}: 3 violations"
    assert result.stdout.splitlines()[-1] == f"{bad}: unreadable"
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(f"error: {bad}: not valid TOML")


def test_valid_and_invalid_exits_1():
    result = run("validate", str(VALID / "vameter-201.toml"), str(INVALID / "vameter-201-m.toml"))
    assert result.exit_code == 1


# --- --json ---------------------------------------------------------------------------------------


def test_json_shape_and_argument_order(write):
    bad = write("bad.toml", FAUNA.replace("C   Wa  Wa  Wo", "C   Wa  Qq  Wo"))
    files = [str(INVALID / "training-201-m.toml"), bad, str(VALID / "training-201.toml")]
    result = run("validate", "--json", *files)
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error: {bad}: unknown terrain code 'Qq' at C2 (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)\n"
    )
    assert json.loads(result.stdout) == [
        {
            "file": files[0],
            "valid": False,
            "violations": [{"rule": "C6", "cells": ["B5"], "message": "the Rock at B5 is on the edge of the board"}],
            "error": None,
        },
        {
            "file": bad,
            "valid": False,
            "violations": [],
            "error": "unknown terrain code 'Qq' at C2 (Fauna's codes: Fo Wo Wa Mu Ro Sk Ti Fi Hi Vi Ft)",
        },
        {"file": files[2], "valid": True, "violations": [], "error": None},
    ]


def test_json_keeps_the_path_as_given(monkeypatch):
    monkeypatch.chdir(DATA)
    result = run("validate", "--json", "valid/../valid/maldonado-202.toml", "valid/maldonado-202.toml")
    assert result.exit_code == 0
    assert [r["file"] for r in json.loads(result.stdout)] == [
        "valid/../valid/maldonado-202.toml",
        "valid/maldonado-202.toml",
    ]


def test_json_of_valid_maps_exits_0():
    result = run("validate", "--json", str(VALID / "flora-202.toml"))
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [
        {"file": str(VALID / "flora-202.toml"), "valid": True, "violations": [], "error": None}
    ]


# --- house rules ----------------------------------------------------------------------------------


def test_house_rules_file(write):
    chapter = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    house = write("house.toml", chapter.replace('"C5", ', ""))
    f = str(INVALID / "fauna-201-m.toml")  # breaks C1, C2, C3 and C5
    result = run("validate", "--json", "--rules", house, f)
    assert result.exit_code == 1
    assert {v["rule"] for v in json.loads(result.stdout)[0]["violations"]} == {"C1", "C2", "C3"}


def test_unusable_house_rules_file_exits_2(write):
    house = write("house.toml", 'name = "x"\n')
    result = run("validate", "--rules", house, str(VALID / "fauna-201.toml"))
    assert result.exit_code == 2
    assert result.stderr == f"error: {house}: chapter file: missing 'terrains'\n"


# --- mapgen chapters ------------------------------------------------------------------------------


def test_chapters_lists_every_chapter_with_terrains_and_rules_in_words():
    result = run("chapters")
    assert result.exit_code == 0
    out = result.stdout
    for title in ("Training Mission", "Fauna", "Flora", "Vameter", "Maldonado"):
        assert title in out
    assert "terrains: Food (Fo), Wood (Wo), Water (Wa), Mud (Mu), Rock (Ro)\n" in out
    assert "C4  Wood lines: Exactly 1 Wood in every row and every column." in out
    assert "M2  Plenty: At least 3 of each terrain of the chapter." in out


def test_chapters_fauna():
    result = run("chapters", "fauna")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "fauna: Chapter 1: Fauna"
    assert "  Hills count: Fort (Ft)" in lines
    ids = [line.split()[0] for line in lines[lines.index("  rules:") + 1 :]]
    assert ids == ["T1", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "F1", "F2"]
    assert any(line.startswith("    F1  Vine–Rock columns: A column that holds a Vine holds a Rock") for line in lines)


def test_chapters_json():
    result = run("chapters", "--json", "vameter")
    assert result.exit_code == 0
    (data,) = json.loads(result.stdout)
    assert data["chapter"] == "vameter" and data["counted"] == "Fz"
    assert "Fi" not in data["terrains"] and "Mf" in data["terrains"]
    assert [r["id"] for r in data["rules"]][-3:] == ["V1", "V2", "V3"]


def test_chapters_leaves_out_a_rule_about_a_terrain_the_chapter_does_not_have():
    """Vameter has Mushroom Fields (V3) and no Field: C8 ("every Field has ...") says nothing there. The validator
    still checks it (a plain Field on a Vameter map breaks T1 and C8 alike)."""
    lines = run("chapters", "vameter").stdout.splitlines()
    ids = [line.split()[0] for line in lines[lines.index("  rules:") + 1 :]]
    assert ids == ["T1", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C9", "V1", "V2", "V3"]
    (data,) = json.loads(run("chapters", "--json", "vameter").stdout)
    assert "C8" not in [r["id"] for r in data["rules"]]
    from constraints.catalogue import get_chapter

    assert "C8" in get_chapter("vameter").rule_ids  # the rules themselves are unchanged


def test_chapters_design_adds_the_profile_rules_the_generator_keeps(tmp_path):
    plain = run("chapters", "flora").stdout
    assert "P1 " not in plain
    result = run("chapters", "flora", "--design")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    ids = [line.split()[0] for line in lines[lines.index("  rules:") + 1 :]]
    plain_rules = plain.splitlines()[plain.splitlines().index("  rules:") + 1 :]
    assert ids[-3:] == ["P1", "P2", "P3"] and ids[:-3] == [x.split()[0] for x in plain_rules]
    assert any(line.startswith("    P3  Greek Fire collectable: The Greek Fire is never on a Rock") for line in lines)
    # a designer's profile: its own counts in P2, its chapter when none is named
    profile = tmp_path / "mine.toml"
    profile.write_text('chapter = "fauna"\n[counts]\nWa = [7, 9]\n', encoding="utf-8")
    (data,) = json.loads(run("chapters", "--profile", str(profile), "--json").stdout)
    assert data["chapter"] == "fauna"
    p2 = next(r for r in data["rules"] if r["id"] == "P2")
    assert "Wa = [7, 9]" in p2["text"]
    wrong = run("chapters", "flora", "--profile", str(profile))
    assert wrong.exit_code == 2 and wrong.stderr == f"error: {profile}: this profile is for chapter fauna, not flora\n"


def test_unknown_chapter_errors_cleanly():
    result = run("chapters", "atlantis")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "error: unknown chapter 'atlantis' (expected one of training, fauna, flora, vameter, maldonado)\n"
    )


# --- the validate path stays light ---------------------------------------------------------------


def test_validate_does_not_import_ortools():
    script = (
        "import sys, cli\n"
        "try:\n"
        f"    cli.main(['validate', {str(VALID / 'fauna-201.toml')!r}])\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "heavy = sorted(m for m in ('ortools', 'matplotlib', 'constraint', 'pyganak') if m in sys.modules)\n"
        "print('heavy:', heavy)\n"
    )
    root = Path(__file__).parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, cwd=root, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "heavy: []"


def test_house_rules_for_another_board(write):
    chapter = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    house = write("house.toml", chapter)
    f = str(VALID / "training-201.toml")
    result = run("validate", "--rules", house, f)
    assert result.exit_code == 2
    assert result.stderr == f"error: {f}: a training map does not fit the board of chapter fauna\n"


def test_house_rules_of_another_chapter_are_refused_not_applied(write):
    chapter = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    house = write("house.toml", chapter)  # a copied fauna.toml, checked against a flora map: T1 and F1 everywhere
    f = str(VALID / "flora-202.toml")
    result = run("validate", "--rules", house, f)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {f}: a flora map, but the rules are chapter fauna's (a house-rule file for flora maps says "
        'name = "flora")\n'
    )


def test_chapters_design_of_a_house_file_adds_its_own_profile(write):
    chapter = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    house = write("house.toml", chapter.replace('profile = "fauna.toml"\n', ""))  # no profile: P1 only
    lines = run("chapters", "--rules", house, "--design").stdout.splitlines()
    assert [line.split()[0] for line in lines[lines.index("  rules:") + 1 :]][-2:] == ["F2", "P1"]


def test_chapter_names_are_case_insensitive_as_in_map_files():
    assert run("chapters", "Fauna").stdout == run("chapters", "fauna").stdout


@pytest.mark.parametrize("name", ["training", "fauna", "flora", "vameter", "maldonado"])
def test_chapters_out_writes_the_shipped_file_that_rules_takes_unchanged(name, tmp_path, monkeypatch):
    """The README said "copy constraints/chapters/fauna.toml": after `pip install .` a designer working elsewhere had
    no way to find that file. `chapters NAME -o FILE` writes it, byte for byte, in any folder; --rules takes it."""
    monkeypatch.chdir(tmp_path)
    shipped = (Path(__file__).parent.parent / "constraints" / "chapters" / f"{name}.toml").read_bytes()
    r = run("chapters", name.title(), "-o", "house.toml")
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert r.stderr == f"wrote house.toml ({name}'s rules: change them, then give --rules house.toml)\n"
    assert (tmp_path / "house.toml").read_bytes() == shipped
    assert run("chapters", "-o", "-", name).stdout.encode("utf-8") == shipped  # -: printed, as repair -o -
    house = run("chapters", "--rules", "house.toml")
    assert house.exit_code == 0 and house.stdout == run("chapters", name).stdout
    r = run("validate", str(VALID / f"{name}-201.toml"), "--rules", "house.toml")
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["house.toml"]  # no temporary file left


@pytest.mark.parametrize("name", ["training", "fauna", "flora", "vameter", "maldonado"])
def test_chapters_design_out_writes_the_default_profile_that_generate_takes(name, tmp_path, monkeypatch):
    """The README said "copy mapgen/profiles/CHAPTER.toml": after `pip install .` that file sits in site-packages.
    `chapters NAME --design -o FILE` writes the chapter's default profile (the design rules --design shows), byte
    for byte with the comments that explain each setting; `generate --profile FILE` makes the default's map."""
    monkeypatch.chdir(tmp_path)
    shipped = (PROFILES / f"{name}.toml").read_bytes()
    r = run("chapters", name.title(), "--design", "-o", "my-profile.toml")
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert r.stderr == (
        f"wrote my-profile.toml ({name}'s default design profile: change it, "
        "then give generate --profile my-profile.toml)\n"
    )
    written = (tmp_path / "my-profile.toml").read_bytes()
    assert written == shipped and written.startswith(b"# Design defaults")  # the comments too
    assert run("chapters", name, "--design", "-o", "-").stdout.encode("utf-8") == shipped
    assert run("chapters", name, "--profile", "my-profile.toml").stdout == run("chapters", name, "--design").stdout
    default = run("generate", "-c", name, "--seed", "5")
    mine = run("generate", "-c", name, "--seed", "5", "--profile", "my-profile.toml")
    assert default.exit_code == mine.exit_code == 0, mine.output
    assert 'profile = "my-profile.toml"' in mine.stdout
    assert mine.stdout.replace('profile = "my-profile.toml"', 'profile = "default"') == default.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my-profile.toml"]  # no temporary file left


def test_chapters_design_out_keeps_an_existing_file_unless_force(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my-profile.toml").write_text("mine", encoding="utf-8")
    r = run("chapters", "fauna", "--design", "-o", "my-profile.toml")
    assert r.exit_code == 2 and r.stderr == "error: my-profile.toml: already exists; use --force to overwrite\n"
    assert (tmp_path / "my-profile.toml").read_text(encoding="utf-8") == "mine"
    r = run("chapters", "fauna", "--design", "-o", "my-profile.toml", "--force")
    assert r.exit_code == 0 and (tmp_path / "my-profile.toml").read_bytes() == (PROFILES / "fauna.toml").read_bytes()


def test_chapters_design_out_of_a_house_file_writes_the_profile_it_names(write, tmp_path, monkeypatch):
    """Under --rules, --design shows the house file's own profile; --design -o writes that one (none: refused)."""
    monkeypatch.chdir(tmp_path)
    chapter = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    house = write("house.toml", chapter)
    r = run("chapters", "--rules", house, "--design", "-o", "p.toml")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "p.toml").read_bytes() == (PROFILES / "fauna.toml").read_bytes()
    r = run("chapters", "--rules", house, "--design", "-o", house, "--force")  # never over the rules it reads
    assert r.exit_code == 2 and "is also an input of this command" in r.stderr, r.output
    assert Path(house).read_text(encoding="utf-8") == chapter
    bare = write("bare.toml", chapter.replace('profile = "fauna.toml"\n', ""))
    r = run("chapters", "--rules", bare, "--design", "-o", "q.toml")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.stderr.startswith(f"error: {bare}: names no profile (its maps keep P1 Reachable only)")
    assert not (tmp_path / "q.toml").exists()


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["-o", "house.toml"],
            "error: --out: name the chapter whose file to write: mapgen chapters fauna -o house.toml",
        ),
        (["nope", "-o", "house.toml"], "error: unknown chapter 'nope' (expected one of training, fauna, flora, "),
        (["fauna", "-o", "house.toml", "--json"], "error: --json: --out writes the chapter's TOML file; drop --json"),
        (
            ["fauna", "-o", "house.toml", "--profile", "{profile}"],
            "error: --profile: already a profile file: copy it (--design --out writes a chapter's default profile)",
        ),
        (
            ["--design", "-o", "my-profile.toml"],
            "error: --out: name the chapter whose profile to write: mapgen chapters fauna --design -o my-profile.toml",
        ),
        (["fauna", "--design", "-o", "p.toml", "--json"], "error: --json: --out writes the chapter's TOML file; drop"),
        (["-o", "house.toml", "--rules", "{fauna}"], "error: --rules: already a chapter file: copy it (--out writes"),
    ],
)
def test_chapters_out_refuses_what_it_cannot_write(args, line, tmp_path, monkeypatch):
    """Each refusal is one line, exit 2, and nothing written: --json, --design and --rules were else dropped."""
    monkeypatch.chdir(tmp_path)
    fauna = str(Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml")
    profile = str(PROFILES / "fauna.toml")
    r = run("chapters", *(a.format(fauna=fauna, profile=profile) for a in args))
    assert r.exit_code == 2 and r.stderr.startswith(line) and r.stderr.count("\n") == 1, r.output
    assert list(tmp_path.iterdir()) == []


# RULES.md §2 and §3 as written there (the shared specification), transcribed: each chapter's terrain codes, and
# every rule id with its title. `mapgen chapters` is the Reference Board; it must say what the specification says.
SPEC_TITLES = {
    "T1": "Chapter terrains", "C1": "Water–Wood", "C2": "Food–Tipi", "C3": "Tipi–Skull", "C4": "Wood lines",
    "C5": "Mud", "C6": "Rock", "C7": "Skull sides", "C8": "Field", "C9": "Hill numbers", "F1": "Vine–Rock columns",
    "F2": "Fort pattern", "L1": "Petrified Forest ring", "L2": "Sacagawea", "L3": "Flora creatures",
    "L4": "Start Fort", "V1": "Fezron–Mud", "V2": "Fezron–Skull apart", "V3": "Mushroom Field",
    "M1": "Maldonado–Skull", "M2": "Plenty",
}  # fmt: skip
CORE = ["T1", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"]
BASIC = ["Fo", "Wo", "Wa", "Mu", "Ro"]
SPEC_CHAPTERS = {  # terrains (§2's "chapters" column), rules (§3: core, then the chapter's own), counted (C9)
    "training": (BASIC, ["T1", "C1", "C4", "C5", "C6"], None),
    "fauna": ([*BASIC, "Sk", "Ti", "Fi", "Hi", "Vi", "Ft"], [*CORE, "F1", "F2"], "Ft"),
    "flora": ([*BASIC, "Sk", "Ti", "Fi", "Hi", "Ft", "Pf", "Sa", "Fc"], [*CORE, "L1", "L2", "L3", "L4"], "Fc"),
    # C8 (Field) is left out where the chapter has no Field (README, "Map files"); the validator still checks it
    "vameter": ([*BASIC, "Sk", "Ti", "Hi", "Fz", "Mf"], [r for r in CORE if r != "C8"] + ["V1", "V2", "V3"], "Fz"),
    "maldonado": ([*BASIC, "Sk", "Ti", "Fi", "Hi", "Ma"], [*CORE, "M1", "M2"], "Ma"),
}
SPEC_FIELDS = {  # RULES.md §4: the briefing fields a chapter's map file holds, required and optional
    "training": (["peak"], []),
    "fauna": (["peak", "fort_pattern"], []),
    "flora": (["peak", "start"], ["greek_fire"]),
    "vameter": (["peak"], []),
    "maldonado": (["peak"], []),
}


def test_chapters_say_what_rules_md_says():
    """Every chapter's terrains, rule ids and titles and counted terrain in `mapgen chapters --json` are those of
    RULES.md, and its text says the same rules with the same titles, in the same order."""
    data = json.loads(run("chapters", "--json").stdout)
    assert [c["chapter"] for c in data] == list(SPEC_CHAPTERS)
    text = run("chapters").stdout
    for c in data:
        terrains, ids, counted = SPEC_CHAPTERS[c["chapter"]]
        assert (sorted(c["terrains"]), [r["id"] for r in c["rules"]], c["counted"]) == (sorted(terrains), ids, counted)
        for r in c["rules"]:
            assert r["title"] == SPEC_TITLES[r["id"]]
            assert f"    {r['id']:<3} {r['title']}: {r['text']}\n" in text


def test_chapters_json_names_the_fields_a_map_file_needs_as_the_text_does():
    """The text's "map file fields" line (a missing one is exit 2 when a hand-made map is read) had no key in
    --json: a program drawing a map form could not learn that Fauna needs fort_pattern or Flora start."""
    for c in json.loads(run("chapters", "--json").stdout):
        required, optional = SPEC_FIELDS[c["chapter"]]
        assert c["fields"] == {"required": ["chapter", *required, "terrain"], "optional": optional}


def test_chapters_json_of_a_house_file_names_it_and_its_fingerprint(write):
    """`chapters --rules FILE --json` was the shipped chapter's JSON to the key: nothing said which rules it
    described. It names the file and the rules' fingerprint, as compile's and grade's JSON do (a map made under
    house rules records that fingerprint); the shipped chapters' JSON has neither key."""
    from constraints.catalogue import load_chapter
    from mapgen.solving.compiled import chapter_fingerprint

    chapter = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    house = write("house.toml", chapter + '\n[[rule]]\nid = "H1"\ntitle = "Few Skulls"\ntext = "At most 4 Skulls."\n'
                  'checks = [{ kind = "count", terrain = "Sk", at_most = 4 }]\n')  # fmt: skip
    (data,) = json.loads(run("chapters", "--rules", house, "--json").stdout)
    assert data["rules_file"] == house and data["rules_fingerprint"] == chapter_fingerprint(load_chapter(house))
    assert [r["id"] for r in data["rules"]][-1] == "H1"
    (shipped,) = json.loads(run("chapters", "fauna", "--json").stdout)
    assert "rules_file" not in shipped and "rules_fingerprint" not in shipped


@pytest.mark.parametrize(("given", "meant"), [("faun", "fauna"), ("Flor", "flora"), ("maldonad", "maldonado")])
def test_a_misspelt_chapter_names_the_one_meant(given, meant, write):
    """`mapgen chapters faun` listed the chapters but did not say which was meant, where `--chapter faun` and a
    shipped map's name (`fauna-11`) do; a map file's `chapter = "faun"` alike. Still exit 2, one line."""
    r = run("chapters", given)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert r.stderr == (
        f"error: unknown chapter {given!r}: did you mean {meant}? "
        "(expected one of training, fauna, flora, vameter, maldonado)\n"
    )
    f = write("m.toml", FAUNA.replace('chapter = "fauna"', f'chapter = "{given}"'))
    r = run("validate", f)
    assert r.exit_code == 2 and f"unknown chapter {given!r}: did you mean {meant}? (expected" in r.stderr, r.output


def test_an_empty_chapter_name_is_refused_not_read_as_every_chapter():
    """`mapgen chapters ""` (an unset shell variable) printed every chapter, exit 0."""
    r = run("chapters", "")
    assert r.exit_code == 2 and r.stderr.startswith("error: unknown chapter ''"), r.output
