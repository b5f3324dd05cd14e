"""The workers themselves (:mod:`divaeval.parallel`): ``LocalProcesses`` really runs tasks in
other processes (the first one here, before the fork), results come back in item order,
shared data reaches every worker, and warnings and errors cross the process boundary."""

from __future__ import annotations

import contextlib
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
    # the same two workers (both take tasks of both maps, unless one of them starts late on a
    # loaded machine: then each map may see one), prepared once, for the pool
    assert len(first | second) <= 2 and os.getpid() not in first | second
    assert len(calls) == 1


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

    workers = LocalProcesses(2, start_method="fork")
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
    workers = LocalProcesses(2, start_method="fork")
    try:
        with pytest.raises(KeyError, match="not a user error"):
            list(workers.map(_raises_bug, range(4)))
        with pytest.raises(RuntimeError, match="cannot pickle this .in a worker process"):
            list(workers.map(_returns_unpicklable, range(2)))
    finally:
        workers.close()


def test_stopping_early_stops_the_workers():
    workers = LocalProcesses(2, start_method="fork")
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
    alone = divaeval.evaluate(runs, qrels, measures).table()
    shared = divaeval.evaluate(runs, qrels, measures, jobs=2).table()
    assert alone.equals(shared) and len(alone) > 100
    base = runs[0]
    assert divaeval.risk(runs[1:], qrels, measures, baseline=base, risk_alpha=1).frame.equals(
        divaeval.risk(runs[1:], qrels, measures, baseline=base, risk_alpha=1, jobs=2).frame
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


# ---------------------------------------------------------------------------------------------
# --jobs auto (the command line's default): processes only for inputs large enough to gain


def test_auto_starts_processes_only_for_enough_run_text(monkeypatch):
    from divaeval import parallel

    monkeypatch.setattr(parallel, "usable_cores", lambda: 4)
    big = parallel.AUTO_MIN_BYTES
    assert parallel.auto_jobs(None) == 1  # unknown work: this process
    assert parallel.auto_jobs((big - 1, 50)) == 1  # too little text to pay for forking
    assert parallel.auto_jobs((big, 50)) == 4  # one per usable core
    assert parallel.auto_jobs((big, 3)) == 3  # at most one per task
    monkeypatch.setattr(parallel, "usable_cores", lambda: 64)
    assert parallel.auto_jobs((100 * big, 500)) == parallel.AUTO_MAX_JOBS
    assert isinstance(workers_for("auto", work=(big - 1, 9)), InProcess)
    many = workers_for("auto", work=(big, 9))
    try:
        assert isinstance(many, LocalProcesses) and many.size == parallel.AUTO_MAX_JOBS
    finally:
        many.close()


@pytest.mark.parametrize(
    "v2, v1, cores",
    [
        ("max 100000\n", None, 16),  # no quota
        ("150000 100000\n", None, 1),  # docker --cpus=1.5: rounded down
        ("400000 100000\n", None, 4),
        ("50000 100000\n", None, 1),  # at least one
        (None, ("-1", "100000"), 16),  # cgroup v1 without a quota
        (None, ("300000", "100000"), 3),
        (None, None, 16),  # no cgroup files
    ],
)
def test_usable_cores_honours_a_cgroup_cpu_quota(tmp_path, monkeypatch, v2, v1, cores):
    from divaeval import parallel

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    cpu_max, quota, period = tmp_path / "cpu.max", tmp_path / "quota", tmp_path / "period"
    if v2 is not None:
        cpu_max.write_text(v2)
    if v1 is not None:
        quota.write_text(v1[0])
        period.write_text(v1[1])
    monkeypatch.setattr(parallel, "CGROUP_CPU_MAX", str(cpu_max))
    monkeypatch.setattr(parallel, "CGROUP_V1_QUOTA", (str(quota), str(period)))
    assert parallel.usable_cores() == cores


def test_planned_work_estimates_text_and_blocks(tmp_path):
    import gzip

    from divaeval.io import read_run
    from divaeval.streaming import GZIP_RATIO, LINE_BYTES, RunFile, planned_work

    plain = tmp_path / "run.txt"
    plain.write_bytes(b"1 Q0 d 1 1.0 t\n" * 1000)  # 15,000 bytes
    zipped = tmp_path / "run.txt.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    size = zipped.stat().st_size
    assert planned_work([str(plain)], 4096) == (15_000, 4)
    assert planned_work([RunFile(str(zipped))], 1 << 20) == (size * GZIP_RATIO, 1)
    assert planned_work(["-", "https://example.org/run.txt"], 4096) == (0, 2)
    run = read_run(str(plain))
    assert planned_work([run]) == (1000 * LINE_BYTES, 1)


def test_parallel_workers_take_the_largest_runs_first(tmp_path):
    from divaeval.streaming import scoring_order, text_bytes

    sizes = {"a": 300, "b": 900, "c": 300, "d": 1200}  # bytes of each run's text
    paths = []
    for name, size in sizes.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(b"1 Q0 d 1 1.0 t\n" * (size // 15))
        paths.append(str(path))
    assert [text_bytes(path) for path in paths] == [300, 900, 300, 1200]
    # d, b, then a and c in the given order; in this process, the given order
    assert scoring_order([*paths, "-"], LocalProcesses(2)) == [3, 1, 0, 2, 4]
    assert scoring_order(paths, InProcess()) == [0, 1, 2, 3]


def test_auto_is_the_command_line_default_and_gives_the_same_output(monkeypatch, capsys):
    # forced to fork on the sample data: the same bytes as one process
    from support import SAMPLE_DATA, run_cli

    from divaeval import parallel
    from divaeval.parallel import local

    started: list[int] = []
    real = local.LocalProcesses

    def spy(size, *args, **kwargs):
        started.append(size)
        return real(size, *args, **kwargs)

    monkeypatch.setattr(local, "LocalProcesses", spy)  # (workers_for loads it from there)
    args = [SAMPLE_DATA / "run.txt", SAMPLE_DATA / "run2.txt", SAMPLE_DATA / "qrels.txt", "-q"]
    alone = run_cli(capsys, *args, "-j", "1")
    assert run_cli(capsys, *args) == alone and started == []  # small: in this process
    monkeypatch.setattr(parallel, "AUTO_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    assert run_cli(capsys, *args) == alone and started == [2]  # two runs, two workers
    monkeypatch.setenv("DIVAEVAL_JOBS", "1")
    assert run_cli(capsys, *args) == alone and started == [2]  # the variable: one process


@pytest.mark.parametrize("value", ["-1", "two", "1.5", ""])
def test_a_bad_jobs_value_is_a_usage_error(capsys, monkeypatch, value):
    from support import SAMPLE_DATA, run_cli

    code, out, err = run_cli(
        capsys, SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt", "-j", value
    )
    assert (code, out) == (2, "")
    assert err.startswith("divaeval: Invalid value for '-j' / '--jobs': ") and "auto" in err
    monkeypatch.setenv("DIVAEVAL_JOBS", value or "x")
    code, _, err = run_cli(capsys, SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt")
    assert code == 2 and "--jobs" in err


# ---------------------------------------------------------------------------------------------
# the command line with worker processes: Ctrl-C, and a worker killed under it


def _big_run(tmp_path, topics: int = 400, depth: int = 1000):
    """A run of ``topics`` x ``depth`` lines (several MB: workers are worth starting) and
    qrels judging a few documents of each topic."""
    from support import lines_of_topics

    run = tmp_path / "run.txt"
    run.write_bytes(b"\n".join(lines_of_topics([depth] * topics)) + b"\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{t} {s} doc{t}-{3 * s} 1\n" for t in range(topics) for s in range(1, 4))
    )
    return run, qrels


def _children(pid: int) -> list[int]:
    """The pids of the child processes of ``pid`` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@contextlib.contextmanager
def _command_with_workers(tmp_path, **popen):
    """``divaeval RUN QRELS -j 2`` on :func:`_big_run`, started; yields (the process, the pids
    of its two workers, the rest of the run) once both run.

    The run comes through a named pipe of which only the first half is written: the command
    then waits for the rest with its workers alive, however loaded the machine, until the test
    has done what it tests (on a loaded machine a run read from a file could end between the
    test seeing the workers and its signal: exit 0, not 130). ``finish()`` writes the rest;
    leaving the block closes the pipe."""
    import subprocess
    import sys
    import time

    run, qrels = _big_run(tmp_path)
    data = run.read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        [sys.executable, "-m", "divaeval", fifo, qrels, "-m", "alpha-nDCG@20", "-j", "2",
         "--chunk-size", "64K"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        **popen,
    )  # fmt: skip
    with open(fifo, "wb") as writer:  # (waits for the command to open it)
        writer.write(data[:half])
        writer.flush()
        deadline = time.monotonic() + 30
        workers: list[int] = []
        while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.01)
            workers = _children(process.pid)
        assert len(workers) == 2, "the workers did not start"

        def finish() -> None:
            with contextlib.suppress(BrokenPipeError):
                writer.write(data[half:])
                writer.flush()

        try:
            yield process, workers, finish
        finally:
            with contextlib.suppress(BrokenPipeError):
                writer.close()
            if process.poll() is None:
                process.kill()
                process.communicate()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
def test_ctrl_c_stops_the_command_and_its_workers(tmp_path):
    import signal

    # its own process group, as a shell's job; SIGINT not ignored (a background job's is, and
    # a command started with it ignored keeps ignoring it)
    with _command_with_workers(
        tmp_path,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as (process, workers, _):
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err.decode().endswith("divaeval: interrupted\n")
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")]


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)")
def test_a_worker_killed_under_the_command_is_one_line_and_exit_one(tmp_path):
    import signal

    with _command_with_workers(tmp_path) as (process, workers, finish):
        os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer would
        finish()  # the command goes on, and finds the worker gone
        _, err = process.communicate(timeout=30)
    assert process.returncode == 1
    assert err.decode() == (
        "divaeval: a worker process ended unexpectedly (killed by signal SIGKILL "
        "(out of memory? try fewer --jobs))\n"
    )


def test_the_progress_bar_draws_without_a_thread(monkeypatch):
    # so that the analyses' workers are forked from a process of one thread
    import sys
    import threading

    from divaeval.cli.output import progress_bar

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    threads = threading.active_count()
    with progress_bar("testing") as advance:
        assert advance is not None
        advance(1, 2)
        assert threading.active_count() == threads


def test_workers_that_cannot_start_are_one_line(monkeypatch):
    import errno

    from divaeval.errors import DivaevalError

    started: list[int] = []
    real_fork = os.fork

    def fork_once():
        if started:  # the second worker: no more processes
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        pid = real_fork()
        if pid:
            started.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork_once)
    workers = LocalProcesses(2, start_method="fork")
    with pytest.raises(DivaevalError, match=r"^cannot start worker processes: Resource .*-j 1"):
        list(workers.map(_where, range(3)))
    with pytest.raises(ChildProcessError):  # the first worker was stopped and reaped
        os.waitpid(started[0], os.WNOHANG)
