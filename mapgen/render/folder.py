"""A map folder to print (``mapgen pack``): a cover, maps at Map Board size with blank backs, a fillable play log.

The PDF is drawn with reportlab (vector text in embedded DejaVu fonts, AcroForm fields for the log). Every
map is drawn on the 7x7 grid of the Map Board at a physical cell pitch and offset (Training's 5x5 map on
rows B-F, columns 3-7 of that grid, where the rulebook puts its Path tokens), inside a trim box with crop
marks; the Mission Briefing (chapter, map number, Rock Peak, start, Fauna's mini map, Greek Fire) and a QR
code of the table helper's address fill the band below the grid. The calibration page is a millimetre
ruler grid to lay under the Map Board and read the pitch and offset from.

Measurement assumption (the rulebooks give no sizes): a 24 mm cell pitch and the grid's top-left corner
8 mm right of and below the sheet's top-left corner (``DEFAULT_CELL_MM``, ``DEFAULT_OFFSET_MM``); measure
yours with the calibration page and pass ``--cell-mm`` and ``--offset-mm``. The board's window onto the
Mission Briefing is assumed to lie below the grid.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mapgen.board import ROW_LETTERS
from mapgen.mapfile import grade_table
from mapgen.model import Map
from mapgen.output import writing
from mapgen.render.output import RenderError
from mapgen.render.style import STYLES

MM = 72 / 25.4  # points per millimetre
#: Paper sizes in millimetres (portrait).
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: 1/4 inch: inside what home printers reach on both papers.
MARGIN_MM = 6.35
#: Assumed Map Board geometry (no size is printed in the rulebooks): measure with ``mapgen pack --calibrate``.
DEFAULT_CELL_MM = 24.0
DEFAULT_OFFSET_MM = (8.0, 8.0)
GRID = 7  # the Map Board's holes: 7 x 7 (Training uses rows B-F, columns 3-7)
BRIEF_GAP_MM = 4.0  # between the grid and the briefing band
BAND_MM = 44.0  # the briefing band's height
BOTTOM_MM = 6.0  # below the band, inside the trim
MARK_GAP_MM, MARK_LEN_MM = 1.0, 3.5  # crop marks: gap from the trim corner, length
CAPTION_MM = 5.0  # the line under the trim box
QR_MM = 26.0

_FONTS: dict[str, str] = {}
#: the code points both fonts have a glyph for (set with the fonts)
_COVERED: set[int] = set()
#: what a character the fonts lack is printed as: visible (a blank hid it), and in DejaVu Sans
STAND_IN = "\u25a1"
#: the characters printed as ``STAND_IN`` while ``write_folder`` draws, in the order met; None: not noted
_replaced: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("folder_replaced", default=None)


class LayoutError(RenderError):
    """A cell pitch, offset or paper the folder cannot be printed with (one line, exit 2)."""


@dataclass(frozen=True)
class Layout:
    """Where a map sits on the paper: cell pitch and grid offset in mm (from the trim's top-left corner)."""

    paper: str = "a4"
    cell_mm: float = DEFAULT_CELL_MM
    offset_mm: tuple[float, float] = DEFAULT_OFFSET_MM
    bw: bool = False

    @property
    def page(self) -> tuple[float, float]:
        return PAPERS[self.paper]

    @property
    def trim(self) -> tuple[float, float]:
        """The trim box (the cut sheet) in mm: the grid with its offset on every side, then the briefing band."""
        ox, oy = self.offset_mm
        grid = GRID * self.cell_mm
        return 2 * ox + grid, oy + grid + BRIEF_GAP_MM + BAND_MM + BOTTOM_MM

    @property
    def trim_origin(self) -> tuple[float, float]:
        """The trim box's top-left corner on the page (mm from the page's top-left): centred across, near the top."""
        w, _ = self.trim
        return (self.page[0] - w) / 2, MARGIN_MM + MARK_GAP_MM + MARK_LEN_MM

    def check(self) -> None:
        """LayoutError unless the trim box, its crop marks and caption fit inside the 1/4 inch margins."""
        if self.paper not in PAPERS:
            raise LayoutError(f"--paper: unknown paper {self.paper!r} (use a4 or letter)")
        if not 10 <= self.cell_mm <= 40:
            raise LayoutError(f"--cell-mm: a cell pitch between 10 and 40 mm, not {self.cell_mm:g}")
        if any(not 0 <= o <= 40 for o in self.offset_mm):
            raise LayoutError(f"--offset-mm: offsets between 0 and 40 mm, not {_pair(self.offset_mm)}")
        w, h = self.trim
        room_w = self.page[0] - 2 * MARGIN_MM - 2 * (MARK_GAP_MM + MARK_LEN_MM)
        room_h = self.page[1] - 2 * MARGIN_MM - 2 * (MARK_GAP_MM + MARK_LEN_MM) - CAPTION_MM
        if w > room_w + 1e-9 or h > room_h + 1e-9:
            raise LayoutError(
                f"--cell-mm: a map at {self.cell_mm:g} mm cells and a {_pair(self.offset_mm)} mm offset is "
                f"{w:.1f} x {h:.1f} mm; "
                f"{self.paper.upper()} holds {room_w:.1f} x {room_h:.1f} mm inside its 1/4 inch margins and crop marks"
            )


@dataclass(frozen=True)
class FolderMap:
    """One map of a folder: its number in the folder, the map, its helper link and where it came from."""

    number: int
    map: Map
    url: str
    source: str = ""

    @property
    def grade(self) -> dict | None:
        """The map's ``[grade]`` table, None when it has none or the table graded the map before an edit."""
        return grade_table(self.map)


def _pair(xy: tuple[float, float]) -> str:
    return f"{xy[0]:g},{xy[1]:g}"


def _fonts() -> tuple[str, str]:
    """DejaVu Sans (matplotlib's own copy: every terrain symbol), registered once; (regular, bold)."""
    if not _FONTS:
        import matplotlib  # deferred: matplotlib (for its fonts), only when a PDF is written
        from reportlab.pdfbase import pdfmetrics  # deferred: reportlab, slow, only when a PDF is written
        from reportlab.pdfbase.ttfonts import TTFont  # deferred: reportlab, slow, only when a PDF is written

        folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
        covered = []
        for name, file in (("DejaVu", "DejaVuSans.ttf"), ("DejaVu-Bold", "DejaVuSans-Bold.ttf")):
            font = TTFont(name, str(folder / file))
            pdfmetrics.registerFont(font)
            covered.append(set(font.face.charToGlyph))
            _FONTS[name] = file
        _COVERED.update(covered[0] & covered[1])
    return "DejaVu", "DejaVu-Bold"


def printable(s: str) -> str:
    """``s`` as the PDF prints it: each character both fonts lack a glyph for (CJK: DejaVu has none, and reportlab
    printed them as blanks) is ``STAND_IN``, one for one, and noted in ``_replaced`` for ``write_folder``'s caller;
    control characters are kept (the text layout handles them)."""
    if not _COVERED:
        _fonts()
    if all(ord(ch) in _COVERED or ch < " " for ch in s):
        return s
    seen = _replaced.get()
    out = []
    for ch in s:
        if ord(ch) in _COVERED or ch < " ":
            out.append(ch)
        else:
            out.append(STAND_IN)
            if seen is not None and ch not in seen:
                seen.append(ch)
    return "".join(out)


def _width(s: str, font: str, size: float) -> float:
    """``s``'s width in points as printed (``printable``)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth  # deferred: reportlab, slow, only when a PDF is written

    return stringWidth(printable(s), font, size)


def _split(s: str, font: str, size: float, width: float) -> list[str]:
    """``s`` as printed (``printable``), wrapped to ``width`` points."""
    from reportlab.lib.utils import simpleSplit  # deferred: reportlab, slow, only when a PDF is written

    return simpleSplit(printable(s), font, size, width)


class _Page:
    """A canvas in millimetres measured from the page's top-left corner. ``drawn``: the box (left, top, right,
    bottom in mm from the page's top-left corner) of everything drawn through its methods (text by its font's
    ascent, descent and width; strokes with half their width), None before anything is."""

    def __init__(self, canvas, page_mm: tuple[float, float]):
        self.c = canvas
        self.h = page_mm[1]
        self.font, self.bold = _fonts()
        self.drawn: tuple[float, float, float, float] | None = None

    def _ink(self, left: float, top: float, right: float, bottom: float) -> None:
        d = self.drawn or (left, top, right, bottom)
        self.drawn = (min(d[0], left), min(d[1], top), max(d[2], right), max(d[3], bottom))

    def y(self, top_mm: float) -> float:
        return (self.h - top_mm) * MM

    def text(self, x, top, s, size=9.0, *, bold=False, colour="#000000", align="left"):
        """One line whose baseline is ``top`` mm from the page's top."""
        from reportlab.lib.colors import HexColor  # deferred: reportlab, slow, only when a PDF is written
        from reportlab.pdfbase.pdfmetrics import getAscentDescent  # deferred: as HexColor

        c = self.c
        c.setFillColor(HexColor(colour))
        c.setFont(self.bold if bold else self.font, size)
        draw = {"left": c.drawString, "centre": c.drawCentredString, "right": c.drawRightString}[align]
        s = printable(s)
        draw(x * MM, self.y(top), s)
        font = self.bold if bold else self.font
        w = _width(s, font, size) / MM
        ascent, descent = (v / MM for v in getAscentDescent(font, size))
        left = x - {"left": 0.0, "centre": w / 2, "right": w}[align]
        self._ink(left, top - ascent, left + w, top - descent)

    def lines(self, x, top, s, width, size=9.0, *, bold=False, colour="#000000") -> float:
        """Text wrapped to ``width`` mm; returns the top of the next line."""
        step = _line_step(size)
        for line in _split(s, self.bold if bold else self.font, size, width * MM):
            self.text(x, top, line, size, bold=bold, colour=colour)
            top += step
        return top

    def chars(self, x, top, s, width, size=6.0) -> float:
        """Text with no spaces (an address) broken anywhere to fit ``width`` mm; returns the next line's top."""
        line = ""
        for ch in printable(s):
            if line and _width(line + ch, self.font, size) > width * MM:
                self.text(x, top, line, size)
                top += size * 1.2 / MM
                line = ""
            line += ch
        if line:
            self.text(x, top, line, size)
            top += size * 1.2 / MM
        return top

    def rect(self, x, top, w, h, *, fill=None, stroke="#000000", width=0.5):
        from reportlab.lib.colors import HexColor  # deferred: reportlab, slow, only when a PDF is written

        c = self.c
        c.setLineWidth(width)
        if stroke:
            c.setStrokeColor(HexColor(stroke))
        if fill:
            c.setFillColor(HexColor(fill))
        c.rect(x * MM, self.y(top + h), w * MM, h * MM, stroke=1 if stroke else 0, fill=1 if fill else 0)
        pad = width / 2 / MM if stroke else 0.0
        self._ink(x - pad, top - pad, x + w + pad, top + h + pad)

    def line(self, x0, y0, x1, y1, *, colour="#000000", width=0.4):
        from reportlab.lib.colors import HexColor  # deferred: reportlab, slow, only when a PDF is written

        self.c.setStrokeColor(HexColor(colour))
        self.c.setLineWidth(width)
        self.c.line(x0 * MM, self.y(y0), x1 * MM, self.y(y1))
        pad = width / 2 / MM
        self._ink(min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad)

    def circle(self, x, top, r, *, colour="#000000", width=0.4):
        from reportlab.lib.colors import HexColor  # deferred: reportlab, slow, only when a PDF is written

        self.c.setStrokeColor(HexColor(colour))
        self.c.setLineWidth(width)
        self.c.circle(x * MM, self.y(top), r * MM, stroke=1, fill=0)
        pad = r + width / 2 / MM
        self._ink(x - pad, top - pad, x + pad, top + pad)


