"""The Python API as a new user meets it: what a common mistake (a path or a name where a Map belongs, a map of
another chapter, a partial map where a complete one is needed, a cell as a pair, a code as a string) raises, and that
its message says what to pass instead, rather than an AttributeError from deep inside."""

from __future__ import annotations

import functools

import pytest

import maps
from mapgen.board import CellError
from mapgen.errors import InputError
from mapgen.model import WrongMapError
from mapgen.solving.explain import explain_forced, hint
from mapgen.solving.solve import Solver
from mapgen.terrain import Terrain


@pytest.fixture(scope="module")
def fauna():
    return maps.load("fauna-1")


@pytest.mark.parametrize("given", ["fauna-1", "maps/fauna/fauna-1.toml", None])
@pytest.mark.parametrize("method", ["count", "forced", "possible", "probabilities", "is_unique", "completion"])
def test_a_solver_given_a_name_or_a_path_says_how_to_read_a_map(given, method):
    with pytest.raises(TypeError, match=r"takes a Map, not .*read_map\(path\).*maps\.load"):
        getattr(Solver.for_chapter("fauna"), method)(given)


def test_hint_and_explain_given_a_name_say_how_to_read_a_map():
    s = Solver.for_chapter("fauna")
    with pytest.raises(TypeError, match=r"hint takes a Map, not a str 'fauna-1'"):
        hint(s, "fauna-1")
    with pytest.raises(TypeError, match=r"explain_forced takes a Map"):
        explain_forced(s, "fauna-1")


def test_a_map_of_another_chapter_names_the_solver_to_ask():
    flora = maps.load("flora-1")
    with pytest.raises(
        WrongMapError, match=r"a flora map given to Solver.forced of a fauna solver.*for_chapter\('flora'\)"
    ):
        Solver.for_chapter("fauna").forced(flora)
    assert issubclass(WrongMapError, InputError) and issubclass(WrongMapError, ValueError)


def test_grade_and_deduce_need_a_complete_map(fauna):
    from mapgen.deduce import deduce_report
    from mapgen.grade import grade

    partial = fauna.hide(["A1", "B2"])
    with pytest.raises(WrongMapError, match=r"a partial map \(2 unrevealed cells, first A1\); grade needs a complete"):
        grade(partial)
    with pytest.raises(WrongMapError, match="deduce_report needs a complete map"):
        deduce_report(partial)
    with pytest.raises(TypeError, match="grade takes a Map"):
        grade("fauna-1")


def test_repair_given_a_path_says_how_to_read_a_map():
    from mapgen.repair import repair_map

    with pytest.raises(TypeError, match="repair_map takes a Map"):
        repair_map("fauna-1.toml")


def test_maps_load_says_which_map_was_meant_and_how_to_read_a_file():
    with pytest.raises(KeyError) as caught:
        maps.load("fauna1")
    assert str(caught.value) == "no shipped map named 'fauna1' (did you mean fauna-1?)"
    with pytest.raises(KeyError, match=r"not a shipped map's name: read a map file with mapgen.mapfile.read_map"):
        maps.load("maps/fauna/fauna-1.toml")
    assert maps.resolve("fauna1") == "fauna1"  # the command line's resolver still takes it as a path (its own message)
    with pytest.raises(KeyError, match="no shipped map named 'xxx"):  # too long for a file name: was an OSError
        maps.load("x" * 5000)


def test_a_cell_as_a_pair_or_an_index_is_refused_with_the_naming_convention(fauna):
    assert fauna.at("a7") is fauna.at("A7") is Terrain.WATER
    for cell in ((0, 6), 6):
        with pytest.raises(CellError, match=r"is not a cell name: cells are named like E3.*Board.at\(r, c\)"):
            fauna.at(cell)


def test_hide_takes_cell_names_as_well_as_indices(fauna):
    assert fauna.hide(["A7"]).unrevealed() == [6] == fauna.hide([6]).unrevealed()


def test_an_unknown_terrain_code_lists_the_codes():
    with pytest.raises(KeyError) as caught:
        Terrain.from_code("Xx")
    assert str(caught.value).startswith("unknown terrain code 'Xx' (the codes: Fo, Wo, Wa,")
    assert Terrain.from_code("wa") is Terrain.WATER


def test_cells_of_the_wrong_number_or_kind_say_what_a_map_holds(fauna):
    with pytest.raises(ValueError, match="with_cells takes 49 cells .*not 3"):
        fauna.with_cells([None] * 3)
    codes = fauna.with_cells(["Wa"] * 49)  # codes, not Terrain members
    with pytest.raises(TypeError, match=r"cell A1 holds 'Wa', not a Terrain.*Terrain.from_code\('Wa'\)"):
        Solver.for_chapter("fauna").count(codes)


def test_a_terrain_code_asks_the_same_question_as_its_terrain(fauna):
    """``heat(state, "Ft")`` compared a code with Terrain keys: 0.0 on every cell, reported "exact"."""
    state = fauna.hide(["B4", "B6", "F5", "A5", "C6", "D6", "E6"])
    s = Solver("fauna", time_limit=10)  # a shipped chapter's name, as the README's Solver(chapter, ...) reads
    by_code, by_terrain = s.heat(state, "Ft"), s.heat(state, Terrain.FORT)
    assert by_code == by_terrain and any(by_terrain[0].values())
    assert s.target(state, "ft") == s.target(state, Terrain.FORT)
    assert hint(s, state, target="Ft") == hint(s, state, target=Terrain.FORT)
    with pytest.raises(KeyError, match="unknown terrain code 'Xx'"):
        s.heat(state, "Xx")


