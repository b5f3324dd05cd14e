"""The C heap controls of :mod:`divaeval.heap` (glibc only)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from divaeval.heap import _glibc

pytestmark = pytest.mark.skipif(_glibc() is None, reason="needs glibc's malloc")

# A 2 MiB block freed, then one of the same size taken: its page faults (a fresh process,
# since the setting is the process's).
FAULTS_OF_A_REUSED_BLOCK = """
import resource, sys
import numpy as np
from divaeval.heap import reuse_freed_memory
if sys.argv[1] == "reuse":
    assert reuse_freed_memory()
first = np.ones(1 << 18)
del first
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
second = np.ones(1 << 18)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", FAULTS_OF_A_REUSED_BLOCK, mode],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_a_freed_block_is_reused_without_page_faults():
    # glibc's default maps a 2 MiB block afresh (512 pages of 4 KiB to fault in again);
    # after reuse_freed_memory it comes back from the heap, its pages still mapped
    assert faults("default") >= 256
    assert faults("reuse") < 64


def test_the_command_line_reuses_freed_memory(monkeypatch):
    import divaeval.cli.app as app

    calls = []
    monkeypatch.setattr(app, "reuse_freed_memory", lambda: calls.append(1))
    monkeypatch.setattr(app, "main", lambda: 0)
    monkeypatch.setattr(app, "exit_now", lambda code: calls.append(("exit", code)))
    app.run_program()
    assert calls == [1, ("exit", 0)]


def test_freed_memory_goes_back_before_workers_fork(monkeypatch):
    # (in process, the heap freed by reading the qrels stays, to be reused without faults)
    from divaeval.parallel import local

    calls = []
    monkeypatch.setattr(local, "release_free_memory", lambda: calls.append("trim"))
    workers = local.LocalProcesses(2, start_method="fork")
    try:
        assert sorted(workers.map(_negated, [1, 2])) == [-2, -1]
    finally:
        workers.close()
    assert calls == ["trim"]


def _negated(shared, item):
    return -item
