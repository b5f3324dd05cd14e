"""Work on a Dask cluster (``--scheduler ADDRESS``, ``DIVAEVAL_SCHEDULER``): one LocalCluster of
two worker processes on the loopback interface, started once for the module as ``--scheduler
local:2`` starts it, and reached by its address as a remote scheduler is. Every value the cluster
computes is compared with the in-process one: the main job on real runs read in small blocks, the
command line, the resampling analyses; a data error on a worker keeps its file and line; warnings
come back in order; fsspec URLs are read by the client; an unreachable scheduler or a missing
Dask is one line, exit 2; clients and the cluster are closed."""

from __future__ import annotations

import importlib.util
import socket
import sys
import time
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from support import SAMPLE_DATA, TREC2012, TREC2012_RUNS, lines_of_topics, run_cli, same_bits

# the dask extra (part of the test extra); looked up, not imported: every pytest-xdist worker
# collects this module, and only the one running the group needs Dask (0.5 s to import)
if importlib.util.find_spec("distributed") is None:
    pytest.skip("needs the dask extra", allow_module_level=True)

import divaeval.parallel as parallel  # noqa: E402
from divaeval.errors import DataError, DivaevalError, warn  # noqa: E402
from divaeval.evaluation import run_evaluation  # noqa: E402
from divaeval.meta.discriminative_power import discriminative_power  # noqa: E402
from divaeval.parallel import Cluster, workers_for  # noqa: E402
from divaeval.settings import Settings  # noqa: E402
from divaeval.stats.effects import pairwise_bootstrap_cis  # noqa: E402
from divaeval.stats.significance import pairwise_tests  # noqa: E402

# one cluster for the module, also under pytest-xdist (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("dask-cluster")

QRELS_2012 = TREC2012 / "qrels-for-ndeval.txt.gz"
RUNS_2012 = [TREC2012_RUNS[name] for name in ("ql-cata", "rm-catb", "dssa-wt2012")]


@pytest.fixture(scope="module")
def workers():
    """``--scheduler local:2``: a LocalCluster(n_workers=2, threads_per_worker=1,
    processes=True, host="127.0.0.1", no dashboard) and its client; both closed at the end."""
    local = workers_for(scheduler="local:2")
    yield local
    cluster = local._cluster
    local.close()
    assert local.client is None and cluster is not None and cluster.status.name == "closed"


@pytest.fixture(scope="module")
def address(workers) -> str:
    return workers._cluster.scheduler_address


def _evaluation_fields(evaluation) -> list:
    return [
        (
            run.name,
            list(run.topics),
            run.missing_topics,
            run.run_only_topics,
            {m.name: run.values[m] for m in evaluation.measures},
            evaluation.means(run),
        )
        for run in evaluation.runs
    ]


def test_the_cluster_has_two_workers(workers):
    assert workers.size == 2
    assert workers.describe().endswith("(2 worker threads)")


def test_the_main_job_gives_the_same_bits_in_small_blocks(address, collected_warnings):
    measures = ["ndeval", "alpha-nDCG@5,10", "AP", "nDCG-IA@20", "RBU@20", "D#-nDCG@10"]
    settings = Settings(complete=True)
    runs = [str(r) for r in RUNS_2012[1:]]  # rm-catb, and dssa-wt2012 with CRLF line ends
    whole = run_evaluation(runs, str(QRELS_2012), measures, settings=settings)
    on_cluster = run_evaluation(
        runs,
        str(QRELS_2012),
        measures,
        settings=replace(settings, scheduler=address, chunk_size=150_000),
    )
    assert same_bits(_evaluation_fields(whole), _evaluation_fields(on_cluster))


def test_the_command_line_with_the_option_and_the_environment_variable(
    address, capsys, monkeypatch
):
    args = [RUNS_2012[0], QRELS_2012, "-m", "ndeval", "-q", "-c", "--chunk-size", "100K"]
    code, in_process, in_process_err = run_cli(capsys, *args)
    assert code == 0
    code, out, err = run_cli(capsys, *args, "--scheduler", address)
    assert code == 0 and out == in_process and err == in_process_err  # no Dask chatter
    monkeypatch.setenv("DIVAEVAL_SCHEDULER", address)
    code, out, err = run_cli(capsys, *args)
    assert code == 0 and out == in_process and err == in_process_err


def _table(n_runs: int, n_topics: int) -> np.ndarray:
    rng = np.random.default_rng(5)
    table = np.round(np.clip(rng.normal(0.4, 0.25, (n_runs, n_topics)), 0, 1), 2)
    table[1] = table[0] + 0.05  # a degenerate pair
    return table


