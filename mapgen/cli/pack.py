"""``mapgen pack``: a map folder to print and play: a cover, maps at Map Board size, a play log (PDF)."""

from __future__ import annotations

import json
import re
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import click

from constraints.catalogue import get_chapter, with_every_hill_number
from mapgen.cli.errors import BROKEN, BadInput, OutOfTime, RuleBroken, about, exit_code
from mapgen.cli.grade import parse_win_rate, progress_bar, where
from mapgen.cli.options import (
    FiniteRange,
    MapType,
    OutName,
    Share,
    chapter_option,
    checked_map,
    force_option,
    house_chapter,
    jobs_option,
    json_option,
    out_file,
    reject,
    rules_file,
    rules_option,
    seed_option,
    time_limit_option,
    typed,
)
from mapgen.deduce_text import TIERS
from mapgen.mapfile import dumps_map, grade_table
from mapgen.terrain import quantity

#: the whole search's default time limit (seconds), when --time-limit is not given
SEARCH_TIME = 1200.0


def _offset(value: str) -> tuple[float, float]:
    """``--offset-mm``: ``X,Y`` or one number for both."""
    parts = [p.strip() for p in value.split(",")]
    try:
        nums = [float(p) for p in parts]
    except ValueError:
        reject("--offset-mm", f"expected X,Y in millimetres (or one number for both), like 8,8, not {value!r}")
    if len(nums) not in (1, 2):
        reject("--offset-mm", f"expected X,Y in millimetres (or one number for both), like 8,8, not {value!r}")
    return (nums[0], nums[-1])


def _pdf_name(out: str) -> str:
    """The name -o should have been: ``somedir`` -> ``somedir.pdf``, ``f.png`` -> ``f.pdf``."""
    path = Path(out.rstrip("/\\") or out)
    if path.suffix and not path.is_dir():
        return str(path.with_suffix(".pdf"))
    return f"{path}.pdf"


#: the longest --url-base: each map's QR code (26 mm square) holds it and the briefing (about 75 characters more);
#: 3,000 characters overflowed the largest QR code (segno's DataOverflowError: a traceback), and a few hundred make
#: modules too small to print and scan
URL_BASE_MAX = 200


def _url_base(value: str) -> str:
    """An http(s) address a phone can open: a host, a port that is a port, no spaces, at most ``URL_BASE_MAX``
    characters (the QR codes hold it)."""
    if len(value) > URL_BASE_MAX:
        reject(
            "--url-base",
            f"at most {URL_BASE_MAX} characters (each map's QR code holds it), not {len(value):,}; "
            "give the address of mapgen serve, like http://192.168.1.20:8000",
        )
    try:
        u = urlsplit(value)
    except ValueError:  # an unclosed IPv6 bracket (http://[::1): urllib's ValueError was a traceback
        u = None
    try:
        port_ok = u is not None and (u.port is None or 0 < u.port)
    except ValueError:  # a port that is not a number, or past 65535
        port_ok = False
    if (
        u is None
        or u.scheme not in ("http", "https")
        or not u.hostname
        or not port_ok
        or u.query
        or u.fragment
        or any(ch.isspace() or not ch.isprintable() for ch in value)
    ):
        reject("--url-base", f"expected the address of mapgen serve, like http://192.168.1.20:8000, not {value!r}")
    return value.rstrip("/")


