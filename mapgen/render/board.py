"""Drawing a map or a partial map: the board with its coordinates, the briefing panel and a key."""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping

from constraints.catalogue import ChapterError, get_chapter, with_every_hill_number
from mapgen.inputs import a_kind
from mapgen.model import Map, expect_map
from mapgen.render.output import DPI, Rendered, RenderError, output_format, save_figures
from mapgen.render.panel import Panel, briefing, broken_rules, chip, ink_for, legend
from mapgen.render.style import (
    BOARD_FILL,
    BROKEN,
    GREEK_FIRE,
    GRID_EDGE,
    HEAT_CMAP,
    PEAK_BADGE,
    RIVER,
    START_EDGE,
    TOKEN_EDGE,
    TOKEN_FILL,
    UNKNOWN_FILL,
    style,
)
from mapgen.terrain import Terrain, clipped_range, percent

RIVER_WIDTH = 0.55  # in cells
LABEL_MARGIN = 0.55  # room for row letters and column numbers, in cells
LAYOUTS = ("wide", "tall")
#: A cell of the tall layout, in inches: its smallest words (a two-line name, a badge: 0.115 of a cell) are 13 pt,
#: 9 px at --dpi 50, where a 7x7 map is 680 px wide (a phone's screen).
TALL_CELL = 1.58
#: The tall layout's panel text in points: its smallest words (a key badge, 0.7 of it) are 13 pt too.
TALL_TEXT = 19.0


def forced_hill(forced: dict | None) -> bool:
    """Whether a Hill is among the forced cells drawn: the key then says when its number is shown."""
    return any(t is Terrain.HILL for t in (forced or {}).values())


def has_plain_tokens(m: Map, forced: dict | None, heat: dict | None) -> bool:
    """Whether some unexplored cell is drawn as a bare Path token (neither shaded nor forced): the key shows one."""
    return any(i not in (heat or {}) and i not in (forced or {}) for i in m.unrevealed())


def has_unknown(heat: dict | None) -> bool:
    """Whether a shading has cells with no fair odds (None: drawn "?", with a key row and words of their own)."""
    return any(v is None for v in (heat or {}).values())


def odds_not_in_time(answer, label: str) -> str | None:
    """``no odds of a LABEL in time`` when ``Solver.heat_answer``'s answer (None: no shading) has no odds (no route
    answered in time) and a cell where the terrain may be (drawn "?"); None when the shading is all there.
    ``mapgen render --probabilities`` exits 3 with it, /api/render says it in its note."""
    if answer is None or answer.method != "none" or None not in answer.heat.values():
        return None
    return f"no odds of a {label} in time"


def heat_options(answer, label: str) -> dict:
    """The shading keywords of ``render_map`` and ``render_sheet`` from ``Solver.heat_answer``'s answer (a
    ``HeatAnswer``; None: no shading) for the terrain named ``label``: chances, whether exact, and the sampler's
    bounds, errors and agreement."""
    if answer is None:
        return {"heat": None}
    return {
        "heat": answer.heat,
        "heat_label": label,
        "heat_exact": answer.method == "exact",  # ODDS_EXACT
        "heat_bounds": answer.bounds,
        "heat_errors": answer.errors,
        "heat_converged": answer.converged,
    }