@pytest.mark.parametrize(
    ("test", "B", "exact"),
    [
        ("bootstrap", 1000, None),  # 780 pairs: two chunks of pairs
        ("randomization", 12_000, False),  # three chunks of sign vectors
        ("randomization", None, True),
        ("tukey-hsd", 3100, None),  # four blocks of resamples
    ],
)
def test_resampling_tests_give_the_same_bits(workers, test, B, exact):
    table = _table(40, 18)
    serial = pairwise_tests(table, test, B=B, seed=21, exact=exact)
    remote = pairwise_tests(table, test, B=B, seed=21, exact=exact, workers=workers)
    for field in ("statistics", "p_values", "counts", "pair_deltas", "required_delta", "ranges"):
        assert same_bits(getattr(serial, field, None), getattr(remote, field, None)), field


def test_intervals_and_discriminative_power_give_the_same_bits(workers):
    table = _table(40, 18)
    serial = pairwise_bootstrap_cis(table, B=10_000, seed=2)  # two chunks of pairs
    assert same_bits(serial, pairwise_bootstrap_cis(table, B=10_000, seed=2, workers=workers))
    tables = {f"m{k}": _table(8, 15) + 0.01 * k for k in range(3)}
    runs = [f"r{i}" for i in range(8)]
    for test in ("bootstrap", "tukey-hsd"):
        alone = discriminative_power(tables, runs, test=test, B=1500, seed=4)
        remote = discriminative_power(tables, runs, test=test, B=1500, seed=4, workers=workers)
        pd.testing.assert_frame_equal(alone.table(), remote.table(), check_exact=True)
        for metric in tables:
            assert same_bits(
                alone.metrics[metric].tests.p_values, remote.metrics[metric].tests.p_values
            )


def test_analysis_commands_print_the_same(address, capsys):
    runs = [SAMPLE_DATA / f"{name}.txt" for name in ("run", "run2", "run3")]
    qrels = SAMPLE_DATA / "qrels.txt"
    commands = [
        ["compare", *runs, qrels, "-m", "alpha-nDCG@20", "--test", "tukey-hsd",
         "-B", "2500", "-f", "csv", "--signature"],
        ["meta", "discriminative-power", *runs, qrels, "-m", "alpha-nDCG@20",
         "-m", "ERR-IA@20", "-B", "400", "--seed", "3", "-f", "csv", "--signature"],
        ["meta", "sensitivity", QRELS_2012, "-m", "alpha-nDCG", "-m", "NRBP", "-k", "10",
         "--samples", "40", "-q", "-f", "csv", "--signature"],
    ]  # fmt: skip
    for command in commands:
        code, in_process, in_process_err = run_cli(capsys, *command)
        assert code == 0, in_process_err
        code, out, err = run_cli(capsys, *command, "--scheduler", address)
        assert code == 0 and out == in_process and err == in_process_err, command
    assert "seed=42" in err and "samples=40" in err


