"""The engine as an OpenSpiel game: registration, OpenSpiel's own random simulation test on every
chapter and mode, information states, resampling, and the ``ismcts`` bot (skipped without pyspiel)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

import mapgen.openspiel  # noqa: F401  (registers the game)
from constraints.catalogue import chapter_names
from mapgen.engine import infostate as I

NAME = "python_corps_of_discovery"

CASES = [{"map": f"{ch}-1", "players": 1} for ch in chapter_names()] + [
    {"map": "fauna-2", "players": 2},
    {"map": "flora-3", "players": 3},
    {"map": "vameter-2", "players": 2},
    {"map": "maldonado-2", "players": 2},
    {"map": "maldonado-3", "players": 3, "mode": "traitor"},
    {"map": "fauna-4", "players": 1, "medicine": True, "gear": "Compass+Flint+Satchel"},
    {"map": "flora-3", "players": 2, "variants": "flora-minotaurs+relaunch+toll-no-water"},
]


def _play(state, rng, steps):
    while not state.is_terminal() and len(state.history()) < steps:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.slow
@pytest.mark.parametrize("params", CASES, ids=lambda p: "-".join(str(v) for v in p.values()))
def test_random_sim_test_passes(params):
    game = pyspiel.load_game(NAME, params)
    assert game.num_players() == params["players"]
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_chance_outcomes_are_the_deck_with_probabilities():
    game = pyspiel.load_game(NAME, {"map": "fauna-1"})
    s = game.new_initial_state()
    assert s.is_chance_node()
    outcomes = s.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert [a for a, _ in outcomes] == sorted(c - 1000 for c in s.inner.legal_actions())


def test_returns_follow_the_score():
    game = pyspiel.load_game(NAME, {"map": "training-1", "players": 2})
    for seed in range(40):
        s = _play(game.new_initial_state(), random.Random(seed), 10_000)
        r = s.returns()
        assert r[0] == r[1]  # co-operative: one shared return
        if s.inner.outcome == "win":
            assert r[0] == pytest.approx(1 + s.inner.score / 100)
        else:
            assert r[0] == 0.0


def test_observation_shows_only_what_the_player_may_know():
    game = pyspiel.load_game(NAME, {"map": "maldonado-2", "players": 3, "mode": "traitor"})
    s = _play(game.new_initial_state(), random.Random(4), 80)
    inner = s.inner
    hands, identity = inner.data["hands"], inner.data["identity"]
    for p in range(3):
        text = s.observation_string(p)
        assert text == I.obs_text(inner, p)
        # the player's own hand and Identity; another player's hand as a count, their Identity unknown
        assert f"'hands': {[h if q == p else len(h) for q, h in enumerate(hands)]!r}" in text
        assert f"'identity': {[x if q == p else None for q, x in enumerate(identity)]!r}" in text
        # unseen cells are hidden: the map line has a dot for every unseen cell
        line = next(x for x in text.splitlines() if x.startswith("map "))
        assert line.split()[1].count(".") == inner.game.board.size - sum(inner.seen)


def test_information_state_has_perfect_recall():
    game = pyspiel.load_game(NAME, {"map": "fauna-1"})
    a = _play(game.new_initial_state(), random.Random(1), 60)
    b = _play(game.new_initial_state(), random.Random(2), 60)
    assert a.information_state_string(0) != b.information_state_string(0)
    c = a.clone()
    assert c.information_state_string(0) == a.information_state_string(0)


@pytest.mark.parametrize(
    "params",
    [{"map": "fauna-2"}, {"map": "flora-1"}, {"map": "vameter-3", "players": 2}, {"map": "maldonado-1", "players": 2}],
)
def test_resampled_state_is_indistinguishable(params):
    game = pyspiel.load_game(NAME, params)
    for seed in range(2):
        s = _play(game.new_initial_state(), random.Random(seed), 70)
        if s.is_terminal():
            continue
        p = 0
        r = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert r.observation_string(p) == s.observation_string(p)
        assert r.information_state_string(p) == s.information_state_string(p)
        if s.current_player() == p:
            assert r.legal_actions() == s.legal_actions()
        assert r.inner.game.map.complete
        seen = [i for i, v in enumerate(s.inner.seen) if v]
        assert all(r.inner.game.cells[i] is s.inner.game.cells[i] for i in seen)


def test_resampling_varies_the_unseen_cells():
    game = pyspiel.load_game(NAME, {"map": "fauna-3"})
    s = _play(game.new_initial_state(), random.Random(5), 40)
    worlds = {
        s.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0)).inner.game.cells for _ in range(4)
    }
    assert len(worlds) > 1


def test_info_state_hides_the_other_hands_until_shown():
    """A player's information state masks the cards dealt to others until they are played face up;
    resampling redraws the masked ones."""
    import maps
    from mapgen.engine.playtest import Settings, make_game

    g = make_game(maps.load("maldonado-1"), Settings(players=2), 0)
    s = g.new_initial_state()
    rng = random.Random(0)
    while not s.is_terminal() and len(s.history) < 150:
        pile = s._chance_pile() if s.is_chance_node() else None
        s.apply_action(1000 + pile[rng.randrange(len(pile))] if pile else rng.choice(s.legal_actions()))
    info = I.information_state(s, 0)
    hidden = [k for k, a in enumerate(info.history) if a is None]
    assert hidden and all(s.history[k] >= 1000 for k in hidden)
    face_up = {e[0] for pile in s.data["piles"] for e in pile if e[1] and e[2] == 1}
    assert face_up  # player 1 played cards face up: their draws are no longer masked
    shown = {a - 1000 for k, a in enumerate(info.history) if a is not None and a >= 1000}
    assert face_up <= shown
    world = I.resample(info, random.Random(1))
    assert I.obs_text(world.state, 0) == I.obs_text(s, 0)


@pytest.mark.slow
def test_ismcts_bot_plays_reproducibly():
    import maps
    from mapgen.engine.playtest import Settings, run_playtest

    m = maps.load("training-1")
    s = Settings(bot="ismcts", budget=3, seed=2)
    a = run_playtest(m, s, 1, keep_actions=True)
    b = run_playtest(m, s, 1, keep_actions=True)
    assert a[0].actions == b[0].actions
    assert a[0].outcome is not None


def test_cli_lists_ismcts_and_budget():
    from click.testing import CliRunner

    from cli import main

    r = CliRunner().invoke(
        main, ["playtest", "training-1", "--bot", "ismcts", "--budget", "2", "--games", "1", "--json"]
    )
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert rep["bot"] == "ismcts" and rep["budget"] == 2 and rep["games"] == 1


def test_budget_only_for_a_search_bot():
    from click.testing import CliRunner

    from cli import main

    r = CliRunner().invoke(main, ["playtest", "training-1", "--bot", "heuristic", "--budget", "4"])
    assert r.exit_code == 2
    assert (
        "error: --budget: the heuristic bot has no search budget (--budget is for ismcts, oracle, planner, scout)"
        in r.output
    )


def test_ismcts_without_openspiel_is_one_line(monkeypatch):
    import sys

    from click.testing import CliRunner

    from cli import main

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    r = CliRunner().invoke(main, ["playtest", "training-1", "--bot", "ismcts", "--games", "1"])
    assert r.exit_code == 1
    assert r.output.strip().splitlines()[-1] == (
        'error: --bot ismcts: the ismcts bot needs OpenSpiel: pip install ".[openspiel]" in the mapgen folder (PyPI open-spiel)'
    )


def test_an_info_state_holds_no_state_map_or_hidden_card():
    """What the ismcts bot is handed: nothing reachable from it is the state, the Game, the map or
    another player's hand."""
    import dataclasses

    import maps
    from mapgen.engine.game import Game, State
    from mapgen.engine.observation import Observation, Table
    from mapgen.engine.playtest import Settings, make_game
    from mapgen.model import Map
    from mapgen.terrain import Terrain

    g = make_game(maps.load("maldonado-2"), Settings(players=3, mode="traitor"), 0)
    s = g.new_initial_state()
    rng = random.Random(2)
    while not s.is_terminal() and len(s.history) < 90:
        pile = s._chance_pile() if s.is_chance_node() else None
        s.apply_action(1000 + pile[rng.randrange(len(pile))] if pile else rng.choice(s.legal_actions()))
    info = I.information_state(s, 0)
    seen, todo = set(), [info]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (int, float, str, bytes, bool, type(None), Terrain)):
            continue
        seen.add(id(x))
        assert not isinstance(x, (State, Game)), type(x)
        if isinstance(x, dict):
            todo.extend([*x.keys(), *x.values()])
        elif isinstance(x, (list, tuple, set, frozenset, bytearray)):
            todo.extend(x)
        elif isinstance(x, (I.InfoState, Observation, Table)):
            todo.extend(getattr(x, n) for n in type(x).__slots__ if n != "__weakref__")
        elif isinstance(x, Map):
            assert x is not g.map
            assert all(t is None or s.seen[i] for i, t in enumerate(x.cells))  # the seen cells only
        elif dataclasses.is_dataclass(x):
            todo.extend(getattr(x, f.name) for f in dataclasses.fields(x))
    assert id(s.data["hands"][1]) not in seen and id(s.data["hands"][2]) not in seen
    assert info.obs.data["hands"][1] == len(s.data["hands"][1])
    assert all(a is None or a == b for a, b in zip(info.history, s.history))


