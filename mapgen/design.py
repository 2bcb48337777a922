"""The design defaults of a profile checked on a complete map: the profile's rules (P1, P2, P3)."""

from __future__ import annotations

from constraints.catalogue import Chapter, get_chapter
from constraints.design import reachable_cells
from constraints.rules import View, Violation
from mapgen.model import Map
from mapgen.profile import Profile


def check_design(m: Map, profile: Profile, chapter: Chapter | None = None) -> list[Violation]:
    """Violations of the profile's rules on a complete map (the chapter's own rules are ``check_map``'s);
    ``chapter``: the rules the map was made under (a house-rule chapter), else the map's shipped chapter."""
    view = View(m)
    return [v for rule in profile.rules(chapter or get_chapter(m.chapter)) for v in rule.check(view)]


__all__ = ["check_design", "reachable_cells"]
