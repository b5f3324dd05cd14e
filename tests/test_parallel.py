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


@pytest.fixture(params=["fork", "spawn"])
def processes(request):
    # forked workers where the platform can fork; a ProcessPoolExecutor elsewhere (spawn)
    workers = LocalProcesses(2, start_method=request.param)
    yield workers
    workers.close()


def test_local_processes_run_tasks_in_other_processes(processes):
    # (once, map -> _warm_then_map -> map -> ... ran every task in this process)
    results = list(processes.map(_slow_where, range(12), shared={"x": 1}))
    assert [item for item, _, _ in results] == list(range(12))  # item order
    assert all(shared == {"x": 1} for _, _, shared in results)
    pids = {pid for _, pid, _ in results}
    assert len(pids) == 2 and os.getpid() not in pids, pids  # on both workers, none here


def _cached(shared, item):
    return shared.get("cache"), os.getpid()


def _fill_cache(shared):
    shared["cache"] = os.getpid()


def test_prepare_runs_here_once_and_the_workers_start_with_its_caches(processes):
    shared: dict = {}
    results = list(processes.map(_cached, range(6), shared, prepare=_fill_cache))
    assert [cache for cache, _ in results] == [os.getpid()] * 6
    assert os.getpid() not in {pid for _, pid in results}


def test_a_second_map_with_the_same_shared_reuses_the_workers(processes):
    shared = {"y": 2}
    calls: list[int] = []
    first = {
        pid for _, pid, _ in processes.map(_slow_where, range(6), shared, prepare=calls.append)
    }
    second = {
        pid for _, pid, _ in processes.map(_slow_where, range(6), shared, prepare=calls.append)
    }
    assert first == second and os.getpid() not in first  # the same two workers
    assert len(calls) == 1  # prepared once, for the pool


def _echo_large(shared, item):
    return item * 3  # the result three times the item


def test_large_items_and_results_cross_without_deadlock(processes):
    # pipes hold 64 KiB: items and results of megabytes in flight both ways at once
    items = [bytes([n]) * (1 << 20) + bytes(n) for n in range(10)]
    results = list(processes.map(_echo_large, items, ahead=8))
    assert results == [item * 3 for item in items]


def _exits(shared, item):
    if item == 2:
        os._exit(7)
    return item


def _killed(shared, item):
    import signal

    if item == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return item


def test_a_worker_that_dies_is_an_error_not_a_hang():
    from divaeval.errors import DivaevalError

    workers = LocalProcesses(2)
    try:
        with pytest.raises(DivaevalError, match="exit status 7"):
            list(workers.map(_exits, range(6)))
        with pytest.raises(DivaevalError, match="killed by signal SIGKILL .out of memory"):
            list(workers.map(_killed, range(6)))
        assert list(workers.map(_where, range(3))) != []  # new workers for the next map
    finally:
        workers.close()


def _raises_bug(shared, item):
    if item == 1:
        raise KeyError("not a user error")
    return item


class _Unpicklable:
    def __reduce__(self):
        raise TypeError("cannot pickle this")


def _returns_unpicklable(shared, item):
    return _Unpicklable()


def test_a_bug_in_a_task_reaches_the_caller_as_itself():
    workers = LocalProcesses(2)
    try:
        with pytest.raises(KeyError, match="not a user error"):
            list(workers.map(_raises_bug, range(4)))
        with pytest.raises(RuntimeError, match="cannot pickle this .in a worker process"):
            list(workers.map(_returns_unpicklable, range(2)))
    finally:
        workers.close()


def test_stopping_early_stops_the_workers():
    workers = LocalProcesses(2)
    results = workers.map(_slow_where, range(100))
    pids = {next(results)[1], next(results)[1]}
    results.close()  # the caller has what it needs
    try:
        for pid in pids:  # reaped: no process left behind
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
    finally:
        workers.close()


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
