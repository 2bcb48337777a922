"""Charts: the reveal profile of ``mapgen deduce`` and the results of ``mapgen playtest``."""

from __future__ import annotations

import os

from mapgen.render.output import DPI, Rendered, RenderError, output_format, save_figures

# Fills and hatches for categories, so that stacked bars still read in black and white.
CATEGORY_COLOURS = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
CATEGORY_HATCHES = ("", "//", "..", "xx", "\\\\", "oo", "--", "++", "**", "||")


def _need(entry: dict, keys: tuple[str, ...], what: str) -> None:
    if not isinstance(entry, dict):
        raise RenderError(f"{what} is not a table of values")
    missing = [k for k in keys if k not in entry]
    if missing:
        raise RenderError(f"{what} has no {', '.join(repr(k) for k in missing)}")


def profile_figure(steps: list[dict], *, title: str = ""):
    """Completions (log scale) and forced cells after each reveal, one point per step."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    if not steps:
        raise RenderError("the reveal profile has no steps")
    for k, s in enumerate(steps):
        _need(s, ("step", "count", "forced"), f"profile step {k + 1}")
        if not isinstance(s["count"], int) or s["count"] < 0:
            raise RenderError(f"profile step {s['step']}: count {s['count']!r} is not a whole number >= 0")
    xs = list(range(len(steps)))
    counts = [s["count"] for s in steps]
    exact = [bool(s.get("exact", True)) for s in steps]
    labels = []
    for k, s in enumerate(steps):
        cell, terrain = s.get("cell"), s.get("terrain")
        labels.append(f"{cell}\n{terrain}" if cell and terrain else str(cell or ("start" if k == 0 else s["step"])))

    width = max(8.0, min(18.0, 2.0 + 0.32 * len(steps)))
    fig = Figure(figsize=(width, 7.0), facecolor="#ffffff")
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": (3, 2), "hspace": 0.08})
    top.plot(xs, counts, color="#4e79a7", lw=1.8, zorder=2, gid="profile-count-line")
    ex = [x for x in xs if exact[x]]
    lo = [x for x in xs if not exact[x]]
    top.scatter(ex, [counts[x] for x in ex], s=36, color="#4e79a7", zorder=3, gid="profile-exact")
    if lo:
        top.scatter(
            lo,
            [counts[x] for x in lo],
            s=60,
            marker="^",
            facecolor="#ffffff",
            edgecolor="#c0392b",
            lw=1.6,
            zorder=3,
            gid="profile-bound",
        )
    if min(counts) >= 1:
        top.set_yscale("log")
    else:
        top.set_yscale("symlog", linthresh=1)
    top.axhline(1, color="#2e7d32", lw=1.2, ls="--", zorder=1)
    top.text(0, 1, " 1 = unique", color="#2e7d32", va="bottom", ha="left", fontsize=10)
    top.set_ylabel("completions (log scale)")
    top.grid(True, which="major", axis="y", color="#dddddd")
    handles = [Line2D([], [], color="#4e79a7", marker="o", lw=1.8, label="exact count")]
    if lo:
        handles.append(
            Line2D(
                [],
                [],
                color="#c0392b",
                marker="^",
                markerfacecolor="#ffffff",
                lw=0,
                label="at least (count stopped at its limit)",
            )
        )
    top.legend(handles=handles, loc="upper right", frameon=False)
    top.set_title(
        title or "Reveal profile: what is still open after each reveal", loc="left", fontsize=13, fontweight="bold"
    )

    forced = [s["forced"] for s in steps]
    bottom.bar(xs, forced, color="#f28e2b", edgecolor="#7a4a12", hatch="//", gid="profile-forced")
    from matplotlib.ticker import MaxNLocator

    bottom.yaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_ylabel("forced unexplored cells")
    bottom.grid(True, axis="y", color="#dddddd")
    bottom.set_xticks(xs)
    small = len(steps) > 30
    bottom.set_xticklabels(labels, fontsize=7 if small else 9)
    bottom.set_xlabel("reveal (cell and terrain), in order")
    bottom.set_xlim(-0.6, len(steps) - 0.4)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.93, bottom=0.16)
    return fig


def plot_profile(
    steps: list[dict], path: str | os.PathLike, *, title: str = "", fmt: str | None = None, dpi: int = DPI
) -> Rendered:
    """Draw ``mapgen deduce``'s reveal profile: completions per step (log scale) and forced cells per step."""
    fmt = output_format(path, fmt)
    return save_figures([profile_figure(steps, title=title)], path, fmt, dpi=dpi)


