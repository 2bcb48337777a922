"""The game: ``Game`` (fixed settings) and ``State`` (what changes): the OpenSpiel interface and the agenda.

The shape follows OpenSpiel's Python games: ``current_player()``, sorted ``legal_actions()``,
``apply_action()``, ``is_terminal()``, ``returns()``, ``clone()``, ``__str__``; shuffles and draws are
chance nodes (``current_player() == CHANCE_PLAYER``, ``chance_outcomes()``), so a game is replayable
from its actions, and from (seed, bots) through ``play_game``.

Inside, a turn is an *agenda*: a stack of steps. Automatic steps run at once; a step that needs a
decision (a player's or chance's) stays on top until an action answers it. ``RUN``, ``LEGAL``, ``APPLY``,
``NEEDED`` and ``CHANCE`` say which function runs, answers or draws for each kind of step (a ``Step``); those functions live in the engine's rooms
(``explore``, ``challenges``, ``effects``, ``main_step``; ``display`` for ``__str__``), and
``State`` binds the ones other code calls as its methods, so the State stays the one facade.
Chapters push their own steps and answer their own actions (``mapgen/engine/chapters.py``).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, cast

from constraints.catalogue import Chapter, chapter_names, get_chapter, unknown_chapter
from mapgen.engine import actions as A
from mapgen.engine import challenges, display, effects, explore, main_step
from mapgen.engine.actions import ActionTable
from mapgen.engine.cards import NRES, WATER, CardSet, shipped_cards
from mapgen.engine.chapters import ChapterRules, plugin_for
from mapgen.engine.observation import bind_state_rules, observe
from mapgen.engine.rules import (  # noqa: F401  (re-exported: chapters, bots and tests import them from here)
    BACKPACK_SLOTS,
    CARRIED,
    GEAR_PER_PLAYER,
    LEVELS,
    LOSS_CAUSES,
    MAX_FIRES,
    PRIORITY,
    SAMPLE_TOKENS,
    SEALED,
    SEALED_BY,
    TERRAIN_RESOURCE,
    WATER_LIMIT,
    BadSettingError,
    GameError,
    TeamCountError,
    UnknownNameError,
    level_name,
)
from mapgen.engine.steps import STEP, Step
from mapgen.engine.variants import VARIANTS, check_variants
from mapgen.inputs import a_kind, did_you_mean, is_whole
from mapgen.model import Map, expect_map
from mapgen.terrain import TERRAINS, Terrain

if TYPE_CHECKING:
    from mapgen.engine.infostate import Tracker

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4

#: Action kinds of the core rules (a chapter's are added per game: ``Chapter.actions()``).
CORE_ACTIONS = explore.ACTIONS + main_step.ACTIONS + challenges.ACTIONS + effects.ACTIONS + (A.SKIP_KIND,)


def core_table() -> ActionTable:
    """The core rules' action table (words for actions when no game is at hand)."""
    global _CORE_TABLE
    if _CORE_TABLE is None:
        _CORE_TABLE = ActionTable(CORE_ACTIONS)
    return _CORE_TABLE


_CORE_TABLE: ActionTable | None = None