def _unit(x: object) -> bool:
    """Whether ``x`` is a number from 0 to 1 (numpy's included; a str or None is not)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and 0.0 <= float(x) <= 1.0


def check_overlays(
    m: Map,
    forced: dict | None,
    heat: dict | None,
    heat_bounds: dict | None = None,
    heat_errors: dict | None = None,
    hill_numbers: dict | None = None,
) -> None:
    """RenderError unless ``forced`` and ``heat`` name unexplored cells with terrains and chances in 0..1 (or
    None: no fair odds, the terrain may be there), ``heat_bounds`` shaded cells whose chance is 0 with a bound
    in 0..1, and ``hill_numbers`` forced Hills with whole numbers from 0."""
    for name, given, what in (
        ("forced", forced, "Terrain (Solver.forced(state))"),
        ("heat", heat, "a chance from 0 to 1 (Solver.heat(state, terrain)[0])"),
        ("heat_bounds", heat_bounds, "a chance from 0 to 1 (Solver.heat_answer(state, terrain).bounds)"),
        ("heat_errors", heat_errors, "a chance from 0 to 1 (Solver.heat_answer(state, terrain).errors)"),
        ("hill_numbers", hill_numbers, "a whole number (Solver.hill_numbers(state).numbers)"),
    ):
        if given is not None and not isinstance(given, Mapping):  # 'list' object has no attribute 'items'
            raise RenderError(f"{name} is a dict of cell index to {what}, not {a_kind(given)}")
    hidden = set(m.unrevealed())
    b = m.board
    for i, t in (forced or {}).items():
        if not isinstance(i, int) or not 0 <= i < b.size:
            raise RenderError(f"forced cell {i!r} is not on the board")
        if i not in hidden:
            raise RenderError(f"forced cell {b.name(i)} is already explored")
        if not isinstance(t, Terrain):
            raise RenderError(f"forced cell {b.name(i)} holds {t!r}, not a terrain")
    for i, n in (hill_numbers or {}).items():
        if (forced or {}).get(i) is not Terrain.HILL:
            raise RenderError(f"hill number at {i!r}: only a forced Hill has one")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise RenderError(f"hill number {n!r} at {b.name(i)} is not a whole number from 0")
    for i, p in (heat or {}).items():
        if not isinstance(i, int) or not 0 <= i < b.size:
            raise RenderError(f"shaded cell {i!r} is not on the board")
        if i not in hidden:
            raise RenderError(f"shaded cell {b.name(i)} is already explored")
        if p is None:  # no fair odds in time: the terrain may be there ("?")
            continue
        if not _unit(p):
            raise RenderError(f"chance {p!r} at {b.name(i)} is not between 0 and 1")
    for i, bound in (heat_bounds or {}).items():
        if not isinstance(i, int) or (heat or {}).get(i) != 0.0:
            raise RenderError(f"bound at {i!r}: only a shaded cell whose chance is 0 has one")
        if not _unit(bound):
            raise RenderError(f"bound {bound!r} at {b.name(i)} is not between 0 and 1")
    for i, e in (heat_errors or {}).items():
        if not isinstance(i, int) or i not in (heat or {}):
            raise RenderError(f"error at {i!r}: only a shaded cell has one")
        if not _unit(e):
            raise RenderError(f"error {e!r} at {b.name(i)} is not between 0 and 1")


def broken_cells(m: Map, violations) -> dict[int, list[str]]:
    """Per cell named by a violation, the ids of the rules it breaks, in the order first met."""
    out: dict[int, list[str]] = {}
    for v in violations or ():
        for name in v.cells:
            ids = out.setdefault(m.board.index(name), [])
            if v.rule not in ids:
                ids.append(v.rule)
    return out


def board_extent(m: Map, *, right_labels: bool = True) -> tuple[float, float, float, float]:
    """The board's drawing area in cell units: (left, right, top, bottom), labels and river included."""
    b = m.board
    right = b.width + (RIVER_WIDTH + 0.1 if m.briefing.start is None else 0.0)
    if right_labels:
        right += LABEL_MARGIN
    return -LABEL_MARGIN, right, -LABEL_MARGIN, b.height + LABEL_MARGIN


def _name_size(short: str) -> float:
    """Font size of a terrain's name as a fraction of the cell, so the longest line fits inside the tile."""
    longest = max(len(line) for line in short.split("\n"))
    size = 0.115 if "\n" in short else 0.14
    return min(size, 0.8 / (0.72 * longest))


def _percent(p: float, exact: bool = True) -> str:
    """A chance as printed on a token: "<1%" and ">99%" near the ends; "~" before an estimate's whole percent."""
    if not exact and 0 < p < 1:
        return f"~{min(99, max(1, round(p * 100)))}%"
    # as solve prints it: "0%" and "100%" only where the cell cannot hold it or always does (0.005 is "<1%")
    return "0%" if p <= 0 else "100%" if p >= 1 else percent(p)


def _bound(p: float) -> str:
    """An upper bound on a chance as printed on a token: "≤31%", as ``solve`` prints "Ft up to 31%" (a terrain the
    cell can hold that no sampler chain met there: its share is 0, but 0% would say it cannot be there)."""
    return f"≤{100 * p:.0f}%"


