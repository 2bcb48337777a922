"""Writing figures to SVG, PNG or PDF files atomically (a temp file renamed into place)."""

from __future__ import annotations

import contextlib
import numbers
import os
import re
import struct
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mapgen.errors import InputError
from mapgen.output import writing

FORMATS = ("svg", "png", "pdf")
DPI = 150


class RenderError(InputError, ValueError):
    """A picture that cannot be made from the given input; the message is one line for a person."""


@dataclass(frozen=True)
class Rendered:
    """What was written: the file, its format, its pages and (for PNG) its size in pixels."""

    path: str
    format: str
    pages: int = 1
    width_px: int | None = None
    height_px: int | None = None

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "format": self.format,
            "pages": self.pages,
            "width_px": self.width_px,
            "height_px": self.height_px,
        }


#: matplotlib's warning for a character its font cannot draw (it draws the LastResort font's box there)
_GLYPH_MISSING = re.compile(r"Glyph (\d+) \(.*\) missing from font\(s\) (.+?)\.?$")


@contextlib.contextmanager
def missing_glyphs() -> Iterator[list[str]]:
    """Collect the characters matplotlib's font cannot draw while drawing, in the order met, each once (its warning,
    one a character and call, is not shown: the caller says it once); every other warning is shown as it was."""
    found: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield found
        finally:
            for w in caught:
                m = _GLYPH_MISSING.match(str(w.message))
                if m is None:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)
                elif chr(int(m[1])) not in found:
                    found.append(chr(int(m[1])))


def glyph_note(out, what: str, missing: list[str], shown: str) -> str:
    """The one note for characters ``what``'s font cannot draw (``missing``, in the order met), and how they show."""
    return f"{out}: the {what}'s font (DejaVu Sans) has no glyph for {', '.join(missing)}: {shown}"


def output_format(path: str | os.PathLike, fmt: str | None = None) -> str:
    """The format to write: ``fmt`` if given, otherwise the file's suffix; RenderError if unsupported."""
    if fmt is None:
        suffix = Path(path).suffix
        if not suffix:
            raise RenderError(f"{path}: cannot tell the format; name the file .svg, .png or .pdf")
        fmt = suffix[1:]
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise RenderError(f"{path}: unsupported format '{fmt}' (use .svg, .png or .pdf)")
    return fmt


def _metadata(fmt: str) -> dict:
    # No dates: the same input gives the same file.
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": "mapgen"}
    return {"Software": "mapgen (matplotlib)"}


def save_figures(figures: list, path: str | os.PathLike, fmt: str, *, dpi: int = DPI, force: bool = True) -> Rendered:
    """Write one figure (SVG, PNG) or several as PDF pages; never leaves a half-written file at ``path``.

    ``force=False`` never replaces an existing file (mapgen.output.OutputError instead).
    """
    if (
        isinstance(dpi, bool) or not isinstance(dpi, (int, numbers.Integral)) or dpi < 1
    ):  # matplotlib: a TypeError inside
        raise RenderError(f"dpi is a whole number of dots per inch from 1, not {dpi!r}")
    import matplotlib  # deferred: matplotlib, slow, only when drawing

    if len(figures) > 1 and fmt != "pdf":
        raise RenderError(f"{path}: only a PDF can hold {len(figures)} pages")
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise RenderError(f"{path}: folder {folder} does not exist")
    with (
        writing(path, force=force, suffix=f".{fmt}.tmp") as tmp,
        matplotlib.rc_context({"svg.hashsalt": "mapgen", "svg.fonttype": "path"}),
    ):
        if fmt == "pdf":
            from matplotlib.backends.backend_pdf import PdfPages  # deferred: matplotlib, slow, only when drawing

            with PdfPages(tmp, metadata=_metadata(fmt)) as pdf:
                for fig in figures:
                    pdf.savefig(fig)
        else:
            figures[0].savefig(tmp, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    width = height = None
    if fmt == "png":
        width, height = png_size(path)
    return Rendered(str(path), fmt, len(figures), width, height)


def png_size(path: str | os.PathLike) -> tuple[int, int]:
    """Width and height from a PNG file's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise RenderError(f"{path}: not a PNG file")
    return struct.unpack(">II", head[16:24])
