"""Expansion 3: Maldonado, co-operative mode (solo to 4 players). Kill 3 Monsters, then save every Crew Member.

The rules of the Maldonado rulebook on the engine's hooks (the Hidden Traitor mode is
``mapgen/engine/traitor.py``, a subclass):

- Maldonado's Power track: +1 for each Skull and Maldonado terrain found (and some failed
  Challenges), -1 for each completed row (the row reward); co-operative start 6;
- Maldonado terrain: +1 Power and 1 Resource of choice or Water; Tipi: a Kill Monster card, then
  the usual trade; Skull: a Threat card and +1 Power; in co-operative mode each Skull or Maldonado
  found also turns one of the five face-down setup cards on the Crew Members face up;
- Monsters (Vipera Volantis, Rattus Vorax): by day on the Explored Skull; at Night on an Unexplored
  Path beside the northernmost (southernmost) Explored Path; 1 Resource or Water to Explore in
  their row or column; killed by discarding any 2 different Resources shown on a Kill Monster card;
- every turn in which the active player gained a Resource matching a Crew Member (Water: any Crew
  Member), one Influence card from the hand, or a Command card from the deck, goes on one such
  Crew Member; hands are refilled at the end of a turn and renewed at Night;
- the game ends when the third Monster is killed: each Crew Member's cards are revealed and added
  (matching Influence +top-left, other Influence -top-right, Command +1 or -1, the Traitor card -4);
  a Crew Member is saved when the total is at least Maldonado's Power; co-operative players win by
  saving all five;
- Randolph and Russell refresh up to 2 of each other's Gear; Goggles (an Unexplored Path that
  gives 1 more Water if it is Water); Water Skin (2 Water kept aside, +7 points if never used);
  the Journal Destiny card lowers the Power.

Decisions where the rulebook is silent are marked "decision:" in the code.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, words
from mapgen.engine.cards import (
    FOOD,
    MUD,
    NRES,
    RES_INDEX,
    RESOURCE_CODES,
    ROCK,
    SKULL,
    WATER,
    WOOD,
    CardError,
    own_card_file,
)
from mapgen.engine.chapters import ChapterRules
from mapgen.engine.game import PRIORITY
from mapgen.engine.rules import TERRAIN
from mapgen.engine.steps import Step, StepKind, ThreatDraw
from mapgen.terrain import Terrain

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)
TRAITOR_CARD = 200  # the Traitor card's code in a Crew Member's pile
COMMAND_BASE = 100  # Command card k is 100 + k in a pile
HANDS = {1: 10, 2: 5, 3: 4, 4: 3}  # co-operative hand sizes
COOP_POWER = 6
REMOVED = 5  # Influence cards removed unseen at setup

PLAY = A.CHAPTER  # + hand slot * 2 + face (1 face up, 0 face down)
TRAITOR_PLAY = A.CHAPTER + 25  # play the Traitor card (face down)
COMMAND = A.CHAPTER + 26  # draw and play a Command card (face down)
TARGET_CREW = A.CHAPTER + 30  # + Crew Member: the Target
FLIP = A.CHAPTER + 40  # + Crew Member: turn its face-down setup card up
KILL_M = A.CHAPTER + 50  # + Kill Monster slot * 4 + Monster slot: kill it
PAIR = A.CHAPTER + 70  # + r1 * 10 + r2: the two different Resources discarded
ACCUSE = A.CHAPTER + 180  # + player
ABSTAIN = A.CHAPTER + 190
PARTNER = A.CHAPTER + 195  # Randolph / Russell: refresh the other's Gear
WATER_SKIN = A.CHAPTER + 196
GOGGLES = A.CHAPTER + 200  # + cell
KEEP = A.CHAPTER + 270  # + hand slot: Hidden Traitor, the Influence card kept at Night


class MaldonadoStep(StepKind):
    """Maldonado's own steps (the Hidden Traitor mode's too): ``("chance_chapter", kind, ...)`` draws and
    ``("chapter", kind, ...)`` steps, their arguments in brackets."""

    # draws
    REMOVE = "remove"  # an Influence card removed unseen at setup
    TRAITOR_SLOT = "traitor_slot"  # the Crew Member the Traitor card goes under
    SETUP = "setup"  # (crew) a face-down Influence card on a Crew Member's pile
    DRAW = "draw"  # (player) an Influence card into a hand
    COMMAND = "command"  # (crew, player) a Command card played face down
    IDENTITY = "identity"  # (player) an Identity card
    KILL = "kill"  # a Kill Monster card turned face up
    # decisions
    TARGET = "target"  # the Crew Member to play on
    PLAY = "play"  # (crew) the card played on it
    FLIP = "flip"  # the face-down setup card turned up
    PAIR = "pair"  # (kill slot, monster cell) the two Resources discarded for a kill
    ACCUSE = "accuse"  # (player) whom that player accuses
    KEEP = "keep"  # (player) Hidden Traitor: the Influence card the Traitor who played the -4 keeps at Night
    # automatic steps
    REFILL = "refill"  # (player) draw back up to a full hand
    FINALE = "finale"  # the Accusations resolved and the Crew Members saved or lost
    AS = "as"  # (player) the steps after it are that player's


#: The steps that run by themselves: never a decision.
AUTOMATIC = frozenset({MaldonadoStep.REFILL, MaldonadoStep.FINALE, MaldonadoStep.AS})


@dataclass(frozen=True)
class CrewMember:
    name: str
    resource: int


@dataclass(frozen=True)
class InfluenceCard:
    """``match`` is added on a Crew Member of the same Resource, ``mismatch`` subtracted on any other."""

    resource: int
    match: int
    mismatch: int


def _resources(value, where: str) -> list[int]:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if str(v).lower() not in RES_INDEX:
            raise CardError(f"{where}: unknown resource {v!r}")
        out.append(RES_INDEX[str(v).lower()])
    return out


def load_decks(path=None):
    """Crew Member, Influence and Command cards from a card file (default: the chapter's own card file in the
    registry's ``cards``, ``mapgen/engine/cards/maldonado.toml``)."""
    path = Path(path or own_card_file("maldonado"))
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    crew = [
        CrewMember(str(d["name"]), _resources(d["resource"], f"{path}: crew member")[0])
        for d in data.get("crew_member", [])
    ]
    influence = []
    for d in data.get("influence", []):
        for r in _resources(d["resource"], f"{path}: influence"):
            influence += [InfluenceCard(r, int(d["match"]), int(d["mismatch"]))] * int(d.get("copies", 1))
    commands = []
    for d in data.get("command", []):
        for r in _resources(d["resource"], f"{path}: command"):
            commands += [r] * int(d.get("copies", 1))
    if len(crew) != 5 or len(influence) < REMOVED + 4 or not commands:
        raise CardError(f"{path}: Maldonado needs 5 Crew Members, Influence cards and Command cards")
    return crew, influence, commands


class Maldonado(ChapterRules):
    """Expansion 3: Maldonado, co-operative mode (see the module docstring)."""

    name = "maldonado"
    variant = "co-operative"
    mode = "coop"
    resources = (FOOD, WOOD, MUD, ROCK, SKULL, WATER)
    extra_characters = ("Randolph", "Russell")
    extra_gear = ("Goggles", "Water Skin")
    start_only_gear = ("Water Skin",)  # 'cannot be swapped in using Clark's ability'
    track_gains = True
    policy = "maldonado"
    #: (state, step, actions played, legal actions) of the last step ``is_decision`` found no decision: ``run_step``
    #: runs it next and reads them instead of asking again
    _undecided: tuple | None = None

    def __init__(self, decks=None):
        """``decks``: a card file with ``crew_member``, ``influence`` and ``command`` tables (printed cards)."""
        self.crew, self.influence, self.commands = load_decks(decks)

    def uses_kill(self, card) -> bool:
        return card.chapter == "maldonado"

    def start_power(self, players: int) -> int:
        return COOP_POWER

    def check_team(self, game) -> None:
        return None

    # ----- setup -----
    def new_data(self, game) -> dict:
        n = game.n
        return {
            "power": self.start_power(n),
            "inf_pile": list(range(len(self.influence))),
            "inf_discard": [],
            "removed": [],
            "hands": [[] for _ in range(n)],
            "cmd_pile": list(range(len(self.commands))),
            "piles": [[] for _ in self.crew],  # [code, face_up, player (-1: setup card)]
            "slot_pile": [],
            "kill_pile": list(range(len(game.kills))),
            "kill_face": [],
            "kills": 0,
            "gained": [],  # (turn, resource) gained on the active player's turn
            "played": -1,  # the last turn in which a Target was chosen and a card played on it
            "log": [],  # public plays: (player, crew, "up" / "down" / "command")
            "rows_by": [0] * n,
            "goggles": -1,
            "skin": 0,
            "result": None,
            "identity": [-1] * n,  # Hidden Traitor mode: 0 the Traitor, 1.. Loyalists
            "id_pile": [],
            "traitor_played": False,
            "accusations": [],  # rounds of [(accuser, accused or -1)]
            "turn_player": -1,
            "flips": 0,  # face-down cards on the Crew Members turned face up (public_data's cache key)
        }

    def copy_data(self, data: dict) -> dict:
        out = {}
        for k, v in data.items():
            if k in ("hands", "accusations"):
                out[k] = [list(x) for x in v]
            elif k == "piles":
                out[k] = [[list(e) for e in pile] for pile in v]
            elif isinstance(v, list):
                out[k] = list(v)
            else:
                out[k] = v
        return out

    def public_data(self, data: dict, player: int) -> dict:
        """Besides the piles' order: the 5 Influence cards removed at setup (their number only), another
        player's hand (its size only), Identity (None) and the Influence
        cards others played face down are hidden from ``player``: an Influence card shows as -1, a Command
        or the Traitor card as ``COMMAND_BASE`` (not an Influence card, which of them unknown)."""
        out = super().public_data(data, player)
        hands = data["hands"]
        # solo: the one hand is the player's own (shown as it is, like the pack)
        out["hands"] = hands if len(hands) == 1 else [h if p == player else len(h) for p, h in enumerate(hands)]
        out["removed"] = len(data["removed"])  # removed unseen at setup: how many, not which
        identity = data["identity"]
        if max(identity) >= 0:  # Hidden Traitor mode: Identity cards are dealt
            out["identity"] = [x if p == player or x < 0 else None for p, x in enumerate(identity)]
        out["piles"] = _public_piles(data, player)
        return out

    def setup_steps(self, state) -> list[tuple]:
        g, d = state.game, state.data
        if any("Water Skin" in gs for gs in g.gear):  # 2 Water from the backpack onto the card
            state.pack[WATER] -= 2
            d["skin"] = 2
        steps: list[tuple] = [(Step.CHANCE_CHAPTER, MaldonadoStep.REMOVE)] * REMOVED
        steps += self.setup_mode_steps(state)
        return steps

    def setup_mode_steps(self, state) -> list[tuple]:
        """Co-operative: the Traitor card and 4 Influence cards face down on the Crew Members; hands dealt."""
        d = state.data
        d["slot_pile"] = list(range(len(self.crew)))
        steps: list[tuple] = [(Step.CHANCE_CHAPTER, MaldonadoStep.TRAITOR_SLOT)]
        for p in range(state.game.n):
            steps += [(Step.CHANCE_CHAPTER, MaldonadoStep.DRAW, p)] * HANDS[state.game.n]
        return steps

    def hand_size(self, state, p: int) -> int:
        return HANDS[state.game.n]

    def refill_to(self, state, p: int) -> int:
        """End of turn: refill to this many Influence cards (co-operative: 4)."""
        return 4

    # ----- chance -----
    def chance_pile(self, state, step) -> list[int]:
        d = state.data
        kind = step[1]
        if kind in (MaldonadoStep.REMOVE, MaldonadoStep.SETUP, MaldonadoStep.DRAW):
            return d["inf_pile"]
        if kind == MaldonadoStep.TRAITOR_SLOT:
            return d["slot_pile"]
        if kind == MaldonadoStep.COMMAND:
            return d["cmd_pile"]
        if kind == MaldonadoStep.IDENTITY:
            return d["id_pile"]
        if kind == MaldonadoStep.KILL:
            return d["kill_pile"]
        raise ValueError(f"maldonado has no chance step {step}")

    def apply_chance(self, state, step, card: int) -> None:
        d = state.data
        kind = step[1]
        if kind == MaldonadoStep.REMOVE:
            d["removed"].append(card)
        elif kind == MaldonadoStep.TRAITOR_SLOT:
            d["piles"][card].append([TRAITOR_CARD, False, -1])
            others = [c for c in range(len(self.crew)) if c != card]
            d["slot_pile"] = []
            state.push(*[(Step.CHANCE_CHAPTER, MaldonadoStep.SETUP, c) for c in others])
        elif kind == MaldonadoStep.SETUP:
            d["piles"][step[2]].append([card, False, -1])
        elif kind == MaldonadoStep.DRAW:
            d["hands"][step[2]].append(card)
        elif kind == MaldonadoStep.COMMAND:
            crew, p = step[2], step[3]
            d["piles"][crew].append([COMMAND_BASE + card, False, p])
            d["log"].append((p, crew, "command"))
        elif kind == MaldonadoStep.IDENTITY:
            d["identity"][step[2]] = card
        elif kind == MaldonadoStep.KILL:
            d["kill_face"].append(card)

    def describe_chance(self, state, step, card: int) -> str | None:
        """A hidden card's draw says where it goes, not which card it is (the transcript shows what players see)."""
        kind = step[1]
        if kind == MaldonadoStep.REMOVE:
            return "remove an Influence card from the game unseen"
        if kind == MaldonadoStep.TRAITOR_SLOT:
            return "shuffle the Traitor card into the 5 face-down setup cards"
        if kind == MaldonadoStep.SETUP:
            return f"an Influence card face down on {self.crew[step[2]].name}"
        if kind == MaldonadoStep.DRAW:
            return f"player {step[2] + 1} draws an Influence card"
        if kind == MaldonadoStep.COMMAND:
            return f"a Command card face down on {self.crew[step[2]].name}"
        if kind == MaldonadoStep.IDENTITY:
            return f"deal player {step[2] + 1} an Identity card"
        if kind == MaldonadoStep.KILL:
            return f"turn up Kill Monster card: {state.game.kills[card].name}"
        return None

    def empty_pile(self, state, step) -> None:
        d = state.data
        if step[1] == MaldonadoStep.DRAW and d["inf_discard"]:  # the discards are shuffled into a new deck
            d["inf_pile"], d["inf_discard"] = d["inf_discard"], []
            state.agenda.append(step)

    # ----- Power -----
    def add_power(self, state, n: int) -> None:
        d = state.data
        d["power"] = max(0, d["power"] + n)

    def row_reward(self, state, row: int) -> list[tuple]:
        self.add_power(state, -1)
        state.data["rows_by"][state.current] += 1
        return []

    def run_effect(self, state, effect) -> bool:
        if effect.target == "power":
            self.add_power(state, effect.n if effect.verb == "gain" else -effect.n)
            return True
        return False

    # ----- exploring -----
    def activate(self, state, cell: int, terrain: Terrain) -> list[tuple]:
        d = state.data
        steps: list[tuple] = []
        if cell == d["goggles"]:
            if terrain is T.WATER:
                state.gain(WATER)
            d["goggles"] = -1
        if terrain is T.MALDONADO:
            self.add_power(state, 1)
            # Lewis: "If the Terrain provides your choice of Resource, then this ability will give you 2 of the
            # one you choose" (activate runs before the explore clears lewis_on)
            steps.append((Step.GAIN, 2) if state.lewis_on else (Step.GAIN,))
            steps += self.found_evil(state)
        elif terrain is T.SKULL:
            self.add_power(state, 1)
            steps += self.found_evil(state)
        elif terrain is T.TIPI:
            steps.append((Step.CHANCE_CHAPTER, MaldonadoStep.KILL))
        return steps

    def explored_unactivated(self, state, cell: int) -> None:
        """A right Tracking Guide guess ("discard that Path Token and that Resource, and Explore again") skips the
        Terrain's activation: no Resource of choice, no Threat card, no Kill Monster card. What does not come
        from activating still happens (decision, see the engine README): the Goggles ("When that Path is
        Explored (by any Player), gain 1 more Water if the Terrain is Water"), the Power ("increases by 1 every
        time you find a Skull or a Maldonado Terrain") and, co-operative, the flip ("Each time you reveal a Skull
        or a Maldonado Terrain, you also get to flip over one of the 5 face-down Influence Cards")."""
        d = state.data
        terrain = state.game.cells[cell]
        steps: list[tuple] = []
        if cell == d["goggles"]:
            if terrain is T.WATER:
                state.gain(WATER)
            d["goggles"] = -1
        if terrain is T.MALDONADO or terrain is T.SKULL:
            self.add_power(state, 1)
            steps += self.found_evil(state)
        state.push(*steps)

    def found_evil(self, state) -> list[tuple]:
        """Co-operative: a Skull or Maldonado turns one face-down setup card up."""
        return [(Step.CHAPTER, MaldonadoStep.FLIP)]

    aside_resources = (WATER,)

    def held_aside(self, state, r: int) -> int:
        """The Water Skin's Water is out of the Reserve."""
        return state.data["skin"] if r == WATER else 0

    def on_gain(self, state, r: int) -> None:
        d = state.data
        if d["gained"] and d["gained"][0][0] != state.turn:
            d["gained"] = []
        if r == WATER or any(c.resource == r for c in self.crew):
            d["gained"].append((state.turn, r))

    def targets(self, state) -> list[int]:
        """Crew Members a card may be played on now: none once this turn's one card is played."""
        if state.data["played"] == state.turn:
            return []
        gained = {r for t, r in state.data["gained"] if t == state.turn}
        if WATER in gained:
            return list(range(len(self.crew)))
        return [c for c, m in enumerate(self.crew) if m.resource in gained]

    def end_turn_steps(self, state) -> list[tuple]:
        steps: list[tuple] = []
        if self.targets(state):
            steps.append((Step.CHAPTER, MaldonadoStep.TARGET))
        steps.append((Step.CHAPTER, MaldonadoStep.REFILL, state.current))
        return steps

    def after_resolve_steps(self, state) -> list[tuple]:
        """Resources gained from a Challenge resolved after "end turn" are gained on this turn too ("by any
        means"): with no card played yet this turn, the play happens now, then the hand is refilled."""
        if self.targets(state):
            return [(Step.CHAPTER, MaldonadoStep.TARGET), (Step.CHAPTER, MaldonadoStep.REFILL, state.current)]
        return []

    def night_steps(self, state) -> list[tuple]:
        """Every hand is discarded and dealt again."""
        d = state.data
        steps: list[tuple] = []
        for p in range(state.game.n):
            d["inf_discard"] += d["hands"][p]
            d["hands"][p] = []
            steps += [(Step.CHANCE_CHAPTER, MaldonadoStep.DRAW, p)] * self.hand_size(state, p)
        return steps

    # ----- playing cards -----
    def faces(self, state, p: int, card: int) -> tuple[int, ...]:
        """Faces an Influence card may be played with (co-operative: face up)."""
        return (1,)

    def play_actions(self, state, p: int, crew: int) -> list[int]:
        """A matching Influence card, else a Command card (decision: any Influence card once that deck is out)."""
        d = state.data
        r = self.crew[crew].resource
        hand = d["hands"][p]
        match = [s for s, card in enumerate(hand) if self.influence[card].resource == r]
        if match:
            return [PLAY + 2 * s + f for s in match for f in self.faces(state, p, hand[s])]
        if d["cmd_pile"]:
            return [COMMAND]
        return [PLAY + 2 * s + f for s, card in enumerate(hand) for f in self.faces(state, p, card)]

    def play(self, state, crew: int, a: int) -> None:
        d = state.data
        p = state.current
        if a == COMMAND:
            state.push((Step.CHANCE_CHAPTER, MaldonadoStep.COMMAND, crew, p))
            return
        if a == TRAITOR_PLAY:
            d["piles"][crew].append([TRAITOR_CARD, False, p])
            d["traitor_played"] = True
            d["log"].append((p, crew, "down"))
            return
        s, face = divmod(a - PLAY, 2)
        card = d["hands"][p].pop(s)
        d["piles"][crew].append([card, bool(face), p])
        d["log"].append((p, crew, "up" if face else "down"))

    # ----- Monsters -----
    def place_monster(self, state, card: int, when: ThreatDraw, cell: int) -> None:
        """By day on the Explored Skull; at Night beside the northernmost (southernmost) Explored Path."""
        g = state.game
        if when == ThreatDraw.DAY and cell >= 0 and cell not in state.monsters:
            state.monsters[cell] = card
            return
        north = g.threats[card].direction == "north"
        # decision: beside it, its own side first, then east, the other side, west (N E S W; south card: S E N W)
        order = (0, 1, 2, 3) if north else (2, 1, 0, 3)
        b = g.board
        best = None
        for i in sorted(
            state.ex_list,
            key=lambda i: (g.row_of[i] if north else -g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
        ):
            r, c = g.row_of[i], g.col_of[i]
            for k in order:
                dr, dc = ((-1, 0), (0, 1), (1, 0), (0, -1))[k]
                j = b.at(r + dr, c + dc)
                if j is not None and not state.explored[j] and j not in state.monsters:
                    best = j
                    break
            if best is not None:
                break
        if best is not None:
            state.monsters[best] = card

    def kill_pairs(self, state, k: int) -> list[tuple[int, int]]:
        """Pairs of different Resources shown on Kill Monster card k that the team can discard."""
        req = state.game.kills[k].requires
        shown = [r for r in range(NRES) if req[r] and state.pack[r] > 0]
        return list(combinations(shown, 2))

    # ----- the chapter's actions -----
    def actions(self) -> list[ActionKind]:
        return [
            *super().actions(),
            ActionKind(PLAY, TRAITOR_PLAY, self._describe_play),
            ActionKind(TRAITOR_PLAY, TRAITOR_PLAY + 1, words("play the Traitor card face down")),
            ActionKind(COMMAND, COMMAND + 1, words("play a Command card face down")),
            ActionKind(TARGET_CREW, FLIP, lambda a, state: f"target {self.crew[a - TARGET_CREW].name}"),
            ActionKind(FLIP, KILL_M, lambda a, state: f"turn up the setup card on {self.crew[a - FLIP].name}"),
            ActionKind(KILL_M, PAIR, self._describe_kill, self._legal_kill, self._kill_with),
            ActionKind(PAIR, ACCUSE, self._describe_pair),
            ActionKind(ACCUSE, ABSTAIN, lambda a, state: f"accuse player {a - ACCUSE + 1}"),
            ActionKind(ABSTAIN, ABSTAIN + 1, words("abstain from accusing")),
            ActionKind(
                PARTNER,
                PARTNER + 1,
                words("refresh up to 2 of your partner's Gear"),
                self._legal_partner,
                self._partner,
                ("Randolph", "Russell"),
            ),
            ActionKind(
                WATER_SKIN,
                WATER_SKIN + 1,
                words("Water Skin: 2 Water back into the backpack"),
                self._legal_water_skin,
                self._water_skin,
                ("Water Skin",),
            ),
            ActionKind(
                GOGGLES,
                GOGGLES + 64,
                lambda a, state: f"Goggles on {state.game.board.name(a - GOGGLES)}",
                self._legal_goggles,
                self._goggles,
                ("Goggles",),
            ),
        ]

    def _legal_kill(self, state, out: list[int]) -> None:
        d = state.data
        if state.monsters and d["result"] is None:
            n_mon = len(state.monsters)
            kills, pack = state.game.kills, state.pack
            for s, k in enumerate(d["kill_face"][:4]):
                # kill_pairs(state, k) not empty: two Resources or more shown on the card and held
                shown = 0
                for required, held in zip(kills[k].requires, pack):
                    if required and held > 0:
                        shown += 1
                if shown >= 2:
                    out.extend(KILL_M + 4 * s + m for m in range(min(n_mon, 4)))

    def _kill_with(self, state, action: int) -> None:
        s, m = divmod(action - KILL_M, 4)
        state.push((Step.CHAPTER, MaldonadoStep.PAIR, s, sorted(state.monsters)[m]))

    def _legal_partner(self, state, out: list[int]) -> None:
        g = state.game
        char = g.characters[state.current]
        partner = {"Randolph": "Russell", "Russell": "Randolph"}.get(char)
        if partner and char not in state.exhausted and partner in g.characters:
            q = g.characters.index(partner)
            if any(x in state.exhausted for x in state.gear[q]):
                out.append(PARTNER)

    def _partner(self, state, action: int) -> None:
        g = state.game
        char = g.characters[state.current]
        q = g.characters.index("Russell" if char == "Randolph" else "Randolph")
        for x in [x for x in state.gear[q] if x in state.exhausted][:2]:
            state.exhausted.discard(x)
        state.exhausted.add(char)

    def _legal_water_skin(self, state, out: list[int]) -> None:
        if "Water Skin" in state.gear[state.current] and state.data["skin"]:
            out.append(WATER_SKIN)

    def _water_skin(self, state, action: int) -> None:
        d = state.data
        state.gear[state.current].remove("Water Skin")
        state.pack[WATER] += d["skin"]
        d["skin"] = 0

    def _legal_goggles(self, state, out: list[int]) -> None:
        if "Goggles" in state.gear[state.current] and "Goggles" not in state.exhausted and not state.explored_now:
            d = state.data
            out.extend(GOGGLES + i for i in range(state.game.board.size) if not state.explored[i] and i != d["goggles"])

    def _goggles(self, state, action: int) -> None:
        state.data["goggles"] = action - GOGGLES
        state.exhausted.add("Goggles")

    def _describe_play(self, action: int, state) -> str:
        s, face = divmod(action - PLAY, 2)
        hand = state.data["hands"][state.current]
        name = self.card_name(hand[s]) if s < len(hand) else f"card {s}"
        return f"play Influence {name} face {'up' if face else 'down'}"

    def _describe_kill(self, action: int, state) -> str:
        s, m = divmod(action - KILL_M, 4)
        if state is not None and s < len(state.data["kill_face"]) and m < len(state.monsters):
            cell = state.game.board.name(sorted(state.monsters)[m])
            card = state.game.kills[state.data["kill_face"][s]].name
            return f"kill the Monster on {cell} with Kill Monster card: {card}"
        return f"kill Monster {m + 1} with Kill Monster card {s + 1}"

    def _describe_pair(self, action: int, state) -> str:
        r1, r2 = divmod(action - PAIR, 10)
        return f"discard {RESOURCE_CODES[r1]} and {RESOURCE_CODES[r2]}"

    def kill(self, state, s: int, cell: int, r1: int, r2: int) -> None:
        d = state.data
        state.pack[r1] -= 1
        state.pack[r2] -= 1
        d["kill_face"].pop(s)
        state.kill_monster(state.monsters[cell])  # Chased is discarded too
        d["kills"] += 1
        state.event(f"kill {d['kills']}")
        state.push(*self.after_kill(state))

    def after_kill(self, state) -> list[tuple]:
        return [(Step.CHAPTER, MaldonadoStep.FINALE)] if state.data["kills"] >= 3 else []

    # ----- decisions -----
    def legal(self, state, step) -> list[int]:
        d = state.data
        kind = step[1]
        if kind == MaldonadoStep.TARGET:
            return [TARGET_CREW + c for c in self.targets(state)]
        if kind == MaldonadoStep.PLAY:
            return self.play_actions(state, state.current, step[2])
        if kind == MaldonadoStep.FLIP:
            return [FLIP + c for c, pile in enumerate(d["piles"]) if any(e[2] == -1 and not e[1] for e in pile)]
        if kind == MaldonadoStep.PAIR:
            k = d["kill_face"][step[2]]
            return [PAIR + 10 * r1 + r2 for r1, r2 in self.kill_pairs(state, k)]
        if kind == MaldonadoStep.ACCUSE:
            p = step[2]
            out = [ACCUSE + q for q in range(state.game.n) if q != p]
            if state.game.n == 2:
                out.append(ABSTAIN)
            return out
        if kind in AUTOMATIC:
            return []
        raise ValueError(f"maldonado has no decision step {step}")

    def is_decision(self, state, step) -> bool:
        kind = step[1]
        if kind in AUTOMATIC:
            return False
        la = self.legal(state, step)
        if len(la) > 1:
            # a decision: the state's legal actions are these, asked next by the player (State.legal_actions's
            # cache, as it would store them: sorted, keyed by the history's length; nothing changes before)
            state._legal = (len(state.history), sorted(la))
            return True
        # not a decision: the state's _advance pops the step and runs it at once (run_step reads these)
        self._undecided = (state, step, len(state.history), la)
        return False

    def run_step(self, state, step) -> None:
        kind = step[1]
        d = state.data
        if kind == MaldonadoStep.REFILL:
            p = step[2]
            # "If you have less than 4 Influence Cards, redraw back up ..."; the Traitor who played the -4
            # "should redraw so that you have 5 Influence Cards in your hand", whatever the hand holds
            need = self.refill_to(state, p) - len(d["hands"][p])
            if need > 0:
                state.push(*[(Step.CHANCE_CHAPTER, MaldonadoStep.DRAW, p)] * need)
        elif kind == MaldonadoStep.FINALE:
            self.finale(state)
        elif kind == MaldonadoStep.AS:
            state.current = step[2]
        else:
            last = self._undecided
            self._undecided = None
            if last is not None and last[0] is state and last[1] is step and last[2] == len(state.history):
                la = last[3]  # the legal actions is_decision found a moment ago (nothing played since)
            else:
                la = self.legal(state, step)
            if len(la) == 1:
                self._do(state, step, la[0])

    def apply(self, state, step, a: int) -> None:
        state.agenda.pop()
        self._do(state, step, a)

    def _do(self, state, step, a: int) -> None:
        d = state.data
        kind = step[1]
        if kind == MaldonadoStep.TARGET:
            d["played"] = state.turn
            state.push((Step.CHAPTER, MaldonadoStep.PLAY, a - TARGET_CREW))
        elif kind == MaldonadoStep.PLAY:
            self.play(state, step[2], a)
        elif kind == MaldonadoStep.FLIP:
            for e in d["piles"][a - FLIP]:
                if e[2] == -1 and not e[1]:
                    e[1] = True
                    d["flips"] += 1
                    break
        elif kind == MaldonadoStep.PAIR:
            r1, r2 = divmod(a - PAIR, 10)
            self.kill(state, step[2], step[3], r1, r2)
        elif kind == MaldonadoStep.ACCUSE:
            d["accusations"][-1].append((step[2], -1 if a == ABSTAIN else a - ACCUSE))

    # ----- the end -----
    def card_value(self, code: int, crew: int) -> int:
        r = self.crew[crew].resource
        if code == TRAITOR_CARD:
            return -4
        if code >= COMMAND_BASE:
            return 1 if self.commands[code - COMMAND_BASE] == r else -1
        c = self.influence[code]
        return c.match if c.resource == r else -c.mismatch

    def crew_value(self, state, crew: int) -> int:
        return sum(self.card_value(e[0], crew) for e in state.data["piles"][crew])

    def saved(self, state) -> list[bool]:
        power = state.data["power"]
        return [self.crew_value(state, c) >= power for c in range(len(self.crew))]

    def finale(self, state) -> None:
        """Co-operative: reveal every card; all five Crew Members saved wins."""
        d = state.data
        reveal_piles(d)
        n_saved = sum(self.saved(state))
        state.event(f"saved {n_saved}")
        d["result"] = "win" if n_saved == len(self.crew) else "crew_died"

    def check_victory(self, state) -> bool:
        return state.data["result"] == "win"

    def win_needs(self, state) -> dict:
        """The Crew Members are judged at the third kill: the kills left, the Monsters to kill, and per face-up
        Kill Monster card the Resources shown on it that are not held (none once a pair can be discarded)."""
        g, d = state.game, state.data
        cards = {}
        for k in d["kill_face"]:
            req = g.kills[k].requires
            lack = [RESOURCE_CODES[r] for r in range(NRES) if req[r] and state.pack[r] == 0]
            cards[g.kills[k].name] = [] if self.kill_pairs(state, k) else lack
        return {"kills_left": 3 - d["kills"], "monsters_in_play": len(state.monsters), "kill_cards": cards}

    def check_loss(self, state) -> str | None:
        r = state.data["result"]
        return r if r not in (None, "win") else None

    def score_bonus(self, state) -> int:
        return 7 if any("Water Skin" in gs for gs in state.gear) else 0

    # ----- words -----
    def card_name(self, code: int) -> str:
        if code == TRAITOR_CARD:
            return "Traitor -4"
        if code >= COMMAND_BASE:
            return f"Command {RESOURCE_CODES[self.commands[code - COMMAND_BASE]]}"
        c = self.influence[code]
        return f"{RESOURCE_CODES[c.resource]} +{c.match}/-{c.mismatch}"

    def describe_state(self, state) -> list[str]:
        d = state.data
        g = state.game
        lines = [f"Maldonado's Power {d['power']}; Monsters killed {d['kills']}"]
        for c, m in enumerate(self.crew):
            shown = [self.card_name(e[0]) if e[1] else "?" for e in d["piles"][c]]
            lines.append(f"  {m.name} ({RESOURCE_CODES[m.resource]}): {' '.join(shown) or '-'}")
        if d["kill_face"]:
            lines.append(
                "Kill Monster cards: "
                + "; ".join(
                    f"{g.kills[k].name} ({' '.join(RESOURCE_CODES[r] for r in range(NRES) if g.kills[k].requires[r])})"
                    for k in d["kill_face"]
                )
            )
        if state.monsters:
            lines.append("Monsters on " + ", ".join(g.board.name(c) for c in sorted(state.monsters)))
        return lines


__all__ = ["COMMAND", "PLAY", "TRAITOR_CARD", "Maldonado", "load_decks"]


def reveal_piles(d: dict) -> None:
    """Every card on the Crew Members face up (the end of the game)."""
    for pile in d["piles"]:
        for e in pile:
            if not e[1]:
                e[1] = True
                d["flips"] += 1


#: per player, the last public view of the piles made: (the piles list, cards in the piles, flips, view).
#: A pile only grows, and a card only turns face up (counted in ``flips``), so while the same list holds
#: as many cards with as many flips, the view is the same: made again only after a play or a flip
#: (not at every decision).
_PILES_SEEN: dict[int, tuple] = {}


def _public_piles(data: dict, player: int) -> list:
    """The Crew Members' piles as ``player`` sees them: a card face down that another player (or the
    setup) put there shows as -1 (Influence) or ``COMMAND_BASE`` (a Command or the Traitor card)."""
    piles = data["piles"]
    n = sum(map(len, piles))
    flips = data["flips"]
    hit = _PILES_SEEN.get(player)
    if hit is not None and hit[0] is piles and hit[1] == n and hit[2] == flips:
        return hit[3]
    view = []
    for pile in piles:
        for e in pile:
            if not e[1] and e[2] != player:  # this pile has a card hidden from player: shown as a copy
                pile = [
                    e if e[1] or e[2] == player else [-1 if e[0] < COMMAND_BASE else COMMAND_BASE, e[1], e[2]]
                    for e in pile
                ]
                break
        view.append(pile)
    _PILES_SEEN[player] = (piles, n, flips, view)
    return view
