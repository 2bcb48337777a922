"""The bots' observation: what the acting player may know, never the hidden map, a deck's order or another's hand."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path

import pytest

from mapgen.engine.bots import BOTS, make_bot
from mapgen.engine.game import CHANCE_PLAYER, Game
from mapgen.engine.observation import Observation, Table, observe
from mapgen.engine.play import play_game
from mapgen.engine.traitor import MaldonadoTraitor
from mapgen.mapfile import read_map
from mapgen.terrain import Terrain

DATA = Path(__file__).parent / "data"
BOTS_DIR = Path(__file__).parent.parent / "mapgen" / "engine" / "bots"


def _public_objects(root, limit: int = 20000) -> list:
    """Every object reachable from ``root`` through its attributes (private ones too), containers and dataclass fields."""
    seen, out, todo = set(), [], [root]
    while todo and len(out) < limit:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (int, float, str, bytes, bool, type(None), Terrain)):
            continue
        seen.add(id(x))
        out.append(x)
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset, bytearray)):
            todo.extend(x)
        elif isinstance(x, (Observation, Table)):
            todo.extend(getattr(x, name) for name in type(x).__slots__ if name != "__weakref__")
        elif dataclasses.is_dataclass(x):
            todo.extend(getattr(x, f.name) for f in dataclasses.fields(x))
    return out


def _advance(state, rng, decisions: int):
    bot = make_bot("heuristic", random.Random(1))
    n = 0
    while not state.is_terminal() and n < decisions:
        if state.current_player() == CHANCE_PLAYER:
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(bot.step(state.observation()))
            n += 1
    return state


def test_observation_holds_no_unseen_terrain():
    """Nothing reachable from an observation's attributes holds the map's terrain, Hill positions, the state or the Game."""
    m = read_map(DATA / "engine_fauna_201.toml")
    s = _advance(Game(m).new_initial_state(), random.Random(2), 25)
    obs = s.observation()
    unseen = [i for i in range(m.board.size) if not s.seen[i]]
    assert unseen and any(s.seen)
    reached = _public_objects(obs)
    ids = {id(x) for x in reached}
    assert id(s.game.cells) not in ids and id(s.game.map) not in ids and id(s.game.hills) not in ids
    assert id(s) not in ids and id(s.game) not in ids
    # no tuple or list holds the true terrain of an unseen cell at that cell's place
    for x in reached:
        if isinstance(x, (tuple, list)) and len(x) == m.board.size and any(x[i] is m.cells[i] for i in unseen):
            pytest.fail(f"a public sequence holds unseen terrain: {x!r}")
    assert all(obs.terrain[i] == -1 and obs.known(i) is None for i in unseen)
    assert set(obs.hills) <= {i for i in range(m.board.size) if s.seen[i]}
    known = obs.known_map()
    assert all(known.cells[i] is None for i in unseen) and set(known.hills) == set(obs.hills)
    assert known.cells == s.known_map().cells and known.hills == s.known_map().hills


def test_observations_of_maps_differing_in_unseen_cells_are_equal():
    """Two maps that differ only in unseen cells give the same observation (the map cannot leak)."""
    m = read_map(DATA / "engine_fauna_201.toml")
    s = _advance(Game(m).new_initial_state(), random.Random(2), 25)
    unseen = [i for i in range(m.board.size) if not s.seen[i]]
    other_map = m.with_cells(Terrain.WATER if i in unseen else t for i, t in enumerate(m.cells))
    assert other_map.cells != m.cells
    t = Game(other_map).new_initial_state()
    for a in s.history:
        t.apply_action(a)
    a, b = s.observation(), t.observation()
    for name in Observation.__slots__:
        if name == "game":
            continue
        assert getattr(a, name) == getattr(b, name), name
    assert a.known_map() == b.known_map() and a.frontier() == b.frontier() == s.frontier()
    assert a.field_for_shelter() == s._field_for_shelter()


def test_deck_orders_are_hidden():
    """A pile shows its size only (Kill Minotaur cards here), never the order of its cards."""
    m = read_map(DATA / "engine_fauna_201.toml")
    s = _advance(Game(m).new_initial_state(), random.Random(2), 5)
    obs = s.observation()
    assert obs.data["kill_pile"] == len(s.data["kill_pile"])
    assert obs.challenges_left == len(s.ch_pile)
    assert not hasattr(obs, "ch_pile") and not hasattr(obs, "history") and not hasattr(obs, "agenda")


def test_traitor_mode_hides_other_players_identity_hand_and_face_down_cards():
    m = read_map(DATA / "engine6_maldonado_201.toml")
    g = Game(m, chapter=MaldonadoTraitor(), players=3)
    rng = random.Random(4)
    bots = [make_bot("heuristic", random.Random(p)) for p in range(3)]
    s = g.new_initial_state()
    checked = 0
    while not s.is_terminal() and checked < 30:
        if s.current_player() == CHANCE_PLAYER:
            s.apply_action(rng.choice(s.chance_outcomes())[0])
            continue
        me = s.current_player()
        obs = observe(s, me)
        d = obs.data
        for p in range(3):
            if p == me:
                assert d["hands"][p] == s.data["hands"][p] and d["identity"][p] == s.data["identity"][p]
            else:
                assert d["hands"][p] == len(s.data["hands"][p])
                assert d["identity"][p] is None or d["identity"][p] == -1
        for pile, true in zip(d["piles"], s.data["piles"]):
            for (code, up, who), real in zip(pile, true):
                if not up and who != me:
                    assert code in (-1, 100) and (code == -1) == (real[0] < 100)
                else:
                    assert code == real[0]
        assert isinstance(d["inf_pile"], int)
        checked += 1
        s.apply_action(bots[me].step(obs))
    assert checked == 30


@pytest.mark.parametrize(("players", "mode"), [(1, None), (3, "traitor")])
def test_observed_piles_follow_every_play_and_flip(players, mode):
    """The Crew Members' piles as each player sees them match the true piles at every decision of whole
    games (the public view is remembered between plays and flips, so a stale view would show here)."""
    from mapgen.engine.maldonado import COMMAND_BASE, Maldonado

    m = read_map(DATA / "engine6_maldonado_201.toml")
    g = Game(m, chapter=MaldonadoTraitor() if mode else Maldonado(), players=players)
    flipped = 0
    for seed in range(3):
        rng = random.Random(seed)
        bots = [make_bot("random", random.Random(seed * 10 + p)) for p in range(players)]
        s = g.new_initial_state()
        while not s.is_terminal():
            if s.current_player() == CHANCE_PLAYER:
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            for p in range(players):
                seen = observe(s, p).data["piles"]
                assert [len(x) for x in seen] == [len(x) for x in s.data["piles"]]
                for pile, true in zip(seen, s.data["piles"]):
                    for (code, up, who), real in zip(pile, true):
                        assert up == real[1] and who == real[2]
                        hidden = not up and who != p
                        assert code == ((-1 if real[0] < COMMAND_BASE else COMMAND_BASE) if hidden else real[0])
            flipped = max(flipped, s.data["flips"])
            me = s.current_player()
            s.apply_action(bots[me].step(observe(s, me)))
    assert flipped > 0 or mode  # co-operative: setup cards were turned face up while the games went on


def test_play_game_hands_each_bot_its_observation():
    m = read_map(DATA / "engine_fauna_202.toml")
    g = Game(m, players=2)
    handed = []

    class Recorder:
        def __init__(self, inner):
            self.inner = inner

        def step(self, obs):
            handed.append((type(obs), obs.player, obs.current))
            return self.inner.step(obs)

    bots = [Recorder(make_bot("heuristic", random.Random(p))) for p in range(2)]
    play_game(g.new_initial_state(), bots, random.Random(3))
    assert handed and all(t is Observation and p == c for t, p, c in handed)
    assert {p for _, p, _ in handed} == {0, 1}


def test_clairvoyant_is_given_the_map():
    with pytest.raises(ValueError, match="must be given the map"):
        make_bot("clairvoyant", random.Random(0))
    m = read_map(DATA / "engine_fauna_201.toml")
    s = Game(m).new_initial_state()
    c3 = m.board.index("C4")
    other = m.with_cells(Terrain.WATER if i == c3 else t for i, t in enumerate(m.cells))
    # the same observation, two maps: the clairvoyant believes the map it was handed
    obs = s.observation()
    assert make_bot("clairvoyant", random.Random(0), map=m).belief(obs, c3) == {m.cells[c3]: 1.0}
    assert make_bot("clairvoyant", random.Random(0), map=other).belief(obs, c3) == {Terrain.WATER: 1.0}


@pytest.mark.parametrize("path", sorted(BOTS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_bots_read_no_private_or_hidden_state(path):
    """The bots and their chapter policies use the observation's public attributes only."""
    forbidden = {"agenda", "history", "ch_pile", "th_pile", "de_pile", "not_rock", "field_cells"}
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert node.attr not in forbidden, f"{path.name}:{node.lineno} reads .{node.attr}"
            # the bots with the map in view (not fair): clairvoyant, and the oracle (handed the state itself)
            if node.attr in ("cells", "map") and path.name not in ("clairvoyant.py", "oracle.py"):
                pytest.fail(f"{path.name}:{node.lineno} reads .{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module in ("mapgen.engine.game", "mapgen.engine.play"):
            assert all(a.name != "State" for a in node.names), f"{path.name} imports State"


def test_registry_names_every_bot():
    assert set(BOTS) == {"random", "heuristic", "deducer", "clairvoyant", "ismcts", "planner", "oracle", "scout"}


@pytest.mark.parametrize(
    "name",
    ["engine_training_201", "engine_fauna_201", "engine6_flora_201", "engine6_vameter_201", "engine6_maldonado_201"],
)
def test_rule_questions_on_the_observation_answer_as_the_state(name):
    """frontier() and field_for_shelter(), run on the seen cells only, equal the engine's answers on the state."""
    m = read_map(DATA / f"{name}.toml")
    for seed in range(2):
        s = Game(m).new_initial_state()
        bot, rng, checked = make_bot("heuristic", random.Random(seed)), random.Random(seed), 0
        while not s.is_terminal():
            if s.current_player() == CHANCE_PLAYER:
                s.apply_action(rng.choice(s.chance_outcomes())[0])
                continue
            obs = s.observation()
            # the seen cells, updated where ``seen`` changed, equal the state's at every decision
            assert [obs.known(i) for i in range(m.board.size)] == [s.known(i) for i in range(m.board.size)]
            assert obs.hills == {i: n for i, n in s.game.hills.items() if s.seen[i]}
            assert obs.frontier() == s.frontier()
            assert obs.field_for_shelter() == s._field_for_shelter()
            assert obs.slots() == s.slots() and obs.monster_taxes(obs.frontier()) == s.monster_taxes(s.frontier())
            checked += 1
            s.apply_action(bot.step(obs))
        assert checked > 20


def test_worlds_of_a_state_that_compiles_are_drawn_exactly_uniformly():
    """Where the revealed cells compile (Training from none, Fauna from 5), ismcts's worlds come from the
    circuit: each agrees with what is seen, a seed gives the same worlds, and a cell's terrain shares over
    1,500 draws pass a chi-square test against the exact odds (seeded: the same test every run)."""
    import maps
    from mapgen.engine.infostate import CompletionSampler
    from mapgen.solving.solve import Solver

    m = maps.load("training-1")
    known = m.hide(i for i in range(m.board.size) if i not in (0, 6))  # 23 hidden: no enumeration

    def five(seed):
        rng = random.Random(seed)
        sampler = CompletionSampler("training")
        return [sampler.sample(known, rng).cells for _ in range(5)]

    assert five(1) == five(1) != five(2)
    sampler = CompletionSampler("training")
    rng = random.Random(7)
    worlds = [sampler.sample(known, rng) for _ in range(1500)]
    assert sampler.exact == 1500 and sampler.drawn == 0
    assert all(w.cells[i] == known.cells[i] for w in worlds for i in (0, 6))
    total, tallies = Solver.for_chapter("training").exact_tallies(known, 30.0)
    cell = 12  # the middle of the board
    seen = {t: sum(w.cells[cell] is t for w in worlds) for t in tallies[cell]}
    chi2 = sum((seen[t] - 1500 * n / total) ** 2 / (1500 * n / total) for t, n in tallies[cell].items())
    critical = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47}[len(tallies[cell]) - 1]  # p = 0.001
    assert chi2 < critical, (chi2, seen, tallies[cell])


