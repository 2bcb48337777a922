"""Benchmarks: ``python -m bench`` runs every ``bench/bench_*.py`` module's ``main()``; ``python -m bench NAME`` runs one."""
