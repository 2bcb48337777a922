"""Card effects and the choices they ask for: gains and losses, "pay N", "take any", Destiny picks.

Functions over a ``State`` (the facade binds the public ones as its methods: ``state.gain(r)``).
"""

from __future__ import annotations

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind
from mapgen.engine.cards import NRES, RESOURCE_CODES, WATER, Effect
from mapgen.engine.rules import BACKPACK_SLOTS, MAX_FIRES, POOL, POOL_TOKENS, SAMPLE_TOKENS, SUPPLY
from mapgen.engine.steps import PAYMENT, STEP, THREAT_DRAW


def held(state, r: int) -> int:
    """Tokens of Resource r out of the Reserve: in the backpack, on York's Challenge cards, in the Jar, and
    what the chapter keeps aside (Maldonado's Water Skin)."""
    n = state.pack[r] + (state.jar == r)
    for entry in state.row:
        if entry[2]:
            n += entry[2].count(r)
    chapter = state.game.chapter
    return n + (chapter.held_aside(state, r) if r in chapter.aside_resources else 0)


def pool_held(state) -> int:
    """``held`` summed over the five Resources that share the 48 tokens (``rules.POOL``), in one pass."""
    pack = state.pack
    n = sum([pack[x] for x in POOL]) + (state.jar in POOL)
    for entry in state.row:
        if entry[2]:
            n += sum([x in POOL for x in entry[2]])
    chapter = state.game.chapter
    for x in chapter.aside_resources:
        if x in POOL:
            n += chapter.held_aside(state, x)
    return n


def room(state, r: int) -> int:
    """Tokens of Resource r left in the Reserve (``rules.SUPPLY``, ``rules.POOL``): what can still be gained."""
    if r in SUPPLY:
        return SUPPLY[r] - held(state, r)
    if r in POOL:
        return POOL_TOKENS - pool_held(state)
    return 1 << 20  # a token the rulebooks give no count for


def rooms(state, resources) -> dict[int, int]:
    """``room`` of each Resource, the shared 48 counted once."""
    pool = None
    out = {}
    for r in resources:
        if r in SUPPLY:
            out[r] = SUPPLY[r] - held(state, r)
        elif r in POOL:
            if pool is None:
                pool = POOL_TOKENS - pool_held(state)
            out[r] = pool
        else:
            out[r] = 1 << 20
    return out


def gain(state, r: int, n: int = 1) -> None:
    n = min(n, room(state, r))
    if n <= 0:
        return
    state.pack[r] += n
    if state.game.chapter.track_gains and n > 0:
        state.game.chapter.on_gain(state, r)


def lose_water(state, n: int) -> None:
    if state.pack[WATER] < n:
        state.pack[WATER] = 0
        state.lose("thirst")
    else:
        state.pack[WATER] -= n


def run_effects(state, effects: tuple[Effect, ...]) -> None:
    state.push(*[(STEP.EFFECT, e) for e in effects])


def run_effect(state, step) -> None:
    e: Effect = step[1]
    if state.game.chapter.run_effect(state, e):
        return
    v, n, t = e.verb, e.n, e.target
    if v == "gain":
        if isinstance(t, int):
            gain(state, t, n)
        elif t == "any":
            state.push(*[(STEP.GAIN,)] * n)
        elif t == "fire":
            state.fires = min(MAX_FIRES, state.fires + n)
        elif t == "sample":
            state.push(*[(STEP.GAIN_SAMPLE,)] * n)
        elif t == "destiny" and state.game.destiny and not state.chased:
            state.push(*[(STEP.DESTINY_PICK,)] * n)
    elif v == "lose":
        if t == WATER:
            lose_water(state, n)
        elif isinstance(t, int):
            state.pack[t] = max(0, state.pack[t] - n)
        elif t == "any":
            state.push((STEP.PAY, n, PAYMENT.ANY))
        elif t == "fire":
            state.fires = max(0, state.fires - n)
        elif t == "shelter":
            state.shelter = -1
    elif v == "draw" and t == "threat":
        state.push((STEP.CHANCE_THREAT, THREAT_DRAW.DAY, -1))
    elif v == "remove" and t == "path":
        if state.row:
            k = min(n, state.row[0][1])
            state.row[0][1] -= k
            state.tokens_out += k
    elif v == "refresh":
        state.exhausted.clear()
    elif v == "reveal":
        state.game.chapter.reveal(state, t, n)


