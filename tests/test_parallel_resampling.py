"""The resampling analyses on worker processes (``--jobs``): the bootstrap, randomisation and
Tukey HSD tests, the bootstrap intervals, ``compare``, discriminative power and document
selection sensitivity give the same bits as in process, for any number of pieces; Tukey HSD's
blocks of resamples draw from the streams its docstring names. (The same on a Dask cluster:
``test_cluster.py``.)"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ROOT, SAMPLE_DATA, TREC2012, TREC2012_RUNS, examples, run_cli, same_bits

import divaeval
import divaeval.meta.sensitivity as sensitivity_module
import divaeval.stats.significance.resampling as resampling
from divaeval.errors import DataError
from divaeval.meta.discriminative_power import discriminative_power
from divaeval.meta.sensitivity import _grid_units, _measure_parts, sensitivity
from divaeval.metrics import parse_measures
from divaeval.metrics.grid import grid_measures, parse_grid
from divaeval.parallel import InProcess, LocalProcesses
from divaeval.stats.compare import compare_runs
from divaeval.stats.effects import pairwise_bootstrap_cis
from divaeval.stats.significance import (
    RESAMPLE_BLOCK,
    pairwise_tests,
    randomized_tukey_hsd,
    randomized_tukey_hsd_tables,
)

QRELS_2012 = TREC2012 / "qrels-for-ndeval.txt.gz"
RUNS_2012 = [TREC2012_RUNS[name] for name in ("ql-cata", "rm-catb", "dssa-wt2012")]


@pytest.fixture(scope="module")
def processes():
    workers = LocalProcesses(2)
    yield workers
    workers.close()


def _table(n_runs: int, n_topics: int, seed: int = 1) -> np.ndarray:
    """Scores with ties, a constant pair of runs and a run equal to another (the degenerate
    cases of the tests)."""
    rng = np.random.default_rng(seed)
    table = np.round(np.clip(rng.normal(0.4, 0.25, (n_runs, n_topics)), 0, 1), 2)
    table[1] = table[0] + 0.05  # all differences equal: a degenerate pair
    table[2] = table[3]  # identical runs
    return table


def _fields(result) -> tuple:
    return (
        result.pairs,
        result.statistics,
        result.p_values,
        result.counts,
        result.pair_deltas,
        result.required_delta,
        result.B,
        result.seed,
        getattr(result, "ranges", None),
    )


TESTS = [
    ("bootstrap", 700, None),
    ("randomization", 3000, False),  # sampled sign vectors
    ("randomization", None, True),  # every sign vector (14 topics)
    ("tukey-hsd", 2 * RESAMPLE_BLOCK + 321, None),  # three blocks
]


@pytest.mark.parametrize("chunk_elements", [None, 3_000])
@pytest.mark.parametrize(("test", "B", "exact"), TESTS)
def test_pairwise_tests_are_the_same_bits_on_worker_processes(
    processes, monkeypatch, test, B, exact, chunk_elements
):
    if chunk_elements:  # many small pieces: every piece boundary is crossed
        monkeypatch.setattr(resampling, "CHUNK_ELEMENTS", chunk_elements)
    table = _table(12, 14)
    serial = pairwise_tests(table, test, B=B, seed=9, exact=exact)
    parallel = pairwise_tests(table, test, B=B, seed=9, exact=exact, workers=processes)
    assert same_bits(_fields(serial), _fields(parallel))
    assert serial.counts is not None and serial.counts.max() > 0


def test_two_runs_and_a_single_piece_are_the_same_bits(processes):
    table = _table(5, 30)[[0, 4]]
    for test in ("bootstrap", "randomization", "tukey-hsd"):
        serial = pairwise_tests(table, test, seed=3)
        assert same_bits(
            _fields(serial), _fields(pairwise_tests(table, test, seed=3, workers=processes))
        )


@pytest.mark.parametrize("chunk_elements", [None, 20_000])
def test_bootstrap_intervals_are_the_same_bits(processes, monkeypatch, chunk_elements):
    if chunk_elements:
        monkeypatch.setattr(resampling, "CHUNK_ELEMENTS", chunk_elements)
    table = _table(15, 20, seed=4)
    serial = pairwise_bootstrap_cis(table, B=2000, seed=5)
    assert same_bits(serial, pairwise_bootstrap_cis(table, B=2000, seed=5, workers=processes))


@pytest.mark.parametrize("test", ["ttest", "bootstrap", "randomization", "tukey-hsd"])
def test_compare_is_the_same_frame(processes, monkeypatch, test):
    monkeypatch.setattr(resampling, "CHUNK_ELEMENTS", 20_000)
    table = _table(10, 25, seed=6)
    runs = [f"run{i}" for i in range(10)]
    serial = compare_runs(table, runs, test=test, seed=11, B=1500, ci_B=1500)
    parallel = compare_runs(table, runs, test=test, seed=11, B=1500, ci_B=1500, workers=processes)
    pd.testing.assert_frame_equal(serial.pairs, parallel.pairs, check_exact=True)
    pd.testing.assert_frame_equal(serial.runs, parallel.runs, check_exact=True)
    assert serial.signature == parallel.signature


@pytest.mark.parametrize("test", ["bootstrap", "tukey-hsd"])
def test_discriminative_power_per_metric_tasks_are_the_same_bits(processes, test):
    tables = {f"m{k}": _table(8, 20, seed=k) for k in range(3)}
    runs = [f"r{i}" for i in range(8)]
    serial = discriminative_power(tables, runs, test=test, B=1200, seed=2)
    done = []
    parallel = discriminative_power(
        tables, runs, test=test, B=1200, seed=2, workers=processes,
        progress=lambda metric, k, total: done.append((metric, k, total)),
    )  # fmt: skip
    assert done == [("m0", 1, 3), ("m1", 2, 3), ("m2", 3, 3)]
    pd.testing.assert_frame_equal(serial.table(), parallel.table(), check_exact=True)
    for metric in tables:  # one metric alone splits its own test into pieces
        assert same_bits(
            _fields(serial.metrics[metric].tests), _fields(parallel.metrics[metric].tests)
        )
        alone = discriminative_power(
            {metric: tables[metric]}, runs, test=test, B=1200, seed=2, workers=processes
        )
        assert same_bits(
            _fields(serial.metrics[metric].tests), _fields(alone.metrics[metric].tests)
        )
    assert serial.signature == parallel.signature


def _sensitivity_fields(result) -> tuple:
    return (
        list(result.topics),
        result.values,
        result.mean,
        result.sd,
        result.dss,
        result.average,
        result.averaged_topics,
        result.signature,
        [(g.measure, g.averages, g.best, g.at_max) for g in result.grid_maxima or []],
    )


@pytest.mark.parametrize("batch_cells", [None, 400_000])
def test_sensitivity_batches_and_measure_parts_are_the_same_bits(
    processes, monkeypatch, batch_cells
):
    if batch_cells:  # many batches of topics (else a few, and a grid split by points)
        monkeypatch.setattr(sensitivity_module, "_BATCH_CELLS", batch_cells)
    parts = []
    split = sensitivity_module._measure_parts
    monkeypatch.setattr(
        sensitivity_module, "_measure_parts", lambda *a: parts.append(split(*a)) or parts[-1]
    )
    measures = ["alpha-nDCG", "ERR-IA", "NRBP"]
    serial = sensitivity(str(QRELS_2012), measures, cutoffs=[5, 20], samples=60, seed=4)
    parallel = sensitivity(
        str(QRELS_2012), measures, cutoffs=[5, 20], samples=60, seed=4, workers=processes
    )
    assert same_bits(_sensitivity_fields(serial), _sensitivity_fields(parallel))
    grid = parse_grid(["alpha=0:1:0.5"])
    serial = sensitivity(str(QRELS_2012), ["alpha-nDCG@10"], samples=40, seed=4, grid=grid)
    parallel = sensitivity(
        str(QRELS_2012), ["alpha-nDCG@10"], samples=40, seed=4, grid=grid, workers=processes
    )
    assert same_bits(_sensitivity_fields(serial), _sensitivity_fields(parallel))
    split = [len(p) > 1 for p in parts[1::2]]  # the parallel calls: measures, then the grid
    assert split == [False, batch_cells is None]


def test_grid_points_are_split_into_parts_of_consecutive_points():
    bases = parse_measures(["alpha-nDCG@5,10", "ERR-IA@10"])
    grid = parse_grid(["alpha=0:1:0.25"])  # five points
    expanded = [grid_measures(base, grid) for base in bases]
    measures = list({m.name: m for points in expanded for _, m in points}.values())
    units = _grid_units(measures, expanded)
    assert len(units) == 5
    for k, unit in enumerate(units):  # each point: its three measures, every base's
        names = sorted(measures[p].name for p in unit)
        assert names == sorted(points[k][1].name for points in expanded)
    assert sorted(p for unit in units for p in unit) == list(range(15))
    assert _measure_parts(units, 1) == [[p for unit in units for p in unit]]
    assert [len(part) for part in _measure_parts(units, 2)] == [9, 6]  # points 0-2 | 3-4
    assert [len(part) for part in _measure_parts(units, 3)] == [6, 6, 3]
    assert len(_measure_parts(units, 99)) == 5
    assert _grid_units(bases, []) == [[0, 1, 2]]  # without a grid: never split


# ---------------------------------------------------------------------------------------------
# Tukey HSD's blocks of resamples


def _block_ranges(table: np.ndarray, generator: np.random.Generator, size: int) -> np.ndarray:
    """Fig. 4's range_b for ``size`` resamples drawn one at a time (the definition), each
    topic's values sorted before they are permuted."""
    ranges = []
    for _ in range(size):
        permuted = generator.permuted(np.sort(table.T, axis=1), axis=1)  # each topic permuted
        means = permuted.mean(axis=0)
        ranges.append(means.max() - means.min())
    return np.array(ranges)


