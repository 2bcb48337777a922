"""Campaigns on a local Ray cluster with 2 CPUs: the same report as on local processes (skipped without Ray)."""

from __future__ import annotations

from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from mapgen.campaign import Local, Ray, Task, run
from mapgen.grade import grade
from mapgen.mapfile import read_map

# a Ray cluster: seconds to start, seconds per test. One start per test run: the Ray tests are this module's,
# one xdist group (one worker runs them in a row), and the cluster stops when they are done.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


TRAINING = Path(__file__).parent / "data" / "valid" / "training-201.toml"


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    backend = Ray("local", num_cpus=2)
    backend.connect()
    yield backend
    ray.shutdown()


def test_ray_runs_tasks_in_order(local_ray):
    assert local_ray.workers >= 1
    assert run([Task(pow, (k, 3)) for k in range(10)], local_ray) == [k**3 for k in range(10)]


def test_a_grade_on_ray_equals_the_grade_on_local_processes(local_ray):
    m = read_map(TRAINING)
    games = {"heuristic": 60, "deducer": 2, "clairvoyant": 40}
    here = grade(m, "t", games=games, seed=11, where=Local(1)).to_json()
    there = grade(m, "t", games=games, seed=11, where=local_ray).to_json()
    assert here == there