@click.command()
# valid: checked in the body, against the --rules file's rules when given (a map made under house rules breaks the
# shipped ones)
@click.argument(
    "maps_in",
    metavar="[MAPS]...",
    nargs=-1,
    type=MapType(
        complete=True,
        # a puzzle maker's deduce --puzzle file: the command that prints one
        partial="a folder's maps hide under Path tokens; a puzzle prints on its own sheet: "
        "mapgen render PUZZLE -o PUZZLE.pdf --sheet",
    ),
)
@click.option(
    "-o", "--output", "out", required=True, metavar="FILE", type=OutName("file"), help="The PDF to write (.pdf)."
)
@chapter_option(help="Make a new folder of this chapter's maps (or give MAPS).")
@rules_option
@click.option(
    "--count",
    "-n",
    type=click.IntRange(1, 40),
    default=None,
    help="Maps in the folder (default: as in the box, 8; Training 2).",
)
@click.option("--grade-spread", is_flag=True, help="Spread the maps over the deduction grades, easiest first.")
@click.option(
    "--grade",
    "grade_tier",
    type=click.Choice(TIERS, case_sensitive=False),
    default=None,
    help="Every map of this deduction grade.",
)
@click.option(
    "--win-rate",
    metavar="[BOT:]LO-HI",
    default=None,
    help="Win-rate band for a bot (default: the chapter's heuristic band).",
)
@click.option(
    "--max-walled-in", type=Share(), default=None, help="Largest share of games sealed walled in: 0.2 or 20%."
)
@click.option(
    "--games",
    type=click.IntRange(1, 100_000),
    default=200,
    show_default=True,
    help="Games of the band's bot per candidate.",
)
@seed_option(None, help="The first seed (default: a random one, printed on the cover). Same seed, same folder.")
@click.option(
    "--out",
    "out_dir",
    metavar="DIR",
    type=OutName("folder"),
    default=None,
    help="Write the new maps here as CHAPTER-N.toml with their [grade] tables (needed with -c).",
)
@click.option(
    "--candidates",
    type=click.IntRange(1, 1_000_000),
    default=400,
    show_default=True,
    help="Most candidates to generate and grade.",
)
@time_limit_option(None, help=f"Seconds for the whole search (default {SEARCH_TIME:g}).")
@jobs_option()
@click.option(
    "--paper",
    type=click.Choice(["a4", "letter"], case_sensitive=False),
    default="a4",
    show_default=True,
    help="Paper size (1/4 inch margins).",
)
@click.option(
    "--cell-mm",
    type=FiniteRange(),
    default=None,
    help="Cell pitch of your Map Board in mm, 10 to 40 (default 24, an assumption: measure it with --calibrate).",
)
@click.option(
    "--offset-mm",
    metavar="X,Y",
    default=None,
    help="The grid's top-left corner from the cut sheet's top-left corner, in mm (default 8,8).",
)
@click.option("--bw", is_flag=True, help="Black and white, no fills: saves ink, stays readable.")
@click.option(
    "--url-base",
    metavar="URL",
    default=None,
    help="The address of mapgen serve for the QR codes (default http://localhost:8000; a phone needs your "
    "computer's address on the network, with mapgen serve --host 0.0.0.0).",
)
@click.option("--calibrate", is_flag=True, help="Write the calibration pages instead: a mm ruler grid for the board.")
@force_option("the PDF and the map files", several=True)
@json_option
def pack(
    maps_in,
    out,
    chapter_name,
    rules,
    count,
    grade_spread,
    grade_tier,
    win_rate,
    max_walled_in,
    games,
    seed,
    out_dir,
    candidates,
    time_limit,
    jobs,
    paper,
    cell_mm,
    offset_mm,
    bw,
    url_base,
    calibrate,
    force,
    as_json,
):
    """Make a map folder to print and play: a PDF with a cover, the maps at Map Board size, and a play log.

    With -c CHAPTER, new maps are generated and graded (mapgen generate with a target: every candidate's
    deduction grade and --games games of the band's bot) and written to --out DIR as CHAPTER-N.toml with
    their [grade] tables, numbered easiest first; --grade-spread shares them over the deduction grades,
    --grade TIER asks one. Same seed, same folder. With MAPS, the folder holds those maps (their [grade]
    tables, when they have one, fill the cover).

    With --rules FILE (a house-rule chapter file) the maps keep its rules instead of the chapter's: MAPS are
    checked against them (exit 1 naming the rule a map breaks, 2 for a file of another chapter), and with -c
    the new maps are generated under them (as mapgen generate --rules) and graded under them (as mapgen grade
    --rules: the tier's cuts and the default bands stay the shipped chapter's measures). The cover names the
    file and the rules' fingerprint, as each map's [generator] table does.

    The PDF (A4 or Letter, 1/4 inch margins): a cover with the folder's table; each map on its own page
    with a blank back, drawn at --cell-mm and --offset-mm (defaults 24 mm and 8,8 mm: an assumption, the
    rulebooks give no sizes) inside crop marks, its Mission Briefing below the grid where the Map Board
    shows it, and a QR code of mapgen serve's table helper opened on the map's briefing; and the play log
    (players, characters, gear, map, score, date) as a form. --calibrate writes the ruler pages to read
    your board's pitch and offset from. Existing files are kept unless --force (checked before any work);
    with --force, an earlier, larger folder's extra maps in DIR (listed in DIR/.mapgen-files.json) are removed.
    Exit 1 when too few candidates pass, 3 when --time-limit runs out first.

    \b
    Example:
        mapgen pack --calibrate -o calibration.pdf
        mapgen pack fauna-1 fauna-2 fauna-3 -o three.pdf --paper letter --bw
        mapgen pack -c training --seed 1 --grade-spread --games 50 -o training.pdf --out training-folder
        mapgen pack -c fauna --count 4 --grade-spread --seed 1 -o fauna-folder.pdf --out fauna-folder
        mapgen chapters fauna -o house.toml
        mapgen pack -c fauna --rules house.toml --count 3 --grade-spread --seed 1 -o house-folder.pdf --out house-folder
        mapgen pack house-folder/fauna-1.toml house-folder/fauna-2.toml --rules house.toml -o house.pdf
    """
    from mapgen.render.folder import (  # deferred: the command's library, only when it runs
        DEFAULT_CELL_MM,
        DEFAULT_OFFSET_MM,
        Layout,
    )

    layout = Layout(
        paper=paper.lower(),
        cell_mm=DEFAULT_CELL_MM if cell_mm is None else cell_mm,
        offset_mm=DEFAULT_OFFSET_MM if offset_mm is None else _offset(offset_mm),
        bw=bw,
    )
    layout.check()  # LayoutError (exit 2): a layout the paper cannot hold
    if Path(out).suffix.lower() != ".pdf":
        # "a map folder is a PDF" read as if -o named a folder of maps (the maps of -c go to --out DIR)
        what = "the PDF of the calibration pages" if calibrate else "the PDF to write"
        maps_dir = "" if calibrate else " (the maps of -c go to --out DIR)"
        raise BadInput(out, f"-o is {what}: name it {_pdf_name(out)}{maps_dir}")
    generating = [
        name
        for name, given in (
            ("--count", count is not None),
            ("--grade-spread", grade_spread),
            ("--grade", grade_tier is not None),
            ("--win-rate", win_rate is not None),
            ("--max-walled-in", max_walled_in is not None),
            ("--seed", seed is not None),
            ("--out", out_dir is not None),
            # options with a default: given when typed (they were dropped without a word beside MAPS)
            *((opt, typed(name)) for opt, name in (("--games", "games"), ("--candidates", "candidates"))),
            ("--time-limit", time_limit is not None),
            ("--jobs", typed("jobs")),
        )
        if given
    ]
    started = time.perf_counter()
    if calibrate:
        extra = [
            *(["MAPS"] if maps_in else []),
            *(["-c"] if chapter_name else []),
            *generating,
            *(["--rules"] if rules is not None else []),
            *(["--bw/--url-base"] if bw or url_base else []),
        ]
        if extra:
            reject("--calibrate", f"writes the ruler pages only; drop {extra[0]}")
        from mapgen.render.folder import write_calibration  # deferred: the command's library, only when it runs

        out_file(out, force=force)
        pages = write_calibration(out, layout, force=force)
        _done(as_json, out, pages, [], started, layout)
        return
    base = _url_base(url_base) if url_base is not None else None
    record = None
    if rules is not None:  # the cover names the rules, as a made map's [generator] table does
        from mapgen.generate import rules_record  # deferred: the command's library, only when it runs

        record = rules_record(rules_file(), rules)
    if maps_in:
        if chapter_name:
            reject("-c", "give MAPS or -c CHAPTER, not both")
        if generating:
            reject(generating[0], "makes new maps with -c CHAPTER; MAPS are packed as they are")
        chapters = sorted({mi.map.chapter for mi in maps_in})
        if len(chapters) > 1:
            reject("MAPS", f"a folder holds one chapter's maps, not {', '.join(chapters)}")
        for mi in maps_in:  # exit 2 for another chapter's rules, 1 naming the rules a map breaks
            checked_map(mi, valid=True, command="mapgen pack", chapter=rules)
        if len(maps_in) > 40:
            reject("MAPS", f"a folder holds at most 40 maps, not {len(maps_in)}")
        out_file(out, force=force)
        _say_repeats(maps_in)
        for mi in maps_in:  # a map edited by hand since it was graded: its table's figures are another map's
            if "grade" in mi.map.meta and grade_table(mi.map) is None:
                click.echo(
                    f"note: {mi.source}: its [grade] table graded the map before it was edited: left off the cover "
                    f"(mapgen grade {mi.source} grades it as it is)",
                    err=True,
                )
        # numbered in the folder as given (the number the log and the cover name it by), every Hill with its
        # number on the page (a file may write a Hill as `Hi`)
        items = [
            (
                with_every_hill_number(replace(mi.map, briefing=replace(mi.map.briefing, number=n)), rules),
                mi.source,
                None,
            )
            for n, mi in enumerate(maps_in, 1)
        ]
        note = "maps given: " + ", ".join(Path(mi.source).stem for mi in maps_in)
        _write(items, chapters[0], out, layout, base, note, force, as_json, started, rules=record)
        return
    if chapter_name is None:
        raise click.UsageError("Missing MAPS, or -c CHAPTER to make new maps (or --calibrate).")
    if out_dir is None:
        reject("--out", "a new folder's maps are written to --out DIR as well (to print one again, or check it)")
    if grade_spread and grade_tier:
        reject("--grade-spread", "spreads the maps over every grade; drop --grade, or drop --grade-spread")
    if rules is not None:
        house_chapter(rules, chapter_name)  # exit 2: a file of another chapter, or of no shipped one
    _generate(
        chapter_name.lower(),
        rules=rules,
        record=record,
        count=count,
        grade_spread=grade_spread,
        grade_tier=grade_tier,
        win_rate=win_rate,
        max_walled_in=max_walled_in,
        games=games,
        seed=seed,
        out_dir=out_dir,
        candidates=candidates,
        time_limit=time_limit,
        jobs=jobs,
        out=out,
        layout=layout,
        base=base,
        force=force,
        as_json=as_json,
        started=started,
    )


