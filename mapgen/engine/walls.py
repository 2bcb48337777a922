"""Why a trail is sealed, and where one Skull can wall a start in (issue 22, part 3).

The rulebooks leave open what happens when no Path can be explored (see the engine README, "The sealed
trail"); the engine ends such a game ``"sealed"``. ``explain_sealed`` says why in terms a designer can act on:

- ``walled in``: the cells that close the trail (explored Rocks and Paths under a Monster, from which no Path
  can be explored; unexplored Paths under a Monster or the Vameter, which cannot be explored; Flora's
  red-circled Paths), and the start Paths outside the walled-in trail: with the walls where they stand at the
  end, a first Path there would not have been walled in by them (none: every landing meets the same walls);
  when the walls are all that is unexplored (the Vameter's own Path at the end), ``needs`` as for a map explored;
- ``toll unpaid``: the open Paths and their Monster tolls, against the Resources (and Water) held, and
  ``collins_ready`` when Collins was not exhausted (his ability waives the tolls: the bot did not use it);
- ``map explored``: every Path is explored; ``needs`` says what the team still lacked to win (the chapter's
  ``win_needs``: kills and what the Kill cards lack, Hearts left, the Fight's items, ...).

``skull_walls`` is the map's side of it, for ``mapgen grade``: the start Paths that a Monster on one Skull
(a Monster drawn by day goes "on the Explored Skull") walls in within a few Paths.
"""

from __future__ import annotations

from collections import Counter

from mapgen.engine.cards import RESOURCE_CODES, RESOURCE_NAMES, WATER
from mapgen.terrain import Terrain, quantity

#: a Skull wall counts when the walled-in pocket (the start, the Paths explorable before the Skull, the Skull)
#: holds at most this many Paths: the expedition is then shut in within its first turns
WALL_POCKET = 5


def _trail_region(state, first: int) -> set[int]:
    """The cells reachable from ``first`` under the Rules for Exploring as the board stands (Rocks, Monsters, the
    chapter's own blocks), explored or not."""
    g = state.game
    chapter = g.chapter
    check = chapter.blocks_exploring
    mon = state.monsters
    seen = {first}
    todo = [first]
    while todo:
        i = todo.pop()
        if g.cells[i] is Terrain.ROCK or i in mon or (check and not chapter.can_explore_from(state, i)):
            continue
        for j in g.orth[i]:
            if j not in seen and j not in mon and not (check and not chapter.can_explore_to(state, j)):
                seen.add(j)
                todo.append(j)
    return seen


def explain_sealed(state, why: str) -> dict:
    """The reason a game was sealed, as data (cells by name): see the module docstring."""
    g = state.game
    b = g.board
    out: dict = {"why": why}
    if why == "map explored":
        out["needs"] = g.chapter.win_needs(state)
        return out
    if why == "toll unpaid":
        cells = state.frontier()
        tolls = state.monster_taxes(cells)
        water = "toll-no-water" not in g.variants
        out["open"] = {b.name(c): t for c, t in zip(cells, tolls)}
        out["held"] = state.carried() + (state.pack[WATER] if water else 0)  # Water pays unless toll-no-water
        out["water_pays"] = water
        if "Collins" in g.characters and "Collins" not in state.exhausted:
            # Collins's ability ("You don't pay the Resource to Explore Paths protected by Monsters") was ready:
            # the tolls did not have to seal the trail (the bot ended his turn without it)
            out["collins_ready"] = True
        return out
    chapter = g.chapter
    check = chapter.blocks_exploring
    ex, mon = state.explored, state.monsters
    closed: dict[int, str] = {}
    for i in state.ex_list:
        if all(ex[j] for j in g.orth[i]):
            continue  # nothing unexplored beside it: not part of the wall
        if g.cells[i] is Terrain.ROCK:
            closed[i] = "Rock"
        elif i in mon:
            closed[i] = "Monster"
        elif check and not chapter.can_explore_from(state, i):
            closed[i] = "Flora token"
        else:
            for j in g.orth[i]:
                if not ex[j]:
                    if j in mon:
                        closed[j] = "Monster"
                    elif check and not chapter.can_explore_to(state, j):
                        closed[j] = "Vameter" if j == state.data.get("vam") else "blocked"
    out["closed_by"] = {b.name(c): closed[c] for c in sorted(closed)}
    out["unexplored"] = g.board.size - state.n_explored  # Paths the walls keep out of reach
    if all(ex[i] or i in closed for i in range(g.board.size)):
        # nothing but the walls themselves unexplored (Vameter: the Path it occupies, which "you cannot explore"):
        # the trail was walked to its end, so what the team still lacked is the designer's reason, as for a map
        # explored
        out["needs"] = g.chapter.win_needs(state)
    first = state.ex_list[0] if state.ex_list else -1
    out["first"] = b.name(first) if first >= 0 else None
    region = _trail_region(state, first) if first >= 0 else set()
    others = {}
    for s in g.start_cells:
        if s in region or s in mon or ex[s] or (check and not chapter.can_explore_to(state, s)):
            continue
        others[b.name(s)] = sum(1 for c in _trail_region(state, s) if not ex[c])
    out["other_first"] = others  # start Path -> unexplored Paths it reaches past these walls
    return out