def test_the_other_entry_points_given_a_name_or_a_partial_map_say_what_to_pass(fauna):
    from constraints.catalogue import check_map
    from mapgen.repair import fill_sketch
    from mapgen.web.links import helper_url

    with pytest.raises(TypeError, match="helper_url takes a Map, not a str 'fauna-1'"):
        helper_url("fauna-1")
    with pytest.raises(WrongMapError, match="check_map needs a complete map"):
        check_map(fauna.hide([0]))
    with pytest.raises(TypeError, match=r"fill_sketch's profile is a Profile, not a str 'default'.*load_profile"):
        fill_sketch(fauna.hide([0]), "default")


def _dotted(dotted: str):
    """What a dotted name in the docs names: the longest importable module, then its attributes."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
            break
        except ModuleNotFoundError:
            continue
    for attr in parts[cut:]:
        obj = getattr(obj, attr)
    return obj


def test_help_mapgen_names_where_to_start_and_every_name_there_exists():
    """``help(mapgen)`` said only "generate, validate, solve and playtest" (no ``__all__``, nothing imported)."""
    import re

    import mapgen

    names = set(re.findall(r"``((?:mapgen|maps|constraints)(?:\.\w+)+)", mapgen.__doc__))
    assert {"maps.load", "mapgen.solving.solve.Solver.for_chapter", "mapgen.grade.grade"} <= names
    for dotted in sorted(names):
        assert _dotted(dotted).__doc__, dotted


@pytest.mark.parametrize(
    "cls",
    ["mapgen.model.Map", "mapgen.model.Pattern", "mapgen.board.Board", "mapgen.terrain.Terrain"],
)
def test_the_model_s_public_members_have_docstrings(cls):
    import importlib
    import inspect

    module, _, name = cls.rpartition(".")
    klass = getattr(importlib.import_module(module), name)
    bare = [
        n
        for n, member in vars(klass).items()
        if not n.startswith("_")
        and (inspect.isfunction(member) or isinstance(member, (property, functools.cached_property)))
        and not inspect.getdoc(member)
    ]
    assert bare == []


def test_grade_refuses_a_negative_number_of_games(fauna):
    """``games={"heuristic": -1}`` played no game and reported a 0.0 win rate as if it had been measured."""
    from mapgen.grade import grade

    with pytest.raises(ValueError, match=r"games per bot are whole numbers from 0 \(0: not played\), not heuristic=-1"):
        grade(fauna, games={"heuristic": -1}, deduce=False)


def test_openspiel_names_the_map_meant():
    pyspiel = pytest.importorskip("pyspiel")
    import mapgen.openspiel  # noqa: F401  (registers the game)

    with pytest.raises(KeyError, match=r"no shipped map named 'fauna1' \(did you mean fauna-1\?\)"):
        pyspiel.load_game("python_corps_of_discovery", {"map": "fauna1", "players": 1})


def test_hide_refuses_a_cell_off_the_board_and_takes_one_name_alone(fauna):
    """``hide([49])``, ``hide([-1])`` and ``hide([(0, 6)])`` hid nothing, silently; ``hide("A7")`` read "A" and "7"."""
    assert fauna.hide("A7").unrevealed() == [6]
    for cell, words in ((49, "cell index 49 is off the board"), (-1, "cell index -1 is off the board")):
        with pytest.raises(CellError, match=words):
            fauna.hide([cell])
    with pytest.raises(CellError, match=r"\(0, 6\) is not a cell: give an index .*Board.at\(r, c\)"):
        fauna.hide([(0, 6)])


def test_cells_of_takes_a_terrain_code(fauna):
    """``cells_of("Sk")`` compared a code with Terrain members: [] on every map."""
    assert fauna.cells_of("Sk") == fauna.cells_of(Terrain.SKULL) != []


def test_a_code_in_a_map_s_cells_is_named_by_the_rules_and_the_grade(fauna):
    """``check_map(m.with_cells(["Sk"] * 49))`` raised AttributeError: 'str' object has no attribute 'label'."""
    from constraints.catalogue import check_map

    with pytest.raises(TypeError, match=r"cell A1 holds 'Sk', not a Terrain.*Terrain.from_code\('Sk'\)"):
        check_map(fauna.with_cells(["Sk"] * 49))


def test_a_board_given_a_name_or_an_index_off_it_says_so(fauna):
    """``name(49)`` raised IndexError, ``neighbours("A7", ...)`` a TypeError about tuple indices, ``neighbours(-1,
    ...)`` answered G7's neighbours and an unknown neighbourhood a bare KeyError."""
    b = fauna.board
    assert b.name(6) == "A7" and b.neighbours(6, "orthogonal") == (13, 5)
    for i in (49, -1):
        with pytest.raises(CellError, match=rf"{i} is not a cell index of this board \(0 to 48, A1 = 0\)"):
            b.name(i)
        with pytest.raises(CellError, match=rf"{i} is not a cell index"):
            b.neighbours(i, "king")
    with pytest.raises(CellError, match=r"'A7' is a cell's name where its index belongs: Board.index\('A7'\)"):
        b.neighbours("A7", "king")
    with pytest.raises(ValueError, match="unknown neighbourhood 'kings' \\(one of orthogonal, diagonal, king"):
        b.neighbours(6, "kings")


@pytest.mark.parametrize("call", ["render_map", "render_sheet", "run_playtest", "play_one", "dumps_map", "write_map"])
def test_pictures_playtests_and_writers_given_a_name_say_how_to_read_a_map(call, tmp_path):
    """Each raised AttributeError: 'str' object has no attribute 'unrevealed' (or 'chapter', 'board')."""
    from mapgen.engine.playtest import Settings, play_one, run_playtest
    from mapgen.mapfile import dumps_map, write_map
    from mapgen.render import render_map, render_sheet

    calls = {
        "render_map": lambda: render_map("fauna-1", tmp_path / "x.svg"),
        "render_sheet": lambda: render_sheet("fauna-1", tmp_path / "x.pdf"),
        "run_playtest": lambda: run_playtest("fauna-1", Settings(), 1),
        "play_one": lambda: play_one("fauna-1", Settings(), 0),
        "dumps_map": lambda: dumps_map("fauna-1"),
        "write_map": lambda: write_map("fauna-1", tmp_path / "x.toml"),
    }
    with pytest.raises(TypeError, match=rf"{call} takes a Map, not a str 'fauna-1'.*maps\.load"):
        calls[call]()


