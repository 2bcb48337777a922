"""``mapgen chapters``: the chapters, their terrains and rules (the Reference Board as text)."""

from __future__ import annotations

import json

import click

from constraints.catalogue import ChapterError, chapter_file, get_chapter, unknown_chapter
from mapgen.cli.options import (
    InName,
    OutName,
    chapter_names,
    force_option,
    force_unused,
    json_option,
    out_file,
    reject,
    rules_file,
    rules_option,
)


@click.command()
@click.argument("chapter", required=False)
@json_option
@rules_option
@click.option(
    "--design",
    is_flag=True,
    help="Add the design rules a generated map also keeps (P1-P3: the chapter's default profile).",
)
@click.option(
    "--profile",
    "profile_file",
    metavar="FILE",
    type=InName(),
    default=None,
    help="Add this design profile's rules instead of the default profile's (implies --design).",
)
@click.option(
    "--out",
    "-o",
    "out_path",
    metavar="FILE",
    type=OutName("file"),
    default=None,
    help="Write CHAPTER's file (its TOML as shipped) to FILE instead, to start a house-rule file from: change it, "
    "then give it as --rules FILE (-: print it). With --design, its default design profile instead, with the "
    "comments that explain each setting: change it, then give it to mapgen generate --profile FILE.",
)
@force_option("the --out file")
def chapters(chapter, as_json, rules, design, profile_file, out_path, force):
    """Show the chapters, their terrains and their rules: the Reference Board as text.

    With --rules, show that house-rule chapter file instead. With --design (or --profile FILE), the
    design rules the generator adds (P1 Reachable, P2 Balanced counts, P3 Greek Fire collectable)
    follow the chapter's rules, as mapgen generate keeps them. With --out FILE, CHAPTER's own file
    (the shipped TOML, byte for byte) is written to FILE: the start of a house-rule file, to change and
    give to any command as --rules FILE. With --design --out FILE, CHAPTER's default design profile
    (counts, Peak, Fauna's mini map, ..., each setting explained in a comment) is written instead: the
    start of a profile, to change and give to mapgen generate --profile FILE (unchanged, it makes the
    default's maps).

    \b
    Example:
        mapgen chapters
        mapgen chapters fauna --json
        mapgen chapters flora --design
        mapgen chapters fauna -o house.toml
        mapgen chapters --rules house.toml
        mapgen chapters fauna --design -o my-profile.toml
    """
    if out_path is not None:
        _write_file(chapter, out_path, force=force, as_json=as_json, rules=rules, design=design, profile=profile_file)
        return
    from mapgen.reference import chapter_json, chapter_text  # deferred: the command's library, only when it runs

    given = chapter
    profile = None
    if profile_file is not None:
        from mapgen.profile import load_profile  # deferred: the command's library, only when it runs

        # the profile names its chapter; CHAPTER, when given, must be the same (ProfileError: exit 2)
        profile = load_profile(profile_file, chapter.strip().lower() if chapter else None)
        chapter = chapter or profile.chapter
    if rules is not None:
        if chapter and chapter.strip().lower() != rules.name:  # else CHAPTER was dropped without a word
            asked = "CHAPTER is" if given else "the --profile is for"
            reject("--rules", f"a chapter file of {rules.name}, but {asked} {chapter.strip().lower()}")
        chosen = [rules]
    elif chapter is not None:  # "" too (an unset shell variable): refused, never read as "every chapter"
        if chapter.strip().lower() not in chapter_names():
            raise ChapterError(unknown_chapter(chapter))  # exit 2: the name as typed, the one meant, the chapters
        chosen = [get_chapter(chapter.strip().lower())]
    else:
        chosen = [get_chapter(n) for n in chapter_names()]
    if profile is not None:
        chosen = [profile.applied_to(c) for c in chosen]
    elif design:
        from mapgen.profile import default_profile  # deferred: the command's library, only when it runs

        chosen = [default_profile(c).applied_to(c) for c in chosen]  # a --rules file's own profile key
    force_unused(force, (out_path,), "--out")
    if as_json:
        out = [chapter_json(c) for c in chosen]
        if rules is not None:  # which rules these are: the file, and the fingerprint a map made under them records
            from mapgen.solving.compiled import chapter_fingerprint  # deferred: numpy's module, only for --rules

            for entry in out:
                entry["rules_file"], entry["rules_fingerprint"] = rules_file(), chapter_fingerprint(rules)
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        click.echo("\n\n".join(chapter_text(c) for c in chosen))


