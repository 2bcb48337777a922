"""Calibrate the deduction grade: score the logical solve path of generated maps per chapter and
write the quartiles as the tier thresholds (mapgen/grades.toml).

    python -m bench.calibrate_grade --per-chapter 8 --write
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from constraints.catalogue import chapter_names
from mapgen.deduce import difficulty_score, reveal_profile
from mapgen.generate import generate_map

GRADES = Path(__file__).resolve().parent.parent / "mapgen" / "grades.toml"


def path_figures(m) -> tuple[int, int, float]:
    from mapgen.deduce import grade

    g = grade(reveal_profile(m), m.chapter)
    return g["guesses"], g["largest_reason"], g["deduced_share"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--per-chapter", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--write", action="store_true", help="write the quartiles to mapgen/grades.toml")
    ap.add_argument("--out", default=None, help="also save every map's figures as JSON")
    args = ap.parse_args(argv)
    data: dict[str, list] = {}
    for chapter in chapter_names():
        rows = []
        for k in range(args.per_chapter):
            m = generate_map(chapter, args.seed + k)
            guesses, largest, share = path_figures(m)
            rows.append(
                {
                    "seed": args.seed + k,
                    "guesses": guesses,
                    "largest_reason": largest,
                    "deduced_share": share,
                    "score": round(difficulty_score(guesses, largest, share), 2),
                }
            )
            print(chapter, rows[-1], flush=True)
        scores = sorted(r["score"] for r in rows)
        print(f"{chapter:<10} scores {' '.join(f'{x:.1f}' for x in scores)}")
        data[chapter] = rows
    cuts = {}
    for chapter, rows in data.items():
        q = statistics.quantiles([r["score"] for r in rows], n=4, method="inclusive")
        cuts[chapter] = [round(x, 2) for x in q]
        print(f"{chapter:<10} quartiles {cuts[chapter]}")
    if args.out:
        Path(args.out).write_text(json.dumps(data, indent=1), encoding="utf-8")
    if args.write:
        head = GRADES.read_text(encoding="utf-8").split("[thresholds]")[0]
        body = "[thresholds]\n" + "\n".join(f"{c} = {v}" for c, v in cuts.items())
        body += f"\ndefault = {cuts.get('fauna')}\n"
        GRADES.write_text(head + body, encoding="utf-8")
        print(f"wrote {GRADES} (update its comment lines with the scores above)")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