def test_a_playtest_given_a_bot_s_name_for_its_settings_says_what_to_pass(fauna):
    from mapgen.engine.playtest import run_playtest

    with pytest.raises(TypeError, match=r"run_playtest takes a Settings, not a str: .*Settings\(bot='heuristic'"):
        run_playtest(fauna, "heuristic", 1)


def test_a_playtest_of_a_partial_map_is_invalid_input_as_on_the_command_line(fauna):
    """``run_playtest(partial, ...)`` raised the game's GameError (exit 1: "a rule is broken") where `mapgen playtest`
    and ``grade`` say WrongMapError (exit 2: invalid input) for the same partial map."""
    from mapgen.engine.game import Game
    from mapgen.engine.playtest import Settings, play_one, run_playtest

    partial = fauna.hide(["A1", "B2"])
    for who, call in (
        ("run_playtest", lambda: run_playtest(partial, Settings(), 1)),
        ("play_one", lambda: play_one(partial, Settings(), 0)),
        ("Game", lambda: Game(partial)),
    ):
        with pytest.raises(WrongMapError, match=rf"a partial map \(2 unrevealed cells, first A1\); {who} needs a comp"):
            call()


def test_chapter_for_given_a_chapter_s_name_points_to_get_chapter():
    from constraints.catalogue import chapter_for

    with pytest.raises(TypeError, match=r"chapter_for takes a Map, not a str: get_chapter\(name\)"):
        chapter_for("fauna")


def test_a_generator_given_a_profile_s_name_says_how_to_load_one():
    """``Generator("fauna", "default")`` raised AttributeError: 'str' object has no attribute 'applied_to'."""
    from mapgen.generate import Generator

    with pytest.raises(TypeError, match=r"Generator's profile is a Profile, not a str 'default'.*load_profile"):
        Generator("fauna", "default")


def test_parse_map_given_a_path_says_to_read_the_file():
    """``parse_map("examples/state.toml")`` said "not valid TOML (Expected '=' after a key ...)"."""
    from mapgen.mapfile import MapFileError, parse_map

    with pytest.raises(MapFileError, match=r"'examples/state.toml' is not a map file's text: read_map\(path\)"):
        parse_map("examples/state.toml")
    with pytest.raises(MapFileError, match="not valid TOML"):  # text that is a broken file still says so
        parse_map('chapter = "fauna"\nterrain = ')


def test_a_solver_question_given_a_cell_where_seconds_go_says_so():
    """`Solver.forced(state, "A7")` (the cell as the second argument, where the time limit goes) failed deep inside
    with "can't multiply sequence by non-int of type 'float'"."""
    import maps
    from mapgen.solving.solve import Solver

    s = Solver("training")
    state = maps.load("training-1").hide(range(5))
    with pytest.raises(TypeError, match="time_limit: seconds .* not 'A7'"):
        s.forced(state, "A7")
    assert s.forced(state, 5) == s.forced(state, 5.0)


def test_a_shared_solver_is_had_by_the_chapter_too():
    """`Solver.for_chapter(get_chapter("fauna"))` raised a ChapterError whose message was the whole Chapter's repr."""
    from constraints.catalogue import get_chapter
    from mapgen.solving.solve import Solver

    assert Solver.for_chapter(get_chapter("fauna")) is Solver.for_chapter("fauna")


@pytest.mark.parametrize("given", [1, 0, True, 3.5])
def test_read_map_given_a_number_refuses_it_and_leaves_the_process_s_files_open(given):
    """``read_map(1)`` opened file descriptor 1 (``open(1)``), failed to read it and closed the process's stdout."""
    import os

    from mapgen.mapfile import read_map

    with pytest.raises(
        TypeError, match=rf"read_map takes a map file's path \(a str or a Path\), not an? {type(given).__name__}"
    ):
        read_map(given)
    os.fstat(0), os.fstat(1), os.fstat(2)  # still open


def test_a_cell_a_terrain_code_or_a_map_name_that_does_not_exist_is_a_mapgen_error(fauna):
    """``mapgen.__doc__``: "every error a user can meet derives from MapgenError"; ``m.at("Z9")`` raised a CellError,
    ``Terrain.from_code("Xx")`` and ``maps.load("nope-1")`` KeyErrors that ``except MapgenError`` let through. They
    stay ValueError and KeyError (what callers caught), and are invalid input: exit 2."""
    from mapgen.errors import MapgenError, exit_code

    calls = [
        (lambda: fauna.at("Z9"), ValueError),
        (lambda: fauna.hide([49]), ValueError),
        (lambda: Terrain.from_code("Xx"), KeyError),
        (lambda: Solver.for_chapter("fauna").heat(fauna.hide(["A7"]), "Xx"), KeyError),
        (lambda: maps.load("nope-1"), KeyError),
    ]
    for call, builtin in calls:
        with pytest.raises(MapgenError) as caught:
            call()
        assert isinstance(caught.value, InputError) and exit_code(caught.value) == 2
        assert isinstance(caught.value, builtin)