#: The agenda's step kinds. Automatic steps: ``run(state, step)`` (popped before it runs).
RUN = {
    Step.EXPLORE: explore.run_explore,
    Step.ACTIVATE: explore.run_activate,
    Step.EFFECT: effects.run_effect,
    Step.GAIN_SAMPLE: effects.run_gain_sample,
    Step.CHECK_CHALLENGE: challenges.run_check_challenge,
    Step.RESOLVED: challenges.run_resolved,
    Step.AFTER_RESOLVE: challenges.run_after_resolve,
    Step.END_OF_DAY: challenges.run_end_of_day,
    Step.NIGHT: challenges.run_night,
    Step.DEAL_DAY: challenges.run_deal_day,
    Step.NEXT_TURN: main_step.run_next_turn,
}
#: Decision steps: ``legal(state, step)`` and ``apply(state, step, action)`` (which pops the step when done).
LEGAL = {
    Step.MAIN: main_step.legal_main,
    Step.PAY: effects.legal_pay,
    Step.GAIN: effects.legal_gain,
    Step.TRADE: explore.legal_trade,
    Step.BACKTRACK: explore.legal_backtrack,
    Step.DESTINY_PICK: effects.legal_destiny_pick,
    Step.RESOLVE: challenges.legal_resolve,
    Step.FATIGUE: challenges.legal_fatigue,
    Step.LIMITS: main_step.legal_limits,
    Step.THREAT_DISCARD: challenges.legal_threat_discard,
    Step.CHAPTER: lambda state, step: state.game.chapter.legal(state, step),
}
APPLY = {
    Step.MAIN: main_step.apply_main,
    Step.PAY: effects.apply_pay,
    Step.GAIN: effects.apply_gain,
    Step.TRADE: explore.apply_trade,
    Step.BACKTRACK: explore.apply_backtrack,
    Step.DESTINY_PICK: effects.apply_destiny_pick,
    Step.RESOLVE: challenges.apply_resolve,
    Step.FATIGUE: challenges.apply_fatigue,
    Step.LIMITS: main_step.apply_limits,
    Step.THREAT_DISCARD: challenges.apply_threat_discard,
    Step.CHAPTER: lambda state, step, a: state.game.chapter.apply(state, step, a),
}
#: Decision steps that may have no real choice: ``needed(state, step)`` False and the step is popped unanswered.
NEEDED = {
    Step.PAY: effects.pay_needed,
    Step.GAIN: effects.gain_needed,
    Step.LIMITS: main_step.limits_needed,
    Step.FATIGUE: challenges.fatigue_needed,
    Step.TRADE: explore.trade_needed,
    Step.DESTINY_PICK: effects.destiny_pick_needed,
    Step.THREAT_DISCARD: challenges.threat_discard_needed,
}
#: Chance steps: the card drawn goes to ``chance(state, step, card)`` (the step is popped first).
CHANCE = {
    Step.CHANCE_CHALLENGE: challenges.chance_challenge,
    Step.CHANCE_THREAT: challenges.chance_threat,
    Step.CHANCE_DESTINY: effects.chance_destiny,
    Step.CHANCE_HELD: effects.chance_held,
    Step.CHANCE_CHAPTER: lambda state, step, card: state.game.chapter.apply_chance(state, step, card),
}
CHANCE_STEPS = frozenset(CHANCE)
# Decision steps: the agenda waits on them for an action.
DECISIONS = frozenset(LEGAL) | CHANCE_STEPS
#: what ``State._advance`` does with each step kind, one lookup a step: (how, function). _RUN: pop it and run
#: ``RUN[kind]``; _WAIT: a decision; _NEEDED: a decision when ``NEEDED[kind]`` says so, else popped; _CHANCE: a
#: draw, unless the pile is empty; _CHAPTER: a chapter's step, a decision when its ``is_decision`` says so
_RUN, _WAIT, _NEEDED, _CHANCE, _CHAPTER = "run", "wait", "needed", "chance", "chapter"
ADVANCE: dict = {
    **{kind: (_RUN, run) for kind, run in RUN.items()},
    **{kind: (_WAIT, None) for kind in LEGAL},
    **{kind: (_NEEDED, needed) for kind, needed in NEEDED.items()},
    **{kind: (_CHANCE, None) for kind in CHANCE},
    Step.CHAPTER: (_CHAPTER, None),
}


def game_variants(variants, chapter: str) -> frozenset[str]:
    """The named variants of a game of ``chapter``, checked: BadSettingError for a name no variant has (exit 2),
    GameError for a variant of another chapter (exit 1), both naming the setting ``variants`` (``--variant``)."""
    try:
        return check_variants(variants, chapter)
    except ValueError as e:
        unknown = any(v not in VARIANTS for v in variants or ())
        raise (BadSettingError if unknown else GameError)(str(e), setting="variants") from None


