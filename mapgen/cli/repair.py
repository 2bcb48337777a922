"""``mapgen repair``: the valid map nearest to a hand-made one, with each change and the rule it mends."""

from __future__ import annotations

import json

import click

from mapgen.cli.errors import about
from mapgen.cli.options import (
    OutName,
    comments_note,
    force_option,
    force_unused,
    json_option,
    map_argument,
    map_out_file,
    rules_file,
    rules_for,
    rules_option,
    time_limit_option,
)


@click.command()
@map_argument()
@click.option(
    "--out",
    "-o",
    "out_path",
    metavar="FILE",
    type=OutName("file"),
    default=None,
    help="Write the repaired map to FILE (.toml) instead of printing it (-: print it, as without --out).",
)
@time_limit_option(10.0, help="Seconds allowed for the search.")
@force_option("the --out file")
@rules_option
@json_option
def repair(map_in, out_path, time_limit, force, rules, as_json):
    """Find the valid map nearest to MAP: the fewest cells changed, the briefing kept.

    CP-SAT minimises the number of changed cells under every rule of the chapter; Hill numbers are
    set right, and `..` cells are filled at no cost. Each change is listed with the rules that break
    again if that change alone is undone. The map goes to stdout or to --out FILE, the changes
    to stderr either way. Exit 1 when no map at all has this briefing (the rules that conflict are named),
    3 when the time limit runs out before any valid map is found or before the search's work is done (counted
    work: a map not proven nearest is the same on any load). With --rules FILE the map is
    repaired to keep that house-rule chapter file's rules instead of its chapter's.

    \b
    Example:
        mapgen repair fauna-1 --json
        mapgen deduce fauna-1 --puzzle puzzle.toml --no-profile
        mapgen repair puzzle.toml -o filled.toml
    """
    from mapgen.output import write_text  # deferred: the command's library, only when it runs
    from mapgen.repair import repair_map  # deferred: ortools, only when the command runs

    if out_path == "-":  # stdout, as without --out (deduce --puzzle - prints its map there too)
        out_path = None
    chapter = rules_for(map_in, rules)  # exit 2: a map of another chapter than the --rules file's
    map_out_file(out_path, force=force)
    force_unused(force, (out_path,), "--out")
    with about(map_in.source, time_limit):
        result = repair_map(
            map_in.map, chapter=chapter, time_limit=time_limit, rules_file=None if rules is None else rules_file()
        )
    report = {"file": map_in.source, **result.to_json()}
    if out_path is not None:
        write_text(out_path, report["text"], force=force)
        report["out"] = out_path
    lost = comments_note(map_in)  # the draft's notes: not in the repaired map
    seed = f"note: {map_in.source}: {result.seed_note}" if result.seed_note else None
    if as_json:
        for line in (lost, seed):
            if line is not None:
                click.echo(line, err=True)
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    for line in _summary(map_in.source, result):
        click.echo(line, err=True)  # the map alone on stdout, or nothing there with --out
    for line in (lost, seed):
        if line is not None:
            click.echo(line, err=True)
    if out_path is None:
        click.echo(report["text"], nl=False)


def _summary(source: str, result) -> list[str]:
    n = len(result.violations_before)
    if not result.changes:
        return [f"{source}: valid; nothing to repair"]
    if not n and all(c.before != ".." for c in result.changes):  # a valid map whose Hills lacked their numbers
        k = len(result.changes)
        return [f"{source}: valid; {k} Hill number{'s' if k != 1 else ''} filled in:"] + [
            f"  {c}" for c in result.changes
        ]
    broke = f"{n} violation{'s' if n != 1 else ''}" if n else "a partial map"
    d = result.distance
    # not proven: the search's counted work ran out (the same map on any load); a larger --time-limit searches further
    how = "the fewest possible" if result.optimal else "not proven the fewest; a larger --time-limit searches further"
    # every listed change counted by kind, as the studio says it: a Hill number or a blank cell is no changed cell
    blank = sum(c.before == ".." for c in result.changes)
    hills = len(result.changes) - blank - d
    also = [f"{hills} Hill number{'s' if hills != 1 else ''} set right"] if hills else []
    also += [f"{blank} blank cell{'s' if blank != 1 else ''} filled"] if blank else []
    also_said = "".join(f"; {a}" for a in also)
    lines = [f"{source}: {broke}; repaired by changing {d} cell{'s' if d != 1 else ''} ({how}){also_said}:"]
    lines.extend(f"  {c}" for c in result.changes)
    return lines