def test_render_map_given_overlays_or_a_dpi_of_the_wrong_kind_says_what_to_pass(fauna, tmp_path):
    """``render_map(state, path, forced=["A7"])`` raised AttributeError: 'list' object has no attribute 'items',
    ``heat="Sk"`` the same of a str, ``heat={6: "x"}`` a ValueError from float() and ``dpi="x"`` a TypeError from
    deep inside matplotlib."""
    from mapgen.render import render_map
    from mapgen.render.output import RenderError

    state = fauna.hide(["A7"])
    for kwargs, words in (
        ({"forced": ["A7"]}, r"forced is a dict of cell index to Terrain \(Solver.forced\(state\)\), not a list"),
        ({"heat": "Sk"}, r"heat is a dict of cell index to a chance from 0 to 1 .*not a str"),
        ({"heat": {6: "x"}}, r"chance 'x' at A7 is not between 0 and 1"),
        ({"heat": {6: 0.0}, "heat_bounds": [0.5]}, r"heat_bounds is a dict of cell index to .*not a list"),
        ({"dpi": "x"}, r"dpi is a whole number of dots per inch from 1, not 'x'"),
        ({"dpi": 0}, r"dpi is a whole number of dots per inch from 1, not 0"),
    ):
        with pytest.raises(RenderError, match=words):
            render_map(state, tmp_path / "x.png", **kwargs)
    assert not list(tmp_path.iterdir())


def test_a_generator_given_a_seed_that_is_no_whole_number_or_past_a_map_file_refuses_it():
    """``generate("1")`` made another map than ``generate(1)`` and recorded ``seed = "1"`` in its [generator] table;
    ``1.5``, ``True`` and ``None`` were recorded as given; ``2**64`` wrote a map number no TOML reader takes, and
    ``-1`` a map ``mapgen generate --seed -1`` (refused) cannot make again."""
    from mapgen.generate import Generator, SeedError

    gen = Generator("training")
    for seed in ("1", 1.5, True, None):
        with pytest.raises(TypeError, match=rf"a seed is a whole number from 0 to 2\*\*63 - 1, not {seed!r}"):
            gen.generate(seed)
    for seed in (-1, 2**63):
        with pytest.raises(
            SeedError, match=rf"seed {seed} is beyond what a map file can record \(0 to 2\*\*63 - 1, TOML"
        ):
            gen.generate(seed)
    assert issubclass(SeedError, InputError) and issubclass(SeedError, ValueError)
    assert gen.generate(2**63 - 1).seed == 2**63 - 1


def test_grade_given_games_or_budgets_it_cannot_use_says_so_as_invalid_input(fauna):
    """``grade(m, games={"nobot": 5})`` raised a bare ValueError from the bots' table, ``games=["heuristic"]`` "dictionary
    update sequence element #0 has length 9", ``budgets={"scout": "x"}`` a TypeError inside the scout's search, and
    ``games={"heuristic": -1}`` a bare ValueError: each is now a QualityError (invalid input, exit 2)."""
    from mapgen.grade import GradeSettings, grade
    from mapgen.quality import QualityError

    for kwargs, words in (
        ({"games": {"nobot": 5}}, r"unknown bot 'nobot' in games \(expected one of random, heuristic"),
        (
            {"games": ["heuristic"]},
            r"games is a dict of bot name to games per bot \(\{'heuristic': 100\}\), not a list",
        ),
        ({"games": {"heuristic": -1}}, r"games per bot are whole numbers from 0 \(0: not played\), not heuristic=-1"),
        (
            {"games": {"scout": 2}, "budgets": {"scout": "x"}},
            r"budgets per bot are whole numbers from 1, not scout='x'",
        ),
        ({"games": {"scout": 2}, "budgets": {"nobot": 3}}, r"unknown bot 'nobot' in budgets"),
    ):
        with pytest.raises(QualityError, match=words):
            grade(fauna, deduce=False, **kwargs)
    with pytest.raises(QualityError, match="unknown bot 'nobot' in games"):
        GradeSettings(games={"nobot": 1})


@pytest.mark.parametrize("package", ["mapgen", "constraints", "maps"])
def test_the_packages_are_marked_typed_for_a_user_s_type_checker(package):
    """Installed, mapgen had no py.typed (PEP 561): a user's ``mypy --strict`` script importing mapgen.mapfile,
    mapgen.solving.solve or maps failed with "Cannot find implementation or library stub" on every import."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).parent.parent
    assert (root / package / "py.typed").is_file()
    data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in data["tool"]["setuptools"]["package-data"][package]


def test_a_shared_solver_is_one_per_thread_so_a_threaded_server_can_ask_it():
    """``Solver.for_chapter`` gave every thread the one process-wide Solver, whose SAT sessions and caches are not
    thread-safe: 4 threads asking forced and possible of 12 fauna-1 states raised IndexError (list index out of
    range). Each thread now has its own; within a thread it is still the same one."""
    import threading

    seen = {}

    def ask(k):
        seen[k] = (Solver.for_chapter("fauna"), Solver.for_chapter("fauna"))

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a is b for a, b in seen.values())
    assert seen[0][0] is not seen[1][0] and Solver.for_chapter("fauna") not in (seen[0][0], seen[1][0])


@pytest.mark.parametrize(
    ("dotted", "words"),
    [
        ("mapgen.solving.solve.Solver", ["NoCompletion", "SolveTimeout", "WrongMapError", "TypeError"]),
        ("mapgen.solving.solve.Solver.forced", ["NoCompletion", "SolveTimeout"]),
        ("mapgen.solving.explain.hint", ["NoCompletion", "SolveTimeout"]),
        ("mapgen.solving.explain.explain_forced", ["NoCompletion", "SolveTimeout"]),
        ("mapgen.deduce.deduce_report", ["WrongMapError", "SolveTimeout"]),
        ("mapgen.grade.grade", ["WrongMapError", "QualityError", "MapGrade"]),
        ("mapgen.generate.Generated", ["map", "seed", "attempts", "seconds"]),
        ("mapgen.deduce.Step", ["forced", "guess", "count"]),
    ],
)
def test_help_on_an_entry_point_says_what_it_returns_and_raises(dotted, words):
    """``help(Solver)`` and ``help(Solver.forced)`` named no error (a state with no completion raises NoCompletion,
    the wall clock SolveTimeout); ``Generated`` and ``Step``, what ``generate`` and the reveal profile return, had
    only the dataclass's generated signature."""
    parts = dotted.split(".")
    doc = _dotted(dotted).__doc__ or ""
    assert not doc.startswith(f"{parts[-1]}("), f"{dotted}: only the dataclass's signature"
    assert [w for w in words if w not in doc] == [], dotted


