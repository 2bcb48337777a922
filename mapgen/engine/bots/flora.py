"""Flora's bot policy: follow the Trail, keep a Fire for the Flora, fetch the Greek Fire, then the fight."""

from __future__ import annotations

from typing import ClassVar

from mapgen.engine import actions as A
from mapgen.engine.bots.policy import ChapterPolicy
from mapgen.engine.cards import FOSSIL, MUD, SKULL, WATER, WOOD
from mapgen.engine.flora import BONIFACE_KEEP, BONIFACE_WATER, BURN, COVER, KILL_RING, SPARE, UNCOVER, Flora, FloraStep
from mapgen.engine.rules import TERRAIN

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)


class FloraPolicy(ChapterPolicy):
    """The heuristic's Flora: follow the Trail, keep a Fire for the Flora, fetch the Greek Fire, then the fight."""

    #: the heuristic's terrain frequencies per cell on this chapter's maps (its prior before deduction)
    priors: ClassVar[dict] = {
        T.WATER: 7,
        T.WOOD: 7,
        T.ROCK: 6,
        T.SKULL: 5,
        T.TIPI: 4.5,
        T.HILL: 4,
        T.FOOD: 4,
        T.FLORA_CREATURE: 3.5,
        T.MUD: 3,
        T.PETRIFIED_FOREST: 2.5,
        T.FIELD: 2,
        T.SACAGAWEA: 1,
        T.FORT: 0.02,
    }

    def _chapter(self, obs) -> Flora:
        return obs.game.chapter

    def needs(self, bot, obs, need) -> None:
        ch, d = self._chapter(obs), obs.data
        if d["fight"]:
            items = ch.back_items(obs)
            for k, x in enumerate(items):
                if k not in d["covered"] and isinstance(x, int):
                    need[x] += 1
                elif k not in d["covered"] and x == "fire" and obs.fires < 1:
                    need[WOOD] += 2
                elif k not in d["covered"] and x == "shelter" and obs.shelter < 0:
                    need[WOOD] += 1
                    need[MUD] += 1
                    need[SKULL] += 0.5
        else:
            if obs.fires == 0:
                need[WOOD] += 1  # a Fire for the next Flora creature
            # the backs already shown: start gathering for the fight (the Crew will cover some)
            shown = [x for k in d["trail"][: ch.flipped(obs)] for x in ch.search[k].back]
            for x in shown:
                if isinstance(x, int):
                    need[x] += 0.5

    def terrain_value(self, bot, obs, need, t) -> float:
        ch, d = self._chapter(obs), obs.data
        v = 0.0
        nxt = ch.next_icon(obs)
        if t is T.PETRIFIED_FOREST:
            v += bot.unit_value(obs, need, FOSSIL)
        if t is T.FLORA_CREATURE:
            if obs.fires == 0:
                v -= 3.0 if d["crew"] > 0 else 20.0
            elif nxt is t:
                v += 3.0
            else:
                v -= 0.5
        elif nxt is not None and t is nxt:
            v += 3.0
        if t is T.SACAGAWEA and obs.monsters:
            v += 1.0
        if t is T.FIELD and d["fight"] and "shelter" in ch.missing(obs) and obs.field_for_shelter() < 0:
            v += 2.0  # the fight asks for a Shelter and no Field is found yet
        return v

    def cell_value(self, bot, obs, need, cell: int) -> float:
        d, g = obs.data, obs.game
        v = 0.0  # the Flora Reference Board's L1 and L2 are in the heuristic's weights (the chapter's rules)
        nxt = self._chapter(obs).next_icon(obs)
        if nxt is not None and nxt is not T.FLORA_CREATURE:
            row = g.board.rows[g.row_of[cell]]
            if sum(1 for i in row if not obs.explored[i]) == 1:
                v += 2.5  # the row reward moves S on as if the next Terrain were found
        gf = g.briefing.greek_fire
        if d["greek_fire"] or gf is None:
            return v
        if cell == gf:
            return v + (4.0 if d["pos"] >= len(self._chapter(obs).icons(obs)) - 2 else 1.5)
        # a pull towards the Greek Fire, stronger as the Trail nears its end
        dist = abs(g.row_of[cell] - g.row_of[gf]) + abs(g.col_of[cell] - g.col_of[gf])
        return v + 0.6 / (1 + dist)

    def step(self, bot, obs, legal, need) -> int:
        kind = obs.step[1]
        ch, d = self._chapter(obs), obs.data
        if kind == FloraStep.FLORA:
            if BURN not in legal:
                return SPARE
            fire_today = any(c is not None and c.fire for c in map(obs.challenge, range(len(obs.row))))
            if ch.next_icon(obs) is T.FLORA_CREATURE or d["crew"] <= 1 or not (fire_today and obs.fires == 1):
                return BURN
            return SPARE
        if kind == FloraStep.COVER:  # cover what the team lacks most
            items = ch.back_items(obs)

            def lack(a):  # the hardest to get first: a Shelter, a Fire, a Fossil, then what is not held
                x = items[a - COVER]
                if isinstance(x, int):
                    return (obs.pack[x] > 0, -(1.5 if x == FOSSIL else 1.0), a)
                held = obs.fires >= 1 if x == "fire" else obs.shelter >= 0
                return (held, -3.0 if x == "shelter" else -2.0, a)

            return min(legal, key=lack)
        if kind == FloraStep.UNCOVER:  # uncover what the team holds already
            items = ch.back_items(obs)

            def held(a):
                x = items[a - UNCOVER]
                if isinstance(x, int):
                    return (-obs.pack[x], a)
                return (-(obs.fires if x == "fire" else obs.shelter + 1), a)

            return min(legal, key=held)
        if kind == FloraStep.BONIFACE:
            r = obs.step[2]
            keep = bot.unit_value(obs, need, r, obs.pack[r] - 1)
            return BONIFACE_WATER if bot.unit_value(obs, need, WATER) > keep else BONIFACE_KEEP
        return legal[0]

    def main(self, bot, obs, legal, need) -> int | None:
        # a Fire ready for the next Flora creature (two when the Trail asks for one)
        d = obs.data
        ch = self._chapter(obs)
        want = 2 if ch.next_icon(obs) is T.FLORA_CREATURE else 1
        missing = ch.missing(obs) if d["fight"] else []
        if (obs.fires < want and not d["fight"]) or "fire" in missing:
            for k in (2, 3, 0, 1):  # Flint first
                if A.FIRE + k in legal:
                    return A.FIRE + k
        if "shelter" in missing:
            for k in range(3):
                if A.SHELTER + k in legal:
                    return A.SHELTER + k
        rings = [a for a in legal if KILL_RING <= a < COVER]
        if rings and obs.fires >= 2 and not obs.explored_now:
            frontier = obs.frontier()
            if len(frontier) <= 2:  # a red-circled Path is walling the expedition in
                return rings[0]
        return None