def _check_arguments(players, chapter, characters, gear, variants, reference) -> None:
    """BadSettingError (exit 2) for Game's arguments of the wrong kind, saying what to pass: a str where a list of
    names belongs was read as its letters (``characters="Lewis"``: "no character 'L'"), a float for ``players`` failed
    on slice indices, a chapter's name for ``reference`` on its ``.board``."""
    if not is_whole(players) or players not in GEAR_PER_PLAYER:
        raise BadSettingError(f"players must be 1 to 4, not {players!r}", setting="players")
    if isinstance(chapter, str) and chapter not in chapter_names():  # not "the engine cannot play 'Fauna' yet"
        raise BadSettingError(unknown_chapter(chapter))
    if isinstance(characters, str):
        raise BadSettingError(
            f"characters is a list of names, one per player ([{characters!r}]), not a str", setting="characters"
        )
    if gear is not None and (isinstance(gear, str) or any(isinstance(g, str) for g in gear)):
        raise BadSettingError(
            f"gear is a list of lists of Gear names, one per player ([['Compass'], ['Jar']]; [[]]: none), not {gear!r}",
            setting="gear",
        )
    if isinstance(variants, str):
        raise BadSettingError(f"variants is a list of variant names ([{variants!r}]), not a str", setting="variants")
    if reference is not None and not isinstance(reference, Chapter):
        raise BadSettingError(
            f"reference is a Chapter (get_chapter(name), load_chapter(path)), not {a_kind(reference, shown=True)}",
            setting="rules",
        )