def crop_marks(p: _Page, x0: float, y0: float, w: float, h: float) -> None:
    """Corner marks outside the trim box (x0, y0, w, h in mm): cut along the lines they point along."""
    g, n = MARK_GAP_MM, MARK_LEN_MM
    for x, sx in ((x0, -1), (x0 + w, 1)):
        for y, sy in ((y0, -1), (y0 + h, 1)):
            p.line(x + sx * g, y, x + sx * (g + n), y, width=0.3)
            p.line(x, y + sy * g, x, y + sy * (g + n), width=0.3)


def _qr_image(url: str):
    """The QR code of ``url`` as a 1-bit picture, 6 px per module with its 4-module quiet zone."""
    import segno  # deferred: segno, only for a QR code
    from PIL import Image  # deferred: PIL, only for a QR code

    qr = segno.make(url, error="m", micro=False)
    size = len(qr.matrix) + 8
    img = Image.new("1", (size, size), 1)
    px = img.load()
    for r, row in enumerate(qr.matrix):
        for c, dark in enumerate(row):
            if dark:
                px[c + 4, r + 4] = 0
    return img.resize((size * 6, size * 6), Image.NEAREST)


# ----- map pages -----
def _draw_cell(p: _Page, x, top, s, m: Map, i: int, bw: bool) -> None:
    """One terrain cell ``s`` mm wide: its colour (not in black and white), symbol, name, Hill number, badges."""
    t = m.cells[i]
    st = STYLES[t]
    br = m.briefing
    ink = "#000000" if bw else st.ink
    p.rect(x, top, s, s, fill=None if bw else st.colour, stroke="#9a9a9a" if bw else "#ffffff", width=0.6)
    name = m.board.name(i)
    p.text(x + 1.2, top + 3.2, name, 5.5, colour="#555555" if bw else ink)
    number = m.hills.get(i)
    if number is not None:
        p.text(x + s / 2, top + s * 0.62, str(number), s * 0.95, bold=True, colour=ink, align="centre")
        p.text(x + s - 1.2, top + 3.2, st.symbol, 7, colour=ink, align="right")
    else:
        p.text(x + s / 2, top + s * 0.60, st.symbol, s * 1.05, colour=ink, align="centre")
    label = st.short.replace("\n", " ")
    p.text(x + s / 2, top + s - 2.0, label, 6.5 if len(label) > 9 else 7.5, bold=True, colour=ink, align="centre")
    badges = []
    if i == br.peak:
        badges.append("PEAK")
    if br.start is not None and i == br.start:
        badges.append("START")
    if br.greek_fire is not None and i == br.greek_fire:
        badges.append("GREEK FIRE")
    if badges:
        p.text(x + s - 1.2, top + 6.4, " · ".join(badges), 5, bold=True, colour=ink, align="right")


