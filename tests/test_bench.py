"""The bench's measuring (issue 27), not its numbers: each run reports wall and CPU time and
peak memory, pinned to the CPUs asked for; the workload records the load average; ``--cores``
refuses what is not a usable CPU. Times are ``make bench``'s to take, never a test's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
sys.path.insert(0, BENCH)
from measure import jobs_of, measure  # noqa: E402


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU pinning here")
def test_a_run_is_pinned_and_reports_cpu_time_and_load() -> None:
    # the command fails (and the measuring stops) unless it runs on CPU 0 alone
    check = "import os, sys; sys.exit(os.sched_getaffinity(0) != {0})"
    found = measure({"pinned": [sys.executable, "-c", check]}, repeat=2, cpus=[0])["pinned"]
    assert len(found.seconds) == len(found.cpu_seconds) == len(found.peak_mib) == 2
    assert all(cpu > 0 for cpu in found.cpu_seconds)  # a Python start-up costs CPU time
    assert found.load is not None and all(load >= 0 for load in found.load)
    summary = found.summary()
    assert summary.startswith("wall ") and " CPU " in summary and " MiB" in summary
    assert set(found.as_json()) >= {"cpu_seconds", "cpu_seconds_range", "load_average_start"}


def test_jobs_are_read_from_the_command() -> None:
    divaeval = [sys.executable, "-m", "divaeval", "run", "qrels"]
    assert jobs_of([*divaeval, "-j", "1"]) == "1"
    assert jobs_of([*divaeval, "--jobs=2"]) == "2"
    assert jobs_of(divaeval) == "auto"
    assert jobs_of(["trec_eval", "qrels", "run"]) == "-"


@pytest.mark.parametrize(
    ("cores", "message"),
    [("x", "is not 'all' or CPU numbers"), ("0,-", "is not 'all' or CPU numbers"),
     ("4096", "CPU 4096 is not available here")],
)  # fmt: skip
def test_bad_cores_are_refused(cores: str, message: str) -> None:
    if message.startswith("CPU") and not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU pinning here")
    proc = subprocess.run(
        [sys.executable, os.path.join(BENCH, "run_all.py"), "--cores", cores, "--only", "small"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert message in proc.stderr.splitlines()[-1]
