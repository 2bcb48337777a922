"""Chapter plug-ins: each chapter's game rules are an object whose hooks the core rules call
(see mapgen/engine/README.md).

``ChapterRules`` holds the core defaults (every hook that a chapter need not change); ``MinotaurChapter``
adds Minotaurs and Kill Minotaur cards; ``Training`` and ``Fauna`` fill in their chapters' rules.
A plug-in names its chapter (``name``); its title, board and terrains come from the chapter registry
(``constraints/chapters/NAME.toml``), whose ``engine = "module:Class"`` key is how ``plugin_for`` finds it.
"""

from __future__ import annotations

import importlib
from operator import ge

from constraints.catalogue import ChapterError, chapter_names, get_chapter
from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind
from mapgen.engine.cards import FOOD, MUD, RESOURCE_CODES, ROCK, SKULL, VINE, WATER, WOOD
from mapgen.engine.rules import GEAR_PER_PLAYER, TERRAIN, GameError, TeamCountError
from mapgen.engine.steps import STEP, StepKind, ThreatDraw
from mapgen.model import Map
from mapgen.terrain import Terrain


class _FromRegistry:
    """A plug-in attribute read from its chapter's registry entry (``board``, ``terrains``), once per object."""

    def __set_name__(self, owner, attr: str) -> None:
        self.attr = attr

    def __get__(self, obj, owner=None):
        value = getattr(get_chapter((owner if obj is None else obj).name), self.attr)
        if obj is not None:
            obj.__dict__[self.attr] = value  # an instance attribute from now on: no registry lookup in play
        return value