def test_a_playtest_given_settings_or_games_it_cannot_use_says_so_as_invalid_input(fauna):
    """``Settings(bot="nobot")`` raised a bare ValueError from the bots' table, ``seed="4"`` "can only concatenate str
    (not "int") to str", ``games="5"`` a TypeError about "/", ``games=-1`` returned no games as if played, and a
    scout with ``budget="x"`` played its games: each is now a SettingsError (invalid input, exit 2, a ValueError)."""
    from mapgen.engine.playtest import Settings, SettingsError, play_one, run_playtest

    for settings, games, words in (
        (Settings(bot="nobot"), 2, r"unknown bot 'nobot' \(expected one of random, heuristic"),
        (Settings(seed="4"), 2, r"a playtest's seed is a whole number from 0, not '4'"),
        (Settings(bot="scout", budget="x"), 1, r"a search bot's budget is a whole number from 1 \(None: its default\)"),
        (Settings(), "5", r"games is a whole number from 0, not '5'"),
        (Settings(), -1, r"games is a whole number from 0, not -1"),
    ):
        with pytest.raises(SettingsError, match=words):
            run_playtest(fauna, settings, games)
    with pytest.raises(SettingsError, match="unknown bot 'nobot'"):
        play_one(fauna, Settings(bot="nobot"), 0)
    assert issubclass(SettingsError, InputError) and issubclass(SettingsError, ValueError)


def test_possible_takes_cells_by_name_as_hide_does_and_refuses_one_off_the_board(fauna):
    """``possible(state, cells=["A7"])`` raised "tuple indices must be integers or slices, not str" from inside, and
    ``cells=[99]`` an IndexError."""
    s = Solver.for_chapter("fauna")
    state = fauna.hide(["A7", "B7"])
    assert s.possible(state, cells=["A7"]) == s.possible(state, cells=[6]) == {6: s.possible(state)[6]}
    with pytest.raises(CellError, match="cell index 99 is off the board"):
        s.possible(state, cells=[99])


@pytest.mark.parametrize("time_limit", ["5", None, True])
def test_a_solver_made_with_a_time_limit_that_is_no_number_says_so_when_made(time_limit):
    """``Solver("fauna", time_limit="5")`` was made, and its first question failed inside the SAT budget with
    "can't multiply sequence by non-int of type 'float'"."""
    with pytest.raises(TypeError, match=rf"Solver's time_limit: seconds \(a number\), not {time_limit!r}"):
        Solver("fauna", time_limit=time_limit)


def test_a_solver_question_given_an_argument_it_cannot_use_says_so_as_invalid_input():
    """``odds_answer(state, method="nope")`` raised a bare ValueError (``except MapgenError`` let it through), as did
    ``possible(state, proofs=...)`` without the session they belong to; ``count(limit=-1)`` and ``sample(state, -1)``
    were taken as given, and ``time_limit=float("nan")`` made a budget whose deadline never passes. Each is now a
    QuestionError (invalid input, exit 2, a ValueError) that names what it takes."""
    from mapgen.errors import exit_code
    from mapgen.solving.proofs import Proofs
    from mapgen.solving.solve import QuestionError

    s = Solver("training", time_limit=5)
    state = maps.load("training-1").hide(range(5))
    for call, words in (
        (lambda: s.odds_answer(state, method="nope"), r"unknown odds method 'nope' \(one of auto, sampler, unigen\)"),
        (
            lambda: s.possible(state, proofs=Proofs(s.chapter)),
            r"proofs belong to one private session: pass it \(session=",
        ),
        (lambda: s.count(state, limit=-1), r"limit is a whole number of completions from 1, not -1"),
        (lambda: s.count(state, limit="5"), r"limit is a whole number of completions from 1, not '5'"),
        (lambda: s.probabilities(state, limit=0), r"limit is a whole number of completions from 1, not 0"),
        (lambda: s.sample(state, -1), r"n is a whole number of completions from 0, not -1"),
        (lambda: s.forced(state, float("nan")), r"time_limit: seconds from 0, not nan"),
        (lambda: Solver("training", time_limit=-1), r"Solver's time_limit: seconds from 0, not -1"),
    ):
        with pytest.raises(QuestionError, match=words) as caught:
            call()
        assert exit_code(caught.value) == 2 and isinstance(caught.value, ValueError)
    with pytest.raises(WrongMapError, match="with_cells takes 25 cells"):  # the Map's own: a bare ValueError was
        state.with_cells([None] * 3)


def test_run_playtest_stops_when_told_and_returns_the_games_played_in_order():
    """``stop`` (the studio's playtest job, before its wall clock ends it) ends a run with the games played: the same
    records as a run of that many games, with one process or a pool of them."""
    from mapgen.engine.playtest import Settings, run_playtest

    m, s = maps.load("training-1"), Settings(seed=5)
    asked = []
    one = run_playtest(m, s, 10, 1, stop=lambda k: asked.append(k) or k >= 4)
    assert asked == [0, 1, 2, 3, 4] and len(one) == 4
    assert one == run_playtest(m, s, 4, 1)
    pooled = run_playtest(m, s, 10, 2, stop=lambda k: k >= 3)
    assert pooled == run_playtest(m, s, 3, 1)


