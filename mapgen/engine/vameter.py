"""Expansion 2: Vameter. Shoot the flying Vameter five times, then surround it with Explored Paths.

The rules of the Vameter rulebook on the engine's hooks:

- Fezron Camps give Fezron tokens (not Resources: no backpack space); Mushroom Fields give a
  Mushroom and hold a Shelter; the first Fezron Camp found spawns the Vameter on the Peak (or the
  nearest Unexplored Path), arrow East; its Path cannot be explored;
- after a Path is explored, one Crew token (2, 3 or 4: its range) from the supply may be placed on
  it; then, when the Path is Water, the Vameter flips a Move token and moves that many Unexplored
  Paths in its direction, jumping Explored ones and turning clockwise when none is left ahead;
  it kills the Crew in the 8 Paths around where it stops, and every Crew token in line (orthogonal)
  with the Vameter or a Cyclops within its range fires at the first one in that line;
- a shot Cyclops leaves the game; a shot Vameter loses a Heart (and Hunting Grounds is removed);
  with no Heart left it is Vulnerable, and the game is won once its 8 Paths are Explored or off the map;
- Sacrificing a Fezron (free action): one Crew token in range fires at once, then waits on the End
  of Day's Pass space; at End of Day those come back, and Crew on the map may be called back;
- the row reward moves one Crew token up to 3 Explored Paths;
- Cyclops (Monsters): 1 more Resource or Water to Explore any of the 8 Paths around one; after each
  Consequence each moves to the closest Unexplored Path and explores it (no activation; rewards of
  completed rows and columns are gained); at Night they are placed ignoring Paths with Crew;
- Hunting Grounds (Misfortune): 1 extra Water to Pass a Challenge;
- score: 5 points per Fezron still held; Pipe Hawks +3 if kept;
- Irene moves a Monster to an adjacent Path; Pipe Hawks (removed from play) gives an extra
  explore whose Path token is discarded; the Dowsing Rod's right guess gives a Resource of an
  adjacent Explored Path; the four Destiny cards (Scope, Fezron Guide, Monster Claws, Air Rifle Shot).

Decisions where the rulebook is silent are marked "decision:" in the code.
"""

from __future__ import annotations

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, words
from mapgen.engine.cards import FOOD, MUD, MUSHROOM, RESOURCE_CODES, ROCK, SKULL, WATER, WOOD, ThreatKind
from mapgen.engine.chapters import ChapterRules
from mapgen.engine.game import PRIORITY, TERRAIN_RESOURCE
from mapgen.engine.rules import TERRAIN
from mapgen.engine.steps import Step, StepKind, ThreatDraw
from mapgen.terrain import TERRAINS, Terrain

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)
HEARTS = 5
FEZRON_TOKENS = 4
CREW_RANGES = (2, 3, 4)  # the Crew tokens 2, 3 and 4 from the Flora box: the number is the range
MOVE_TOKENS = (1, 2, 2, 3)  # decision: the Move tokens' numbers are not printed; designed, approximate
SUPPLY, PASS, DEAD = -1, -2, -3  # where a Crew token is when not on a Path
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # North, East, South, West: clockwise
DIR_NAMES = ("North", "East", "South", "West")
_RAYS: dict[tuple[int, int], tuple] = {}


