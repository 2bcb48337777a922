"""Charts: the reveal profile of ``mapgen deduce`` and the results of ``mapgen playtest``."""

from __future__ import annotations

import math
import os
from collections import Counter

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


#: The highest count of a chart whose axis is written in digits (its ticks then reach "1,000,000,000" at most);
#: beyond it every tick is a power of ten.
PLAIN_COUNTS_UP_TO = 100_000_000


def _count_tick(value: float, _pos=None, *, powers: bool = False) -> str:
    """A count axis's tick, every tick of an axis in one style: digits as people count (1, 10, 1,000, 100,000,000;
    the axis read "10⁶" above "100,000"), or with ``powers`` (counts past ``PLAIN_COUNTS_UP_TO``, where digits
    would run to 20 places) a power of ten, 10⁰ included."""
    if value < 0.5:
        return "0" if value >= 0 else ""
    if powers:
        return f"$10^{{{round(math.log10(value))}}}$"
    return f"{value:,.0f}"


def _count_axis(ax, highest: int) -> int:
    """Label a count axis in one style (``_count_tick``): digits up to ``PLAIN_COUNTS_UP_TO``, powers of ten beyond;
    returns the longest label's length in characters (for the room left of the axis)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter  # deferred: matplotlib, slow, only when drawing

    powers = highest > PLAIN_COUNTS_UP_TO
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, pos=None: _count_tick(v, pos, powers=powers)))
    lo, hi = sorted(ax.get_ylim())
    # log scale's own minor labels read "2×10⁰" beside "1": in digits where the axis spans too little for its
    # powers of ten to say much (5 completions down to 1), none elsewhere
    few = not powers and lo > 0 and hi / lo <= 30
    ax.yaxis.set_minor_formatter(FuncFormatter(_count_tick) if few else NullFormatter())
    if powers:
        return 5
    return max((len(_count_tick(v)) for v in ax.get_yticks() if lo <= v <= hi), default=1)


def profile_steps(profile) -> tuple[list[dict], dict]:
    """The steps of a reveal profile and its summary fields, from a list of steps or ``reveal_profile``'s dict
    (also when nested under ``profile``, as in ``mapgen deduce --json``)."""
    if isinstance(profile, dict) and isinstance(profile.get("profile"), dict):
        profile = profile["profile"]
    if isinstance(profile, dict) and "reveal_set" in profile and "steps" not in profile and "profile" not in profile:
        # a `mapgen deduce --no-profile --json` report: the command that made it skipped the profile
        raise RenderError("a mapgen deduce report without a reveal profile (made with --no-profile)")
    if isinstance(profile, dict):
        steps, extra = profile.get("steps"), {k: v for k, v in profile.items() if k != "steps"}
    else:
        steps, extra = profile, {}
    if not isinstance(steps, list):
        raise RenderError("expected a list of reveal steps (or an object with 'steps')")
    return steps, extra


def profile_figure(profile, *, title: str = ""):
    """Completions (log scale) and forced cells after each reveal, one point per step."""
    from matplotlib.figure import Figure  # deferred: matplotlib, slow, only when drawing
    from matplotlib.lines import Line2D  # deferred: matplotlib, slow, only when drawing
    from matplotlib.ticker import MaxNLocator  # deferred: matplotlib, slow, only when drawing

    steps, extra = profile_steps(profile)
    if not steps:
        raise RenderError("the reveal profile has no steps")
    for k, s in enumerate(steps):
        _need(s, ("step", "count", "forced"), f"profile step {k + 1}")
        if not isinstance(s["count"], int) or isinstance(s["count"], bool) or s["count"] < 0:
            raise RenderError(f"profile step {s['step']}: count {s['count']!r} is not a whole number >= 0")
    xs = list(range(len(steps)))
    counts = [s["count"] for s in steps]
    exact = [bool(s.get("exact", True)) for s in steps]
    guesses = [s.get("reason") == "guess" for s in steps]
    labels = []
    for k, s in enumerate(steps):
        cell, terrain = s.get("cell"), s.get("terrain")
        label = f"{cell}\n{terrain}" if cell and terrain else str(cell or ("start" if k == 0 else s["step"]))
        labels.append(label + ("?" if guesses[k] else ""))

    width = max(9.0, min(20.0, 2.5 + 0.34 * len(steps)))
    fig = Figure(figsize=(width, 7.5), facecolor="#ffffff")
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
    top.set_ylabel("completions (log scale)")
    top.grid(True, which="major", axis="y", color="#dddddd")
    handles = [
        Line2D([], [], color="#4e79a7", marker="o", lw=1.8, label="completions after the reveal (exact)"),
        Line2D([], [], color="#2e7d32", lw=1.2, ls="--", label="1 completion: the map is unique"),
    ]
    if lo:
        handles.append(
            Line2D(
                [], [], color="#c0392b", marker="^", markerfacecolor="#ffffff", lw=0, label="at least (count stopped)"
            )
        )
    by_step = {s["step"]: x for x, s in zip(xs, steps)}
    unique_at = extra.get("unique_at")
    if unique_at in by_step:
        top.axvline(by_step[unique_at], color="#2e7d32", lw=1.5, gid="profile-unique")
        right_half = by_step[unique_at] > len(steps) / 2
        top.text(
            by_step[unique_at],
            0.98,
            "unique from here " if right_half else " unique from here",
            color="#2e7d32",
            va="top",
            ha="right" if right_half else "left",
            fontsize=10,
            fontweight="bold",
            transform=top.get_xaxis_transform(),
        )
    deduced = [(x, s.get("deduced") or []) for x, s in zip(xs, steps)]
    if any(cells for _, cells in deduced):
        target = extra.get("target") or "target"
        for x, cells in deduced:
            if cells:
                top.annotate(
                    f"{target} " + " ".join(cells),
                    (x, counts[x]),
                    xytext=(0, 14),
                    textcoords="offset points",
                    ha="center",
                    fontsize=8,
                    color="#a8201a",
                    fontweight="bold",
                    arrowprops={"arrowstyle": "-", "color": "#a8201a", "lw": 0.8},
                    gid=f"profile-deduced-{x}",
                )
        if top.get_yscale() == "log":  # room above the highest labels, so that none covers the title
            lo, hi = top.get_ylim()
            top.set_ylim(lo, 10 ** (math.log10(hi) + 0.2 * (math.log10(hi) - math.log10(lo))))
        handles.append(
            Line2D(
                [],
                [],
                color="#a8201a",
                lw=0,
                marker="$\\downarrow$",
                label=f"{target} cells deduced before being explored",
            )
        )
    digits = _count_axis(top, max(counts))  # after the limits are final
    top.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 0.06), frameon=True, framealpha=0.9)
    top.set_title(
        title or "Reveal profile: what is still open after each reveal", loc="left", fontsize=13, fontweight="bold"
    )

    forced = [s["forced"] for s in steps]
    bottom.bar(xs, forced, color="#f28e2b", edgecolor="#7a4a12", hatch="//", gid="profile-forced")
    bottom.yaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_ylabel("forced unexplored cells")
    bottom.grid(True, axis="y", color="#dddddd")
    bottom.set_axisbelow(True)
    bottom.set_xticks(xs)
    bottom.set_xticklabels(labels, fontsize=7 if len(steps) > 30 else 9)
    for tick, guess in zip(bottom.get_xticklabels(), guesses):
        if guess:
            tick.set_color("#c0392b")
            tick.set_fontweight("bold")
    words = "reveal (cell and terrain), in order"
    if any(guesses):
        words += "; red with ? = a guess (no frontier cell was forced)"
    bottom.set_xlabel(words)
    bottom.set_xlim(-0.6, len(steps) - 0.4)
    # room for the longest count ("100,000,000": 0.8 inch at 10 pt) and the axis title beside it
    fig.subplots_adjust(left=max(0.08, (0.5 + 0.075 * digits) / width), right=0.98, top=0.93, bottom=0.13)
    fig.align_ylabels((top, bottom))
    return fig


def plot_profile(
    profile, path: str | os.PathLike, *, title: str = "", fmt: str | None = None, dpi: int = DPI, force: bool = True
) -> Rendered:
    """Draw ``mapgen deduce``'s reveal profile: completions per step (log scale) and forced cells per step.

    ``profile`` is the list of steps or the dict ``reveal_profile`` returns (its ``unique_at``, ``target``
    and each step's ``reason`` and ``deduced`` cells are drawn too).
    """
    fmt = output_format(path, fmt)
    return save_figures([profile_figure(profile, title=title)], path, fmt, dpi=dpi, force=force)


def _words(key) -> str:
    """A category key as words: ``map_explored`` -> ``map explored``."""
    return str(key).replace("_", " ")


def _bot_axis(ax, bots: list[str]) -> None:
    ax.set_yticks(list(range(len(bots))))
    ax.set_yticklabels(bots)
    ax.set_ylim(len(bots) - 0.5, -0.5)


def _stacked(ax, bots: list[str], tables: list[dict], title: str, xlabel: str, gid: str, words=_words) -> None:
    """One stacked bar per bot; every segment has its own fill and hatch, and its count when it fits; ``words`` names
    a key in the legend."""
    keys: list[str] = []
    for t in tables:
        for k in t:
            if k not in keys:
                keys.append(k)
    ys = range(len(bots))
    left = [0.0] * len(bots)
    widest = max((sum(float(v) for v in t.values()) for t in tables), default=0.0) or 1.0
    for n, key in enumerate(keys):
        widths = [float(t.get(key, 0)) for t in tables]
        colour = CATEGORY_COLOURS[n % len(CATEGORY_COLOURS)]
        ax.barh(
            ys,
            widths,
            height=0.6,
            left=left,
            color=colour,
            hatch=CATEGORY_HATCHES[n % len(CATEGORY_HATCHES)],
            edgecolor="#333333",
            lw=0.6,
            label=words(key),
            gid=f"{gid}-{key}",
        )
        for y, x, w in zip(ys, left, widths):
            if w and w / widest > 0.06:
                ax.text(
                    x + w / 2,
                    y,
                    f"{w:g}",
                    ha="center",
                    va="center",
                    fontsize=9,
                    fontweight="bold",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "#ffffff", "ec": "none", "alpha": 0.85},
                )
        left = [a + b for a, b in zip(left, widths)]
    _bot_axis(ax, bots)
    ax.set_title(title, loc="left", fontweight="bold")
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", color="#dddddd")
    ax.set_axisbelow(True)
    if keys:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(4, len(keys)), fontsize=9, frameon=False)
    else:
        ax.text(0.5, 0.5, "none", transform=ax.transAxes, ha="center", va="center", color="#777777")


def _scores(ax, bots: list[str], reports: list[dict]) -> None:
    """One bot: a bar per score (losses score 0). Several: a box per bot with its mean."""
    scores = [[float(v) for v in r["scores"]] for r in reports]
    if len(reports) == 1:
        tally = Counter(scores[0])
        xs = sorted(tally)
        ax.bar(xs, [tally[x] for x in xs], width=0.8, color="#a0cbe8", edgecolor="#1f3b5a", gid="playtest-scores")
        if scores[0]:
            mean = sum(scores[0]) / len(scores[0])
            ax.axvline(mean, color="#e15759", lw=2, ls="--", gid="playtest-score-mean")
            ax.text(mean, 1.0, f" mean {mean:.1f}", color="#e15759", transform=ax.get_xaxis_transform(), va="top")
        ax.set_ylabel("games")
        ax.set_title("Score distribution (a loss or a sealed game scores 0)", loc="left", fontweight="bold")
    else:
        box = ax.boxplot(
            [s or [0.0] for s in scores],
            positions=list(range(len(bots))),
            orientation="horizontal",
            widths=0.55,
            patch_artist=True,
            medianprops={"color": "#111111", "lw": 2},
        )
        for patch in box["boxes"]:
            patch.set_facecolor("#a0cbe8")
        means = [sum(s) / len(s) if s else 0.0 for s in scores]
        ax.scatter(
            means, range(len(bots)), marker="D", color="#e15759", zorder=3, label="mean", gid="playtest-score-mean"
        )
        _bot_axis(ax, bots)
        ax.set_title("Score distribution (box: middle half, line: median)", loc="left", fontweight="bold")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlabel("score")
    ax.grid(True, axis="x", color="#dddddd")
    ax.set_axisbelow(True)


def playtest_figure(reports: list[dict], *, title: str = ""):
    """Win rate per bot with its interval, score distribution, causes of loss and levels reached."""
    from matplotlib.figure import Figure  # deferred: matplotlib, slow, only when drawing

    if not reports:
        raise RenderError("no playtest results to plot")
    for k, r in enumerate(reports):
        _need(r, ("bot", "games", "wins", "win_rate", "scores", "losses"), f"playtest report {k + 1}")
    bots = [str(r["bot"]) for r in reports]
    ys = list(range(len(bots)))
    height = max(7.0, 4.0 + 0.9 * len(bots))
    fig = Figure(figsize=(13, height), facecolor="#ffffff")
    (ax_win, ax_score), (ax_loss, ax_level) = fig.subplots(2, 2)

    rates = [float(r["win_rate"]) for r in reports]
    ci = [r.get("win_rate_ci") or [rate, rate] for r, rate in zip(reports, rates)]
    err = [
        [max(0.0, rate - lo) for rate, (lo, _) in zip(rates, ci)],
        [max(0.0, hi - rate) for rate, (_, hi) in zip(rates, ci)],
    ]
    ax_win.barh(ys, rates, height=0.6, color="#4e79a7", edgecolor="#1f3b5a", gid="playtest-win-rate")
    ax_win.errorbar(rates, ys, xerr=err, fmt="none", ecolor="#111111", elinewidth=1.5, capsize=6, gid="playtest-win-ci")
    for y, r, (lo, hi) in zip(ys, reports, ci):
        words = f"{r['wins']}/{r['games']} = {float(r['win_rate']):.0%}\n95%: {float(lo):.0%} to {float(hi):.0%}"
        ax_win.text(min(1.0, hi) + 0.02, y, words, va="center", fontsize=9)
    ax_win.set_xlim(0, 1.35)
    ax_win.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax_win.set_xticklabels(["0%", "25%", "50%", "75%", "100%"])
    _bot_axis(ax_win, bots)
    ax_win.set_title("Win rate per bot (whiskers: 95% interval)", loc="left", fontweight="bold")
    ax_win.grid(True, axis="x", color="#dddddd")
    ax_win.set_axisbelow(True)

    _scores(ax_score, bots, reports)
    # sealed games (no Path could be explored for a whole round) are no loss of the rulebooks': their own segment
    from mapgen.engine.playtest import cause_words  # deferred: the engine (0.26 s), only for a playtest chart

    ends = [{**dict(r["losses"]), **({"sealed": r["sealed"]} if r.get("sealed") else {})} for r in reports]
    sealed = any(r.get("sealed") for r in reports)
    _stacked(
        ax_loss,
        bots,
        ends,
        "Causes of loss, and sealed games" if sealed else "Causes of loss",
        "games lost or sealed" if sealed else "games lost",
        "playtest-loss",
        # the causes as `mapgen playtest` and the studio say them ("a Crew Member not saved", not "crew died")
        words=lambda k: "sealed" if k == "sealed" else cause_words(k),
    )
    if any(r.get("levels") for r in reports):
        levels = [dict(r.get("levels") or {}) for r in reports]
        _stacked(ax_level, bots, levels, "Levels of success (games won)", "games won", "playtest-level")
    else:
        days = [float(r.get("mean_days") or 0) for r in reports]
        ax_level.barh(ys, days, height=0.6, color="#59a14f", edgecolor="#2d5a27", gid="playtest-days")
        _bot_axis(ax_level, bots)
        ax_level.set_title("Mean days played", loc="left", fontweight="bold")
        ax_level.set_xlabel("days")
    if title:
        fig.suptitle(title, x=0.01, ha="left", fontsize=14, fontweight="bold")
    fig.subplots_adjust(left=0.1, right=0.98, top=0.9 if title else 0.94, bottom=0.17, hspace=0.75, wspace=0.25)
    return fig


def plot_playtest(
    reports: list[dict],
    path: str | os.PathLike,
    *,
    title: str = "",
    fmt: str | None = None,
    dpi: int = DPI,
    force: bool = True,
) -> Rendered:
    """Draw playtest results: win rate per bot with intervals, scores, causes of loss (and levels reached)."""
    fmt = output_format(path, fmt)
    return save_figures([playtest_figure(reports, title=title)], path, fmt, dpi=dpi, force=force)
