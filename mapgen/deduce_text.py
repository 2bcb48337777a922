"""The readable form of ``mapgen deduce``'s report."""

from __future__ import annotations

from mapgen.model import Map
from mapgen.terrain import Terrain, big_count, quantity


def _count(step: dict) -> str:
    """A step's completions: exact in full; else ``low..high``, low an exact count further on (in full), high
    for people (``4.67 × 10⁴⁶``, never ``4.7e+46``)."""
    if step["exact"]:
        return f"{step['count']:,}"
    e = step["estimate"]
    return f"{e['low']:,}..{big_count(e['high'])}"


def deduce_text(m: Map, report: dict, source: str) -> str:
    b = m.board
    shown = set(report["reveal_set"])
    # deduce --rules: every answer below is under the house rules
    under = f" under the house rules of {report['rules']}" if report.get("rules") else ""
    lines = [
        (
            f"{source}{under}: a reveal set of {quantity(report['reveal_count'], 'cell')}: revealed, they leave this map the"
            f" only one (a minimal set: hiding any one of them allows another map)"
        )
    ]
    if report.get("givens") is not None:  # deduce --puzzle on a hand-made puzzle: its givens, trimmed
        given, kept = report["givens"], report["reveal_count"]
        lines[0] += (
            f"; the puzzle's {quantity(given, 'revealed cell')}, every one needed: it was minimal already"
            if given == kept
            else f"; trimmed from the puzzle's {quantity(given, 'revealed cell')} ({given - kept} hidden)"
        )
    lines.append("   " + " ".join(f"{c:<4}" for c in b.col_numbers).rstrip())
    for r, letter in enumerate(b.row_letters):
        codes = []
        for i in b.rows[r]:
            t = m.cells[i]
            code = t.code + (str(m.hills[i]) if i in m.hills else "")
            codes.append(code if b.name(i) in shown else "..")
        lines.append(f"{letter}  " + " ".join(f"{c:<4}" for c in codes).rstrip())
    if "depends_on" in report:  # absent only when the time limit ran out before the rules were tried
        relies = ", ".join(report["depends_on"])
        lines.append(
            f"uniqueness relies on rules: {relies} (without any one of them another map fits the reveal set)"
            if relies
            else "uniqueness relies on rules: none"
        )
    if report.get("puzzle"):
        lines.append(f"puzzle written to {report['puzzle']}")
    prof = report.get("profile")
    if prof:
        steps = prof["steps"]
        label = Terrain.from_code(prof["target"]).label if prof["target"] else None
        lines.append(
            f"reveal profile ({len(steps)} steps from the start): an explorer reveals one cell a step, next to one it"
            " has explored and never from a Rock"
        )
        lines.append(
            '  how: "forced" when every map that fits the cells revealed so far has this terrain here (a deduction;'
            ' a Hill\'s number shows when it is revealed), else "guess"'
        )
        lines.append(
            "  completions: the maps that still fit the revealed cells; forced: the unrevealed cells that hold one"
            " terrain in all of them"
        )
        if label:
            lines.append(f"  deduced: the {label}s known from that step on, before they are revealed")
        lines.append("  step cell terrain  how     completions              forced")
        for s in steps:
            lines.append(
                f"  {s['step']:>4} {s['cell']:<4} {s['terrain'] + str(s.get('hill', '')):<8} {s['reason']:<7} {_count(s):<24} {s['forced']}"
                + (f"   deduced {', '.join(s['deduced'])}" if s["deduced"] else "")
            )
            if s.get("explanation"):
                lines.append(f"         why: {s['explanation']['text']}")
        read = (report.get("grade") or {}).get("steps")
        if read and any(s["reason"] == "forced" and not s.get("explanation") for s in steps[read:]):
            # the path is explained only as far as the grade reads it: say so, not leave forced steps bare
            lines.append(
                f"  why: given for the forced steps up to step {read}, as far as the grade reads the path; later ones"
                " have none"
            )
        if label:
            for cell, ev in prof["targets"].items():
                how = (
                    f"deduced at step {ev['deduced']}"
                    if ev["deduced"] and (not ev["revealed"] or ev["deduced"] < ev["revealed"])
                    else f"found by revealing it at step {ev['revealed']}"
                )
                lines.append(f"  {label} at {cell}: {how}")
            if prof["all_targets_known_at"]:
                lines.append(f"  every {label} known by step {prof['all_targets_known_at']}")
        if prof["unique_at"]:
            lines.append(f"  the map is unique after step {prof['unique_at']}")
        lines.append(
            '  counts: exact, or a range "low..high": high from each cell\'s possible terrains; low the first exact'
        )
        lines.append(
            "  count further on, a lower bound that depends on time (a state counts exactly only if it compiles within"
        )
        lines.append("  its CPU budget: a faster or idler machine, or a circuit in the cache, may raise it)")
    g = report.get("grade")
    if g:
        lines.extend(_grade_text(g, prof or {}, m.chapter))
    if report.get("missing"):  # the time limit ran out after the reveal set: what was found is above
        lines.append(f"{not_in_time(report)}: raise --time-limit")
    return "\n".join(lines)


