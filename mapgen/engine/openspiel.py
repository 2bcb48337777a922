"""Corps of Discovery as an OpenSpiel game: importing this module (or ``mapgen.openspiel``, which re-exports it)
registers ``python_corps_of_discovery``.

    import pyspiel, mapgen.openspiel
    game = pyspiel.load_game("python_corps_of_discovery", {"map": "fauna-1", "players": 1})

Parameters: ``map`` (a shipped map's name or a map file), ``players`` (1 to 4), ``mode`` (``coop``, or
``traitor``: Maldonado's Hidden Traitor mode), ``characters`` (``Lewis+Clark``), ``gear`` (``+`` between
cards, ``/`` between players: ``Compass+Flint/Jar``), ``medicine``, ``variants`` (the engine's named variants,
``+`` between them: ``flora-minotaurs+relaunch``; ``mapgen playtest --variant``) and ``rules`` (a house-rule
chapter file the players reason with: resampling draws worlds under it; ``mapgen playtest --rules``). Parameters
that make no game raise ``ParameterError`` (a ValueError) naming the parameter; OpenSpiel itself refuses an unknown
one or a value of the wrong type (``pyspiel.SpielError``). There is no seed: chance nodes are explicit, so the
draws are the caller's (``play_game``'s seeded ones replay here action for action). Needs the optional extra:
``pip install ".[openspiel]"``.

The engine's State (``mapgen/engine/game.py``) is played as it is: a player's action is the engine's
action number (below 1000); a chance outcome is the card's index in the deck drawn from (the engine's
``1000 + card``), with its probability (uniform over the cards left). ``observation_string(p)`` is
``p``'s engine ``Observation`` as text (``mapgen.engine.infostate.obs_text``): seen cells, public tokens,
their own hand only; ``information_state_string(p)`` adds a digest of every earlier observation of
``p`` (perfect recall). ``returns``: co-operative games share one return, 0 for a loss and
``1 + score / 100`` for a win; in Hidden Traitor mode the Loyalists share it and the Traitor gets 1 when
the Traitor wins. ``resample_from_infostate(player, sampler)`` draws a world the player cannot tell
from this one (``mapgen.engine.infostate.resample_near``: whole worlds by rejection, else drawn step by step
conditioned on this state; it never fails). States clone with the engine's ``clone`` and
serialize as (settings, map, actions).
"""

from __future__ import annotations

import random

import pyspiel

import maps
from constraints.catalogue import is_shipped, load_chapter
from mapgen.engine import infostate as I
from mapgen.engine.actions import CHANCE
from mapgen.engine.cards import shipped_cards
from mapgen.engine.game import Game
from mapgen.engine.traitor import chapter_for_mode
from mapgen.errors import MapgenError, MessageKeyError
from mapgen.mapfile import dumps_map, parse_map, read_map

GAME_NAME = "python_corps_of_discovery"
MAX_LENGTH = 20000  # play_game's bound on steps
WIN_SCALE = 100.0  # a win returns 1 + score / WIN_SCALE

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Corps of Discovery",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=False,
    parameter_specification={
        "map": "fauna-1",
        "players": 1,
        "mode": "coop",
        "characters": "",
        "gear": "",
        "medicine": False,
        "variants": "",
        "rules": "",
    },
)


class ParameterError(ValueError):
    """``load_game`` parameters that make no game: ``parameter`` names the one at fault; the message is the
    engine's reason after ``python_corps_of_discovery parameter NAME=VALUE:``."""

    def __init__(self, parameter: str, value, reason: str):
        super().__init__(f"{GAME_NAME} parameter {parameter}={value!r}: {reason}")
        self.parameter = parameter


class UnknownMapParameterError(ParameterError, MessageKeyError):
    """``map`` names no shipped map: also a KeyError, as ``maps.load``'s UnknownMapError (and this game's) always was."""


def _team(characters: str, gear: str, players: int):
    """``Lewis+Clark`` and ``Compass+Flint/Jar``: OpenSpiel's game strings reserve ``,`` ``=`` and parentheses.
    Counted here, in the parameters' own separators (the engine's count speaks of the command line's ``;``)."""
    chars = tuple(c.strip() for c in characters.split("+")) if characters else None
    gears = tuple(tuple(x.strip() for x in part.split("+") if x.strip()) for part in gear.split("/")) if gear else None
    for name, value, given, how in (
        ("characters", characters, chars, "one character per player, '+' between them"),
        ("gear", gear, gears, "each player's Gear cards, '/' between players"),
    ):
        if given is not None and players in range(1, 5) and len(given) != players:
            many = "player" if players == 1 else "players"
            raise ParameterError(name, value, f"{how}: {len(given)} given for {players} {many} (players={players})")
    return chars, gears