@pytest.mark.parametrize("terrain", ["Ma", Terrain.FLORA_CREATURE])
def test_a_question_about_a_terrain_the_chapter_lacks_says_so_as_invalid_input(fauna, terrain):
    """``solve --target Ma`` on a Fauna map is refused (exit 2: "Maldonado (Ma) is not a terrain of fauna"); from
    Python ``target(state, "Ma")`` answered ``deduced: True`` with no cells and ``heat(state, "Ma")`` 0.0 everywhere,
    "exact", as if the map had been searched for it. Now the QuestionError the command's words come from."""
    from mapgen.errors import exit_code
    from mapgen.solving.solve import QuestionError

    s = Solver.for_chapter("fauna")
    state = fauna.hide(["A7", "B7"])
    for call in (
        lambda: s.target(state, terrain),
        lambda: s.heat(state, terrain),
        lambda: s.heat_answer(state, terrain),
        lambda: hint(s, state, target=terrain),
    ):
        with pytest.raises(QuestionError, match=r"\((Ma|Fc)\) is not a terrain of fauna \(its terrains: Fo Wo ") as e:
            call()
        assert exit_code(e.value) == 2
    assert s.target(state, "Ft")["cells"] == ["B4", "B6", "F5"]  # the chapter's own terrains are answered as before


def test_a_generator_given_another_chapter_s_profile_refuses_it():
    """``Generator("fauna", default_profile("flora"))`` made Fauna maps under Flora's settings without a word (its
    counts of Fauna's terrains, its pattern terrains), where ``generate -c fauna --profile flora.toml`` is refused;
    now the ProfileError ``load_profile(path, "fauna")`` raises."""
    from mapgen.generate import Generator, generate_map
    from mapgen.profile import ProfileError, default_profile

    flora = default_profile("flora")
    for call in (lambda: Generator("fauna", flora), lambda: generate_map("training", 1, flora)):
        with pytest.raises(
            ProfileError, match=r"profile \(default\) is for chapter flora, not (fauna|training): load_profile"
        ) as e:
            call()
        assert e.value.exit_code == 2
    assert Generator("fauna", default_profile("fauna")).generate(1).map.chapter == "fauna"


def test_grade_given_a_seed_or_time_limit_it_cannot_use_says_so_as_invalid_input(fauna):
    """``grade(m, seed=-1)`` graded the map with seed -1 (``mapgen grade --seed -1`` is refused, and
    ``run_playtest`` refuses it), ``seed="x"`` failed inside the games with "can only concatenate str (not "int") to
    str", ``seed=1.5`` with "unsupported operand type(s) for &", and ``time_limit="x"`` inside the deduction: each is
    now a QualityError (invalid input, exit 2) before any game is played."""
    from mapgen.grade import GradeSettings, grade
    from mapgen.quality import QualityError

    for kwargs, words in (
        ({"seed": -1}, r"a grade's seed is a whole number from 0, not -1"),
        ({"seed": "x"}, r"a grade's seed is a whole number from 0, not 'x'"),
        ({"seed": 1.5}, r"a grade's seed is a whole number from 0, not 1.5"),
        ({"time_limit": "x"}, r"a grade's time_limit is seconds \(a number from 0\), not 'x'"),
        ({"time_limit": -1}, r"a grade's time_limit is seconds \(a number from 0\), not -1"),
        ({"time_limit": float("nan")}, r"a grade's time_limit is seconds \(a number from 0\), not nan"),
    ):
        with pytest.raises(QualityError, match=words) as e:
            grade(fauna, games={"heuristic": 2}, **kwargs)
        assert e.value.exit_code == 2
        with pytest.raises(QualityError, match=words):
            GradeSettings(**kwargs)
    assert grade(fauna, games={"heuristic": 2}, deduce=False, seed=2**63 - 1).seed == 2**63 - 1


def test_a_game_given_arguments_it_cannot_use_says_what_to_pass(fauna):
    """``Game("fauna-1")`` raised AttributeError ('str' object has no attribute 'complete'), ``Game(m, players=2.0)``
    a TypeError about slice indices, ``players="2"`` said "players must be 1 to 4, not 2", ``chapter="Fauna"`` or
    ``"nope"`` a GameError (exit 1: "the engine cannot play 'Fauna' yet"), ``chapter="flora"`` played a Fauna map
    under Flora's rules, ``reference="fauna"`` raised AttributeError, and ``characters="Lewis"`` named a character
    'L' (a str taken as its letters; so did gear and variants)."""
    from mapgen.engine.game import BadSettingError, Game

    with pytest.raises(TypeError, match=r"Game takes a Map, not a str 'fauna-1'.*maps\.load"):
        Game("fauna-1")
    for kwargs, words in (
        ({"players": 2.0}, r"players must be 1 to 4, not 2\.0"),
        ({"players": "2"}, r"players must be 1 to 4, not '2'"),
        ({"players": 0}, r"players must be 1 to 4, not 0"),
        ({"chapter": "Fauna"}, r"unknown chapter 'Fauna': did you mean fauna\?"),
        ({"chapter": "nope"}, r"unknown chapter 'nope' \(expected one of training, fauna"),
        ({"chapter": "flora"}, r"a fauna map cannot be played as flora"),
        ({"reference": "fauna"}, r"reference is a Chapter \(get_chapter\(name\), load_chapter\(path\)\), not a str"),
        ({"characters": "Lewis"}, r"characters is a list of names, one per player \(\['Lewis'\]\), not a str"),
        (
            {"gear": ["Compass"]},
            r"gear is a list of lists of Gear names, one per player \(\[\['Compass'\], \['Jar'\]\]; .*not \['Compass'\]",
        ),
        ({"variants": "relaunch"}, r"variants is a list of variant names \(\['relaunch'\]\), not a str"),
    ):
        with pytest.raises(BadSettingError, match=words) as e:
            Game(fauna, **kwargs)
        assert e.value.exit_code == 2
    from mapgen.engine.chapters import plugin_for

    with pytest.raises(BadSettingError, match=r"a fauna map cannot be played as flora"):  # the plug-in alike
        Game(fauna, chapter=plugin_for("flora"))
    assert Game(fauna, chapter="fauna", players=2, characters=["Lewis", "Clark"], variants=["relaunch"]).n == 2