def test_a_copied_or_pickled_state_keeps_its_games_variants_cards_and_reference_board():
    """A state serializes as (settings, map, actions): before, the settings were the team and mode only, so a
    state of a game with a variant, a card set of its own or a house Reference Board came back (``copy.deepcopy``,
    ``pickle``, OpenSpiel's ``serialize_game_and_state``) as a game of the rulebooks' reading with the shipped cards:
    Flora's Threat deck without the Minotaurs ``flora-minotaurs`` adds, the history replayed on other decks."""
    import copy
    import dataclasses
    import pickle

    import maps
    from constraints.catalogue import get_chapter
    from mapgen.engine.cards import shipped_cards
    from mapgen.engine.game import Game
    from mapgen.engine.openspiel import CorpsGame

    shipped = shipped_cards()
    cards = dataclasses.replace(shipped, destiny=shipped.destiny[1:])  # one Destiny card left out of the box
    shipped_rules = get_chapter("flora")
    reference = dataclasses.replace(shipped_rules, rules=shipped_rules.rules[1:])  # house rules: one rule fewer
    g = Game(maps.load("flora-1"), variants=("flora-minotaurs",), cards=cards, reference=reference)
    state = _play(CorpsGame({}, engine=g).new_initial_state(), random.Random(3), 120)
    for twin in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        t = twin.inner.game
        assert t.variants == g.variants == {"flora-minotaurs"} and t.chapter.variants == g.variants
        assert t.threats == g.threats and t.destiny == g.destiny != Game(maps.load("flora-1")).destiny
        assert t.reference == reference != shipped_rules
        assert str(twin) == str(state) and twin.history() == state.history()
    fauna = pyspiel.load_game(NAME, {"map": "fauna-1"}).new_initial_state()
    plain = pickle.loads(pickle.dumps(_play(fauna, random.Random(1), 40)))
    assert plain.inner.game.cards is shipped and plain.inner.game.reference is get_chapter("fauna")  # not copies