def _cut(s: str, width: float, size: float, font: str) -> str:
    """``s`` cut with "…" to fit ``width`` mm (as it is when it fits)."""
    if _width(s, font, size) <= width * MM:
        return s
    while s and _width(s.rstrip() + "…", font, size) > width * MM:
        s = s[:-1]
    return s.rstrip() + "…"


def map_line(p: _Page, fm: FolderMap, x: float, top: float, width: float) -> None:
    """The band's map line, as render's briefing says it: "Map 3", or "Map 3: The Long Ridge" for a map file with a
    name; in the band's first column (``x``, ``width`` mm; ``top``: the band's top), between the chapter's title and
    MISSION BRIEFING. One line at 17 pt, smaller down to 10 pt; a longer one wraps on two lines at 8.5 pt, cut with
    "…" past the second (the cover lists every name whole)."""
    name = fm.map.briefing.name
    line = f"Map {fm.number}: {name}" if name else f"Map {fm.number}"
    fit = 17.0 * width * MM / _width(line, p.bold, 17.0)
    if fit >= 10.0:
        p.text(x, top + 15.5, line, min(17.0, fit), bold=True)
        return
    size = 8.5
    lines = _wrapped(line, width, size, bold=True)
    lines = [lines[0], " ".join(lines[1:])] if len(lines) > 1 else lines
    for k, s in enumerate(lines):
        p.text(x, top + 12.5 + 4.0 * k, _cut(s, width, size, p.bold), size, bold=True)