def _rays(b) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each direction of DIRS and each cell, the cells along the straight line away from it, nearest first.

    Made once per board shape: the Vameter's moves and the Crew's shots walk these instead of
    calling ``Board.at`` step by step.
    """
    key = (b.height, b.width)
    rays = _RAYS.get(key)
    if rays is None:
        rays = _RAYS[key] = tuple(tuple(_ray(b, cell, dr, dc) for cell in range(b.size)) for dr, dc in DIRS)
    return rays


def _ray(b, cell: int, dr: int, dc: int) -> tuple[int, ...]:
    r, c = divmod(cell, b.width)
    out: list[int] = []
    while (j := b.at(r + dr * (len(out) + 1), c + dc * (len(out) + 1))) is not None:
        out.append(j)
    return tuple(out)


PLACE = A.CHAPTER  # + token: place this Crew token on the Path just explored
LOSE_CREW = A.CHAPTER + 3  # + token: the Crew token that dies
RECALL = A.CHAPTER + 6  # + token: End of Day, take this Crew token back from the map
ROW_PICK = A.CHAPTER + 9  # + token: the Crew token the row reward moves
SACRIFICE = A.CHAPTER + 12  # + token: discard a Fezron, this Crew token fires
IRENE = A.CHAPTER + 15  # + monster slot (sorted cells): Irene moves this Monster
PIPE_HAWKS = A.CHAPTER + 19
DOWSE = A.CHAPTER + 20  # + terrain index: the Dowsing Rod's guess
DOWSE_TAKE = A.CHAPTER + 40  # + resource taken from an adjacent Explored Path
TARGET = A.CHAPTER + 50  # + cell: what a firing Crew token shoots
DEST = A.CHAPTER + 100  # + cell: where a moved token goes (row reward, Irene, a Cyclops' tie)
RANGE_TO = A.CHAPTER + 150  # + token: Scope's extra range goes to this Crew token
CLAW = A.CHAPTER + 155  # + cell: Monster Claws kills the Cyclops there


class VameterStep(StepKind):
    """Vameter's own steps: ``("chapter", kind, ...)`` (the argument in brackets) and the Move token's draw."""

    PLACE = "place"  # (cell) place a Crew token on the Path just explored
    FIRE = "fire"  # (token) End of Day: what this Crew token shoots
    LOSE_CREW = "lose_crew"  # the Crew token that dies
    RECALL = "recall"  # End of Day: take a Crew token back from the map
    ROW_PICK = "row_pick"  # the row reward: the Crew token it moves
    ROW_DEST = "row_dest"  # (token) where the row reward moves it
    IRENE = "irene"  # (cell) where Irene moves the Monster there
    CYCLOPS = "cyclops"  # (card) where a Cyclops goes on a tie
    SACRIFICE = "sacrifice"  # (token) a Fezron discarded: what this Crew token shoots
    DOWSE = "dowse"  # (cell) the Dowsing Rod's Resource from an adjacent Explored Path
    RANGE = "range"  # (n) the Crew token Scope's extra range goes to
    CLAW = "claw"  # the Cyclops Monster Claws kills
    HUNTING_WATER = "hunting_water"  # automatic: lose a Water (Hunting Grounds)
    TO_PASS = "to_pass"  # automatic, (token): a sacrificed shot's token waits on the Pass space
    MOVE = "move"  # ("chance_chapter", "move"): the Vameter's Move token drawn


#: The steps that run by themselves: never a decision.
AUTOMATIC = frozenset({VameterStep.HUNTING_WATER, VameterStep.TO_PASS})


class Vameter(ChapterRules):
    """Expansion 2: Vameter (see the module docstring)."""

    name = "vameter"
    resources = (FOOD, WOOD, MUD, ROCK, SKULL, MUSHROOM, WATER)
    extra_characters = ("Irene",)
    extra_gear = ("Pipe Hawks", "Dowsing Rod")
    start_only_gear = ("Pipe Hawks",)  # 'This Gear cannot be swapped in using Clark's ability.'
    default_characters = ("Lewis", "Clark", "York", "Irene")
    default_gear = ("Compass", "Flint", "Dowsing Rod", "Satchel", "Tracking Guide", "Jar")
    blocks_exploring = True
    custom_tax = True
    policy = "vameter"
    public_piles = ("move_pile",)  # the Move tokens still face down are known, not their order

    # ----- setup -----
    def new_data(self, game) -> dict:
        return {
            "vam": -1,  # the Vameter's Path (-1: not in play yet)
            "dir": 1,  # its arrow: 0 North, 1 East, 2 South, 3 West
            "hearts": HEARTS,
            "move_pile": list(range(len(MOVE_TOKENS))),
            "move_face": [],  # Move tokens flipped (reshuffled when all are up)
            "crew": [SUPPLY] * len(CREW_RANGES),  # where each Crew token is
            "range": list(CREW_RANGES),
            "fezron": 0,
            "fezron_used": 0,  # Fezron tokens sacrificed (back in the Reserve: they can be gained again)
            "cyclops_out": 0,  # Cyclops cards shot or clawed out of the game
            "dowse": -1,  # the Dowsing Rod's guess (terrain index)
            "hawks": False,  # the next explore is Pipe Hawks': its Path token is discarded
            "irene": -1,  # the Monster's cell Irene is moving
            "shots": 0,
            "consequence": False,  # a Challenge card was resolved: its Consequence moves the Cyclops
            "hawks_first": False,  # Pipe Hawks taken before the turn's own explore: that one is still to come
        }

    def copy_data(self, data: dict) -> dict:
        return {k: list(v) if isinstance(v, list) else v for k, v in data.items()}

    def shelter_cells(self, state) -> list[int]:
        g = state.game
        return [i for i in state.ex_list if g.cells[i] is T.MUSHROOM_FIELD]

    # ----- geometry -----
    def cyclops_cells(self, state) -> list[int]:
        return sorted(state.monsters)

    def line_targets(self, state, tk: int) -> list[int]:
        """Cells a Crew token may shoot now: the first Vameter or Cyclops within range in each straight line."""
        d = state.data
        at = d["crew"][tk]
        if at < 0:
            return []
        reach, vam, monsters = d["range"][tk], d["vam"], state.monsters
        out = []
        for rays in _rays(state.game.board):  # each direction: the cells within range, nearest first
            for j in rays[at][:reach]:
                if j == vam or j in monsters:
                    out.append(j)
                    break  # never over one to hit the other
        return sorted(out)

    def king(self, state, cell: int) -> tuple[int, ...]:
        return state.game.board.hood("king")[cell]

    def monster_tax(self, state, cell: int) -> int:
        """Cyclops: 1 more Resource or Water for each Cyclops among the 8 Paths around the cell."""
        if not state.monsters or state.collins_on:
            return 0
        return sum(1 for j in self.king(state, cell) if j in state.monsters)

    def can_explore_to(self, state, cell: int) -> bool:
        return cell != state.data["vam"]

    # ----- exploring -----
    def activate(self, state, cell: int, terrain: Terrain) -> list[tuple]:
        d = state.data
        if d["hawks"]:  # Pipe Hawks' explore: its Path token is discarded
            d["hawks"] = False
            if state.token_to_row and state.row and state.row[0][1] > 0:
                state.row[0][1] -= 1
                state.tokens_out += 1
            if d["hawks_first"]:  # the turn's own explore is still to come
                d["hawks_first"] = False
                state.explored_now = False
        if terrain is T.MUSHROOM_FIELD:
            for _ in range(2 if state.lewis_on else 1):
                state._gain_found(MUSHROOM)
        elif terrain is T.FEZRON_CAMP:
            d["fezron"] = min(FEZRON_TOKENS, d["fezron"] + 1)  # spent tokens are back in the Reserve
        return self._explored(state, cell, terrain)

    def explored_unactivated(self, state, cell: int) -> None:
        """A right Tracking Guide guess skips the activation ("Gain a Fezron token when activating a Fezron Camp",
        the Mushroom), not what follows Exploring: "After Exploring a Path but before Activating the Terrain or
        moving the Vameter, you can choose to place one of the Crew"; "After Exploring a Path and finding Water,
        the Vameter (if in play) moves immediately"; "When the first Fezron Camp is found, spawn the Vameter!";
        the Dowsing Rod's guess was for this Path ("guess the Terrain under the Path you're about to Explore")."""
        state.push(*self._explored(state, cell, state.game.cells[cell]))

    def _explored(self, state, cell: int, terrain: Terrain) -> list[tuple]:
        """What follows every explore, activated or not: Crew placement, the first Fezron Camp's Vameter, the
        Dowsing Rod's guess (used up on this Path), the Vameter's move on Water."""
        d = state.data
        steps: list[tuple] = []
        if SUPPLY in d["crew"] and cell not in state.monsters:
            steps.insert(0, (Step.CHAPTER, VameterStep.PLACE, cell))
        if terrain is T.FEZRON_CAMP and d["vam"] < 0 and "vameter" not in state.events:
            self.spawn(state)
        if d["dowse"] >= 0:
            if d["dowse"] == terrain.index and self.dowse_choices(state, cell):
                steps.append((Step.CHAPTER, VameterStep.DOWSE, cell))
            d["dowse"] = -1
        if terrain is T.WATER and d["vam"] >= 0:
            steps.append((Step.CHANCE_CHAPTER, VameterStep.MOVE))
        return steps

    def backtracked(self, state, cell: int) -> None:
        """Backtrack: "You MAY Refresh any Gear or Characters that you used, and reverse any effects those cards
        had." The Dowsing Rod's guess was for the Path put back: it is cancelled and the Rod refreshed."""
        if state.data["dowse"] >= 0:
            state.data["dowse"] = -1
            state.exhausted.discard("Dowsing Rod")

    def dowse_choices(self, state, cell: int) -> list[int]:
        g = state.game
        out = set()
        for j in g.orth[cell]:
            if state.explored[j]:
                t = g.cells[j]
                r = TERRAIN_RESOURCE.get(t, MUSHROOM if t is T.MUSHROOM_FIELD else -1)
                if r >= 0:
                    out.add(r)
        return sorted(out)

    def spawn(self, state) -> None:
        """The Vameter on the Peak, arrow East; on the nearest Unexplored Path if the Peak is explored."""
        g, d = state.game, state.data
        peak = g.map.briefing.peak
        cell = peak
        if state.explored[peak] or peak in state.monsters:
            pr, pc = g.row_of[peak], g.col_of[peak]
            free = [i for i in range(g.board.size) if not state.explored[i] and i not in state.monsters]
            if not free:
                return
            # decision: nearest by king steps, then orthogonal steps, then reading order
            cell = min(
                free,
                key=lambda i: (
                    max(abs(g.row_of[i] - pr), abs(g.col_of[i] - pc)),
                    abs(g.row_of[i] - pr) + abs(g.col_of[i] - pc),
                    i,
                ),
            )
        d["vam"], d["dir"] = cell, 1
        state.event("vameter")

    def next_path(self, state, cell: int, direction: int) -> int:
        """The first Unexplored Path from cell in a direction, jumping Explored ones (and Cyclops); -1 if none."""
        explored, monsters = state.explored, state.monsters
        for j in _rays(state.game.board)[direction][cell]:
            if not explored[j] and j not in monsters:
                return j
        return -1

    def destination(self, state, n: int) -> tuple[int, int]:
        """Where n Unexplored Paths of movement take the Vameter: (cell, direction)."""
        d = state.data
        vam, direction = d["vam"], d["dir"]
        for _ in range(n):
            for _turn in range(4):
                j = self.next_path(state, vam, direction)
                if j >= 0:
                    vam = j
                    break
                direction = (direction + 1) % 4
            else:
                break  # pinned: it will not move again
        return vam, direction

    def move_vameter(self, state, n: int) -> None:
        """Move n Unexplored Paths, turning clockwise when none is left ahead (pinned if none anywhere)."""
        d = state.data
        d["vam"], d["dir"] = self.destination(state, n)
        around = set(self.king(state, d["vam"]))
        for tk, at in enumerate(d["crew"]):
            if at in around:
                d["crew"][tk] = DEAD
                state.event("crew killed")
        state.push(*[(Step.CHAPTER, VameterStep.FIRE, tk) for tk in range(len(CREW_RANGES))])

    def chance_pile(self, state, step) -> list[int]:
        return state.data["move_pile"]

    def apply_chance(self, state, step, card: int) -> None:
        d = state.data
        d["move_face"].append(card)
        self.move_vameter(state, MOVE_TOKENS[card])

    def describe_chance(self, state, step, card: int) -> str | None:
        return f"flip a Vameter Move token: {MOVE_TOKENS[card]}"

    def empty_pile(self, state, step) -> None:
        """Every Move token is face up: shuffle them face down again and flip one."""
        d = state.data
        d["move_pile"], d["move_face"] = d["move_face"], []
        state.agenda.append(step)

    # ----- shooting -----
    def shoot(self, state, target: int) -> None:
        d = state.data
        d["shots"] += 1
        if target == d["vam"]:
            if d["hearts"] > 0:
                d["hearts"] -= 1
                state.event(f"heart {HEARTS - d['hearts']}")
            g = state.game
            for k in [k for k in state.threats if g.threats[k].kind == ThreatKind.MISFORTUNE]:
                state.remove_threat(k, "discard")  # Hunting Grounds: removed by shooting the Vameter
        elif target in state.monsters:  # a Cyclops shot is killed: Chased is discarded too
            state.kill_monster(state.monsters[target])
            d["cyclops_out"] += 1
            state.event("cyclops shot")

    # ----- Cyclops -----
    def place_monster(self, state, card: int, when: ThreatDraw, cell: int) -> None:
        """By day on its Lair; at Night by its direction, ignoring Paths with Crew tokens."""
        if not state.game.threats[card].monster:
            return  # Hunting Grounds stays beside the board
        if when == ThreatDraw.DAY and cell >= 0 and cell not in state.monsters:
            # by day on its Lair, Crew or not: only Night placement "ignore[s] terrain that have Crew tokens"
            state.monsters[cell] = card
            return
        g = state.game
        crew = set(state.data["crew"])
        cands = [i for i in state.ex_list if i not in state.monsters and i not in crew]
        if not cands:
            return
        key = {
            "north": lambda i: (g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
            "south": lambda i: (-g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
            "west": lambda i: (g.col_of[i], PRIORITY.get(g.cells[i], 99), g.row_of[i]),
            "east": lambda i: (-g.col_of[i], PRIORITY.get(g.cells[i], 99), g.row_of[i]),
        }[g.threats[card].direction]
        state.monsters[min(cands, key=key)] = card

    def cyclops_dests(self, state, cell: int) -> list[int]:
        """The closest Unexplored Paths (king steps) free of another Cyclops, the Vameter and Crew."""
        g, d = state.game, state.data
        r, c = g.row_of[cell], g.col_of[cell]
        free = [
            i
            for i in range(g.board.size)
            if not state.explored[i] and i not in state.monsters and i != d["vam"] and i not in d["crew"]
        ]
        if not free:
            return []
        dist = {i: max(abs(g.row_of[i] - r), abs(g.col_of[i] - c)) for i in free}
        best = min(dist.values())
        return sorted(i for i in free if dist[i] == best)

    def on_resolved(self, state, card, passed: bool) -> None:
        """A Challenge card resolved: Hunting Grounds' extra Water is part of Passing it (before its Pass
        effects); the Consequence, when the Cyclops move, comes after the effects and Fatigue."""
        if passed and self.hunting(state):
            state.push((Step.CHAPTER, VameterStep.HUNTING_WATER))
        state.data["consequence"] = True

    def after_resolve_steps(self, state) -> list[tuple]:
        """'Each time you resolve a Consequence, move each Cyclops to the closest Unexplored Path': after a
        Challenge card's Pass or Fail effects and the Fatigue check ('Each Consequence will check if you are
        Fatigued'); not after Injured ('Consequences are only triggered after normal Challenge Cards')."""
        d = state.data
        if not d["consequence"]:
            return []
        d["consequence"] = False
        return [(Step.CHAPTER, VameterStep.CYCLOPS, state.monsters[c]) for c in sorted(state.monsters)]

    def move_cyclops(self, state, card: int, dest: int) -> None:
        cell = next((c for c, k in state.monsters.items() if k == card), -1)
        if cell < 0:
            return
        del state.monsters[cell]
        state.monsters[dest] = card
        state.explored[dest] = state.seen[dest] = 1  # its Path token is discarded: Explored, not activated
        state.n_explored += 1
        state.ex_list.append(dest)
        state.tokens_out += 1
        d = state.data
        if state.game.cells[dest] is T.FEZRON_CAMP and d["vam"] < 0 and "vameter" not in state.events:
            self.spawn(state)  # decision: a Fezron Camp revealed by a Cyclops is found too (no token gained)
        state.push(*state._completion_steps(dest))

    # ----- Misfortune -----
    def hunting(self, state) -> bool:
        g = state.game
        return any(g.threats[k].kind == ThreatKind.MISFORTUNE for k in state.threats)

    def may_pass(self, state, card) -> bool:
        if not self.hunting(state):
            return True
        stored = state.row[0][2] or () if state.row else ()
        return state.pack[WATER] + stored.count(WATER) >= card.requires[WATER] + 1

    # ----- card effects -----
    def run_effect(self, state, effect) -> bool:
        d = state.data
        v, n, t = effect.verb, effect.n, effect.target
        if t == "crew" and v == "lose":
            state.push(*[(Step.CHAPTER, VameterStep.LOSE_CREW)] * n)
        elif t == "fezron" and v == "gain":
            d["fezron"] = min(FEZRON_TOKENS, d["fezron"] + n)
        elif t == "range" and v == "gain":
            state.push((Step.CHAPTER, VameterStep.RANGE, n))
        elif t == "cyclops" and v == "remove":
            state.push(*[(Step.CHAPTER, VameterStep.CLAW)] * n)
        elif t == "heart" and v == "remove":
            for _ in range(n):
                if d["vam"] >= 0:
                    self.shoot(state, d["vam"])
        else:
            return False
        return True

    # ----- End of Day -----
    def night_steps(self, state) -> list[tuple]:
        d = state.data
        d["crew"] = [SUPPLY if at == PASS else at for at in d["crew"]]
        return [(Step.CHAPTER, VameterStep.RECALL)]

    def row_reward(self, state, row: int) -> list[tuple]:
        return [(Step.CHAPTER, VameterStep.ROW_PICK)]

    # ----- decisions -----
    def _row_dests(self, state, tk: int) -> list[int]:
        """Explored Paths up to 3 orthogonal steps over Explored Paths, free of Crew, Monsters and the Vameter."""
        g, d = state.game, state.data
        start = d["crew"][tk]
        seen = {start}
        frontier = [start]
        for _ in range(3):
            nxt = []
            for i in frontier:
                for j in g.orth[i]:
                    if j not in seen and state.explored[j]:
                        seen.add(j)
                        nxt.append(j)
            frontier = nxt
        busy = set(d["crew"]) | set(state.monsters) | {d["vam"]}
        return sorted(j for j in seen if j not in busy)

    def legal(self, state, step) -> list[int]:
        d = state.data
        kind = step[1]
        if kind == VameterStep.PLACE:
            if step[2] in state.monsters:  # not on a Path with a Cyclops
                return [A.SKIP]
            return [A.SKIP] + [PLACE + tk for tk, at in enumerate(d["crew"]) if at == SUPPLY]
        if kind == VameterStep.FIRE:
            return [TARGET + c for c in self.line_targets(state, step[2])]
        if kind == VameterStep.LOSE_CREW:
            return [LOSE_CREW + tk for tk, at in enumerate(d["crew"]) if at != DEAD]
        if kind == VameterStep.RECALL:
            return [A.SKIP] + [RECALL + tk for tk, at in enumerate(d["crew"]) if at >= 0]
        if kind == VameterStep.ROW_PICK:
            return [A.SKIP] + [
                ROW_PICK + tk for tk, at in enumerate(d["crew"]) if at >= 0 and self._row_dests(state, tk)
            ]
        if kind == VameterStep.ROW_DEST:
            return [DEST + c for c in self._row_dests(state, step[2])]
        if kind == VameterStep.IRENE:
            return [DEST + c for c in self._irene_dests(state, step[2])]
        if kind == VameterStep.CYCLOPS:
            cell = next((c for c, k in state.monsters.items() if k == step[2]), -1)
            return [DEST + c for c in self.cyclops_dests(state, cell)] if cell >= 0 else []
        if kind == VameterStep.SACRIFICE:
            return [TARGET + c for c in self.line_targets(state, step[2])]
        if kind == VameterStep.DOWSE:
            return [DOWSE_TAKE + r for r in self.dowse_choices(state, step[2])]
        if kind == VameterStep.RANGE:
            return [RANGE_TO + tk for tk, at in enumerate(d["crew"]) if at != DEAD]
        if kind == VameterStep.CLAW:
            return [CLAW + c for c in sorted(state.monsters)]
        if kind in AUTOMATIC:
            return [A.SKIP]
        raise ValueError(f"vameter has no decision step {step}")

    def is_decision(self, state, step) -> bool:
        """Every decision step is a choice only when it has more than one answer; the automatic ones never are."""
        if step[1] in AUTOMATIC:
            return False
        return len(self.legal(state, step)) > 1

    def run_step(self, state, step) -> None:
        """A step with one choice or none: take it."""
        kind = step[1]
        if kind == VameterStep.HUNTING_WATER:
            state.lose_water(1)
            return
        if kind == VameterStep.TO_PASS:  # a sacrificed shot: the Crew token waits on the End of Day's Pass space
            if state.data["crew"][step[2]] >= 0:
                state.data["crew"][step[2]] = PASS
            return
        la = self.legal(state, step)
        if len(la) == 1 and la[0] != A.SKIP:
            self._do(state, step, la[0])

    def apply(self, state, step, a: int) -> None:
        state.agenda.pop()
        self._do(state, step, a)

    def _do(self, state, step, a: int) -> None:
        d = state.data
        kind = step[1]
        if a == A.SKIP:
            return
        if kind == VameterStep.PLACE:
            d["crew"][a - PLACE] = step[2]
        elif kind in (VameterStep.FIRE, VameterStep.SACRIFICE):
            self.shoot(state, a - TARGET)
        elif kind == VameterStep.LOSE_CREW:
            d["crew"][a - LOSE_CREW] = DEAD
        elif kind == VameterStep.RECALL:
            d["crew"][a - RECALL] = SUPPLY
            state.push((Step.CHAPTER, VameterStep.RECALL))
        elif kind == VameterStep.ROW_PICK:
            state.push((Step.CHAPTER, VameterStep.ROW_DEST, a - ROW_PICK))
        elif kind == VameterStep.ROW_DEST:
            d["crew"][step[2]] = a - DEST
        elif kind == VameterStep.IRENE:
            cell = step[2]
            card = state.monsters.pop(cell)
            state.monsters[a - DEST] = card
        elif kind == VameterStep.CYCLOPS:
            self.move_cyclops(state, step[2], a - DEST)
        elif kind == VameterStep.DOWSE:
            state.gain(a - DOWSE_TAKE)
        elif kind == VameterStep.RANGE:
            d["range"][a - RANGE_TO] += step[2]
        elif kind == VameterStep.CLAW:
            state.kill_monster(state.monsters[a - CLAW])  # Monster Claws kills it: Chased is discarded too
            d["cyclops_out"] += 1

    def _irene_dests(self, state, cell: int) -> list[int]:
        d = state.data
        return sorted(
            j for j in self.king(state, cell) if j not in state.monsters and j != d["vam"] and j not in d["crew"]
        )

    # ----- the chapter's actions -----
    def actions(self) -> list[ActionKind]:
        crew = self._describe_crew
        return [
            *super().actions(),
            ActionKind(PLACE, LOSE_CREW, crew(PLACE, "place Crew {} here")),
            ActionKind(LOSE_CREW, RECALL, crew(LOSE_CREW, "Crew {} dies")),
            ActionKind(RECALL, ROW_PICK, crew(RECALL, "take Crew {} back to the supply")),
            ActionKind(ROW_PICK, SACRIFICE, crew(ROW_PICK, "row reward: move Crew {}")),
            ActionKind(
                SACRIFICE,
                IRENE,
                crew(SACRIFICE, "sacrifice a Fezron: Crew {} fires"),
                self._legal_sacrifice,
                self._sacrifice,
            ),
            ActionKind(IRENE, PIPE_HAWKS, self._describe_irene, self._legal_irene, self._irene, ("Irene",)),
            ActionKind(
                PIPE_HAWKS,
                PIPE_HAWKS + 1,
                words("Pipe Hawks: explore again, its Path token discarded"),
                self._legal_pipe_hawks,
                self._pipe_hawks,
                ("Pipe Hawks",),
            ),
            ActionKind(
                DOWSE,
                DOWSE_TAKE,
                lambda a, state: f"Dowsing Rod: guess {TERRAINS[a - DOWSE].label}",
                self._legal_dowse,
                self._dowse,
                ("Dowsing Rod",),
            ),
            ActionKind(DOWSE_TAKE, TARGET, lambda a, state: f"Dowsing Rod: take {RESOURCE_CODES[a - DOWSE_TAKE]}"),
            ActionKind(TARGET, DEST, self._describe_target),
            ActionKind(DEST, RANGE_TO, lambda a, state: f"move to {state.game.board.name(a - DEST)}"),
            ActionKind(RANGE_TO, CLAW, crew(RANGE_TO, "Scope: Crew {} shoots further")),
            ActionKind(
                CLAW,
                CLAW + 64,
                lambda a, state: f"Monster Claws: kill the Cyclops on {state.game.board.name(a - CLAW)}",
            ),
        ]

    def _legal_sacrifice(self, state, out: list[int]) -> None:
        if state.data["fezron"] > 0:
            out.extend(SACRIFICE + tk for tk in range(len(CREW_RANGES)) if self.line_targets(state, tk))

    def _sacrifice(self, state, action: int) -> None:
        d = state.data
        tk = action - SACRIFICE
        d["fezron"] -= 1
        d["fezron_used"] += 1
        state.push((Step.CHAPTER, VameterStep.SACRIFICE, tk), (Step.CHAPTER, VameterStep.TO_PASS, tk))

    def _legal_irene(self, state, out: list[int]) -> None:
        if state.game.characters[state.current] == "Irene" and "Irene" not in state.exhausted:
            out.extend(IRENE + s for s, c in enumerate(sorted(state.monsters)) if self._irene_dests(state, c))

    def _irene(self, state, action: int) -> None:
        state.exhausted.add("Irene")
        cell = sorted(state.monsters)[action - IRENE]
        state.push((Step.CHAPTER, VameterStep.IRENE, cell))

    def _legal_pipe_hawks(self, state, out: list[int]) -> None:
        if "Pipe Hawks" in state.gear[state.current] and not state.data["hawks"] and state.frontier():
            out.append(PIPE_HAWKS)

    def _pipe_hawks(self, state, action: int) -> None:
        """'On your turn, you may remove this Gear from the game to take 1 extra Explore action': at any time
        of the turn. Taken before the turn's own explore, that explore is still to come after this one."""
        state.gear[state.current].remove("Pipe Hawks")
        d = state.data
        d["hawks"] = True
        d["hawks_first"] = not state.explored_now
        if state.explored_now:
            state.explored_now = False
            state.guesses.clear()

    def _legal_dowse(self, state, out: list[int]) -> None:
        if (
            "Dowsing Rod" in state.gear[state.current]
            and "Dowsing Rod" not in state.exhausted
            and not state.explored_now
        ):
            out.extend(DOWSE + t.index for t in self.terrains)

    def _dowse(self, state, action: int) -> None:
        state.exhausted.add("Dowsing Rod")
        state.data["dowse"] = action - DOWSE

    @staticmethod
    def _describe_crew(lo: int, text: str):
        """Words for a kind whose actions are ``lo`` + a Crew token (named by its range)."""
        return lambda action, state: text.format(CREW_RANGES[action - lo])

    def _describe_irene(self, action: int, state) -> str:
        return f"Irene: move the Monster on {state.game.board.name(sorted(state.monsters)[action - IRENE])}"

    def _describe_target(self, action: int, state) -> str:
        c = action - TARGET
        return f"shoot the {'Vameter' if c == state.data['vam'] else 'Cyclops'} on {state.game.board.name(c)}"

    # ----- the end -----
    def surrounded(self, state) -> bool:
        vam = state.data["vam"]
        return vam >= 0 and all(state.explored[j] for j in self.king(state, vam))

    def check_victory(self, state) -> bool:
        return state.data["hearts"] == 0 and self.surrounded(state)

    def win_needs(self, state) -> dict:
        """The Vameter is beaten with no Heart left and every Path around it explored."""
        return {"hearts_left": state.data["hearts"], "vameter_in_play": state.data["vam"] >= 0}

    def score_bonus(self, state) -> int:
        bonus = 5 * state.data["fezron"]
        if any("Pipe Hawks" in gs for gs in state.gear):
            bonus += 3
        return bonus

    # ----- words -----
    def describe_state(self, state) -> list[str]:
        d = state.data
        b = state.game.board

        def where(at):
            return {SUPPLY: "supply", PASS: "Pass", DEAD: "dead"}.get(at) or b.name(at)

        vam = (
            f"Vameter on {b.name(d['vam'])} facing {DIR_NAMES[d['dir']]}, {d['hearts']} Heart(s)"
            + (" (Vulnerable)" if d["hearts"] == 0 else "")
            if d["vam"] >= 0
            else "Vameter not yet in play"
        )
        crew = ", ".join(f"{n} (range {r}) {where(at)}" for n, r, at in zip(CREW_RANGES, d["range"], d["crew"]))
        lines = [vam, f"Crew: {crew}; Fezron {d['fezron']}"]
        if state.monsters:
            lines.append("Cyclops on " + ", ".join(b.name(c) for c in sorted(state.monsters)))
        return lines


__all__ = ["CREW_RANGES", "HEARTS", "MOVE_TOKENS", "Vameter"]
