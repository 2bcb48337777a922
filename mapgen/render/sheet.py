"""The printable sheet: a PDF on A4 or Letter with the map large enough to play on, its briefing and key."""

from __future__ import annotations

import os

from constraints.catalogue import get_chapter, with_every_hill_number
from mapgen.model import Map, expect_map
from mapgen.render.board import (
    _chapter_info,
    board_extent,
    broken_cells,
    check_overlays,
    draw_board,
    forced_hill,
    has_plain_tokens,
    has_unknown,
)
from mapgen.render.output import Rendered, RenderError, output_format, save_figures
from mapgen.render.panel import Panel, briefing, broken_rules, heat_bar, legend, minimap
from mapgen.terrain import Terrain

#: Paper sizes in inches (portrait).
PAPERS = {"a4": (8.27, 11.69), "letter": (8.5, 11.0)}
MARGIN = 0.45  # inches: inside what home printers can reach


def _axes(fig, left: float, top: float, width: float, height: float):
    """An axes placed in inches from the page's top-left corner."""
    w, h = fig.get_size_inches()
    return fig.add_axes((left / w, (h - top - height) / h, width / w, height / h))


def _title(m: Map, chapter_title: str) -> str:
    br = m.briefing
    parts = [chapter_title]
    if br.number is not None:
        parts.append(f"Map {br.number}")
    if br.name:
        parts.append(br.name)
    return " · ".join(parts)


def _page1(
    m: Map,
    unit: float,
    paper: str,
    title: str,
    counted,
    forced,
    heat,
    heat_label: str,
    heat_exact: bool,
    heat_bounds: dict | None = None,
    heat_errors: dict | None = None,
    heat_converged: bool | None = None,
    violations=None,
    hill_numbers: dict | None = None,
):
    """The page to play on: title, the board at ``unit`` inches per cell, the briefing (and mini map) below;
    ``violations``: the rules a complete map breaks, framed on the board and listed under the briefing.

    Returns the figure and whether everything fitted above the bottom margin.
    """
    from matplotlib.figure import Figure  # deferred: matplotlib, slow, only when drawing

    page_w, page_h = PAPERS[paper]
    inner_w = page_w - 2 * MARGIN
    page1 = Figure(figsize=(page_w, page_h), facecolor="#ffffff")
    head = _axes(page1, MARGIN, MARGIN, inner_w, 0.45)
    head.set_axis_off()
    head.text(0, 0.5, _title(m, title), fontsize=16, fontweight="bold", va="center", transform=head.transAxes)
    head.text(
        1,
        0.5,
        f"{paper.upper()} · print at 100%",
        fontsize=8,
        color="#666666",
        va="center",
        ha="right",
        transform=head.transAxes,
    )
    x0, x1, y0, y1 = board_extent(m, right_labels=False)
    board_w, board_h = (x1 - x0) * unit, (y1 - y0) * unit
    bax = _axes(page1, MARGIN + (inner_w - board_w) / 2, MARGIN + 0.5, board_w, board_h)
    draw_board(
        bax,
        m,
        unit * 72,
        forced=forced,
        heat=heat,
        heat_exact=heat_exact,
        heat_bounds=heat_bounds,
        heat_errors=heat_errors,
        right_labels=False,
        broken=broken_cells(m, violations),
        hill_numbers=hill_numbers,
    )
    top = MARGIN + 0.5 + board_h + 0.15
    rest = page_h - MARGIN - top
    has_minimap = m.briefing.fort_pattern is not None
    left_w = inner_w * (0.6 if has_minimap else 1.0)
    p = Panel(_axes(page1, MARGIN, top, left_w, rest), left_w, rest, size=9.5)
    briefing(
        p,
        m,
        title,
        counted,
        forced=len(forced) if forced is not None else None,
        heat_label=heat_label,
        heat_exact=heat_exact,
        heat_unknown=has_unknown(heat),
        heat_bounded=bool(heat_bounds),
        heat_spread=bool(heat_errors),
        heat_converged=heat_converged,
        with_title=False,
        with_minimap=False,
    )
    if violations:  # a broken hand-made map printed to try it: what is wrong shows on paper, as in the picture
        p.gap(0.4)
        broken_rules(p, violations)
        p.gap(0.3)
    # a puzzle (a partial map) is solved on paper: tokens on every cell would cover its revealed cells
    play = (
        "put a Path token on each cell to play"
        if m.complete
        else "write in the terrain under each Path token (the map rules are on page 2)"
    )
    p.text(f"Cells are {unit * 25.4:.0f} mm wide when printed at 100%: {play}.", scale=0.85)
    if heat_label:
        heat_bar(p, heat_label)
    fits = p.y <= rest
    if has_minimap:
        q_w = inner_w - left_w - 0.2
        q = Panel(_axes(page1, MARGIN + left_w + 0.2, top, q_w, rest), q_w, rest, size=9.5)
        q.gap(1.2)
        minimap(q, m.briefing.fort_pattern)
        fits = fits and q.y <= rest
    return page1, fits