@pytest.mark.parametrize(
    ("name", "players", "traitor"), [("engine_fauna_201.toml", 1, False), ("engine6_maldonado_201.toml", 3, True)]
)
def test_observation_keys_are_equal_exactly_when_the_texts_are(name, players, traitor):
    """A world is kept while its observations match the player's: the trackers compare ``obs_key``s, which must
    be equal exactly when the observation strings (``obs_text``) are, and must not change as the game goes on.
    Pairs at the same move: a game and its replay on a map differing in unseen cells (equal), games of other
    seeds (mostly not), every player's view of each."""
    import copy

    from mapgen.engine.infostate import obs_key, obs_text

    m = read_map(DATA / name)
    other = m.with_cells(m.cells[i] if i < 12 else Terrain.WATER for i in range(m.board.size))

    def game(mp):
        return Game(mp, chapter=MaldonadoTraitor() if traitor else None, players=players)

    runs = []
    for seed in range(3):
        rng = random.Random(seed)
        bots = [make_bot("random", random.Random(seed * 10 + p)) for p in range(players)]
        s = game(m).new_initial_state()
        states = [s.clone()]
        while not s.is_terminal() and len(s.history) < 120:
            if s.current_player() == CHANCE_PLAYER:
                s.apply_action(rng.choice(s.chance_outcomes())[0])
            else:
                me = s.current_player()
                s.apply_action(bots[me].step(observe(s, me)))
            states.append(s.clone())
        runs.append(states)
    replayed = game(other).new_initial_state()  # the first game again where its observations allow
    twin = [replayed.clone()]
    for a in runs[0][-1].history:
        if replayed.is_terminal() or (a < 1000 and a not in replayed.legal_actions()):
            break
        if a >= 1000 and a - 1000 not in replayed._chance_pile():
            break
        replayed.apply_action(a)
        twin.append(replayed.clone())
    runs.append(twin)
    equal = unequal = 0
    for k in range(min(map(len, runs))):
        for p in range(players):
            keys = [obs_key(r[k], p) for r in runs]
            texts = [obs_text(r[k], p) for r in runs]
            for i in range(len(runs)):
                for j in range(i + 1, len(runs)):
                    assert (keys[i] == keys[j]) == (texts[i] == texts[j]), (k, p, texts[i], texts[j])
                    equal += texts[i] == texts[j]
                    unequal += texts[i] != texts[j]
    assert equal > 10 and unequal > 10
    # a key is a snapshot: the game going on changes nothing in it
    s = game(m).new_initial_state()
    keys, kept = [], []
    for a in runs[0][-1].history:
        keys.append(obs_key(s, 0))
        kept.append(copy.deepcopy(keys[-1]))
        s.apply_action(a)
    assert keys == kept


