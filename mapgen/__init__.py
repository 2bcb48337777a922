"""mapgen: generate, validate, solve and playtest Corps of Discovery maps.

Where to start in Python (each name is a module to import; ``import mapgen`` alone loads none of them):

- a map: ``maps.load("fauna-1")`` (a shipped map by name), ``mapgen.mapfile.read_map(path)``,
  ``mapgen.mapfile.parse_map(text)``, ``mapgen.mapfile.dumps_map(m)``; the model is ``mapgen.model.Map``
  (``m.at("A7")``, ``m.hide(["A7", "B7"])`` for a partial map, ``m.board``), its terrains
  ``mapgen.terrain.Terrain`` (``Terrain.from_code("Wa")``);
- the rules: ``constraints.catalogue.check_map(m)`` (the broken rules of a complete map),
  ``constraints.catalogue.get_chapter(name)``;
- a partial map: ``mapgen.solving.solve.Solver.for_chapter("fauna")`` (``count``, ``forced``,
  ``possible``, ``probabilities``, ``heat``), ``mapgen.solving.explain.hint`` and
  ``mapgen.solving.explain.explain_forced``;
- a complete map: ``mapgen.deduce.deduce_report(m)``, ``mapgen.grade.grade(m)``,
  ``mapgen.repair.repair_map(m)``; a new one: ``mapgen.generate.Generator``;
- the table helper's link: ``mapgen.web.links.helper_url(m)``.

Every error a user can meet derives from ``mapgen.errors.MapgenError`` (its exit code on the command line);
README.md shows each of these at work.
"""

__version__ = "0.1.0"
