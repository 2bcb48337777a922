"""One loop that plays any game with any bots, and replays a game from its actions."""

from __future__ import annotations

import random

from mapgen.engine.game import CHANCE_PLAYER, CHANCE_STEPS, Game, State, TeamCountError
from mapgen.engine.infostate import information_state
from mapgen.engine.observation import legal_only, observe
from mapgen.inputs import a_kind
from mapgen.terrain import quantity


def play_game(state: State, bots, rng: random.Random, max_steps: int = 20000) -> State:
    """Play to the end: chance nodes draw with ``rng``; player p's decisions come from ``bots[p]``,
    handed p's observation (``mapgen/engine/observation.py``), never the state; a bot with
    ``decides_on = "infostate"`` is handed p's whole information state (``mapgen/engine/infostate.py``),
    one with ``decides_on = "legal"`` only the legal actions (``legal_only``: an observation holding
    ``player``, ``step`` and ``legal``, as OpenSpiel's uniform random agent reads nothing else), one with
    ``decides_on = "state"`` (the ``oracle``, not a fair player) the state itself; one with
    ``decides_on = "infostate_when"`` (the ``scout``) its observation, or its information state at a decision
    where ``wants_infostate(obs)`` says so (the referee's tracking is paid only up to the last such decision)."""
    if len(bots) != state.game.n:  # fewer: an IndexError at the second player's first decision
        raise TeamCountError(
            f"play_game needs one bot per player: {quantity(state.game.n, 'player')}, {quantity(len(bots), 'bot')} given"
        )
    if not isinstance(rng, random.Random):  # an int: AttributeError 'int' object has no attribute 'randrange'
        raise TypeError(f"play_game's rng is a random.Random (random.Random(seed)), not {a_kind(rng, shown=True)}")
    steps = 0
    apply_action = state.apply_action
    wants = [getattr(b, "decides_on", "observation") for b in bots]
    agenda = state.agenda  # (the same list for the whole game: lose() and _win() clear it in place)
    while state.outcome is None:  # state.is_terminal(), without a call per step
        # state.current_player() written out (the outcome is None here)
        p = CHANCE_PLAYER if agenda[-1][0] in CHANCE_STEPS else state.current
        if p == CHANCE_PLAYER:
            pile = state._chance_pile()
            apply_action(1000 + pile[rng.randrange(len(pile))])
        elif wants[p] == "observation":
            apply_action(bots[p].step(observe(state, p)))
        elif wants[p] == "legal":
            apply_action(bots[p].step(legal_only(state, p)))
        elif wants[p] == "infostate_when":  # the scout: its information state at the decisions it searches
            obs = observe(state, p)
            bot = bots[p]
            apply_action(bot.step(information_state(state, p) if bot.wants_infostate(obs) else obs))
        elif wants[p] == "state":  # the oracle: a search with the map in view (it clones, never changes it)
            apply_action(bots[p].step(state))
        else:
            apply_action(bots[p].step(information_state(state, p)))
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"game did not end in {max_steps} steps")
    return state


def replay(game: Game, actions, upto: int | None = None) -> State:
    """The state after applying the recorded actions (chance outcomes included) to a new game."""
    state = game.new_initial_state()
    for k, a in enumerate(actions):
        if upto is not None and k >= upto:
            break
        state.apply_action(a)
    return state