def test_tukey_blocks_draw_from_the_seed_stream_then_its_jumps():
    table = _table(5, 9, seed=8)
    result = randomized_tukey_hsd(table, B=2 * RESAMPLE_BLOCK + 50, seed=13)
    expected = np.concatenate(
        [
            _block_ranges(table, np.random.default_rng(13), RESAMPLE_BLOCK),
            _block_ranges(
                table, np.random.Generator(np.random.PCG64(13).jumped(1)), RESAMPLE_BLOCK
            ),
            _block_ranges(table, np.random.Generator(np.random.PCG64(13).jumped(2)), 50),
        ]
    )
    np.testing.assert_allclose(result.ranges, np.sort(expected), rtol=0, atol=1e-15)
    small = randomized_tukey_hsd(table, B=300, seed=13)  # B ≤ 1000: one stream, default_rng
    np.testing.assert_allclose(
        small.ranges, np.sort(_block_ranges(table, np.random.default_rng(13), 300)), atol=1e-15
    )


def test_tukey_does_not_depend_on_its_memory_chunks(monkeypatch):
    table = _table(7, 13, seed=2)
    whole = randomized_tukey_hsd(table, B=2500, seed=3)
    for elements in (4_000_000, 500, 91):
        monkeypatch.setattr(resampling, "PERMUTED_ELEMENTS", elements)
        assert same_bits(_fields(whole), _fields(randomized_tukey_hsd(table, B=2500, seed=3)))


