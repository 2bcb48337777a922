"""The main step of a turn as action kinds (free actions, Gear, characters, ending the turn), and the turn's end.

Each kind is one ``ActionKind`` (range, legal, apply, describe) of the action table; exploring is
``explore.py``'s, curing Injured ``challenges.py``'s, and a chapter adds its own (``Chapter.actions()``).
The main step's legal actions are those every kind appends; an action is applied by its kind.
"""

from __future__ import annotations

from itertools import compress
from operator import itemgetter

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, words
from mapgen.engine.cards import NRES, RESOURCE_CODES, ROCK, WATER, WOOD
from mapgen.engine.effects import destiny_open, run_effects
from mapgen.engine.explore import only_banned
from mapgen.engine.rules import BACKPACK_SLOTS, CARRIED, MAX_FIRES, SEALED, SEALED_BY, WATER_LIMIT
from mapgen.engine.steps import PAYMENT, STEP
from mapgen.engine.walls import explain_sealed
from mapgen.terrain import TERRAINS


def legal_main(state, step) -> list[int]:
    """Every main-step kind of the game appends its legal actions (sorted by the caller)."""
    out: list[int] = []
    for legal in state.game.main_legal:
        legal(state, out)
    return out


def apply_main(state, step, a: int) -> None:
    state.game.action_table.apply(state, a)


def _ready(state, gear: str) -> bool:
    """The current player holds this Gear and has not used it since it was last refreshed."""
    return gear in state.gear[state.current] and gear not in state.exhausted


# ----- discards -----
_CARRIED_OF = itemgetter(*CARRIED)  # pack -> the carried Resources' units (Water excluded), in C
_DISCARDS = tuple(A.DISCARD + r for r in CARRIED)
_DROP_SAMPLES = tuple(A.DROP_SAMPLE + r for r in CARRIED)


def legal_discard(state, out: list[int]) -> None:
    out.extend(compress(_DISCARDS, _CARRIED_OF(state.pack)))  # A.DISCARD + r for each carried r held


def apply_discard(state, a: int) -> None:
    state.pack[a - A.DISCARD] -= 1


def legal_drop_sample(state, out: list[int]) -> None:
    if state.samples:
        out.extend(compress(_DROP_SAMPLES, _CARRIED_OF(state.pack)))  # A.DROP_SAMPLE + r for each carried r held


def apply_drop_sample(state, a: int) -> None:
    state.pack[a - A.DROP_SAMPLE] -= 1
    state.samples -= 1


# ----- Fire and Shelter -----
def legal_fire(state, out: list[int]) -> None:
    if state.fires >= MAX_FIRES:
        return
    pack = state.pack
    if pack[WOOD] >= 2:
        out.append(A.FIRE)
    if pack[ROCK] >= 2:
        out.append(A.FIRE + 1)
    if "Flint" in state.gear[state.current] and "Flint" not in state.exhausted:  # _ready, written out
        if pack[WOOD]:
            out.append(A.FIRE + 2)
        if pack[ROCK]:
            out.append(A.FIRE + 3)


def apply_fire(state, a: int) -> None:
    k = a - A.FIRE
    pack = state.pack
    if k == 0:
        pack[WOOD] -= 2
    elif k == 1:
        pack[ROCK] -= 2
    else:
        pack[WOOD if k == 2 else ROCK] -= 1
        state.exhausted.add("Flint")
    state.fires += 1


def field_for_shelter(state) -> int:
    """A vacant explored Field (or the chapter's Shelter terrain) a new Shelter can go on; -1 if none.

    Build a Shelter: "If there are no available vacant Field Terrains then a Shelter cannot be built", "Place
    the Shelter on an available Field Terrain": a Field under a Monster token is not vacant (Vameter: "A Crew
    token and a Shelter can occupy the same Explored Path", so Crew do not take it). Which vacant Field does
    not matter to any rule (the Shelter's effects are the team's): the first explored (decision)."""
    monsters = state.monsters
    for i in state.game.chapter.shelter_cells(state):
        if i != state.shelter and i not in monsters:
            return i
    return -1


_SHELTER_PAIRS = tuple((k, x, y) for k, (x, y) in enumerate(A.SHELTER_PAIRS))


