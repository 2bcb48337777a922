"""Maldonado's Hidden Traitor mode (2 to 4 players): identities, face-down play, Accusations, and its bots.

Rules (Maldonado rulebook, Hidden Traitor): Identity cards dealt by player count (4: 3 Loyalists and
the Traitor; 3: 2 and the Traitor; 2: 2 Loyalists and the Traitor, one card unseen), 4 Influence
cards each beside the Identity card; the Power track starts at 0 / 7 / 9 for 2 / 3 / 4 players;
Loyalists play +1 Influence cards face up and +2 / +3 face down (or a Command card), the Traitor
plays any card face down (or face up, to pass for a Loyalist) and may play the Traitor card (-4);
after each kill every player accuses another (in 2 players one may abstain); after the third
kill and the third Accusation the Accusations are resolved (2 players: +1 Power for each wrong or
missing Loyalist Accusation; 3-4 players: -1 Power for each Accusation token in front of the
Traitor), then each Crew Member is saved when its total reaches the Power.

Decision (the rulebook's goal: "Save or kill 3 Crew"): the Loyalists win when at least 3 of the 5
Crew Members are saved; otherwise the Traitor wins (outcome ``traitor``), or, with no Traitor in
a 2-player game, the game is lost (``crew_died``). Losing by thirst or hunger is everyone's loss.
The Traitor is *caught* when more than half of the Loyalists' Accusation tokens name them.

Bots: ``mapgen/engine/bots/traitor.py`` plays both roles from what the acting player may know (their own Identity
and hand, face-up cards, who played face down or drew Command cards, who completed rows).
"""

from __future__ import annotations

from mapgen.engine.actions import ActionKind
from mapgen.engine.game import BadSettingError, GameError
from mapgen.engine.maldonado import (
    COMMAND,
    KEEP,
    PLAY,
    TRAITOR_PLAY,
    Maldonado,
    MaldonadoStep,
    reveal_piles,
)
from mapgen.engine.steps import Step

START_POWER = {2: 0, 3: 7, 4: 9}
TRAITOR = 0  # the Traitor's Identity card; 1.. are Loyalists