def test_a_data_error_on_a_worker_names_its_file_and_line(address, workers, tmp_path, capsys):
    lines = lines_of_topics([50] * 40)
    lines[1234] = b"17 Q0 doc 5 notanumber tag"
    run = tmp_path / "run.txt"
    run.write_bytes(b"\n".join(lines) + b"\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("17 1 doc 1\n")
    code, out, err = run_cli(capsys, run, qrels, "--chunk-size", "2K", "--scheduler", address)
    assert code == 1 and out == ""
    assert err == f"divaeval: {run}:1235: score 'notanumber' is not a number\n"
    with pytest.raises(DataError) as caught:  # the library: the same error, file and line
        run_evaluation(
            [str(run)], str(qrels), ["ndeval"], settings=Settings(chunk_size=2048), workers=workers
        )
    assert (caught.value.file, caught.value.line) == (str(run), 1235)
    _no_task_left(workers)  # the blocks after the error were cancelled


def _no_task_left(workers: Cluster) -> None:
    def tasks(dask_scheduler) -> int:
        return len(dask_scheduler.tasks)

    deadline = time.monotonic() + 10
    while workers.client.run_on_scheduler(tasks) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workers.client.run_on_scheduler(tasks) == 0


def _warn_twice(shared: str, item: int) -> int:
    """A task that warns (on a worker), for the test below."""
    warn(f"{shared} {item} first")
    warn(f"{shared} {item} second")
    return item * item


def test_warnings_on_workers_come_back_in_order(workers, collected_warnings):
    results = list(workers.map(_warn_twice, range(6), "item", ahead=3))
    assert results == [0, 1, 4, 9, 16, 25]
    assert collected_warnings == [
        f"item {k} {which}" for k in range(6) for which in ("first", "second")
    ]
    _no_task_left(workers)


def test_fsspec_urls_are_read_by_the_workers_or_the_client(address, tmp_path, collected_warnings):
    fsspec = pytest.importorskip("fsspec")
    run, qrels = SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt"
    memory = fsspec.filesystem("memory")
    memory.pipe("/divaeval-test/run.txt", run.read_bytes())
    memory.pipe("/divaeval-test/qrels.txt", qrels.read_bytes())
    local = run_evaluation([str(run)], str(qrels), ["alpha-nDCG@20", "ERR-IA@20"])
    for run_url, qrels_url in [
        # this process's memory: read here, sent to the workers in blocks
        ("memory://divaeval-test/run.txt", "memory://divaeval-test/qrels.txt"),
        (run.as_uri(), qrels.as_uri()),  # file://: shared, the workers read ranges of it
    ]:
        remote = run_evaluation(
            [run_url],
            qrels_url,
            ["alpha-nDCG@20", "ERR-IA@20"],
            settings=Settings(scheduler=address, chunk_size=500),
        )
        assert same_bits(_evaluation_fields(local)[0][1:], _evaluation_fields(remote)[0][1:])
    memory.rm("/divaeval-test", recursive=True)


def test_an_unreachable_scheduler_is_one_line_exit_2(capsys, monkeypatch):
    monkeypatch.setattr(parallel.cluster, "CONNECT_TIMEOUT", 0.5)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    code, out, err = run_cli(
        capsys, SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt",
        "--scheduler", f"tcp://127.0.0.1:{port}",
    )  # fmt: skip
    assert code == 2 and out == ""
    assert err.startswith(f"divaeval: cannot reach the Dask scheduler tcp://127.0.0.1:{port}: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert time.monotonic() - started < 10


def test_a_server_that_is_not_a_scheduler_is_one_line_exit_2(capsys, monkeypatch):
    monkeypatch.setattr(parallel.cluster, "CONNECT_TIMEOUT", 0.5)
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        code, _, err = run_cli(
            capsys, SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt",
            "--scheduler", f"tcp://127.0.0.1:{port}",
        )  # fmt: skip
    assert code == 2
    expected = f"cannot reach the Dask scheduler tcp://127.0.0.1:{port}: no answer within 1.5 s"
    assert err == f"divaeval: {expected}\n"


def test_without_dask_a_scheduler_is_one_line_exit_2(capsys, monkeypatch):
    for module in ("dask", "dask.distributed"):
        monkeypatch.setitem(sys.modules, module, None)  # as if the dask extra were absent
    code, out, err = run_cli(
        capsys, SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt", "--scheduler", "local"
    )
    assert (code, out) == (2, "")
    assert err == "divaeval: --scheduler needs Dask: pip install 'divaeval[dask]'\n"


def test_a_client_of_a_scheduler_is_closed_and_the_cluster_lives_on(
    address, workers, collected_warnings
):
    client = Cluster(address)
    assert client._cluster is None  # a remote scheduler: only the client is divaeval's
    assert list(client.map(_warn_twice, [3], "x")) == [9]
    connection = client.client
    client.close()
    assert client.client is None and connection.status == "closed"
    assert list(workers.map(_warn_twice, [4], "y")) == [16]
    assert collected_warnings == ["x 3 first", "x 3 second", "y 4 first", "y 4 second"]


class _LostFuture:
    def __init__(self, error: BaseException):
        self.error = error

    def result(self):
        raise self.error

    def cancel(self):
        pass


def test_a_lost_worker_or_connection_is_one_line_and_a_task_bug_stays_a_bug():
    from distributed import KilledWorker

    cluster = Cluster.__new__(Cluster)  # no connection needed to map a future's failure
    cluster.address = "tcp://10.0.0.1:8786"
    worker = type("WorkerState", (), {"address": "tcp://10.0.0.2:4000"})()
    for lost in (KilledWorker("block-7", worker, 3), OSError("Stream is closed")):
        with pytest.raises(DivaevalError) as caught:
            cluster._result(_LostFuture(lost))
        assert str(caught.value).startswith(f"the Dask cluster {cluster.address} failed: ")
        assert caught.value.exit_code == 1 and "\n" not in str(caught.value)
    with pytest.raises(DataError):  # the task's own errors pass through as they are
        cluster._result(_LostFuture(DataError("bad", file="run.txt", line=3)))
    with pytest.raises(ZeroDivisionError):  # and a bug stays a bug (exit 3)
        cluster._result(_LostFuture(ZeroDivisionError("x")))
