"""Links into ``mapgen serve``'s table helper: ``/helper#…`` with a map's Mission Briefing filled in.

The fragment is the one ``static/helper.js`` reads (``readHash``) and writes (``writeHash``): URL search
parameters ``ch`` (chapter), ``peak``, ``start`` (a start cell; absent: column 7), ``gf`` (Greek Fire),
``fp`` (Fauna's mini map, rows joined by ``/`` and cells by ``-``: ``..-Vi-../Sk-Ft-../..-..-Ti``), then
optionally ``r`` (revealed Paths, ``B4Ro,C5Wo``) and ``heat`` (a terrain code). ``rf``: the fingerprint of the house
rules a map was made under (its ``[generator]`` table's ``rules_fingerprint``, ``mapgen generate --rules``), absent
for a map of the shipped rules: the page and the API refuse to answer under other rules than it names. No ``from``: that names a
shipped map, and a map made elsewhere must not be mistaken for one. Only the briefing goes in the link,
never a terrain, so a link printed beside a map gives nothing away.
"""

from __future__ import annotations

from urllib.parse import urlencode

from mapgen.model import Map, expect_map
from mapgen.validate import made_under

#: ``mapgen serve``'s address on this machine (its default host and port)
DEFAULT_BASE = "http://localhost:8000"


def helper_url(m: Map, base: str = DEFAULT_BASE) -> str:
    """The table helper's address opened on ``m``'s briefing: ``http://localhost:8000/helper#ch=fauna&peak=B4&…``."""
    expect_map(m, "helper_url")
    b, br = m.board, m.briefing
    params = [("ch", m.chapter), ("peak", b.name(br.peak))]
    if br.start is not None:
        params.append(("start", b.name(br.start)))
    if br.greek_fire is not None:
        params.append(("gf", b.name(br.greek_fire)))
    if br.fort_pattern is not None:
        rows = br.fort_pattern.text().strip().splitlines()
        params.append(("fp", "/".join("-".join(r.split()) for r in rows)))
    fingerprint = rules_fingerprint(m)
    if fingerprint is not None:
        params.append(("rf", fingerprint))
    return f"{base.rstrip('/')}/helper#{urlencode(params, safe='/')}"


def rules_fingerprint(m: Map) -> str | None:
    """The fingerprint of the house rules ``m`` was made under, as its ``[generator]`` table records it
    (``mapgen.generate.rules_record``); None for a map of the shipped rules or one without the record."""
    made = made_under(m)
    return None if made is None else made["fingerprint"]


__all__ = ["DEFAULT_BASE", "helper_url", "rules_fingerprint"]
