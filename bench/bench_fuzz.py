"""Fuzzing the inputs and Ctrl-C (issue 20), bounded: how many bad inputs and signals were tried, tracebacks 0.

1. files: mutations of a map, a profile, a chapter (--rules) file and a replay (bytes flipped, cut short,
   nested a thousand deep, a BOM, an unknown key, not UTF-8, a directory, a loop of symbolic links, an
   endless file) read by the command that reads each kind (validate, chapters --profile, chapters --rules,
   playtest --show): every run must end with exit 0, 1 or 2 and at most one ``error:`` line, never a traceback;
2. bodies: mutations of valid API bodies (wrong types, unknown fields, deep nesting, huge strings, not JSON)
   to every POST endpoint of the web app: never a 5xx;
3. signals: SIGINT to the process group of a long command at a random moment: exit 130 with
   ``error: FILE: interrupted`` [within 1 s], no process of the group left.

``python -m bench.bench_fuzz --files 400 --bodies 400 --signals 12`` (the defaults).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import maps

ROOT = Path(__file__).resolve().parent.parent


def _mutations(text: str, rng: random.Random, n: int) -> list[bytes]:
    """``n`` broken variants of ``text``, a few of every kind, then random byte edits."""
    raw = text.encode("utf-8")
    fixed = [
        b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n",
        b"[a]\n" + b"".join(b"[a" + b".b" * k + b"]\n" for k in range(1, 60)),
        "\ufeff".encode() + raw,
        b"colour = 'red'\n" + raw,
        raw + b"\nunknown_key = 1\n",
        raw[: len(raw) // 2],
        b"\xff\xfe" + raw,
        b"",
        b"\x00" * 100,
        raw.replace(b'"""', b"'''", 1),
        raw * 3,
    ]
    out = list(fixed)
    while len(out) < n:
        b = bytearray(raw)
        for _ in range(rng.randint(1, 6)):
            op = rng.randrange(4)
            i = rng.randrange(max(1, len(b)))
            if op == 0 and b:
                b[i] = rng.randrange(256)
            elif op == 1:
                b[i:i] = rng.choice([b"[", b"]", b"=", b'"', b"\n", b"{", b"..", b"Hi9", b"\\u"])
            elif op == 2 and b:
                del b[i : i + rng.randint(1, 20)]
            else:
                b[i:i] = b[rng.randrange(len(b)) :][: rng.randint(1, 40)]
        out.append(bytes(b))
    return out[:n]


