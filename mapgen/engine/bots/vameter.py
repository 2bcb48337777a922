"""The Vameter's bot policy: Fezron first, Crew in line with the Vameter, shoot it, then surround it."""

from __future__ import annotations

from typing import ClassVar

from mapgen.engine import actions as A
from mapgen.engine.bots.policy import ChapterPolicy
from mapgen.engine.cards import MUSHROOM, WATER
from mapgen.engine.rules import TERRAIN
from mapgen.engine.vameter import (
    DEAD,
    DEST,
    DOWSE,
    DOWSE_TAKE,
    FEZRON_TOKENS,
    IRENE,
    LOSE_CREW,
    MOVE_TOKENS,
    PIPE_HAWKS,
    PLACE,
    RANGE_TO,
    RECALL,
    ROW_PICK,
    SACRIFICE,
    SUPPLY,
    TARGET,
    Vameter,
    VameterStep,
)

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)
IRENE_GAIN = 0.5  # the bots use Irene when the best explore gains this much value
IRENE_NO_EXPLORE = -10.0  # the bots' value of a turn with no Path they can explore


class VameterPolicy(ChapterPolicy):
    """The heuristic's Vameter: Fezron first, Crew in line with the Vameter, shoot it, then surround it."""

    #: the heuristic's terrain frequencies per cell on this chapter's maps (its prior before deduction)
    priors: ClassVar[dict] = {
        T.WATER: 7,
        T.WOOD: 7,
        T.ROCK: 8,
        T.HILL: 6,
        T.SKULL: 4,
        T.TIPI: 4,
        T.FOOD: 3.5,
        T.FEZRON_CAMP: 3,
        T.MUD: 3,
        T.MUSHROOM_FIELD: 2.5,
    }

    def _v(self, obs) -> Vameter:
        return obs.game.chapter

    def needs(self, bot, obs, need) -> None:
        if self._v(obs).hunting(obs):
            need[WATER] += 1

    def terrain_value(self, bot, obs, need, t) -> float:
        d = obs.data
        if t is T.FEZRON_CAMP:
            return 3.0 if d["fezron"] < FEZRON_TOKENS else 0.5  # spent ones are back in the Reserve
        if t is T.MUSHROOM_FIELD:
            v = bot.unit_value(obs, need, MUSHROOM)
            if obs.shelter < 0 and bot._wants_shelter(obs):
                v += 1.5
            return v
        if t is T.WATER and d["vam"] >= 0 and d["hearts"] > 0:
            # the Vameter moves: worth what the Crew on the map are expected to hit where it stops
            stops = self.stops(obs)
            ch = self._v(obs)
            v = -0.3
            for tk, at in enumerate(d["crew"]):
                if at >= 0:
                    v += 2.5 * self.shots_from(obs, at, d["range"][tk], stops)
                    v -= 1.0 * sum(at in ch.king(obs, s) for s in stops) / max(1, len(stops))
            return v
        return 0.0

    def cell_value(self, bot, obs, need, cell: int) -> float:
        d, g = obs.data, obs.game
        vam = d["vam"]
        if vam < 0:
            return 0.0
        if d["hearts"] == 0:
            if cell in self._v(obs).king(obs, vam):
                return 5.0
            return 0.0
        v = 0.0
        if SUPPLY in d["crew"] and cell not in self._v(obs).king(obs, vam):
            best = max(d["range"][tk] for tk, at in enumerate(d["crew"]) if at == SUPPLY)
            # a Path from which a Crew token placed now would hit the Vameter where it stops next
            v += 2.0 * self.shots_from(obs, cell, best, self.stops(obs))
            if (
                g.row_of[cell] == g.row_of[vam]
                and abs(g.col_of[cell] - g.col_of[vam]) <= best
                or g.col_of[cell] == g.col_of[vam]
                and abs(g.row_of[cell] - g.row_of[vam]) <= best
            ):
                v += 0.4
        return v

    def stops(self, obs) -> list[int]:
        """Where the Vameter may stop after its next move: one cell per Move token still face down (public)."""
        d = obs.data
        if d["vam"] < 0:
            return []
        pile = d["move_pile"] or d["move_face"]
        ch = self._v(obs)
        return [ch.destination(obs, MOVE_TOKENS[k])[0] for k in pile]

    def shots_from(self, obs, cell: int, rng: int, stops: list[int]) -> float:
        """Share of the next stops at which a Crew token on cell would fire at the Vameter (and not be killed)."""
        if not stops:
            return 0.0
        g = obs.game
        ch = self._v(obs)
        hits = 0
        for v in stops:
            if cell in ch.king(obs, v):
                continue
            same_row = g.row_of[v] == g.row_of[cell] and abs(g.col_of[v] - g.col_of[cell]) <= rng
            same_col = g.col_of[v] == g.col_of[cell] and abs(g.row_of[v] - g.row_of[cell]) <= rng
            if same_row or same_col:
                hits += 1
        return hits / len(stops)

    def _in_line(self, obs, cell: int, rng: int) -> bool:
        g, d = obs.game, obs.data
        targets = [d["vam"]] if d["vam"] >= 0 and d["hearts"] > 0 else []
        targets += list(obs.monsters)
        for t in targets:
            same_row = g.row_of[t] == g.row_of[cell] and abs(g.col_of[t] - g.col_of[cell]) <= rng
            same_col = g.col_of[t] == g.col_of[cell] and abs(g.row_of[t] - g.row_of[cell]) <= rng
            if (same_row or same_col) and t != cell:
                return True
        return False

    def step(self, bot, obs, legal, need) -> int:
        step = obs.step
        kind = step[1]
        d = obs.data
        ch = self._v(obs)
        if kind == VameterStep.PLACE:
            cell = step[2]
            near = d["vam"] >= 0 and cell in ch.king(obs, d["vam"])
            picks = [a for a in legal if a != A.SKIP]
            picks.sort(key=lambda a: -d["range"][a - PLACE])
            if near or not picks:
                return A.SKIP
            stops = self.stops(obs)
            if stops:  # the Crew token most likely to hit the Vameter where it stops next
                best = max(picks, key=lambda a: self.shots_from(obs, cell, d["range"][a - PLACE], stops))
                if self.shots_from(obs, cell, d["range"][best - PLACE], stops) >= 0.25:
                    return best
            for a in picks:
                if self._in_line(obs, cell, d["range"][a - PLACE]):
                    return a
            # decision (bot): a Crew token anywhere may find the Vameter in its lines later; keep one back
            if d["vam"] >= 0 and len(picks) >= 2:
                return picks[-1]
            return A.SKIP
        if kind in (VameterStep.FIRE, VameterStep.SACRIFICE):
            vam = [a for a in legal if a - TARGET == d["vam"]]
            return vam[0] if vam and d["hearts"] > 0 else legal[-1 if not vam else 0]
        if kind == VameterStep.LOSE_CREW:  # the one least useful: in the supply, shortest range
            return min(legal, key=lambda a: (d["crew"][a - LOSE_CREW] >= 0, d["range"][a - LOSE_CREW]))
        if kind == VameterStep.RECALL:
            for a in legal:
                tk = a - RECALL if a != A.SKIP else -1
                if tk >= 0 and not self._in_line(obs, d["crew"][tk], d["range"][tk]):
                    return a
            return A.SKIP
        if kind == VameterStep.ROW_PICK:
            for a in legal:
                if a == A.SKIP:
                    continue
                tk = a - ROW_PICK
                if self._in_line(obs, d["crew"][tk], d["range"][tk]):
                    continue
                if any(self._in_line(obs, c, d["range"][tk]) for c in ch._row_dests(obs, tk)):
                    return a
            return A.SKIP
        if kind == VameterStep.ROW_DEST:
            tk = step[2]
            good = [a for a in legal if self._in_line(obs, a - DEST, d["range"][tk])]
            if d["vam"] >= 0:
                good = [a for a in good if a - DEST not in ch.king(obs, d["vam"])] or good
            return (good or legal)[0]
        if kind == VameterStep.DOWSE:
            return max(legal, key=lambda a: bot.unit_value(obs, need, a - DOWSE_TAKE))
        if kind == VameterStep.RANGE:
            return max(legal, key=lambda a: (d["crew"][a - RANGE_TO] >= 0, d["range"][a - RANGE_TO]))
        if kind == VameterStep.IRENE:  # the adjacent Path that leaves the best Path to explore
            values = bot.value_vector(obs, need, False)
            return max(legal, key=lambda a: self._moved_outlook(bot, obs, need, values, step[2], a - DEST))
        return legal[0]

    # ----- Irene: move a Monster out of the way of this turn's explore -----
    def _outlook(self, bot, obs, need, values) -> float:
        """The bot's value of the best Path it can explore now (Cyclops' tolls and blocks included)."""
        banned = obs.banned
        frontier = [c for c in obs.frontier() if c != banned]
        carried = obs.carried() + obs.pack[WATER]
        cells = [c for c, tax in zip(frontier, obs.monster_taxes(frontier)) if tax <= carried]
        if not cells:
            return IRENE_NO_EXPLORE
        return max(bot._cell_values(obs, need, cells, values))

    def _moved_outlook(self, bot, obs, need, values, cell: int, dest: int) -> float:
        """``_outlook`` with the Monster on cell moved to dest (the Monsters are put back as they were)."""
        mon = obs.monsters
        saved = dict(mon)
        mon[dest] = mon.pop(cell)
        try:
            return self._outlook(bot, obs, need, values)
        finally:
            mon.clear()
            mon.update(saved)

    def _irene(self, bot, obs, legal, need) -> int | None:
        """Irene's move when it makes this turn's best explore worth clearly more: a Cyclops' toll
        (1 Resource or Water per Cyclops around the Path) avoided, or a Path it blocks opened (the
        Vulnerable Vameter's last Paths too); else keep her for a later turn (she refreshes at Night)."""
        moves = [a for a in legal if IRENE <= a < PIPE_HAWKS]
        if not moves or obs.explored_now:
            return None
        values = bot.value_vector(obs, need, False)
        now = self._outlook(bot, obs, need, values)
        ch = self._v(obs)
        cells = sorted(obs.monsters)
        best, best_v = None, now + IRENE_GAIN
        for a in moves:
            cell = cells[a - IRENE]
            for dest in ch._irene_dests(obs, cell):
                v = self._moved_outlook(bot, obs, need, values, cell, dest)
                if v > best_v:
                    best, best_v = a, v
        return best

    def main(self, bot, obs, legal, need) -> int | None:
        d = obs.data
        g = obs.game
        sac = [a for a in legal if SACRIFICE <= a < IRENE]
        if sac:
            at_vam = [a for a in sac if d["vam"] in self._v(obs).line_targets(obs, a - SACRIFICE)]
            if at_vam and d["hearts"] > 0:
                return at_vam[0]
        for a in legal:
            if A.USE_DESTINY <= a < A.KILL:
                card = g.destiny[obs.de_held[a - A.USE_DESTINY]]
                for e in card.effects:
                    if e.target == "fezron" or (e.target == "range" and any(x != DEAD for x in d["crew"])):
                        return a
                    if e.target == "heart" and d["vam"] >= 0 and d["hearts"] > 0:
                        return a
                    if e.target == "cyclops" and obs.monsters:
                        return a
        a = self._irene(bot, obs, legal, need)
        if a is not None:
            return a
        if not obs.explored_now:
            rods = [a for a in legal if DOWSE <= a < DOWSE_TAKE]
            explores = [a for a in legal if a < A.DISCARD]
            if rods and explores:
                cell = bot.best_cell(obs, explores, need)
                w = bot._weights(obs, cell)
                p = max(w)
                if p >= 0.5 and DOWSE + w.index(p) in legal:
                    return DOWSE + w.index(p)
        return None
