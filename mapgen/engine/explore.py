"""Exploring: which Paths may be explored, Monster tolls, the explore itself, Backtrack, activation, the Tipi trade.

Functions over a ``State`` (the facade binds the public ones as its methods: ``state.frontier()``).
"""

from __future__ import annotations

from mapgen.engine import actions as A
from mapgen.engine.actions import ActionKind, words
from mapgen.engine.cards import NRES, RESOURCE_CODES, WATER
from mapgen.engine.rules import POOL, TERRAIN
from mapgen.engine.steps import PAYMENT, STEP, THREAT_DRAW

T = TERRAIN  # Terrain's members, read without the Enum class's __getattr__ hook (rules.TERRAIN)


def frontier(state) -> list[int]:
    """Unexplored cells that may be explored now (Rules for Exploring), before Monster costs."""
    g = state.game
    if state.n_explored == 0:
        return [i for i in g.start_cells if not state.explored[i]]
    ex, cells, mon, orth = state.explored, g.cells, state.monsters, g.orth
    check = g.chapter.blocks_exploring
    if not check:
        # without a chapter's exploring rules the frontier is a function of the explored cells (``explored``
        # marks the cells of ``ex_list``; the result is sorted, so their order does not matter) and the
        # Monsters' cells: the main step asks again after every free action, so keep the last one
        ex_now, mons, ex_list = bytes(ex), tuple(mon), state.ex_list
        cached = state._frontier  # (explored bytes, Monsters' cells, len(ex_list), the open cells, result)
        out = None
        not_rock = g.not_rock
        if cached is not None and cached[1] == mons:
            if cached[0] == ex_now:
                return list(cached[4])
            if cached[2] + 1 == len(ex_list) and (
                int.from_bytes(cached[0], "little") ^ int.from_bytes(ex_now, "little") == 1 << (ex_list[-1] << 3)
            ):
                # one cell explored since (the usual case: an explore a turn): the cells open then, less it,
                # and its own unexplored neighbours, as the comprehension below would find them
                x = ex_list[-1]
                out = set(cached[3])
                out.discard(x)
                if not_rock[x] and x not in mon:
                    out.update([j for j in orth[x] if not ex[j] and j not in mon])
        if out is None:
            # the same cells as the general loop below, as one set comprehension (no chapter checks)
            out = {
                j
                for i in ex_list
                if not_rock[i] and i not in mon
                for j in orth[i]
                if not ex[j] and j not in mon  # decision: a Monster's own Path cannot be explored
            }
    else:
        out = set()
        for i in state.ex_list:
            if cells[i] is not T.ROCK and i not in mon and g.chapter.can_explore_from(state, i):
                for j in orth[i]:
                    # decision: a Monster's own Path cannot be explored
                    if not ex[j] and j not in mon and g.chapter.can_explore_to(state, j):
                        out.add(j)
    if not out:
        # house rule, the variant "relaunch" (the rulebooks are silent): with every way on blocked, the boat
        # lands again on the start column; without it no Path can be explored, and a round of that seals the game
        result = (
            [
                i
                for i in g.start_cells
                if not ex[i] and i not in mon and not (check and not g.chapter.can_explore_to(state, i))
            ]
            if "relaunch" in g.chapter.variants  # the chapter: an observation's game view has it too
            else []
        )
    else:
        result = sorted(out)
    if not check:
        state._frontier = (ex_now, mons, len(ex_list), out, result)
        return list(result)
    return result


def monster_tax(state, cell: int) -> int:
    """Resources to discard before exploring a cell: 1 per Monster in its row or column."""
    if state.game.chapter.custom_tax:
        return state.game.chapter.monster_tax(state, cell)
    if not state.monsters or state.collins_on:
        return 0
    g = state.game
    row_of, col_of = g.row_of, g.col_of
    r, c = row_of[cell], col_of[cell]
    n = 0
    for m in state.monsters:  # a plain loop: usually one Monster, so no generator to set up
        if row_of[m] == r or col_of[m] == c:
            n += 1
    return n