def _briefing_band(p: _Page, fm: FolderMap, title: str, x0: float, top: float, width: float, bw: bool) -> None:
    """The Mission Briefing as the board shows it: chapter, map number, Rock Peak, start, mini map; the QR link."""
    br, b = fm.map.briefing, fm.map.board
    p.rect(x0, top, width, BAND_MM, stroke="#000000", width=0.6)
    x = x0 + 3
    size = min(12.0, 12.0 * 55 * MM / _width(title.upper(), p.bold, 12.0))
    p.text(x, top + 7, title.upper(), size, bold=True)
    map_line(p, fm, x, top, 55.0)
    y = top + 22
    p.text(x, y, "MISSION BRIEFING", 7, bold=True, colour="#333333")
    y += 4.6
    p.text(x, y, f"Rock Peak: {b.name(br.peak)}", 9)
    y += 4.4
    start = "column 7 (the river)" if br.start is None else f"the Fort at {b.name(br.start)}"
    p.text(x, y, f"Start: {start}", 9)
    if br.greek_fire is not None:
        y += 4.4
        p.text(x, y, f"Greek Fire: {b.name(br.greek_fire)}", 9)
    grade = fm.grade
    if grade and grade.get("tier"):
        y += 4.4
        p.text(x, y, f"Deduction grade: {grade['tier']}", 7.5, colour="#444444")
    qx = x0 + width - QR_MM - 2
    text_x = x0 + 60
    if br.fort_pattern is not None:
        rows = br.fort_pattern.rows
        cell = min(8.5, (BAND_MM - 12) / len(rows))
        mx = x0 + 60
        text_x = mx + max(len(r) for r in rows) * cell + 4
        p.text(mx, top + 5.5, "Mini map: 3 Forts", 7, bold=True, colour="#333333")
        p.text(mx, top + BAND_MM - 2.5, "turn it, never mirror it", 5.5, colour="#333333")
        for r, row in enumerate(rows):
            for c, t in enumerate(row):
                cx, cy = mx + c * cell, top + 8 + r * cell
                if t is None:
                    p.rect(cx, cy, cell, cell, stroke="#9a9a9a", width=0.4)
                    p.text(cx + cell / 2, cy + cell * 0.62, "..", 7, colour="#777777", align="centre")
                    continue
                st = STYLES[t]
                p.rect(cx, cy, cell, cell, fill=None if bw else st.colour, stroke="#555555", width=0.4)
                ink = "#000000" if bw else st.ink
                p.text(cx + cell / 2, cy + cell * 0.55, st.symbol, cell * 1.6, colour=ink, align="centre")
                p.text(cx + cell / 2, cy + cell - 0.9, t.code, 5, bold=True, colour=ink, align="centre")
    text_w = qx - 2 - text_x
    if text_w >= 22:
        p.text(text_x, top + 5.5, "Table helper", 7, bold=True, colour="#333333")
        y = p.lines(
            text_x, top + 9, "Scan to open mapgen serve's helper on this briefing:", text_w, 6, colour="#333333"
        )
        p.chars(text_x, y + 1, fm.url, text_w, 5.5)
    from reportlab.lib.utils import ImageReader  # deferred: reportlab, slow, only when a PDF is written

    p.c.drawImage(ImageReader(_qr_image(fm.url)), qx * MM, p.y(top + 2 + QR_MM), QR_MM * MM, QR_MM * MM)


def map_page(p: _Page, fm: FolderMap, title: str, layout: Layout) -> None:
    """One map at Map Board size in its trim box, with crop marks and the caption below."""
    m = fm.map
    x0, y0 = layout.trim_origin
    w, h = layout.trim
    ox, oy = layout.offset_mm
    s = layout.cell_mm
    gx, gy = x0 + ox, y0 + oy
    b = m.board
    for r in range(b.height):
        for c in range(b.width):
            i = b.at(r, c)
            row, col = b.first_row + r, b.first_col - 1 + c
            _draw_cell(p, gx + col * s, gy + row * s, s, m, i, layout.bw)
    p.rect(gx, gy, GRID * s, GRID * s, stroke="#000000", width=0.8)  # the Map Board's grid, Training's too
    _briefing_band(p, fm, title, gx, gy + GRID * s + BRIEF_GAP_MM, GRID * s, layout.bw)
    crop_marks(p, x0, y0, w, h)
    caption = (
        f"{title} · Map {fm.number} · cut along the corner marks · print at 100% (actual size) · "
        f"cells {s:g} mm, grid offset {_pair(layout.offset_mm)} mm"
    )
    p.text(layout.page[0] / 2, y0 + h + MARK_GAP_MM + MARK_LEN_MM + 3.5, caption, 6.5, colour="#555555", align="centre")


# ----- cover and play log -----
def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def _sealed(f: dict) -> str:
    """A [grade] table bot's sealed share with its walled-in share: "35% (10%)" (a table from before issue 41 kept
    the walled-in share alone, as ``blocked_share``)."""
    walled = f.get("walled_in_rate", f.get("blocked_share"))
    return f"{_pct(f.get('sealed_rate'))} ({_pct(walled)})"


def _head_bot(bots: list[str], g: dict) -> str | None:
    """The bot whose sealed share and days a map's row shows: the first of ``bots`` its ``[grade]`` table played."""
    return next((b for b in bots if isinstance(g.get(b), dict)), None)


