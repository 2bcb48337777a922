"""Generated maps: valid, playable, balanced, reproducible, diverse; impossible requests explained."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from cli import main
from constraints.catalogue import chapter_names, check_map
from mapgen.design import check_design, reachable_cells
from mapgen.generate import GenerationError, Generator
from mapgen.mapfile import dumps_map, parse_map, read_map
from mapgen.profile import ProfileError, default_profile, load_profile
from mapgen.terrain import Terrain

GENERATORS = {name: Generator(name) for name in chapter_names()}


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True)
@given(chapter=st.sampled_from(chapter_names()), seed=st.integers(0, 2**40))
def test_every_generated_map_keeps_every_rule_and_setting(chapter, seed):
    gen = GENERATORS[chapter]
    m = gen.generate(seed).map
    assert m.complete
    assert check_map(m) == []
    assert check_design(m, gen.profile) == []
    assert len(reachable_cells(m)) == m.board.size
    # Hill numbers are written, and right (C9 checks them)
    assert set(m.hills) == set(m.cells_of(Terrain.HILL))
    assert parse_map(dumps_map(m)) == m


@pytest.mark.parametrize("chapter", chapter_names())
def test_same_seed_same_bytes_and_seeds_differ(chapter):
    a = Generator(chapter).generate(11).map
    b = Generator(chapter).generate(11).map
    assert dumps_map(a) == dumps_map(b)
    assert a.meta["generator"]["seed"] == 11
    assert "ortools" in a.meta["generator"] and "mapgen" in a.meta["generator"]
    maps = [GENERATORS[chapter].generate(s).map for s in range(6)]
    distances = [sum(x != y for x, y in zip(p.cells, q.cells)) for k, p in enumerate(maps) for q in maps[k + 1 :]]
    assert min(distances) > 0
    assert sum(distances) / len(distances) > maps[0].board.size / 4


@pytest.mark.parametrize("chapter", chapter_names())
def test_a_generator_bounded_by_counted_work_makes_the_seed_s_map_or_says_its_work_ran_out(chapter):
    """``Generator(..., work=...)`` (repair's check that a seed still makes its map, the same on any load) bounds the
    search by CP-SAT's deterministic time alone: the same map as `generate --seed` for every seed (one worker: the
    same search), and a work too small to find one is a GenerationTimeout that says so, never another map."""
    bounded = Generator(chapter, work=2.0)
    for seed in (0, 1, 11, 23):
        assert dumps_map(bounded.generate(seed).map) == dumps_map(GENERATORS[chapter].generate(seed).map)
    with pytest.raises(GenerationError, match=r"within the work of 1e-09 deterministic seconds \(seed 3\)$"):
        Generator(chapter, work=1e-9).generate(3)


def test_generate_map_is_the_one_call_api():
    from mapgen.generate import generate_map

    m = generate_map("vameter", 4)
    assert check_map(m) == [] and dumps_map(m) == dumps_map(GENERATORS["vameter"].generate(4).map)


def test_briefings_follow_the_chapter():
    fauna = GENERATORS["fauna"].generate(3).map
    pattern = fauna.briefing.fort_pattern
    cells = [t for row in pattern.rows for t in row if t is not None and t is not Terrain.FORT]
    lo, hi = GENERATORS["fauna"].profile.pattern_cells
    assert lo <= len(cells) <= hi
    flora = GENERATORS["flora"].generate(3).map
    b = flora.board
    assert b.name(flora.briefing.start).endswith("7")
    assert flora.cells[flora.briefing.start] is Terrain.FORT
    assert flora.briefing.greek_fire not in (flora.briefing.start, flora.briefing.peak)
    assert GENERATORS["maldonado"].generate(3).map.briefing.peak == b.index("C4")
    training = GENERATORS["training"].generate(3).map
    assert training.board.size == 25 and not training.board.is_edge(training.briefing.peak)


def test_profile_settings_are_obeyed(tmp_path):
    p = tmp_path / "wet.toml"
    p.write_text('chapter = "vameter"\npeak = "D4"\n[counts]\nWa = [11, 11]\nHi = [0, 0]\n', encoding="utf-8")
    gen = Generator("vameter", load_profile(p))
    m = gen.generate(5).map
    assert len(m.cells_of(Terrain.WATER)) == 11
    assert m.cells_of(Terrain.HILL) == []
    assert m.board.name(m.briefing.peak) == "D4"


def test_impossible_request_names_the_conflict(tmp_path):
    p = tmp_path / "forts.toml"
    p.write_text('chapter = "fauna"\n[counts]\nFt = [20, 20]\n', encoding="utf-8")
    with pytest.raises(GenerationError) as err:
        Generator("fauna", load_profile(p), time_limit=20).generate(1)
    message = str(err.value)
    assert "counts.Ft = [20, 20]" in message
    assert "F2 Fort pattern" in message
    # the smallest set: F2's "exactly 3" alone conflicts with twenty Forts (CP-SAT's own core named C2, C5, C6, C8)
    assert re.findall(r"(?:rule|profile setting) (\S+)", message) == ["F2", "counts.Ft"]


def test_contradictory_minimums_are_explained(tmp_path):
    p = tmp_path / "full.toml"
    p.write_text('chapter = "training"\n[counts]\nWa = [15, 25]\nFo = [15, 25]\n', encoding="utf-8")
    with pytest.raises(GenerationError) as err:
        Generator("training", load_profile(p), time_limit=20).generate(1)
    assert "counts.Wa" in str(err.value) and "counts.Fo" in str(err.value)


def test_minimums_no_7x7_map_can_hold_name_the_settings_not_a_time_out(tmp_path, slow_clock):
    """20 Waters and 20 Foods on a 7x7 Fauna map (with its 7 Woods and 3 Forts: 50 cells of 49): each random
    briefing's search ran to the 10 s time limit, so `generate --profile` ended with exit 3 ("try a larger
    --time-limit") or named a conflict of one random briefing's mini map, never the two settings. (Naming them takes
    CONFLICT_MOST's work, 6.6 CPU s, counted: the wall clock runs 50 times slower here (``slow_clock``), as 60 s of it
    ran out first on a machine busy enough to give the test a tenth of a core.)"""
    p = tmp_path / "wet-and-fed.toml"
    p.write_text('chapter = "fauna"\n[counts]\nWa = [20, 30]\nFo = [20, 30]\n', encoding="utf-8")
    r = run("generate", "--chapter", "fauna", "--seed", "2", "--profile", str(p), "--time-limit", "60")
    assert r.exit_code == 1 and r.stdout == "", r.stderr
    assert r.stderr.startswith(f"error: {p}: no fauna map can meet all of these together: ")
    assert "profile setting counts.Wa = [20, 30]" in r.stderr and "profile setting counts.Fo = [20, 30]" in r.stderr
    assert "rule C4 Wood lines" in r.stderr  # the seven Woods are what fills the board


def test_bad_profiles_are_one_line_errors(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('chapter = "fauna"\n[counts]\nQq = [1, 2]\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="unknown terrain code 'Qq'"):
        load_profile(p)
    with pytest.raises(ProfileError, match="for chapter fauna, not flora"):
        load_profile(p, "flora")
    with pytest.raises(ProfileError, match="no such file"):
        load_profile(tmp_path / "missing.toml")
    assert default_profile("fauna").reachable


def test_a_fixed_mini_map_that_cannot_be_read_is_a_profile_error(tmp_path):
    """A profile's fixed fort_pattern with two Forts made `generate --profile` crash with a ValueError traceback
    at the first map; it is a bad profile: one line naming the file, exit 2, before any map is made."""
    p = tmp_path / "two-forts.toml"
    p.write_text('chapter = "fauna"\nfort_pattern = """\nFt Ft\n"""\n', encoding="utf-8")
    with pytest.raises(ProfileError, match="fort_pattern: fort_pattern must hold exactly one Ft, found 2"):
        load_profile(p)
    r = run("generate", "--chapter", "fauna", "--seed", "1", "--profile", str(p))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {p}: fort_pattern: ") and r.stderr.count("\n") == 1


def test_a_mini_map_table_without_terrains_takes_the_shipped_profile_s_and_counts_are_whole_numbers(tmp_path):
    """A designer's [fort_pattern] table naming no terrains drew mini maps with Mud, which the shipped Fauna
    profile leaves out on purpose (most such briefings admit no map); `cells = [true, 2]` was read as [1, 2]."""
    p = tmp_path / "mine.toml"
    p.write_text('chapter = "fauna"\n[fort_pattern]\ncells = [2, 3]\n', encoding="utf-8")
    assert load_profile(p).pattern_terrains == default_profile("fauna").pattern_terrains
    p.write_text('chapter = "fauna"\n[fort_pattern]\ncells = [true, 2]\n', encoding="utf-8")
    with pytest.raises(ProfileError, match=r"fort_pattern.cells must be \[least, most\] between 1 and 8"):
        load_profile(p)


# -- the command line ---------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_prints_exactly_one_map_file():
    r = run("generate", "--chapter", "fauna", "--seed", "7")
    assert r.exit_code == 0, r.output
    m = parse_map(r.stdout)
    assert check_map(m) == []
    assert r.stdout == run("generate", "--chapter", "fauna", "--seed", "7").stdout


def test_cli_writes_a_batch_and_never_overwrites(tmp_path):
    out = tmp_path / "maps"
    r = run("generate", "-c", "flora", "--seed", "100", "--count", "3", "--out", str(out))
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in out.iterdir())
    assert files == ["flora-100.toml", "flora-101.toml", "flora-102.toml"]
    for f in out.iterdir():
        assert check_map(read_map(f)) == []
    (out / "flora-101.toml").write_text("mine", encoding="utf-8")
    r = run("generate", "-c", "flora", "--seed", "100", "--count", "3", "--out", str(out))
    assert r.exit_code == 2  # an output file in the way is a bad destination: exit 2, before any map is made
    assert (
        r.stderr
        == f"error: {out / 'flora-100.toml'}: already exists (and 2 more of the 3 files); use --force to overwrite\n"
    )
    assert (out / "flora-101.toml").read_text(encoding="utf-8") == "mine"
    r = run("generate", "-c", "flora", "--seed", "100", "--count", "3", "--out", str(out), "--force")
    assert r.exit_code == 0
    assert check_map(read_map(out / "flora-101.toml")) == []
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left


def test_cli_out_named_like_a_map_file_is_refused_not_made_a_folder(tmp_path):
    # `repair -o fixed.toml` writes a file; `generate -o my-map.toml` made a folder named my-map.toml
    out = tmp_path / "my-map.toml"
    r = run("generate", "-c", "fauna", "--seed", "7", "-o", str(out))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == (
        f"error: {out}: --out is a folder (maps are written in it as CHAPTER-SEED.toml), not a map file; "
        f"to write one map to this file: mapgen generate ... > {out}\n"
    )
    assert not out.exists()
    out.mkdir()  # a folder the designer did name so is still a folder
    r = run("generate", "-c", "fauna", "--seed", "7", "-o", str(out))
    assert r.exit_code == 0 and [p.name for p in out.iterdir()] == ["fauna-7.toml"]


def test_cli_out_help_names_the_files_as_they_are_written():
    """`generate --help` said --out writes "CH-SEED.toml" files, where the README, the refusal above and the files
    themselves (fauna-7.toml) say CHAPTER-SEED.toml."""
    help_text = " ".join(run("generate", "--help").output.split())
    assert "Write CHAPTER-SEED.toml files into this folder" in help_text


def test_a_profile_no_map_can_meet_is_the_file_the_error_names(tmp_path):
    """`generate --profile twenty-forts.toml` printed "error: no fauna map can meet ..." without the FILE the
    convention asks for (`error: FILE: what`); the profile is what is wrong, so the line names it."""
    p = tmp_path / "forts.toml"
    p.write_text('chapter = "fauna"\n[counts]\nFt = [20, 20]\n', encoding="utf-8")
    r = run("generate", "-c", "fauna", "--seed", "1", "--profile", str(p), "--time-limit", "20")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith(f"error: {p}: no fauna map can meet all of these together: rule F2 ")
    assert r.stderr.count("\n") == 1
    # the same with a quality target (--grade): the profile, not the search, is what no map can meet
    r = run("generate", "-c", "fauna", "--seed", "1", "--profile", str(p), "--grade", "tricky", "--time-limit", "20")
    assert r.exit_code == 1 and r.stderr.startswith(f"error: {p}: no fauna map can meet all of these together: ")


@pytest.mark.slow
def test_cli_json_and_errors(tmp_path):
    r = run("generate", "-c", "training", "--seed", "2", "--json")
    data = json.loads(r.stdout)
    assert data[0]["seed"] == 2 and data[0]["chapter"] == "training" and data[0]["file"] is None
    r = run("generate", "-c", "training", "--count", "2")
    assert r.exit_code == 2 and "--count above 1 needs --out DIR" in r.output
    p = tmp_path / "forts.toml"
    p.write_text('chapter = "fauna"\n[counts]\nFt = [20, 20]\n', encoding="utf-8")
    r = run("generate", "-c", "fauna", "--seed", "1", "--profile", str(p), "--time-limit", "20")
    assert r.exit_code == 1
    assert "counts.Ft = [20, 20]" in r.output and "Traceback" not in r.output
    r = run("generate", "-c", "atlantis")
    assert r.exit_code == 2


def _busy_clock(monkeypatch, wall: float):
    """CP-SAT's wall clock as a machine so busy that every question's seconds run out after ``wall`` of them."""
    from constraints import cpsat
    from mapgen import generate

    made = cpsat.make_solver

    def hurried(time_limit, **kwargs):
        return made(min(time_limit, wall), **kwargs)

    monkeypatch.setattr(generate, "make_solver", hurried)


@pytest.mark.parametrize("wall", [1e-6, 0.02])
def test_the_conflict_named_never_depends_on_the_machine_load(tmp_path, monkeypatch, wall):
    """The rules and settings named as conflicting were trimmed by 2 s wall-clock CP-SAT questions: under load a
    question ran out, its rule stayed, and a less trimmed set (or "too tight for the time limit") came out as the
    answer (exit 1). Now each question counts CP-SAT's deterministic work; the wall clock running out is exit 3."""
    from mapgen.generate import GenerationTimeout

    p = tmp_path / "full.toml"
    p.write_text('chapter = "training"\n[counts]\nWa = [15, 25]\nFo = [15, 25]\n', encoding="utf-8")
    with pytest.raises(GenerationError) as calm:
        Generator("training", load_profile(p), time_limit=20).generate(1)
    assert not isinstance(calm.value, GenerationTimeout)
    _busy_clock(monkeypatch, wall)
    try:
        Generator("training", load_profile(p), time_limit=20).generate(1)
    except GenerationTimeout:
        pass  # the clock ran out: said so (exit 3)
    except GenerationError as e:
        assert str(e) == str(calm.value)
