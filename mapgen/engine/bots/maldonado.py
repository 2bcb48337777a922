"""Maldonado's co-operative bot policy: Tipis and kills, complete rows, feed the weakest Crew Member."""

from __future__ import annotations

from bisect import bisect_left
from typing import ClassVar

from mapgen.engine import actions as A
from mapgen.engine.bots.policy import ChapterPolicy
from mapgen.engine.cards import NRES, WATER
from mapgen.engine.maldonado import (
    COMMAND,
    COMMAND_BASE,
    KILL_M,
    PAIR,
    PLAY,
    TARGET_CREW,
    TRAITOR_CARD,
    TRAITOR_PLAY,
    Maldonado,
    MaldonadoStep,
)
from mapgen.engine.rules import TERRAIN

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)


class _CardValues(dict):
    """One Crew Member's ``card_value`` by card code; a code not listed is asked of the chapter."""

    def __init__(self, ch: Maldonado, crew: int, codes: list[int]):
        super().__init__((code, ch.card_value(code, crew)) for code in codes)
        self.ch, self.crew = ch, crew

    def __missing__(self, code: int) -> int:
        return self.ch.card_value(code, self.crew)


def card_values(ch: Maldonado) -> list[_CardValues]:
    """Per Crew Member, ``ch.card_value(code, crew)`` of every card code (Influence, Command, the Traitor
    card): the chapter's decks are fixed, so the table is made once per chapter and kept on it."""
    table = ch.__dict__.get("_card_values")
    if table is None:
        codes = [*range(len(ch.influence)), *(COMMAND_BASE + k for k in range(len(ch.commands))), TRAITOR_CARD]
        table = ch.__dict__["_card_values"] = [_CardValues(ch, crew, codes) for crew in range(len(ch.crew))]
    return table


class CoopPolicy(ChapterPolicy):
    """The heuristic's co-operative Maldonado: Tipis and kills, complete rows, feed the weakest Crew Member."""

    #: the heuristic's terrain frequencies per cell on this chapter's maps (its prior before deduction)
    priors: ClassVar[dict] = {
        T.WATER: 7,
        T.WOOD: 7,
        T.HILL: 6,
        T.FOOD: 5,
        T.ROCK: 4,
        T.SKULL: 4,
        T.TIPI: 4,
        T.FIELD: 3.5,
        T.MUD: 3,
        T.MALDONADO: 3.5,
    }

    def _m(self, obs) -> Maldonado:
        return obs.game.chapter

    def visible_value(self, obs, crew: int) -> float:
        """A Crew Member's total as far as the acting player can tell (face-down cards estimated)."""
        ch, d = self._m(obs), obs.data
        values = card_values(ch)[crew]
        v = 0.0
        for code, up, who in d["piles"][crew]:
            if up or (who == obs.current and code < COMMAND_BASE):
                v += values[code]  # ch.card_value(code, crew)
            elif who == -1:
                v += -1.2  # a setup card: likely a mismatch, maybe the Traitor card
            elif code >= COMMAND_BASE:
                v += -0.6
            else:
                v += self.face_down_guess(obs, who)
        return v

    def face_down_guess(self, obs, who: int) -> float:
        return 2.5  # a Loyalist's face-down card is a matching +2 or +3

    def needs(self, bot, obs, need) -> None:
        d = obs.data
        if d["kill_face"] and obs.monsters:
            k = d["kill_face"][0]
            req = obs.game.kills[k].requires
            shown = sorted((r for r in range(NRES) if req[r]), key=lambda r: obs.pack[r], reverse=True)
            for r in shown[:2]:
                need[r] += 1

    def needs_key(self, obs) -> tuple | None:
        """``needs`` reads whether a Monster is out and, with one and a Kill card face up, the backpack."""
        if not obs.monsters:
            return (False,)
        return (True, tuple(obs.pack) if obs.data["kill_face"] else None)

    def terrain_value(self, bot, obs, need, t) -> float:
        d = obs.data
        if t is T.MALDONADO:
            return 0.6  # a Resource of choice (so a card to play), though Maldonado's Power grows
        if t is T.SKULL:
            return -1.0
        if t is T.TIPI:
            missing = 3 - d["kills"] - len(d["kill_face"])
            return 2.5 if missing > 0 and d["kill_pile"] else 0.0
        return 0.0

    def cell_value(self, bot, obs, need, cell: int) -> float:
        if obs.explored[bot._geo(obs.game).row_slice[cell]].count(0) == 1:  # (its row: a slice of the bytes)
            return 2.0  # the row reward lowers Maldonado's Power
        return 0.0

    def choose_target(self, obs, legal) -> int:
        ch, d = self._m(obs), obs.data
        hand = d["hands"][obs.current]

        def key(a):
            c = a - TARGET_CREW
            r = ch.crew[c].resource
            has = any(ch.influence[x].resource == r for x in hand)
            return (not has, self.visible_value(obs, c) - obs.data["power"], c)

        return min(legal, key=key)

    def choose_play(self, obs, legal, crew: int) -> int:
        ch, d = self._m(obs), obs.data
        hand = d["hands"][obs.current]
        best, best_v = None, -99
        for a in legal:
            if a >= TRAITOR_PLAY:
                continue
            s, _face = divmod(a - PLAY, 2)
            v = ch.card_value(hand[s], crew)
            if v > best_v:
                best, best_v = a, v
        if best is not None and best_v > 0:
            return best
        if COMMAND in legal:
            return COMMAND
        return best if best is not None else legal[0]

    def step(self, bot, obs, legal, need) -> int:
        kind = obs.step[1]
        if kind == MaldonadoStep.TARGET:
            return self.choose_target(obs, legal)
        if kind == MaldonadoStep.PLAY:
            return self.choose_play(obs, legal, obs.step[2])
        if kind == MaldonadoStep.PAIR:
            return min(
                legal,
                key=lambda a: sum(bot.keep_value(obs, need, r) for r in divmod(a - PAIR, 10)),
            )
        if kind == MaldonadoStep.ACCUSE:
            return self.accuse(bot, obs, legal)
        return legal[0]

    def accuse(self, bot, obs, legal) -> int:
        return legal[0]

    def ready_to_end(self, obs) -> bool:
        """Kill a Monster now? The third kill ends the game: wait until the Crew look saved, or time runs out."""
        d = obs.data
        if d["kills"] < 2:
            return True
        ch = self._m(obs)
        if obs.challenges_left <= 3 or obs.pack[WATER] <= 2 or len(obs.frontier()) <= 3:
            return True
        return all(self.visible_value(obs, c) >= d["power"] for c in range(len(ch.crew)))

    def main(self, bot, obs, legal, need) -> int | None:
        g, d = obs.game, obs.data
        k = bisect_left(legal, KILL_M)  # the legal actions are sorted: the first Kill, if any
        if k < len(legal) and legal[k] < PAIR and self.ready_to_end(obs):
            return legal[k]
        for a in legal[bisect_left(legal, A.USE_DESTINY) : bisect_left(legal, A.KILL)]:  # the Destiny cards to use
            card = g.destiny[obs.de_held[a - A.USE_DESTINY]]
            if any(e.target == "power" and e.verb == "lose" for e in card.effects) and d["power"] > 0:
                return a
        return None
