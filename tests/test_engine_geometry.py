"""The bots' per-map tables (``bots.common.Geometry``): made once per map, shared by its games, never by another
map's, and a game plays the same whichever games came before it."""

from __future__ import annotations

from pathlib import Path

from mapgen.engine.bots import common
from mapgen.engine.observation import table
from mapgen.engine.playtest import Settings, make_game, play_one
from mapgen.mapfile import read_map

MAPS = Path(__file__).parent.parent / "maps"


def _geometry(m, s: Settings, seed: int):
    return common.geometry(table(make_game(m, s, seed)))


def test_the_games_of_a_map_share_its_geometry_and_no_other_map_does():
    fauna1 = read_map(MAPS / "fauna" / "fauna-1.toml")
    fauna2 = read_map(MAPS / "fauna" / "fauna-2.toml")  # the same board and chapter, another briefing
    mal = read_map(MAPS / "maldonado" / "maldonado-1.toml")
    s = Settings()
    first = _geometry(fauna1, s, 1)
    assert _geometry(fauna1, s, 2) is first  # another deal of the same map
    assert _geometry(fauna1, Settings(players=2), 3) is first  # the players change nothing it reads
    assert _geometry(fauna2, s, 1) is not first
    coop = _geometry(mal, s, 1)
    assert _geometry(mal, Settings(players=3, mode="traitor"), 1) is not coop  # another chapter kind and policy


def test_a_game_plays_the_same_whichever_games_came_before(monkeypatch):
    """The shared tables hold nothing of a game: game 5 of fauna-1 is the same game with a fresh store as after
    games of fauna-1 and fauna-2 have filled it."""
    fauna1 = read_map(MAPS / "fauna" / "fauna-1.toml")
    fauna2 = read_map(MAPS / "fauna" / "fauna-2.toml")
    for bot in ("heuristic", "deducer"):
        s = Settings(bot=bot, seed=4)
        monkeypatch.setattr(common, "_SHARED", {})
        fresh = play_one(fauna1, s, 5, keep_actions=True)
        for k in range(3):
            play_one(fauna1, s, k)
            play_one(fauna2, s, k)
        again = play_one(fauna1, s, 5, keep_actions=True)
        assert again.actions == fresh.actions and again.outcome == fresh.outcome
