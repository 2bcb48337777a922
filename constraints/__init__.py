"""The rule catalogue of RULES.md §3 and its compilation to solvers."""
