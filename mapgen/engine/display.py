"""The state in words: the board as the players see it, the backpack, the Challenge Row, Threats, Destiny cards."""

from __future__ import annotations

from mapgen.engine.cards import NRES, RESOURCE_CODES
from mapgen.engine.challenges import injured_card
from mapgen.engine.walls import sealed_words
from mapgen.terrain import quantity


def describe_state(state) -> str:
    """``str(state)``: several lines, the chapter's own (``Chapter.describe_state``) before the last."""
    g = state.game
    b = g.board
    lines = [f"Day {state.day}, turn {state.turn}, player {state.current + 1} ({g.characters[state.current] or '-'})"]
    lines.append("   " + " ".join(f"{c:>3}" for c in b.col_numbers))
    for r, letter in enumerate(b.row_letters):
        cells = []
        for i in b.rows[r]:
            if state.explored[i]:
                t = g.cells[i]
                code = t.code + (str(g.hills[i]) if i in g.hills else "")
            else:
                code = "[]" if not state.seen[i] else g.cells[i].code.lower()
            if i in state.monsters:
                code = "M" + code[:2]
            if i == state.shelter:
                code = code[:2] + "^"
            cells.append(f"{code:>3}")
        lines.append(f"{letter}  " + " ".join(cells))
    pack = " ".join(f"{RESOURCE_CODES[r]}{state.pack[r]}" for r in range(NRES) if state.pack[r])
    lines.append(
        f"Backpack: {pack or 'empty'}; Samples {state.samples}; Fire {state.fires}; "
        f"Shelter {'yes' if state.shelter >= 0 else 'no'}; {state.slots()}/6 spaces"
    )
    row = []
    for c, tokens, stored in state.row:
        if c < 0:
            row.append(f"Injured {tokens}/{g.threats[injured_card(state)].time}")
        else:
            card = g.challenges[c]
            row.append(
                f"{card.describe()} ({tokens}/{card.time})"
                + (f" holds {' '.join(RESOURCE_CODES[r] for r in stored)}" if stored else "")
            )
    lines.append("Challenges: " + ("; ".join(row) or "none"))
    if state.threats:
        lines.append("Threats: " + ", ".join(g.threats[k].name for k in state.threats))
    if g.destiny:
        lines.append(
            "Destiny: held "
            + (", ".join(g.destiny[k].name for k in state.de_held) or "none")
            + "; face up "
            + (", ".join(g.destiny[k].name for k in state.de_face) or "none")
            + (
                "; under Chased: " + ", ".join(g.destiny[k].name for k in state.chased_pile)
                if state.chased_pile
                else ""
            )
        )
    lines += g.chapter.describe_state(state)
    if state.outcome:
        why = ""
        if state.outcome == "sealed" and state.sealed_why:  # a house rule: say why, as the playtest report does
            why = f" (no Path could be explored for a whole round: {sealed_words(state.sealed_why)})"
        lines.append(
            f"Game over: {state.outcome}" + (f", score {state.score} ({state.level()})" if state.won() else "") + why
        )
    else:
        lines.append(f"Waiting on: {waiting_words(state)}")
    return "\n".join(lines)


#: the decision a step waits on, in the rulebooks' words (``waiting_words``)
_WAITING = {
    "pay": "discard {n} to pay",
    "gain": "a Resource to take",
    "trade": "the Tipi's trade: 1 Resource for any other",
    "backtrack": "Backtrack (discard 2 Fire) or activate the Terrain",
    "destiny_pick": "a Destiny card to take",
    "resolve": "Pass or Fail the Challenge card",
    "fatigue": "Fatigued: discard down to 4 Resources or lose 1 Water",
    "limits": "end of turn: discard down to 6 Resources and 10 Water",
    "threat_discard": "the row reward: a Threat card to discard, or none",
    "chance_challenge": "a Challenge card drawn",
    "chance_threat": "a Threat card drawn",
    "chance_destiny": "a Destiny card turned up",
    "chance_held": "a Destiny card drawn",
}


def waiting_words(state) -> str:
    """The decision the game waits on: what the players do, then the step's name in brackets."""
    step = state.agenda[-1]
    kind = str(step[0])
    g = state.game
    if kind == "main":
        said = (
            f"player {state.current + 1} ({g.characters[state.current] or '-'}): Explore a Path or take a Free Action"
        )
    elif kind == "pay":
        water = " (Water may pay)" if len(step) > 2 and step[2] == "any_water" else ""
        said = _WAITING[kind].format(n=quantity(step[1], "Resource")) + water
    elif kind in ("chapter", "chance_chapter") and len(step) > 1:
        said = ("the chapter's decision: " if kind == "chapter" else "a chapter card or token drawn: ") + str(step[1])
    else:
        said = _WAITING.get(kind, kind)
    return f"{said} ({kind})"