class Game:
    """Fixed settings: the map, the chapter, the players' characters and gear, the cards, the seed, the named
    variants (``mapgen/engine/variants.py``; none: the rulebooks' literal reading), the ``reference`` (the
    Reference Board's rule instances the bots reason with: ``constraints.catalogue.get_chapter(name)``, or
    a house-rule chapter); the action table."""

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
        variants=(),
        reference=None,
    ):
        if not isinstance(m, Map) or not m.complete:  # a name: TypeError; a partial map: exit 2, as every command
            expect_map(m, "Game", complete=True)
        _check_arguments(players, chapter, characters, gear, variants, reference)
        self.map = m
        self.chapter = (
            chapter if chapter is not None and not isinstance(chapter, str) else plugin_for(chapter or m.chapter)
        )
        if self.chapter.board != m.board:
            raise GameError(f"a {m.chapter} map cannot be played as {self.chapter.name}")
        if self.chapter.name != m.chapter:  # the same board: played under the other chapter's rules
            raise BadSettingError(f"a {m.chapter} map cannot be played as {self.chapter.name}")
        self.variants = game_variants(variants, self.chapter.name)
        if self.variants:  # the chapter reads them too: a copy of it, so that other games keep theirs
            self.chapter = copy.copy(self.chapter)
            self.chapter.variants = self.variants
        # the Reference Board the players reason with: the chapter's rule instances, or a house-rule chapter's
        if reference is None:
            reference = get_chapter(self.chapter.name)
        if reference.board != m.board:
            raise BadSettingError(
                f"the rules of {reference.name} are for another board than a {m.chapter} map's", setting="rules"
            )
        if reference.name != self.chapter.name and reference.name in chapter_names():
            # another shipped chapter's rules: the bots would reason with them about this map (the deducer's solver
            # refuses another chapter's map, midway through the games)
            raise BadSettingError(
                f"the rules of {reference.name} are for another chapter than a {m.chapter} map's", setting="rules"
            )
        self.reference = reference
        self.board = m.board
        self.cells = cast(tuple[Terrain, ...], m.cells)  # complete: checked above
        self.hills = dict(m.hills)
        self.n = players
        self.seed = seed
        self.medicine = medicine
        cards = cards or shipped_cards()
        self.cards = cards  # the card set the decks were taken from (a world of this game takes them too)
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
        characters, gear = self._spelt(characters, gear)
        self._check_names(characters or (), gear or ())  # before the counts: a wrong name is what to report
        self.characters, self.gear = self.chapter.choose_team(players, characters, gear)
        if medicine:
            self.gear = (self.gear[0] + ("Medicine",),) + tuple(self.gear[1:])
        self._check_team()
        size = self.board.size
        self.orth = self.board.hood("orthogonal")
        self.row_of = tuple(i // self.board.width for i in range(size))
        self.col_of = tuple(i % self.board.width for i in range(size))
        # per cell: the cells of its row and column, itself included (a Monster's toll reaches them)
        self.lines = tuple(frozenset(self.board.rows[r] + self.board.cols[c]) for r, c in zip(self.row_of, self.col_of))
        self.start_cells = tuple(self.chapter.start_cells(m))
        self.terrain_res = tuple(TERRAIN_RESOURCE.get(t, -1) for t in self.cells)
        self.cell_indices = tuple(t.index for t in self.cells)  # each cell's Terrain.index (no property calls)
        self.not_rock = bytes(t is not Terrain.ROCK for t in self.cells)  # frontier(): Paths that lead on
        self.field_cells = tuple(i for i, t in enumerate(self.cells) if t is Terrain.FIELD)
        # Terrain.index of the chapter's terrains, read by every main step's guess actions (no Enum property calls)
        self.terrain_indices = tuple(t.index for t in self.chapter.terrains)
        # each guessing Gear's guess actions (A.GUESS + 20 * gear + terrain index), as the main step offers them
        self.guess_actions = tuple(
            tuple(A.GUESS + 20 * k + t for t in self.terrain_indices) for k in range(len(A.GUESS_GEAR))
        )
        # every action number's kind: the core's and the chapter's; the main step asks only the kinds
        # this team can use (a Gear kind only if someone holds that Gear, or Clark may swap it in)
        self.action_table = ActionTable(CORE_ACTIONS + tuple(self.chapter.actions()))
        present = {c for c in self.characters if c} | {x for gs in self.gear for x in gs}
        if "Clark" in present:
            present.update(self.chapter.gear_kinds())
        self.main_legal = self.action_table.main_legal(present)

    def _spelt(self, characters, gear):
        """Characters and Gear as their cards spell them, whatever the case given (``clark`` is Clark, ``jar``
        the Jar, as terrain codes and chapter names are read); a name no card has is kept, for _check_names."""
        names = {c.lower(): c for c in (*A.CHARACTERS, *self.chapter.extra_characters)}
        kinds = {g.lower(): g for g in self.chapter.gear_kinds()}
        if characters is not None:
            characters = tuple(names.get(c.lower(), c) if c else c for c in characters)
        if gear is not None:
            gear = tuple(tuple(kinds.get(x.lower(), x) for x in g) for g in gear)
        return characters, gear

    def _check_names(self, characters, gear) -> None:
        """Every name given is a character or Gear card of the chapter (UnknownNameError, exit 2): checked before
        the chapter counts the team, so ``--gear Foo`` names Foo rather than reporting that a player has 1 card."""
        known = (*A.CHARACTERS, *self.chapter.extra_characters)
        for c in characters:
            if c and c not in known:
                raise UnknownNameError(
                    f"no character {c!r}{did_you_mean(c, known)} (the chapter's characters: {', '.join(known)})",
                    setting="characters",
                )
        kinds = self.chapter.gear_kinds()
        for g in (x for gs in gear for x in gs):
            if g not in kinds:
                raise UnknownNameError(
                    f"no Gear card {g!r}{did_you_mean(g, kinds)} (the chapter's cards: {', '.join(kinds)})",
                    setting="gear",
                )

    def _check_team(self):
        chars = [c for c in self.characters if c]
        if len(set(chars)) != len(chars):
            raise GameError("each character can be played by one player only", setting="characters")
        if "Collins" in chars and self.n == 1:
            raise GameError("Collins cannot be used in a solo game", setting="characters")
        all_gear = [g for gs in self.gear for g in gs]
        if len(set(all_gear)) != len(all_gear):
            raise GameError("each Gear card exists once", setting="gear")
        self.chapter.check_team(self)
        # the chapter's own loss check, None when it keeps the default (no cause of its own): _advance asks
        # it after every step, so a chapter without one is not asked at all
        self.loss_check = None if type(self.chapter).check_loss is ChapterRules.check_loss else self.chapter.check_loss

    def new_initial_state(self) -> State:
        return State(self)

    def num_players(self) -> int:
        return self.n

    def __str__(self) -> str:
        team = "; ".join(f"{c or '-'} with {', '.join(g) or 'no gear'}" for c, g in zip(self.characters, self.gear))
        return f"{self.chapter.title} on {self.map.chapter} map {self.map.briefing.number or ''}, {self.n} player(s): {team}"


class State:
    """Everything that changes during one game: the OpenSpiel interface, the agenda, and (bound from the
    rooms) the rules other code calls: ``frontier``, ``monster_tax``, ``can_pass``, ``remove_threat``, ``kill_monster``, ..."""

    _tracker: Tracker  # the referee's tracker of the game, once ``infostate.tracker_for`` is asked (not set before)

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
        self.sealed_why: dict | None = None  # a sealed game's reason (walls.explain_sealed)
        self.current = 0
        self.turn = 1
        self.day = 1
        self.resolved = 0  # Challenge cards taken off the Row to be resolved
        self.settled = 0  # of those, the ones whose Pass or Fail effects are all done
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
        self.draws = 0  # chance outcomes applied so far (cards drawn): the oracle's clock between draws
        self.data = g.chapter.new_data(g)
        self._legal: tuple[int, list[int]] | None = None  # (len(history), legal_actions()) of the last ask
        self._frontier = None  # (key, cells): the last frontier() (chapters without exploring rules)
        self._observed: tuple = (b"", [], {})  # observation.py's seen-cells cache: (seen copy, terrain, hills)
        self.ex_list: list[int] = []
        self.agenda: list[tuple] = [(STEP.MAIN,)]
        self.agenda += g.chapter.setup_steps(self)
        n_row = 2
        self.agenda += [(STEP.CHANCE_CHALLENGE,)] * n_row
        if g.destiny:
            self.agenda += [(STEP.CHANCE_DESTINY,)] * 2
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
        if kind == STEP.CHANCE_CHALLENGE:
            return self.ch_pile
        if kind == STEP.CHANCE_THREAT:
            return self.th_pile
        if kind in (STEP.CHANCE_DESTINY, STEP.CHANCE_HELD):
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
        out = LEGAL[step[0]](self, step)
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
            self.draws += 1
            pile.remove(card)
            self.agenda.pop()
            CHANCE[step[0]](self, step, card)
        else:
            cache = self._legal
            legal = cache[1] if cache is not None and cache[0] == len(self.history) else self.legal_actions()
            if action not in legal:
                raise ValueError(f"illegal action {action} ({A.describe(action, self)}) at step {step[0]}")
            self.history.append(action)
            APPLY[step[0]](self, step, action)
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

    def describe_draw(self, card: int) -> str | None:
        """Words for card ``card`` drawn at this chance node, as the rulebooks name the deck and the card (a
        hidden card is not named: the chapter says where it goes); None when no chance node is waiting."""
        if self.outcome is not None or not self.agenda or self.agenda[-1][0] not in CHANCE_STEPS:
            return None
        step = self.agenda[-1]
        g = self.game
        kind = step[0]
        if kind == STEP.CHANCE_CHALLENGE and 0 <= card < len(g.challenges):
            return f"draw Challenge card: {g.challenges[card].name}"
        if kind == STEP.CHANCE_THREAT and 0 <= card < len(g.threats):
            return f"draw Threat card: {g.threats[card].name}"
        if kind == STEP.CHANCE_DESTINY and 0 <= card < len(g.destiny):
            return f"turn up Destiny card: {g.destiny[card].name}"
        if kind == STEP.CHANCE_HELD and 0 <= card < len(g.destiny):
            return f"draw Destiny card: {g.destiny[card].name}"
        if kind == STEP.CHANCE_CHAPTER:
            return g.chapter.describe_chance(self, step, card)
        return None

    __str__ = display.describe_state

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
        """What ``player`` (default: the one to act) may know now: see ``mapgen/engine/observation.py``. A player
        the game does not have is a BadSettingError (the bots' own calls go to ``observe``, unchecked)."""
        n = self.game.n
        if player is not None and not (is_whole(player, 0) and player < n):
            players = "player 0 only" if n == 1 else f"players 0 to {n - 1}"
            table = "a solo game" if n == 1 else f"a {n}-player game"
            raise BadSettingError(f"no player {player!r}: {table} has {players}", setting="players")
        return observe(self, player)

    def slots(self) -> int:
        """Backpack spaces in use: every Resource but Water, and the Sample tokens."""
        p = self.pack
        return sum(p) - p[WATER] + self.samples + self.extra_slots

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

    # ----- the rules, bound from the rooms -----
    frontier = explore.frontier
    monster_tax = explore.monster_tax
    monster_taxes = explore.monster_taxes
    _gain_found = explore.gain_found
    _completion_steps = explore.completion_steps
    can_pass = challenges.can_pass
    monster_place = challenges.monster_place
    remove_threat = challenges.remove_threat
    kill_monster = challenges.kill_monster
    pop_row = challenges.pop_row
    _field_for_shelter = main_step.field_for_shelter
    gain = effects.gain
    room = effects.room
    rooms = effects.rooms
    lose_water = effects.lose_water
    run_effects = effects.run_effects

    # ----- the agenda -----
    def _advance(self) -> None:
        ag = self.agenda
        chapter = self.game.chapter
        check_victory, check_loss = chapter.check_victory, self.game.loss_check
        while True:
            # the game's end first (one outcome test per step: _win and lose both set it)
            if self.outcome is not None:
                return
            if check_victory(self):
                self._win()
                return
            if check_loss is not None and (cause := check_loss(self)):
                self.lose(cause)
                return
            step = ag[-1]
            how, fn = ADVANCE[step[0]]  # one lookup says what the step's kind asks
            if how is _RUN:
                ag.pop()
                fn(self, step)
            elif how is _WAIT:
                return
            elif how is _NEEDED:
                if fn(self, step):
                    return
                ag.pop()  # a decision with no real choice resolves itself
            elif how is _CHANCE:
                if len(self._chance_pile()):
                    return
                ag.pop()
                self._empty_pile(step)
            elif chapter.is_decision(self, step):  # _CHAPTER
                return
            else:
                ag.pop()
                chapter.run_step(self, step)

    def _empty_pile(self, step) -> None:
        kind = step[0]
        if kind == STEP.CHANCE_CHALLENGE:
            self.lose("no_challenges")
        elif kind == STEP.CHANCE_CHAPTER:
            self.game.chapter.empty_pile(self, step)
        elif kind == STEP.CHANCE_THREAT:
            challenges.empty_threat_pile(self, step)

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

    def push(self, *steps) -> None:
        """Push steps so that the first one given runs first."""
        self.agenda.extend(reversed(steps))


def terrain_by_index(k: int) -> Terrain:
    return TERRAINS[k]


# the Observation shares the State's rule helpers that read only public attributes (the observation module sits
# below the game: the game hands them over); and the core rules' table gives actions words without a game
bind_state_rules(State)
A.use_core_table(core_table)
