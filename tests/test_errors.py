"""The exception → exit-code table lives in the library (mapgen/errors.py): each library error's base says its
exit code, and the CLI, the web app and maps/build.py read it from there."""

from __future__ import annotations

import ast
import importlib
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
    ("mapgen.quality", "QualityError", 2),
    ("mapgen.campaign", "CampaignError", 2),
    ("mapgen.web", "ServeError", 2),
    ("mapgen.model", "WrongMapError", 2),
    ("mapgen.board", "CellError", 2),
    ("mapgen.terrain", "UnknownTerrainError", 2),
    ("maps", "UnknownMapError", 2),
    ("mapgen.engine.game", "TeamCountError", 2),
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
