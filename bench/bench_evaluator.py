"""What indexing the qrels once saves: 100 runs scored by one ``divaeval.Evaluator`` against 100
``divaeval.evaluate`` calls (each reads and indexes the qrels again), in process.

``python bench/bench_evaluator.py [--runs 100] [--repeat 3] [--measures ndeval]``: the 9 real
TREC 2012 runs of tests/fixtures/trec2012, taken in turn until there are ``--runs`` of them,
against the 2012 diversity qrels, one run per call (``evaluator.evaluate(run)`` against
``divaeval.evaluate(run, qrels)``), and once more all at once (``evaluator.evaluate_many``). The
two ways take turns (A/B), each timed by CPU time and wall time, best of ``--repeat``; the load
average is printed beside them (the machine is shared: say the load you measured at). The
values of both ways are checked equal first.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from run_all import QRELS_2012, RUNS_2012  # noqa: E402

import divaeval  # noqa: E402


def timed(work) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``work()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--measures", action="append", default=None)
    args = parser.parse_args()
    measures = args.measures or ["ndeval"]
    folder = tempfile.TemporaryDirectory()
    runs = []  # 100 names (links to the 9 files), so that evaluate_many takes them all
    for i in range(args.runs):
        source = RUNS_2012[i % len(RUNS_2012)]
        runs.append(os.path.join(folder.name, f"{i:03d}-{os.path.basename(source)}"))
        os.symlink(source, runs[-1])
    qrels = str(QRELS_2012)
    warnings.simplefilter("ignore", divaeval.DivaevalWarning)  # the runs share a tag

    evaluator = divaeval.Evaluator(qrels, measures)
    for run in runs[: len(RUNS_2012)]:  # the same numbers every way
        alone = divaeval.evaluate(run, qrels, measures)
        assert alone.table().equals(evaluator.evaluate(run).table()), run

    def calls() -> None:
        for run in runs:
            divaeval.evaluate(run, qrels, measures)

    def one_evaluator() -> None:
        reused = divaeval.Evaluator(qrels, measures)  # its qrels index is part of the time
        for run in runs:
            reused.evaluate(run)

    def evaluate_many() -> None:
        divaeval.Evaluator(qrels, measures).evaluate_many(runs)

    ways = {
        "evaluate() per run": calls,
        "one Evaluator": one_evaluator,
        "evaluate_many": evaluate_many,
    }
    best = {name: (float("inf"), float("inf")) for name in ways}
    loads = []
    for _ in range(args.repeat):
        for name, work in ways.items():  # taking turns
            loads.append(os.getloadavg()[0])
            cpu, wall = timed(work)
            best[name] = (min(best[name][0], cpu), min(best[name][1], wall))
    print(f"{args.runs} runs (the 9 TREC 2012 runs in turn), measures {', '.join(measures)}")
    print(f"load average (1 min) during the runs: {min(loads):.2f}-{max(loads):.2f}")
    base_cpu, base_wall = best["evaluate() per run"]
    for name, (cpu, wall) in best.items():
        print(
            f"  {name:<20} CPU {cpu:7.2f} s  wall {wall:7.2f} s  "
            f"({cpu / base_cpu:.2f} / {wall / base_wall:.2f} of evaluate() per run)"
        )
    folder.cleanup()


if __name__ == "__main__":
    main()
