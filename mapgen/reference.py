"""The Reference Board as text: a chapter's terrains and rules in words."""

from __future__ import annotations

from constraints.catalogue import Chapter


def chapter_text(ch: Chapter, full: bool = True) -> str:
    """A readable Reference Board; ``full=False`` gives a one-paragraph summary."""
    b = ch.board
    terrains = ", ".join(f"{t.label} ({t.code})" for t in ch.terrains)
    lines = [
        f"{ch.name}: {ch.title}",
        (
            f"  board: {b.height}x{b.width}, rows {b.row_letters[0]}-{b.row_letters[-1]}, "
            f"columns {b.col_numbers[0]}-{b.col_numbers[-1]}"
        ),
        f"  terrains: {terrains}",
    ]
    if ch.counted:
        lines.append(f"  Hills count: {ch.counted.label} ({ch.counted.code})")
    # what a hand-made map file of the chapter must say besides its terrain (a missing one is exit 2)
    optional = [f for f in ch.briefing if f not in ch.required]
    lines.append(
        f"  map file fields: chapter, {', '.join(ch.required)}, terrain (required)"
        + (f"; {', '.join(optional)} (optional)" if optional else "")
    )
    if full:
        lines.append("  rules:")
        lines.extend(f"    {r.id:<3} {r.title}: {r.text}" for r in ch.described)
    else:
        lines.append(f"  rules: {' '.join(r.id for r in ch.described)}")
    return "\n".join(lines)


def chapter_json(ch: Chapter) -> dict:
    b = ch.board
    return {
        "chapter": ch.name,
        "title": ch.title,
        "board": {"rows": b.row_letters, "columns": list(b.col_numbers)},
        "terrains": [t.code for t in ch.terrains],
        "counted": ch.counted.code if ch.counted else None,
        # what a hand-made map file must hold (the text's "map file fields" line)
        "fields": {
            "required": ["chapter", *ch.required, "terrain"],
            "optional": [f for f in ch.briefing if f not in ch.required],
        },
        "rules": [{"id": r.id, "title": r.title, "text": r.text} for r in ch.described],
    }
