"""The README's set-up commands are the ones CI runs, and its Python version is the package's."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

PIP_QUIET = {"--quiet", "--disable-pip-version-check"}


def _bash_blocks(section: str) -> list[str]:
    text = README.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)\n```", text, re.DOTALL)


def _steps(line: str) -> list[list[str]]:
    """Commands of a `a && b` line, with `python -m pip` read as `pip` and pip's quiet flags dropped."""
    steps = []
    for part in line.split("&&"):
        words = [w for w in shlex.split(part) if w not in PIP_QUIET]
        if words[:3] == ["python", "-m", "pip"]:
            words = words[2:]
        steps.append(words)
    return steps


def test_ci_runs_the_readme_test_command():
    venv, install, tests = _bash_blocks("Set up")
    assert venv == "python3 -m venv .venv && . .venv/bin/activate"
    assert install.startswith("pip install . && mapgen ")
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines() if ln and ln[0] != "#"]
    ci_steps = [s for ln in ci if not ln.startswith(("set ", "cd ")) for s in _steps(ln)]
    # CI installs the browser the browser tests drive first; the README says so beside the test command.
    assert ci_steps[0] == [".ci/install-chromium"]
    assert "`.ci/install-chromium`" in README.split("## Set up\n", 1)[1].split("\n## ", 1)[0]
    assert ci_steps[1:] == _steps(tests)


def test_readme_python_version_is_the_package_s():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == ">=3.11"
    assert "**Python 3.11 or newer**" in README