def _spread(p: float, e: float) -> str:
    """An estimate's 95% half-width as printed under it: "±14" (whole points; "±<1" below half a point), as ``solve``
    prints "Sk 12% ±14"; where the interval reaches past 0% or 100%, the range it holds ("0–26%", as ``solve`` prints
    "Sk 12% (0–26%)")."""
    return clipped_range(p, e) or ("±<1" if e < 0.005 else f"±{round(100 * e)}")


def _mark(ax, x: float, y: float, st, number: int | None, number_pt: float, symbol_pt: float, gid: str) -> None:
    """A token's mark at height ``y``: a Hill's number in bold (``gid`` naming it in an SVG), else the terrain's
    symbol."""
    if number is not None:
        ax.text(
            x + 0.5,
            y,
            str(number),
            ha="center",
            va="center",
            fontsize=number_pt,
            fontweight="bold",
            color=st.ink,
            gid=gid,
        )
    else:
        ax.text(x + 0.5, y, st.symbol, ha="center", va="center", fontsize=symbol_pt, color=st.ink)


def draw_board(
    ax,
    m: Map,
    cell_pt: float,
    *,
    forced: dict | None = None,
    heat: dict | None = None,
    heat_exact: bool = True,
    heat_bounds: dict | None = None,
    right_labels: bool = True,
    broken: dict[int, list[str]] | None = None,
    heat_errors: dict | None = None,
    hill_numbers: dict[int, int] | None = None,
) -> None:
    """Draw the board on ``ax`` in cell units (row 0 at the top); ``cell_pt`` is a cell's side in points
    (``heat_exact=False``: the chances are estimates, printed "~25%"; ``heat_bounds``: cells whose estimate is 0
    but which may hold the terrain, printed "≤31%", an upper bound; ``heat_errors``: an estimate's 95% half-width,
    printed "±14" under it, as ``solve`` prints "Sk 12% ±14"; ``broken``: per cell, the ids of the rules it breaks,
    framed in red with the ids on a badge; ``hill_numbers``: forced Hills' numbers, the same in every completion,
    ``Solver.hill_numbers``, drawn on their tokens as a revealed Hill shows its own)."""
    from matplotlib import colormaps  # deferred: matplotlib, slow, only when drawing
    from matplotlib.patches import Circle, FancyBboxPatch, Rectangle  # deferred: matplotlib, slow, only when drawing

    b, br = m.board, m.briefing
    forced = forced or {}
    hill_numbers = hill_numbers or {}
    heat = heat or {}
    heat_bounds = heat_bounds or {}
    heat_errors = heat_errors or {}
    broken = broken or {}
    cmap = colormaps[HEAT_CMAP]
    x0, x1, y0, y1 = board_extent(m, right_labels=right_labels)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.set_axis_off()
    lw = max(0.6, cell_pt * 0.018)
    ax.add_patch(Rectangle((0, 0), b.width, b.height, fc=BOARD_FILL, ec=GRID_EDGE, lw=lw * 1.5, gid="board"))

    label_pt = cell_pt * 0.27
    for c in range(b.width):
        for side, y in (("top", -LABEL_MARGIN / 2), ("bottom", b.height + LABEL_MARGIN / 2)):
            ax.text(
                c + 0.5,
                y,
                b.col_label(c),
                ha="center",
                va="center",
                fontsize=label_pt,
                fontweight="bold",
                gid=f"col-{b.col_label(c)}-{side}",
            )
    river = br.start is None
    right_x = b.width + (RIVER_WIDTH + 0.1 if river else 0) + LABEL_MARGIN / 2
    for r in range(b.height):
        xs = (("left", -LABEL_MARGIN / 2), ("right", right_x)) if right_labels else (("left", -LABEL_MARGIN / 2),)
        for side, x in xs:
            ax.text(
                x,
                r + 0.5,
                b.row_label(r),
                ha="center",
                va="center",
                fontsize=label_pt,
                fontweight="bold",
                gid=f"row-{b.row_label(r)}-{side}",
            )
    if river:
        rx = b.width + 0.1
        ax.add_patch(Rectangle((rx, 0), RIVER_WIDTH, b.height, fc=RIVER, ec=GRID_EDGE, lw=lw, gid="river"))
        ax.text(
            rx + RIVER_WIDTH / 2,
            b.height / 2,
            "RIVER · START ON COLUMN 7",
            rotation=270,
            ha="center",
            va="center",
            fontsize=cell_pt * 0.15,
            fontweight="bold",
            color="#ffffff",
        )

    for i, t in enumerate(m.cells):
        r, c = b.rc(i)
        name = b.name(i)
        x, y = c, r
        if t is not None:
            st = style(t)
            ax.add_patch(
                FancyBboxPatch(
                    (x + 0.05, y + 0.05),
                    0.9,
                    0.9,
                    boxstyle="round,pad=0,rounding_size=0.08",
                    fc=st.colour,
                    ec=GRID_EDGE,
                    lw=lw,
                    gid=f"cell-{name}-{t.code}",
                )
            )
            number = m.hills.get(i)
            two_lines = "\n" in st.short
            sym_y = y + (0.44 if two_lines else 0.47)
            _mark(ax, x, sym_y, st, number, cell_pt * 0.42, cell_pt * 0.36, f"hill-{name}-{number}")
            ax.text(
                x + 0.5,
                y + (0.79 if two_lines else 0.82),
                st.short,
                ha="center",
                va="center",
                fontsize=cell_pt * _name_size(st.short),
                color=st.ink,
                linespacing=0.95,
                fontweight="bold",
            )
        elif i in heat:
            p = heat[i]
            fill = UNKNOWN_FILL if p is None else cmap(float(p))
            ax.add_patch(Circle((x + 0.5, y + 0.5), 0.40, fc=fill, ec=TOKEN_EDGE, lw=lw, gid=f"heat-{name}"))
            if p is None:
                words, gid = "?", "unknown"
            elif i in heat_bounds:
                words = _bound(float(heat_bounds[i]))
                gid = "upto" + words[1:]
            else:
                words, gid = _percent(float(p), heat_exact), _percent(float(p))
            spread = heat_errors.get(i) if not heat_exact and p is not None and i not in forced else None
            if spread is not None:  # the estimate's 95% half-width under it, as solve prints "Sk 12% ±14"
                ax.text(
                    x + 0.5,
                    y + 0.64,
                    _spread(float(p), float(spread)),
                    ha="center",
                    va="center",
                    fontsize=cell_pt * 0.14,
                    color=ink_for(fill),
                    gid=f"heat-{name}-error",
                )
            ax.text(
                x + 0.5,
                y + (0.44 if i in forced else 0.4 if spread is not None else 0.5),
                words,
                ha="center",
                va="center",
                fontsize=cell_pt * 0.2,
                fontweight="bold",
                color=ink_for(fill),
                gid=f"heat-{name}-{gid}",
            )
            if i in forced:
                ax.add_patch(
                    Circle(
                        (x + 0.5, y + 0.5),
                        0.46,
                        fill=False,
                        ec="#000000",
                        lw=lw * 1.6,
                        ls=(0, (3, 2)),
                        gid=f"forced-{name}-{forced[i].code}",
                    )
                )
                # The forced terrain on a chip of its own colour, as large as a forced token's code.
                # a forced Hill's number, the same in every completion, on its chip ("Hi2")
                number = hill_numbers.get(i)
                gid = None if number is None else f"forced-hill-{name}-{number}"
                chip(ax, x + 0.5, y + 0.7, forced[i], cell_pt * 0.14, number=number, gid=gid)
        elif i in forced:
            st = style(forced[i])
            ax.add_patch(
                Circle(
                    (x + 0.5, y + 0.5), 0.40, fc=st.colour, ec=TOKEN_EDGE, lw=lw, gid=f"forced-{name}-{forced[i].code}"
                )
            )
            ax.add_patch(Circle((x + 0.5, y + 0.5), 0.46, fill=False, ec="#000000", lw=lw * 1.6, ls=(0, (3, 2))))
            number = hill_numbers.get(i)
            # a forced Hill whose number every completion gives: shown as a revealed Hill's
            sym_y = y + (0.44 if number is not None else 0.46)
            _mark(ax, x, sym_y, st, number, cell_pt * 0.3, cell_pt * 0.28, f"forced-hill-{name}-{number}")
            ax.text(
                x + 0.5,
                y + 0.72,
                forced[i].code,
                ha="center",
                va="center",
                fontsize=cell_pt * 0.13,
                color=st.ink,
                fontweight="bold",
            )
        else:
            ax.add_patch(Circle((x + 0.5, y + 0.5), 0.40, fc=TOKEN_FILL, ec=TOKEN_EDGE, lw=lw, gid=f"token-{name}"))
            ax.add_patch(Circle((x + 0.5, y + 0.5), 0.31, fill=False, ec=TOKEN_EDGE, lw=lw * 0.6))

        badges = []
        if i in broken:
            ids = " ".join(broken[i])
            badges.append((f"✗ {ids}", BROKEN, "#ffffff", f"broken-{ids.replace(' ', '-')}"))
            ax.add_patch(Rectangle((x + 0.02, y + 0.02), 0.96, 0.96, fill=False, ec=BROKEN, lw=lw * 4))
            ax.add_patch(Rectangle((x + 0.07, y + 0.07), 0.86, 0.86, fill=False, ec="#ffffff", lw=lw * 1.2))
        if i == br.peak:
            badges.append(("PEAK", PEAK_BADGE, "#ffffff", "peak"))
        if i == br.start:
            badges.append(("START", START_EDGE, "#000000", "start"))
            ax.add_patch(Rectangle((x + 0.02, y + 0.02), 0.96, 0.96, fill=False, ec=START_EDGE, lw=lw * 3.5))
        if i == br.greek_fire:
            badges.append(("GREEK FIRE", GREEK_FIRE, "#000000", "greek-fire"))
        for k, (text, fc, ink, gid) in enumerate(badges):
            ax.text(
                x + 0.5,
                y + 0.13 + 0.22 * k,
                text,
                ha="center",
                va="center",
                fontsize=cell_pt * 0.115,
                fontweight="bold",
                color=ink,
                gid=f"{gid}-{name}",
                bbox={"boxstyle": "round,pad=0.2", "fc": fc, "ec": "#ffffff", "lw": 0.6},
            )


