"""The core rules of Corps of Discovery as a game: ``Game`` (fixed settings) and ``State`` (what changes).

The shape follows OpenSpiel's Python games: ``current_player()``, sorted ``legal_actions()``,
``apply_action()``, ``is_terminal()``, ``returns()``, ``clone()``, ``__str__``; shuffles and draws are
chance nodes (``current_player() == CHANCE_PLAYER``, ``chance_outcomes()``), so a game is replayable
from its actions, and from (seed, bots) through ``play_game``.

Inside, a turn is an *agenda*: a stack of steps. Automatic steps run at once; a step that needs a
decision (a player's or chance's) stays on top until an action answers it. Chapters push their own
steps and answer their own actions (``mapgen/engine/chapters.py``).
"""

from __future__ import annotations

from mapgen.engine import actions as A
from mapgen.engine.cards import (
    FOOD,
    MUD,
    NRES,
    RESOURCE_CODES,
    ROCK,
    SKULL,
    VINE,
    WATER,
    WOOD,
    CardSet,
    Effect,
    shipped_cards,
)
from mapgen.model import Map
from mapgen.terrain import TERRAINS, Terrain

#: Resources other than Water, in order (the ones a free discard can drop)
CARRIED = tuple(r for r in range(NRES) if r != WATER)
CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4
BACKPACK_SLOTS = 6
WATER_LIMIT = 10
MAX_FIRES = 3
SAMPLE_TOKENS = 4

#: Resource gained when a terrain is activated (the Terrain Activation Table).
TERRAIN_RESOURCE = {
    Terrain.FOOD: FOOD,
    Terrain.WOOD: WOOD,
    Terrain.MUD: MUD,
    Terrain.ROCK: ROCK,
    Terrain.SKULL: SKULL,
    Terrain.VINE: VINE,
    Terrain.WATER: WATER,
}
#: The Resource Priority Order on the back of the rulebook, used to place Monsters.
PRIORITY = {
    t: k
    for k, t in enumerate(
        (
            Terrain.FOOD,
            Terrain.WOOD,
            Terrain.MUD,
            Terrain.ROCK,
            Terrain.SKULL,
            Terrain.VINE,
            Terrain.FIELD,
            Terrain.MUSHROOM_FIELD,
            Terrain.PETRIFIED_FOREST,
            Terrain.WATER,
            Terrain.TIPI,
            Terrain.HILL,
        )
    )
}
LEVELS = (
    (28, "Master Explorer"),
    (22, "Fearless Trailblazer"),
    (16, "Veteran Pathfinder"),
    (10, "Skilled Tracker"),
    (4, "Novice Guide"),
    (1, "Greenhorn Scout"),
)
GEAR_PER_PLAYER = {1: 3, 2: 2, 3: 1, 4: 1}
LOSS_CAUSES = ("thirst", "hunger", "no_challenges", "monster_toll", "blocked", "map_explored")

# Decision steps: the agenda waits on them for an action.
DECISIONS = frozenset(
    (
        "main",
        "pay",
        "gain",
        "trade",
        "backtrack",
        "destiny_pick",
        "resolve",
        "fatigue",
        "limits",
        "threat_discard",
        "chance_challenge",
        "chance_destiny",
        "chance_threat",
        "chance_held",
        "chance_chapter",
        "chapter",
    )
)
CHANCE_STEPS = frozenset(("chance_challenge", "chance_destiny", "chance_threat", "chance_held", "chance_chapter"))


def level_name(score: int) -> str:
    """The rulebook's level of success for a final score ("" below 1)."""
    for lo, name in LEVELS:
        if score >= lo:
            return name
    return ""


class GameError(ValueError):
    """Settings a game cannot be made from (a wrong character, too much gear, a bad map)."""