def monster_taxes(state, cells: list[int]) -> list[int]:
    """``monster_tax`` of each cell, the Monsters' rows and columns looked up once for all cells."""
    if state.game.chapter.custom_tax or not state.monsters or state.collins_on:
        return [monster_tax(state, c) for c in cells]
    lines = state.game.lines  # per cell: the cells of its row and column (the cell too)
    taxing = [lines[m] for m in state.monsters]
    if len(taxing) == 1:  # the usual case: one Monster
        line = taxing[0]
        return [1 if c in line else 0 for c in cells]
    if len(taxing) == 2:  # (the sum of the two tests, as below)
        a, b = taxing
        return [(c in a) + (c in b) for c in cells]
    return [sum([c in line for line in taxing]) for c in cells]


# ----- the main step's explore actions -----
def legal_explore(state, out: list[int]) -> None:
    if state.explored_now:
        return
    banned, base = state.banned, A.EXPLORE
    custom = state.game.chapter.custom_tax
    if custom or (state.monsters and not state.collins_on):
        carried = state.carried() + (0 if "toll-no-water" in state.game.variants else state.pack[WATER])
        # a core toll is at most one per Monster: with that many Resources carried every toll can be paid
        if custom or carried < len(state.monsters):
            cells = [c for c in frontier(state) if c != banned]
            out.extend([base + c for c, tax in zip(cells, monster_taxes(state, cells)) if tax <= carried])
            return
    # no Monster toll to pay (monster_tax is 0), or none above what is carried: skip asking it for every cell
    cells = frontier(state)  # a new list, sorted, each cell once
    if banned >= 0 and banned in cells:
        cells.remove(banned)
    out.extend(map(base.__add__, cells))  # base + c for each cell, in C


def only_banned(state) -> bool:
    """Whether the one Path a Backtrack put back this turn ("You then must Explore a different Path") is what
    keeps the player from exploring: it is open and its toll can be paid, and it is open again next turn."""
    cell = state.banned
    if cell < 0 or cell not in state.frontier():
        return False
    carried = state.carried() + (0 if "toll-no-water" in state.game.variants else state.pack[WATER])
    return monster_tax(state, cell) <= carried


def apply_explore(state, a: int) -> None:
    tax = monster_tax(state, a)
    state.push((STEP.EXPLORE, a))
    state.passes = 0
    if tax:  # decision: Water is a Resource (Mortar and Pestle's note), so it can pay a Monster
        state.push((STEP.PAY, tax, PAYMENT.ANY if "toll-no-water" in state.game.variants else PAYMENT.ANY_WATER))


def describe_explore(a: int, state=None) -> str:
    return f"explore {state.game.board.name(a) if state is not None else a}"


# ----- the explore and its activation -----
def run_explore(state, step) -> None:
    g, cell = state.game, step[1]
    t = g.cells[cell]
    ti = g.cell_indices[cell]  # t.index (a property: a Python-level Enum hash)
    state.explored[cell] = 1
    state.seen[cell] = 1
    state.n_explored += 1
    state.ex_list.append(cell)
    state.explored_now = True
    tracked = state.guesses.get(1) == ti
    if tracked:  # Tracking Guide: the Path token and the Resource are discarded, then explore again
        state.explored_now = False
        state.guesses.clear()
        # Lewis and Collins were used for this Path: the explore again is a new one ("EXHAUST: You don't pay
        # the Resource to Explore Paths protected by Monsters" is spent, as after an activated explore); the
        # reading "collins-again" (a variant): the waiver covers the explore again too
        state.lewis_on = False
        if "collins-again" not in g.variants:
            state.collins_on = False
        state.tokens_out += 1
        g.chapter.explored_unactivated(state, cell)
        state.push(*completion_steps(state, cell))
        return
    if t is not T.HILL and state.guesses.get(0) != ti and state.row:
        state.row[0][1] += 1
        state.token_to_row = True
    else:  # a Hill's token, or a Compass's right guess: the token is discarded
        state.tokens_out += 1
        state.token_to_row = False
    state.guesses.clear()
    if state.fires >= 2:
        state.push((STEP.BACKTRACK, cell))
    else:
        state.push((STEP.ACTIVATE, cell))


def legal_backtrack(state, step) -> list[int]:
    return [A.BACKTRACK, A.ACTIVATE]


