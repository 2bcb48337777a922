"""``import mapgen.openspiel`` registers the engine as the OpenSpiel game ``python_corps_of_discovery``.

The game lives in the engine's package, ``mapgen/engine/openspiel.py`` (its bots use it); this module is the
documented name for it and re-exports it. Needs the optional extra: ``pip install ".[openspiel]"``.
"""

from __future__ import annotations

from mapgen.engine.openspiel import (
    GAME_NAME,
    MAX_LENGTH,
    WIN_SCALE,
    CorpsGame,
    CorpsObserver,
    CorpsState,
    ParameterError,
    engine_game,
    engine_returns,
)

__all__ = [
    "GAME_NAME",
    "MAX_LENGTH",
    "WIN_SCALE",
    "CorpsGame",
    "CorpsObserver",
    "CorpsState",
    "ParameterError",
    "engine_game",
    "engine_returns",
]
