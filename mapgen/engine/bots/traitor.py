"""Maldonado's Hidden Traitor bot policy: both roles, on what the acting player may know (its observation)."""

from __future__ import annotations

from mapgen.engine.bots.maldonado import CoopPolicy
from mapgen.engine.maldonado import (
    ABSTAIN,
    ACCUSE,
    COMMAND,
    COMMAND_BASE,
    KEEP,
    PLAY,
    TARGET_CREW,
    TRAITOR_PLAY,
    MaldonadoStep,
)
from mapgen.engine.traitor import TRAITOR


class TraitorPolicy(CoopPolicy):
    """Both roles of the Hidden Traitor mode, on what the acting player may know."""

    def _me_traitor(self, obs) -> bool:
        return obs.data["identity"][obs.current] == TRAITOR

    def suspicion(self, obs, q: int) -> float:
        """Evidence against player q known to the acting player.

        Public play: face-down Influence plays (a Loyalist plays only matching +2 / +3 cards face
        down), face-up plays and completed rows (what Loyalists do). Card counting: each Resource has
        only so many +2 / +3 cards; face-down plays on a Crew Member beyond those the acting player
        cannot account for (held or played by themselves) are lies, shared among those who made them.
        """
        d = obs.data
        ch = self._m(obs)
        me = obs.current
        score = self.public_suspicion(obs, q)
        high: dict[int, int] = {}  # resource -> Influence cards of +2 or +3 for it
        for card in ch.influence:
            if card.match >= 2:
                high[card.resource] = high.get(card.resource, 0) + 1
        mine: dict[int, int] = {}
        for card in d["hands"][me]:
            c = ch.influence[card]
            if c.match >= 2:
                mine[c.resource] = mine.get(c.resource, 0) + 1
        for crew, pile in enumerate(d["piles"]):
            r = ch.crew[crew].resource
            for code, up_, who in pile:
                if (
                    who == me
                    and code < COMMAND_BASE
                    and ch.influence[code].match >= 2
                    and ch.influence[code].resource == r
                ):
                    mine[r] = mine.get(r, 0) + 1
        for crew, m in enumerate(ch.crew):
            downs = [p for p, c, how in d["log"] if c == crew and how == "down" and p != me]
            excess = len(downs) - (high.get(m.resource, 0) - mine.get(m.resource, 0))
            if excess > 0 and q in downs:
                score += 3.0 * excess * downs.count(q) / len(downs)
        return score

    def public_suspicion(self, obs, q: int) -> float:
        """What every player can see against q: face-down plays, face-up plays, completed rows."""
        d = obs.data
        down = sum(1 for p, _c, how in d["log"] if p == q and how == "down")
        up = sum(1 for p, _c, how in d["log"] if p == q and how == "up")
        return down - 0.5 * up - 0.7 * d["rows_by"][q]

    def face_down_guess(self, obs, who: int) -> float:
        if who == obs.current:
            return 0.0
        return 2.5 - 1.5 * max(0.0, min(2.0, self.suspicion(obs, who) / 2))

    def cell_value(self, bot, obs, need, cell: int) -> float:
        v = super().cell_value(bot, obs, need, cell)
        return -0.5 * (v > 0) if self._me_traitor(obs) else v

    def step(self, bot, obs, legal, need) -> int:
        kind = obs.step[1]
        if self._me_traitor(obs):
            if kind == MaldonadoStep.TARGET:
                return self.traitor_target(obs, legal)
            if kind == MaldonadoStep.PLAY:
                return self.traitor_play(bot, obs, legal, obs.step[2])
            if kind == MaldonadoStep.KEEP:
                return self.traitor_keep(obs, legal)
        return super().step(bot, obs, legal, need)

    def traitor_keep(self, obs, legal) -> int:
        """The card to keep at Night: the one that takes most from some Crew Member when played face down."""
        ch = self._m(obs)
        hand = obs.data["hands"][obs.current]
        crews = range(len(ch.crew))
        return min(legal, key=lambda a: (min(ch.card_value(hand[a - KEEP], c) for c in crews), a))

    def traitor_target(self, obs, legal) -> int:
        power = obs.data["power"]
        # the Crew Member just above the Power line is the cheapest to push under it
        return min(legal, key=lambda a: (abs(self.visible_value(obs, a - TARGET_CREW) - power - 1), a))

    def traitor_play(self, bot, obs, legal, crew: int) -> int:
        ch, d = self._m(obs), obs.data
        hand = d["hands"][obs.current]
        if TRAITOR_PLAY in legal and self.visible_value(obs, crew) >= d["power"] - 1:
            return TRAITOR_PLAY
        me = obs.current
        others = [q for q in range(obs.game.n) if q != me]
        looks = self.public_suspicion(obs, me) > max(self.public_suspicion(obs, q) for q in others)
        if looks and COMMAND in legal:  # looking guilty: play a Command card as a Loyalist would
            return COMMAND
        if looks or bot.rng.random() < 0.25:  # now and then a matching +1 face up, to pass for a Loyalist
            for a in legal:
                if PLAY <= a < TRAITOR_PLAY and (a - PLAY) % 2 == 1:
                    card = hand[(a - PLAY) // 2]
                    if ch.influence[card].match == 1 and ch.card_value(card, crew) > 0:
                        return a
        best, best_v = None, 99.0
        for a in legal:
            if PLAY <= a < TRAITOR_PLAY and (a - PLAY) % 2 == 0:
                v = ch.card_value(hand[(a - PLAY) // 2], crew)
                if v < best_v:
                    best, best_v = a, v
        if COMMAND in legal and best_v > -0.6:
            return COMMAND
        return best if best is not None else legal[0]

    def accuse(self, bot, obs, legal) -> int:
        others = [a - ACCUSE for a in legal if ACCUSE <= a < ABSTAIN]
        if self._me_traitor(obs):
            # blend in: name whoever the table suspects most (the other Loyalists' public evidence)
            return ACCUSE + max(others, key=lambda q: (self.suspicion(obs, q), -q))
        best = max(others, key=lambda q: (self.suspicion(obs, q), -q))
        if ABSTAIN in legal and self.suspicion(obs, best) < -0.5:
            return ABSTAIN
        return ACCUSE + best