class ChapterRules:
    """The core game's defaults. Override a hook to change a rule; push agenda steps to add decisions.

    Hooks are called with the ``State``; a hook that adds work returns (or pushes) agenda steps:
    tuples whose first item names the step (a ``Step`` of ``mapgen/engine/steps.py``; the second item of a chapter's
    own step is a member of the chapter's ``StepKind`` subclass); ``("chapter", ...)`` steps are answered by
    ``legal``/``apply`` (decisions) or ``run_step`` (automatic) of the chapter itself, and ``("chance_chapter", ...)`` steps draw from ``chance_pile`` into ``apply_chance``.
    """

    name = "core"  # the registry entry a plug-in plays (constraints/chapters/NAME.toml)
    _pile_keys: dict[int, tuple[str, ...]]  # public_data's: the data's size -> its pile keys (made on first use)
    variant: str | None = None  # a mode of the chapter, shown after its title: "co-operative"
    board = _FromRegistry()
    terrains = _FromRegistry()

    @property
    def title(self) -> str:
        """The registry's title, with the variant: "Expansion 3: Maldonado (co-operative)"."""
        title = get_chapter(self.name).title
        return f"{title} ({self.variant})" if self.variant else title

    resources: tuple[int, ...] = (FOOD, WOOD, MUD, ROCK, SKULL, WATER)
    start_water = 8
    destiny = True  # column reward: a Destiny card
    shelter = True  # Fields exist, so Shelter can be built
    default_characters = ("Lewis", "Clark", "York", "Collins")
    default_gear = ("Compass", "Flint", "Mortar and Pestle", "Satchel", "Tracking Guide", "Jar")
    loss_causes: tuple[str, ...] = ()
    extra_characters: tuple[str, ...] = ()  # a chapter's own characters (Mme. Boniface, Irene, ...)
    extra_gear: tuple[str, ...] = ()  # a chapter's own Gear cards (Pipe Hawks, Goggles, ...)
    start_only_gear: tuple[str, ...] = ()  # of those, the ones Clark cannot swap in (Pipe Hawks, Water Skin)
    custom_tax = False  # set True to have monster_tax decide what exploring a Path costs
    track_gains = False  # set True to have on_gain told of every Resource gained
    policy: str | None = None  # the bots' chapter policy, a key of mapgen.engine.bots.POLICIES
    variants: frozenset[str] = frozenset()  # the game's named variants (mapgen/engine/variants.py), set by Game

    # ----- cards and team -----
    def uses_challenge(self, card) -> bool:
        return card.chapter in ("core", self.name)

    def uses_threat(self, card) -> bool:
        return card.chapter in ("core", self.name)

    def uses_kill(self, card) -> bool:
        return card.chapter == self.name

    def select_threats(self, cards: list) -> list:
        """The Threat cards of this game, from those ``uses_threat`` accepted."""
        return cards

    def choose_team(self, players: int, characters, gear):
        """Characters and gear per player: the given ones, or sensible defaults (Collins never solo)."""
        per = GEAR_PER_PLAYER[players]
        if characters is None:
            pool = [c for c in self.default_characters if not (c == "Collins" and players == 1)]
            characters = pool[:players]
        characters = tuple(characters)
        if len(characters) != players:
            raise TeamCountError(
                f"give one character per player: {players} player(s), {len(characters)} character(s) given",
                setting="characters",
            )
        if gear is None:
            pool = list(self.default_gear)
            gear = [pool[p * per : (p + 1) * per] for p in range(players)]
        gear = tuple(tuple(g) for g in gear)
        if len(gear) != players:
            raise TeamCountError(
                f"give gear for each of the {players} player(s), players separated by ';': {len(gear)} given",
                setting="gear",
            )
        for p, g in enumerate(gear):
            if len(g) != per:
                raise GameError(
                    f"with {players} player(s) each player takes {per} Gear card(s); player {p + 1} has {len(g)}",
                    setting="gear",
                )
        return characters, gear

    def check_team(self, game) -> None:
        """Chapter restrictions on characters and gear (core: none beyond Game's checks)."""

    def gear_kinds(self) -> tuple[str, ...]:
        """Every Gear card of the chapter: Clark's action numbers index this (at most 10 kinds)."""
        return A.GEAR_KINDS + self.extra_gear

    def fixed_gear(self) -> tuple[str, ...]:
        """Gear Clark never swaps: 'CAN ONLY BE SELECTED AT THE START OF A GAME' (Box of Goods and the
        chapter's own such cards) and the Training Gear Medicine (decision: neither in nor out)."""
        return ("Box of Goods", "Medicine", *self.start_only_gear)

    def start_cells(self, m: Map) -> list[int]:
        return m.start_cells()

    # ----- per-game chapter data (cloned with the state) -----
    def new_data(self, game) -> dict:
        return {}

    #: piles in ``data`` whose cards are public though their order is not (shown sorted to the bots)
    public_piles: tuple[str, ...] = ()

    def public_data(self, data: dict, player: int) -> dict:
        """``data`` as ``player`` may know it (the bots' observation): a pile (``*_pile``) shows its size
        only, or its cards sorted when listed in ``public_piles``; the rest is on the table."""
        if not data:  # a chapter without data of its own (Training, Fauna): nothing to hide
            return {}
        out = data.copy()
        try:
            known = self._pile_keys
        except AttributeError:
            known = self._pile_keys = {}
        piles = known.get(len(out))
        if piles is None:  # a chapter's data keys are fixed (keys are only ever added): found once per size
            piles = known[len(out)] = tuple(k for k in data if k.endswith("_pile"))
        public = self.public_piles
        if public:
            for k in piles:
                out[k] = sorted(data[k]) if k in public else len(data[k])
        else:  # every pile shows its size only (Maldonado's: its observations are many)
            for k in piles:
                out[k] = len(data[k])
        return out

    def copy_data(self, data: dict) -> dict:
        return {k: list(v) if isinstance(v, list) else v for k, v in data.items()}

    def setup_steps(self, state) -> list[tuple]:
        """Extra setup: steps run after the Challenge Row and Destiny cards are dealt."""
        return []

    # ----- exploring -----
    blocks_exploring = False  # set True to have can_explore_from consulted (Flora's red-circled Paths)

    def can_explore_from(self, state, cell: int) -> bool:
        """Beyond Rocks and Monsters (core), may exploring continue from this Explored Path?"""
        return True

    def can_explore_to(self, state, cell: int) -> bool:
        """With ``blocks_exploring``: may this Unexplored Path be explored (Vameter's own Path cannot)?"""
        return True

    def monster_tax(self, state, cell: int) -> int:
        """With ``custom_tax``: Resources to discard before exploring this cell."""
        return 0

    #: Resources the chapter keeps aside out of the backpack (``held_aside``: Maldonado's Water Skin)
    aside_resources: tuple[int, ...] = ()

    def held_aside(self, state, r: int) -> int:
        """Tokens of Resource r the chapter keeps out of the Reserve and the backpack (the Reserve's count)."""
        return 0

    def on_gain(self, state, r: int) -> None:
        """With ``track_gains``: Resource r was just gained (exploring, trading, a choice, an effect)."""

    def run_effect(self, state, effect) -> bool:
        """Run a card effect the core does not know (``lose 1 crew``); True when handled."""
        return False

    def may_pass(self, state, card) -> bool:
        """Beyond the card's requirements, may the leftmost Challenge be passed now?"""
        return True

    def night_steps(self, state) -> list[tuple]:
        """Steps at the start of Night, after the Crew is fed (Vameter returns Crew, Maldonado redraws)."""
        return []

    def end_turn_steps(self, state) -> list[tuple]:
        """Steps when a player ends the turn, before the backpack limits (Maldonado's Influence card)."""
        return []

    def backtracked(self, state, cell: int) -> None:
        """A Backtrack put this Path's token back: undo what the chapter's Gear did for that explore."""

    def explored_unactivated(self, state, cell: int) -> None:
        """A Path explored with no activation (a right Tracking Guide guess): Flora's Greek Fire is still taken."""

    def after_resolve_steps(self, state) -> list[tuple]:
        """Steps after a Challenge card (and its Fatigue check) is resolved, before any End of Day (Maldonado)."""
        return []

    def activate(self, state, cell: int, terrain: Terrain) -> list[tuple]:
        """Chapter terrains' activation; the core table (Resources, Skull, Tipi, Hill) is already done."""
        return []

    def row_reward(self, state, row: int) -> list[tuple]:
        return []

    def column_reward(self, state, col: int) -> list[tuple]:
        return [(STEP.DESTINY_PICK,)] if self.destiny else []

    def shelter_cells(self, state) -> list[int]:
        ex = state.explored
        found = [i for i in state.game.field_cells if ex[i]]  # the explored Fields (a few Fields: no scan)
        if len(found) > 1:  # in the order explored, as ``ex_list`` holds them (each explored cell once)
            found.sort(key=state.ex_list.index)
        return found

    # ----- the chapter's actions and steps -----
    def actions(self) -> list[ActionKind]:
        """The chapter's action kinds, added to the game's action table (see ``mapgen/engine/actions.py``).

        One ``ActionKind`` per range of numbers from ``actions.CHAPTER`` (600..999): how to
        ``describe`` it, and for a main-step (free) action when it is ``legal`` and how to ``apply`` it.
        Answers to the chapter's own ``("chapter", ...)`` steps need only ``describe``. A subclass
        extends its parent's list (``super().actions() + [...]``).
        """
        return []

    def legal(self, state, step) -> list[int]:
        raise ValueError(f"{self.name} has no decision step {step}")

    def apply(self, state, step, action: int) -> None:
        raise ValueError(f"{self.name} has no decision step {step}")

    def is_decision(self, state, step) -> bool:
        return True

    def run_step(self, state, step) -> None:
        raise ValueError(f"{self.name} has no step {step}")

    def chance_pile(self, state, step) -> list[int]:
        raise ValueError(f"{self.name} has no chance step {step}")

    def apply_chance(self, state, step, card: int) -> None:
        raise ValueError(f"{self.name} has no chance step {step}")

    def describe_chance(self, state, step, card: int) -> str | None:
        """Words for a card drawn at the chapter's chance step ``step`` (None: "chance outcome N")."""
        return None

    def empty_pile(self, state, step) -> None:
        """A chapter chance step whose deck is empty: nothing happens by default."""

    def reveal(self, state, target, n: int) -> None:
        """A card's ``reveal N target`` effect."""

    # ----- threats, days, the end -----
    def place_monster(self, state, card: int, when: ThreatDraw, cell: int) -> None:
        pos = state.monster_place(card, when, cell)
        if pos >= 0:
            state.monsters[pos] = card

    def night_threat(self, state) -> bool:
        """Draw a Threat card at Night? (core: when no Monster is in play)."""
        return not state.monsters

    def food_needed(self, state) -> int:
        return 1

    def on_resolved(self, state, card, passed: bool) -> None:
        """After a Challenge card is resolved (before its effects run)."""

    def check_victory(self, state) -> bool:
        return False

    def check_loss(self, state) -> str | None:
        """A chapter-specific loss cause, or None (the core causes are checked by the core)."""
        return None

    def score_bonus(self, state) -> int:
        return 0

    def win_needs(self, state) -> dict:
        """What the team still lacks to win, as data (``walls.needs_words`` puts it in words): a sealed game's
        record says it when every Path is explored. Keys: ``challenges_left``, ``kills_left`` with
        ``monsters_in_play`` and ``kill_cards`` (a face-up Kill card's name -> the Resource codes it still lacks),
        ``hearts_left`` with ``vameter_in_play``, ``trail`` ([icon reached, icons]), ``greek_fire``,
        ``fight_needs`` (the items still missing at the Fight)."""
        return {}

    def describe_state(self, state) -> list[str]:
        return []