def sheet_figures(
    m: Map,
    *,
    paper: str = "a4",
    forced: dict | None = None,
    heat: dict | None = None,
    heat_label: str = "",
    heat_exact: bool = True,
    heat_bounds: dict | None = None,
    chapter=None,
    heat_errors: dict | None = None,
    heat_converged: bool | None = None,
    violations=None,
    hill_numbers: dict | None = None,
) -> list:
    """Two pages: the board with its briefing, then the key and the chapter's rules (``violations``, the rules a
    complete map breaks (``check_map``): each cell of one framed in red with the rule's id, each listed on page 1)."""
    from matplotlib.figure import Figure  # deferred: matplotlib, slow, only when drawing

    if paper not in PAPERS:
        raise RenderError(f"unknown paper {paper!r} (use a4 or letter)")
    check_overlays(m, forced, heat, heat_bounds, heat_errors, hill_numbers)
    title, terrains, counted = _chapter_info(m, chapter)
    m = with_every_hill_number(m, chapter)  # a Hill written `Hi` still shows its number on paper
    page_w, page_h = PAPERS[paper]
    inner_w = page_w - 2 * MARGIN

    x0, x1, y0, y1 = board_extent(m, right_labels=False)
    unit = min(inner_w / (x1 - x0), 7.4 / (y1 - y0))
    # Shrink the board a little at a time until the briefing below it fits on the page.
    while True:
        page1, fits = _page1(
            m,
            unit,
            paper,
            title,
            counted,
            forced,
            heat,
            heat_label,
            heat_exact,
            heat_bounds,
            heat_errors,
            heat_converged,
            violations,
            hill_numbers,
        )
        if fits or unit < 0.5:
            break
        unit *= 0.96

    page2 = Figure(figsize=(page_w, page_h), facecolor="#ffffff")
    k = Panel(_axes(page2, MARGIN, MARGIN, inner_w, page_h - 2 * MARGIN), inner_w, page_h - 2 * MARGIN, size=10)
    k.heading(f"Reference: {title}", gid="reference")
    k.gap(0.3)
    legend(
        k,
        terrains,
        broken=bool(violations),
        partial=has_plain_tokens(m, forced, heat),
        forced=bool(forced),
        forced_hill=forced_hill(forced),
        heat_label=heat_label,
        heat_unknown=has_unknown(heat),
        start_cell=m.briefing.start is not None,
        greek_fire=m.briefing.greek_fire is not None,
        columns=3,
    )
    k.gap(0.6)
    k.text("Map rules", weight="bold", gid="rules")
    if counted is not None:
        k.text(f"Each Hill shows the number of {counted.label}s in its row plus its column.", scale=0.92)
    for info in _rules(m, chapter):
        k.gap(0.25)
        k.text(f"{info.id}  {info.title}", scale=0.92, weight="bold", gid=f"rule-{info.id}")
        k.text(info.text, scale=0.88)
    return [page1, page2]


def _rules(m: Map, chapter=None):
    if chapter is None:
        chapter = get_chapter(m.chapter)
    return chapter.described


def render_sheet(
    m: Map,
    path: str | os.PathLike,
    *,
    paper: str = "a4",
    forced: dict[int, Terrain] | None = None,
    heat: dict[int, float] | None = None,
    heat_label: str = "",
    heat_exact: bool = True,
    heat_bounds: dict[int, float] | None = None,
    chapter=None,
    force: bool = True,
    heat_errors: dict[int, float] | None = None,
    heat_converged: bool | None = None,
    violations=None,
    hill_numbers: dict[int, int] | None = None,
) -> Rendered:
    """Write a printable two-page PDF (A4 or Letter): the board to play on with its briefing, then the key and rules
    (``violations``: the rules a complete map breaks, framed on the board and listed under the briefing)."""
    expect_map(m, "render_sheet")
    fmt = output_format(path)
    if fmt != "pdf":
        raise RenderError(f"{path}: a printable sheet is a PDF; name the file .pdf")
    figures = sheet_figures(
        m,
        paper=paper,
        forced=forced,
        heat=heat,
        heat_label=heat_label,
        heat_exact=heat_exact,
        heat_bounds=heat_bounds,
        chapter=chapter,
        heat_errors=heat_errors,
        heat_converged=heat_converged,
        violations=violations,
        hill_numbers=hill_numbers,
    )
    return save_figures(figures, path, fmt, force=force)