def test_make_bot_and_play_game_given_arguments_they_cannot_use_say_what_to_pass(fauna):
    """The engine README's recipe (``make_bot(name, rng, map=None, budget=None)``, ``play_game(state, bots, rng)``):
    an unknown bot was a bare ValueError (``except MapgenError`` let it through), ``map="fauna-1"`` an AttributeError
    inside the bot, a partial map was taken by the clairvoyant bot, ``budget=-1`` and ``budget="x"`` were kept for the
    search, ``rng=5`` failed at the first decision; ``play_game`` with fewer bots than players raised IndexError and
    ``rng=5`` AttributeError ('int' object has no attribute 'randrange')."""
    import random

    from mapgen.engine.bots import make_bot
    from mapgen.engine.game import BadSettingError, Game, TeamCountError
    from mapgen.engine.play import play_game

    rng = random.Random(1)
    for call, error, words in (
        (lambda: make_bot("nobot", rng), BadSettingError, r"unknown bot 'nobot' \(expected one of random, heuristic"),
        (lambda: make_bot("heuristc", rng), BadSettingError, r"unknown bot 'heuristc': did you mean heuristic\?"),
        (lambda: make_bot("oracle", rng), BadSettingError, r"the oracle bot must be given the map"),
        (lambda: make_bot("clairvoyant", rng, map="fauna-1"), TypeError, r"make_bot takes a Map, not a str 'fauna-1'"),
        (lambda: make_bot("clairvoyant", rng, map=fauna.hide(["A7"])), WrongMapError, r"make_bot needs a complete map"),
        (lambda: make_bot("scout", rng, budget=-1), BadSettingError, r"budget is a whole number from 1 \(None: its"),
        (lambda: make_bot("oracle", rng, map=fauna, budget="x"), BadSettingError, r"budget is a whole number from 1"),
        (lambda: make_bot("heuristic", 5), TypeError, r"make_bot's rng is a random\.Random \(random\.Random\(seed\)\)"),
        (
            lambda: play_game(Game(fauna, players=2).new_initial_state(), [make_bot("heuristic", rng)], rng),
            TeamCountError,
            r"play_game needs one bot per player: 2 players, 1 bot given",
        ),
        (
            lambda: play_game(Game(fauna).new_initial_state(), [make_bot("heuristic", rng)], 5),
            TypeError,
            r"play_game's rng is a random\.Random \(random\.Random\(seed\)\), not an int 5",
        ),
    ):
        with pytest.raises(error, match=words):
            call()
    assert make_bot("scout", rng, budget=None) is not None and make_bot("heuristic", rng, budget=-1) is not None


def test_the_sampler_s_odds_given_a_seed_or_seconds_they_cannot_use_say_so_as_invalid_input():
    """``odds_answer(state, method="sampler", seed=-1)`` (and ``seed="x"``, ``seed=1.5``) answered with chains seeded
    so, where ``solve --seed -1`` is refused and ``--seed`` is what makes the shares reproducible; ``sampled_odds(state,
    seconds="x")`` failed inside the budget with "unsupported operand type(s) for /". Each is now a QuestionError."""
    from mapgen.solving.solve import QuestionError

    s = Solver("training", time_limit=5)
    state = maps.load("training-1").hide(range(5))
    for call, words in (
        (lambda: s.odds_answer(state, method="sampler", seed=-1), r"seed is a whole number from 0, not -1"),
        (lambda: s.odds_answer(state, method="sampler", seed="x"), r"seed is a whole number from 0, not 'x'"),
        (lambda: s.odds_answer(state, method="sampler", seed=1.5), r"seed is a whole number from 0, not 1\.5"),
        (lambda: s.sampled_odds(state, seconds=1, seed=-2), r"seed is a whole number from 0, not -2"),
        (lambda: s.sampled_odds(state, seconds="x"), r"seconds: seconds \(a number\) from 0, not 'x'"),
        (lambda: s.sampled_odds(state, seconds=-1), r"seconds: seconds \(a number\) from 0, not -1"),
        (
            lambda: s.odds_answer(state, method="sampler", sample_seconds="x"),
            r"sample_seconds: seconds \(a number\) from 0, not 'x'",
        ),
    ):
        with pytest.raises(QuestionError, match=words):
            call()
    assert s.odds_answer(state, method="sampler", seed=3).method == "sampler"


def test_a_campaign_given_a_backend_it_cannot_use_says_what_to_pass(fauna):
    """``Local(-1)`` ran on one process and ``Local("2")`` on two, where ``--jobs`` takes 0 to 256 (0: one per core);
    ``grade(m, where=2)`` raised AttributeError ('int' object has no attribute 'run') and ``grade(m, quality="x")``
    "replace() should be called on dataclass instances". Now CampaignError (exit 2) and TypeErrors that name what
    to pass."""
    from mapgen.campaign import CampaignError, Local
    from mapgen.grade import grade

    for jobs in (-1, "2", 2.5, True):
        with pytest.raises(CampaignError, match=r"Local's jobs is a whole number of processes from 0 \(0: one per "):
            Local(jobs)
    assert Local(2).jobs == 2 and Local(0).jobs >= 1
    with pytest.raises(TypeError, match=r"grade's where is a campaign backend \(mapgen\.campaign\.Local\(jobs\) or "):
        grade(fauna, games={"heuristic": 2}, deduce=False, where=2)
    with pytest.raises(TypeError, match=r"grade's quality is a mapgen\.quality\.Quality .*, not a str 'x'"):
        grade(fauna, games={"heuristic": 2}, deduce=False, quality="x")