# ----- the audit of 2026-12-06: illegal actions, load_game's parameters -----
CHAPTERS = Path(__file__).resolve().parents[1] / "constraints" / "chapters"


@pytest.mark.parametrize(("params", "steps"), [({"map": "maldonado-2", "players": 2}, 30), ({"map": "fauna-1"}, 12)])
def test_an_illegal_action_is_refused_in_openspiels_numbers_and_changes_nothing(params, steps):
    """Before, an explore number past the board (63 on a 7x7 board) raised a CellError about cell indices from
    inside the engine, a chance outcome not in the deck was reported as the engine's ``1000 + card``, and a
    refused action still left a mark in the state's tracker (one deck tag more than actions: the information
    state's resampling read the decks of later draws one step off)."""
    game = pyspiel.load_game(NAME, params)
    state = _play(game.new_initial_state(), random.Random(0), steps)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    twin = state.clone()
    legal = state.legal_actions()
    for bad in sorted({63, 999, 1000, 5000} - set(legal)):
        with pytest.raises(ValueError, match=rf"^illegal action {bad} for player {state.current_player()} "):
            state.apply_action(bad)
    chance = _play(game.new_initial_state(), random.Random(0), 1)
    assert chance.is_chance_node()
    cards = [a for a, _ in chance.chance_outcomes()]
    with pytest.raises(ValueError, match=rf"^{max(cards) + 1} is not a chance outcome here \(the deck holds "):
        chance.apply_action(max(cards) + 1)
    t, u = state.engine.tracker, twin.engine.tracker
    assert (t.tags, t.masked, t.trace) == (u.tags, u.masked, u.trace)
    assert state.history() == twin.history() and str(state) == str(twin)
    rng_a, rng_b = random.Random(5), random.Random(5)
    assert _play(state, rng_a, 200).history() == _play(twin, rng_b, 200).history()  # still playable, the same