def _stacked(ax, bots: list[str], tables: list[dict], title: str, xlabel: str, gid: str) -> None:
    keys: list[str] = []
    for t in tables:
        for k in t:
            if k not in keys:
                keys.append(k)
    ys = range(len(bots))
    left = [0.0] * len(bots)
    for n, key in enumerate(keys):
        widths = [float(t.get(key, 0)) for t in tables]
        ax.barh(
            ys,
            widths,
            left=left,
            color=CATEGORY_COLOURS[n % len(CATEGORY_COLOURS)],
            hatch=CATEGORY_HATCHES[n % len(CATEGORY_HATCHES)],
            edgecolor="#333333",
            lw=0.6,
            label=str(key),
            gid=f"{gid}-{key}",
        )
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(list(ys))
    ax.set_yticklabels(bots)
    ax.invert_yaxis()
    ax.set_title(title, loc="left", fontweight="bold")
    ax.set_xlabel(xlabel)
    if keys:
        ax.legend(loc="lower right", fontsize=8, frameon=True, framealpha=0.9)
    else:
        ax.text(0.5, 0.5, "none", transform=ax.transAxes, ha="center", va="center", color="#777777")


def playtest_figure(reports: list[dict], *, title: str = ""):
    """Win rate per bot with its interval, score distribution, causes of loss and levels reached."""
    from matplotlib.figure import Figure

    if not reports:
        raise RenderError("no playtest results to plot")
    for k, r in enumerate(reports):
        _need(r, ("bot", "games", "wins", "win_rate", "scores", "losses"), f"playtest report {k + 1}")
    bots = [str(r["bot"]) for r in reports]
    ys = list(range(len(bots)))
    height = max(6.5, 3.2 + 0.9 * len(bots))
    fig = Figure(figsize=(13, height), facecolor="#ffffff")
    (ax_win, ax_score), (ax_loss, ax_level) = fig.subplots(2, 2)

    rates = [float(r["win_rate"]) for r in reports]
    ci = [r.get("win_rate_ci") or [rate, rate] for r, rate in zip(reports, rates)]
    err = [
        [max(0.0, rate - lo) for rate, (lo, _) in zip(rates, ci)],
        [max(0.0, hi - rate) for rate, (_, hi) in zip(rates, ci)],
    ]
    ax_win.barh(ys, rates, color="#4e79a7", edgecolor="#1f3b5a", gid="playtest-win-rate")
    ax_win.errorbar(rates, ys, xerr=err, fmt="none", ecolor="#111111", elinewidth=1.5, capsize=5, gid="playtest-win-ci")
    for y, r, (lo, hi) in zip(ys, reports, ci):
        ax_win.text(
            min(1.0, hi) + 0.02, y, f"{r['wins']}/{r['games']} ({float(r['win_rate']):.0%})", va="center", fontsize=9
        )
    ax_win.set_xlim(0, 1.3)
    ax_win.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax_win.set_xticklabels(["0%", "25%", "50%", "75%", "100%"])
    ax_win.set_yticks(ys)
    ax_win.set_yticklabels(bots)
    ax_win.invert_yaxis()
    ax_win.set_title("Win rate per bot (bars: 95% interval)", loc="left", fontweight="bold")
    ax_win.grid(True, axis="x", color="#dddddd")

    scores = [list(r["scores"]) or [0] for r in reports]
    box = ax_score.boxplot(
        scores,
        positions=ys,
        orientation="horizontal",
        widths=0.55,
        patch_artist=True,
        medianprops={"color": "#111111", "lw": 2},
    )
    for patch in box["boxes"]:
        patch.set_facecolor("#a0cbe8")
    means = [sum(s) / len(s) for s in scores]
    ax_score.scatter(means, ys, marker="D", color="#e15759", zorder=3, label="mean", gid="playtest-score-mean")
    ax_score.set_yticks(ys)
    ax_score.set_yticklabels(bots)
    ax_score.invert_yaxis()
    ax_score.set_title("Score distribution (box: middle half, line: median)", loc="left", fontweight="bold")
    ax_score.set_xlabel("score")
    ax_score.legend(loc="lower right", fontsize=8)
    ax_score.grid(True, axis="x", color="#dddddd")

    _stacked(ax_loss, bots, [dict(r["losses"]) for r in reports], "Causes of loss", "games lost", "playtest-loss")
    if any(r.get("levels") for r in reports):
        _stacked(
            ax_level, bots, [dict(r.get("levels") or {}) for r in reports], "Levels reached", "games", "playtest-level"
        )
    else:
        days = [float(r.get("mean_days") or 0) for r in reports]
        ax_level.barh(ys, days, color="#59a14f", edgecolor="#2d5a27", gid="playtest-days")
        ax_level.set_yticks(ys)
        ax_level.set_yticklabels(bots)
        ax_level.invert_yaxis()
        ax_level.set_title("Mean days played", loc="left", fontweight="bold")
        ax_level.set_xlabel("days")
    if title:
        fig.suptitle(title, x=0.01, ha="left", fontsize=14, fontweight="bold")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.9 if title else 0.94, bottom=0.08, hspace=0.45, wspace=0.25)
    return fig


def plot_playtest(
    reports: list[dict], path: str | os.PathLike, *, title: str = "", fmt: str | None = None, dpi: int = DPI
) -> Rendered:
    """Draw playtest results: win rate per bot with intervals, scores, causes of loss (and levels reached)."""
    fmt = output_format(path, fmt)
    return save_figures([playtest_figure(reports, title=title)], path, fmt, dpi=dpi)
