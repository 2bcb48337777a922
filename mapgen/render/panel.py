"""The Mission Briefing panel and the legend, drawn on an axes whose data units are inches."""

from __future__ import annotations

from mapgen.model import Map, Pattern
from mapgen.render.style import (
    BROKEN,
    GREEK_FIRE,
    HEAT_CMAP,
    PEAK_BADGE,
    START_EDGE,
    TOKEN_EDGE,
    TOKEN_FILL,
    UNKNOWN_FILL,
    style,
)
from mapgen.terrain import Terrain


def _luminance(rgb) -> float:
    r, g, b = rgb[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def wrap(text: str, width: float, fontsize: float, weight: str = "normal") -> list[str]:
    """``text`` in lines no wider than ``width`` inches at ``fontsize`` points, measured in the font they are drawn
    in (a guess of 0.58 em a letter, a bold letter's width, wrapped plain text a tenth early: "to it" was left on a
    line of its own); a word longer than the line is kept whole on its own line."""
    from matplotlib.font_manager import FontProperties  # deferred: matplotlib, slow, only when drawing
    from matplotlib.textpath import text_to_path  # deferred: matplotlib, slow, only when drawing

    font = FontProperties(size=fontsize, weight=weight)
    room = width * 72 * 0.98  # points, a hair inside the edge (hinting in PNG)

    def fits(line: str) -> bool:
        return text_to_path.get_text_width_height_descent(line, font, ismath=False)[0] <= room

    lines: list[str] = []
    for word in text.split():
        if lines and fits(f"{lines[-1]} {word}"):
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def ink_for(rgb) -> str:
    """Black or white text, whichever reads on a fill colour."""
    return "#111111" if _luminance(rgb) > 0.5 else "#ffffff"


class Panel:
    """A column of text and small drawings, laid out top to bottom on an inch-based axes.

    ``ax`` must span exactly ``width`` x ``height`` inches; y grows downwards from 0 at the top.
    """

    def __init__(self, ax, width: float, height: float, *, size: float = 11.0):
        self.ax, self.width, self.height, self.size = ax, width, height, size
        self.y = 0.0
        ax.set_xlim(0, width)
        ax.set_ylim(height, 0)
        ax.set_axis_off()

    @property
    def grow(self) -> float:
        """How much larger than the wide picture's 10.5 pt this panel's words are (never smaller): its tab, mini
        map and key markers grow with them (the tall layout's 19 pt "Greek Fire" ran into its value)."""
        return max(1.0, self.size / 10.5)

    @property
    def line(self) -> float:
        return self.size * 1.55 / 72  # one text line in inches

    def heading(self, text: str, scale: float = 1.35, gid: str | None = None) -> None:
        self.ax.text(0, self.y, text, fontsize=self.size * scale, fontweight="bold", va="top", ha="left", gid=gid)
        self.y += self.line * scale

    def text(
        self, text: str, scale: float = 1.0, weight: str = "normal", gid: str | None = None, color: str = "#000000"
    ) -> None:
        for k, part in enumerate(wrap(text, self.width, self.size * scale, weight) or [""]):
            self.ax.text(
                0,
                self.y,
                part,
                fontsize=self.size * scale,
                fontweight=weight,
                va="top",
                color=color,
                gid=None if k else gid,
            )
            self.y += self.line * scale

    def field(self, label: str, value: str, gid: str | None = None) -> None:
        tab = min(1.25 * self.grow, self.width * 0.34)
        self.ax.text(0, self.y, label, fontsize=self.size, fontweight="bold", va="top", color="#333333")
        for k, part in enumerate(wrap(value, self.width - tab, self.size) or [""]):
            self.ax.text(tab, self.y, part, fontsize=self.size, va="top", gid=None if k else gid)
            self.y += self.line

    def gap(self, lines: float = 0.5) -> None:
        self.y += self.line * lines

    def fits(self, inches: float) -> bool:
        return self.y + inches <= self.height


def tile(ax, x: float, y: float, side: float, t: Terrain, *, label: str | None = None, pt: float, gid=None, lw=0.8):
    """A square terrain tile with its symbol (used in the mini map and the legend)."""
    from matplotlib.patches import FancyBboxPatch  # deferred: matplotlib, slow, only when drawing

    st = style(t)
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            side,
            side,
            boxstyle=f"round,pad=0,rounding_size={side * 0.12}",
            fc=st.colour,
            ec="#333333",
            lw=lw,
            gid=gid,
        )
    )
    ax.text(
        x + side / 2, y + side / 2, label or st.symbol, ha="center", va="center_baseline", fontsize=pt, color=st.ink
    )


