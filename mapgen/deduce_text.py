"""The readable form of ``mapgen deduce``'s report."""

from __future__ import annotations

from mapgen.model import Map
from mapgen.terrain import Terrain, quantity


def _count(step: dict) -> str:
    if step["exact"]:
        return f"{step['count']:,}"
    e = step["estimate"]
    return f"{e['low']:,}..{e['high']:.2g}"


def deduce_text(m: Map, report: dict, source: str) -> str:
    b = m.board
    shown = set(report["reveal_set"])
    lines = [
        (
            f"{source}: unique from {report['reveal_count']} revealed cells (a minimal set: hiding any one "
            f"of them allows another map)"
        )
    ]
    lines.append("   " + " ".join(f"{c:<4}" for c in b.col_numbers).rstrip())
    for r, letter in enumerate(b.row_letters):
        codes = []
        for i in b.rows[r]:
            t = m.cells[i]
            code = t.code + (str(m.hills[i]) if i in m.hills else "")
            codes.append(code if b.name(i) in shown else "..")
        lines.append(f"{letter}  " + " ".join(f"{c:<4}" for c in codes).rstrip())
    lines.append(f"uniqueness relies on rules: {', '.join(report['depends_on']) or 'none'}")
    if report.get("puzzle"):
        lines.append(f"puzzle written to {report['puzzle']}")
    prof = report.get("profile")
    if prof:
        steps = prof["steps"]
        lines.append(f"reveal profile ({len(steps)} steps from the start):")
        lines.append("  step cell terrain  how     completions        forced")
        for s in steps:
            lines.append(
                f"  {s['step']:>4} {s['cell']:<4} {s['terrain']:<8} {s['reason']:<7} {_count(s):<18} {s['forced']}"
                + (f"   deduced {', '.join(s['deduced'])}" if s["deduced"] else "")
            )
            if s.get("explanation"):
                lines.append(f"         why: {s['explanation']['text']}")
        if prof["target"]:
            label = Terrain.from_code(prof["target"]).label
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
        lines.append(
            f"deduction grade: {g['tier']} ({quantity(g['guesses'], 'guess', 'guesses')} before every target is known, "
            f"largest reason "
            f"{g['largest_reason']} rules and cells, {g['deduced_share']:.0%} of those steps deduced)"
        )
    return "\n".join(lines)
