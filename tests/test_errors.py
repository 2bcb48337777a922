"""The exception → exit-code table lives in the library (mapgen/errors.py): each library error's base says its
exit code, and the CLI, the web app and maps/build.py read it from there."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from mapgen import errors
from mapgen.cli.errors import BadInput, Interrupted, OutOfTime, RuleBroken
from mapgen.cli.errors import exit_code as cli_exit_code

ROOT = Path(__file__).parent.parent

#: every library error a command can end with, and its exit code (the table mapgen/errors.py documents)
TABLE = [
    ("mapgen.output", "OutputError", 2),
    ("mapgen.output", "OutputExistsError", 2),
    ("mapgen.mapfile", "MapFileError", 2),
    ("constraints.catalogue", "ChapterError", 2),
    ("mapgen.profile", "ProfileError", 2),
    ("mapgen.engine.playtest", "ReplayError", 2),
    ("mapgen.engine.playtest", "SettingsError", 2),
    ("mapgen.engine.cards", "CardError", 2),
    ("mapgen.render.output", "RenderError", 2),
    ("mapgen.batch", "SeedRangeError", 2),
    ("mapgen.generate", "SeedError", 2),
    ("mapgen.generate", "SettingError", 2),
    ("mapgen.quality", "QualityError", 2),
    ("mapgen.campaign", "CampaignError", 2),
    ("mapgen.web", "ServeError", 2),
    ("mapgen.model", "WrongMapError", 2),
    ("mapgen.board", "CellError", 2),
    ("mapgen.terrain", "UnknownTerrainError", 2),
    ("maps", "UnknownMapError", 2),
    ("mapgen.engine.game", "TeamCountError", 2),
    ("mapgen.engine.game", "BadSettingError", 2),
    ("mapgen.solving.solve", "QuestionError", 2),
    ("mapgen.solving.solve", "SolveTimeout", 3),
    ("mapgen.generate", "GenerationTimeout", 3),
    ("mapgen.solving.compiled", "CompileTimeout", 3),
    ("mapgen.solving.compiled", "CompileError", 1),
    ("mapgen.solving.solve", "NoCompletion", 1),
    ("mapgen.generate", "GenerationError", 1),
    ("mapgen.repair", "RepairError", 1),
    ("mapgen.deduce", "PuzzleNotUnique", 1),
    ("mapgen.repair", "SketchError", 1),
    ("mapgen.batch", "BatchError", 1),
    ("mapgen.target", "TargetMissed", 1),
    ("mapgen.engine.game", "GameError", 1),
]


@pytest.mark.parametrize(("module", "name", "code"), TABLE, ids=[f"{m}.{n}" for m, n, _ in TABLE])
def test_each_library_error_carries_its_exit_code(module, name, code):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, errors.MapgenError)
    assert cls.exit_code == code
    e = cls.__new__(cls)  # the code is the class's: no message needed
    assert errors.exit_code(e) == code
    assert cli_exit_code(e) == code
    assert f"``{module}.{name}``" in errors.__doc__ or name in ("OutputExistsError", "SketchError")


def test_errors_that_callers_catch_as_builtin_types_still_are():
    from mapgen.batch import SeedRangeError
    from mapgen.mapfile import MapFileError
    from mapgen.output import OutputExistsError

    assert issubclass(MapFileError, ValueError)
    assert issubclass(SeedRangeError, ValueError)
    assert issubclass(OutputExistsError, FileExistsError)
    e = OutputExistsError("x.toml", "exists (use --force)")
    assert isinstance(e, OSError) and str(e) == "x.toml: exists (use --force)"


def test_other_exceptions_have_no_exit_code():
    assert errors.exit_code(ValueError("x")) is None
    assert errors.exit_code(KeyError("x")) is None
    assert cli_exit_code(RuntimeError("a bug")) is None


def test_the_cli_s_own_errors_keep_their_codes():
    assert [cli_exit_code(c("f", "p")) for c in (BadInput, RuleBroken, OutOfTime, Interrupted)] == [2, 1, 3, 130]


def test_mapgen_errors_imports_nothing():
    tree = ast.parse((ROOT / "mapgen" / "errors.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    assert imported <= {"__future__", "typing"}


@pytest.mark.parametrize("path", ["maps/build.py", "mapgen/web/service.py"])
def test_the_web_and_the_library_build_do_not_use_the_cli_or_message_text(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert "mapgen.cli" not in text
    assert '"time limit" in' not in text


def test_the_web_answers_a_generation_time_out_as_exit_3(monkeypatch):
    from mapgen.generate import GenerationError, GenerationTimeout, Generator
    from mapgen.web.service import ApiError, do_generate

    for raised, code in (
        (GenerationTimeout("no fauna map found within the time limit of 1 s"), 3),
        (GenerationError("the profile settings are too tight for the time limit"), 1),
    ):

        def fail(self, seed, raised=raised):
            raise raised

        monkeypatch.setattr(Generator, "generate", fail)
        with pytest.raises(ApiError) as caught:
            do_generate({"chapter": "fauna", "seed": 1})
        assert caught.value.exit == code


#: every way a playtest's settings cannot make a game, and its exit code: 2 for a value no game takes (what the
#: command line's own checks refuse as an option's value, or a rules file of another chapter), 1 for values that
#: each could be played but not together (a team, mode or variant the rules of this map's chapter forbid)
GAME_SETTINGS = [
    ("fauna-1", {"players": 5}, 2, "players must be 1 to 4, not 5"),
    ("fauna-1", {"mode": "solo"}, 2, "unknown mode 'solo' (expected coop or traitor)"),
    ("fauna-1", {"variants": ("relaunc",)}, 2, "unknown variant 'relaunc'"),
    ("flora-1", {"reference": "fauna"}, 2, "the rules of fauna are for another chapter than a flora map's"),
    ("fauna-1", {"characters": ("Sacajawea",)}, 2, "no character 'Sacajawea'"),
    ("fauna-1", {"players": 2, "characters": ("Lewis",)}, 2, "give one character per player"),
    ("fauna-1", {"mode": "traitor"}, 1, "traitor is Maldonado's Hidden Traitor mode, not a mode of fauna"),
    ("maldonado-1", {"mode": "traitor"}, 1, "the Hidden Traitor mode needs 2 to 4 players"),
    ("fauna-1", {"variants": ("flora-minotaurs",)}, 1, "the variant 'flora-minotaurs' is for flora, not fauna"),
    ("fauna-1", {"characters": ("Collins",)}, 1, "Collins cannot be used in a solo game"),
    ("fauna-1", {"gear": (("Compass", "Flint"),)}, 1, "each player takes 3 Gear card(s)"),
    ("fauna-1", {"gear": (("Compass", "Compass", "Flint"),)}, 1, "each Gear card exists once"),
    ("fauna-1", {"players": 2, "characters": ("Lewis", "Lewis")}, 1, "each character can be played by one player"),
    ("training-1", {"characters": ("Clark",)}, 1, "the Training Mission is played with Lewis only"),
]


@pytest.mark.parametrize(("name", "given", "code", "words"), GAME_SETTINGS)
def test_each_setting_no_game_can_be_made_from_has_the_exit_code_of_its_kind(name, given, code, words):
    """Found by a review: players=5, an unknown mode or variant given to the library (or a replay, or the web app)
    were GameErrors, exit 1, where the command line refuses the same values as invalid input (exit 2)."""
    import maps
    from constraints.catalogue import get_chapter
    from mapgen.engine.game import GameError
    from mapgen.engine.playtest import Settings, run_playtest

    if "reference" in given:
        given = {**given, "reference": get_chapter(given["reference"])}
    with pytest.raises(GameError, match=re.escape(words)) as caught:
        run_playtest(maps.load(name), Settings(**given), 1)
    assert errors.exit_code(caught.value) == code