class Game:
    """Fixed settings: the map, the chapter, the players' characters and gear, the cards, the seed."""

    def __init__(
        self,
        m: Map,
        chapter=None,
        players: int = 1,
        characters=None,
        gear=None,
        medicine: bool = False,
        seed: int = 0,
        cards: CardSet | None = None,
    ):
        from mapgen.engine.chapters import chapter_for

        if not m.complete:
            raise GameError("the map is not complete: every cell needs a terrain to play")
        if players not in GEAR_PER_PLAYER:
            raise GameError(f"players must be 1 to 4, not {players}")
        self.map = m
        self.chapter = (
            chapter if chapter is not None and not isinstance(chapter, str) else chapter_for(chapter or m.chapter)
        )
        if self.chapter.board != m.board:
            raise GameError(f"a {m.chapter} map cannot be played as {self.chapter.name}")
        self.board = m.board
        self.cells: tuple[Terrain, ...] = m.cells
        self.hills = dict(m.hills)
        self.n = players
        self.seed = seed
        self.medicine = medicine
        cards = cards or shipped_cards()
        self.challenges = [c for c in cards.challenges if self.chapter.uses_challenge(c)]
        firsts = [k for k, c in enumerate(self.challenges) if c.first]
        if not firsts:
            raise GameError("no 'Approach the Arch' card (a challenge with first = true) in the cards")
        self.first_challenge = firsts[0]
        self.destiny = (
            [c for c in cards.destiny if c.chapter in ("core", self.chapter.name)] if self.chapter.destiny else []
        )
        self.threats = self.chapter.select_threats([c for c in cards.threats if self.chapter.uses_threat(c)])
        self.kills = [c for c in cards.kills if self.chapter.uses_kill(c)]
        self.characters, self.gear = self.chapter.choose_team(players, characters, gear)
        if medicine:
            self.gear = (self.gear[0] + ("Medicine",),) + tuple(self.gear[1:])
        self._check_team()
        size = self.board.size
        self.orth = self.board.hood("orthogonal")
        self.row_of = tuple(i // self.board.width for i in range(size))
        self.col_of = tuple(i % self.board.width for i in range(size))
        self.start_cells = tuple(self.chapter.start_cells(m))
        self.terrain_res = tuple(TERRAIN_RESOURCE.get(t, -1) for t in self.cells)
        self.not_rock = bytes(t is not Terrain.ROCK for t in self.cells)  # frontier(): Paths that lead on
        self.field_cells = tuple(i for i, t in enumerate(self.cells) if t is Terrain.FIELD)
        # Terrain.index of the chapter's terrains, read by every main step's guess actions (no Enum property calls)
        self.terrain_indices = tuple(t.index for t in self.chapter.terrains)

    def _check_team(self):
        chars = [c for c in self.characters if c]
        if len(set(chars)) != len(chars):
            raise GameError("each character can be played by one player only")
        for c in chars:
            if c not in A.CHARACTERS and c not in self.chapter.extra_characters:
                raise GameError(f"unknown character {c!r} (expected one of {', '.join(A.CHARACTERS)})")
        if "Collins" in chars and self.n == 1:
            raise GameError("Collins cannot be used in a solo game")
        all_gear = [g for gs in self.gear for g in gs]
        if len(set(all_gear)) != len(all_gear):
            raise GameError("each Gear card exists once")
        for g in all_gear:
            if g not in A.GEAR_KINDS and g not in self.chapter.extra_gear:
                raise GameError(f"unknown gear {g!r} (expected one of {', '.join(A.GEAR_KINDS)})")
        self.chapter.check_team(self)

    def new_initial_state(self) -> State:
        return State(self)

    def num_players(self) -> int:
        return self.n

    def __str__(self) -> str:
        team = "; ".join(f"{c or '-'} with {', '.join(g) or 'no gear'}" for c, g in zip(self.characters, self.gear))
        return f"{self.chapter.title} on {self.map.chapter} map {self.map.briefing.number or ''}, {self.n} player(s): {team}"


class State:
    """Everything that changes during one game."""

    def __init__(self, game: Game):
        g = game
        self.game = g
        size = g.board.size
        self.explored = bytearray(size)
        self.seen = bytearray(size)
        self.n_explored = 0
        self.extra_slots = 0  # backpack spaces a chapter's token takes (Flora's Greek Fire)
        self.monsters: dict[int, int] = {}  # cell -> threat card index
        self.threats: list[int] = []  # revealed Threat cards in play
        self.injured = 0  # 0 none, 1 over the End of Day area, 2 active in the Challenge Row
        self.chased = False
        self.chased_pile: list[int] = []
        self.th_pile = [k for k in range(len(g.threats))]
        self.th_bottom: list[int] = []
        self.th_discard: list[int] = []
        self.ch_pile = [k for k in range(len(g.challenges)) if k != g.first_challenge]
        self.row: list[list] = [[g.first_challenge, 0, None]]  # [card (-1 Injured), tokens, York's stored resources]
        self.de_pile = list(range(len(g.destiny)))
        self.de_face: list[int] = []
        self.de_held: list[int] = []
        self.de_discard: list[int] = []
        self.pack = [0] * NRES
        self.pack[WATER] = g.chapter.start_water
        self.samples = 0
        self.fires = 0
        self.shelter = -1
        self.gear = [list(gs) for gs in g.gear]
        chosen = {x for gs in g.gear for x in gs}
        self.reserve = [k for k in g.chapter.gear_kinds() if k not in chosen and k != "Medicine"]
        self.exhausted: set[str] = set()
        self.jar = -1
        self.current = 0
        self.turn = 1
        self.day = 1
        self.resolved = 0
        self.passes = 0
        self.tokens_out = 0  # Path tokens discarded (resolved cards, Hills, right guesses)
        self.token_to_row = False
        self.explored_now = False
        self.extra_turn = False
        self.guesses: dict[int, int] = {}  # guess gear (0 Compass, 1 Tracking Guide) -> terrain index
        self.lewis_on = False
        self.collins_on = False
        self.last_gain = -1
        self.banned = -1
        self.outcome: str | None = None
        self.score = 0
        self.events: dict[str, int] = {}
        self.history: list[int] = []
        self.data = g.chapter.new_data(g)
        self._legal = None
        self._frontier = None  # (key, cells): the last frontier() (chapters without exploring rules)
        self.ex_list: list[int] = []
        self.agenda: list[tuple] = [("main",)]
        self.agenda += g.chapter.setup_steps(self)
        n_row = 2
        self.agenda += [("chance_challenge",)] * n_row
        if g.destiny:
            self.agenda += [("chance_destiny",)] * 2
        self._advance()

    # ----- the OpenSpiel interface -----
    def current_player(self) -> int:
        if self.outcome is not None:
            return TERMINAL_PLAYER
        if self.agenda[-1][0] in CHANCE_STEPS:
            return CHANCE_PLAYER
        return self.current

    def is_chance_node(self) -> bool:
        return self.outcome is None and self.agenda[-1][0] in CHANCE_STEPS

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def won(self) -> bool:
        return self.outcome == "win"

    def returns(self) -> list[float]:
        v = 1.0 if self.outcome == "win" else 0.0
        return [v] * self.game.n

    def chance_outcomes(self) -> list[tuple[int, float]]:
        pile = self._chance_pile()
        p = 1.0 / len(pile)
        return [(A.CHANCE + k, p) for k in sorted(pile)]

    def _chance_pile(self) -> list[int]:
        kind = self.agenda[-1][0]
        if kind == "chance_challenge":
            return self.ch_pile
        if kind == "chance_threat":
            return self.th_pile
        if kind in ("chance_destiny", "chance_held"):
            return self.de_pile
        return self.game.chapter.chance_pile(self, self.agenda[-1])

    def legal_actions(self) -> list[int]:
        key = len(self.history)
        cache = self._legal
        if cache is not None and cache[0] == key:
            return list(cache[1])
        out = self._legal_now()
        self._legal = (key, out)
        return list(out)

    def _legal_now(self) -> list[int]:
        if self.outcome is not None:
            return []
        step = self.agenda[-1]
        if step[0] in CHANCE_STEPS:
            return sorted(A.CHANCE + k for k in self._chance_pile())
        out = getattr(self, "_legal_" + step[0])(step)
        out.sort()
        return out

    def apply_action(self, action: int) -> None:
        if self.outcome is not None:
            raise ValueError("the game is over")
        step = self.agenda[-1]
        if step[0] in CHANCE_STEPS:
            pile = self._chance_pile()
            card = action - A.CHANCE
            if action < A.CHANCE or card not in pile:
                raise ValueError(f"{action} is not a chance outcome of this deck ({sorted(pile)})")
            self.history.append(action)
            pile.remove(card)
            self.agenda.pop()
            getattr(self, "_chance_" + step[0][7:])(step, card)
        else:
            cache = self._legal
            legal = cache[1] if cache is not None and cache[0] == len(self.history) else self.legal_actions()
            if action not in legal:
                raise ValueError(f"illegal action {action} ({A.describe(action, self)}) at step {step[0]}")
            self.history.append(action)
            getattr(self, "_apply_" + step[0])(step, action)
        self._advance()

    def clone(self) -> State:
        s = State.__new__(State)
        s.__dict__.update(self.__dict__)
        for name in ("explored", "seen"):
            setattr(s, name, bytearray(getattr(self, name)))
        for name in (
            "threats",
            "chased_pile",
            "th_pile",
            "th_bottom",
            "th_discard",
            "ch_pile",
            "de_pile",
            "de_face",
            "de_held",
            "de_discard",
            "pack",
            "history",
            "agenda",
            "reserve",
            "ex_list",
        ):
            setattr(s, name, list(getattr(self, name)))
        s.row = [[c, t, list(st) if st else st] for c, t, st in self.row]
        s.monsters = dict(self.monsters)
        s.gear = [list(x) for x in self.gear]
        s.exhausted = set(self.exhausted)
        s.guesses = dict(self.guesses)
        s.events = dict(self.events)
        s.data = self.game.chapter.copy_data(self.data)
        return s

    def action_to_string(self, action: int) -> str:
        return A.describe(action, self)

    # ----- what players know -----
    def known(self, i: int) -> Terrain | None:
        """The terrain of a cell if the players have seen it (explored, or looked at and backtracked)."""
        return self.game.cells[i] if self.seen[i] else None

    def known_map(self) -> Map:
        """The map as the players see it: unseen cells None, seen Hills with their numbers (a solver state)."""
        g = self.game
        cells = tuple(g.cells[i] if self.seen[i] else None for i in range(g.board.size))
        return g.map.with_cells(cells, hills={i: n for i, n in g.hills.items() if self.seen[i]})

    def observation(self, player: int | None = None):
        """What ``player`` (default: the one to act) may know now: see ``mapgen/engine/observation.py``."""
        from mapgen.engine.observation import observe

        return observe(self, player)

    def slots(self) -> int:
        """Backpack spaces in use: every Resource but Water, and the Sample tokens."""
        p = self.pack
        return sum(p) - p[WATER] + self.samples + self.extra_slots

    def frontier(self) -> list[int]:
        """Unexplored cells that may be explored now (Rules for Exploring), before Monster costs."""
        g = self.game
        if self.n_explored == 0:
            return [i for i in g.start_cells if not self.explored[i]]
        ex, cells, mon, orth = self.explored, g.cells, self.monsters, g.orth
        check = g.chapter.blocks_exploring
        if not check:
            # without a chapter's exploring rules the frontier is a function of the explored cells and
            # the Monsters' cells: the main step asks again after every free action, so keep the last one
            key = (tuple(self.ex_list), bytes(ex), tuple(mon))
            cached = self._frontier
            if cached is not None and cached[0] == key:
                return list(cached[1])
            # the same cells as the general loop below, as one set comprehension (no chapter checks)
            not_rock = g.not_rock
            out = {
                j
                for i in self.ex_list
                if not_rock[i] and i not in mon
                for j in orth[i]
                if not ex[j] and j not in mon  # decision: a Monster's own Path cannot be explored
            }
        else:
            out = set()
            for i in self.ex_list:
                if cells[i] is not Terrain.ROCK and i not in mon and g.chapter.can_explore_from(self, i):
                    for j in orth[i]:
                        # decision: a Monster's own Path cannot be explored
                        if not ex[j] and j not in mon and g.chapter.can_explore_to(self, j):
                            out.add(j)
        if not out:  # decision: with every way on blocked, the boat may land again on the start column
            result = [
                i
                for i in g.start_cells
                if not ex[i] and i not in mon and not (check and not g.chapter.can_explore_to(self, i))
            ]
        else:
            result = sorted(out)
        if not check:
            self._frontier = (key, result)
            return list(result)
        return result

    def monster_tax(self, cell: int) -> int:
        """Resources to discard before exploring a cell: 1 per Monster in its row or column."""
        if self.game.chapter.custom_tax:
            return self.game.chapter.monster_tax(self, cell)
        if not self.monsters or self.collins_on:
            return 0
        g = self.game
        row_of, col_of = g.row_of, g.col_of
        r, c = row_of[cell], col_of[cell]
        n = 0
        for m in self.monsters:  # a plain loop: usually one Monster, so no generator to set up
            if row_of[m] == r or col_of[m] == c:
                n += 1
        return n

    def monster_taxes(self, cells: list[int]) -> list[int]:
        """``monster_tax`` of each cell, the Monsters' rows and columns looked up once for all cells."""
        if self.game.chapter.custom_tax or not self.monsters or self.collins_on:
            return [self.monster_tax(c) for c in cells]
        g = self.game
        row_of, col_of = g.row_of, g.col_of
        lines = [(row_of[m], col_of[m]) for m in self.monsters]
        out = []
        for cell in cells:
            r, c = row_of[cell], col_of[cell]
            n = 0
            for mr, mc in lines:
                if mr == r or mc == c:
                    n += 1
            out.append(n)
        return out

    def carried(self) -> int:
        """Resources that can be discarded for a Monster or an 'any' loss (Water excluded)."""
        return sum(self.pack) - self.pack[WATER]

    def challenge(self, k: int = 0):
        """The k-th card of the Challenge Row (None for Injured or an empty space)."""
        if k >= len(self.row) or self.row[k][0] < 0:
            return None
        return self.game.challenges[self.row[k][0]]

    def level(self) -> str:
        return level_name(self.score) if self.outcome == "win" else ""

    # ----- the agenda -----
    def _advance(self) -> None:
        ag = self.agenda
        chapter = self.game.chapter
        while True:
            if self.outcome is None and chapter.check_victory(self):
                self._win()
            elif self.outcome is None and (cause := chapter.check_loss(self)):
                self.lose(cause)
            if self.outcome is not None:
                return
            step = ag[-1]
            kind = step[0]
            if kind in DECISIONS:
                if kind == "chapter" and not chapter.is_decision(self, step):
                    ag.pop()
                    chapter.run_step(self, step)
                elif kind in CHANCE_STEPS and len(self._chance_pile()) == 0:
                    ag.pop()
                    self._empty_pile(step)
                elif kind == "main" or self._needs_decision(step):
                    return
                else:
                    ag.pop()
            else:
                ag.pop()
                getattr(self, "_run_" + kind)(step)

    def _needs_decision(self, step) -> bool:
        """A decision step that has no real choice resolves itself (and is popped by the caller)."""
        kind = step[0]
        if kind == "pay":
            n, what = step[1], step[2]
            have = self.carried() + (self.pack[WATER] if what == "any_water" else 0)
            return not (n <= 0 or have == 0)
        if kind == "limits":
            self.pack[WATER] = min(self.pack[WATER], WATER_LIMIT)
            return self.slots() > BACKPACK_SLOTS and self.carried() > 0
        if kind == "fatigue":
            return self.slots() >= 5 and self.shelter < 0  # a Shelter removes the Fatigue penalty
        if kind == "trade":
            return self.carried() + self.pack[WATER] > 0
        if kind == "destiny_pick":
            return not (self.chased or not (self.de_face or self.de_pile))
        if kind == "threat_discard":
            return bool(self.threats)
        return True

    def _empty_pile(self, step) -> None:
        kind = step[0]
        if kind == "chance_challenge":
            self.lose("no_challenges")
        elif kind == "chance_chapter":
            self.game.chapter.empty_pile(self, step)
        elif kind == "chance_threat":
            if self.th_bottom:  # the known cards put at the bottom come up in order
                self._chance_threat(step, self.th_bottom.pop(0))
            elif self.th_discard:  # decision: an exhausted Threat deck is reshuffled from its discard pile
                self.th_pile, self.th_discard = self.th_discard, []
                self.agenda.append(step)

    # ----- ending the game -----
    def lose(self, cause: str) -> None:
        if self.outcome is None:
            self.outcome = cause
            self.score = 0
            self.agenda.clear()

    def _win(self) -> None:
        g = self.game
        score = sum(g.challenges[c].time for c, _, _ in self.row if c >= 0) + sum(
            g.challenges[c].time for c in self.ch_pile
        )
        if any("Box of Goods" in gs for gs in self.gear):
            score += 4
        if g.medicine and g.n > 1:
            score -= 5
        score += g.chapter.score_bonus(self)
        self.outcome = "win"
        self.score = score
        self.agenda.clear()

    def event(self, name: str) -> None:
        """Record the turn of a goal event (first Fort, each kill) for the playtest report."""
        self.events.setdefault(name, self.turn)

    # ----- resources -----
    def gain(self, r: int, n: int = 1) -> None:
        self.pack[r] += n
        if self.game.chapter.track_gains and n > 0:
            self.game.chapter.on_gain(self, r)

    def lose_water(self, n: int) -> None:
        if self.pack[WATER] < n:
            self.pack[WATER] = 0
            self.lose("thirst")
        else:
            self.pack[WATER] -= n

    def push(self, *steps) -> None:
        """Push steps so that the first one given runs first."""
        self.agenda.extend(reversed(steps))

    def run_effects(self, effects: tuple[Effect, ...]) -> None:
        self.push(*[("effect", e) for e in effects])

    def _run_effect(self, step) -> None:
        e: Effect = step[1]
        if self.game.chapter.run_effect(self, e):
            return
        v, n, t = e.verb, e.n, e.target
        if v == "gain":
            if isinstance(t, int):
                self.gain(t, n)
            elif t == "any":
                self.push(*[("gain",)] * n)
            elif t == "fire":
                self.fires = min(MAX_FIRES, self.fires + n)
            elif t == "sample":
                self.samples = min(SAMPLE_TOKENS, self.samples + n)
            elif t == "destiny" and self.game.destiny and not self.chased:
                self.push(*[("destiny_pick",)] * n)
        elif v == "lose":
            if t == WATER:
                self.lose_water(n)
            elif isinstance(t, int):
                self.pack[t] = max(0, self.pack[t] - n)
            elif t == "any":
                self.push(("pay", n, "any"))
            elif t == "fire":
                self.fires = max(0, self.fires - n)
            elif t == "shelter":
                self.shelter = -1
        elif v == "draw" and t == "threat":
            self.push(("chance_threat", "day", -1))
        elif v == "remove" and t == "path":
            if self.row:
                k = min(n, self.row[0][1])
                self.row[0][1] -= k
                self.tokens_out += k
        elif v == "refresh":
            self.exhausted.clear()
        elif v == "reveal":
            self.game.chapter.reveal(self, t, n)

    # ----- the main step: free actions, exploring, ending the turn -----
    def _legal_main(self, step) -> list[int]:
        g, p, pack = self.game, self.current, self.pack
        out: list[int] = []
        mine = self.gear[p]
        ready = [x for x in mine if x not in self.exhausted]
        char = g.characters[p]
        if not self.explored_now:
            banned = self.banned
            if g.chapter.custom_tax or (self.monsters and not self.collins_on):
                carried = self.carried() + pack[WATER]
                frontier = [c for c in self.frontier() if c != banned]
                out = [A.EXPLORE + c for c, tax in zip(frontier, self.monster_taxes(frontier)) if tax <= carried]
            else:  # no Monster toll to pay (monster_tax is 0): skip asking it for every cell
                out = [A.EXPLORE + c for c in self.frontier() if c != banned]
            if not out:  # decision: no Path can be explored, so the turn may end without one
                out.append(A.END_TURN)
            for k, name in enumerate(A.GUESS_GEAR):
                if name in ready and k not in self.guesses:
                    out.extend(A.GUESS + 20 * k + t for t in g.terrain_indices)
            if char == "Lewis" and "Lewis" not in self.exhausted and not self.lewis_on:
                out.append(A.LEWIS)
            if char == "Collins" and "Collins" not in self.exhausted and not self.collins_on and self.monsters:
                out.append(A.COLLINS)
        else:
            out.append(A.END_TURN)
            if "Satchel" in ready and self.last_gain >= 0 and pack[self.last_gain] > 0 and self._destiny_open():
                out.append(A.SATCHEL)
        for r in CARRIED:
            if pack[r]:
                out.append(A.DISCARD + r)
                if self.samples:
                    out.append(A.DROP_SAMPLE + r)
        if self.fires < MAX_FIRES:
            if pack[WOOD] >= 2:
                out.append(A.FIRE)
            if pack[ROCK] >= 2:
                out.append(A.FIRE + 1)
            if "Flint" in ready:
                if pack[WOOD]:
                    out.append(A.FIRE + 2)
                if pack[ROCK]:
                    out.append(A.FIRE + 3)
        if g.chapter.shelter:
            # the affordable pairs first: without one, no need to look for an explored Field (the usual case)
            pairs = [k for k, (x, y) in enumerate(A.SHELTER_PAIRS) if pack[x] and pack[y]]
            if pairs and self._field_for_shelter() >= 0:
                out.extend(A.SHELTER + k for k in pairs)
        if self.injured and pack[MUD]:
            out.append(A.CURE_INJURED)
        if self.de_held and not self.chased:
            out.extend(A.USE_DESTINY + k for k in range(len(self.de_held)))
        if "Box of Goods" in mine:
            out.append(A.BOX_OF_GOODS)
        if "Mortar and Pestle" in ready and self.carried() + pack[WATER] >= 2:
            out.append(A.MORTAR)
        if "Jar" in mine:
            if "Jar" in ready:
                out.extend(A.JAR_STORE + r for r in range(NRES) if pack[r] and r != WATER)
            elif self.jar >= 0:
                out.append(A.JAR_TAKE)
        if "Medicine" in ready:
            for q in range(g.n):
                if g.characters[q] and g.characters[q] in self.exhausted:
                    out.append(A.MEDICINE + 8 * q)
                out.extend(
                    A.MEDICINE + 8 * q + 1 + s
                    for s, x in enumerate(self.gear[q])
                    if x in self.exhausted and x != "Medicine"
                )
        if char == "Clark" and "Clark" not in self.exhausted:
            kinds, fixed = g.chapter.gear_kinds(), g.chapter.fixed_gear()
            for s, x in enumerate(mine):
                if x not in fixed:
                    out.extend(A.CLARK + 10 * s + kinds.index(y) for y in self.reserve if y not in fixed)
        g.chapter.free_actions(self, out)
        return out

    def _field_for_shelter(self) -> int:
        for i in self.game.chapter.shelter_cells(self):
            if i != self.shelter:
                return i
        return -1

    def _destiny_open(self) -> bool:
        return bool(self.game.destiny) and not self.chased and bool(self.de_face or self.de_pile)

    def _apply_main(self, step, a: int) -> None:
        g, pack = self.game, self.pack
        if a < A.DISCARD:
            tax = self.monster_tax(a)
            self.push(("explore", a))
            self.passes = 0
            if tax:  # decision: Water is a Resource (Mortar and Pestle's note), so it can pay a Monster
                self.push(("pay", tax, "any_water"))
            return
        if a < A.GAIN:
            pack[a - A.DISCARD] -= 1
        elif a == A.END_TURN:
            if not self.explored_now:  # a whole round in which nobody can explore ends the expedition
                self.passes += 1
                if self.passes >= g.n:
                    # Paths open but too few Resources for the Monsters' toll; or no Path open at all
                    full = self.n_explored == g.board.size
                    self.lose("map_explored" if full else "monster_toll" if self.frontier() else "blocked")
                    return
            self.agenda.pop()
            self.push(*g.chapter.end_turn_steps(self), ("limits",), ("check_challenge",), ("next_turn",))
        elif A.FIRE <= a < A.SHELTER:
            k = a - A.FIRE
            if k == 0:
                pack[WOOD] -= 2
            elif k == 1:
                pack[ROCK] -= 2
            else:
                pack[WOOD if k == 2 else ROCK] -= 1
                self.exhausted.add("Flint")
            self.fires += 1
        elif A.SHELTER <= a < A.CURE_INJURED:
            x, y = A.SHELTER_PAIRS[a - A.SHELTER]
            pack[x] -= 1
            pack[y] -= 1
            self.shelter = self._field_for_shelter()
        elif a == A.CURE_INJURED:
            pack[MUD] -= 1
            self._discard_injured()
        elif A.DROP_SAMPLE <= a < A.USE_DESTINY:
            pack[a - A.DROP_SAMPLE] -= 1
            self.samples -= 1
        elif A.USE_DESTINY <= a < A.KILL:
            card = self.de_held.pop(a - A.USE_DESTINY)
            self.de_discard.append(card)
            self.run_effects(g.destiny[card].effects)
        elif A.GUESS <= a < A.LEWIS:
            k, t = divmod(a - A.GUESS, 20)
            self.guesses[k] = t
            self.exhausted.add(A.GUESS_GEAR[k])
        elif a == A.LEWIS:
            self.lewis_on = True
            self.exhausted.add("Lewis")
        elif a == A.COLLINS:
            self.collins_on = True
            self.exhausted.add("Collins")
        elif a == A.BOX_OF_GOODS:
            self.gear[self.current].remove("Box of Goods")
            self.push(("gain",))
        elif a == A.MORTAR:
            self.exhausted.add("Mortar and Pestle")
            self.push(("pay", 2, "any_water"), ("gain",))
        elif a == A.SATCHEL:
            self.exhausted.add("Satchel")
            pack[self.last_gain] -= 1
            self.last_gain = -1
            self.push(("destiny_pick",))
        elif A.JAR_STORE <= a < A.JAR_TAKE:
            self.jar = a - A.JAR_STORE
            pack[self.jar] -= 1
            self.exhausted.add("Jar")
        elif a == A.JAR_TAKE:
            pack[self.jar] += 1
            self.jar = -1
        elif A.MEDICINE <= a < A.CLARK:
            q, s = divmod(a - A.MEDICINE, 8)
            self.exhausted.discard(g.characters[q] if s == 0 else self.gear[q][s - 1])
            self.exhausted.add("Medicine")
        elif A.CLARK <= a < A.BACKTRACK:
            s, k = divmod(a - A.CLARK, 10)
            mine = self.gear[self.current]
            old, new = mine[s], g.chapter.gear_kinds()[k]
            mine[s] = new
            self.reserve.remove(new)
            self.reserve.append(old)
            self.exhausted.discard(new)
            self.exhausted.discard(old)
            self.exhausted.add("Clark")
        else:
            g.chapter.apply_free(self, a)

    def _discard_injured(self) -> None:
        self.remove_threat(self._injured_card(), "discard")

    def pop_row(self) -> list:
        """Take the leftmost card off the Challenge Row; its Path tokens are discarded."""
        entry = self.row.pop(0)
        self.tokens_out += entry[1]
        return entry

    # ----- exploring -----
    def _run_explore(self, step) -> None:
        g, cell = self.game, step[1]
        t = g.cells[cell]
        self.explored[cell] = 1
        self.seen[cell] = 1
        self.n_explored += 1
        self.ex_list.append(cell)
        self.explored_now = True
        tracked = self.guesses.get(1) == t.index
        if tracked:  # Tracking Guide: the Path token and the Resource are discarded, then explore again
            self.explored_now = False
            self.guesses.clear()
            self.lewis_on = False
            self.tokens_out += 1
            self.game.chapter.explored_unactivated(self, cell)
            self.push(*self._completion_steps(cell))
            return
        if t is not Terrain.HILL and self.guesses.get(0) != t.index and self.row:
            self.row[0][1] += 1
            self.token_to_row = True
        else:  # a Hill's token, or a Compass's right guess: the token is discarded
            self.tokens_out += 1
            self.token_to_row = False
        self.guesses.clear()
        if self.fires >= 2:
            self.push(("backtrack", cell))
        else:
            self.push(("activate", cell))

    def _legal_backtrack(self, step) -> list[int]:
        return [A.BACKTRACK, A.ACTIVATE]

    def _apply_backtrack(self, step, a: int) -> None:
        self.agenda.pop()
        cell = step[1]
        if a == A.ACTIVATE:
            self.push(("activate", cell))
            return
        # Backtrack: put the Path token back, refresh what was used for this explore, explore elsewhere
        self.fires -= 2
        self.explored[cell] = 0
        self.n_explored -= 1
        self.ex_list.remove(cell)
        if self.token_to_row:
            self.row[0][1] -= 1
        else:
            self.tokens_out -= 1
        self.explored_now = False
        self.banned = cell
        for name in ("Lewis", "Collins", "Compass", "Tracking Guide"):
            self.exhausted.discard(name)
        self.lewis_on = self.collins_on = False

    def _run_activate(self, step) -> None:
        g, cell = self.game, step[1]
        t = g.cells[cell]
        r = g.terrain_res[cell]
        steps: list[tuple] = []
        self.last_gain = -1
        if r >= 0:
            n = 2 if self.lewis_on else 1
            for _ in range(n):
                self._gain_found(r)
        if t is Terrain.SKULL:
            steps.append(("chance_threat", "day", cell))
        elif t is Terrain.TIPI:
            steps.append(("trade",))
        elif t is Terrain.HILL:
            self.extra_turn = True
        # a chapter's own steps come first: Vameter's Crew are placed before the terrain's effects,
        # Maldonado's Tipi gives its Kill Monster card before the trade
        steps[:0] = g.chapter.activate(self, cell, t)
        steps += self._completion_steps(cell)
        self.lewis_on = False
        self.collins_on = False
        self.push(*steps)

    def _gain_found(self, r: int) -> None:
        """A Resource found by exploring: York puts one that today's Challenges need on the card."""
        if self.game.characters[self.current] == "York":
            for entry in self.row:
                if entry[0] < 0:
                    continue
                card = self.game.challenges[entry[0]]
                stored = entry[2] or []
                need = card.requires[r] + card.optional[r]
                if need > stored.count(r):
                    entry[2] = stored + [r]
                    return
        self.pack[r] += 1
        self.last_gain = r
        if self.game.chapter.track_gains:
            self.game.chapter.on_gain(self, r)

    def _completion_steps(self, cell: int) -> list[tuple]:
        g = self.game
        steps = []
        ex = self.explored
        b = g.board
        if all(ex[i] for i in b.rows[g.row_of[cell]]):
            steps += g.chapter.row_reward(self, g.row_of[cell])
        if all(ex[i] for i in b.cols[g.col_of[cell]]):
            steps += g.chapter.column_reward(self, g.col_of[cell])
        return steps

    def _legal_trade(self, step) -> list[int]:
        pack = self.pack
        out = [A.SKIP]
        for give in range(NRES):
            if pack[give]:
                out.extend(A.TRADE + 10 * give + take for take in self.game.chapter.resources if take != give)
        return out

    def _apply_trade(self, step, a: int) -> None:
        self.agenda.pop()
        if a == A.SKIP:
            return
        give, take = divmod(a - A.TRADE, 10)
        self.pack[give] -= 1
        self.pack[take] += 1
        if self.game.chapter.track_gains:
            self.game.chapter.on_gain(self, take)

    # ----- choices -----
    def _legal_pay(self, step) -> list[int]:
        allow_water = step[2] == "any_water"
        return [A.DISCARD + r for r in range(NRES) if self.pack[r] and (r != WATER or allow_water)]

    def _apply_pay(self, step, a: int) -> None:
        self.agenda.pop()
        self.pack[a - A.DISCARD] -= 1
        if step[1] > 1:
            self.agenda.append((step[0], step[1] - 1, step[2]))

    def _legal_gain(self, step) -> list[int]:
        return [A.GAIN + r for r in self.game.chapter.resources]

    def _apply_gain(self, step, a: int) -> None:
        self.agenda.pop()
        self.pack[a - A.GAIN] += 1
        if self.game.chapter.track_gains:
            self.game.chapter.on_gain(self, a - A.GAIN)

    def _legal_destiny_pick(self, step) -> list[int]:
        out = [A.DESTINY_PICK + k for k in range(len(self.de_face))]
        if self.de_pile:
            out.append(A.DESTINY_PICK + 2)
        return out

    def _apply_destiny_pick(self, step, a: int) -> None:
        self.agenda.pop()
        k = a - A.DESTINY_PICK
        if k == 2:
            self.push(("chance_held",))
        else:
            self.de_held.append(self.de_face.pop(k))
            if self.de_pile:
                self.push(("chance_destiny",))

    def _chance_destiny(self, step, card: int) -> None:
        self.de_face.append(card)

    def _chance_held(self, step, card: int) -> None:
        self.de_held.append(card)

    def _chance_chapter(self, step, card: int) -> None:
        self.game.chapter.apply_chance(self, step, card)

    def _chance_challenge(self, step, card: int) -> None:
        self.row.append([card, 0, None])

    # ----- threats -----
    def _chance_threat(self, step, card: int) -> None:
        g = self.game
        th = g.threats[card]
        when, cell = step[1], step[2]
        if th.kind == "injured":
            self.threats.append(card)
            self.injured = 1
        elif th.kind == "chased":
            self.threats.append(card)
            self.chased = True
            self.chased_pile += self.de_held
            self.de_held = []
        else:
            self.threats.append(card)
            g.chapter.place_monster(self, card, when, cell)

    def monster_place(self, card: int, when: str, cell: int) -> int:
        """Where a Monster goes: by day on its Lair; at Night or as a row reward by its card's direction.

        Ties on the edge are broken by the Resource Priority Order of the Explored terrain, then
        (decision: the rulebook's 'Token Tray order' is not printed) west to east or north to south.
        """
        if when == "day" and cell >= 0 and cell not in self.monsters:
            return cell
        g = self.game
        cands = [i for i in range(g.board.size) if self.explored[i] and i not in self.monsters]
        if not cands:
            return -1
        d = g.threats[card].direction
        key = {
            "north": lambda i: (g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
            "south": lambda i: (-g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
            "west": lambda i: (g.col_of[i], PRIORITY.get(g.cells[i], 99), g.row_of[i]),
            "east": lambda i: (-g.col_of[i], PRIORITY.get(g.cells[i], 99), g.row_of[i]),
        }[d]
        return min(cands, key=key)

    def remove_threat(self, card: int, to: str) -> None:
        """Take a revealed Threat card out of play: to 'bottom' of the deck, 'discard', or 'out' (killed)."""
        g = self.game
        self.threats.remove(card)
        th = g.threats[card]
        if th.monster:
            for c, k in list(self.monsters.items()):
                if k == card:
                    del self.monsters[c]
        elif th.kind == "chased":
            self.chased = False
            self.de_held += self.chased_pile
            self.chased_pile = []
        elif th.kind == "injured":
            if self.injured == 2 and self.row and self.row[0][0] < 0:
                self.pop_row()
            self.injured = 0
        if to == "bottom":
            self.th_bottom.append(card)
        elif to == "discard":
            self.th_discard.append(card)

    def _legal_threat_discard(self, step) -> list[int]:
        return [A.SKIP] + [A.THREAT_DISCARD + k for k in range(len(self.threats))]

    def _apply_threat_discard(self, step, a: int) -> None:
        self.agenda.pop()
        if a == A.SKIP:
            return
        card = self.threats[a - A.THREAT_DISCARD]
        self.remove_threat(card, "bottom")
        self.push(("chance_threat", "row", -1))

    # ----- ending a turn -----
    def _legal_limits(self, step) -> list[int]:
        return [A.DISCARD + r for r in range(NRES) if self.pack[r] and r != WATER]

    def _apply_limits(self, step, a: int) -> None:
        self.pack[a - A.DISCARD] -= 1  # the step stays until the backpack is within its limits

    def _run_check_challenge(self, step) -> None:
        if not self.row:
            return
        c, tokens, _ = self.row[0]
        time = self.game.threats[self._injured_card()].time if c < 0 else self.game.challenges[c].time
        if tokens >= time:
            if c < 0:  # Injured is resolved with no Pass, no Fail and no Consequence
                self.pop_row()
                self.injured = 1
                self.push(("after_resolve",))
            else:
                self.push(("resolve",), ("fatigue",), ("after_resolve",))

    def _injured_card(self) -> int:
        return next(k for k in self.threats if self.game.threats[k].kind == "injured")

    def can_pass(self, card=None, stored=None) -> bool:
        if card is None:
            card, stored = self.game.challenges[self.row[0][0]], self.row[0][2]
        if not self.game.chapter.may_pass(self, card):
            return False
        if card.fire and self.fires < 1:
            return False
        if card.shelter and self.shelter < 0:
            return False
        pack = self.pack
        for r in range(NRES):
            need = card.requires[r]
            if need and need > pack[r] + (stored.count(r) if stored else 0):
                return False
        return True

    def _legal_resolve(self, step) -> list[int]:
        return [A.PASS, A.FAIL] if self.can_pass() else [A.FAIL]

    def _apply_resolve(self, step, a: int) -> None:
        self.agenda.pop()
        c, _, stored = self.pop_row()
        card = self.game.challenges[c]
        stored = list(stored or ())
        pack = self.pack
        if a == A.PASS:
            for r in range(NRES):
                for _ in range(card.requires[r] + card.optional[r]):
                    if r in stored:
                        stored.remove(r)
                    elif pack[r]:
                        pack[r] -= 1
            for r in stored:
                pack[r] += 1
            effects = card.passes
            if card.bonus and (
                (card.bonus_if == "fire" and self.fires) or (card.bonus_if == "shelter" and self.shelter >= 0)
            ):
                effects = effects + card.bonus
            self.run_effects(effects)
        else:
            for r in stored:
                pack[r] += 1
            self.run_effects(card.fails)
        self.resolved += 1
        self.game.chapter.on_resolved(self, card, a == A.PASS)

    def _legal_fatigue(self, step) -> list[int]:
        return [A.FATIGUE_WATER] + [A.DISCARD + r for r in range(NRES) if self.pack[r] and r != WATER]

    def _apply_fatigue(self, step, a: int) -> None:
        if a == A.FATIGUE_WATER:
            self.agenda.pop()
            self.lose_water(1)
            return
        self.pack[a - A.DISCARD] -= 1
        if self.slots() < 5:
            self.agenda.pop()

    def _run_after_resolve(self, step) -> None:
        steps = self.game.chapter.after_resolve_steps(self)
        if not self.row:
            steps = [*steps, ("end_of_day",)]
        if steps:
            self.push(*steps)

    def _run_end_of_day(self, step) -> None:
        need = self.game.chapter.food_needed(self)
        if need:
            if self.pack[FOOD] < need:
                self.pack[FOOD] = 0
                self.lose("hunger")
                return
            self.pack[FOOD] -= need
        self.push(("night",))

    def _run_night(self, step) -> None:
        g = self.game
        steps: list[tuple] = list(g.chapter.night_steps(self))
        if g.chapter.night_threat(self):
            steps.append(("chance_threat", "night", -1))
        if self.injured == 1:
            self.injured = 2
        steps.append(("deal_day",))
        self.push(*steps)

    def _run_deal_day(self, step) -> None:
        n = 3
        if self.injured == 2:
            self.row.append([-1, 0, None])
            n = 2
        if len(self.ch_pile) < n:
            self.lose("no_challenges")
            return
        if "Jar" in [x for gs in self.gear for x in gs] and self.jar >= 0:
            self.pack[self.jar] += 2
            self.jar = -1
        self.exhausted.clear()
        self.day += 1
        self.push(*[("chance_challenge",)] * n)

    def _run_next_turn(self, step) -> None:
        if not self.extra_turn:
            self.current = (self.current + 1) % self.game.n
        self.turn += 1
        self.extra_turn = False
        self.explored_now = False
        self.guesses.clear()
        self.lewis_on = self.collins_on = False
        self.last_gain = -1
        self.banned = -1
        self.agenda.append(("main",))

    # chapter steps route through the chapter object
    def _legal_chapter(self, step) -> list[int]:
        return self.game.chapter.legal(self, step)

    def _apply_chapter(self, step, a: int) -> None:
        self.game.chapter.apply(self, step, a)

    # ----- display -----
    def __str__(self) -> str:
        g = self.game
        b = g.board
        lines = [f"Day {self.day}, turn {self.turn}, player {self.current + 1} ({g.characters[self.current] or '-'})"]
        lines.append("   " + " ".join(f"{c:>3}" for c in b.col_numbers))
        for r, letter in enumerate(b.row_letters):
            cells = []
            for i in b.rows[r]:
                if self.explored[i]:
                    t = g.cells[i]
                    code = t.code + (str(g.hills[i]) if i in g.hills else "")
                else:
                    code = "[]" if not self.seen[i] else g.cells[i].code.lower()
                if i in self.monsters:
                    code = "M" + code[:2]
                if i == self.shelter:
                    code = code[:2] + "^"
                cells.append(f"{code:>3}")
            lines.append(f"{letter}  " + " ".join(cells))
        pack = " ".join(f"{RESOURCE_CODES[r]}{self.pack[r]}" for r in range(NRES) if self.pack[r])
        lines.append(
            f"Backpack: {pack or 'empty'}; Samples {self.samples}; Fire {self.fires}; "
            f"Shelter {'yes' if self.shelter >= 0 else 'no'}; {self.slots()}/6 spaces"
        )
        row = []
        for c, tokens, stored in self.row:
            if c < 0:
                row.append(f"Injured {tokens}/{g.threats[self._injured_card()].time}")
            else:
                card = g.challenges[c]
                row.append(f"{card.describe()} ({tokens}/{card.time})" + (f" holds {stored}" if stored else ""))
        lines.append("Challenges: " + ("; ".join(row) or "none"))
        if self.threats:
            lines.append("Threats: " + ", ".join(g.threats[k].name for k in self.threats))
        if g.destiny:
            lines.append(
                "Destiny: held "
                + (", ".join(g.destiny[k].name for k in self.de_held) or "none")
                + "; face up "
                + ", ".join(g.destiny[k].name for k in self.de_face)
            )
        lines += g.chapter.describe_state(self)
        if self.outcome:
            lines.append(
                f"Game over: {self.outcome}" + (f", score {self.score} ({self.level()})" if self.won() else "")
            )
        else:
            lines.append(f"Waiting on: {self.agenda[-1][0]}")
        return "\n".join(lines)


def terrain_by_index(k: int) -> Terrain:
    return TERRAINS[k]