def engine_game(params: dict, m=None) -> Game:
    """The engine's ``Game`` for these parameters (``m``: a map instead of the ``map`` parameter); a
    ``ParameterError`` naming the parameter at fault when they make no game."""
    try:
        return _engine_game(params, m)
    except MapgenError as e:  # the engine's GameError names its setting; the map's and chapter file's errors
        name = getattr(e, "setting", None) or "map"
        kind = UnknownMapParameterError if isinstance(e, maps.UnknownMapError) else ParameterError
        raise kind(name, params.get(name), str(e)) from None


def _engine_game(params: dict, m) -> Game:
    if m is None:
        spec = params["map"]
        path = maps.resolve(spec)
        # a shipped map's name that is not one: the map meant (UnknownMapError), not "fauna1: no such file"
        m = maps.load(spec) if maps.names_nothing(spec, path) else read_map(path)
    chars, gear = _team(params["characters"], params["gear"], params["players"])
    variants = [v.strip() for v in params.get("variants", "").split("+") if v.strip()]
    reference = None
    if params.get("rules"):
        try:
            reference = load_chapter(params["rules"])
        except MapgenError as e:
            raise ParameterError("rules", params["rules"], str(e)) from None
    return Game(
        m,
        chapter=chapter_for_mode(m.chapter, params["mode"]),
        players=params["players"],
        characters=chars,
        gear=gear,
        medicine=params["medicine"],
        variants=variants,
        reference=reference,
    )


def _parameters_of(g: Game, given: dict) -> dict:
    """The parameters that name an engine's game (``CorpsGame(engine=g)``), so that its game string, pickle and
    ``serialize_game_and_state`` are this game: the map's shipped name (``""`` for another map: no game string
    names it, and loading one is refused), the team, mode and variants. A card set of its own or a house Reference
    Board has no parameter (``rules`` is a file's name): such a state pickles whole, its game string does not."""
    chars, gear, medicine = I.team_settings(g)
    out = {
        "map": given.get("map") or _shipped_name(g.map),
        "players": g.n,
        "mode": getattr(g.chapter, "mode", "coop"),
        "characters": "+".join(chars),
        "gear": "/".join("+".join(x) for x in gear),
        "medicine": medicine,
        "variants": "+".join(sorted(g.variants)),
    }
    for name in ("players", "mode"):
        if name in given and given[name] != out[name]:
            raise ParameterError(name, given[name], f"the engine's game has {name}={out[name]!r}")
    return out


def _shipped_name(m) -> str:
    name = f"{m.chapter}-{m.briefing.number}"
    return name if name in maps.names(m.chapter) and maps.load(name) == m else ""


def _max_chance(g: Game) -> int:
    decks = [len(g.challenges), len(g.threats), len(g.destiny), len(g.kills)]
    ch = g.chapter
    for name in ("influence", "commands", "crew"):
        decks.append(len(getattr(ch, name, ())))
    decks.append(g.board.size)  # chapter tokens (Vameter's Move tokens, Flora's search) stay below one per cell
    return max(decks) + 1


class CorpsGame(pyspiel.Game):
    """The registered game: the engine's ``Game`` for the parameters (see the module docstring)."""

    def __init__(self, params=None, engine: Game | None = None):
        p = dict(_GAME_TYPE.parameter_specification)
        p.update(params or {})
        if engine is not None:
            p.update(_parameters_of(engine, params or {}))
        self.engine = engine or engine_game(p)
        g = self.engine
        self.traitor = p["mode"] == "traitor"
        info = pyspiel.GameInfo(
            num_distinct_actions=CHANCE,
            max_chance_outcomes=_max_chance(g),
            num_players=g.n,
            min_utility=0.0,
            max_utility=2.0,
            utility_sum=None,
            max_game_length=MAX_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self):
        return CorpsState(self, I.Tracker(self.engine.new_initial_state()))

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The player's observation (no type given: OpenSpiel's default), or with perfect recall their information
        state; ValueError for a view it cannot give (public information only, every player's private information)."""
        if params:
            raise ValueError(f"{GAME_NAME} takes no observation parameters (given: {params!r})")
        if iig_obs_type is None:
            return CorpsObserver(False)
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                f"{GAME_NAME} gives only a player's own view: public_info=True, private_info=SINGLE_PLAYER "
                f"(asked: public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info.name})"
            )
        return CorpsObserver(iig_obs_type.perfect_recall)


class _Engine:
    """The engine's state with its tracker: cloned by the engine's ``clone``, pickled as (settings, map, actions)."""

    __slots__ = ("tracker",)

    def __init__(self, tracker: I.Tracker):
        self.tracker = tracker

    def __deepcopy__(self, memo):
        return _Engine(self.tracker.clone())

    def __reduce__(self):
        s = self.tracker.state
        g = s.game
        # every setting of the Game: a state of a game with a variant, a card set of its own or a house Reference
        # Board came back as the rulebooks' game with the shipped cards (its history replayed on other decks);
        # the shipped cards and Reference Board go as None, so that the copy shares them (and their caches)
        rules = (
            sorted(g.variants),
            None if g.cards is shipped_cards() else g.cards,
            None if is_shipped(g.reference) else g.reference,
        )
        return (
            _rebuild,
            (dumps_map(g.map), I.team_settings(g), getattr(g.chapter, "mode", "coop"), g.n, list(s.history), rules),
        )