def test_a_chapter_given_by_name_where_a_chapter_is_taken_is_read_as_that_chapter(fauna, tmp_path):
    """``check_map(m, "fauna")`` and ``repair_map(m, chapter="fauna")`` raised AttributeError ('str' object has no
    attribute 'check'), ``validate_file(path, "fauna")`` ('... no attribute 'board'), as ``Generator("fauna")`` and
    ``Solver.for_chapter("fauna")`` take a name: each now takes one (ChapterError for a name that is no chapter,
    TypeError for what is neither)."""
    from constraints.catalogue import ChapterError, check_map, get_chapter
    from mapgen.deduce import deduce_report
    from mapgen.mapfile import dumps_map
    from mapgen.repair import repair_map
    from mapgen.validate import validate_file

    path = tmp_path / "m.toml"
    path.write_text(dumps_map(fauna), encoding="utf-8")
    assert check_map(fauna, "fauna") == check_map(fauna, get_chapter("fauna")) == []
    assert validate_file(str(path), "fauna").valid
    assert repair_map(fauna, chapter="fauna").map == fauna
    assert deduce_report(fauna, chapter="fauna", profile=False)["reveal_set"]
    with pytest.raises(ChapterError, match=r"unknown chapter 'faun': did you mean fauna\?"):
        check_map(fauna, "faun")
    with pytest.raises(TypeError, match=r"check_map's chapter is a Chapter \(get_chapter\(name\), load_chapter"):
        check_map(fauna, 5)


@pytest.mark.parametrize("time_limit", ["x", "5", None, True])
def test_a_generator_made_with_a_time_limit_that_is_no_number_says_so_when_made(time_limit):
    """``Generator("fauna", time_limit="x")`` raised "could not convert string to float: 'x'" and ``time_limit="5"``
    was taken as 5 s, where ``Solver("fauna", time_limit="5")`` is refused: now the Solver's TypeError."""
    from mapgen.generate import Generator

    with pytest.raises(TypeError, match=rf"Generator's time_limit: seconds \(a number\), not {time_limit!r}"):
        Generator("fauna", time_limit=time_limit)


def test_grade_maps_given_maps_without_their_names_says_what_to_pass(fauna):
    """``grade_maps([m])`` raised "cannot unpack non-iterable Map object": it takes (source, Map) pairs."""
    from mapgen.grade import GradeSettings, grade_maps

    with pytest.raises(
        TypeError, match=r"grade_maps takes a list of \(name, Map\) pairs \(\[\('fauna-1', m\)\]\), not"
    ):
        grade_maps([fauna])
    got = grade_maps([("mine", fauna)], GradeSettings(games={"heuristic": 2}, deduce=False))
    assert [g.map for g in got] == ["mine"]


def _time_limit_calls():
    """Every public function that takes a time limit, asked with the one it is given (a lambda of it)."""
    from mapgen import batch, deduce, generate, repair, report, target
    from mapgen.profile import default_profile
    from mapgen.quality import chapter_quality
    from mapgen.web import hints

    m = maps.load("training-1")
    state = m.hide(range(5))
    quality = chapter_quality("training")
    return {
        "Generator": lambda t: generate.Generator("training", time_limit=t),
        "generate_map": lambda t: generate.generate_map("training", 1, time_limit=t),
        "generate_batch": lambda t: batch.generate_batch("training", seed=1, time_limit=t),
        "minimal_reveal_set": lambda t: deduce.minimal_reveal_set(m, time_limit=t),
        "reveal_profile": lambda t: deduce.reveal_profile(m, time_limit=t),
        "deduce_report": lambda t: deduce.deduce_report(m, time_limit=t),
        "sole_completion": lambda t: deduce.sole_completion(state, time_limit=t),
        "solve_report": lambda t: report.solve_report(state, time_limit=t),
        "hint": lambda t: hint(Solver("training"), state, time_limit=t),
        "easiest_hint": lambda t: hints.easiest_hint(state, time_limit=t),
        "repair_map": lambda t: repair.repair_map(m, time_limit=t),
        "fill_sketch": lambda t: repair.fill_sketch(state, time_limit=t),
        "search": lambda t: target.search("training", default_profile("training"), quality, time_limit=t),
        "generate_to_target": lambda t: target.generate_to_target("training", quality, seed=1, time_limit=t),
    }


@pytest.mark.parametrize("time_limit", [-1.0, float("nan")])
@pytest.mark.parametrize("name", list(_time_limit_calls()))
def test_a_time_limit_below_0_or_nan_is_invalid_input_wherever_it_is_given(name, time_limit):
    """``Generator("fauna", time_limit=-1).generate(1)``, ``deduce_report(m, time_limit=-1)``, ``hint(..., nan)``,
    ``fill_sketch(..., -1)`` ended with a time-out (exit 3: "no map found within the time limit of -1 s", as if more
    time might help), and ``solve_report``, ``easiest_hint``, ``repair_map`` and the target search answered as if
    given a limit: each is now invalid input (exit 2) naming the argument and what it takes, before any search."""
    from mapgen.errors import TimeLimitError, exit_code

    with pytest.raises(InputError, match=rf"time_limit is seconds \(a number from 0\), not {time_limit!r}") as caught:
        _time_limit_calls()[name](time_limit)
    assert exit_code(caught.value) == 2 and not isinstance(caught.value, TimeLimitError)


def test_a_value_of_the_wrong_type_is_named_with_its_article():
    """``maps.info(5)`` said "not a int" and ``as_terrain(None)`` "not a NoneType": every message that names a
    value's type says "an int", "a float", "None"."""
    from mapgen.inputs import read_text
    from mapgen.mapfile import parse_map
    from mapgen.terrain import as_terrain

    for call, words in (
        (lambda: maps.info(5), "a shipped map's name is a str like 'fauna-1', not an int"),
        (lambda: maps.load(None), "a shipped map's name is a str like 'fauna-1', not None"),
        (lambda: maps.load(1.5), "not a float"),
        (lambda: as_terrain(7), "(like 'Ft'), not an int"),
        (lambda: as_terrain(None), "(like 'Ft'), not None"),
        (lambda: parse_map(3), "parse_map takes a map file's text (a str), not an int"),
        (lambda: read_text(None, "map file"), "a map file's path is a str or a Path, not None"),
    ):
        with pytest.raises(TypeError) as caught:
            call()
        assert words in str(caught.value)
