"""Chapter 2: Flora. Follow the Expedition Trail, bring the Greek Fire and burn the Giant Plant.

The rules of the core rulebook's Flora chapter on the engine's hooks:

- the first exploration is the start Fort of the Mission Briefing (its Path token leaves play);
  one Fire token is on the Supply Board; the Greek Fire token lies on the briefing's Path;
- the Expedition Trail: three Search cards dealt at random (``[[search]]`` in
  ``mapgen/engine/cards/flora.toml``) and the Giant Plant; the S Crew token moves onto the next Terrain
  icon when that Terrain is found, and off the third Search card onto the Giant Plant once the
  Greek Fire is in the backpack (where it takes a space);
- a Flora creature found: discard a Fire to kill it (advancing S if it is next on the Trail), or
  lose a Crew token, leave the Terrain unactivated and a red-circled Flora token on the Path, from
  which no Path can be explored until a Fire is discarded to kill it (a free action);
- Petrified Forest gives a Petrified Fossil; Sacagawea removes every Minotaur and kills those that
  come later;
- the row reward moves S one space on, unless the next Terrain is a Flora creature;
- the fight: the Crew tokens left cover items on the backs of the Search cards, and the game is won
  the moment the backpack holds what is still visible (and the Greek Fire); a Crew token lost
  during the fight uncovers its item; losing the S token (no other Crew left) loses the game;
- Mme. Boniface: the first Wood or Skull she finds in a turn may be taken as Water instead.

Decisions where the rulebook is silent are marked "decision:" in the code.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, words
from mapgen.engine.cards import (
    FOOD,
    FOSSIL,
    MUD,
    NRES,
    RES_INDEX,
    RESOURCE_CODES,
    ROCK,
    SKULL,
    WATER,
    WOOD,
    CardError,
    ThreatKind,
    own_card_file,
)
from mapgen.engine.chapters import ChapterRules
from mapgen.engine.game import GameError
from mapgen.engine.rules import TERRAIN
from mapgen.engine.steps import Step, StepKind, ThreatDraw
from mapgen.terrain import Terrain, UnknownTerrainError

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)
_I_PETRIFIED, _I_SACAGAWEA = T.PETRIFIED_FOREST.index, T.SACAGAWEA.index  # weight positions, looked up once
BURN = A.CHAPTER  # discard a Fire to kill the Flora creature just found
SPARE = A.CHAPTER + 1  # keep the Fire: lose a Crew token, the Path is red-circled
KILL_RING = A.CHAPTER + 10  # + cell: discard a Fire to kill a red-circled Flora token on the map
COVER = A.CHAPTER + 80  # + item: place a Crew token on an item of a Search card's back
UNCOVER = A.CHAPTER + 100  # + item: the Crew token lost during the fight is the one on this item
BONIFACE_WATER = A.CHAPTER + 120  # Mme. Boniface takes Water instead
BONIFACE_KEEP = A.CHAPTER + 121
CREW = 4  # numbered Crew tokens beside S
FLORA_TOKENS = 8  # "8 Flora Terrain Tokens", one per Flora creature, on the Reference Board at setup
ON_BOARD, DEAD = -1, -2  # where a Flora Terrain Token is when not on a Path of the map
ITEMS = ("fire", "shelter")  # items a Search card's back may show beside Resources
PLANT = "Giant Plant"


class FloraStep(StepKind):
    """Flora's own steps: ``("chapter", kind, ...)`` decisions and the ``("chance_chapter", "search")`` draw."""

    FLORA = "flora"  # ("chapter", "flora", cell): a Flora creature found, burn it or spare it
    COVER = "cover"  # place a Crew token on an item of a Search card's back (the fight)
    UNCOVER = "uncover"  # the Crew token lost during the fight
    BONIFACE = "boniface"  # ("chapter", "boniface", resource): Mme. Boniface may take Water instead
    SEARCH = "search"  # a Search card drawn at setup


@dataclass(frozen=True)
class SearchCard:
    """A Search card: Terrain icons on its front (the Trail), Resources and items on its back."""

    name: str
    trail: tuple[Terrain, ...]
    back: tuple[int | str, ...]  # resource index, or "fire" / "shelter"
    approximate: bool = True