def test_a_tracker_refusing_an_action_keeps_one_tag_per_action():
    """``infostate.Tracker.apply`` noted the deck of the step before the engine refused the action: one tag more
    than actions from then on, so resampling looked for a hidden draw's deck one step off."""
    import maps
    from mapgen.engine.game import Game

    t = I.Tracker(Game(maps.load("maldonado-1"), players=2).new_initial_state())
    rng = random.Random(0)
    for _ in range(40):
        s = t.state
        t.apply(rng.choice(s.legal_actions()))
        with pytest.raises(ValueError):
            t.apply(999 if s.is_chance_node() or 999 not in s.legal_actions() else 5000)
        assert len(t.tags) == len(s.history) and all(len(m) == len(s.history) for m in t.masked)


# ----- the audit of 2026-12-06: load_game's parameters, illegal actions -----
def _refusal(params):
    """load_game's error for bad parameters, with the frame it was raised in."""
    with pytest.raises(ValueError) as caught:
        pyspiel.load_game(NAME, params)
    tb = caught.value.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return caught.value, tb.tb_frame.f_code.co_filename


@pytest.mark.parametrize(
    ("params", "parameter", "words"),
    [
        ({"map": "fauna-9"}, "map='fauna-9'", "no shipped map named 'fauna-9' (shipped: fauna-1 to fauna-8)"),
        ({"map": ""}, "map=''", "no such file"),
        ({"map": "no/such/map.toml"}, "map='no/such/map.toml'", "no such file"),
        ({"players": 0}, "players=0", "players must be 1 to 4, not 0"),
        ({"players": 9}, "players=9", "players must be 1 to 4, not 9"),
        ({"map": "maldonado-1", "mode": "traitor"}, "players=1", "the Hidden Traitor mode needs 2 to 4 players"),
        ({"mode": "traitor"}, "mode='traitor'", "traitor is Maldonado's Hidden Traitor mode, not a mode of fauna"),
        ({"mode": "versus"}, "mode='versus'", "unknown mode 'versus' (expected coop or traitor)"),
        ({"characters": "Nobody"}, "characters='Nobody'", "no character 'Nobody'"),
        ({"characters": "Lewis+Clark"}, "characters='Lewis+Clark'", "2 given for 1 player (players=1)"),
        ({"players": 2, "gear": "Compass+Flint+Jar"}, "gear='Compass+Flint+Jar'", "1 given for 2 players (players=2)"),
        ({"gear": "Rope"}, "gear='Rope'", "no Gear card 'Rope'"),
        ({"variants": "no-such"}, "variants='no-such'", "unknown variant 'no-such'"),
        ({"variants": "flora-minotaurs"}, "variants='flora-minotaurs'", "is for flora, not fauna"),
        ({"rules": "no/such/rules.toml"}, "rules='no/such/rules.toml'", "no such file"),
        ({"rules": str(CHAPTERS / "flora.toml")}, f"rules={str(CHAPTERS / 'flora.toml')!r}", "another"),
    ],
)
def test_a_bad_parameter_is_one_value_error_naming_it(params, parameter, words):
    """Before, a bad parameter was the engine's own error from four to six frames down (``no such file``,
    ``no character 'Nobody'``), naming no parameter; a count of players' gear spoke of ';' between players."""
    error, raised_in = _refusal(params)
    assert str(error).startswith(f"{NAME} parameter {parameter}: "), str(error)
    assert words in str(error)
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)  # no chain
    assert raised_in.endswith("openspiel.py")  # raised at the interface, not deep inside the engine