class MinotaurStep(StepKind):
    """The Minotaur chapters' own step: ``("chance_chapter", "kill")``, a Kill Minotaur card turned face up."""

    KILL = "kill"


class MinotaurChapter(ChapterRules):
    """Minotaurs and Kill Minotaur cards (Training and Fauna)."""

    def new_data(self, game) -> dict:
        return {"kill_pile": list(range(len(game.kills))), "kill_face": [], "kills": 0, "forts": 0}

    def actions(self) -> list[ActionKind]:
        return [*super().actions(), ActionKind(A.KILL, A.GUESS, describe_kill, legal_kill, apply_kill)]

    def chance_pile(self, state, step) -> list[int]:
        return state.data["kill_pile"]

    def apply_chance(self, state, step, card: int) -> None:
        state.data["kill_face"].append(card)

    def describe_chance(self, state, step, card: int) -> str | None:
        return f"turn up Kill Minotaur card: {state.game.kills[card].name}"

    def reveal(self, state, target, n: int) -> None:
        if target == "kill":
            state.push(*[(STEP.CHANCE_CHAPTER, MinotaurStep.KILL)] * n)

    def win_needs(self, state) -> dict:
        """Fauna wins at the third kill: the kills left, the Minotaurs to kill, what each face-up card lacks."""
        g, d, pack = state.game, state.data, state.pack
        cards = {}
        for k in d["kill_face"]:
            req = g.kills[k].requires
            cards[g.kills[k].name] = [RESOURCE_CODES[r] for r in range(len(req)) for _ in range(req[r] - pack[r])]
        return {"kills_left": 3 - d["kills"], "monsters_in_play": len(state.monsters), "kill_cards": cards}

    def describe_state(self, state) -> list[str]:
        g, d = state.game, state.data
        lines = []
        if d["kill_face"]:
            lines.append(
                "Kill Minotaur cards: "
                + "; ".join(
                    f"{g.kills[k].name} ({' '.join(RESOURCE_CODES[r] for r in range(len(g.kills[k].requires)) for _ in range(g.kills[k].requires[r]))})"
                    for k in d["kill_face"]
                )
            )
        if state.monsters:
            lines.append(
                "Minotaurs on " + ", ".join(g.board.name(c) for c in sorted(state.monsters)) + f"; killed {d['kills']}"
            )
        return lines


