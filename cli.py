"""The ``mapgen`` command line: a thin click layer over the mapgen and constraints libraries."""

from __future__ import annotations

import json
import sys
from typing import ClassVar

import click

from mapgen import __version__


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines instead of a report.")(f)


def chapter_file_option(f):
    return click.option("--rules", "rules_file", type=click.Path(dir_okay=False),
                        help="A house-rule chapter file (TOML, same shape as constraints/chapters/*.toml).")(f)


def _load_rules(rules_file):
    if rules_file is None:
        return None
    from constraints.catalogue import ChapterError, load_chapter

    try:
        return load_chapter(rules_file)
    except ChapterError as e:  # an unreadable input file: exit 2, like an unreadable map
        click.echo(f"error: {e}", err=True)
        sys.exit(2)


class MapgenGroup(click.Group):
    """Lists commands in the order they were added, and imports the heavy ones only when called."""

    #: command name -> "module:attribute"; imported on first use so `validate` stays fast
    lazy: ClassVar[dict[str, str]] = {"render": "mapgen.render.commands:render", "playtest": "mapgen.engine.commands:playtest"}

    def list_commands(self, ctx):
        return [*self.commands, *(n for n in self.lazy if n not in self.commands)]

    def get_command(self, ctx, name):
        if name not in self.commands and name in self.lazy:
            import importlib

            module, attr = self.lazy[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


@click.group(cls=MapgenGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mapgen")
def main():
    """Generate, validate, solve and playtest Corps of Discovery maps."""


@main.command()
@click.argument("files", nargs=-1, required=True)
@json_option
@chapter_file_option
def validate(files, as_json, rules_file):
    """Check complete map files against every rule of their chapter.

    Exit 0 when every map is valid, 1 when any breaks a rule, 2 when any file cannot be read.

    \b
    Example:
        mapgen validate maps/fauna-1.toml my-map.toml
        mapgen validate --json *.toml
    """
    from dataclasses import replace

    from mapgen.validate import validate_file
    from maps import resolve

    chapter = _load_rules(rules_file)
    reports = [replace(validate_file(resolve(f), chapter), file=f) for f in files]
    for r in reports:
        if r.error:
            click.echo(f"error: {r.file}: {r.error}", err=True)
    if as_json:
        click.echo(json.dumps([r.to_json() for r in reports], indent=2, ensure_ascii=False))
    else:
        for r in reports:
            if r.error:
                click.echo(f"{r.file}: unreadable")
            elif r.valid:
                click.echo(f"{r.file}: valid")
            else:
                n = len(r.violations)
                click.echo(f"{r.file}: {n} violation{'s' if n != 1 else ''}")
                for v in r.violations:
                    click.echo(f"  {v}")
    if any(r.error for r in reports):
        sys.exit(2)
    if any(not r.valid for r in reports):
        sys.exit(1)


@main.command()
@click.argument("chapter", required=False)
@json_option
@chapter_file_option
def chapters(chapter, as_json, rules_file):
    """Show the chapters, their terrains and their rules: the Reference Board as text.

    \b
    Example:
        mapgen chapters
        mapgen chapters fauna
    """
    from constraints.catalogue import ChapterError, get_chapter
    from mapgen.model import CHAPTER_NAMES
    from mapgen.reference import chapter_json, chapter_text

    custom = _load_rules(rules_file)
    try:
        chosen = [custom] if custom else [get_chapter(chapter.strip().lower())] if chapter else [get_chapter(n) for n in CHAPTER_NAMES]
    except ChapterError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps([chapter_json(c) for c in chosen], indent=2, ensure_ascii=False))
    else:
        click.echo("\n\n".join(chapter_text(c) for c in chosen))



@main.command()
@click.option("--chapter", "-c", "chapter_name", required=True,
              type=click.Choice(["training", "fauna", "flora", "vameter", "maldonado"], case_sensitive=False),
              help="The chapter to generate maps for.")
@click.option("--seed", "-s", type=click.IntRange(0, 2**63 - 1), default=None,
              help="The first seed (default: a random one, recorded in the map). Same seed, same map.")
@click.option("--count", "-n", type=click.IntRange(1, 100_000), default=1, show_default=True,
              help="How many maps (seeds N ... N+K-1); more than one needs --out.")
@click.option("--out", "-o", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write CH-SEED.toml files into this folder instead of printing one map.")
@click.option("--profile", "profile_file", type=click.Path(dir_okay=False), default=None,
              help="A design profile (TOML) overriding the chapter's defaults (mapgen/profiles/).")
@click.option("--time-limit", type=click.FloatRange(0.1, 3600), default=10.0, show_default=True,
              help="Seconds allowed for each map.")
@click.option("--force", is_flag=True, help="Overwrite existing map files in --out.")
@json_option
def generate(chapter_name, seed, count, out_dir, profile_file, time_limit, force, as_json):
    """Generate new maps that keep every rule of their chapter and the design defaults.

    Without --out one map is printed as a map file on stdout. With --out, K files are written
    atomically; existing files are kept unless --force. Exit 1 when no map can meet the request.

    \b
    Example:
        mapgen generate --chapter fauna --seed 7
        mapgen generate -c flora --seed 100 --count 20 --out maps/
    """
    from mapgen.batch import BatchError, generate_batch

    try:
        summary = generate_batch(chapter_name.lower(), seed=seed, count=count, out_dir=out_dir,
                                 profile_file=profile_file, time_limit=time_limit, force=force,
                                 progress=not as_json and out_dir is not None)
    except BatchError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif out_dir is None:
        click.echo(summary[0]["text"], nl=False)
    else:
        for item in summary:
            click.echo(f"wrote {item['file']} (seed {item['seed']}, {item['seconds'] * 1000:.0f} ms)", err=True)


def _read_state(file):
    """A map file, or a shipped map by name (``fauna-1``); unreadable input exits 2 with one line."""
    from mapgen.mapfile import MapFileError, read_map
    from maps import resolve

    try:
        return read_map(resolve(file))
    except MapFileError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)


def _target_terrain(chapter, target):
    """The terrain named by ``--target`` (``""``: the chapter's counted terrain), or None."""
    from mapgen.terrain import parse_terrain

    if target is None:
        return None
    if target == "":
        if chapter.counted is None:
            raise click.UsageError(f"the {chapter.name} chapter has no counted terrain; name one: --target CODE")
        return chapter.counted
    try:
        return parse_terrain(target)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


def _interrupted(file):
    """Ctrl-C: one line that says so (never "time limit"), exit 130 like any interrupted command."""
    click.echo(f"error: {file}: interrupted", err=True)
    sys.exit(130)


@main.command()
@click.argument("file")
@click.option("--limit", type=click.IntRange(1), default=100_000, show_default=True,
              help="Stop enumerating at N completions when no exact counter finishes.")
@click.option("--probabilities", is_flag=True, help="The share of completions with each terrain, per unrevealed cell.")
@click.option("--target", is_flag=False, flag_value="", default=None, metavar="[CODE]",
              help="Can the cells of this terrain be deduced yet? (default: the chapter's counted terrain)")
@click.option("--explain", is_flag=True, help="Why each forced cell is forced: a minimal set of rules and revealed cells.")
@click.option("--time-limit", type=click.FloatRange(0.1), default=10.0, show_default=True,
              help="Seconds for the whole answer: forced cells first, then reasons, then the count.")
@json_option
def solve(file, limit, probabilities, target, explain, time_limit, as_json):
    """Deduce a partial map: forced cells, completions, reasons, probabilities and targets.

    Forced cells and possible terrains are exact and come first. The count is exact when the
    exact counter finishes in time, otherwise a labelled estimate with its bounds. Exit 0 with at
    least one completion, 1 with none (naming rules and cells that conflict), 2 for an unreadable
    file, 3 when the time limit ran out before the forced cells were known.

    \b
    Example:
        mapgen solve state.toml
        mapgen solve state.toml --explain
        mapgen solve state.toml --probabilities --target Ft --json
    """
    from constraints.catalogue import get_chapter
    from mapgen.report import solve_report, solve_text
    from mapgen.solve import NoCompletion, SolveTimeout

    state = _read_state(file)
    terrain = _target_terrain(get_chapter(state.chapter), target)
    try:
        report = solve_report(state, limit=limit, probabilities=probabilities, target=terrain,
                              time_limit=time_limit, explain=explain)
    except NoCompletion as e:
        if as_json:
            click.echo(json.dumps({"count": 0, "exact": True, "unique": False, "forced": {},
                                   "conflict": {"rules": list(e.rules), "cells": list(e.cells), "message": str(e)}}))
        click.echo(f"{file}: {e}", err=True)
        sys.exit(1)
    except SolveTimeout:
        click.echo(f"error: {file}: the time limit ran out before the forced cells were known "
                   f"(raise --time-limit)", err=True)
        sys.exit(3)
    except KeyboardInterrupt:
        _interrupted(file)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(solve_text(state, report, file))


@main.command()
@click.argument("file")
@click.option("--target", default=None, metavar="CODE",
              help="When nothing is forced, name the Paths with the best odds of this terrain "
                   "(default: the chapter's counted terrain).")
@click.option("--time-limit", type=click.FloatRange(0.1), default=10.0, show_default=True, help="Seconds allowed.")
@json_option
def hint(file, target, time_limit, as_json):
    """The single easiest deduction on a partial map, with its reason, like a hint button.

    When no cell is forced, says so and names the unexplored Paths with the best odds of the
    target terrain. Exit codes as for `mapgen solve`.

    \b
    Example:
        mapgen hint state.toml
        mapgen hint state.toml --target Sk --json
    """
    from constraints.catalogue import get_chapter
    from mapgen.explain import hint as find_hint
    from mapgen.explain import hint_text
    from mapgen.solve import NoCompletion, Solver, SolveTimeout

    state = _read_state(file)
    chapter = get_chapter(state.chapter)
    terrain = _target_terrain(chapter, target if target is not None else ("" if chapter.counted else None))
    try:
        result = find_hint(Solver.for_chapter(state.chapter), state, terrain, time_limit=time_limit)
    except NoCompletion as e:
        click.echo(f"{file}: {e}", err=True)
        sys.exit(1)
    except SolveTimeout:
        click.echo(f"error: {file}: the time limit ran out before the forced cells were known "
                   f"(raise --time-limit)", err=True)
        sys.exit(3)
    except KeyboardInterrupt:
        _interrupted(file)
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(hint_text(state, result, file))


@main.command()
@click.argument("map_file", metavar="MAP")
@click.option("--puzzle", "puzzle_out", type=click.Path(dir_okay=False), default=None,
              help="Write the minimal reveal set as a partial map file: a pencil-and-paper puzzle.")
@click.option("--force", is_flag=True, help="Overwrite the --puzzle file if it exists.")
@click.option("--no-profile", is_flag=True, help="Skip the reveal profile (the slowest part).")
@click.option("--seed", type=int, default=0, show_default=True, help="Order in which the reveal set is thinned.")
@click.option("--time-limit", type=click.FloatRange(1), default=300.0, show_default=True, help="Seconds in all.")
@json_option
def deduce(map_file, puzzle_out, force, no_profile, seed, time_limit, as_json):
    """Report how a complete map deduces: a minimal reveal set, the rules it relies on, the
    reveal profile of a logical explorer playing from the start (a count at every step, the
    reason for every forced step) and the map's deduction grade (Gentle, Moderate, Tricky,
    Fiendish). Exit 3 when the time limit runs out.

    \b
    Example:
        mapgen deduce maps/fauna-1.toml --puzzle fauna-1-puzzle.toml
        mapgen deduce my-map.toml --no-profile --json
    """
    from constraints.catalogue import check_map
    from mapgen.deduce import deduce_report, reveal
    from mapgen.deduce_text import deduce_text
    from mapgen.mapfile import write_map
    from mapgen.solve import SolveTimeout

    m = _read_state(map_file)
    if not m.complete:
        raise click.ClickException(f"{map_file}: a partial map; deduce needs a complete map (use `mapgen solve`)")
    broken = check_map(m)
    if broken:
        raise click.ClickException(f"{map_file}: the map breaks {broken[0]} (run `mapgen validate` for all)")
    if puzzle_out and not force:
        from pathlib import Path

        if Path(puzzle_out).exists():
            raise click.ClickException(f"{puzzle_out} already exists; use --force to overwrite")
    progress = None
    if not as_json and not no_profile and sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(transient=True, console=Console(stderr=True))
        task = bar.add_task("reveal profile", total=m.board.size)
        progress = lambda k, n: bar.update(task, completed=k)  # noqa: E731
        bar.start()
    try:
        report = deduce_report(m, seed=seed, time_limit=time_limit, profile=not no_profile, progress=progress)
    except SolveTimeout as e:
        click.echo(f"error: {map_file}: {e} (raise --time-limit)", err=True)
        sys.exit(3)
    except KeyboardInterrupt:
        _interrupted(map_file)
    finally:
        if progress is not None:
            bar.stop()
    if puzzle_out:
        b = m.board
        puzzle = reveal(m, [b.index(c) for c in report["reveal_set"]])
        write_map(puzzle, puzzle_out, overwrite=force)
        report["puzzle"] = puzzle_out
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(deduce_text(m, report, map_file))


if __name__ == "__main__":
    main()
