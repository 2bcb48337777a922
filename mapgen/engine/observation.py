"""What one player may know of a game: the observation a bot decides on (as OpenSpiel's observers).

``observe(state, player)`` (or ``state.observation(player)``) gives an ``Observation``: plain attributes,
made once per decision from references to the state's public parts, so reading them costs what
reading the state did. It holds:

- ``game``: a ``Table``, the game's public facts (board, chapter rules, card definitions, team,
  briefing, start cells), one per ``Game``. No terrain, no Hill positions, no seed.
- the map as seen: ``terrain[i]`` (the Terrain index of a seen cell, -1 unseen), ``hills`` (the numbers
  of the seen Hills), ``seen``, ``explored``, ``n_explored``, and ``known(i)`` / ``known_map()``.
  ``terrain`` is a new list whenever a cell is newly seen and is never changed in place (nor is
  ``hills``), so a bot may tell "nothing newly seen" by identity (``obs.terrain is last_terrain``);
  the state keeps it up to date where ``seen`` changed, not by a scan of the board;
- the public tokens and resources: ``pack``, ``row`` (the Challenge Row), ``fires``, ``shelter``,
  ``samples``, ``monsters``, ``threats``, ``exhausted``, ``de_held`` / ``de_face`` (Destiny cards), the
  clock (``day``, ``turn``, ``current``), the turn's flags, ``challenges_left`` (the Challenge pile's
  size, not its order) and ``moves`` (actions played so far);
- ``data``: the chapter's data as ``chapter.public_data(data, player)`` shows it to that player (no deck
  order; in Hidden Traitor mode no other player's Identity, hand or face-down card);
- the decision: ``player``, ``step`` (the step being decided) and ``legal`` (the legal actions).

Rule helpers are the engine's own code run on public facts: ``slots``, ``carried``, ``challenge``,
``can_pass``, ``monster_tax(es)`` are the State's functions (they read public attributes only);
``frontier()`` and ``field_for_shelter()`` run the State's functions on a view whose game holds the
seen cells only (they read the terrain of explored cells, which are seen). The observation keeps no
reference to the state or the Game: the hidden map cannot be reached from it, and ``clairvoyant``
is handed the map when it is made.
"""

from __future__ import annotations

import weakref
from itertools import compress

from mapgen.model import Map
from mapgen.terrain import TERRAINS, Terrain

_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Game -> Table
_last_table: list = [None, None]  # the last (Game, Table) asked for: one game is played at a time


class Table:
    """The public facts of one game: what is printed on the board and cards, and the briefing."""

    __slots__ = (
        "__weakref__",
        "blank",
        "board",
        "briefing",
        "cards",
        "challenges",
        "chapter",
        "characters",
        "col_of",
        "destiny",
        "gear",
        "kills",
        "lines",
        "n",
        "orth",
        "reference",
        "row_of",
        "start_cells",
        "threats",
        "variants",
    )

    def __init__(self, g):
        m = g.map
        self.board = g.board
        self.chapter = g.chapter
        self.n = g.n
        self.challenges = g.challenges
        self.kills = g.kills
        self.destiny = g.destiny
        self.threats = g.threats
        self.characters = g.characters
        self.gear = g.gear
        self.orth = g.orth
        self.row_of = g.row_of
        self.col_of = g.col_of
        self.lines = g.lines
        self.start_cells = g.start_cells
        self.briefing = m.briefing
        self.reference = g.reference  # the Reference Board's rule instances (constraints.catalogue.Chapter)
        self.cards = g.cards  # the card set the decks were taken from
        self.variants = g.variants  # the rule variants played (--variant): public, as the rules are
        # the map with nothing revealed (no cells, no Hills, no generator fields): known_map() fills it in
        self.blank = Map(m.chapter, m.briefing, (None,) * g.board.size, board=m.board)


def table(g) -> Table:
    """The public ``Table`` of a game (made once per game)."""
    if _last_table[0] is g:
        return _last_table[1]
    t = _TABLES.get(g)
    if t is None:
        t = _TABLES[g] = Table(g)
    _last_table[0], _last_table[1] = g, t
    return t