def sealed_words(d: dict) -> str:
    """One line for people: why a game was sealed."""
    why = d["why"]
    if why == "map explored":
        needs = needs_words(d.get("needs") or {})
        return "map explored: every Path is explored" + (f"; still needed: {needs}" if needs else "")
    if why == "toll unpaid":
        tolls = ", ".join(f"{c} (toll {t})" for c, t in d["open"].items())
        pays = ("Resource or Water", "Resources and Water") if d.get("water_pays") else ("Resource", "Resources")
        collins = (
            "; but Collins was ready, whose ability waives every toll on his turn" if d.get("collins_ready") else ""
        )
        return f"toll unpaid: open {tolls}; {quantity(d['held'], *pays)} held{collins}"
    walls = ", ".join(f"{c} {k}" for c, k in d["closed_by"].items())
    if "needs" in d:  # only the walls were left unexplored (explain_sealed)
        needs = needs_words(d["needs"] or {})
        rest = quantity(d.get("unexplored", 0), "Path")
        return f"walled in by {walls}; the rest of the map explored ({rest} left)" + (
            f"; still needed: {needs}" if needs else ""
        )
    others = d.get("other_first") or {}
    if others and len(set(others.values())) == 1:
        alt = f"another first Path would have avoided these walls: {', '.join(others)} ({quantity(next(iter(others.values())), 'Path')} beyond)"
    elif others:
        alt = "another first Path would have avoided these walls: " + ", ".join(
            f"{c} ({quantity(n, 'Path')} beyond)" for c, n in others.items()
        )
    else:
        alt = "no other first Path avoids these walls"
    left = d.get("unexplored")
    left = f", {quantity(left, 'Path')} unexplored" if left is not None else ""
    return f"walled in by {walls or 'nothing'} (first Path {d.get('first')}{left}); {alt}"


def items_words(codes: list[str]) -> str:
    """Items by name, counted: ["Wo", "Ro", "Ro"] -> "Wood, 2 Rock" (the records keep the codes; a designer
    reading the report should not need the code table). Names that are no Resource code stay as they are."""
    names = dict(zip(RESOURCE_CODES, RESOURCE_NAMES, strict=True))
    return ", ".join(f"{n} {names.get(c, c)}" if n > 1 else names.get(c, c) for c, n in Counter(codes).items())


def needs_words(n: dict) -> str:
    """What a team still lacked to win (a chapter's ``win_needs``), in words."""
    parts = []
    if "challenges_left" in n:
        parts.append(quantity(n["challenges_left"], "Challenge card") + " to resolve")
    if "kills_left" in n:
        cards = n.get("kill_cards") or {}
        # cards apart with "; ": their items are listed with commas ("A lacks Mud, Skull, B lacks Wood" read as
        # "B" one more item A lacks)
        held = "; ".join(f"{c} lacks {items_words(lack)}" if lack else f"{c} payable" for c, lack in cards.items())
        parts.append(
            f"{quantity(n['kills_left'], 'kill')} ({quantity(n.get('monsters_in_play', 0), 'Monster')} in play; "
            + (f"Kill cards: {held})" if cards else "no Kill card face up)")
        )
    if "hearts_left" in n:
        parts.append(
            quantity(n["hearts_left"], "Heart")
            + " left on the Vameter"
            + ("" if n.get("vameter_in_play", True) else " (the Vameter not in play)")
        )
    if "trail" in n:
        pos, total = n["trail"]
        if pos <= total:
            parts.append(f"the Expedition Trail (S past {pos} of its {total} icons)")
    if n.get("greek_fire") is False:
        parts.append("the Greek Fire")
    if "fight_needs" in n:
        parts.append("at the Fight: " + (items_words(n["fight_needs"]) or "nothing more"))
    return "; ".join(parts)