def test_parameters_of_the_wrong_type_or_unknown_are_refused_by_openspiel():
    for params in ({"players": "2"}, {"map": 3}, {"medicine": 1}, {"seed": 1}):
        with pytest.raises(pyspiel.SpielError):
            pyspiel.load_game(NAME, params)


def test_variants_and_house_rules_are_parameters(tmp_path):
    """The engine's variants and a house-rule chapter file (``mapgen playtest --variant``, ``--rules``) were not
    parameters of the OpenSpiel game: an unknown parameter."""
    text = (CHAPTERS / "fauna.toml").read_text(encoding="utf-8")
    house = tmp_path / "house-fauna.toml"
    house.write_text(text.replace('"C6", "C7", "C8"', '"C6", "C8"', 1), encoding="utf-8")
    game = pyspiel.load_game(NAME, {"map": "flora-2", "variants": "flora-minotaurs+toll-no-water", "players": 2})
    assert game.engine.variants == {"flora-minotaurs", "toll-no-water"}
    assert str(game).startswith(f"{NAME}(") and "variants=flora-minotaurs+toll-no-water" in str(game)
    assert pyspiel.load_game(str(game)).engine.variants == game.engine.variants  # the game string loads it again
    ruled = pyspiel.load_game(NAME, {"map": "fauna-3", "rules": str(house)})
    assert "C7" not in [r.id for r in ruled.engine.reference.rules]
    state = _play(ruled.new_initial_state(), random.Random(2), 60)
    twin = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(ruled, state))[1]
    assert twin.inner.game.reference == ruled.engine.reference and twin.history() == state.history()
    plain = pyspiel.load_game(NAME, {"map": "fauna-3"})
    assert plain.engine.variants == frozenset() and plain.engine.reference.name == "fauna"