def cover_rows(maps: list[FolderMap]) -> tuple[list[str], list[list[str]]]:
    """The folder's table: map number, deduction grade and the play figures of each map's ``[grade]`` table. The
    sealed share and the days are one bot's, named in their headers ("Heuristic sealed (walled in)") as in
    ``mapgen grade``'s tables; when the maps' first bots differ, the headers say "first bot" and each cell names
    its bot."""
    bots = [
        b
        for b in ("heuristic", "deducer", "clairvoyant")
        if any(isinstance((fm.grade or {}).get(b), dict) for fm in maps)
    ]
    head_bots = list(dict.fromkeys(b for fm in maps if (b := _head_bot(bots, fm.grade or {})) is not None))
    who = head_bots[0].capitalize() if len(head_bots) == 1 else "First bot"
    head = ["Map", "Grade", "Guesses", "Reveal set"]
    head += [f"{b.capitalize()} wins" for b in bots] + [f"{who} sealed (walled in)", f"{who} days", "Seed"]
    rows = []
    for fm in maps:
        g = fm.grade or {}
        row = [str(fm.number), g.get("tier", "not graded"), str(g.get("guesses", "–")), str(g.get("reveal_set", "–"))]
        for b in bots:
            f = g.get(b)
            if isinstance(f, dict):
                lo, hi = f.get("win_rate_ci", [None, None])
                row.append(f"{_pct(f.get('win_rate'))} ({_pct(lo)}–{_pct(hi)})")
            else:
                row.append("–")
        name = _head_bot(bots, g)
        head_bot = g[name] if name else None
        named = f"{name}: " if name and len(head_bots) > 1 else ""
        row.append(named + _sealed(head_bot) if head_bot else "–")
        row.append(named + f"{head_bot['mean_days']:.1f}" if head_bot and "mean_days" in head_bot else "–")
        gen = fm.map.meta.get("generator")
        seed = gen.get("seed") if isinstance(gen, dict) else None
        row.append("–" if seed is None else str(seed))
        rows.append(row)
    return head, rows


def house_rules_line(rules: dict) -> str:
    """The cover's line for house rules: the file and the fingerprint a map's ``[generator]`` table records."""
    return (
        f"House rules: {rules['rules']} (rules fingerprint {rules['rules_fingerprint']}). "
        "These maps keep them, not the chapter's shipped rules."
    )


#: The cover table's row height in mm: as tall as the first cover page lets, at most ROW_MAX_MM; below ROW_MIN_MM
#: (8 pt text still clear of the row lines) the table continues on the next cover page instead.
ROW_MAX_MM, ROW_MIN_MM = 7.0, 4.0
COVER_FIRST_MM = 14.0  # a cover page's first baseline, below the top margin


@dataclass(frozen=True)
class _Block:
    """A piece of the cover: ``draw(p, top)`` draws it from ``top`` (mm) and nothing lower than ``top + height``."""

    height: float
    draw: Callable[[_Page, float], None]


#: A wrapped line's step, in font sizes (``_Page.lines``)
LEADING = 1.25


def _line_step(size: float) -> float:
    """The step from one wrapped line of ``size`` points to the next, in mm (``_Page.lines``)."""
    return size * LEADING / MM


def _wrapped(s: str, width: float, size: float, *, bold: bool = False) -> list[str]:
    regular, heavy = _fonts()
    return _split(s, heavy if bold else regular, size, width * MM) or [s]


def _text_block(x, s, width, size, *, bold=False, colour="#000000", before=0.0, after=0.0) -> _Block:
    """Wrapped text: ``before`` mm to its first baseline, ``after`` mm below its last line's step."""
    step = _line_step(size)
    n = len(_wrapped(s, width, size, bold=bold))

    def draw(p: _Page, top: float) -> None:
        p.lines(x, top + before, s, width, size, bold=bold, colour=colour)

    return _Block(before + n * step + after, draw)


class _Table:
    """The cover's table of maps (``cover_rows``) fitted to ``width`` mm: column widths, the wrapped headers."""

    def __init__(self, maps: list[FolderMap], x: float, width: float):
        self.x = x
        self.head, self.rows = cover_rows(maps)
        widths = [9.0, 18.0, 14.0, 13.0] + [30.0] * (len(self.head) - 7) + [28.0, 16.0, 0.0]
        widths[-1] = max(14.0, width - sum(widths))
        scale = min(1.0, width / sum(widths))
        self.widths = [w * scale for w in widths]
        self.width = sum(self.widths)
        # the headers wrap in their column ("Heuristic sealed" over "(walled in)"), the header row as tall as needed
        self.head_lines = [_wrapped(s, w - 2, 6.5, bold=True) for w, s in zip(self.widths, self.head)]
        self.step = 6.5 * 1.2 / MM
        self.head_h = max(map(len, self.head_lines)) * self.step + 2.5

    def block(self, rows: list[list[str]], row_h: float) -> _Block:
        """The header row and ``rows`` (the header repeated on each cover page the table continues on)."""
        head_h = self.head_h

        def draw(p: _Page, top: float) -> None:
            x = self.x
            p.rect(x, top, self.width, head_h, fill="#e8e8e8", stroke=None)
            cx = x
            for w, lines in zip(self.widths, self.head_lines):
                for n, line in enumerate(lines):
                    p.text(cx + 1.5, top + 1.0 + self.step * (n + 0.8), line, 6.5, bold=True)
                cx += w
            top += head_h
            p.line(x, top, x + self.width, top, colour="#999999", width=0.3)
            for cells in rows:
                cx = x
                for w, s in zip(self.widths, cells):
                    p.text(cx + 1.5, top + row_h * 0.68, s, 8)
                    cx += w
                top += row_h
                p.line(x, top, x + self.width, top, colour="#999999", width=0.3)

        return _Block(head_h + len(rows) * row_h, draw)


