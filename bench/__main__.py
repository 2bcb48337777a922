"""Run the benchmarks: ``python -m bench`` runs every ``bench_*.py`` module; ``python -m bench validate count`` some.

Each module's ``main()`` is called with no command-line arguments (its defaults); to pass options, run
the module itself, for example ``python -m bench.bench_validate --runs 20``.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path


def available() -> list[str]:
    """Benchmark names: ``bench_validate.py`` is ``validate``."""
    return sorted(p.stem.removeprefix("bench_") for p in Path(__file__).parent.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    names = sys.argv[1:] if argv is None else argv
    known = available()
    if any(n in ("-h", "--help") for n in names):
        print(__doc__.strip())
        print(f"\nbenchmarks: {', '.join(known)}")
        return 0
    unknown = [n for n in names if n.removeprefix("bench_") not in known]
    if unknown:
        print(f"error: no benchmark named {', '.join(unknown)} (known: {', '.join(known)})", file=sys.stderr)
        return 2
    chosen = [n.removeprefix("bench_") for n in names] or known
    failed = []
    for name in chosen:
        module = f"bench.bench_{name}"
        print(f"== {module}", flush=True)
        started = time.perf_counter()
        saved = sys.argv
        sys.argv = [module]  # the module's own argument parser sees no options
        try:
            importlib.import_module(module).main()
        except SystemExit as e:  # a benchmark that ends with sys.exit(code)
            if e.code not in (0, None):
                failed.append(name)
        except Exception:  # noqa: BLE001 - a benchmark's failure is reported and the others go on
            traceback.print_exc()
            failed.append(name)
        finally:
            sys.argv = saved
        print(f"== {module}: {time.perf_counter() - started:.1f} s\n", flush=True)
    if failed:
        print(f"error: benchmarks failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