def legal_kill(state, out: list[int]) -> None:
    """Kill a Minotaur: a face-up Kill Minotaur card whose Resources the backpack holds, on any Minotaur."""
    if not state.monsters:
        return
    g, pack = state.game, state.pack
    n_mon = len(state.monsters)
    for s, k in enumerate(state.data["kill_face"]):
        if all(map(ge, pack, g.kills[k].requires)):  # pack[r] >= requires[r] for every Resource, in C
            out.extend([A.KILL + 8 * s + m for m in range(n_mon)])


def apply_kill(state, action: int) -> None:
    s, m = divmod(action - A.KILL, 8)
    d = state.data
    k = d["kill_face"].pop(s)
    req = state.game.kills[k].requires
    for r in range(len(req)):
        state.pack[r] -= req[r]
    cell = sorted(state.monsters)[m]
    state.kill_monster(state.monsters[cell])  # Chased is discarded too
    d["kills"] += 1
    state.event(f"kill {d['kills']}")


def describe_kill(action: int, state=None) -> str:
    k, m = divmod(action - A.KILL, 8)
    if state is not None and k < len(state.data["kill_face"]) and m < len(state.monsters):
        cell = state.game.board.name(sorted(state.monsters)[m])
        card = state.game.kills[state.data["kill_face"][k]].name
        return f"kill the Minotaur on {cell} with Kill Minotaur card: {card}"
    return f"kill Minotaur {m} with Kill card {k}"