def _times(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


def _say_repeats(maps_in) -> None:
    """One note on stderr for each map given more than once (the same terrain and briefing, from the same file or
    another): packed as often as given, as a designer may want a spare copy, but said, as it may be a slip."""
    seen: dict = {}
    for mi in maps_in:
        m = mi.map
        seen.setdefault((m.chapter, m.briefing, m.cells, tuple(sorted(m.hills.items()))), []).append(mi.source)
    for sources in seen.values():
        if len(sources) > 1:
            names = list(dict.fromkeys(sources))
            given = f" (as {', '.join(names[:-1])} and {names[-1]})" if len(names) > 1 else ""
            click.echo(
                f"note: {names[0]} is given {_times(len(sources))}{given}; packed {_times(len(sources))}", err=True
            )


def _generate(
    chapter,
    *,
    rules,
    record,
    count,
    grade_spread,
    grade_tier,
    win_rate,
    max_walled_in,
    games,
    seed,
    out_dir,
    candidates,
    time_limit,
    jobs,
    out,
    layout,
    base,
    force,
    as_json,
    started,
):
    from mapgen.batch import start_batch  # deferred: ortools, only when the command runs
    from mapgen.output import Series, prepare_folder  # deferred: the command's library, only when it runs
    from mapgen.pack import folder_size, make_folder, pack_quality  # deferred: ortools, only when the command runs
    from mapgen.quality import canonical_tier  # deferred: the command's library, only when it runs

    count = folder_size(chapter) if count is None else count
    band = parse_win_rate(win_rate)
    quality = pack_quality(
        chapter,
        grade=canonical_tier(grade_tier) if grade_tier else None,
        win_rate=band[1] if band else None,
        bot=band[0] if band else None,
        max_walled_in=max_walled_in,
        games=games,
    )
    # the profile: a house-rule file's own profile key, as generate --rules
    seed, profile = start_batch(
        chapter if rules is None else rules, seed, count, candidates, out_dir, None, "--candidates"
    )
    out_file(out, force=force)
    # CHAPTER-1.toml ... CHAPTER-N.toml; an earlier, larger folder's extra maps are not left to pass for this one's
    series = Series(
        out_dir,
        f"pack {chapter}",
        rf"{re.escape(chapter)}-(\d+)\.toml",
        lambda k: f"{chapter}-{k}.toml",
        count,
        first=1,
        force=force,
    )
    series.check()
    files = series.paths()
    prepare_folder(out_dir)
    limit = SEARCH_TIME if time_limit is None else time_limit
    backend = where(jobs, None)
    with (
        about(out, limit),  # Ctrl-C: "error: FOLDER.pdf: interrupted", exit 130
        progress_bar(f"candidates for a {count}-map {chapter} folder", candidates, not as_json) as bar,
        _rules_named(rules),
    ):
        made = make_folder(
            chapter,
            profile,
            quality,
            count=count,
            seed=seed,
            grade_spread=grade_spread,
            time_limit=limit,
            candidates=candidates,
            where=backend,
            progress=(lambda tried, kept: bar(tried)) if bar else None,
            rules=rules,
            rules_file=rules_file() if rules is not None else None,
        )
    res = made.result
    if not res.done:
        if not as_json:
            click.echo(res.summary())
            for c in res.closest:
                click.echo(f"closest: seed {c.seed}: {'; '.join(c.reasons())}")
        first = res.closest[0] if res.closest else None
        near = f"; closest: seed {first.seed} ({'; '.join(first.reasons())})" if first else ""
        if res.stopped == "time":
            raise OutOfTime(
                out, f"only {len(res.kept)} of {quantity(count, chapter + ' map')} met the target in {limit:g} s{near}"
            )
        raise RuleBroken(
            out,
            f"only {len(res.kept)} of {quantity(count, chapter + ' map')} met the target in "
            f"{quantity(res.tried, 'candidate')}{near}",
        )
    if not as_json:
        click.echo(res.summary(), err=True)
    items = []
    for m, path in zip(made.maps, files):
        series.write(path, dumps_map(m))
        items.append((m, str(path), None))
    spread = " spread over the grades" if grade_spread else f" of grade {quality.grade}" if quality.grade else ""
    note = f"{chapter}, seed {seed}, {quantity(count, 'map')}{spread}"
    search = {"tried": res.tried, "kept": len(res.kept), "seconds": round(res.seconds, 3), "summary": res.summary()}
    _write(items, chapter, out, layout, base, note, force, as_json, started, search, rules=record, series=series)


@contextmanager
def _rules_named(rules):
    """House rules that admit no map (``GenerationError``, exit 1): the --rules file is the error line's FILE, as
    ``generate --rules`` names it (`error: house.toml: no fauna map can meet ...`), not the PDF not yet written."""
    try:
        yield
    except Exception as e:
        from mapgen.generate import GenerationError  # deferred: ortools; loaded by the generation that raised

        named = getattr(e, "mapgen_subject", None)
        if rules is not None and isinstance(e, GenerationError) and exit_code(e) == BROKEN and not named:
            e.mapgen_subject = rules_file()  # type: ignore[attr-defined]
        raise


def _write(items, chapter, out, layout, base, note, force, as_json, started, search=None, rules=None, series=None):
    from mapgen.render.folder import (  # deferred: the command's library, only when it runs
        STAND_IN,
        FolderMap,
        write_folder,
    )
    from mapgen.render.output import glyph_note  # deferred: the command's library, only when it runs
    from mapgen.web.links import DEFAULT_BASE, helper_url  # deferred: the command's library, only when it runs

    folder = [FolderMap(m.briefing.number, m, helper_url(m, base or DEFAULT_BASE), source) for m, source, _ in items]
    title = get_chapter(chapter).title
    replaced: list[str] = []
    pages = write_folder(folder, out, layout, title=title, note=note, force=force, rules=rules, replaced=replaced)
    if replaced:  # CJK: DejaVu has no glyph for them; printed visibly as a stand-in, never blank
        click.echo(f"note: {glyph_note(out, 'PDF', replaced, f'printed as {STAND_IN}')}", err=True)
    if series is not None:  # the maps and the PDF written: the earlier folder's extra maps go, the list is written
        from mapgen.output import removed_note  # deferred: the command's library, only when it runs

        note_removed = removed_note(series.folder, series.finish())
        if note_removed:
            click.echo(note_removed, err=True)
    _done(as_json, out, pages, folder, started, layout, search, rules)


def _shipped_name(source: str) -> str | None:
    """A shipped map's name (``fauna-1``) where the map was given by it, as ``mapgen maps --json`` names it; else
    None (a map file, a new map)."""
    import maps  # deferred: reads the shipped maps' folder, only when a folder is reported

    return source if source and not maps.looks_like_path(source) and source in maps.names() else None


def _done(as_json, out, pages, folder, started, layout, search=None, rules=None):
    seconds = time.perf_counter() - started
    if as_json:
        report = {
            "file": str(out),
            "pages": pages,
            "paper": layout.paper,
            "cell_mm": layout.cell_mm,
            "offset_mm": list(layout.offset_mm),
            "bw": layout.bw,
            "maps": [
                {
                    "number": fm.number,
                    "name": _shipped_name(fm.source),
                    "title": fm.map.briefing.name,
                    "file": fm.source,
                    "tier": (fm.grade or {}).get("tier"),
                    "url": fm.url,
                }
                for fm in folder
            ],
            "seconds": round(seconds, 3),
        }
        if search is not None:
            report["search"] = search
        if rules:
            report["rules"] = rules
        click.echo(json.dumps(report, indent=2))
        return
    for fm in folder:
        title = f' "{fm.map.briefing.name}"' if fm.map.briefing.name else ""
        click.echo(f"map {fm.number}: {fm.source}{title} ({(fm.grade or {}).get('tier') or 'not graded'})")
    under = f", under the house rules of {rules['rules']}" if rules else ""
    click.echo(f"wrote {out} ({pages} pages, {layout.paper.upper()}{under}) in {seconds:.1f} s")
