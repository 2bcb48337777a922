"""Pictures of maps and results: boards, printable sheets, reveal profiles and playtest charts (matplotlib)."""

from mapgen.render.board import heat_options, odds_not_in_time, render_map
from mapgen.render.output import Rendered, RenderError
from mapgen.render.plots import plot_playtest, plot_profile
from mapgen.render.sheet import render_sheet

__all__ = [
    "RenderError",
    "Rendered",
    "heat_options",
    "odds_not_in_time",
    "plot_playtest",
    "plot_profile",
    "render_map",
    "render_sheet",
]