def cover_plan(
    maps: list[FolderMap], title: str, layout: Layout, note: str, rules: dict | None = None
) -> list[list[tuple[float, _Block]]]:
    """The cover's pages, each a list of (top in mm, block): the title, the note and the house rules' line, the
    table of maps, its legend, how to use the folder. Nothing is drawn below the bottom margin: the rows are as tall
    as the first page lets (``ROW_MAX_MM`` at most), the legend and the instructions moving to the next page first;
    at ``ROW_MIN_MM`` the table continues on the next page under its header again."""
    x, width = MARGIN_MM + 6, layout.page[0] - 2 * MARGIN_MM - 12
    first, bottom = MARGIN_MM + COVER_FIRST_MM, layout.page[1] - MARGIN_MM
    folder = f"A folder of {len(maps)} map{'s' if len(maps) != 1 else ''} made by mapgen · {note}"
    step = _line_step(9)  # a 9 pt line; its block ends ``after`` mm below its last line's baseline less the step
    heading = f"Corps of Discovery · {title}"
    # 20 pt, smaller when it would pass the right margin (Training's title on A4 did, by 0.75 mm)
    size = min(20.0, 20.0 * width * MM / _width(heading, _fonts()[1], 20.0))
    head = [_Block(8, lambda p, top: p.text(x, top, heading, size, bold=True))]
    head.append(_text_block(x, folder, width, 9, colour="#444444", after=(5 if rules else 10) - step))
    if rules:  # under the folder's line, bold: the rules a printed folder is played under
        head.append(_text_block(x, house_rules_line(rules), width, 9, bold=True, after=10 - step))
    table = _Table(maps, x, width)
    tail = [*_names(maps, x, width), _legend(x, width), _instructions(x, width, layout)]
    rows = table.rows
    # the rows: as tall as the first page lets with as much of the legend and instructions below them as can be
    room = bottom - first - sum(b.height for b in head) - table.head_h
    row_h = ROW_MIN_MM
    for k in range(len(tail), -1, -1):
        fit = (room - sum(b.height for b in tail[:k])) / max(1, len(rows))
        if fit >= ROW_MIN_MM:
            row_h = min(ROW_MAX_MM, fit)
            break
    pages: list[list[tuple[float, _Block]]] = [[]]
    top = first

    def new_page() -> None:
        nonlocal top
        pages.append([])
        top = first

    def place(b: _Block) -> None:
        nonlocal top
        if pages[-1] and top + b.height > bottom + 1e-9:  # the next cover page
            new_page()
        pages[-1].append((top, b))
        top += b.height

    for b in head:
        place(b)
    more = f"Corps of Discovery · {title}: the folder's maps, continued"

    def next_page() -> None:
        new_page()
        place(_Block(8, lambda p, top: p.text(x, top, more, 11, bold=True)))

    while True:
        n = max(0, min(len(rows), int((bottom - top - table.head_h) / row_h + 1e-9)))
        if n:
            place(table.block(rows[:n], row_h))
            rows = rows[n:]
        if not rows:
            break
        next_page()
    for b in tail:
        place(b)
    return pages


def draw_cover_page(p: _Page, blocks: list[tuple[float, _Block]]) -> None:
    """One page of ``cover_plan``."""
    for top, b in blocks:
        b.draw(p, top)


def _names(maps: list[FolderMap], x: float, width: float) -> list[_Block]:
    """Below the table, the maps that have a name (the map file's ``name``), as their pages say them, each with the
    file it came from where that is not the name: "Map 3: The Long Ridge (fauna-3)". One block a map, so a long list
    continues on the next cover page."""
    blocks: list[_Block] = []
    for fm in maps:
        name = fm.map.briefing.name
        if not name:
            continue
        stem = Path(fm.source).stem if fm.source else ""
        line = f"Map {fm.number}: {name}" + (f" ({stem})" if stem and stem != name else "")
        blocks.append(_text_block(x, line, width, 9, before=5 if not blocks else 0))
    return blocks


def _legend(x: float, width: float) -> _Block:
    return _text_block(
        x,
        "Grade: the deduction grade, how much a logical team must guess before every target is known (Gentle, "
        "Moderate, Tricky, Fiendish); guesses and reveal set: its measures (mapgen deduce). Wins: the share of games "
        "a bot won playing the map (mapgen grade), with its 95% interval; sealed and days: the named bot's games "
        "in which no Path could be explored for a whole round (walled in: none left open), and their length. Seed: "
        "the map's generator seed.",
        width,
        7.5,
        colour="#444444",
        before=5,
    )


def _instructions(x: float, width: float, layout: Layout) -> _Block:
    """How to use this folder: printing, the board's pitch and offset, cutting, the QR codes, the play log."""
    ox, oy = layout.offset_mm
    steps = [
        (
            "Print at 100% (\u201cactual size\u201d, no \u201cfit to page\u201d). Double-sided is fine: every map has a blank back, "
            "so it cannot be seen through the paper or on the other side."
        ),
        (
            f"This folder is drawn for cells {layout.cell_mm:g} mm apart with the grid {ox:g} mm from the left and {oy:g} mm "
            "from the top edge of the cut sheet. To match your Map Board, print `mapgen pack --calibrate -o cal.pdf`, read the "
            "pitch and offset through the board's holes, and make the folder again with --cell-mm and --offset-mm."
        ),
        (
            "Cut each map along its corner marks. Without looking at it, cover it with the Concealer Page, slide both into "
            "the Map Board (pushed into the slot's corner, as the calibration sheet was) and remove the Concealer Page: "
            "the Mission Briefing shows below the grid."
        ),
        (
            "Scan a map's QR code to open the table helper of `mapgen serve` on that map's briefing (no terrain is in the "
            "link). A phone needs the server's address on your network: make the folder with --url-base."
        ),
        (
            "Write each game in the play log at the back: players, characters, gear, map, score and date "
            "(the fields can also be filled in on screen)."
        ),
    ]
    step = _line_step(9)
    height = 6 + sum(len(_wrapped(s, width - 6, 9)) * step + 1.5 for s in steps)

    def draw(p: _Page, top: float) -> None:
        top += 4  # the heading's baseline
        p.text(x, top, "How to use this folder", 11, bold=True)
        top += 6
        for k, s in enumerate(steps, 1):
            p.text(x, top, f"{k}.", 9, bold=True)
            top = p.lines(x + 6, top, s, width - 6, 9) + 1.5

    return _Block(4 + height, draw)