def _seen_cells(state) -> tuple[list[int], dict[int, int]]:
    """The terrain index of each seen cell (-1 unseen) and the seen Hills' numbers; new lists when seen changes.

    Kept on the state (``_observed``: a copy of ``seen``, the list and the dict, copied by ``clone`` with
    the state's other fields) and updated only where ``seen`` changed: a new terrain list (the old one may
    be held by a bot's earlier observation, so neither is ever changed in place), a new Hill dict only when
    a Hill is among the changed cells.
    """
    seen = state.seen
    g = state.game
    tidx = g.cell_indices  # the Game's own table (each cell's Terrain.index): never handed to a bot
    entry = state.__dict__.get("_observed")
    if entry is None or len(entry[0]) != len(seen):
        terrain = [tidx[i] if s else -1 for i, s in enumerate(seen)]
        hills = {i: n for i, n in g.hills.items() if seen[i]}
    else:
        # one or two cells are newly seen per explore: find them with one integer XOR, not a scan
        terrain = list(entry[1])
        hills = entry[2]
        diff = int.from_bytes(entry[0], "little") ^ int.from_bytes(seen, "little")
        new_hill = False
        while diff:
            x = ((diff & -diff).bit_length() - 1) >> 3  # the lowest differing byte
            diff &= ~(0xFF << (x << 3))
            terrain[x] = tidx[x] if seen[x] else -1
            if x in g.hills:
                new_hill = True
        if new_hill:
            hills = {i: n for i, n in g.hills.items() if seen[i]}
    state._observed = (bytes(seen), terrain, hills)
    return terrain, hills


class Observation:
    """What ``player`` may know now (see the module docstring); made by ``observe``."""

    __slots__ = (
        "_frontier",
        "banned",
        "challenges_left",
        "chased",
        "collins_on",
        "current",
        "data",
        "day",
        "de_face",
        "de_held",
        "ex_list",
        "exhausted",
        "explored",
        "explored_now",
        "extra_slots",
        "fires",
        "game",
        "hills",
        "injured",
        "last_gain",
        "legal",
        "lewis_on",
        "monsters",
        "moves",
        "n_explored",
        "pack",
        "player",
        "row",
        "samples",
        "seen",
        "shelter",
        "step",
        "terrain",
        "threats",
        "turn",
    )
    # set by ``observe`` (``legal_only`` sets ``player``, ``step`` and ``legal`` only)
    player: int
    game: Table
    seen: bytearray
    terrain: list[int]  # a seen cell's Terrain index, -1 unseen
    hills: dict[int, int]
    explored: bytearray
    ex_list: list[int]
    n_explored: int
    pack: list[int]
    row: list[list]
    fires: int
    shelter: int
    samples: int
    extra_slots: int
    monsters: dict[int, int]
    threats: list[int]
    exhausted: set[str]
    de_held: list[int]
    de_face: list[int]
    day: int
    turn: int
    current: int
    injured: int
    chased: bool
    lewis_on: bool
    collins_on: bool
    last_gain: int
    banned: int
    explored_now: bool
    challenges_left: int
    moves: int
    data: dict
    step: tuple | None  # the decision being taken (None at the end)
    legal: list[int]
    _frontier: tuple | None  # the state's last frontier() (explore.frontier's cache: public), for frontier()

    def legal_actions(self) -> list[int]:
        return self.legal

    def known(self, i: int) -> Terrain | None:
        """The terrain of a cell if the players have seen it."""
        k = self.terrain[i]
        return TERRAINS[k] if k >= 0 else None

    def known_map(self):
        """The map as the players see it: unseen cells None, seen Hills with their numbers (a solver state)."""
        cells = tuple(TERRAINS[k] if k >= 0 else None for k in self.terrain)
        return self.game.blank.with_cells(cells, hills=self.hills)

    def frontier(self) -> list[int]:
        """Unexplored cells that may be explored now (Rules for Exploring), before Monster costs.

        Without a chapter's exploring rules the answer is a function of the game, the explored cells (seen, so
        their terrain is the game's) and the Monsters' cells: the state's last answer (handed over by ``observe``:
        the explored cells, the Monsters' cells and the cells open, all public) is read when it is for these, else
        the last one asked here is kept (a bot asks at every main step)."""
        t = self.game
        if t.chapter.blocks_exploring:
            return _STATE_RULES["frontier"](_RulesView(self))
        explored, mons = bytes(self.explored), tuple(self.monsters)
        hint = self._frontier  # the state's own last frontier() (the legal explores were found with it)
        if hint is not None and hint[0] == explored and hint[1] == mons:
            return list(hint[4])
        last = _last_frontier
        if last[0] is self.terrain and last[1] == explored and last[2] == mons:  # (the same seen cells, so game)
            return list(last[4])
        view = _RulesView(self)
        view._frontier = hint  # State.frontier goes on from it when one cell was explored since (the usual case)
        out = _STATE_RULES["frontier"](view)
        _last_frontier[:] = (self.terrain, explored, mons, t, tuple(out))
        return out

    def field_for_shelter(self) -> int:
        """An explored Field (or the chapter's Shelter terrain) free for a Shelter, -1 if none."""
        return _STATE_RULES["_field_for_shelter"](_RulesView(self))


#: (seen terrain list, explored, Monsters' cells, Table, frontier) of the last frontier() (the Table kept alive with it)
_last_frontier: list = [None, b"", (), None, ()]
_last_seen_game: list = [None, None]  # (the terrain list it was made from, _SeenGame)