def load_search_cards(path=None) -> list[SearchCard]:
    """The ``[[search]]`` tables of a card file (default: the chapter's own card file in the registry)."""
    path = path or own_card_file("flora")
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    approx = bool(data.get("approximate", False))
    out = []
    for k, d in enumerate(data.get("search", [])):
        where = f"{path}: search card {d.get('name', k + 1)!r}"
        try:
            trail = tuple(Terrain.from_code(c) for c in d["trail"])
        except UnknownTerrainError as e:
            raise CardError(f"{where}: trail: {e}") from None
        except KeyError as e:
            raise CardError(f"{where}: unknown or missing trail terrain {e}") from None
        back: list[int | str] = []
        for c in d.get("back", []):
            key = str(c).lower()
            if key in RES_INDEX:
                back.append(RES_INDEX[key])
            elif key in ITEMS:
                back.append(key)
            else:
                raise CardError(f"{where}: unknown back item {c!r}")
        if not trail or not back:
            raise CardError(f"{where}: a Search card needs 'trail' and 'back'")
        out.append(SearchCard(str(d["name"]), trail, tuple(back), bool(d.get("approximate", approx))))
    return out


def item_name(x) -> str:
    return RESOURCE_CODES[x] if isinstance(x, int) else x.title()


class Flora(ChapterRules):
    """Chapter 2: Flora (see the module docstring)."""

    name = "flora"
    resources = (FOOD, WOOD, MUD, ROCK, SKULL, FOSSIL, WATER)
    extra_characters = ("Mme. Boniface",)
    default_characters = ("Lewis", "Clark", "York", "Mme. Boniface")
    blocks_exploring = True
    loss_causes = ("crew_lost",)
    policy = "flora"

    def __init__(self, search_cards: list[SearchCard] | None = None):
        self.search = search_cards if search_cards is not None else load_search_cards()
        self._icons: dict[tuple, list[Terrain]] = {}

    def uses_threat(self, card) -> bool:
        """Injured and Chased: Setup step Q adds "any Chapter Specific Threat Cards", and Flora's components
        list none. With the variant ``flora-minotaurs`` also Fauna's four Minotaurs (Sacagawea's rule
        speaks of Minotaurs in play)."""
        return card.chapter == "core" or (card.kind == ThreatKind.MINOTAUR and "flora-minotaurs" in self.variants)

    # ----- setup -----
    def start_cells(self, m) -> list[int]:
        """The start Fort; a map with more Flora creatures than the box's 8 Flora Terrain Tokens cannot be played."""
        n = sum(1 for t in m.cells if t is T.FLORA_CREATURE)
        if n > FLORA_TOKENS:
            raise GameError(f"{n} Flora creatures on the map; the box has {FLORA_TOKENS} Flora Terrain Tokens")
        return super().start_cells(m)

    def new_data(self, game) -> dict:
        return {
            # the 8 Flora creatures are distinct tokens, but the map format marks each with `Fc` (the Reference
            # Board's rules do not tell them apart): token k is the k-th creature found (``found``), which
            # says nothing of the unexplored cells
            "found": [],  # the Flora creatures' cells in the order found
            "tokens": [ON_BOARD] * FLORA_TOKENS,  # each token: on the Reference Board, DEAD, or the cell it rings
            "search_pile": list(range(len(self.search))),
            "trail": [],  # the Search cards dealt, in Trail order
            "pos": 0,  # Trail icons passed by S (len(icons) + 1: S is on the Giant Plant)
            "crew": CREW,  # numbered Crew tokens still alive
            "s_alive": True,
            "ringed": [],  # Paths holding a red-circled Flora token
            "dead": 0,  # Flora creatures killed (tokens off the Reference Board)
            "greek_fire": False,
            "sacagawea": False,
            "removed": 0,  # Minotaurs removed by Sacagawea (out of the game)
            "fight": False,
            "covered": [],  # items of the backs (index into back_items) under a Crew token
            "boniface_turn": -1,
        }

    def copy_data(self, data: dict) -> dict:
        return {k: list(v) if isinstance(v, list) else v for k, v in data.items()}

    def token(self, state, cell: int) -> int:
        """The Flora Terrain Token matching the Flora creature on this cell (named when it is first found)."""
        found = state.data["found"]
        if cell not in found:
            found.append(cell)
        return found.index(cell)

    def setup_steps(self, state) -> list[tuple]:
        g = state.game
        start = g.start_cells[0]
        state.explored[start] = state.seen[start] = 1
        state.n_explored = 1
        state.ex_list.append(start)
        state.tokens_out += 1  # the start Fort's Path token is removed from play
        state.fires = 1  # the Mission Briefing's Fire token
        if g.map.briefing.greek_fire == start:
            self._take_greek_fire(state)
        return [(Step.CHANCE_CHAPTER, FloraStep.SEARCH)] * 3

    def chance_pile(self, state, step) -> list[int]:
        return state.data["search_pile"]

    def apply_chance(self, state, step, card: int) -> None:
        state.data["trail"].append(card)

    def describe_chance(self, state, step, card: int) -> str | None:
        return f"deal Search card: {self.search[card].name}"

    # ----- the Trail -----
    def icons(self, state) -> list[Terrain]:
        """The Trail's Terrain icons in order (cached per deal: the chapter object is shared by games)."""
        key = tuple(state.data["trail"])
        out = self._icons.get(key)
        if out is None:
            out = self._icons[key] = [t for k in key for t in self.search[k].trail]
        return out

    def next_icon(self, state) -> Terrain | None:
        """The next Terrain on the Trail; None when S is on the last icon or on the Giant Plant."""
        icons = self.icons(state)
        p = state.data["pos"]
        return icons[p] if p < len(icons) else None

    def back_items(self, state) -> list:
        return [x for k in state.data["trail"] for x in self.search[k].back]

    def flipped(self, state) -> int:
        """Search cards S has moved off (their backs are face up)."""
        d, n = state.data, 0
        p = d["pos"]
        for k in d["trail"]:
            n_icons = len(self.search[k].trail)
            if p > n_icons:
                n += 1
                p -= n_icons
            else:
                break
        return n

    def advance(self, state) -> None:
        """S moves one icon on (and onto the Giant Plant when it is on the last icon with the Greek Fire)."""
        state.data["pos"] += 1
        state.event(f"trail {state.data['pos']}")
        self._maybe_fight(state)

    def _maybe_fight(self, state) -> None:
        d = state.data
        if d["fight"] or not d["trail"]:
            return
        n = len(self.icons(state))
        if d["pos"] == n and d["greek_fire"]:
            d["pos"] = n + 1  # off the third Search card, onto the Giant Plant
        if d["pos"] == n + 1:
            d["fight"] = True
            state.event("fight")
            state.push(*[(Step.CHAPTER, FloraStep.COVER)] * min(d["crew"], len(self.back_items(state))))

    def _take_greek_fire(self, state) -> None:
        d = state.data
        if not d["greek_fire"]:
            d["greek_fire"] = True
            state.extra_slots = 1  # it takes a backpack space until the end of the game
            state.event("greek fire")
            self._maybe_fight(state)

    # ----- exploring -----
    def can_explore_from(self, state, cell: int) -> bool:
        return cell not in state.data["ringed"]

    def explored_unactivated(self, state, cell: int) -> None:
        """A right Tracking Guide guess skips the activation, not the Exploring: 'To acquire Greek Fire, simply
        Explore the Path that has the Greek Fire Token on it'; 'If you Explore a Path and the revealed Terrain
        is next on the Expedition Trail ... move the Crew Token onto that Terrain icon'; 'If you Explore a Path
        and reveal a Flora Terrain, you MAY discard a Fire Token to kill it' (or lose a Crew token)."""
        if cell == state.game.map.briefing.greek_fire:
            self._take_greek_fire(state)
        terrain = state.game.cells[cell]
        if terrain is T.FLORA_CREATURE:
            state.push((Step.CHAPTER, FloraStep.FLORA, cell))
        elif terrain is self.next_icon(state):
            self.advance(state)

    def activate(self, state, cell: int, terrain: Terrain) -> list[tuple]:
        g, d = state.game, state.data
        steps: list[tuple] = []
        if cell == g.map.briefing.greek_fire:
            self._take_greek_fire(state)
        if terrain is T.FLORA_CREATURE:
            return [(Step.CHAPTER, FloraStep.FLORA, cell)]
        if terrain is T.PETRIFIED_FOREST:
            for _ in range(2 if state.lewis_on else 1):
                state._gain_found(FOSSIL)
        elif terrain is T.SACAGAWEA:
            d["sacagawea"] = True
            for card in [k for k in state.threats if g.threats[k].monster]:
                self._remove_minotaur(state, card)
        elif terrain in (T.WOOD, T.SKULL) and g.characters[state.current] == "Mme. Boniface":
            r = WOOD if terrain is T.WOOD else SKULL
            if (
                d["boniface_turn"] != state.turn
                and state.pack[r] > 0
                and state.last_gain == r
                and state.room(WATER) > 0  # the Reserve has a Water token for the swap
            ):
                steps.append((Step.CHAPTER, FloraStep.BONIFACE, r))
        if terrain is self.next_icon(state):
            self.advance(state)
        return steps

    def _remove_minotaur(self, state, card: int) -> None:
        """Sacagawea removes (kills) a Minotaur: out of the game, and Chased is discarded too."""
        state.kill_monster(card)
        state.data["removed"] += 1

    def place_monster(self, state, card: int, when: ThreatDraw, cell: int) -> None:
        if state.data["sacagawea"]:  # Minotaurs that enter play after Sacagawea are killed at once
            self._remove_minotaur(state, card)
            return
        super().place_monster(state, card, when, cell)

    def row_reward(self, state, row: int) -> list[tuple]:
        """S moves one space on, unless the next Terrain is a Flora creature (decision: always taken)."""
        nxt = self.next_icon(state)
        if nxt is not None and nxt is not T.FLORA_CREATURE:
            self.advance(state)
        return []

    # ----- decisions -----
    def legal(self, state, step) -> list[int]:
        kind = step[1]
        d = state.data
        if kind == FloraStep.FLORA:
            return [BURN, SPARE] if state.fires > 0 else [SPARE]
        if kind == FloraStep.COVER:
            if len(d["covered"]) >= d["crew"]:  # a Crew token lost while the others were being placed
                return []
            items = self.back_items(state)
            return [COVER + k for k in range(len(items)) if k not in d["covered"]]
        if kind == FloraStep.UNCOVER:
            return [UNCOVER + k for k in d["covered"]]
        if kind == FloraStep.BONIFACE:
            return [BONIFACE_WATER, BONIFACE_KEEP]
        raise ValueError(f"flora has no decision step {step}")

    def is_decision(self, state, step) -> bool:
        if step[1] == FloraStep.COVER:
            return len(self.legal(state, step)) > 0
        return True

    def run_step(self, state, step) -> None:
        pass  # a cover step with every item covered already

    def apply(self, state, step, a: int) -> None:
        state.agenda.pop()
        d = state.data
        kind = step[1]
        if kind == FloraStep.FLORA:
            cell = step[2]
            if a == BURN:
                # "Remove the matching Flora Token from the Reference Board and place it off to the side"
                state.fires -= 1
                d["dead"] += 1
                d["tokens"][self.token(state, cell)] = DEAD
                state.event("flora burnt")
                if self.next_icon(state) is T.FLORA_CREATURE:
                    self.advance(state)
            else:  # "Place the Flora Terrain Token matching the Terrain you just explored ONTO that Path"
                d["ringed"].append(cell)
                d["tokens"][self.token(state, cell)] = cell
                self.lose_crew(state)
        elif kind == FloraStep.COVER:
            d["covered"].append(a - COVER)
        elif kind == FloraStep.UNCOVER:
            d["covered"].remove(a - UNCOVER)
        elif kind == FloraStep.BONIFACE:
            d["boniface_turn"] = state.turn
            if a == BONIFACE_WATER:
                r = step[2]
                state.pack[r] -= 1
                state.pack[WATER] += 1
                state.last_gain = WATER  # the Resource gained from Exploring, which the Satchel may swap

    def lose_crew(self, state, n: int = 1) -> None:
        """Lose Crew tokens: a numbered one while any is left (during the fight, the players say which), then S."""
        d = state.data
        for _ in range(n):
            if d["crew"] > 0:
                d["crew"] -= 1
                if d["fight"] and len(d["covered"]) > d["crew"]:
                    state.push((Step.CHAPTER, FloraStep.UNCOVER))
            else:
                d["s_alive"] = False
                state.lose("crew_lost")
                return

    def run_effect(self, state, effect) -> bool:
        if effect.target == "crew" and effect.verb == "lose":
            self.lose_crew(state, effect.n)
            return True
        return False

    # ----- the chapter's actions -----
    def actions(self) -> list[ActionKind]:
        return [
            *super().actions(),
            ActionKind(BURN, BURN + 1, words("discard a Fire to kill the Flora")),
            ActionKind(SPARE, SPARE + 1, words("keep the Fire: lose a Crew token, red-circle the Path")),
            ActionKind(KILL_RING, COVER, self._describe_kill_ring, self._legal_kill_ring, self._apply_kill_ring),
            ActionKind(COVER, UNCOVER, lambda a, state: f"cover {self._item(state, a - COVER)} with a Crew token"),
            ActionKind(
                UNCOVER, BONIFACE_WATER, lambda a, state: f"lose the Crew token on {self._item(state, a - UNCOVER)}"
            ),
            ActionKind(BONIFACE_WATER, BONIFACE_WATER + 1, words("Mme. Boniface: take Water instead")),
            ActionKind(BONIFACE_KEEP, BONIFACE_KEEP + 1, words("Mme. Boniface: keep it")),
        ]

    def _legal_kill_ring(self, state, out: list[int]) -> None:
        if state.fires > 0:
            out.extend(KILL_RING + c for c in state.data["ringed"])

    def _apply_kill_ring(self, state, action: int) -> None:
        cell = action - KILL_RING
        state.fires -= 1
        state.data["ringed"].remove(cell)
        state.data["dead"] += 1
        state.data["tokens"][self.token(state, cell)] = DEAD  # "Discard that Flora Terrain Token"

    def _describe_kill_ring(self, action: int, state) -> str:
        return f"discard a Fire to kill the Flora token on {state.game.board.name(action - KILL_RING)}"

    def _item(self, state, k: int) -> str:
        return item_name(self.back_items(state)[k])

    # ----- the end -----
    def missing(self, state) -> list:
        """Items still visible on the Search cards' backs that the team does not hold."""
        d = state.data
        items = self.back_items(state)
        need = [0] * NRES
        fire = shelter = False
        for k, x in enumerate(items):
            if k in d["covered"]:
                continue
            if isinstance(x, int):
                need[x] += 1
            elif x == "fire":
                fire = True
            else:
                shelter = True
        out: list = [r for r in range(NRES) for _ in range(max(0, need[r] - state.pack[r]))]
        if fire and state.fires < 1:
            out.append("fire")
        if shelter and state.shelter < 0:
            out.append("shelter")
        return out

    def win_needs(self, state) -> dict:
        """Flora is won at the Fight, with the Greek Fire, holding every item still shown on the Search cards."""
        d = state.data
        out: dict = {"trail": [d["pos"], len(self.icons(state))], "greek_fire": d["greek_fire"]}
        if d["fight"]:
            out["fight_needs"] = [item_name(x) for x in self.missing(state)]
        return out

    def check_victory(self, state) -> bool:
        d = state.data
        if not (d["fight"] and d["greek_fire"]):
            return False
        if state.agenda and state.agenda[-1][:2] in (
            (Step.CHAPTER, FloraStep.COVER),
            (Step.CHAPTER, FloraStep.UNCOVER),
        ):
            return False  # the Crew tokens are being placed
        return not self.missing(state)

    def check_loss(self, state) -> str | None:
        return None if state.data["s_alive"] else "crew_lost"

    # ----- words -----
    def describe_state(self, state) -> list[str]:
        d = state.data
        b = state.game.board
        cards = [self.search[k] for k in d["trail"]]
        flipped = self.flipped(state)
        icons = self.icons(state)
        where = "before the Trail" if d["pos"] == 0 else "on the Giant Plant" if d["pos"] > len(icons) else None
        if where is None:
            where = f"on {icons[d['pos'] - 1].label} (icon {d['pos']} of {len(icons)})"
        lines = [
            "Expedition Trail: "
            + " | ".join(
                f"{c.name} ({' '.join(t.code for t in c.trail)})"
                + (f" back: {' '.join(item_name(x) for x in c.back)}" if k < flipped or d["fight"] else "")
                for k, c in enumerate(cards)
            )
            + f" | {PLANT}; S {where}",
            f"Crew tokens: S + {d['crew']}; Greek Fire {'in the backpack' if d['greek_fire'] else 'not found'}; "
            f"Flora killed {d['dead']}; on the Reference Board: Flora tokens "
            f"{' '.join(str(k + 1) for k, at in enumerate(d['tokens']) if at == ON_BOARD) or 'none'}"
            + (f"; red-circled Flora on {', '.join(b.name(c) for c in d['ringed'])}" if d["ringed"] else ""),
        ]
        if d["fight"]:
            lines.append("Fight: still needed " + (" ".join(item_name(x) for x in self.missing(state)) or "nothing"))
        return lines