LOG_COLUMNS = (("Date", 22), ("Map", 13), ("Players", 40), ("Characters", 40), ("Gear", 44), ("Score", 16))
LOG_ROWS = 20


def log_page(p: _Page, title: str, layout: Layout) -> None:
    """The play log: a table to write in by hand, each cell also an AcroForm text field."""
    from reportlab.lib.colors import HexColor  # deferred: reportlab, slow, only when a PDF is written

    x, width = MARGIN_MM + 4, layout.page[0] - 2 * MARGIN_MM - 8
    top = MARGIN_MM + 12
    p.text(x, top, f"Play log · {title}", 16, bold=True)
    top += 6
    p.lines(
        x,
        top,
        "Track your plays: the player names with their character and gear, the map you used, your score and the date.",
        width,
        8.5,
        colour="#444444",
    )
    top += 8
    scale = width / sum(w for _, w in LOG_COLUMNS)
    widths = [w * scale for _, w in LOG_COLUMNS]
    head_h = 7.0
    row_h = min(11.0, (layout.page[1] - MARGIN_MM - 6 - top - head_h) / LOG_ROWS)
    p.rect(x, top, width, head_h, fill="#e8e8e8", stroke=None)
    cx = x
    for (name, _), w in zip(LOG_COLUMNS, widths):
        p.text(cx + 1.5, top + 4.8, name, 8.5, bold=True)
        cx += w
    top += head_h
    form = p.c.acroForm
    for r in range(1, LOG_ROWS + 1):
        cx = x
        for (name, _), w in zip(LOG_COLUMNS, widths):
            form.textfield(
                name=f"log_{r:02d}_{name.lower()}",
                tooltip=f"{name}, game {r}",
                x=(cx + 0.4) * MM,
                y=p.y(top + row_h - 0.4),
                width=(w - 0.8) * MM,
                height=(row_h - 0.8) * MM,
                borderWidth=0,
                fillColor=HexColor("#ffffff"),
                textColor=HexColor("#000000"),
                fontName="Helvetica",
                fontSize=9,
                fieldFlags="multiline" if name in ("Players", "Characters", "Gear") else "",
                forceBorder=False,
            )
            cx += w
        top += row_h
        p.line(x, top, x + width, top, colour="#999999", width=0.3)
    cx = x
    for w in [0.0, *widths]:
        cx += w
        p.line(cx, top - LOG_ROWS * row_h - head_h, cx, top, colour="#999999", width=0.3)


