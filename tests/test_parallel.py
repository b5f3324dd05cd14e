"""The workers themselves (:mod:`divaeval.parallel`): ``LocalProcesses`` really runs tasks in
other processes (the first one here, before the fork), results come back in item order,
shared data reaches every worker, and warnings and errors cross the process boundary."""

from __future__ import annotations

import os

import pytest

from divaeval.errors import DataError, set_warning_sink, warn
from divaeval.parallel import InProcess, LocalProcesses, workers_for


def _where(shared, item):
    """(item, the worker's pid, what the worker sees as shared)."""
    return item, os.getpid(), shared


def _slow_where(shared, item):
    import time

    time.sleep(0.02)  # long enough that both workers get tasks
    return _where(shared, item)


def _warns(shared, item):
    warn(f"note {item % 2}")
    return item


def _fails_on_three(shared, item):
    if item == 3:
        raise DataError("bad value", file="run.txt", line=7)
    return item


@pytest.fixture
def processes():
    workers = LocalProcesses(2)
    yield workers
    workers.close()


def test_local_processes_run_tasks_in_other_processes(processes):
    # Before the fix, map -> _warm_then_map -> map -> ... ran every task in this process.
    results = list(processes.map(_slow_where, range(12), shared={"x": 1}))
    assert [item for item, _, _ in results] == list(range(12))  # item order
    assert all(shared == {"x": 1} for _, _, shared in results)
    pids = [pid for _, pid, _ in results]
    assert pids[0] == os.getpid()  # the first task warms the caches here
    others = set(pids[1:]) - {os.getpid()}
    assert len(others) == 2, pids  # the rest on both workers, none here


def test_a_second_map_with_the_same_shared_reuses_the_workers(processes):
    shared = {"y": 2}
    first = {pid for _, pid, _ in processes.map(_slow_where, range(6), shared)}
    second = {pid for _, pid, _ in processes.map(_slow_where, range(6), shared)}
    assert os.getpid() not in second  # no second warm-up: the pool exists
    assert first - {os.getpid()} and second and os.getpid() not in second


@pytest.mark.parametrize("make", [InProcess, lambda: LocalProcesses(2)])
def test_warnings_of_tasks_are_told_once_each(make):
    workers = make()
    told: list[str] = []
    previous = set_warning_sink(told.append)
    try:
        assert list(workers.map(_warns, range(8))) == list(range(8))
    finally:
        set_warning_sink(previous)
        workers.close()
    assert sorted(told) == ["note 0", "note 1"]


@pytest.mark.parametrize("make", [InProcess, lambda: LocalProcesses(2)])
def test_a_task_error_keeps_its_file_and_line(make):
    workers = make()
    try:
        with pytest.raises(DataError) as caught:
            list(workers.map(_fails_on_three, range(8)))
    finally:
        workers.close()
    assert (caught.value.file, caught.value.line) == ("run.txt", 7)


def test_workers_for_picks_by_jobs():
    assert isinstance(workers_for(1, None), InProcess)
    many = workers_for(2, None)
    try:
        assert isinstance(many, LocalProcesses) and many.size == 2
    finally:
        many.close()


def test_library_evaluate_and_risk_take_jobs():
    import warnings

    import divaeval
    from divaeval.errors import DivaevalWarning

    warnings.simplefilter("ignore", DivaevalWarning)  # the runs share the tag "indri"
    from support import TREC2012, TREC2012_RUNS

    runs = [str(TREC2012_RUNS[name]) for name in ("ql-cata", "rm-catb", "dssa-wt2012")]
    qrels = str(TREC2012 / "qrels-for-ndeval.txt.gz")
    measures = ["alpha-nDCG@20", "ERR-IA@20", "NRBP"]
    alone = divaeval.evaluate(runs, qrels, measures)
    shared = divaeval.evaluate(runs, qrels, measures, jobs=2)
    assert alone.equals(shared) and len(alone) > 100
    base = runs[0]
    assert divaeval.risk(runs[1:], qrels, measures, baseline=base, risk_alpha=1).equals(
        divaeval.risk(runs[1:], qrels, measures, baseline=base, risk_alpha=1, jobs=2)
    )


def _warns_then_fails(shared, item):
    warn(f"about item {item}")
    if item == 2:
        raise DataError("bad value", file="run.txt", line=9)
    return item


@pytest.mark.parametrize("make", [InProcess, lambda: LocalProcesses(2)])
def test_the_warnings_a_task_gave_before_its_error_are_told(make):
    workers = make()
    told: list[str] = []
    previous = set_warning_sink(told.append)
    try:
        with pytest.raises(DataError) as caught:
            list(workers.map(_warns_then_fails, range(5)))
    finally:
        set_warning_sink(previous)
        workers.close()
    assert told[-1] == "about item 2"  # the failing task's own warning, then its error
    assert (caught.value.file, caught.value.line) == ("run.txt", 9)
    assert not hasattr(caught.value, "task_warnings")
