"""Golden playtests: the heuristic bot's play on fixed seeds is pinned, so a speed-up cannot change it.

Each case plays 20 heuristic games (seed 3) on an engine test map and compares the report's wins,
loss causes and mean score, the number of actions played, and a digest of every game's actions
with values recorded before the engine's performance work. A change meant to alter play (a rule
fix, a better heuristic) updates these numbers in the same commit and says why.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mapgen.engine.playtest import Settings, run_playtest, summarise
from mapgen.mapfile import read_map

DATA = Path(__file__).parent / "data"

GOLDEN = {
    # map: (wins, losses, sealed games, mean_score, actions, digest of the actions)
    "engine_fauna_201": (5, {"thirst": 2, "hunger": 9}, 4, 9.35, 2925, "acfeadabbe570e9b"),
    "engine_training_201": (20, {}, 0, 17.95, 1192, "a9a482a94d0fcd24"),
    # Flora: 6 Search cards and the Giant Plant, not 7 and the Plant (issue 22)
    "engine6_flora_201": (19, {}, 1, 43.9, 2251, "efa86a2d7ce15c42"),
    "engine6_vameter_201": (12, {"hunger": 1}, 7, 25.9, 3979, "22d827fef83b0481"),
    # Maldonado: Resources gained from a Challenge resolved after "end turn" play an Influence card (issue 6);
    # Lewis on Maldonado Terrain gives 2 of the Resource chosen (issue 22)
    "engine6_maldonado_201": (8, {"crew_died": 12}, 0, 15.3, 5130, "a5f1c7b27d60d441"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_heuristic_play_is_pinned(name):
    m = read_map(DATA / f"{name}.toml")
    settings = Settings(bot="heuristic", seed=3)
    records = run_playtest(m, settings, 20, keep_actions=True)
    report = summarise(records, m, settings, name)
    actions = [r.actions for r in records]
    digest = hashlib.sha256(repr(actions).encode()).hexdigest()[:16]
    wins, losses, sealed, mean_score, n_actions, expected_digest = GOLDEN[name]
    assert (report["wins"], report["losses"], report["sealed"], report["mean_score"]) == (
        wins,
        losses,
        sealed,
        mean_score,
    )
    assert sum(map(len, actions)) == n_actions
    assert digest == expected_digest