# ----- the documents -----
def _canvas(path: str, layout: Layout, title: str):
    from reportlab.pdfgen.canvas import Canvas  # deferred: reportlab, slow, only when a PDF is written

    w, h = layout.page
    c = Canvas(path, pagesize=(w * MM, h * MM), invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("mapgen")
    c.setCreator("mapgen pack")
    return c


def write_folder(
    maps: list[FolderMap],
    path: str | os.PathLike,
    layout: Layout,
    *,
    title: str,
    note: str,
    force: bool = False,
    rules: dict | None = None,
    replaced: list[str] | None = None,
) -> int:
    """The folder PDF: cover (its pages as many as its table needs, and a blank back to make them even), each map with a blank back, the play log. Returns the pages.
    ``rules``: the house rules the maps keep (``rules_record``), named on the cover. ``replaced``: a list to which
    the characters printed as ``STAND_IN`` (no glyph in the fonts: CJK) are added, in the order met."""
    layout.check()
    told = _replaced.set(replaced)
    try:
        return _write_folder(maps, path, layout, title=title, note=note, force=force, rules=rules)
    finally:
        _replaced.reset(told)


def _write_folder(maps, path, layout: Layout, *, title: str, note: str, force: bool, rules: dict | None) -> int:
    with writing(path, force=force, suffix=".pdf") as tmp:
        c = _canvas(tmp, layout, f"{title}: a map folder")
        pages = 0

        def page(draw=None):
            nonlocal pages
            if draw is not None:
                draw(_Page(c, layout.page))
            c.showPage()
            pages += 1

        cover = cover_plan(maps, title, layout, note, rules)
        for blocks in cover:
            page(lambda p, blocks=blocks: draw_cover_page(p, blocks))
        if len(cover) % 2:
            page()  # the cover's back: maps start on a front side when printed double-sided
        for fm in maps:
            page(lambda p, fm=fm: map_page(p, fm, title, layout))
            page()  # a blank back: nothing shows through, nothing is printed behind the map
        page(lambda p: log_page(p, title, layout))
        c.save()
    return pages


def calibration_page(p: _Page, layout: Layout) -> None:
    """A millimetre ruler grid filling the largest trim box the paper holds, origin at its top-left corner."""
    pw, ph = layout.page
    room = MARK_GAP_MM + MARK_LEN_MM
    x0, y0 = MARGIN_MM + room, MARGIN_MM + room
    w = int(pw - 2 * x0)
    h = int(ph - 2 * y0 - CAPTION_MM)
    for k in range(w + 1):
        heavy = k % 10 == 0
        if k % 5 == 0:
            p.line(x0 + k, y0, x0 + k, y0 + h, colour="#777777" if heavy else "#c4c4c4", width=0.35 if heavy else 0.2)
        tick = 4 if heavy else (2.5 if k % 5 == 0 else 1.2)
        p.line(x0 + k, y0, x0 + k, y0 + tick, width=0.25)
    for k in range(h + 1):
        heavy = k % 10 == 0
        if k % 5 == 0:
            p.line(x0, y0 + k, x0 + w, y0 + k, colour="#777777" if heavy else "#c4c4c4", width=0.35 if heavy else 0.2)
        tick = 4 if heavy else (2.5 if k % 5 == 0 else 1.2)
        p.line(x0, y0 + k, x0 + tick, y0 + k, width=0.25)
    for gx in range(10, w, 10):  # every 10 mm crossing names itself: readable through a hole
        for gy in range(10, h, 10):
            p.text(x0 + gx + 0.5, y0 + gy - 0.6, f"{gx},{gy}", 4, colour="#333333")
    crop_marks(p, x0, y0, w, h)
    p.text(
        pw / 2,
        y0 + h + room + 3.5,
        "mapgen pack --calibrate · millimetres from the top-left corner (0,0) · how to read it: page 1",
        6.5,
        colour="#555555",
        align="centre",
    )


def calibration_help(p: _Page, layout: Layout) -> None:
    """Page 1 of the calibration PDF: how to read the pitch and offset off the ruler grid."""
    x, width = MARGIN_MM + 10, layout.page[0] - 2 * MARGIN_MM - 20
    top = MARGIN_MM + 16
    p.text(x, top, "Calibration: where the Map Board's holes are", 16, bold=True)
    top += 10
    text = [
        "1. Print this file at 100% (actual size, no fit to page), single-sided.",
        (
            "2. Page 2 is a ruler grid in millimetres from its top-left corner (0,0); every 10 mm crossing is labelled "
            "x,y so it can be read through a hole. Cut it along its corner marks; if it is too big for the Map Board, trim "
            "the right and bottom edges only."
        ),
        (
            "3. Slide it into the Map Board like a map, its top-left corner pushed into the corner of the slot (push "
            "the maps in the same way). Through the holes read the centre of the hole in row A, column 1 "
            "(x1 across, y1 down), the centre of the hole in row A, column 7 (x7 across) and in row G, column 1 (y7 down)."
        ),
        (
            "4. The cell pitch is (x7 - x1) / 6 (check: (y7 - y1) / 6 is the same). The offset is x1 - pitch / 2 across and "
            "y1 - pitch / 2 down: where the grid's top-left corner lies on the cut sheet."
        ),
        (
            "5. Make the folder with them: mapgen pack -c fauna --count 8 --grade-spread --cell-mm PITCH --offset-mm X,Y "
            "-o folder.pdf --out folder/. Check first with mapgen pack --calibrate --cell-mm PITCH --offset-mm X,Y: page 3 "
            "then shows a cross at every hole centre of that layout, which should sit in the middle of each hole."
        ),
        (
            f"This file was made with --cell-mm {layout.cell_mm:g} --offset-mm {_pair(layout.offset_mm)} "
            f"(the defaults are an assumption: {DEFAULT_CELL_MM:g} mm cells, grid {_pair(DEFAULT_OFFSET_MM)} mm from the "
            "sheet's top-left corner; the rulebooks give no sizes) on "
            f"{layout.paper.upper()} paper."
        ),
    ]
    for s in text:
        top = p.lines(x, top, s, width, 10) + 3


def check_page(p: _Page, layout: Layout) -> None:
    """The hole centres of a layout (cross and circle per cell, with its name) in a map's trim box."""
    x0, y0 = layout.trim_origin
    w, h = layout.trim
    ox, oy = layout.offset_mm
    s = layout.cell_mm
    for r in range(GRID):
        for c in range(GRID):
            cx, cy = x0 + ox + (c + 0.5) * s, y0 + oy + (r + 0.5) * s
            p.rect(cx - s / 2, cy - s / 2, s, s, stroke="#9a9a9a", width=0.3)
            p.circle(cx, cy, s * 0.4, width=0.4)
            p.line(cx - 2, cy, cx + 2, cy, width=0.3)
            p.line(cx, cy - 2, cx, cy + 2, width=0.3)
            p.text(cx, cy + s * 0.3, f"{ROW_LETTERS[r]}{c + 1}", 6, colour="#333333", align="centre")
    crop_marks(p, x0, y0, w, h)
    p.lines(
        x0 + ox,
        y0 + oy + GRID * s + 10,
        f"Check: --cell-mm {s:g} --offset-mm {_pair(layout.offset_mm)}. Cut along the marks and slide this sheet into "
        "the Map Board: each hole should show its cross in the middle of its circle. If the crosses drift across "
        "the board, change --cell-mm; if they are all off the same way, change --offset-mm.",
        GRID * s,
        9,
    )


def write_calibration(path: str | os.PathLike, layout: Layout, *, force: bool = False) -> int:
    """The calibration PDF: how to read it, the ruler grid, then the hole centres of ``layout``. Returns the pages."""
    layout.check()
    with writing(path, force=force, suffix=".pdf") as tmp:
        c = _canvas(tmp, layout, "mapgen pack: calibration")
        calibration_help(_Page(c, layout.page), layout)
        c.showPage()
        calibration_page(_Page(c, layout.page), layout)
        c.showPage()
        check_page(_Page(c, layout.page), layout)
        c.showPage()
        c.save()
    return 3


__all__ = [
    "DEFAULT_CELL_MM",
    "DEFAULT_OFFSET_MM",
    "MARGIN_MM",
    "PAPERS",
    "FolderMap",
    "Layout",
    "LayoutError",
    "cover_plan",
    "cover_rows",
    "draw_cover_page",
    "write_calibration",
    "write_folder",
]