def legal_shelter(state, out: list[int]) -> None:
    if state.game.chapter.shelter:
        pack = state.pack
        # the affordable pairs first: without one, no need to look for an explored Field (the usual case)
        pairs = [k for k, x, y in _SHELTER_PAIRS if pack[x] and pack[y]]
        if pairs and field_for_shelter(state) >= 0:
            out.extend([A.SHELTER + k for k in pairs])


def apply_shelter(state, a: int) -> None:
    x, y = A.SHELTER_PAIRS[a - A.SHELTER]
    state.pack[x] -= 1
    state.pack[y] -= 1
    state.shelter = field_for_shelter(state)


# ----- Destiny cards -----
def legal_use_destiny(state, out: list[int]) -> None:
    if state.de_held and not state.chased:
        out.extend([A.USE_DESTINY + k for k in range(len(state.de_held))])


def apply_use_destiny(state, a: int) -> None:
    card = state.de_held.pop(a - A.USE_DESTINY)
    state.de_discard.append(card)
    run_effects(state, state.game.destiny[card].effects)


def describe_use_destiny(a: int, state=None) -> str:
    k = a - A.USE_DESTINY
    if state is not None and k < len(state.de_held):
        return f"use Destiny '{state.game.destiny[state.de_held[k]].name}'"
    return f"use Destiny card {k}"


# ----- characters -----
def legal_guess(state, out: list[int]) -> None:
    if state.explored_now:
        return
    gear, exhausted, guesses = state.gear[state.current], state.exhausted, state.guesses
    for k, name in enumerate(A.GUESS_GEAR):
        if k not in guesses and name in gear and name not in exhausted:  # _ready, written out
            out.extend(state.game.guess_actions[k])  # A.GUESS + 20 * k + each chapter terrain's index


def apply_guess(state, a: int) -> None:
    k, t = divmod(a - A.GUESS, 20)
    state.guesses[k] = t
    state.exhausted.add(A.GUESS_GEAR[k])


def describe_guess(a: int, state=None) -> str:
    g, t = divmod(a - A.GUESS, 20)
    return f"{A.GUESS_GEAR[g]}: guess {TERRAINS[t].label}"


def legal_lewis(state, out: list[int]) -> None:
    if (
        not state.explored_now
        and state.game.characters[state.current] == "Lewis"
        and "Lewis" not in state.exhausted
        and not state.lewis_on
    ):
        out.append(A.LEWIS)


def apply_lewis(state, a: int) -> None:
    state.lewis_on = True
    state.exhausted.add("Lewis")


def legal_collins(state, out: list[int]) -> None:
    if (
        not state.explored_now
        and state.game.characters[state.current] == "Collins"
        and "Collins" not in state.exhausted
        and not state.collins_on
        and state.monsters
    ):
        out.append(A.COLLINS)


def apply_collins(state, a: int) -> None:
    state.collins_on = True
    state.exhausted.add("Collins")


def legal_clark(state, out: list[int]) -> None:
    if state.game.characters[state.current] != "Clark" or "Clark" in state.exhausted:
        return
    chapter = state.game.chapter
    kinds, fixed = chapter.gear_kinds(), chapter.fixed_gear()
    for s, x in enumerate(state.gear[state.current]):
        if x not in fixed:
            out.extend([A.CLARK + 10 * s + kinds.index(y) for y in state.reserve if y not in fixed])


def apply_clark(state, a: int) -> None:
    s, k = divmod(a - A.CLARK, 10)
    mine = state.gear[state.current]
    old, new = mine[s], state.game.chapter.gear_kinds()[k]
    mine[s] = new
    state.reserve.remove(new)
    state.reserve.append(old)
    state.exhausted.discard(new)
    state.exhausted.discard(old)
    state.exhausted.add("Clark")


def describe_clark(a: int, state=None) -> str:
    s, k = divmod(a - A.CLARK, 10)
    kinds = state.game.chapter.gear_kinds() if state is not None else A.GEAR_KINDS
    return f"Clark: swap gear {s + 1} for {kinds[k] if k < len(kinds) else f'gear kind {k}'}"


# ----- Gear -----
def legal_box_of_goods(state, out: list[int]) -> None:
    if "Box of Goods" in state.gear[state.current]:
        out.append(A.BOX_OF_GOODS)


def apply_box_of_goods(state, a: int) -> None:
    state.gear[state.current].remove("Box of Goods")
    state.push((STEP.GAIN,))