def briefing(
    p: Panel,
    m: Map,
    title: str,
    counted: Terrain | None,
    *,
    forced: int | None = None,
    heat_label: str = "",
    heat_exact: bool = True,
    heat_unknown: bool = False,
    heat_bounded: bool = False,
    heat_spread: bool = False,
    heat_converged: bool | None = None,
    with_title: bool = True,
    with_minimap: bool = True,
) -> None:
    """The Mission Briefing: chapter, map number, Peak, start, Greek Fire, Fauna's mini map."""
    b, br = m.board, m.briefing
    p.heading("MISSION BRIEFING", gid="briefing")
    if with_title:
        p.text(title, scale=1.2, weight="bold", gid="briefing-title")
    if with_title and (br.number is not None or br.name):
        number = f"Map {br.number}" if br.number is not None else "Map"
        p.text(f"{number}: {br.name}" if br.name else number, scale=1.1, gid="briefing-number")
    p.gap(0.4)
    p.field("Peak", f"{b.name(br.peak)} (a Rock)", gid="briefing-peak")
    if br.start is None:
        p.field("Start", "column 7: from the river, explore any Path of column 7", gid="briefing-start")
    else:
        p.field("Start", f"the Fort at {b.name(br.start)}", gid="briefing-start")
    if br.greek_fire is not None:
        p.field("Greek Fire", b.name(br.greek_fire), gid="briefing-greek-fire")
    if counted is not None:
        p.field("Hills", f"count the {counted.label}s in their row and column", gid="briefing-hills")
    if not m.complete:
        hidden = len(m.unrevealed())
        p.field("Explored", f"{b.size - hidden} of {b.size} Paths; {hidden} under Path tokens", gid="briefing-state")
    if forced is not None:
        p.field(
            "Forced",
            f"{forced} unexplored Path{'s' if forced != 1 else ''} (one terrain in every completion)",
            gid="briefing-forced",
        )
    if heat_label:
        how = (
            "exact share of all completions"
            if heat_exact
            else "0% or 100% where known, ? where it may be: no fair odds in time"
            if heat_unknown
            else "estimated from samples, not exact: ~25% is about 25%"
            + (
                "; ±14 under it: 95% of such estimates are within 14 points (0–26% where that reaches past 0 or 100%)"
                if heat_spread
                else ""
            )
            + ("; ≤31%: no sample had it there, but it may be, up to 31% (95% bound)" if heat_bounded else "")
        )
        p.field("Shading", f"chance that an unexplored Path is {heat_label} ({how})", gid="briefing-heat")
        if heat_converged is False:  # as solve says it: the chances are rough, however narrow a ± looks
            p.text(
                "NOT converged: the sampler's chains disagree, so these chances are rough "
                "(a longer --time-limit samples more)",
                weight="bold",
                color=BROKEN,
                gid="briefing-not-converged",
            )
    if with_minimap and br.fort_pattern is not None:
        p.gap(0.5)
        minimap(p, br.fort_pattern)


def broken_rules(p: Panel, violations) -> None:
    """The rules a complete map breaks, one line each as ``mapgen validate`` prints them (a picture of a broken map
    said nothing of it: a designer printed it as if it were sound)."""
    n = len(violations)
    ids = ", ".join(dict.fromkeys(v.rule for v in violations))
    heading = f"✗ BREAKS RULES {ids} ({n} violation{'s' if n != 1 else ''})"
    # wrapped at the panel's edge: eight rules' ids ran off the picture, cut at "(13 viola"
    for k, part in enumerate(wrap(heading, p.width, p.size * 1.05, "bold")):
        p.ax.text(
            0,
            p.y,
            part,
            fontsize=p.size * 1.05,
            fontweight="bold",
            va="top",
            color=BROKEN,
            gid=None if k else "broken-rules",
        )
        p.y += p.line * 1.1
    for k, v in enumerate(violations):
        p.text(str(v), scale=0.85, gid=f"broken-rule-{k}")