class _SeenGame:
    """A game as the players see it (unseen cells None), for the State's rule helpers run on observations."""

    __slots__ = ("board", "cells", "chapter", "col_of", "field_cells", "not_rock", "orth", "row_of", "start_cells")

    def __init__(self, obs: Observation):
        t = obs.game
        self.board, self.chapter, self.orth = t.board, t.chapter, t.orth
        self.row_of, self.col_of, self.start_cells = t.row_of, t.col_of, t.start_cells
        terrain = obs.terrain  # terrain indices, -1 unseen: the three below made in C (map, compress)
        self.cells = tuple(map(_TERRAIN_OR_NONE.__getitem__, terrain))  # (index -1: None)
        self.not_rock = bytes(map(_ROCK.__ne__, terrain))  # an unseen cell is not a Rock
        self.field_cells = tuple(compress(range(len(terrain)), map(_FIELD.__eq__, terrain)))


_TERRAIN_OR_NONE = (*TERRAINS, None)  # a terrain index to its Terrain, -1 (unseen) to None
_ROCK, _FIELD = Terrain.ROCK.index, Terrain.FIELD.index


class _RulesView:
    """What ``State.frontier`` and ``State._field_for_shelter`` read, from an observation (seen cells only)."""

    __slots__ = ("_frontier", "collins_on", "data", "ex_list", "explored", "game", "monsters", "n_explored", "shelter")

    def __init__(self, obs: Observation):
        seen_game = _last_seen_game[1]
        if _last_seen_game[0] is not obs.terrain or seen_game.chapter is not obs.game.chapter:
            seen_game = _SeenGame(obs)  # made again only when a cell is newly seen (a new terrain list)
            _last_seen_game[0], _last_seen_game[1] = obs.terrain, seen_game
        self.game = seen_game
        self.data, self.ex_list, self.explored = obs.data, obs.ex_list, obs.explored
        self.monsters, self.n_explored, self.shelter = obs.monsters, obs.n_explored, obs.shelter
        self.collins_on = obs.collins_on
        self._frontier: tuple | None = None  # State.frontier's cache: a view lives for one question


_STATE_RULES: dict = {}  # State functions run on a _RulesView


def bind_state_rules(State) -> None:
    """The State's rule helpers that read only public attributes, shared as the Observation's methods
    (called by ``mapgen.engine.game`` once its State is defined: the game sits above this module)."""
    for name in ("slots", "carried", "challenge", "can_pass", "monster_tax", "monster_taxes"):
        setattr(Observation, name, getattr(State, name))
    for name in ("frontier", "_field_for_shelter"):
        _STATE_RULES[name] = getattr(State, name)


def observe(state, player: int | None = None) -> Observation:
    """The observation of ``player`` (default: the player to act) at this state."""
    o = _new_observation(Observation)
    o.player = state.current_player() if player is None else player
    g = state.game
    o.game = _last_table[1] if _last_table[0] is g else table(g)
    seen = o.seen = state.seen
    entry = state._observed
    if entry[0] == seen:  # the common case inline: no cell newly seen since the last decision
        o.terrain = entry[1]
        o.hills = entry[2]
    else:
        o.terrain, o.hills = _seen_cells(state)
    o.explored = state.explored
    o.ex_list = state.ex_list
    o.n_explored = state.n_explored
    o.pack = state.pack
    o.row = state.row
    o.fires = state.fires
    o.shelter = state.shelter
    o.samples = state.samples
    o.extra_slots = state.extra_slots
    o.monsters = state.monsters
    o.threats = state.threats
    o.exhausted = state.exhausted
    o.de_held = state.de_held
    o.de_face = state.de_face
    o.day = state.day
    o.turn = state.turn
    o.current = state.current
    o.injured = state.injured
    o.chased = state.chased
    o.lewis_on = state.lewis_on
    o.collins_on = state.collins_on
    o.last_gain = state.last_gain
    o.banned = state.banned
    o.explored_now = state.explored_now
    o.challenges_left = len(state.ch_pile)
    o.moves = len(state.history)
    o.data = g.chapter.public_data(state.data, o.player)
    agenda = state.agenda
    o.step = agenda[-1] if agenda else None
    o.legal = state.legal_actions() if state.outcome is None else []
    o._frontier = state._frontier  # after the legal actions, whose explores may have found the frontier anew
    return o


def legal_only(state, player: int) -> Observation:
    """An observation with only ``player``, ``step`` and ``legal`` set, for a bot that reads nothing else
    (``decides_on = "legal"``: the random bot); the other attributes are unset."""
    o = _new_observation(Observation)
    o.player = player
    agenda = state.agenda
    o.step = agenda[-1] if agenda else None
    o.legal = state.legal_actions()
    return o


_new_observation = object.__new__
