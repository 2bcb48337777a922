"""Challenges and Threats: the Challenge Row, resolving (Pass/Fail), Fatigue, the End of Day, Threats and Monsters.

Functions over a ``State`` (the facade binds the public ones as its methods: ``state.can_pass()``).
"""

from __future__ import annotations

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, words
from mapgen.engine.cards import FOOD, MUD, NRES, WATER, ThreatKind
from mapgen.engine.rules import PRIORITY
from mapgen.engine.steps import STEP, THREAT_DRAW, ThreatDraw


# ----- the Challenge Row -----
def chance_challenge(state, step, card: int) -> None:
    state.row.append([card, 0, None])


def pop_row(state) -> list:
    """Take the leftmost card off the Challenge Row; its Path tokens are discarded."""
    entry = state.row.pop(0)
    state.tokens_out += entry[1]
    return entry


def run_check_challenge(state, step) -> None:
    if not state.row:
        return
    c, tokens, _ = state.row[0]
    time = state.game.threats[injured_card(state)].time if c < 0 else state.game.challenges[c].time
    if tokens >= time:
        if c < 0:  # Injured is resolved with no Pass, no Fail and no Consequence
            pop_row(state)
            state.injured = 1
            state.push((STEP.AFTER_RESOLVE,))
        else:
            state.push((STEP.RESOLVE,), (STEP.FATIGUE,), (STEP.AFTER_RESOLVE,))


def can_pass(state, card=None, stored=None) -> bool:
    """May the leftmost Challenge (or ``card`` with ``stored`` Resources on it) be passed now?"""
    if card is None:
        card, stored = state.game.challenges[state.row[0][0]], state.row[0][2]
    if not state.game.chapter.may_pass(state, card):
        return False
    if card.fire and state.fires < 1:
        return False
    if card.shelter and state.shelter < 0:
        return False
    pack = state.pack
    for r in range(NRES):
        need = card.requires[r]
        if need and need > pack[r] + (stored.count(r) if stored else 0):
            return False
    return True


def legal_resolve(state, step) -> list[int]:
    return [A.PASS, A.FAIL] if can_pass(state) else [A.FAIL]


def apply_resolve(state, step, a: int) -> None:
    state.agenda.pop()
    c, _, stored = pop_row(state)
    card = state.game.challenges[c]
    stored = list(stored or ())
    pack = state.pack
    state.agenda.append((STEP.RESOLVED,))  # below the card's effects: ``settled`` counts it once they are done
    if a == A.PASS:
        for r in range(NRES):
            for _ in range(card.requires[r] + card.optional[r]):
                if r in stored:
                    stored.remove(r)
                elif pack[r]:
                    pack[r] -= 1
        for r in stored:
            pack[r] += 1
        effects = card.passes
        if card.bonus and (
            (card.bonus_if == "fire" and state.fires) or (card.bonus_if == "shelter" and state.shelter >= 0)
        ):
            effects = effects + card.bonus
        state.run_effects(effects)
    else:
        for r in stored:
            pack[r] += 1
        state.run_effects(card.fails)
    state.resolved += 1
    state.game.chapter.on_resolved(state, card, a == A.PASS)


def run_resolved(state, step) -> None:
    """The Challenge card is fully resolved, its Pass or Fail effects done (Training's sixth card wins here)."""
    state.settled += 1


def fatigue_needed(state, step) -> bool:
    """Fatigue: 5 or more spaces in use and no Shelter (a Shelter removes the Fatigue penalty)."""
    return state.slots() >= 5 and state.shelter < 0


def legal_fatigue(state, step) -> list[int]:
    return [A.FATIGUE_WATER] + [A.DISCARD + r for r in range(NRES) if state.pack[r] and r != WATER]


def apply_fatigue(state, step, a: int) -> None:
    if a == A.FATIGUE_WATER:
        state.agenda.pop()
        state.lose_water(1)
        return
    state.pack[a - A.DISCARD] -= 1
    if state.slots() < 5:
        state.agenda.pop()


def run_after_resolve(state, step) -> None:
    steps = state.game.chapter.after_resolve_steps(state)
    if not state.row:
        steps = [*steps, (STEP.END_OF_DAY,)]
    if steps:
        state.push(*steps)


# ----- the End of Day and the Night -----
def run_end_of_day(state, step) -> None:
    need = state.game.chapter.food_needed(state)
    if need:
        if state.pack[FOOD] < need:
            state.pack[FOOD] = 0
            state.lose("hunger")
            return
        state.pack[FOOD] -= need
    state.push((STEP.NIGHT,))


def run_night(state, step) -> None:
    g = state.game
    steps: list[tuple] = list(g.chapter.night_steps(state))
    if g.chapter.night_threat(state):
        steps.append((STEP.CHANCE_THREAT, THREAT_DRAW.NIGHT, -1))
    if state.injured == 1:
        state.injured = 2
    steps.append((STEP.DEAL_DAY,))
    state.push(*steps)


def run_deal_day(state, step) -> None:
    n = 3
    if state.injured == 2:
        state.row.append([-1, 0, None])
        n = 2
    if len(state.ch_pile) < n:
        state.lose("no_challenges")
        return
    if "Jar" in [x for gs in state.gear for x in gs] and state.jar >= 0:
        r, state.jar = state.jar, -1  # "return that Resource plus one more of the same type" (if the Reserve has it)
        state.pack[r] += 1
        state.gain(r)
    state.exhausted.clear()
    state.day += 1
    state.push(*[(STEP.CHANCE_CHALLENGE,)] * n)