@settings(max_examples=examples(10), deadline=None)
@given(st.integers(2, 40), st.integers(1, 60), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_tukey_of_several_tables_is_each_table_alone(n_runs, n_topics, n_tables, seed):
    # one set of permutation draws for every table (positions permuted, values gathered):
    # every table's ranges and p-values are the bits of its test alone
    rng = np.random.default_rng(seed)
    tables = [np.round(rng.random((n_runs, n_topics)), 2) for _ in range(n_tables)]
    together = randomized_tukey_hsd_tables(tables, B=1100, seed=seed % 1000)
    for table, result in zip(tables, together, strict=True):
        alone = randomized_tukey_hsd(table, B=1100, seed=seed % 1000)
        assert same_bits(_fields(alone), _fields(result))
        assert same_bits(alone.ranges, result.ranges)


def test_tukey_of_several_tables_in_processes(processes):
    tables = [_table(8, 12, seed=k) for k in range(3)]
    serial = randomized_tukey_hsd_tables(tables, B=2 * RESAMPLE_BLOCK + 7, seed=4)
    spread = randomized_tukey_hsd_tables(
        tables, B=2 * RESAMPLE_BLOCK + 7, seed=4, workers=processes
    )
    assert same_bits([_fields(r) for r in serial], [_fields(r) for r in spread])
    with pytest.raises(DataError, match="one shape"):
        randomized_tukey_hsd_tables([_table(4, 4), _table(4, 5)])


def test_in_process_workers_are_the_serial_path():
    table = _table(6, 10)
    for test in ("bootstrap", "randomization", "tukey-hsd"):
        serial = pairwise_tests(table, test, seed=1)
        assert same_bits(
            _fields(serial), _fields(pairwise_tests(table, test, seed=1, workers=InProcess()))
        )


# ---------------------------------------------------------------------------------------------
# the commands and the library


def test_commands_print_the_same_with_jobs(capsys):
    commands = [
        ["compare", *RUNS_2012, QRELS_2012, "-m", "alpha-nDCG@20", "--test", "bootstrap",
         "-B", "300", "-f", "csv", "--signature"],
        ["compare", *RUNS_2012, QRELS_2012, "-m", "ERR-IA@20", "--test", "tukey-hsd",
         "-B", "1200", "--seed", "5", "-f", "jsonl", "--table", "runs"],
        ["meta", "discriminative-power", *RUNS_2012, QRELS_2012, "-m", "alpha-nDCG@20",
         "-m", "ERR-IA@20", "-B", "300", "-f", "csv", "--signature"],
        ["meta", "sensitivity", QRELS_2012, "-m", "alpha-nDCG", "-k", "5", "-k", "10",
         "--samples", "30", "-q", "-f", "csv", "--seed", "8", "--signature"],
    ]  # fmt: skip
    for command in commands:
        code, serial, serial_err = run_cli(capsys, *command)
        assert code == 0, serial_err
        code, parallel, parallel_err = run_cli(capsys, *command, "-j", "2")
        assert code == 0, parallel_err
        assert parallel == serial and parallel_err == serial_err, command
    assert "seed=8" in serial_err  # the seed is reported as without -j


def test_scores_files_take_jobs(tmp_path, capsys):
    code, scores, _ = run_cli(
        capsys, *RUNS_2012, QRELS_2012, "-m", "alpha-nDCG@20", "-m", "ERR-IA@20", "-q",
        "-c", "-f", "tsv",
    )  # fmt: skip
    assert code == 0
    (tmp_path / "scores.tsv").write_text(scores)
    command = ["meta", "discriminative-power", "--scores", tmp_path / "scores.tsv", "-B", "200"]
    code, serial, _ = run_cli(capsys, *command, "-f", "csv")
    assert code == 0
    code, parallel, err = run_cli(capsys, *command, "-f", "csv", "-j", "2")
    assert code == 0 and parallel == serial, err


def test_library_functions_take_jobs(collected_warnings):
    runs = [str(SAMPLE_DATA / f"{name}.txt") for name in ("run", "run2", "run3")]
    qrels = str(SAMPLE_DATA / "qrels.txt")
    for function, arguments, options in [
        (divaeval.compare, (runs, qrels, "alpha-nDCG@20"), {"test": "bootstrap"}),
        (divaeval.discriminative_power, (runs, qrels, ["alpha-nDCG@20", "P-IA@20"]), {}),
        (divaeval.sensitivity, (qrels, "alpha-nDCG@20"), {"samples": 50}),
    ]:
        serial = function(*arguments, **options)
        parallel = function(*arguments, **options, jobs=2)
        pd.testing.assert_frame_equal(serial.frame, parallel.frame, check_exact=True)
        assert serial.signature == parallel.signature


def test_nothing_of_dask_is_imported_without_a_scheduler(tmp_path):
    probe = (
        "import sys; from divaeval.cli import main\n"
        f"runs = {[str(r) for r in RUNS_2012]!r}; qrels = {str(QRELS_2012)!r}\n"
        "for args in (runs + [qrels, '-m', 'ndeval', '-j', '2', '--chunk-size', '100K'],\n"
        "             ['compare', *runs, qrels, '-m', 'alpha-nDCG@20', '--test', 'bootstrap',\n"
        "              '-B', '100', '-j', '2'],\n"
        "             ['meta', 'sensitivity', qrels, '-m', 'alpha-nDCG@5', '-B', '20',\n"
        "              '-j', '2']):\n"
        "    assert main(args + ['-o', '/dev/null']) == 0, args\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_jobs_give_each_process_one_blas_thread_before_numpy_loads():
    probe = (
        "import os, sys\n"
        "from divaeval.cli import main\n"
        "from divaeval.cli.compare import compare_command\n"
        "seen = []\n"
        "option = next(p for p in compare_command.params if p.name == 'jobs')\n"
        "inner = option.callback\n"
        "def spy(ctx, param, value):\n"
        "    seen.append('numpy' in sys.modules)\n"
        "    return inner(ctx, param, value)\n"
        "option.callback = spy\n"
        f"args = ['compare', {str(SAMPLE_DATA / 'run.txt')!r}, {str(SAMPLE_DATA / 'run2.txt')!r},\n"
        f"        {str(SAMPLE_DATA / 'qrels.txt')!r}, '-m', 'P-IA@10', '-o', '/dev/null']\n"
        "assert main(args + sys.argv[1:]) == 0\n"
        "print(seen, os.environ.get('OPENBLAS_NUM_THREADS'), os.environ.get('OMP_NUM_THREADS'))"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    # -j auto (the default) and -j N: processes may run; -j 1: this one only (-j N is the
    # last call's, below)
    for extra, threads in ([[], "1"], [["-j", "1"], None]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *extra], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["[False]", str(threads), str(threads)]
    done = subprocess.run(  # a value already set is kept
        [sys.executable, "-c", probe, "-j", "2"],
        capture_output=True,
        text=True,
        env={**env, "OPENBLAS_NUM_THREADS": "3"},
    )
    assert done.stdout.split() == ["[False]", "3", "1"]
