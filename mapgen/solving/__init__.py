"""The solving wing: everything that answers questions about the maps a state allows.

- ``sat``: the incremental SAT session over a chapter's CNF (guards, assumptions, cores);
- ``solve``: ``Solver``, the public facade (completions, forced cells, possible terrains, counts, odds);
- ``explain``: subset-minimal reasons for forced cells and conflicts;
- ``bruteforce``: plain enumeration, the cross-check on small states;
- ``compiled``: a briefing compiled to a d-DNNF circuit, answering exactly by passes over it.

The rule encodings themselves (CP-SAT, CNF, CSP) live with the rules in ``constraints/``.
"""
