"""The shipped maps: enough per chapter, all valid and playable, usable by name."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints.catalogue import chapter_names, check_map
from mapgen.design import check_design
from mapgen.mapfile import GRADED_MAP, map_fingerprint
from mapgen.profile import default_profile


def test_valid_playable_maps_in_every_chapter():
    for chapter in chapter_names():
        names = maps.names(chapter)
        assert len(names) >= 2, chapter
        for name in names:
            m = maps.load(name)
            assert m.chapter == chapter
            assert check_map(m) == [], name
            assert check_design(m, default_profile(chapter)) == [], name


def test_the_library_holds_8_graded_maps_per_chapter_easiest_first():
    """maps/CHAPTER/: 8 maps per chapter (Training 2) spanning the deduction grades, each with its [grade] table,
    numbered by grade (then by the heuristic's win rate when the library was built: a regrade keeps the numbers);
    what `python -m maps.build` writes."""
    from mapgen.quality import TIERS

    for chapter in chapter_names():
        names = maps.names(chapter)
        assert len(names) == (2 if chapter == "training" else 8), chapter
        tables = [maps.load(n).meta["grade"] for n in names]
        order = [TIERS.index(t["tier"]) for t in tables]
        assert order == sorted(order), chapter
        if chapter != "training":
            assert {t["tier"] for t in tables} == set(TIERS), chapter
        assert all(maps.path(n).parent.name == chapter for n in names)
        # one numbering: CHAPTER-N.toml is map number N (its picture says "Map N")
        assert [maps.load(n).briefing.number for n in names] == list(range(1, len(names) + 1)), chapter


def test_maps_are_usable_by_name_from_the_cli():
    r = CliRunner().invoke(main, ["validate", "fauna-1", "--json"])
    assert r.exit_code == 0, r.output
    assert '"file": "fauna-1"' in r.stdout
    r = CliRunner().invoke(main, ["solve", "training-1", "--json"])
    assert r.exit_code == 0 and '"unique": true' in r.stdout
    r = CliRunner().invoke(main, ["validate", "fauna-999"])
    assert r.exit_code == 2 and "error: fauna-999: no such file" in r.stderr


def test_mapgen_maps_lists_the_shipped_maps_by_chapter_with_their_recorded_grade():
    """`mapgen maps` was "No such command": testers had no way to see which maps ship. It lists them by chapter
    (the game's order), each with its deduction grade and play difficulty as its [grade] table records them."""
    r = CliRunner().invoke(main, ["maps"])
    assert r.exit_code == 0, r.output
    blocks = r.stdout.rstrip("\n").split("\n\n")
    assert [b.splitlines()[0].rpartition("(")[2].split(":")[0] for b in blocks] == list(chapter_names())
    listed = [ln.split()[0] for b in blocks for ln in b.splitlines()[1:]]
    assert listed == [n for ch in chapter_names() for n in maps.names(ch)]
    line = next(ln for ln in r.stdout.splitlines() if ln.split()[:1] == ["fauna-4"])
    t = maps.load("fauna-4").meta["grade"]
    fair = f"play: {t['play']['fair_bot']} wins {100 * t['play']['fair_win_rate']:.0f}%"
    assert line.split()[1] == t["tier"] and fair in line and f"oracle {100 * t['play']['oracle_win_rate']:.0f}%" in line
    r = CliRunner().invoke(main, ["maps", "--chapter", "Flora", "--json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["name"] for x in rows] == maps.names("flora")
    for x in rows:
        t = maps.load(x["name"]).meta["grade"]
        assert (x["chapter"], x["number"], x["grade"]) == ("flora", int(x["name"].split("-")[1]), t["tier"])
        assert x["play"] == {k: t["play"][k] for k in ("fair_bot", "fair_win_rate", "oracle_win_rate", "gap")}


def test_mapgen_maps_says_when_a_map_records_no_grade(tmp_path, monkeypatch):
    (tmp_path / "fauna").mkdir()
    text = maps.path("fauna-1").read_text(encoding="utf-8").split("\n[grade]")[0]
    (tmp_path / "fauna" / "fauna-1.toml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(maps, "FOLDER", tmp_path)
    assert maps.info("fauna-1") | {"grade": None, "play": None} == maps.info("fauna-1")
    r = CliRunner().invoke(main, ["maps", "-c", "fauna"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["Chapter 1: Fauna (fauna: 1 map)", "  fauna-1  –  play not graded"]


def test_maps_in_a_chapter_folder_keep_their_names(tmp_path, monkeypatch):
    (tmp_path / "fauna").mkdir()
    (tmp_path / "fauna" / "fauna-1.toml").write_text(maps.path("fauna-1").read_text(encoding="utf-8"))
    (tmp_path / "training-2.toml").write_text(maps.path("training-2").read_text(encoding="utf-8"))
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "draft-1.toml").write_text("not a shipped map")  # only CHAPTER/CHAPTER-N.toml counts
    monkeypatch.setattr(maps, "FOLDER", tmp_path)
    assert maps.names() == ["fauna-1", "training-2"] and maps.names("fauna") == ["fauna-1"]
    assert maps.path("fauna-1") == tmp_path / "fauna" / "fauna-1.toml"
    assert maps.resolve("fauna-1") == str(tmp_path / "fauna" / "fauna-1.toml")
    assert maps.load("fauna-1").chapter == "fauna"


def test_spearman_rank_correlation_of_the_library_table():
    from maps.build import spearman

    assert spearman([0, 1, 2, 3], [0.9, 0.7, 0.5, 0.1]) == pytest.approx(-1.0)
    assert spearman([0, 0, 1, 1], [1, 2, 3, 4]) == pytest.approx(2 / 5**0.5)  # ties: average ranks
    assert spearman([0, 0, 1, 1], [1, 1, 4, 4]) == pytest.approx(1.0)
    assert spearman([1, 2], [2, 1]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


def test_a_grade_table_reads_back_as_the_grade_it_records():
    """The library's README table can be made from the map files (a regrade of some chapters refreshes the
    whole table): a [grade] table read back gives the same table, on every shipped map."""
    from mapgen.grade import MapGrade, report_markdown

    for name in maps.names():
        m = maps.load(name)
        back = MapGrade.from_table(name, m, m.meta["grade"])
        assert back.table() == {k: v for k, v in m.meta["grade"].items() if k != GRADED_MAP}, name
        assert name in report_markdown([back])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["training-1", "fauna-1"])
def test_a_library_grade_table_is_what_mapgen_grade_says_now(name):
    """The [grade] table a shipped map carries is the grade the engine and bots give it today (after a
    change to either, `python -m maps.build --regrade --force` refreshes the library)."""
    from mapgen.grade import GradeSettings, grade
    from mapgen.quality import DEFAULT_GAMES, chapter_quality

    m = maps.load(name)
    now = grade(m, GradeSettings(games=dict(DEFAULT_GAMES), seed=0), quality=chapter_quality(m.chapter)).table()
    assert now == {k: v for k, v in m.meta["grade"].items() if k != GRADED_MAP}  # the map it graded: recorded apart


@pytest.mark.slow
def test_a_regrade_keeps_every_map_under_its_number(tmp_path):
    """A map's name is how users know it (``mapgen playtest training-1``): a regrade after a bot change gives the
    same maps new tables under the same numbers, even where the grades would order them otherwise (here the
    Moderate map numbered 1 and the Gentle one 2, which a build would number the other way)."""
    from dataclasses import replace

    from mapgen.mapfile import dumps_map
    from maps.build import main as build

    (tmp_path / "training").mkdir()
    swapped = {"training-1": maps.load("training-2"), "training-2": maps.load("training-1")}
    for n, m in swapped.items():
        m = replace(m, briefing=replace(m.briefing, number=int(n[-1])))
        (tmp_path / "training" / f"{n}.toml").write_text(dumps_map(m), encoding="utf-8")
    assert build(["--regrade", "--chapters", "training", "--games", "4", "--out", str(tmp_path), "--force"]) == 0
    for n, m in swapped.items():
        again = maps.load(str(tmp_path / "training" / f"{n}.toml"))
        assert map_fingerprint(again) == map_fingerprint(m) and again.briefing.number == int(n[-1])
        assert again.meta["grade"]["heuristic"]["games"] == 4


@pytest.mark.slow
def test_regrade_refreshes_the_grade_tables_and_refuses_to_overwrite_without_force(tmp_path):
    from maps.build import main as build

    (tmp_path / "training").mkdir()
    before = {}
    for n in maps.names("training"):
        text = maps.path(n).read_text(encoding="utf-8")
        (tmp_path / "training" / f"{n}.toml").write_text(text, encoding="utf-8")
        before[n] = text
    args = ["--regrade", "--chapters", "training", "--games", "4", "--out", str(tmp_path)]
    assert build(args) == 2  # the files exist: refused before any grading, nothing changed
    assert {n: (tmp_path / "training" / f"{n}.toml").read_text(encoding="utf-8") for n in before} == before
    assert build([*args, "--force"]) == 0
    for n in before:
        m = maps.load(str(tmp_path / "training" / f"{n}.toml"))
        assert f"{m.chapter}-{m.briefing.number}" == n  # renumbered as named
        table = m.meta["grade"]
        assert table[GRADED_MAP] == map_fingerprint(m)  # the map it graded, so an edit since is told apart
        assert table["heuristic"]["games"] == 4 and table["deducer"]["games"] == 4
        # the play difficulty (issues 22, 41): the fast fair bot and the oracle (half of N each), the gap between them
        assert table["scout"]["games"] == 2 and table["oracle"]["games"] == 2
        assert table["play"]["gap"] == table["gap"]
        lo, hi = table["play"]["gap_ci"]
        assert -1 <= lo <= table["gap"] <= hi <= 1
    assert not (tmp_path / "README.md").exists()  # one chapter cannot fill the library's table


def test_the_readme_says_how_the_shipped_maps_are_numbered():
    """The README said "A generated map is numbered by its seed (the shipped ones too: fauna-1 is `generate -c fauna
    --seed 1`)": true of fauna-1 only. The shipped maps are numbered easiest first and their `[generator]` seed
    says which seed makes each (fauna-2 is seed 4): a user typing `generate -c fauna --seed 2` for fauna-2 got
    another map. Every such claim of the README is checked against the shipped files."""
    import re
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    seeds = {n: maps.load(n).meta["generator"]["seed"] for n in maps.names()}
    numbers = {n: maps.load(n).briefing.number for n in maps.names()}
    said = " ".join(readme.split())
    assert ("numbered by its seed (the shipped ones too" in said) == all(seeds[n] == numbers[n] for n in seeds)
    claims = re.findall(r"([a-z]+-\d+) is `(?:mapgen )?generate -c [a-z]+ --seed (\d+)`", said)
    assert claims
    for name, seed in claims:
        assert seeds[name] == int(seed), (name, seed)
