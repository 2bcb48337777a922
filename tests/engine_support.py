"""Helpers shared by the engine's chapter tests: naming cells and setting up explored Paths."""

from __future__ import annotations


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