def not_in_time(report: dict, time_limit: float | None = None) -> str:
    """What a deduce report whose time limit ran out after the reveal set was found lacks, in words: ``not in time:
    the reveal profile, the grade (REASON)``, with ``; time limit N s`` inside the brackets when ``time_limit`` is
    given (the studio's deduce job, whose limit the user did not type); the command's text and the job say it alike."""
    parts = ", ".join(MISSING_WORDS.get(k, k) for k in report["missing"])
    limit = "" if time_limit is None else f"; time limit {time_limit:g} s"
    return f"not in time: {parts} ({report['timed_out']}{limit})"


#: A deduce report's ``"missing"`` keys in words (the time limit ran out after the reveal set was found).
MISSING_WORDS = {"depends_on": "the rules it relies on", "profile": "the reveal profile", "grade": "the grade"}


#: The deduction tiers, easiest first: the one definition (``mapgen.deduce`` grades with it, ``mapgen.quality``
#: and the CLI's options read it), here on the lowest floor that words a grade, which imports nothing heavy.
TIERS = ("Gentle", "Moderate", "Tricky", "Fiendish")


def _grade_text(g: dict, prof: dict, chapter: str) -> list[str]:
    """The grade in a designer's words: where it stands among the tiers and what it read on the path."""
    end = g["steps"]
    if prof.get("target") and prof.get("all_targets_known_at") == end:
        where = f"where every {Terrain.from_code(prof['target']).label} is known"
    elif prof.get("unique_at") == end:
        where = "where the map is unique"
    else:
        where = "the whole path"
    forced = end - g["guesses"]
    reason = (
        f"; the largest reason a forced step needed: {quantity(g['largest_reason'], 'rule or cell', 'rules and cells')}"
        if forced and g["largest_reason"]
        else ""
    )
    cuts = f"cut at the quartiles of generated {chapter} maps"
    if g.get("calibrated_on"):  # deduce --rules: the house rules' path scored, placed by the shipped chapter's cuts
        cuts = (
            f"cut at the quartiles of maps generated under shipped {g['calibrated_on']}'s rules, not these house "
            "rules': the score is the house rules' path, the tier where it would stand among shipped maps"
        )
    return [
        (
            f"deduction grade: {g['tier']} ({TIERS.index(g['tier']) + 1} of {len(TIERS)}: {', '.join(TIERS)}, easiest "
            f"first, {cuts})"
        ),
        (
            f"  read up to step {end}, {where}: {quantity(g['guesses'], 'guess', 'guesses')}, "
            f"{quantity(forced, 'forced step', 'forced steps')} ({g['deduced_share']:.0%}){reason}"
        ),
    ]


def seed_number_note(m: Map) -> str | None:
    """What a puzzle of ``m`` has to be told: a generated map is numbered by its seed (a shipped map by its place,
    easiest first: fauna-1 is ``generate -c fauna --seed 1``, fauna-2 seed 4), and its puzzle keeps the number (a maker's label, printed on the sheet),
    which makes the answer again with ``mapgen generate``: "numbered 1, the seed that makes its answer (mapgen
    generate -c fauna --seed 1): renumber it before handing it out", as ``deduce --puzzle`` and the studio's
    "Download puzzle" say it; None when the number is not the seed its ``[generator]`` table records (or the table
    is marked edited: its seed made the map as it was)."""
    record = m.meta.get("generator") or {}
    number, seed = m.briefing.number, record.get("seed")
    if number is None or seed != number or record.get("edited"):
        return None
    profile = record.get("profile", "default")
    under = "" if profile == "default" else f" under profile {profile}"
    return (
        f"numbered {number}, the seed that makes its answer (mapgen generate -c {m.chapter} --seed {seed}{under}): "
        "renumber it before handing it out"
    )