def apply_backtrack(state, step, a: int) -> None:
    state.agenda.pop()
    cell = step[1]
    if a == A.ACTIVATE:
        state.push((STEP.ACTIVATE, cell))
        return
    # Backtrack: put the Path token back, refresh what was used for this explore, explore elsewhere
    state.fires -= 2
    state.explored[cell] = 0
    state.n_explored -= 1
    state.ex_list.remove(cell)
    if state.token_to_row:
        state.row[0][1] -= 1
    else:
        state.tokens_out -= 1
    state.explored_now = False
    state.banned = cell
    for name in ("Lewis", "Collins", "Compass", "Tracking Guide"):
        state.exhausted.discard(name)
    state.lewis_on = state.collins_on = False
    state.game.chapter.backtracked(state, cell)


def run_activate(state, step) -> None:
    g, cell = state.game, step[1]
    t = g.cells[cell]
    r = g.terrain_res[cell]
    steps: list[tuple] = []
    state.last_gain = -1
    if r >= 0:
        n = 2 if state.lewis_on else 1
        for _ in range(n):
            gain_found(state, r)
    if t is T.SKULL:
        steps.append((STEP.CHANCE_THREAT, THREAT_DRAW.DAY, cell))
    elif t is T.TIPI:
        steps.append((STEP.TRADE,))
    elif t is T.HILL:
        state.extra_turn = True
    # a chapter's own steps come first: Vameter's Crew are placed before the terrain's effects,
    # Maldonado's Tipi gives its Kill Monster card before the trade
    steps[:0] = g.chapter.activate(state, cell, t)
    steps += completion_steps(state, cell)
    state.lewis_on = False
    state.collins_on = False
    state.push(*steps)


def gain_found(state, r: int) -> None:
    """A Resource found by exploring: York puts one that today's Challenges need on the card."""
    if state.game.characters[state.current] == "York":
        for entry in state.row:
            if entry[0] < 0:
                continue
            card = state.game.challenges[entry[0]]
            stored = entry[2] or []
            need = card.requires[r] + card.optional[r]
            if need > stored.count(r) and state.room(r) > 0:
                entry[2] = stored + [r]
                # still a Resource gained, only kept on the card (Maldonado: "when you gain a Resource Token on
                # your turn by any means (exploring, ...)")
                if state.game.chapter.track_gains:
                    state.game.chapter.on_gain(state, r)
                return
    if state.room(r) <= 0:  # the Reserve has no token left
        return
    state.pack[r] += 1
    state.last_gain = r
    if state.game.chapter.track_gains:
        state.game.chapter.on_gain(state, r)


def completion_steps(state, cell: int) -> list[tuple]:
    """The chapter's rewards for the row and the column this explored cell completes."""
    g = state.game
    steps = []
    ex = state.explored
    w = g.board.width
    row, col = g.row_of[cell], g.col_of[cell]
    if ex.find(0, row * w, row * w + w) < 0:  # no unexplored cell in the row (``explored`` is row-major)
        steps += g.chapter.row_reward(state, row)
    if 0 not in ex[col::w]:
        steps += g.chapter.column_reward(state, col)
    return steps


# ----- the Tipi's trade -----
def trade_needed(state, step) -> bool:
    """The Tipi's trade needs something to give."""
    return state.carried() + state.pack[WATER] > 0


def legal_trade(state, step) -> list[int]:
    pack = state.pack
    out = [A.SKIP]
    left = state.rooms(state.game.chapter.resources)
    for give in range(NRES):
        if pack[give]:
            out.extend(
                A.TRADE + 10 * give + take
                for take in state.game.chapter.resources
                # the token given back is in the Reserve before the one taken leaves it
                if take != give and (left[take] > 0 or (take in POOL and give in POOL))
            )
    return out


def apply_trade(state, step, a: int) -> None:
    state.agenda.pop()
    if a == A.SKIP:
        return
    give, take = divmod(a - A.TRADE, 10)
    state.pack[give] -= 1
    state.pack[take] += 1
    if state.game.chapter.track_gains:
        state.game.chapter.on_gain(state, take)


def describe_trade(a: int, state=None) -> str:
    g, t = divmod(a - A.TRADE, 10)
    return f"trade {RESOURCE_CODES[g]} for {RESOURCE_CODES[t]}"


ACTIONS = (
    ActionKind(A.EXPLORE, A.DISCARD, describe_explore, legal_explore, apply_explore),
    ActionKind(A.TRADE, A.FIRE, describe_trade),
    ActionKind(A.BACKTRACK, A.BACKTRACK + 1, words("Backtrack (2 Fire)")),
    ActionKind(A.ACTIVATE, A.ACTIVATE + 1, words("activate")),
)
