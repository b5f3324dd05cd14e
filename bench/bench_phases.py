"""Where the time of ``divaeval RUN... QRELS -m ndeval`` goes, phase by phase, in process.

``python bench/bench_phases.py [--repeat 5] [--quick]``: the two workloads of issue 13 — the 9
real TREC 2012 runs (tests/fixtures/trec2012) and the seeded 1M-line run and qrels of
``generate.py`` (10,000 topics x 100 documents; skipped with ``--quick``) — timed phase by phase:
reading the runs and the qrels, indexing the qrels, judging, scoring (once with the shared,
qrels-only values such as the greedy ideal still to compute, once more with them cached, as a
second run would find them) and writing the trec_eval output. Each phase is the best of
``--repeat`` repetitions of CPU time (``time.process_time``: steadier than wall time on a shared
machine) and of wall time. Start-up (the interpreter, numpy and divaeval's own imports) is
measured in fresh processes. Whole-command timings against the C tools are ``run_all.py``'s.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from run_all import OUT, QRELS_2012, RUNS_2012  # noqa: E402

_STARTUP = (
    "import time\n"
    "t = time.process_time()\n"
    "import numpy\n"
    "n = time.process_time()\n"
    "import divaeval.cli, divaeval.evaluation, divaeval.metrics\n"
    "divaeval.metrics.parse_measures(['ndeval'])\n"
    "print(n - t, time.process_time() - n)\n"
)


def startup(repeat: int) -> tuple[float, float]:
    """(numpy, divaeval's own imports and measure table) CPU seconds, best of ``repeat``."""
    best = (float("inf"), float("inf"))
    env = {**os.environ, "PYTHONPATH": ROOT}
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", _STARTUP], capture_output=True, text=True, env=env, check=True
        ).stdout.split()
        best = (min(best[0], float(out[0])), min(best[1], float(out[1])))
    return best


def phases(run_paths: list[str], qrels_path: str, repeat: int) -> dict[str, tuple[float, float]]:
    """Phase -> (best CPU seconds, best wall seconds)."""
    from divaeval.errors import set_warning_sink
    from divaeval.evaluation import Evaluation
    from divaeval.io import read_qrels, read_run
    from divaeval.judged import QrelsIndex, judge_run
    from divaeval.metrics import compute_measures, parse_measures
    from divaeval.report import ReportOptions, write_report
    from divaeval.scores import RunScores
    from divaeval.settings import Settings

    settings = Settings()
    measures = parse_measures(["ndeval"])
    options = ReportOptions(format="trec_eval", per_topic=False, summary=True)
    best: dict[str, tuple[float, float]] = {}

    def timed(name: str, call, *args):
        cpu, wall = time.process_time(), time.perf_counter()
        result = call(*args)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        old = best.get(name, (float("inf"), float("inf")))
        best[name] = (min(old[0], cpu), min(old[1], wall))
        return result

    def judge_all(runs, index):
        return [judge_run(run, index, settings) for run in runs]

    def score_all(judged):
        return [compute_measures(jr, measures) for jr in judged]

    def one_pass() -> None:
        runs = timed("read runs", lambda: [read_run(path) for path in run_paths])
        index = timed("index the qrels", QrelsIndex, timed("read qrels", read_qrels, qrels_path))
        timed("score (shared values to build)", score_all, timed("judge", judge_all, runs, index))
        judged = judge_all(runs, index)
        values = timed("score (shared values cached)", score_all, judged)
        scores = [
            RunScores(name=run.name, path=run.path, topics=jr.topics, values=value)
            for run, jr, value in zip(runs, judged, values, strict=True)
        ]
        evaluation = Evaluation(runs=scores, measures=measures, settings=settings, index=index)
        timed("write the output", write_report, evaluation, io.StringIO(), options)

    previous = set_warning_sink(lambda message: None)
    try:
        for _ in range(repeat):
            one_pass()
    finally:
        set_warning_sink(previous)
    order = ("read runs", "read qrels", "index the qrels", "judge")
    return {name: best[name] for name in (*order, *[n for n in best if n not in order])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="skip the 1M-line run")
    args = parser.parse_args()
    numpy_cpu, own_cpu = startup(args.repeat)
    print(f"{'start-up: import numpy':<40} {numpy_cpu:8.3f} s CPU")
    print(f"{'start-up: divaeval imports, measure table':<40} {own_cpu:8.3f} s CPU")
    workloads = {"TREC 2012, 9 runs": (RUNS_2012, QRELS_2012)}
    if not args.quick:
        from generate import generate

        qrels, run = generate(OUT, 10_000, 100, 5, 20, 42)
        workloads["1M-line run, 1M-line qrels"] = ([run], qrels)
    for title, (runs, qrels) in workloads.items():
        print(f"\n{title}: {'CPU':>8} {'wall':>10}")
        for name, (cpu, wall) in phases(list(runs), qrels, args.repeat).items():
            print(f"  {name:<38} {cpu:8.3f} s {wall:8.3f} s")


if __name__ == "__main__":
    main()