def minimap(p: Panel, pattern: Pattern) -> None:
    """Fauna's mini map drawn as a small board; ``..`` cells are blank ("any terrain")."""
    from matplotlib.patches import Rectangle  # deferred: matplotlib, slow, only when drawing

    p.text("Fort mini map", weight="bold", gid="minimap")
    p.text("Every Fort matches it, turned by quarter turns but never mirrored.", scale=0.85)
    p.gap(0.2)
    side = min(0.5 * p.grow, p.width / (len(pattern.rows[0]) + 1))
    ax = p.ax
    for r, row in enumerate(pattern.rows):
        for c, t in enumerate(row):
            x, y = c * side, p.y + r * side
            gid = f"minimap-{r}-{c}-{t.code if t else 'any'}"
            if t is None:
                ax.add_patch(Rectangle((x, y), side, side, fc="#ffffff", ec="#9a9a9a", lw=0.8, hatch="///", gid=gid))
            else:
                tile(ax, x, y, side, t, pt=side * 72 * 0.5, gid=gid)
                if t is Terrain.FORT:
                    ax.add_patch(Rectangle((x, y), side, side, fill=False, ec="#000000", lw=2.2))
    key_x = len(pattern.rows[0]) * side + 0.15
    ax.add_patch(Rectangle((key_x, p.y), side * 0.5, side * 0.5, fc="#ffffff", ec="#9a9a9a", hatch="///", lw=0.8))
    ax.text(key_x + side * 0.6, p.y + side * 0.25, "any terrain", fontsize=p.size * 0.85, va="center")
    p.y += len(pattern.rows) * side + p.line * 0.4


