"""``mapgen chapters``: the chapters, their terrains and rules (the Reference Board as text)."""

from __future__ import annotations

import json

import click

from constraints.catalogue import get_chapter
from mapgen.cli.options import chapter_names, json_option, reject, rules_option


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
    default=None,
    help="Add this design profile's rules instead of the default profile's (implies --design).",
)
def chapters(chapter, as_json, rules, design, profile_file):
    """Show the chapters, their terrains and their rules: the Reference Board as text.

    With --rules, show that house-rule chapter file instead. With --design (or --profile FILE), the
    design rules the generator adds (P1 Reachable, P2 Balanced counts, P3 Greek Fire collectable)
    follow the chapter's rules, as mapgen generate keeps them.

    \b
    Example:
        mapgen chapters
        mapgen chapters fauna --json
        mapgen chapters flora --design
    """
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
    elif chapter:
        chosen = [get_chapter(chapter.strip().lower())]  # ChapterError (exit 2) names the chapters there are
    else:
        chosen = [get_chapter(n) for n in chapter_names()]
    if profile is not None:
        chosen = [profile.applied_to(c) for c in chosen]
    elif design:
        from mapgen.profile import default_profile  # deferred: the command's library, only when it runs

        chosen = [default_profile(c).applied_to(c) for c in chosen]  # a --rules file's own profile key
    if as_json:
        click.echo(json.dumps([chapter_json(c) for c in chosen], indent=2, ensure_ascii=False))
    else:
        click.echo("\n\n".join(chapter_text(c) for c in chosen))
