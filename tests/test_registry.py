"""The chapter registry: one TOML file per chapter feeds every layer; profiles are rules."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest
from click.testing import CliRunner

import maps
from cli import main
from constraints import catalogue
from constraints.catalogue import (
    CHAPTER_DIR,
    ChapterError,
    chapter_board,
    chapter_names,
    check_map,
    get_chapter,
    load_chapter,
)
from constraints.rules import Violation
from mapgen.design import check_design
from mapgen.engine.cards import CARD_DIR, card_files, load_cards
from mapgen.engine.chapters import plugin_class
from mapgen.engine.game import Game, GameError
from mapgen.generate import Generator
from mapgen.mapfile import dumps_map, parse_map
from mapgen.profile import ProfileError, default_profile, load_profile
from mapgen.reference import chapter_text
from mapgen.terrain import Terrain


def test_the_shipped_chapters_are_the_files_in_the_registry():
    files = {p.stem for p in CHAPTER_DIR.glob("*.toml")} - {"core"}
    assert set(chapter_names()) == files
    assert chapter_names() == ("training", "fauna", "flora", "vameter", "maldonado")  # in the order of their titles


@pytest.mark.parametrize("name", chapter_names())
def test_every_chapter_loads_through_every_layer(name):
    spec = get_chapter(name)  # catalogue
    assert spec.name == name and chapter_board(name) == spec.board
    m = maps.load(f"{name}-1")  # map file
    assert m.board == spec.board
    for key in ("peak", "start", "fort_pattern", "greek_fire"):
        value = getattr(m.briefing, key)
        assert value is not None or key not in spec.required, key
        assert value is None or key in spec.briefing, key
    profile = default_profile(name)  # profile
    assert profile.board == spec.board and profile.source == "default"
    designed = profile.applied_to(spec)
    assert designed.rules[: len(spec.rules)] == spec.rules
    assert {r.id for r in designed.rules[len(spec.rules) :]} <= {"P1", "P2", "P3"}
    assert check_map(m, designed) == []
    model = Generator(name).base_model()  # generator model: one variable per cell and chapter terrain
    assert len(model.x) == spec.board.size and all(tuple(cell) == spec.terrains for cell in model.x)
    game = Game(m)  # engine game, through the registry's plug-in
    assert type(game.chapter) is plugin_class(name)
    assert game.chapter.terrains == spec.terrains  # the engine's terrains are the rules' terrains
    assert game.chapter.board == spec.board
    assert game.chapter.title.startswith(spec.title)
    assert not game.new_initial_state().is_terminal()
    assert spec.cards and all(path.is_file() for path in card_files(name))  # card files
    assert {c.chapter for c in load_cards(card_files(name)).challenges} <= {"core", name}


def test_the_engine_plays_the_registry_card_files():
    assert card_files() == sorted(CARD_DIR.glob("*.toml"))


# -- a new chapter is one file ----------------------------------------------------------------------


@pytest.fixture
def registry_with_fog(tmp_path, monkeypatch):
    """The shipped registry plus fog.toml: a copy of the Training Mission with no engine plug-in."""
    folder = tmp_path / "chapters"
    shutil.copytree(CHAPTER_DIR, folder)
    text = (CHAPTER_DIR / "training.toml").read_text(encoding="utf-8")
    text = text.replace('name = "training"', 'name = "fog"').replace("Chapter 0: Training Mission", "Chapter 9: Fog")
    text = "\n".join(line for line in text.splitlines() if not line.startswith(("engine =", "profile =")))
    (folder / "fog.toml").write_text(text + "\n", encoding="utf-8")
    caches = (catalogue._stems, catalogue._data, catalogue._registry, catalogue.get_chapter, catalogue.chapter_board)

    def clear():
        for cached in caches:
            cached.cache_clear()

    monkeypatch.setattr(catalogue, "CHAPTER_DIR", folder)
    clear()
    yield
    monkeypatch.undo()
    clear()


def test_a_new_chapter_is_one_toml_file(registry_with_fog):
    assert "fog" in chapter_names() and chapter_board("fog") == chapter_board("training")
    fog = parse_map(dumps_map(maps.load("training-1")).replace('chapter = "training"', 'chapter = "fog"'))
    assert fog.board == get_chapter("training").board
    assert check_map(fog) == []
    assert default_profile("fog").reachable  # no profile file: P1 only
    assert Generator("fog").generate(3).map.chapter == "fog"
    with pytest.raises(GameError, match="cannot play 'fog' yet"):
        Game(fog)


# -- unknown keys are errors that name them -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'name = "x"\nterrains = ["Fo"]\ncolour = "red"',
            (
                "chapter file: unknown key 'colour' (known: name, title, board, terrains, counted, default_peak, briefing, "
                "rules, rule, profile, cards, engine)"
            ),
        ),
        (
            'name = "x"\nterrains = ["Fo"]\n[[rule]]\nid = "H1"\ntitle = "t"\nchecks = []\nnote = "n"',
            "rule H1: unknown key 'note' (known: id, title, text, checks)",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\nbriefing = { peak = "required", weather = "optional" }',
            "chapter file: briefing: unknown key 'weather' (known: peak, start, fort_pattern, greek_fire)",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\nbriefing = { peak = "required", start = "maybe" }',
            'chapter file: briefing.start must be "required" or "optional", not \'maybe\'',
        ),
        (
            'name = "x"\nterrains = ["Fo"]\nbriefing = { start = "required" }',
            'chapter file: every briefing names the Peak: briefing.peak must be "required"',
        ),
        (
            'name = "x"\nterrains = ["Fo"]\nengine = "mapgen.engine.chapters"',
            "chapter file: 'engine' must be \"module:Class\", not 'mapgen.engine.chapters'",
        ),
        (
            'name = "x"\nterrains = ["Fo"]\ncards = "core.toml"',
            "chapter file: 'cards' must be a list of file names, not 'core.toml'",
        ),
    ],
)
def test_bad_registry_keys_in_chapter_files(tmp_path, text, message):
    path = tmp_path / "house.toml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ChapterError) as caught:
        load_chapter(path)
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'chapter = "fauna"\ncolour = "red"\n',
            "unknown key 'colour' (known: chapter, reachable, peak, start, greek_fire, counts, fort_pattern, quality)",
        ),
        (
            'chapter = "fauna"\n[fort_pattern]\ncells = [2, 3]\nsize = 3\n',
            "fort_pattern: unknown key 'size' (known: cells, terrains)",
        ),
        ('chapter = "fauna"\ngreek_fire = "C3"\n', "'greek_fire': a fauna briefing has no greek_fire"),
    ],
)
def test_bad_profile_keys_are_one_line_errors_and_exit_2(tmp_path, text, message):
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(caught.value) == f"{path}: {message}"
    r = CliRunner().invoke(main, ["generate", "-c", "fauna", "--seed", "1", "--profile", str(path)])
    assert r.exit_code == 2
    assert r.stderr == f"error: {path}: {message}\n"


def test_a_house_rule_chapter_still_validates_from_the_cli(tmp_path):
    path = tmp_path / "house.toml"
    text = (CHAPTER_DIR / "fauna.toml").read_text(encoding="utf-8")
    path.write_text(
        text + '\n[[rule]]\nid = "H1"\ntitle = "Food"\nchecks = [{ kind = "count", terrain = "Fo", at_least = 40 }]\n',
        encoding="utf-8",
    )
    r = CliRunner().invoke(main, ["validate", "fauna-1", "--rules", str(path)])
    assert r.exit_code == 1 and "H1 Food" in r.output


# -- profiles are rules ---------------------------------------------------------------------------------


def test_profile_rules_have_honest_ids_and_are_checked_like_any_rule():
    m = maps.load("flora-1")
    profile = default_profile("flora")
    assert check_design(m, profile) == []
    rock = m.cells_of(Terrain.ROCK)[0]
    on_rock = replace(m, briefing=replace(m.briefing, greek_fire=rock))
    got = check_design(on_rock, profile)
    assert [(v.rule, v.title) for v in got] == [("P3", "Greek Fire collectable")]
    assert got[0].message == f"the Greek Fire {m.board.name(rock)} lies on a Rock"
    cells = list(m.cells)
    for i in m.cells_of(Terrain.PETRIFIED_FOREST):
        cells[i] = Terrain.FOOD
    got = check_design(m.with_cells(cells), profile)
    assert {(v.rule, v.title) for v in got} == {("P2", "Balanced")}
    assert "the map has 0 Petrified Forests, expected 2 to 4" in [v.message for v in got]
    assert all(isinstance(v, Violation) for v in got)


def test_a_sealed_cell_breaks_p1():
    m = maps.load("training-1")
    b = m.board
    cells = list(m.cells)
    corner = b.index("B3")
    for i in b.neighbours(corner, "orthogonal"):
        cells[i] = Terrain.ROCK
    got = [v for v in check_design(m.with_cells(cells), default_profile("training")) if v.rule == "P1"]
    assert [(v.title, v.cells) for v in got] == [("Reachable", ("B3",))]


def test_profile_rules_are_described_with_the_chapter():
    designed = default_profile("flora").applied_to(get_chapter("flora"))
    text = chapter_text(designed)
    assert "P1  Reachable: Every cell can be reached from the start without passing a Rock" in text
    assert "P2  Balanced: " in text and "Pf = [2, 4]" in text
    assert "P3  Greek Fire collectable: The Greek Fire is never on a Rock" in text
    assert "P3" not in chapter_text(default_profile("fauna").applied_to(get_chapter("fauna")))


def test_chapter_decks_come_from_the_card_files_the_registry_names():
    """Flora's Search cards and Maldonado's decks are read from the chapter's own card file in `cards`."""
    from mapgen.engine.cards import card_files, own_card_file

    for name in ("flora", "maldonado"):
        own = own_card_file(name)
        assert own in card_files(name) and own.name == f"{name}.toml"
        assert all(own not in card_files(other) for other in chapter_names() if other != name)