def legal_mortar(state, out: list[int]) -> None:
    # _ready written out; carried() + Water is every Resource held
    gear = "Mortar and Pestle"
    if gear in state.gear[state.current] and gear not in state.exhausted and sum(state.pack) >= 2:
        out.append(A.MORTAR)


def apply_mortar(state, a: int) -> None:
    state.exhausted.add("Mortar and Pestle")
    state.push((STEP.PAY, 2, PAYMENT.ANY_WATER), (STEP.GAIN,))


def legal_satchel(state, out: list[int]) -> None:
    if (
        state.explored_now
        and _ready(state, "Satchel")
        and state.last_gain >= 0
        and state.pack[state.last_gain] > 0
        and destiny_open(state)
    ):
        out.append(A.SATCHEL)


def apply_satchel(state, a: int) -> None:
    state.exhausted.add("Satchel")
    state.pack[state.last_gain] -= 1
    state.last_gain = -1
    state.push((STEP.DESTINY_PICK,))


def legal_jar_store(state, out: list[int]) -> None:
    # "Place 1 Resource ... onto this card": a Jar refreshed (Medicine, a Destiny card) with a Resource still on it
    # takes no second one over it (decision: one Resource on the card at a time; ``state.jar`` holds one)
    if state.jar < 0 and _ready(state, "Jar"):
        pack = state.pack
        out.extend([A.JAR_STORE + r for r in range(NRES) if pack[r] and r != WATER])


def apply_jar_store(state, a: int) -> None:
    state.jar = a - A.JAR_STORE
    state.pack[state.jar] -= 1
    state.exhausted.add("Jar")


def legal_jar_take(state, out: list[int]) -> None:
    # "You can choose to move it back to the Supply Board prior to the End of the Day": whenever it is on the card,
    # the Jar refreshed or not
    if state.jar >= 0 and "Jar" in state.gear[state.current]:
        out.append(A.JAR_TAKE)


def apply_jar_take(state, a: int) -> None:
    state.pack[state.jar] += 1
    state.jar = -1


def legal_medicine(state, out: list[int]) -> None:
    if not _ready(state, "Medicine"):
        return
    g, exhausted = state.game, state.exhausted
    for q in range(g.n):
        if g.characters[q] and g.characters[q] in exhausted:
            out.append(A.MEDICINE + 8 * q)
        out.extend(
            A.MEDICINE + 8 * q + 1 + s for s, x in enumerate(state.gear[q]) if x in exhausted and x != "Medicine"
        )


def apply_medicine(state, a: int) -> None:
    q, s = divmod(a - A.MEDICINE, 8)
    state.exhausted.discard(state.game.characters[q] if s == 0 else state.gear[q][s - 1])
    state.exhausted.add("Medicine")


def describe_medicine(a: int, state=None) -> str:
    p, s = divmod(a - A.MEDICINE, 8)
    return f"Medicine: refresh player {p + 1} {'character' if s == 0 else f'gear {s}'}"


# ----- ending the turn -----
def legal_end_turn(state, out: list[int]) -> None:
    # decision: when no Path can be explored (no explore action before this kind), the turn may end without one
    if state.explored_now or not out or out[0] >= A.DISCARD:
        out.append(A.END_TURN)


def apply_end_turn(state, a: int) -> None:
    g = state.game
    if not state.explored_now and only_banned(state):
        # the Path a Backtrack put back is open again next turn: a Path can still be explored, nothing is sealed
        state.passes = 0
    elif not state.explored_now:  # a whole round in which nobody can explore: the trail is sealed
        state.passes += 1
        if state.passes >= g.n:
            # house rule (the rulebooks are silent): the game ends "sealed", reported apart from the losses;
            # why: every Path explored, Paths open but the Monsters' toll unpaid, or no Path open at all
            full = state.n_explored == g.board.size
            why = SEALED_BY[2 if full else 1 if state.frontier() else 0]
            state.event("sealed: " + why)
            state.sealed_why = explain_sealed(state, why)  # the cells and tolls behind it (mapgen/engine/walls.py)
            state.lose(SEALED)
            return
    state.agenda.pop()
    state.push(*g.chapter.end_turn_steps(state), (STEP.LIMITS,), (STEP.CHECK_CHALLENGE,), (STEP.NEXT_TURN,))


