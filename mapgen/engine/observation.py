"""What one player may know of a game: the observation a bot decides on (as OpenSpiel's observers).

``observe(state, player)`` (or ``state.observation(player)``) gives an ``Observation``: plain attributes,
made once per decision from references to the state's public parts, so reading them costs what
reading the state did. It holds:

- ``game``: a ``Table``, the game's public facts (board, chapter rules, card definitions, team,
  briefing, start cells), one per ``Game``. No terrain, no Hill positions, no seed.
- the map as seen: ``terrain[i]`` (the Terrain index of a seen cell, -1 unseen), ``hills`` (the numbers
  of the seen Hills), ``seen``, ``explored``, ``n_explored``, and ``known(i)`` / ``known_map()``;
- the public tokens and resources: ``pack``, ``row`` (the Challenge Row), ``fires``, ``shelter``,
  ``samples``, ``monsters``, ``threats``, ``exhausted``, ``de_held`` / ``de_face`` (Destiny cards), the
  clock (``day``, ``turn``, ``current``), the turn's flags, ``challenges_left`` (the Challenge pile's
  size, not its order) and ``moves`` (actions played so far);
- ``data``: the chapter's data as ``chapter.public_data(data, player)`` shows it to that player (no deck
  order; in Hidden Traitor mode no other player's Identity, hand or face-down card);
- the decision: ``player``, ``step`` (the step being decided) and ``legal`` (the legal actions).

Rule questions whose answers are public (``frontier()``, ``field_for_shelter()``) are answered by the
engine; the state kept for them is private (``_state``) and no bot reads it (a test checks the bots'
source). The hidden map is never an attribute: ``clairvoyant`` is handed the map when it is made.
"""

from __future__ import annotations

import weakref

from mapgen.model import Map
from mapgen.terrain import TERRAINS, Terrain

_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Game -> Table
_last_table: list = [None, None]  # the last (Game, Table) asked for: one game is played at a time
_TERRAIN_INDEX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Game -> its cells' Terrain indices


class Table:
    """The public facts of one game: what is printed on the board and cards, and the briefing."""

    __slots__ = (
        "__weakref__",
        "blank",
        "board",
        "briefing",
        "challenges",
        "chapter",
        "characters",
        "col_of",
        "destiny",
        "gear",
        "kills",
        "n",
        "orth",
        "row_of",
        "start_cells",
        "threats",
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
        self.start_cells = g.start_cells
        self.briefing = m.briefing
        # the map with nothing revealed (no cells, no Hills, no generator fields): known_map() fills it in
        self.blank = Map(m.chapter, m.briefing, (None,) * g.board.size)


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

    Kept on the state (``_observed``, copied by ``clone`` with the state's other fields) and made
    again only when a cell is newly seen.
    """
    seen = state.seen
    try:
        entry = state._observed
        if entry[0] == seen:
            return entry[1], entry[2]
    except AttributeError:
        pass
    g = state.game
    tidx = _TERRAIN_INDEX.get(g)  # the engine's own table: never handed to a bot
    if tidx is None:
        tidx = _TERRAIN_INDEX[g] = tuple(t.index for t in g.cells)
    terrain = [tidx[i] if s else -1 for i, s in enumerate(seen)]
    hills = {i: n for i, n in g.hills.items() if seen[i]}
    state._observed = (bytes(seen), terrain, hills)
    return terrain, hills


class Observation:
    """What ``player`` may know now (see the module docstring); made by ``observe``."""

    __slots__ = (
        "_state",
        "banned",
        "challenges_left",
        "chased",
        "collins_on",
        "current",
        "data",
        "day",
        "de_face",
        "de_held",
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
        """Unexplored cells that may be explored now (Rules for Exploring), before Monster costs."""
        return self._state.frontier()

    def field_for_shelter(self) -> int:
        """An explored Field (or the chapter's Shelter terrain) free for a Shelter, -1 if none."""
        return self._state._field_for_shelter()


def _bind_state_rules():
    """The State's rule helpers that read only public attributes, shared as the Observation's methods."""
    from mapgen.engine.game import State

    for name in ("slots", "carried", "challenge", "can_pass", "monster_tax", "monster_taxes"):
        setattr(Observation, name, getattr(State, name))


_bind_state_rules()


def observe(state, player: int | None = None) -> Observation:
    """The observation of ``player`` (default: the player to act) at this state."""
    o = Observation.__new__(Observation)
    o._state = state
    o.player = state.current_player() if player is None else player
    g = state.game
    o.game = _last_table[1] if _last_table[0] is g else table(g)
    seen = o.seen = state.seen
    try:  # the common case inline: no cell newly seen since the last decision
        entry = state._observed
        if entry[0] == seen:
            o.terrain, o.hills = entry[1], entry[2]
        else:
            o.terrain, o.hills = _seen_cells(state)
    except AttributeError:
        o.terrain, o.hills = _seen_cells(state)
    o.explored = state.explored
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
    o.step = state.agenda[-1] if state.agenda else None
    o.legal = state.legal_actions() if state.outcome is None else []
    return o
