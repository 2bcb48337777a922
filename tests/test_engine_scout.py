"""The scout (the fast fair player): seeded play, legal games to the end in every chapter, what it is handed,
and worlds that agree with what it saw."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import maps
from constraints.catalogue import get_chapter
from mapgen.engine.bots import BOTS, HAS_BUDGET, NEEDS_MAP, UNFAIR, first_path, make_bot, scout
from mapgen.engine.bots.deducer import DeducerBot
from mapgen.engine.bots.heuristic import HeuristicBot
from mapgen.engine.bots.planner import PlannerBot
from mapgen.engine.bots.scout import ScoutBot
from mapgen.engine.game import CHANCE_PLAYER
from mapgen.engine.infostate import information_state
from mapgen.engine.observation import observe
from mapgen.engine.play import play_game
from mapgen.engine.playtest import Settings, make_game, play_one, run_playtest
from mapgen.mapfile import read_map
from mapgen.solving.solve import agrees

DATA = Path(__file__).parent / "data"
TRAINING = DATA / "engine_training_201.toml"
FAUNA = DATA / "engine_fauna_201.toml"
MAPS = ["engine_training_201", "engine_fauna_201", "engine6_flora_201", "engine6_vameter_201", "engine6_maldonado_201"]


def test_the_registry_knows_the_scout():
    assert BOTS["scout"] is ScoutBot
    assert "scout" in HAS_BUDGET and "scout" not in NEEDS_MAP and "scout" not in UNFAIR  # a fair player
    assert make_bot("scout", random.Random(0), budget=3).budget == 3
    assert make_bot("scout", random.Random(0)).budget == scout.DEFAULT_BUDGET


def test_same_seed_same_game():
    m = read_map(FAUNA)
    s = Settings(bot="scout", seed=4, budget=1)
    game = make_game(m, s, 0)
    one = play_one(m, s, 0, keep_actions=True, game=game)
    two = play_one(m, s, 0, keep_actions=True, game=game)
    assert one.actions == two.actions and one.outcome == two.outcome
    others = [play_one(m, Settings(bot="scout", seed=k, budget=1), 0, keep_actions=True, game=game) for k in (5, 6)]
    assert any(o.actions != one.actions for o in others)


def test_the_same_games_on_one_process_or_two():
    m = read_map(TRAINING)
    s = Settings(bot="scout", seed=9, budget=1)
    one = run_playtest(m, s, 4, jobs=1, keep_actions=True)
    two = run_playtest(m, s, 4, jobs=2, keep_actions=True)
    assert [r.actions for r in one] == [r.actions for r in two]


@pytest.mark.parametrize("name", MAPS)
def test_plays_legal_games_to_the_end_in_every_chapter(monkeypatch, name):
    """Every action it picks is legal and the games end (won, lost or sealed), searched decisions included
    (searching from the third explored cell or so, so that every chapter's games search)."""
    monkeypatch.setattr(scout, "LATE", 0.06)
    m = read_map(DATA / f"{name}.toml")
    searched = 0
    for seed in range(2):
        state = make_game(m, Settings(bot="scout", seed=seed), seed).new_initial_state()
        bots = [ScoutBot(random.Random(seed * 8 + p), 1) for p in range(state.game.n)]
        rng = random.Random(seed)
        while not state.is_terminal():
            p = state.current_player()
            if p == CHANCE_PLAYER:
                pile = state._chance_pile()
                state.apply_action(1000 + pile[rng.randrange(len(pile))])
                continue
            obs = observe(state, p)
            a = bots[p].step(information_state(state, p) if bots[p].wants_infostate(obs) else obs)
            assert a in state.legal_actions()
            state.apply_action(a)
        assert state.outcome is not None
        searched += sum(b.searches for b in bots)
    assert searched > 0


@pytest.mark.parametrize("bot", [ScoutBot, PlannerBot])
def test_the_fair_searchers_ask_the_exact_solver_between_searches(bot):
    """The scout and the planner stand on the deducer (``AimedDeducer``): they ask the exact solver about the cells
    they may explore, within the deducer's budget."""
    m = maps.load("fauna-1")
    s = Settings(bot=bot.name, seed=3, budget=1)
    asked = 0
    for k in range(4):
        player = bot(random.Random(11 + k), 1)
        play_game(make_game(m, s, k).new_initial_state(), [player], random.Random(k))
        assert player.spent <= player.solver_budget + 0.05
        asked += player.solver_calls
    assert asked > 0


def test_between_searches_it_plays_as_the_deducer(monkeypatch):
    """With the search never reached (``LATE`` past the board) the scout plays the deducer's game, action for
    action, not the heuristic's."""
    m = maps.load("fauna-1")
    s = Settings(bot="scout", seed=3)

    def played(make, k: int) -> list[int]:
        state = make_game(m, s, k).new_initial_state()
        play_game(state, [make(k)], random.Random(k))
        return list(state.history)

    def seeded(cls):  # as the scout, which draws its search's seed first
        def make(k: int):
            rng = random.Random(11 + k)
            rng.randrange(1 << 30)
            return cls(rng)

        return make

    assert any(played(seeded(HeuristicBot), k) != played(seeded(DeducerBot), k) for k in range(4))  # told apart
    monkeypatch.setattr(scout, "LATE", 2.0)
    for k in range(4):
        assert played(lambda k: ScoutBot(random.Random(11 + k), 1), k) == played(seeded(DeducerBot), k)


def test_it_is_handed_its_information_state_only_at_the_decisions_it_searches():
    assert ScoutBot.decides_on == "infostate_when"
    seen = []

    class Spy(ScoutBot):
        def step(self, x):
            obs = x.obs if hasattr(x, "obs") else x
            seen.append((type(x).__name__, obs.n_explored))
            return super().step(x)

    m = read_map(FAUNA)
    bot = Spy(random.Random(1), 1)
    play_game(make_game(m, Settings(), 7).new_initial_state(), [bot], random.Random(7))
    infos = [n for kind, n in seen if kind == "InfoState"]
    assert infos and all(n >= scout.LATE * m.board.size for n in infos)  # the late game only
    assert sum(kind == "Observation" for kind, _ in seen) > 20
    # the gate's rollout on each world, and every candidate's when the heuristic's cell lost on one
    assert bot.searches >= 1 and bot.rollouts >= bot.gated + 2 * (bot.searches - bot.gated)


def test_its_worlds_agree_with_what_it_saw():
    """Every world a search plays on holds every seen cell and Hill number of the real game (its map is a
    completion of the seen cells), and is at the same point of the game."""
    m = read_map(FAUNA)
    chapter = get_chapter(m.chapter)
    state = make_game(m, Settings(), 6).new_initial_state()  # a game that reaches the late game
    checked = []

    class Check(ScoutBot):
        def _worlds(self, info, obs):
            worlds = super()._worlds(info, obs)
            known = state.known_map()
            for w in worlds:
                assert agrees(chapter, w.state.game.map.cells, known)
                assert len(w.state.history) == len(state.history)
            checked.append(len(worlds))
            return worlds

    play_game(state, [Check(random.Random(2), 2)], random.Random(6))
    assert checked and max(checked) == 2


class _FirstPathTaken(Exception):
    """Ends a game of ``_first_paths`` at its first Path (the rest of a planner's game: seconds of CPU, unread)."""


def _first_paths(m, games: int, seed: int = 0, bot=PlannerBot, to_the_end: bool = False) -> list[str]:
    """The first Path the bot (the planner at budget 1, or the scout) explores in each of ``games`` games of map
    ``m``; each game ends there unless ``to_the_end`` (a test of what the rest of the game does)."""
    out: list[str] = []

    class First(bot):
        def step(self, x):
            obs = x.obs if hasattr(x, "obs") else x
            a = super().step(x)
            if obs.n_explored == 0 and a in obs.frontier() and not self.first:
                self.first.append(m.board.name(a))
                if not to_the_end:
                    raise _FirstPathTaken
            return a

        first: list[str]

    for k in range(games):
        player = First(random.Random(k), 1)
        player.first = []
        try:
            play_game(make_game(m, Settings(), seed + k).new_initial_state(), [player], random.Random(k))
        except _FirstPathTaken:
            pass
        out += player.first
    return out


def test_its_first_path_avoids_likely_skulls(monkeypatch):
    """Where a Monster can be drawn, the planner's first Path is among the start Paths least likely to
    be a Skull (within SKULL_MARGIN of the least), whatever the heuristic would value most."""
    m = read_map(FAUNA)
    b = m.board
    monkeypatch.setattr(first_path, "SKULL_MARGIN", 0.05)
    starts = make_game(m, Settings(), 0).start_cells
    low = {b.index("D7"), b.index("F7")}
    odds = {i: (0.01 if i in low else 0.4) for i in starts}
    odds[b.index("F7")] = 0.01 + 0.05 / 2
    monkeypatch.setattr(first_path, "start_skull_odds", lambda obs: odds)
    steered = _first_paths(m, 4)
    assert set(steered) <= {"D7", "F7"}
    monkeypatch.setattr(first_path, "SKULL_MARGIN", 2.0)  # every start Path weighed: its own choice
    free = _first_paths(m, 4)
    assert not set(free) <= {"D7", "F7"}
    monkeypatch.setattr(first_path, "SKULL_MARGIN", 0.05)
    monkeypatch.setattr(first_path, "start_skull_odds", lambda obs: {i: 0.3 for i in starts})  # nothing to tell apart
    assert _first_paths(m, 4) == free


def test_its_first_path_on_a_shipped_map_is_not_a_skull():
    """fauna-4's start Paths B7 and E7 are Skulls (a Monster drawn there walls the game in at once): the sampler's
    odds of the unrevealed board steer the planner's first Path off both."""
    m = read_map(Path(__file__).parent.parent / "maps" / "fauna" / "fauna-4.toml")
    assert {m.board.name(i) for i in make_game(m, Settings(), 0).start_cells if m.cells[i].code == "Sk"} == {"B7", "E7"}
    assert not {"B7", "E7"} & set(_first_paths(m, 3))


def test_the_scouts_first_path_asks_no_odds(monkeypatch):
    """The scout takes its first Path as the heuristic does, without the sampler's odds (they cost 2.3-2.9 CPU s a
    map and, over sampler seeds, won it nothing: ``first_path``): its games never ask for them."""
    m = read_map(FAUNA)

    def asked(obs):
        raise AssertionError("the scout asked for the start odds")

    monkeypatch.setattr(first_path, "start_skull_odds", asked)
    assert len(_first_paths(m, 3, bot=ScoutBot, to_the_end=True)) == 3


def test_without_odds_its_first_path_is_the_heuristics(monkeypatch):
    """Where the sampler cannot give odds (a rule it cannot read), the first Path is weighed among every start
    Path, as with odds that cannot tell them apart: the game goes on."""
    from mapgen.solving.sampler import SamplerError
    from mapgen.solving.solve import Solver

    m = read_map(FAUNA)
    starts = make_game(m, Settings(), 0).start_cells
    monkeypatch.setattr(first_path, "start_skull_odds", lambda obs: {i: 0.3 for i in starts})
    blind = _first_paths(m, 3)
    monkeypatch.undo()

    def cannot(*args, **kwargs):
        raise SamplerError("the sampler cannot read rule X1 (kind 'new')")

    monkeypatch.setattr(Solver, "sampled_odds", cannot)
    monkeypatch.setattr(first_path, "_START_ODDS", {})
    assert _first_paths(m, 3, to_the_end=True) == blind


def test_its_gate_stops_at_the_first_world_where_the_deducers_cell_loses(monkeypatch):
    """The gate plays the deducer's cell world by world and is shut by its first loss: a search that then ends
    after its first round (every cell lost there) never plays that cell on the other worlds."""
    from types import SimpleNamespace

    from mapgen.engine import infostate
    from mapgen.engine.bots import oracle

    state = SimpleNamespace(game=SimpleNamespace(challenges=[SimpleNamespace(time=5)] * 6))
    played = []

    def rollout(s, m, player, action, key, seed):
        played.append((m, action))
        return 0.0

    monkeypatch.setattr(scout, "rollout", rollout)
    monkeypatch.setattr(oracle, "rollout", rollout)
    monkeypatch.setattr(infostate, "world_view", lambda w: (state, w))
    bot = ScoutBot(random.Random(1), budget=2)
    monkeypatch.setattr(bot, "_worlds", lambda info, obs: ["w0", "w1"])
    obs = SimpleNamespace(player=0, turn=3, current=0, n_explored=30, banned=None)
    assert bot._search(None, obs, [5, 6]) == 5
    assert played == [("w0", 5), ("w0", 6)]
    assert bot.rollouts == 2 and bot.gated == 0


def test_a_world_copied_from_a_kept_twin_plays_the_same_games(monkeypatch):
    """A drawn completion that a kept world already holds is copied from it (``twin_on``), not replayed: the same
    worlds, so the same games as replaying each one (games 1 and 5 of this map draw one such twin each; games 3 and
    6, then 3 and 8, did before issue 41's heuristic rules and their second round changed their play, 1 and 11 before
    the scout searched from 35 cells rather than 26)."""
    from mapgen.engine import infostate

    m = read_map(FAUNA)

    def games(seeds):
        out, twins = [], 0
        for k in seeds:
            bot = ScoutBot(random.Random(k), 2)
            s = make_game(m, Settings(), k).new_initial_state()
            play_game(s, [bot], random.Random(k))
            out.append(list(s.history))
            twins += bot.twins
        return out, twins

    copied, twins = games([1, 5])
    assert twins >= 2
    monkeypatch.setattr(infostate, "twin_on", lambda worlds, info, cells: None)
    assert games([1, 5]) == (copied, 0)


def test_a_twin_is_the_world_a_replay_makes_and_never_one_with_hidden_outcomes():
    from mapgen.engine.infostate import InfoState, twin_on, world_on

    m = read_map(FAUNA)
    state = make_game(m, Settings(), 6).new_initial_state()
    rng = random.Random(0)
    bot = HeuristicBot(random.Random(0))
    while state.outcome is None and state.n_explored < 20:
        if state.current_player() == CHANCE_PLAYER:
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(bot.step(observe(state, 0)))
    info = information_state(state, 0)
    cells = state.game.map.cells  # the real map: a completion of the seen cells
    world = world_on(info, cells, get_chapter(m.chapter), random.Random(1))
    assert world is not None
    twin = twin_on([world], info, cells)
    assert twin is not None and twin is not world and twin.state is not world.state
    assert twin.state.history == world.state.history == state.history
    assert twin.trace == world.trace and twin.masked == world.masked and twin.tags == world.tags
    assert twin.state.game.map.cells == cells
    other = list(cells)
    hidden = next(i for i, t in enumerate(info.known.cells) if t is None)
    other[hidden] = next(t for t in get_chapter(m.chapter).terrains if t is not cells[hidden])
    assert twin_on([world], info, tuple(other)) is None  # another completion: replayed, not copied
    masked = InfoState(
        *(getattr(info, f) for f in ("player", "table", "settings", "known")),
        [None, *info.history[1:]],
        info.trace,
        info.obs,
        info.tags,
    )
    assert twin_on([world], masked, cells) is None  # a hidden outcome: its replay draws it afresh


def test_a_world_is_played_with_the_real_games_variants_cards_and_reference_board():
    """A world differs from the real game in its map only: before, it was made with the shipped cards and Reference
    Board and no rule variant, so under ``toll-no-water`` the fair bots planned on worlds where Water paid a toll."""
    import dataclasses

    from mapgen.engine.cards import shipped_cards
    from mapgen.engine.game import Game
    from mapgen.engine.infostate import world_game

    m = read_map(FAUNA)
    shipped = shipped_cards()
    cards = dataclasses.replace(shipped, destiny=shipped.destiny[1:])  # one Destiny card left out of the box
    reference = dataclasses.replace(get_chapter("fauna"))  # a Reference Board of its own (a house file's)
    game = Game(m, characters=("Clark",), cards=cards, variants=("toll-no-water",), reference=reference)
    world = world_game(information_state(game.new_initial_state(), 0), m)
    assert world.variants == game.variants == {"toll-no-water"} and world.chapter.variants == game.variants
    assert world.destiny == game.destiny != Game(m, characters=("Clark",)).destiny
    assert world.reference is reference
    assert world.characters == game.characters and world.map is m


def test_a_resampled_world_keeps_the_house_rules_the_bots_reason_with(tmp_path):
    """The worlds ``resample`` draws (the ismcts bot's, OpenSpiel's ``resample_from_infostate``) complete the seen
    cells under the game's Reference Board: before, under the shipped chapter's rules whatever ``--rules`` gave, so
    under a house Fauna of 4 Forts the ismcts bot searched worlds of 3 (the planner and scout drew under the house
    rules already)."""
    from constraints.catalogue import check_map, load_chapter
    from mapgen.engine.game import Game
    from mapgen.engine.infostate import resample

    shipped = (Path(__file__).parent.parent / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8")
    assert "at_least = 3, at_most = 3" in shipped  # F2: exactly 3 Forts
    house = tmp_path / "house.toml"
    house.write_text(shipped.replace("at_least = 3, at_most = 3", "at_least = 4, at_most = 4"), encoding="utf-8")
    reference = load_chapter(house)
    game = Game(read_map(FAUNA), characters=("Clark",), reference=reference)
    info = information_state(game.new_initial_state(), 0)
    for seed in range(3):
        world = resample(info, random.Random(seed)).state.game
        assert world.reference is reference and check_map(world.map, reference) == []


@pytest.mark.parametrize("bot", ["deducer", "scout", "planner"])
def test_past_the_wall_clocks_safety_net_a_fair_bot_says_it_ran_out(monkeypatch, bot):
    """The fair bots ask their solver on deterministic budgets, with a wall clock of 200 times the budget as a safety
    net; past it the bot went on without the answer (the deducer on its heuristic, the scout and the planner with
    no fresh worlds): another move, another playtest result, nothing said. Now the safety net ending is SolveTimeout
    (exit 3); a machine made that slow here by a safety net that is already past."""
    from mapgen.engine import deduce as engine_deduce
    from mapgen.solving import sat
    from mapgen.solving.solve import SolveTimeout

    engine_deduce._CACHE.clear()
    first_path._START_ODDS.clear()
    post = sat.Budget.__post_init__

    def past(self):
        post(self)
        if self.deterministic:
            self.deadline = sat.time.monotonic() - 1.0

    monkeypatch.setattr(sat.Budget, "__post_init__", past)
    m = read_map(FAUNA)
    with pytest.raises(SolveTimeout):
        play_one(m, Settings(bot=bot, seed=4, budget=1), 0)
    engine_deduce._CACHE.clear()
    if bot == "deducer":  # the command says so, without advice it has no option for
        from click.testing import CliRunner

        from cli import main

        r = CliRunner().invoke(main, ["playtest", str(FAUNA), "--bot", bot, "--games", "2", "--jobs", "1"])
        assert r.exit_code == 3 and r.output.startswith(f"error: {FAUNA}: a bot's wall clock ran out")
        assert "no --time-limit to raise" in r.output and r.output.count("\n") == 1
        engine_deduce._CACHE.clear()