def _write_file(chapter, out_path: str, *, force: bool, as_json: bool, rules, design: bool, profile) -> None:
    """``chapters CHAPTER -o FILE``: the shipped chapter's file copied byte for byte (``-``: printed), checked
    before it is read. A --rules file is refused: it is a file already (copy it), and no writer of a normalized
    chapter file exists to say anything more than it does. With --design, the chapter's default design profile
    instead (a --rules file's own), the file generate --profile takes, comments and all."""
    rules_why = "already a chapter file: copy it (--out writes a shipped chapter's file; with --design, its profile)"
    profile_why = "already a profile file: copy it (--design --out writes a chapter's default profile)"
    for given, option, why in (
        (rules is not None and not design, "--rules", rules_why),
        (as_json, "--json", "--out writes the chapter's TOML file; drop --json, or drop --out"),
        (profile is not None, "--profile", profile_why),
    ):
        if given:
            reject(option, why)
    if rules is not None and chapter and chapter.strip().lower() != rules.name:  # else CHAPTER was dropped
        reject("--rules", f"a chapter file of {rules.name}, but CHAPTER is {chapter.strip().lower()}")
    if not chapter and rules is None:
        example = "fauna --design -o my-profile.toml" if design else "fauna -o house.toml"
        reject("--out", f"name the chapter whose {'profile' if design else 'file'} to write: mapgen chapters {example}")
    to_stdout = out_path == "-"
    if not to_stdout:
        out_file(out_path, force=force)  # exit 2 before any work: no folder, not writable, a file there
    if design:
        source = _profile_file(chapter, rules)
        if rules is None:
            name = chapter.strip().lower()
            done = f"{name}'s default design profile: change it, then give generate --profile {out_path}"
        else:
            house = rules_file()
            done = (
                f"the design profile {house} names: change it, then give generate --rules {house} --profile {out_path}"
            )
    else:
        source = chapter_file(chapter.strip().lower())  # ChapterError (exit 2) names the chapters there are
        done = f"{source.stem}'s rules: change them, then give --rules {out_path}"
    data = source.read_bytes()
    if to_stdout:
        force_unused(force, (out_path,), "--out")
        click.echo(data.decode("utf-8"), nl=False)
        return
    from mapgen.output import writing  # deferred: tempfile and shutil, only for a file to write

    with writing(out_path, force=force) as tmp, open(tmp, "wb") as f:
        f.write(data)  # bytes: the shipped file exactly, on every system's newlines
    click.echo(f"wrote {out_path} ({done})", err=True)


def _profile_file(chapter: str | None, rules):
    """The file of the default design profile of CHAPTER (or of the --rules file: the one its ``profile`` key
    names); exit 2 when the chapter is unknown or names none (its maps keep P1 only)."""
    from mapgen.profile import profile_path  # deferred: the command's library, only when it runs

    if rules is None:
        assert chapter is not None
        if chapter.strip().lower() not in chapter_names():
            raise ChapterError(unknown_chapter(chapter))  # exit 2: the name as typed, the one meant, the chapters
        spec = get_chapter(chapter.strip().lower())
    else:
        spec = rules
    path = profile_path(spec)
    if path is None:
        where = (rules_file() or "--rules") if rules is not None else "--design"
        what = "names no profile" if rules is not None else f"{spec.name} has no default profile"
        reject(
            where,
            f"{what} (its maps keep P1 Reachable only); a shipped chapter's: mapgen chapters fauna --design -o FILE",
        )
    return path