def _rebuild(map_text, settings, mode, players, history, rules=((), None, None)) -> _Engine:
    m = parse_map(map_text)
    chars, gear, medicine = settings
    variants, cards, reference = rules
    chapter = chapter_for_mode(m.chapter, mode)
    g = Game(
        m,
        chapter=chapter,
        players=players,
        characters=chars,
        gear=gear,
        medicine=medicine,
        cards=cards,
        variants=variants,
        reference=reference,
    )
    t = I.Tracker(g.new_initial_state())
    for a in history:
        t.apply(a)
    return _Engine(t)


#: the decks whose chance outcomes are named by their card (``infostate.pile_tag``: the deck's Game attribute)
_DECKS = {
    "chance_challenge": ("Challenge", "challenges"),
    "chance_threat": ("Threat", "threats"),
    "chance_destiny": ("Destiny", "destiny"),
    "destiny": ("Destiny", "destiny"),
    "kill_pile": ("Kill", "kills"),  # Kill Minotaur cards, Maldonado's Kill Monster cards
}


class CorpsState(pyspiel.State):
    """One game in OpenSpiel's interface, over the engine's State (kept in ``self.engine``)."""

    def __init__(self, game: CorpsGame, tracker: I.Tracker):
        super().__init__(game)
        self._traitor = game.traitor
        self.engine = _Engine(tracker)

    @property
    def inner(self):
        """The engine's State."""
        return self.engine.tracker.state

    def current_player(self):
        s = self.inner
        if s.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if s.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        return s.current

    def _legal_actions(self, player):
        return self.inner.legal_actions()

    def chance_outcomes(self):
        return [(a - CHANCE, p) for a, p in self.inner.chance_outcomes()]

    def _apply_action(self, action):
        s = self.inner
        if s.is_chance_node():
            pile = s._chance_pile()
            if action not in pile:  # in OpenSpiel's numbers (the engine's would be 1000 + card)
                raise ValueError(f"{action} is not a chance outcome here (the deck holds cards {sorted(pile)})")
            action += CHANCE
        elif s.is_terminal():
            raise ValueError(f"no action after the end of the game (action {action})")
        else:
            legal = s.legal_actions()
            if action not in legal:  # checked here: the engine's words for a number past the board are a CellError
                raise ValueError(f"illegal action {action} for player {s.current} (legal: {legal})")
        self.engine.tracker.apply(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            s = self.inner
            deck = _DECKS.get(I.pile_tag(s)) if s.is_chance_node() else None
            if deck is not None and 0 <= action < len(getattr(s.game, deck[1])):
                return f"draw {deck[0]} card {getattr(s.game, deck[1])[action].name!r} (card {action})"
            return f"{s.action_to_string(action + CHANCE)} (card {action})"  # a chapter's token or hidden hand
        return f"{self.inner.action_to_string(action)} (#{action})"  # two copies of a card: two actions

    def is_terminal(self):
        return self.inner.is_terminal()

    def returns(self):
        return engine_returns(self.inner, self._traitor)

    def __str__(self):
        return str(self.inner)

    def resample_from_infostate(self, player, sampler):
        """A state ``player`` cannot tell from this one (``mapgen.engine.infostate.resample_near``: never fails,
        this state being one); ``sampler`` (called with no argument, a float in [0, 1)) seeds the draw."""
        u = sampler() if callable(sampler) else random.random()
        rng = random.Random(int(u * (1 << 53)))
        info = I.information_state(self.inner, player, self.engine.tracker)
        world = I.resample_near(info, rng, self.inner)
        return CorpsState(self.get_game(), world)


def engine_returns(s, traitor: bool = False) -> list[float]:
    """Returns by the score: a win ``1 + score / 100`` (shared); in Hidden Traitor mode the Traitor's side gets 1."""
    n = s.game.n
    if not s.is_terminal():
        return [0.0] * n
    if s.outcome == "win":
        v = 1.0 + max(0, min(s.score, int(WIN_SCALE))) / WIN_SCALE
        out = [v] * n
    else:
        out = [0.0] * n
    if traitor:
        t = s.game.chapter.traitor(s)
        if t >= 0:
            out[t] = 1.0 if s.outcome == "traitor" else 0.0
    return out


class CorpsObserver:
    """Observation strings from the engine's ``Observation``; no tensors (``provides_*_tensor`` is False)."""

    def __init__(self, perfect_recall: bool):
        import numpy as np  # deferred: numpy, only when an observer is made

        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, object] = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        t = state.engine.tracker
        text = I.obs_text(t.state, player)
        if self.perfect_recall:
            return f"history {t.chain(player)}\n{text}"
        return text


pyspiel.register_game(_GAME_TYPE, CorpsGame)