def _chapter_info(m: Map, chapter=None):
    """The chapter's title, terrains and counted terrain (from the catalogue unless one is given)."""
    if chapter is None:
        try:
            chapter = get_chapter(m.chapter)
        except ChapterError as e:
            raise RenderError(str(e)) from None
    return chapter.title, tuple(chapter.terrains), chapter.counted


def map_figure(
    m: Map,
    *,
    forced: dict | None = None,
    heat: dict | None = None,
    heat_label: str = "",
    heat_exact: bool = True,
    heat_bounds: dict | None = None,
    chapter=None,
    violations=None,
    heat_errors: dict | None = None,
    heat_converged: bool | None = None,
    layout: str = "wide",
    hill_numbers: dict | None = None,
):
    """A figure of the board beside its briefing panel and key (for SVG, PNG and one-page PDF); ``violations``
    (``constraints.rules.Violation``): the rules a complete map breaks, framed on the board and listed;
    ``layout="tall"``: the panel under the board, its words as large as the board's, for a phone's narrow screen
    (at ``--dpi 50`` a 7x7 map is 680 px wide and its smallest words 9 px; the wide picture at 50 dpi, 647 px wide,
    had 6 px words and an unreadable PEAK badge)."""
    from matplotlib.figure import Figure  # deferred: matplotlib, slow, only when drawing

    expect_map(m, "map_figure")
    if layout not in LAYOUTS:
        raise RenderError(f"unknown layout {layout!r} (use wide or tall)")
    check_overlays(m, forced, heat, heat_bounds, heat_errors, hill_numbers)
    broken = broken_cells(m, violations)
    unknown = has_unknown(heat)
    title, terrains, counted = _chapter_info(m, chapter)
    tall = layout == "tall"
    m = with_every_hill_number(m, chapter)  # a Hill written `Hi` still shows its number on paper
    x0, x1, y0, y1 = board_extent(m, right_labels=not tall)
    margin, gap, panel_w = 0.3, 0.35, 4.4
    unit = TALL_CELL if tall else 7.6 / max(x1 - x0, y1 - y0)  # inches per cell
    board_w, board_h = (x1 - x0) * unit, (y1 - y0) * unit
    if tall:
        panel_w = board_w
    fig = Figure(figsize=(10, 10), facecolor="#ffffff")
    bax = fig.add_axes((0, 0, 1, 1))
    draw_board(
        bax,
        m,
        unit * 72,
        forced=forced,
        heat=heat,
        heat_exact=heat_exact,
        heat_bounds=heat_bounds,
        heat_errors=heat_errors,
        broken=broken,
        right_labels=not tall,
        hill_numbers=hill_numbers,
    )
    pax = fig.add_axes((0, 0, 1, 1))
    p = Panel(pax, panel_w, 40.0, size=TALL_TEXT if tall else 10.5)
    briefing(
        p,
        m,
        title,
        counted,
        forced=len(forced) if forced is not None else None,
        heat_label=heat_label,
        heat_exact=heat_exact,
        heat_unknown=unknown,
        heat_bounded=bool(heat_bounds),
        heat_spread=bool(heat_errors),
        heat_converged=heat_converged,
    )
    if violations:
        p.gap(0.5)
        broken_rules(p, violations)
    p.gap(0.8)
    legend(
        p,
        terrains,
        broken=bool(broken),
        partial=has_plain_tokens(m, forced, heat),
        forced=bool(forced),
        forced_hill=forced_hill(forced),
        heat_label=heat_label,
        heat_unknown=unknown,
        start_cell=m.briefing.start is not None,
        greek_fire=m.briefing.greek_fire is not None,
        columns=3 if tall else 2,
    )
    if tall:  # the board on top, the panel under it, both as wide as the board
        panel_h = p.y
        pax.set_ylim(panel_h, 0)
        fig_w, fig_h = margin * 2 + board_w, margin * 2 + board_h + gap + panel_h
        fig.set_size_inches(fig_w, fig_h)
        bax.set_position((margin / fig_w, (fig_h - margin - board_h) / fig_h, board_w / fig_w, board_h / fig_h))
        pax.set_position((margin / fig_w, margin / fig_h, panel_w / fig_w, panel_h / fig_h))
        return fig
    # Size the figure to what was drawn: the board or the panel, whichever is taller.
    panel_h = max(board_h, p.y)
    pax.set_ylim(panel_h, 0)
    fig_w, fig_h = margin * 2 + board_w + gap + panel_w, margin * 2 + panel_h
    fig.set_size_inches(fig_w, fig_h)
    bax.set_position((margin / fig_w, (fig_h - margin - board_h) / fig_h, board_w / fig_w, board_h / fig_h))
    pax.set_position(((margin + board_w + gap) / fig_w, margin / fig_h, panel_w / fig_w, panel_h / fig_h))
    return fig


