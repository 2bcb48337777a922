"""Helpers shared by the engine's chapter tests: naming cells and setting up explored Paths."""

from __future__ import annotations


def settle(state):
    """Answer chance nodes with the lowest card left (the engine's own ``_advance`` run first)."""
    from mapgen.engine import actions as A
    from mapgen.engine.game import CHANCE_PLAYER

    state._advance()
    state._legal = None
    while state.current_player() == CHANCE_PLAYER:
        state.apply_action(A.CHANCE + min(state._chance_pile()))
    return state


def cell(state, name: str) -> int:
    """The index of a cell named like ``E3`` on the state's board."""
    return state.game.board.index(name)


def opened(state, *names: str) -> None:
    """Mark Paths explored (their tokens discarded), as if found earlier; already explored ones are left."""
    for n in names:
        i = cell(state, n)
        if not state.explored[i]:
            state.explored[i] = state.seen[i] = 1
            state.n_explored += 1
            state.tokens_out += 1
            state.ex_list.append(i)
    state._legal = None


def monsters_on(state, *names: str) -> None:
    """Put a Monster on each named Path, as if drawn there: the next Threat card with a Monster, from the pile."""
    for name in names:
        card = next(k for k in state.th_pile if state.game.threats[k].monster)
        state.th_pile.remove(card)
        state.threats.append(card)
        state.monsters[cell(state, name)] = card
    state._legal = None


def random_playout(game, seed: int, check):
    """Play one game with uniformly random legal actions and chance outcomes, calling ``check(state)``
    after every step; legal actions must be sorted, distinct and non-empty. Returns the final state."""
    import random

    rng = random.Random(seed)
    s = game.new_initial_state()
    steps = 0
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
        else:
            la = s.legal_actions()
            assert la == sorted(set(la)) and la
            s.apply_action(rng.choice(la))
        check(s)
        steps += 1
        assert steps < 5000
    return s