def test_observation_keys_differ_wherever_the_texts_do():
    """Each public part of a state changed alone changes its observation string, and its ``obs_key`` too."""
    from mapgen.engine.infostate import obs_key, obs_text

    m = read_map(DATA / "engine_fauna_201.toml")
    s = _advance(Game(m).new_initial_state(), random.Random(2), 25)
    changes = {
        "fires": lambda t: setattr(t, "fires", t.fires + 1),
        "shelter": lambda t: setattr(t, "shelter", t.shelter + 1),
        "samples": lambda t: setattr(t, "samples", t.samples + 1),
        "extra_slots": lambda t: setattr(t, "extra_slots", t.extra_slots + 1),
        "injured": lambda t: setattr(t, "injured", t.injured + 1),
        "banned": lambda t: setattr(t, "banned", t.banned + 1),
        "last_gain": lambda t: setattr(t, "last_gain", t.last_gain + 1),
        "day": lambda t: setattr(t, "day", t.day + 1),
        "chased": lambda t: setattr(t, "chased", not t.chased),
        "lewis_on": lambda t: setattr(t, "lewis_on", not t.lewis_on),
        "pack": lambda t: t.pack.__setitem__(0, t.pack[0] + 1),
        "trail": lambda t: t.ex_list.append(0),
        "threats": lambda t: t.threats.append(0),
        "destiny": lambda t: t.de_held.append(0),
        "exhausted": lambda t: t.exhausted.add("Compass"),
        "monsters": lambda t: t.monsters.__setitem__(0, 1),
        "row": lambda t: t.row[0].__setitem__(1, t.row[0][1] + 1),
        "data": lambda t: t.data.__setitem__("kills", t.data["kills"] + 1),
    }
    key, text = obs_key(s, 0), obs_text(s, 0)
    assert obs_key(s.clone(), 0) == key
    for name, change in changes.items():
        t = s.clone()
        t.row = [list(e) for e in t.row]  # (a clone may share these with s)
        t.data = {k: list(v) if isinstance(v, list) else v for k, v in t.data.items()}
        t.exhausted = set(t.exhausted)
        t.monsters = dict(t.monsters)
        change(t)
        assert obs_text(t, 0) != text, name
        assert obs_key(t, 0) != key, name


