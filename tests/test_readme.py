"""The README's set-up commands are the ones CI runs, its Python version is the package's, and its
console examples print what it shows."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

PIP_QUIET = {"--quiet", "--disable-pip-version-check"}
#: what .ci/run runs between the install and the tests (the README names each)
LINTERS = [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]]


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
    install, pytest_run = _steps(tests)
    assert ci_steps[1:] == [install, *LINTERS, pytest_run]
    for linter in LINTERS:
        assert f"`{' '.join(linter)}" in README.split("## Set up\n", 1)[1].split("\n## ", 1)[0]


def test_readme_python_version_is_the_package_s():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == ">=3.11"
    assert "**Python 3.11 or newer**" in README


# --- The README's console examples, run verbatim from examples/ and compared with what they show. ---
#
# Each ```console block is a run of `$ COMMAND` lines, each followed by the output the README shows
# (stdout and stderr as they interleave). A block runs in a fresh copy of examples/ with `mapgen`
# meaning this tree's command. Where the README shortens an output, `…` stands for what is left out:
# a line that is only `…` for any number of lines, a `…` inside a line for any text on that line.
# Figures that change from run to run or release to release (timings in s or ms, the mapgen and
# OR-Tools versions a generated map records, the enumerated low end of a count range) are normalised
# on both sides; they must still be there.
# `python -m pytest tests/test_readme.py --update-readme` (or MAPGEN_UPDATE_README=1) rewrites the
# blocks that no longer match with the real output, to be shortened again by hand where it is long.

EXAMPLES = ROOT / "examples"
# Blocks that take more than a few seconds of CPU: deselect with `-m "not slow"`.
SLOW_COMMANDS = ("mapgen deduce ", "mapgen playtest ", "mapgen grade ", " --grade ")
# Commands that run until stopped: their first line is compared, then they are interrupted (Ctrl-C).
SERVERS = ("mapgen serve",)
PLACEHOLDER_PORT = "8000"  # `mapgen serve`'s default port, shown in the README; the test serves on a free one


def _console_blocks() -> list[tuple[int, str]]:
    """(line number, text) of every ```console block of the README."""
    blocks = []
    for m in re.finditer(r"^```console\n(.*?)^```$", README, re.DOTALL | re.MULTILINE):
        blocks.append((README.count("\n", 0, m.start()) + 1, m.group(1)))
    return blocks


def _steps_of(block: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown after it) for each `$ ` line of a block."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"console block starts with output, not a `$ ` command: {line!r}"
            steps[-1][1].append(line)
    return steps


def _normalise(text: str) -> str:
    text = re.sub(r"\b\d+(?:\.\d+)? (s|ms)\b", r"<T> \1", text)
    text = re.sub(r'^(mapgen|ortools) = "[^"]*"$', r'\1 = "<version>"', text, flags=re.MULTILINE)
    # A count's proven low end ("54,277,938..4.72 × 10⁴⁶": the first exact count further on the path, of a state
    # compiled within a CPU-seconds budget) depends on the machine's speed and load and on the circuit cache
    # (deduce says so); the high end and exact counts are compared.
    text = re.sub(r"(?<![\w.,])\d[\d,]*\.\.(?=\d)", "<n>..", text)  # 90.. and 93,685,459.. alike
    return "\n".join(line.rstrip() for line in text.rstrip("\n").split("\n"))


def _matches(shown: list[str], actual: str) -> bool:
    """Whether ACTUAL is what SHOWN shows, `…` standing for what is left out."""
    pattern = ""
    for line in _normalise("\n".join(shown)).split("\n") if shown else []:
        if line.strip() == "…":
            pattern += r"(?:[^\n]*\n)*?"
        else:
            pattern += r"[^\n]*?".join(re.escape(piece) for piece in line.split("…")) + r"\n"
    text = _normalise(actual)
    return re.fullmatch(pattern, text + "\n" if text else "") is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    """What COMMAND prints (stdout and stderr together), run by the shell in CWD."""
    if command.startswith(SERVERS):
        port = _free_port()
        proc = subprocess.Popen(
            f"{command} --port {port}",
            shell=True,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            first = proc.stdout.readline()
        finally:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            proc.stdout.close()
        return first.replace(f":{port}/", f":{PLACEHOLDER_PORT}/")
    done = subprocess.run(
        command,
        shell=True,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1800,
        check=False,  # an example may end with exit 1, 2 or 3: its output is what is compared
    )
    return done.stdout


@pytest.fixture(scope="module")
def mapgen_env(tmp_path_factory) -> dict[str, str]:
    """An environment whose `mapgen` is this tree's command (not an installed copy)."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "mapgen"
    shim.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom cli import main\nmain(prog_name='mapgen')\n",
        encoding="utf-8",
    )
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr in the order they are written
    env["COLUMNS"] = "200"
    return env


def _block_params():
    params = []
    for line, block in _console_blocks():
        commands = [c for c, _ in _steps_of(block)]
        slow = any(s in c + " " for c in commands for s in SLOW_COMMANDS)
        name = re.sub(r"[^\w.-]+", "-", commands[0].split("#")[0].strip().removeprefix("mapgen "))[:40]
        marks = [pytest.mark.slow] if slow else []
        params.append(pytest.param(block, id=f"L{line}-{name}", marks=marks))
    return params


def _update_wanted(config) -> bool:
    return config.getoption("--update-readme") or os.environ.get("MAPGEN_UPDATE_README") == "1"


def _rewrite_block(path: Path, block: str, new: str) -> None:
    """Replace console block BLOCK of the file at PATH by NEW. Under pytest-xdist several workers may
    rewrite blocks of the README at once: each reads, replaces and writes it holding a lock on the file,
    so no worker writes over another's change."""
    import fcntl

    with open(path, "r+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when the file is closed
        text = f.read()
        assert text.count(f"```console\n{block}```") == 1, "the block to rewrite is not in the README once"
        f.seek(0)
        f.write(text.replace(f"```console\n{block}```", f"```console\n{new}```"))
        f.truncate()


@pytest.mark.parametrize("block", _block_params())
def test_readme_console_block(block, tmp_path, mapgen_env, request):
    work = tmp_path / "examples"
    subprocess.run(["cp", "-r", str(EXAMPLES), str(work)], check=True)
    steps = _steps_of(block)
    outputs = [_run(command, work, mapgen_env) for command, _ in steps]
    wrong = [i for i, ((_, shown), out) in enumerate(zip(steps, outputs)) if not _matches(shown, out)]
    if wrong and _update_wanted(request.config):
        new = "".join(
            f"$ {command}\n"
            + ("".join(l.rstrip() + "\n" for l in out.rstrip("\n").split("\n")) if i in wrong and out else "")
            + ("" if i in wrong else "".join(l + "\n" for l in shown))
            for i, ((command, shown), out) in enumerate(zip(steps, outputs))
        )
        _rewrite_block(ROOT / "README.md", block, new)
        pytest.skip(f"README block rewritten with the real output of: {', '.join(steps[i][0] for i in wrong)}")
    for i in wrong:
        command, shown = steps[i]
        assert outputs[i].rstrip("\n") == "\n".join(shown), f"`{command}` printed other than the README shows"


# --- The README's Python examples, run as written from a copy of examples/ (where the README says to run). ---
#
# A block only has to run: its last expressions show what to call, not output to compare.
SLOW_PYTHON = ("grade(",)  # a full grade at its defaults: about 16 CPU s


def _python_params():
    params = []
    for m in re.finditer(r"^```python\n(.*?)^```$", README, re.DOTALL | re.MULTILINE):
        line = README.count("\n", 0, m.start()) + 1
        marks = [pytest.mark.slow] if any(s in m.group(1) for s in SLOW_PYTHON) else []
        params.append(pytest.param(m.group(1), id=f"L{line}", marks=marks))
    return params


@pytest.mark.parametrize("block", _python_params())
def test_readme_python_block(block, tmp_path, mapgen_env):
    """The solving example used `state` and `chapter` without saying where they came from: a designer who
    pasted it got a NameError. Every Python block now runs as written."""
    work = tmp_path / "examples"
    subprocess.run(["cp", "-r", str(EXAMPLES), str(work)], check=True)
    done = subprocess.run(
        [sys.executable, "-c", block],
        cwd=work,
        env=mapgen_env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_readme_console_blocks_are_found():
    """The parser sees the README's examples: a validate, a generate, a solve and a serve at least."""
    commands = [c for _, block in _console_blocks() for c, _ in _steps_of(block)]
    for word in ("mapgen validate ", "mapgen generate ", "mapgen solve ", "mapgen serve"):
        assert any(c.startswith(word) for c in commands), word


def test_ellipsis_matching():
    assert _matches(["a", "…", "d"], "a\nb\nc\nd")
    assert _matches(["a", "…", "d"], "a\nd")
    assert not _matches(["a", "…", "d"], "a\nb\nc")
    assert _matches(["x (…)"], "x (long text)")
    assert not _matches(["x (…)"], "x (long text)\nmore")
    assert _matches(["a", "…"], "a\nb\nc")
    assert _matches(["took 1.5 s"], "took 32.0 s")
    assert _matches(["  1 A7 90..4.72 × 10⁴⁶"], "  1 A7 44..4.72 × 10⁴⁶")
    assert not _matches(["  1 A7 90..4.72 × 10⁴⁶"], "  1 A7 44..5.72 × 10⁴⁶")
    assert not _matches(["took 1.5 s"], "took 32.0 s, 3 maps")
    assert _matches([], "")
    assert not _matches([], "something")


def test_the_indented_commands_read_only_files_that_are_there():
    """The README's indented `mapgen` lines (not run: they draw pictures) read files of examples/, shipped maps,
    or files an earlier line wrote; `cd examples` is where the README says to run them."""
    import maps

    written: set[str] = set()
    for line in re.findall(r"^    (mapgen .*)$", README, re.MULTILINE):
        words = shlex.split(line)
        for k, word in enumerate(words[2:], start=2):
            if words[k - 1] in ("-o", "--out", "--puzzle"):
                written.add(word)
            elif word.endswith((".toml", ".json")) and word not in written:
                assert (EXAMPLES / word).is_file(), f"{line}: no {word} in examples/"
            elif re.fullmatch(r"[a-z]+-\d+", word):
                assert word in maps.names(), f"{line}: no shipped map {word}"


def test_no_example_overwrites_a_file_other_examples_read():
    """The README says to run its examples from examples/: one that writes over a file there (a shell `>`, or
    -o/--out/--puzzle with --force) leaves the next reader of that file a different example (`generate --from
    my-sketch.toml > my-map.toml` turned the 4 violations of `validate my-map.toml` into a valid map)."""
    for _, block in _console_blocks():
        for command, _ in _steps_of(block):
            words = shlex.split(command)
            for k, word in enumerate(words[1:], start=1):
                writes = words[k - 1] in (">", "-o", "--out", "--puzzle", "--output")
                if writes and (words[k - 1] == ">" or "--force" in words):
                    assert not (EXAMPLES / word).exists(), f"{command}: overwrites examples/{word}"


def test_rewrite_block_replaces_only_that_block(tmp_path):
    path = tmp_path / "README.md"
    path.write_text("# t\n\n```console\n$ a\nold\n```\n\n```console\n$ b\nkept\n```\n", encoding="utf-8")
    _rewrite_block(path, "$ a\nold\n", "$ a\nnew, longer than before\n")
    want = "# t\n\n```console\n$ a\nnew, longer than before\n```\n\n```console\n$ b\nkept\n```\n"
    assert path.read_text(encoding="utf-8") == want
    _rewrite_block(path, "$ a\nnew, longer than before\n", "$ a\nx\n")  # shorter: nothing of the old left
    assert path.read_text(encoding="utf-8") == want.replace("new, longer than before", "x")
