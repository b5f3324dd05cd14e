"""The C heap controls of :mod:`divaeval.heap` (glibc only)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from divaeval.heap import HUGE_PAGE_HEAP, _glibc

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


# The command line's heap: prepared before numpy loads, its reserve advised to use huge pages
# ("hg" among the flags of the mapping holding the heap's top, in /proc/self/smaps).
PREPARED_HEAP = """
import os, sys
import divaeval.heap as heap
advised = heap.prepare_command_heap()
top = heap._glibc().sbrk(0)
flags = ""
with open("/proc/self/smaps") as smaps:
    inside = False
    for line in smaps:
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            low, high = (int(x, 16) for x in head.split("-"))
            inside = low < top <= high
        elif inside and head == "VmFlags:":
            flags = line.split()[1:]
print(advised, "hg" in flags, "numpy" in sys.modules)
"""


#: where Linux says whether it has transparent huge pages
THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def prepared(env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PREPARED_HEAP],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_command_heap_is_advised_to_use_huge_pages():
    advised, huge, numpy_loaded = prepared({"DIVAEVAL_HUGE_PAGES": "1"})
    assert numpy_loaded == "False"  # (nothing large imported yet)
    if not THP.exists():  # a kernel without transparent huge pages refuses the advice
        assert (advised, huge) == ("0", "False")
        return
    # about the reserve (free() of the block that grew the heap gave a little back)
    assert HUGE_PAGE_HEAP // 2 <= int(advised) <= HUGE_PAGE_HEAP and huge == "True"
    assert prepared({"DIVAEVAL_HUGE_PAGES": "0"})[:2] == ["0", "False"]


def test_the_command_prepares_its_heap_before_numpy_loads(monkeypatch):
    import divaeval.__main__ as launch
    import divaeval.cli.app as app

    calls = []
    monkeypatch.setattr(launch, "prepare_command_heap", lambda: calls.append("heap"))
    monkeypatch.setattr(app, "main", lambda: 0)
    monkeypatch.setattr(app, "exit_now", lambda code: calls.append(("exit", code)))
    launch.entry_point()
    assert calls == ["heap", ("exit", 0)]
    # run for real, the module imports nothing large before the heap is prepared
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import divaeval.__main__"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "numpy" not in done.stderr and "divaeval.heap" in done.stderr


def test_freed_memory_goes_back_before_workers_fork(monkeypatch):
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