def test_observation_keys_read_what_the_texts_read(monkeypatch):
    """``obs_key`` and ``obs_text`` are two encodings of one observation, kept in step by hand: at every step of a
    two-player game, for each player, both read the same parts of it. A part added to the text and not to the key
    (worlds the player could tell apart from the real game kept as alike) fails here."""
    from mapgen.engine import infostate

    m = read_map(DATA / "engine_fauna_201.toml")
    real = infostate.observe
    read: list[set[str]] = []

    class Recording:
        def __init__(self, o):
            object.__setattr__(self, "_o", o)

        def __getattr__(self, name):
            read[-1].add(name)
            return getattr(self._o, name)

    monkeypatch.setattr(infostate, "observe", lambda state, player=None: Recording(real(state, player)))
    rng = random.Random(3)
    bots = [make_bot("random", random.Random(p)) for p in range(2)]
    s = Game(m, players=2).new_initial_state()
    checked = 0
    while not s.is_terminal() and len(s.history) < 80:
        for p in range(2):
            read.append(set())
            infostate.obs_text(s, p)
            read.append(set())
            infostate.obs_key(s, p)
            assert read[-1] == read[-2], (len(s.history), p, read[-1] ^ read[-2])
            checked += 1
        if s.current_player() == CHANCE_PLAYER:
            s.apply_action(rng.choice(s.chance_outcomes())[0])
        else:
            me = s.current_player()
            s.apply_action(bots[me].step(real(s, me)))
    assert checked > 50 and {"pack", "data", "row", "step", "legal"} <= set().union(*read)