def render_map(
    m: Map,
    path: str | os.PathLike,
    *,
    forced: dict[int, Terrain] | None = None,
    heat: dict[int, float] | None = None,
    heat_label: str = "",
    heat_exact: bool = True,
    heat_bounds: dict[int, float] | None = None,
    fmt: str | None = None,
    chapter=None,
    dpi: int = DPI,
    force: bool = True,
    violations=None,
    heat_errors: dict[int, float] | None = None,
    heat_converged: bool | None = None,
    layout: str = "wide",
    hill_numbers: dict[int, int] | None = None,
) -> Rendered:
    """Draw a map (or a partial map) to an SVG, PNG or PDF file.

    ``forced`` marks unexplored cells that hold one terrain in every completion; ``heat`` shades each
    unexplored cell by the chance (0..1) that it holds ``heat_label`` (``heat_exact=False``: an estimate;
    ``heat_bounds``: the sampler's 95% upper bound where its estimate is 0 but the cell may hold the terrain,
    ``Solver.heat_answer``; ``heat_errors``: each other estimate's 95% half-width, printed "±14" under it;
    ``heat_converged=False``: the sampler's chains disagreed, said in red beside the board); ``violations``: the rules a complete map breaks (``check_map``), each cell of one framed
    in red with the rule's id and each listed beside the board; ``layout="tall"``: the panel under the board, with
    words as large as the board's, for a phone (``--dpi 50``); ``hill_numbers``: the forced Hills' numbers where every
    completion gives the same (``Solver.hill_numbers(state).numbers``), drawn on their tokens. The format comes from
    the suffix.
    """
    expect_map(m, "render_map")
    fmt = output_format(path, fmt)
    fig = map_figure(
        m,
        forced=forced,
        heat=heat,
        heat_label=heat_label,
        heat_exact=heat_exact,
        heat_bounds=heat_bounds,
        chapter=chapter,
        violations=violations,
        heat_errors=heat_errors,
        heat_converged=heat_converged,
        layout=layout,
        hill_numbers=hill_numbers,
    )
    return save_figures([fig], path, fmt, dpi=dpi, force=force)