def fuzz_files(count: int, seed: int = 1) -> dict:
    from click.testing import CliRunner

    from cli import main

    rng = random.Random(seed)
    replay_dir = Path(tempfile.mkdtemp(prefix="mapgen-fuzz-"))
    CliRunner().invoke(main, ["playtest", "training-1", "--games", "1", "--replay", str(replay_dir / "r"), "--json"])
    seeds = {
        "map": (maps.path("fauna-1").read_text(encoding="utf-8"), ["validate", "{f}"]),
        "profile": (
            (ROOT / "mapgen" / "profiles" / "fauna.toml").read_text(encoding="utf-8"),
            ["chapters", "fauna", "--profile", "{f}"],
        ),
        "rules": (
            (ROOT / "constraints" / "chapters" / "fauna.toml").read_text(encoding="utf-8"),
            ["chapters", "--rules", "{f}"],
        ),
        "replay": ((replay_dir / "r" / "game-00000.json").read_text(encoding="utf-8"), ["playtest", "--show", "{f}"]),
    }
    tally = {"runs": 0, "tracebacks": 0, "multi-line": 0, "exit": {}}
    bad = []
    per_kind = max(1, count // len(seeds))
    work = replay_dir / "in"
    work.mkdir()
    for kind, (text, args) in seeds.items():
        cases = [("bytes", m) for m in _mutations(text, rng, per_kind - 3)] + [
            ("dir", None),
            ("loop", None),
            ("zero", None),
        ]
        for k, (how, data) in enumerate(cases):
            f = work / f"{kind}-{k}.toml"
            if how == "bytes":
                f.write_bytes(data)
            elif how == "dir":
                f.mkdir()
            elif how == "loop":
                (work / f"{kind}-{k}-b").symlink_to(f)
                f.symlink_to(work / f"{kind}-{k}-b")
            else:
                f = Path("/dev/zero")
            r = CliRunner().invoke(main, [a.format(f=f) for a in args])
            tally["runs"] += 1
            tally["exit"][r.exit_code] = tally["exit"].get(r.exit_code, 0) + 1
            crashed = (r.exception is not None and not isinstance(r.exception, SystemExit)) or "Traceback" in r.output
            errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
            if crashed or r.exit_code not in (0, 1, 2):
                tally["tracebacks"] += 1
                bad.append((kind, how, repr(r.exception)[:200]))
            elif r.exit_code and (len(errors) != 1 or len(r.stderr.splitlines()) != 1):
                tally["multi-line"] += 1
                bad.append((kind, how, r.stderr[:200]))
    tally["examples"] = bad[:5]
    return tally


def fuzz_bodies(count: int, seed: int = 2) -> dict:
    from starlette.testclient import TestClient

    from mapgen.mapfile import dumps_map
    from mapgen.web import create_app

    rng = random.Random(seed)
    fauna = maps.path("fauna-1").read_text(encoding="utf-8")
    state = dumps_map(maps.load("fauna-1").hide(range(0, 49, 2)))
    valid = {
        "validate": {"map": fauna},
        "parse": {"name": "fauna-1"},
        "solve": {"map": state, "time_limit": 2},
        "hint": {"map": state, "time_limit": 2},
        "table": {"map": state, "count": "quick", "time_limit": 2},
        "repair": {"name": "fauna-1", "time_limit": 2},
        "generate": {"chapter": "training", "seed": 1, "time_limit": 2},
        "render": {"name": "training-1"},
        "deduce": {"name": "fauna-1", "time_limit": 2},
        "playtest": {"name": "fauna-1", "games": 1},
    }
    junk = [None, True, -1, 2**70, 1e308, float("nan"), "", "x" * 70_000, [], {}, [[[[[]]]]], "\x00", "..", "nan"]
    tally = {"requests": 0, "5xx": 0, "status": {}}
    bad = []
    with TestClient(create_app(), raise_server_exceptions=False) as client:
        for k in range(count):
            endpoint = rng.choice(list(valid))
            body = dict(valid[endpoint])
            how = rng.randrange(6)
            if how == 0:
                body[rng.choice(list(body))] = rng.choice(junk)
            elif how == 1:
                body[rng.choice(["colour", "time_limt", "mapp", "rules"])] = 1
            elif how == 2:
                body["map"] = "x = " + "[" * 500 + "]" * 500
            elif how == 3:
                body = {"map": fauna[: rng.randrange(len(fauna))]}
            elif how == 4:
                body["profile"] = rng.choice(["x = " + "[" * 800 + "]" * 800, "\ufeff= =", "[quality]\ngrade = 3"])
            try:
                content = json.dumps(body, allow_nan=True).encode()
            except ValueError:
                content = b"{"
            if how == 5:
                content = rng.choice([b"{", b"[]", b"\xff", b'{"map": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"])
            r = client.post(f"/api/{endpoint}", content=content, headers={"content-type": "application/json"})
            tally["requests"] += 1
            tally["status"][r.status_code] = tally["status"].get(r.status_code, 0) + 1
            if r.status_code >= 500 and r.status_code != 504:  # 504: a time limit ran out, as the CLI's exit 3
                tally["5xx"] += 1
                bad.append((endpoint, how, r.text[:200]))
            if r.status_code == 202:  # a job started: cancel it, the fuzz is about the answer
                client.delete(f"/api/jobs/{r.json()['id']}")
    tally["examples"] = bad[:5]
    return tally


def _group(pgid: int) -> list[int]:
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat_file.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat_file.parent.name))
    return found


def fuzz_signals(count: int, seed: int = 3) -> dict:
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="mapgen-sigint-"))
    state = work / "state.toml"
    from mapgen.mapfile import dumps_map

    state.write_text(dumps_map(maps.load("fauna-1").hide(range(49))), encoding="utf-8")
    broken = ROOT / "tests" / "data" / "invalid" / "vameter-201-m.toml"
    commands = [
        (["solve", str(state), "--probabilities", "--time-limit", "60"], str(state)),
        (["deduce", "vameter-5"], "vameter-5"),
        (["grade", "fauna-1", "--games", "5000"], "fauna-1"),
        (["repair", str(broken)], str(broken)),
        (["generate", "-c", "fauna", "--count", "3000", "--out", "{out}"], "{out}"),
        (["playtest", "fauna-1", "--games", "3000", "--jobs", "2"], "fauna-1"),
        (["hint", str(state), "--time-limit", "60"], str(state)),
        (["render", str(state), "-o", "{out}.png", "--forced", "--time-limit", "60"], str(state)),
    ]
    tally = {"signals": 0, "clean": 0, "finished first": 0, "latency": []}
    bad = []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for k in range(count):
        args, subject = commands[k % len(commands)]
        out = str(work / f"out-{k}")
        args = [a.format(out=out) for a in args]
        subject = subject.format(out=out)
        p = subprocess.Popen(
            [sys.executable, "-m", "cli", *args],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.1, 4.0))
        if p.poll() is not None:
            p.communicate()
            tally["finished first"] += 1
            continue
        sent = time.monotonic()
        os.killpg(p.pid, signal.SIGINT)
        tally["signals"] += 1
        try:
            _, err = p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            bad.append((args[0], "still running 15 s after Ctrl-C"))
            continue
        tally["latency"].append(time.monotonic() - sent)
        time.sleep(0.3)
        left = _group(p.pid)
        # the notice of the --out folder a command made, printed before its error line, is no error line
        text = err.decode().removeprefix(f"created folder {out}\n")
        if p.returncode == 130 and text == f"error: {subject}: interrupted\n" and not left:
            tally["clean"] += 1
        else:
            bad.append((args[0], p.returncode, text[-200:], left))
    lat = tally.pop("latency")
    tally["latency p50 s"] = round(statistics.median(lat), 3) if lat else None
    tally["latency max s"] = round(max(lat), 3) if lat else None
    tally["tracebacks"] = sum("Traceback" in str(b) for b in bad)
    tally["examples"] = bad[:5]
    return tally


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=400)
    ap.add_argument("--bodies", type=int, default=400)
    ap.add_argument("--signals", type=int, default=12)
    args = ap.parse_args(argv)
    print(__doc__.splitlines()[0], flush=True)
    if args.files:
        t = time.perf_counter()
        r = fuzz_files(args.files)
        print(f"files:   {r} ({time.perf_counter() - t:.0f} s)", flush=True)
    if args.bodies:
        t = time.perf_counter()
        r = fuzz_bodies(args.bodies)
        print(f"bodies:  {r} ({time.perf_counter() - t:.0f} s)", flush=True)
    if args.signals:
        t = time.perf_counter()
        r = fuzz_signals(args.signals)
        print(f"signals: {r} [goal: every one clean, within 1 s] ({time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