def test_an_observer_is_the_observation_by_default_and_refuses_a_view_it_cannot_give():
    """``make_observation(game)`` (no observation type: OpenSpiel's default, the observation) gave the information
    state, and a public-only view (``private_info=NONE``) or every player's (``ALL_PLAYERS``) gave the player's
    own observation, hand and Identity included, as if it were what was asked for."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(NAME, {"map": "maldonado-2", "players": 3, "mode": "traitor"})
    state = _play(game.new_initial_state(), random.Random(4), 80)
    assert make_observation(game).string_from(state, 1) == state.observation_string(1)
    recall = pyspiel.IIGObservationType(perfect_recall=True)
    assert make_observation(game, recall).string_from(state, 1) == state.information_state_string(1)
    for public, private in (
        (True, pyspiel.PrivateInfoType.NONE),
        (True, pyspiel.PrivateInfoType.ALL_PLAYERS),
        (False, pyspiel.PrivateInfoType.SINGLE_PLAYER),
    ):
        kind = pyspiel.IIGObservationType(public_info=public, private_info=private, perfect_recall=False)
        with pytest.raises(ValueError, match=r"only a player's own view: public_info=True, private_info=SINGLE_PLAYER"):
            make_observation(game, kind)
    with pytest.raises(ValueError, match=r"no observation parameters \(given: \{'x': 1\}\)"):
        make_observation(game, None, {"x": 1})


def test_a_game_made_from_an_engine_game_is_named_by_it():
    """``CorpsGame(params, engine=g)`` kept the parameters given (none: fauna-1, 1 player) while it played ``g``: its
    game string named another game, and ``serialize_game_and_state`` came back as a 1-player fauna-1 game holding a
    2-player Flora state."""
    import dataclasses

    import maps
    from mapgen.engine.game import Game
    from mapgen.openspiel import CorpsGame, ParameterError

    g = Game(maps.load("flora-1"), players=2, gear=(("Jar", "Mortar and Pestle"), ("Compass", "Flint")))
    game = CorpsGame({}, engine=Game(maps.load("flora-1"), players=2, variants=("flora-minotaurs",)))
    assert game.get_parameters()["map"] == "flora-1" and game.get_parameters()["players"] == 2
    assert game.get_parameters()["variants"] == "flora-minotaurs"
    game = CorpsGame({"players": 2}, engine=g)
    params = game.get_parameters()
    assert (params["map"], params["players"], params["gear"]) == ("flora-1", 2, "Jar+Mortar and Pestle/Compass+Flint")
    state = _play(game.new_initial_state(), random.Random(1), 50)
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(game2) == str(game) and game2.num_players() == 2
    assert state2.inner.game.gear == g.gear and state2.history() == state.history() and str(state2) == str(state)
    # a map that is no shipped one has no name: its game string is refused rather than read as another game
    m = maps.load("fauna-2")
    cells = list(m.cells)
    cells[0], cells[1] = cells[1], cells[0]
    other = CorpsGame({}, engine=Game(dataclasses.replace(m, cells=tuple(cells))))
    assert other.get_parameters()["map"] == ""
    with pytest.raises(ParameterError, match=r"parameter map='': "):
        pyspiel.load_game(str(other))
    with pytest.raises(ParameterError, match=r"parameter players=3: the engine's game has players=2"):
        CorpsGame({"players": 3}, engine=g)


def test_a_chance_outcome_is_named_by_its_card():
    """A chance outcome read ``chance outcome 2 (card 2)``, naming neither the deck nor the card."""
    game = pyspiel.load_game(NAME, {"map": "fauna-1"})
    g = game.engine
    decks = {"chance_challenge": ("Challenge", g.challenges), "chance_threat": ("Threat", g.threats)}
    decks.update({"chance_destiny": ("Destiny", g.destiny), "kill_pile": ("Kill", g.kills)})
    seen = set()
    for seed in range(3):
        s, rng = game.new_initial_state(), random.Random(seed)
        while not s.is_terminal():
            if s.is_chance_node():
                kind, cards = decks[I.pile_tag(s.inner)]
                seen.add(kind)
                for a, _ in s.chance_outcomes():
                    assert s.action_to_string(a) == f"draw {kind} card {cards[a].name!r} (card {a})"
            _play(s, rng, len(s.history()) + 1)
    assert seen == {"Challenge", "Threat", "Destiny", "Kill"}


def _traitor_state(players, seed, steps):
    game = pyspiel.load_game(NAME, {"map": "maldonado-2", "players": players, "mode": "traitor"})
    rng = random.Random(seed)
    s = game.new_initial_state()
    while len(s.history()) < steps:  # as the failures were found: 20 steps at a time
        _play(s, rng, len(s.history()) + 20)
    assert not s.is_terminal()
    return s


@pytest.mark.parametrize("players,seed,steps", [(3, 0, 80), (3, 1, 60), pytest.param(4, 3, 80, marks=pytest.mark.slow)])
def test_resampling_in_hidden_traitor_mode_always_finds_a_world(players, seed, steps):
    """In Hidden Traitor mode another player's hidden hand is constrained by their public plays (a Loyalist plays a
    face-down card only of +2/+3, a Command card only without a matching card, and a play with one legal choice
    is made at once): drawn afresh at each draw, the hands rarely pass every later play, and 200 whole worlds
    used to be rejected (ResampleError: OpenSpiel's ISMCTS stopped). The real state is consistent with every
    player's information, so a world is always found, and the player cannot tell it from the real one."""
    s = _traitor_state(players, seed, steps)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for p in range(players):
        r = s.resample_from_infostate(p, sampler)
        assert r.information_state_string(p) == s.information_state_string(p)
        assert r.observation_string(p) == s.observation_string(p)


def test_the_draw_conditioned_on_the_real_state_passes_the_whole_history_and_redraws_hidden_cards():
    """The fallback itself (no whole world tried): the world it gives is the player's information state, for every
    player, and other hidden cards than the real ones are drawn (not the real state handed back)."""
    s = _traitor_state(3, 0, 80)
    real = s.inner
    for p in range(3):
        info = I.information_state(real, p, s.engine.tracker)
        world = I.resample_near(info, random.Random(p), real, tries=0)
        assert world.trace[p] == info.trace
        hidden = [j for j, a in enumerate(info.history) if a is None]
        assert any(world.state.history[j] != real.history[j] for j in hidden)
    with pytest.raises(I.ResampleError):
        I.resample(info, random.Random(0), tries=0, rounds=0)