# ----- Threats -----
def chance_threat(state, step, card: int) -> None:
    g = state.game
    th = g.threats[card]
    when, cell = step[1], step[2]
    if th.kind == ThreatKind.INJURED:
        state.threats.append(card)
        state.injured = 1
    elif th.kind == ThreatKind.CHASED:
        state.threats.append(card)
        state.chased = True
        state.chased_pile += state.de_held
        state.de_held = []
    else:
        state.threats.append(card)
        g.chapter.place_monster(state, card, when, cell)


def empty_threat_pile(state, step) -> None:
    """A Threat card to draw and none left: the cards put at the bottom, else the discards reshuffled."""
    if state.th_bottom:  # the known cards put at the bottom come up in order
        chance_threat(state, step, state.th_bottom.pop(0))
    elif state.th_discard:  # decision: an exhausted Threat deck is reshuffled from its discard pile
        state.th_pile, state.th_discard = state.th_discard, []
        state.agenda.append(step)


def monster_place(state, card: int, when: ThreatDraw, cell: int) -> int:
    """Where a Monster goes: by day on its Lair; at Night or as a row reward by its card's direction.

    Ties on the edge are broken by the Resource Priority Order of the Explored terrain, then
    (decision: the rulebook's 'Token Tray order' is not printed) west to east or north to south.
    """
    if when == THREAT_DRAW.DAY and cell >= 0 and cell not in state.monsters:
        return cell
    g = state.game
    cands = [i for i in range(g.board.size) if state.explored[i] and i not in state.monsters]
    if not cands:
        return -1
    d = g.threats[card].direction
    key = {
        "north": lambda i: (g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
        "south": lambda i: (-g.row_of[i], PRIORITY.get(g.cells[i], 99), g.col_of[i]),
        "west": lambda i: (g.col_of[i], PRIORITY.get(g.cells[i], 99), g.row_of[i]),
        "east": lambda i: (-g.col_of[i], PRIORITY.get(g.cells[i], 99), g.row_of[i]),
    }[d]
    return min(cands, key=key)


def remove_threat(state, card: int, to: str) -> None:
    """Take a revealed Threat card out of play: to 'bottom' of the deck, 'discard', or 'out' (killed)."""
    g = state.game
    state.threats.remove(card)
    th = g.threats[card]
    if th.monster:
        for c, k in list(state.monsters.items()):
            if k == card:
                del state.monsters[c]
    elif th.kind == ThreatKind.CHASED:
        state.chased = False
        state.de_held += state.chased_pile
        state.chased_pile = []
    elif th.kind == ThreatKind.INJURED:
        if state.injured == 2 and state.row and state.row[0][0] < 0:
            pop_row(state)
        state.injured = 0
    if to == "bottom":
        state.th_bottom.append(card)
    elif to == "discard":
        state.th_discard.append(card)


def kill_monster(state, card: int) -> None:
    """A Monster killed (any chapter's way: a Kill card, a shot, Monster Claws, Sacagawea): out of the game.

    Core rules, Skull Terrain Found: "You can reclaim Destiny Cards and use them again after you Kill a
    Monster (varies by chapter) and discard Chased." So every kill also discards Chased, and the Destiny
    cards under it come back.
    """
    remove_threat(state, card, "out")
    if state.chased:
        chased = next(t for t in state.threats if state.game.threats[t].kind == ThreatKind.CHASED)
        remove_threat(state, chased, "discard")


def injured_card(state) -> int:
    """The Injured Threat card in play."""
    return next(k for k in state.threats if state.game.threats[k].kind == ThreatKind.INJURED)


def threat_discard_needed(state, step) -> bool:
    return bool(state.threats)


def legal_threat_discard(state, step) -> list[int]:
    return [A.SKIP] + [A.THREAT_DISCARD + k for k in range(len(state.threats))]


def apply_threat_discard(state, step, a: int) -> None:
    state.agenda.pop()
    if a == A.SKIP:
        return
    card = state.threats[a - A.THREAT_DISCARD]
    remove_threat(state, card, "bottom")
    state.push((STEP.CHANCE_THREAT, THREAT_DRAW.ROW, -1))


def describe_threat_discard(a: int, state=None) -> str:
    k = a - A.THREAT_DISCARD
    if state is not None and k < len(state.threats):
        return f"row reward: discard Threat card: {state.game.threats[state.threats[k]].name}"
    return f"row reward: discard Threat {k + 1}"


# ----- the main step's Cure Injured -----
def legal_cure(state, out: list[int]) -> None:
    if state.injured and state.pack[MUD]:
        out.append(A.CURE_INJURED)


def apply_cure(state, a: int) -> None:
    state.pack[MUD] -= 1
    remove_threat(state, injured_card(state), "discard")


ACTIONS = (
    ActionKind(A.CURE_INJURED, A.CURE_INJURED + 1, words("pay Mu to discard Injured"), legal_cure, apply_cure),
    ActionKind(A.PASS, A.PASS + 1, words("pass the Challenge")),
    ActionKind(A.FAIL, A.FAIL + 1, words("fail the Challenge")),
    ActionKind(A.FATIGUE_WATER, A.FATIGUE_WATER + 1, words("stay Fatigued (lose 1 Water unless Sheltered)")),
    ActionKind(A.THREAT_DISCARD, A.CHAPTER, describe_threat_discard),
)