def limits_needed(state, step) -> bool:
    """The end of a turn's limits: Water over 10 is lost at once; Resources over 6 spaces are chosen to discard."""
    state.pack[WATER] = min(state.pack[WATER], WATER_LIMIT)
    return state.slots() > BACKPACK_SLOTS and state.carried() > 0


def legal_limits(state, step) -> list[int]:
    return [A.DISCARD + r for r in range(NRES) if state.pack[r] and r != WATER]


def apply_limits(state, step, a: int) -> None:
    state.pack[a - A.DISCARD] -= 1  # the step stays until the backpack is within its limits


def run_next_turn(state, step) -> None:
    if not state.extra_turn:
        state.current = (state.current + 1) % state.game.n
    state.turn += 1
    state.extra_turn = False
    state.explored_now = False
    state.guesses.clear()
    state.lewis_on = state.collins_on = False
    state.last_gain = -1
    state.banned = -1
    state.agenda.append((STEP.MAIN,))


FIRE_WORDS = ("build Fire (2 Wo)", "build Fire (2 Ro)", "build Fire (Flint, Wo)", "build Fire (Flint, Ro)")

ACTIONS = (
    ActionKind(
        A.DISCARD,
        A.GAIN,
        lambda a, state=None: f"discard {RESOURCE_CODES[a - A.DISCARD]}",
        legal_discard,
        apply_discard,
    ),
    ActionKind(A.FIRE, A.SHELTER, lambda a, state=None: FIRE_WORDS[a - A.FIRE], legal_fire, apply_fire),
    ActionKind(
        A.SHELTER,
        A.CURE_INJURED,
        lambda a, state=None: "build Shelter ({}+{})".format(
            *(RESOURCE_CODES[r] for r in A.SHELTER_PAIRS[a - A.SHELTER])
        ),
        legal_shelter,
        apply_shelter,
    ),
    ActionKind(
        A.DROP_SAMPLE,
        A.USE_DESTINY,
        lambda a, state=None: f"pay {RESOURCE_CODES[a - A.DROP_SAMPLE]} to discard a Sample",
        legal_drop_sample,
        apply_drop_sample,
    ),
    ActionKind(A.USE_DESTINY, A.KILL, describe_use_destiny, legal_use_destiny, apply_use_destiny),
    ActionKind(A.GUESS, A.LEWIS, describe_guess, legal_guess, apply_guess, A.GUESS_GEAR),
    ActionKind(A.LEWIS, A.LEWIS + 1, words("Lewis: double the next find"), legal_lewis, apply_lewis, ("Lewis",)),
    ActionKind(
        A.COLLINS,
        A.COLLINS + 1,
        words("Collins: ignore Monsters this explore"),
        legal_collins,
        apply_collins,
        ("Collins",),
    ),
    ActionKind(
        A.BOX_OF_GOODS,
        A.BOX_OF_GOODS + 1,
        words("discard Box of Goods"),
        legal_box_of_goods,
        apply_box_of_goods,
        ("Box of Goods",),
    ),
    ActionKind(A.MORTAR, A.MORTAR + 1, words("Mortar and Pestle"), legal_mortar, apply_mortar, ("Mortar and Pestle",)),
    ActionKind(
        A.SATCHEL, A.SATCHEL + 1, words("Satchel: swap find for Destiny"), legal_satchel, apply_satchel, ("Satchel",)
    ),
    ActionKind(
        A.JAR_STORE,
        A.JAR_TAKE,
        lambda a, state=None: f"Jar: store {RESOURCE_CODES[a - A.JAR_STORE]}",
        legal_jar_store,
        apply_jar_store,
        ("Jar",),
    ),
    ActionKind(
        A.JAR_TAKE, A.JAR_TAKE + 1, words("take the Jar's Resource back"), legal_jar_take, apply_jar_take, ("Jar",)
    ),
    ActionKind(A.MEDICINE, A.CLARK, describe_medicine, legal_medicine, apply_medicine, ("Medicine",)),
    ActionKind(A.CLARK, A.BACKTRACK, describe_clark, legal_clark, apply_clark, ("Clark",)),
    ActionKind(A.END_TURN, A.END_TURN + 1, words("end turn"), legal_end_turn, apply_end_turn),
)