@pytest.mark.parametrize("hidden", [12, 20, 30])
def test_a_busy_machine_draws_the_same_worlds_or_says_it_ran_out(monkeypatch, hidden):
    """ismcts's worlds (``CompletionSampler.sample``) were enumerated within 0.3 wall-clock seconds and drawn by
    CP-SAT within 2: on a busy machine an enumeration ran out and the world came from elsewhere (another world, so
    another move and another playtest result, with nothing said). Now both count CP-SAT's deterministic work; the wall
    clock running out is SolveTimeout (exit 3)."""
    import maps
    from constraints import cpsat
    from mapgen.engine.infostate import CompletionSampler
    from mapgen.solving.solve import SolveTimeout

    m = maps.load("fauna-1")
    known = m.hide(range(8, 8 + hidden))

    def three():
        rng, sampler = random.Random(5), CompletionSampler("fauna")
        sampler._circuit = lambda known: None  # no compiled circuit: the enumeration and the CP-SAT draws answer
        return [sampler.sample(known, rng).cells for _ in range(3)]

    calm = three()
    made = cpsat.make_solver
    monkeypatch.setattr(cpsat, "make_solver", lambda time_limit, **kw: made(min(time_limit, 1e-4), **kw))
    try:
        busy = three()
    except SolveTimeout:
        return  # the clock ran out: said so
    assert busy == calm


@pytest.mark.parametrize("player", [1, 3, -1])
def test_the_observation_of_a_player_the_game_does_not_have_is_refused(player):
    """``state.observation(3)`` in a solo game answered, as if a fourth player sat at the table (and -1 read as
    the last player): a researcher's off-by-one went unseen. It names the players the game has."""
    from mapgen.engine.rules import BadSettingError

    state = Game(read_map(DATA / "engine_fauna_201.toml")).new_initial_state()
    with pytest.raises(BadSettingError, match="player .* solo game has player 0 only"):
        state.observation(player)
    assert state.observation(0).player == 0