def legend(
    p: Panel,
    terrains,
    *,
    partial: bool,
    forced: bool,
    heat_label: str,
    start_cell: bool,
    greek_fire: bool,
    columns: int = 2,
    heat_unknown: bool = False,
    broken: bool = False,
    forced_hill: bool = False,
) -> None:
    """The terrain key of the chapter and the markers drawn on the board (``forced_hill``: a forced Hill is drawn,
    whose number shows only where every completion gives the same)."""
    from matplotlib.patches import Circle  # deferred: matplotlib, slow, only when drawing

    p.text("Key", weight="bold", gid="legend")
    ax = p.ax
    row_h = p.line * 1.25
    side = row_h * 0.85
    col_w = p.width / columns
    rows = -(-len(terrains) // columns)
    for k, t in enumerate(terrains):
        col, row = divmod(k, rows)
        x, y = col * col_w, p.y + row * row_h
        tile(ax, x, y, side, t, pt=side * 72 * 0.55, gid=f"legend-{t.code}")
        ax.text(x + side + 0.08, y + side / 2, f"{t.code}  {t.label}", fontsize=p.size * 0.9, va="center")
    p.y += rows * row_h + p.line * 0.3
    marks = [("peak", "Peak (the Rock named in the briefing)")]
    if start_cell:
        marks.append(("start", "Start Fort"))
    if greek_fire:
        marks.append(("fire", "Greek Fire token"))
    if broken:
        marks.append(("broken", "Breaks a rule: the rule's id (listed above)"))
    if partial:
        marks.append(("token", "Path token: not explored yet"))
    if forced:
        marks.append(
            (
                "forced",
                "Forced: same terrain in every completion"
                + (" (its code, under the chance)" if heat_label else "")
                + ("; a Hill shows its number where every completion gives it the same one" if forced_hill else ""),
            )
        )
    if heat_unknown:
        marks.append(("unknown", f"may be {heat_label}: chance unknown (no fair odds in time)"))
    for kind, words in marks:
        x, y, r = 0.0, p.y, side / 2
        if kind in ("token", "forced", "unknown"):
            fc = {"token": TOKEN_FILL, "unknown": UNKNOWN_FILL}.get(kind) or style(Terrain.WOOD).colour
            if kind == "forced" and heat_label:  # as on a shaded board: a chance token with the terrain's chip
                from matplotlib import colormaps  # deferred: matplotlib, slow, only when drawing

                fc = colormaps[HEAT_CMAP](0.0)
            ax.add_patch(Circle((x + r, y + r), r * 0.92, fc=fc, ec=TOKEN_EDGE, lw=1.0))
            if kind == "unknown":
                ax.text(x + r, y + r, "?", ha="center", va="center", fontsize=side * 72 * 0.45, fontweight="bold")
            if kind == "forced":
                ax.add_patch(Circle((x + r, y + r), r * 1.08, fill=False, ec="#000000", lw=1.2, ls=(0, (2, 1.5))))
                wood = style(Terrain.WOOD)
                if heat_label:
                    chip(ax, x + r, y + r, Terrain.WOOD, max(side * 72 * 0.32, p.size * 0.7), pad=0.15, lw=0.5)
                else:
                    ax.text(
                        x + r,
                        y + r,
                        wood.symbol,
                        ha="center",
                        va="center_baseline",
                        fontsize=side * 72 * 0.5,
                        color=wood.ink,
                    )
            _words(p, x + side + 0.08, y + r, words, kind)
        else:
            badge_text, colour = {
                "peak": ("PEAK", PEAK_BADGE),
                "start": ("START", START_EDGE),
                "fire": ("GREEK FIRE", GREEK_FIRE),
                "broken": ("✗ C1", BROKEN),
            }[kind]
            ax.text(
                x,
                y + r,
                badge_text,
                fontsize=p.size * 0.7,
                fontweight="bold",
                va="center",
                ha="left",
                color="#ffffff" if kind in ("peak", "broken") else "#000000",
                bbox={"boxstyle": "round,pad=0.25", "fc": colour, "ec": "none"},
            )
            _words(p, x + 1.0 * p.grow, y + r, words, kind)
        p.y += row_h
    if heat_label:
        heat_bar(p, heat_label)


def chip(
    ax,
    x: float,
    y: float,
    t: Terrain,
    fontsize: float,
    *,
    pad: float = 0.2,
    lw: float = 0.6,
    number: int | None = None,
    gid: str | None = None,
) -> None:
    """A terrain's code in bold on a chip of its own colour (a forced terrain under a chance, on the board and in
    the key); a Hill's ``number`` after it (``Hi2``)."""
    st = style(t)
    ax.text(
        x,
        y,
        t.code + ("" if number is None else str(number)),
        gid=gid,
        ha="center",
        va="center",
        fontsize=fontsize,
        fontweight="bold",
        color=st.ink,
        bbox={"boxstyle": f"round,pad={pad}", "fc": st.colour, "ec": TOKEN_EDGE, "lw": lw},
    )


def _words(p: Panel, x: float, y: float, words: str, kind: str) -> None:
    """A key row's words beside its marker at ``x``, wrapped to the panel's width (``p.y`` moves past extra lines)."""
    size = p.size * 0.9
    lines = wrap(words, p.width - x, size)
    extra = (len(lines) - 1) * size * 1.2 / 72  # matplotlib's line spacing
    p.ax.text(x, y + extra / 2, "\n".join(lines), fontsize=size, va="center", gid=f"legend-{kind}")
    p.y += extra


def heat_bar(p: Panel, heat_label: str) -> None:
    """The heat map's scale: 0% to 100% chance that a Path holds ``heat_label``."""
    import numpy as np  # deferred: numpy, slow, only when drawing
    from matplotlib import colormaps  # deferred: matplotlib, slow, only when drawing

    p.gap(0.3)
    p.text(f"Chance of {heat_label}", weight="bold", gid="legend-heat")
    width, height = min(p.width - 0.3, 3.2 * p.grow), p.line * 0.9
    gradient = np.linspace(0, 1, 256).reshape(1, -1)
    p.ax.imshow(
        gradient,
        cmap=colormaps[HEAT_CMAP],
        aspect="auto",
        extent=(0.1, 0.1 + width, p.y + height, p.y),
        vmin=0,
        vmax=1,
        gid="heat-scale",
    )
    from matplotlib.patches import Rectangle  # deferred: matplotlib, slow, only when drawing

    p.ax.add_patch(Rectangle((0.1, p.y), width, height, fill=False, ec="#333333", lw=0.8))
    for f in (0, 0.25, 0.5, 0.75, 1):
        x = 0.1 + f * width
        p.ax.plot([x, x], [p.y + height, p.y + height + 0.05], color="#333333", lw=0.8)
        p.ax.text(x, p.y + height + 0.07, f"{round(f * 100)}%", ha="center", va="top", fontsize=p.size * 0.8)
    p.y += height + p.line * 1.2