class Training(MinotaurChapter):
    """Chapter 0: the Training Mission on the 5x5 board."""

    name = "training"
    resources = (FOOD, WOOD, MUD, ROCK, WATER)
    start_water = 3
    destiny = False  # no Explore Bonus, so no Destiny cards
    shelter = False  # no Field terrain
    minotaur_cell = "D4"

    def uses_challenge(self, card) -> bool:
        """Core cards that the five Training terrains can pass, and no Shelter (decision)."""
        allowed = {FOOD, WOOD, MUD, ROCK, WATER}
        return (
            card.chapter == "core"
            and not card.shelter
            and all(card.requires[r] == 0 for r in range(len(card.requires)) if r not in allowed)
        )

    def uses_threat(self, card) -> bool:
        return card.chapter == "core" or card.monster

    def uses_kill(self, card) -> bool:
        return card.training

    def select_threats(self, cards: list) -> list:
        """Injured, Chased and one Minotaur card: only one Monster in the Training Mission."""
        monsters = [c for c in cards if c.monster]
        return [c for c in cards if not c.monster] + monsters[:1]

    def choose_team(self, players: int, characters, gear):
        if characters is not None and any(c not in ("Lewis", None, "") for c in characters):
            raise GameError("the Training Mission is played with Lewis only", setting="characters")
        if gear is not None and any(x != "Compass" for g in gear for x in g):
            raise GameError("the Training Mission is played with the Compass only", setting="gear")
        # one Lewis card and one Compass for the whole team: the first player holds them
        return ("Lewis",) + ("",) * (players - 1), (("Compass",),) + ((),) * (players - 1)

    def new_data(self, game) -> dict:
        d = super().new_data(game)
        d["kill_face"], d["kill_pile"] = d["kill_pile"], []
        return d

    def setup_steps(self, state) -> list[tuple]:
        g = state.game
        monsters = [k for k in state.th_pile if g.threats[k].monster]
        if monsters:
            card = monsters[0]
            state.th_pile = [k for k in state.th_pile if not g.threats[k].monster]
            state.threats.append(card)
            state.monsters[g.board.index(self.minotaur_cell)] = card
        return []

    def row_reward(self, state, row: int) -> list[tuple]:
        return []

    def column_reward(self, state, col: int) -> list[tuple]:
        return []

    def night_threat(self, state) -> bool:
        return False  # only one Monster in the Training Mission

    def food_needed(self, state) -> int:
        return 1 if state.day == 1 else 0

    def check_victory(self, state) -> bool:
        """'You WIN the Training Mission if you resolve all 6 Challenge Cards': the sixth one's effects done."""
        return state.settled >= 6

    def win_needs(self, state) -> dict:
        return {"challenges_left": 6 - state.settled}


class Fauna(MinotaurChapter):
    """Chapter 1: Fauna. Find Forts for Kill Minotaur cards; win on the third kill."""

    name = "fauna"
    resources = (FOOD, WOOD, MUD, ROCK, SKULL, VINE, WATER)

    def activate(self, state, cell: int, terrain: Terrain) -> list[tuple]:
        if terrain is TERRAIN.FORT:
            state.data["forts"] += 1
            state.event("first fort")
            return [(STEP.CHANCE_CHAPTER, MinotaurStep.KILL)]
        return []

    def row_reward(self, state, row: int) -> list[tuple]:
        return [(STEP.THREAT_DISCARD,)]

    def check_victory(self, state) -> bool:
        return state.data["kills"] >= 3


def playable_chapters() -> tuple[str, ...]:
    """The registry's chapters that name an engine plug-in."""
    return tuple(n for n in chapter_names() if get_chapter(n).engine)


def plugin_class(name: str) -> type[ChapterRules]:
    """The plug-in class the chapter registry names for a chapter (``engine = "module:Class"``)."""
    try:
        spec = get_chapter(name)
    except ChapterError:
        spec = None
    if spec is None or spec.engine is None:
        raise GameError(f"the engine cannot play {name!r} yet (it plays {', '.join(playable_chapters())})")
    module, attr = spec.engine.split(":")
    cls = getattr(importlib.import_module(module), attr, None)
    if not (isinstance(cls, type) and issubclass(cls, ChapterRules)) or cls.name != name:
        raise GameError(f"chapter {name}: engine {spec.engine!r} is no ChapterRules plug-in for {name}")
    return cls


def plugin_for(name: str) -> ChapterRules:
    """The chapter plug-in for a chapter name; GameError for a chapter the engine cannot play."""
    return plugin_class(name)()


__all__ = [
    "MUD",
    "SKULL",
    "VINE",
    "ChapterRules",
    "Fauna",
    "MinotaurChapter",
    "Training",
    "playable_chapters",
    "plugin_class",
    "plugin_for",
]
