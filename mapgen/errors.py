"""Exit codes, and the library errors that carry them: the one table the CLI, the web app and maps/build.py use.

Every error a user can meet derives from one of three bases, and its class says which exit code it means:

| exit | base | meaning |
|---|---|---|
| 1 | ``UnmetError`` | a rule is broken, a partial map has no completion, a request cannot be met |
| 2 | ``InputError`` | unreadable or invalid input, or an output that cannot be written |
| 3 | ``TimeLimitError`` | a time limit ran out |

(0 is success; 130, ``INTERRUPTED``, is Ctrl-C.) The library's errors, by module:

- exit 2: ``mapgen.mapfile.MapFileError``, ``mapgen.output.OutputError``, ``mapgen.profile.ProfileError``,
  ``constraints.catalogue.ChapterError``, ``mapgen.quality.QualityError``, ``mapgen.batch.SeedRangeError``,
  ``mapgen.generate.SeedError``, ``mapgen.generate.SettingError`` (a Generator's time limit below 0 or NaN), ``mapgen.campaign.CampaignError``, ``mapgen.render.output.RenderError``,
  ``mapgen.engine.cards.CardError``, ``mapgen.engine.playtest.ReplayError``, ``mapgen.engine.playtest.SettingsError``,
  ``mapgen.web.ServeError``, ``mapgen.batch.BatchOptionError``,
  ``mapgen.solving.solve.QuestionError`` (a solver question's argument it cannot use; a ValueError too),
  ``mapgen.engine.game.UnknownNameError`` (a character or Gear card that does not exist),
  ``mapgen.engine.game.TeamCountError`` (not one character, or one gear list, per player),
  ``mapgen.engine.game.BadSettingError`` (players outside 1 to 4, a mode, variant or chapter that does not exist,
  another chapter's rules, a setting of the wrong kind: ``characters="Lewis"`` for ``["Lewis"]``),
  ``mapgen.model.WrongMapError`` (a partial map where a complete one is needed, a map of another chapter),
  ``mapgen.board.CellError`` (a cell off the board or no cell's name; a ValueError too),
  ``mapgen.terrain.UnknownTerrainError`` and ``maps.UnknownMapError`` (a terrain code or a shipped map's name that
  does not exist; KeyErrors too);
- exit 1: ``mapgen.solving.solve.NoCompletion``, ``mapgen.generate.GenerationError``,
  ``mapgen.repair.RepairError``, ``mapgen.batch.BatchError``, ``mapgen.target.TargetMissed``,
  ``mapgen.deduce.PuzzleNotUnique`` (a puzzle to trim that leaves more maps than one),
  ``mapgen.engine.game.GameError`` (settings each playable but not together: a team, mode or variant the map's
  chapter forbids);
- exit 3: ``mapgen.solving.solve.SolveTimeout``, ``mapgen.generate.GenerationTimeout``,
  ``mapgen.solving.compiled.CompileTimeout``;
- exit 1 as well: ``mapgen.solving.compiled.CompileError`` (the compiler ran out of memory or failed).

A new error class derives from the base of its meaning (and from ``ValueError`` or ``OSError`` where callers
catch those); ``tests/test_errors.py`` holds this list. This module is on the ground floor: it imports nothing.
"""

from __future__ import annotations

from typing import ClassVar


class MessageKeyError(KeyError):
    """A KeyError (what a look-up by name raises) whose message is printed as written, not quoted as a key's repr."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


OK, BROKEN, BAD_INPUT, TIMEOUT = 0, 1, 2, 3
#: Ctrl-C: the shell's code for a command stopped by SIGINT (128 + 2); the message says "interrupted"
INTERRUPTED = 130


class MapgenError(Exception):
    """An error a user can meet (not a bug): ``exit_code`` is the exit code of a command that ends with it."""

    exit_code: ClassVar[int] = BROKEN


class UnmetError(MapgenError):
    """A rule broken, no completion, a request that cannot be met: exit 1."""

    exit_code = BROKEN


class InputError(MapgenError):
    """Unreadable or invalid input, or an output that cannot be written: exit 2."""

    exit_code = BAD_INPUT


class TimeLimitError(MapgenError):
    """A time limit ran out (the request may still be possible with more time): exit 3."""

    exit_code = TIMEOUT


def exit_code(e: BaseException) -> int | None:
    """The exit code a library error means; None for any other exception (a bug, or not the library's)."""
    return e.exit_code if isinstance(e, MapgenError) else None