def run_gain_sample(state, step) -> None:
    """A Sample Token is gained (while the Reserve has one): "If you gain a Sample Token when your Backpack is
    full, you must discard a resource to accept the Sample Token!" """
    if state.samples >= SAMPLE_TOKENS:
        return
    full = state.slots() >= BACKPACK_SLOTS and state.carried() > 0
    state.samples += 1
    if full:
        state.push((STEP.PAY, 1, PAYMENT.ANY))


# ----- choices -----
def pay_needed(state, step) -> bool:
    """A "pay N" step asks for a choice only when something is owed and something can pay it."""
    n, what = step[1], step[2]
    have = state.carried() + (state.pack[WATER] if what == PAYMENT.ANY_WATER else 0)
    return not (n <= 0 or have == 0)


def legal_pay(state, step) -> list[int]:
    allow_water = step[2] == PAYMENT.ANY_WATER
    return [A.DISCARD + r for r in range(NRES) if state.pack[r] and (r != WATER or allow_water)]


def apply_pay(state, step, a: int) -> None:
    state.agenda.pop()
    state.pack[a - A.DISCARD] -= 1
    if step[1] > 1:
        state.agenda.append((step[0], step[1] - 1, step[2]))


def legal_gain(state, step) -> list[int]:
    """ "Take any": a Resource the Reserve still has (step ``("gain", n)``: n of the one chosen, Lewis on a
    choice of Resource)."""
    return [A.GAIN + r for r, n in rooms(state, state.game.chapter.resources).items() if n > 0]


def gain_needed(state, step) -> bool:
    return any(n > 0 for n in rooms(state, state.game.chapter.resources).values())


def apply_gain(state, step, a: int) -> None:
    state.agenda.pop()
    gain(state, a - A.GAIN, step[1] if len(step) > 1 else 1)


# ----- Destiny cards -----
def destiny_open(state) -> bool:
    """May a Destiny card be taken now (the chapter has them, no Chased, a card face up or in the deck)?"""
    return bool(state.game.destiny) and not state.chased and bool(state.de_face or state.de_pile)


def destiny_pick_needed(state, step) -> bool:
    """No Destiny card is taken while Chased or with none face up or left in the deck."""
    return not (state.chased or not (state.de_face or state.de_pile))


def legal_destiny_pick(state, step) -> list[int]:
    out = [A.DESTINY_PICK + k for k in range(len(state.de_face))]
    if state.de_pile:
        out.append(A.DESTINY_PICK + 2)
    return out


def apply_destiny_pick(state, step, a: int) -> None:
    state.agenda.pop()
    k = a - A.DESTINY_PICK
    if k == 2:
        state.push((STEP.CHANCE_HELD,))
    else:
        state.de_held.append(state.de_face.pop(k))
        if state.de_pile:
            state.push((STEP.CHANCE_DESTINY,))


def describe_destiny_pick(a: int, state=None) -> str:
    k = a - A.DESTINY_PICK
    if k == 2:
        return "draw the top Destiny card"
    if state is not None and k < len(state.de_face):
        return f"take face-up Destiny card: {state.game.destiny[state.de_face[k]].name}"
    return f"take face-up Destiny {k + 1}"


def chance_destiny(state, step, card: int) -> None:
    state.de_face.append(card)


def chance_held(state, step, card: int) -> None:
    state.de_held.append(card)


ACTIONS = (
    ActionKind(A.GAIN, A.TRADE, lambda a, state=None: f"take {RESOURCE_CODES[a - A.GAIN]}"),
    ActionKind(A.DESTINY_PICK, A.THREAT_DISCARD, describe_destiny_pick),
)