class MaldonadoTraitor(Maldonado):
    """Maldonado in Hidden Traitor mode (see the module docstring)."""

    mode = "traitor"
    variant = "Hidden Traitor"

    policy = "maldonado-traitor"

    def check_team(self, game) -> None:
        if game.n < 2:
            raise GameError("the Hidden Traitor mode needs 2 to 4 players", setting="players")

    def start_power(self, players: int) -> int:
        return START_POWER.get(players, 0)

    def setup_mode_steps(self, state) -> list[tuple]:
        n = state.game.n
        state.data["id_pile"] = list(range(4 if n == 4 else 3))
        steps: list[tuple] = [(Step.CHANCE_CHAPTER, MaldonadoStep.IDENTITY, p) for p in range(n)]
        for p in range(n):
            steps += [(Step.CHANCE_CHAPTER, MaldonadoStep.DRAW, p)] * 4
        return steps

    def hand_size(self, state, p: int) -> int:
        return 4

    def refill_to(self, state, p: int) -> int:
        d = state.data
        return 5 if d["identity"][p] == TRAITOR and d["traitor_played"] else 4

    def found_evil(self, state) -> list[tuple]:
        return []  # no setup cards on the Crew Members in this mode

    def night_steps(self, state) -> list[tuple]:
        """Each player discards 4 Influence cards and draws 4. The Traitor who played the -4 "need[s] to keep any 1
        of your Influence Cards": they choose it (the step ``KEEP``, theirs to decide), then discard the rest."""
        d = state.data
        steps: list[tuple] = []
        for p in range(state.game.n):
            hand = d["hands"][p]
            if d["identity"][p] == TRAITOR and d["traitor_played"] and hand:
                me = state.current
                steps += [(Step.CHAPTER, MaldonadoStep.AS, p), (Step.CHAPTER, MaldonadoStep.KEEP, p)]
                steps.append((Step.CHAPTER, MaldonadoStep.AS, me))
            else:
                d["inf_discard"] += hand
                d["hands"][p] = []
            steps += [(Step.CHANCE_CHAPTER, MaldonadoStep.DRAW, p)] * 4
        return steps

    def actions(self) -> list[ActionKind]:
        return [*super().actions(), ActionKind(KEEP, KEEP + 10, self._describe_keep)]

    def _describe_keep(self, action: int, state) -> str:
        hand = state.data["hands"][state.current]
        s = action - KEEP
        return f"keep Influence {self.card_name(hand[s]) if s < len(hand) else f'card {s}'}"

    def legal(self, state, step) -> list[int]:
        if step[1] == MaldonadoStep.KEEP:
            return [KEEP + s for s in range(len(state.data["hands"][step[2]]))]
        return super().legal(state, step)

    def _do(self, state, step, a: int) -> None:
        if step[1] != MaldonadoStep.KEEP:
            super()._do(state, step, a)
            return
        d = state.data
        hand = d["hands"][step[2]]
        kept = hand[a - KEEP]
        d["inf_discard"] += [c for c in hand if c != kept]
        d["hands"][step[2]] = [kept]

    def is_traitor(self, state, p: int) -> bool:
        return state.data["identity"][p] == TRAITOR

    def faces(self, state, p: int, card: int) -> tuple[int, ...]:
        if self.is_traitor(state, p):
            return (0, 1)
        return (1,) if self.influence[card].match == 1 else (0,)

    def play_actions(self, state, p: int, crew: int) -> list[int]:
        """Loyalists: a matching card or a Command card; the Traitor: any card, either face, or the Traitor card."""
        if not self.is_traitor(state, p):
            return super().play_actions(state, p, crew)
        d = state.data
        out = [PLAY + 2 * s + f for s, card in enumerate(d["hands"][p]) for f in (0, 1)]
        if d["cmd_pile"]:
            out.append(COMMAND)
        if not d["traitor_played"]:
            out.append(TRAITOR_PLAY)
        return out

    def after_kill(self, state) -> list[tuple]:
        """Everyone accuses, in turn order from the active player; then the active player's turn goes on."""
        d = state.data
        n = state.game.n
        d["accusations"].append([])
        me = state.current
        steps: list[tuple] = []
        for k in range(n):
            p = (me + k) % n
            steps += [(Step.CHAPTER, MaldonadoStep.AS, p), (Step.CHAPTER, MaldonadoStep.ACCUSE, p)]
        steps.append((Step.CHAPTER, MaldonadoStep.AS, me))
        if d["kills"] >= 3:
            steps.append((Step.CHAPTER, MaldonadoStep.FINALE))
        return steps

    def traitor(self, state) -> int:
        ids = state.data["identity"]
        return ids.index(TRAITOR) if TRAITOR in ids else -1

    def accusation_power(self, state) -> int:
        """The Power change from the Accusations (2 players: wrong ones; 3-4: those on the Traitor)."""
        d = state.data
        t = self.traitor(state)
        n = state.game.n
        if n == 2:
            wrong = 0
            for rnd in d["accusations"]:
                for p, q in rnd:
                    if p == t:
                        continue  # only the Loyalists' tokens count
                    if (q == -1 and t >= 0) or (q >= 0 and q != t):
                        wrong += 1
                placed = {p for p, _ in rnd}
                wrong += sum(1 for p in range(n) if p != t and p not in placed and t >= 0)
            return wrong
        return -sum(1 for rnd in d["accusations"] for p, q in rnd if q == t and t >= 0)

    def caught(self, state) -> bool:
        t = self.traitor(state)
        if t < 0:
            return False
        loyal = state.game.n - 1
        on_traitor = sum(1 for rnd in state.data["accusations"] for p, q in rnd if p != t and q == t)
        return on_traitor * 2 > 3 * loyal

    def finale(self, state) -> None:
        d = state.data
        reveal_piles(d)
        self.add_power(state, self.accusation_power(state))
        n_saved = sum(self.saved(state))
        state.event(f"saved {n_saved}")
        if self.caught(state):
            state.event("traitor caught")
        if n_saved >= 3:
            d["result"] = "win"
        else:
            d["result"] = "traitor" if self.traitor(state) >= 0 else "crew_died"
            if d["result"] == "traitor":
                state.event("traitor wins")


def chapter_for_mode(chapter: str, mode: str | None):
    """The chapter plug-in for a playtest ``--mode``: ``coop`` (default) or ``traitor`` (Maldonado only)."""
    if mode in (None, "", "coop"):
        return None
    if mode != "traitor":
        raise BadSettingError(f"unknown mode {mode!r} (expected coop or traitor)", setting="mode")
    if chapter != "maldonado":
        raise GameError(f"traitor is Maldonado's Hidden Traitor mode, not a mode of {chapter}", setting="mode")
    return MaldonadoTraitor()


__all__ = ["START_POWER", "MaldonadoTraitor", "chapter_for_mode"]
