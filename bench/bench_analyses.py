"""Whole-process benchmark of the analyses (issue 27's statistics goals), on one core.

``python bench/bench_analyses.py [--repeat 7]`` (``make bench`` runs it as the part
``analyses``) times, as whole processes taking turns (A, B, A, B, ...), each pinned to one core
with ``taskset -c 0`` where it exists and run with ``--jobs 1``:

1. ``divaeval compare RUN*30 QRELS -m alpha-nDCG@20 --test tukey-hsd -B 5000`` against
   ``bench/plain_tukey.py``, a plain numpy randomised Tukey HSD (a loop of
   ``Generator.permuted``) on the same score matrix (written by ``divaeval -q -f tsv`` first).
   Target: ≤ 1.5 × the plain script.
2. ``divaeval meta discriminative-power RUN*30 QRELS -m M1 … -m M10`` (Sakai's bootstrap,
   B = 1000) against evaluating the same ten measures, ``divaeval RUN*30 QRELS -m M1 … -m M10
   -q``. Target: ≤ 1.5 × the evaluation.
3. The same with ``--test tukey-hsd`` (B = 5000), beside the same evaluation (no target).

The inputs are generated once, seeded (``bench/out/analyses``): a qrels of 50 topics
(``generate.py``: 5 subtopics × 20 judged documents a topic) and 30 runs of its documents, 100
a topic, each a seeded reordering of the generated run. Printed per command: the median and the
range of the wall time and of the CPU time (user + system, of the command and what it waited
for), the load average before and after, and the ratios of the medians. ``--checkout DIR``
times the divaeval of another checkout (e.g. a worktree of an older commit) on the same inputs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out", "analyses")
N_RUNS, N_TOPICS, SEED = 30, 50, 42
MEASURES = (
    "alpha-nDCG@20",
    "ERR-IA@20",
    "nERR-IA@20",
    "P-IA@20",
    "strec@20",
    "NRBP",
    "MAP-IA",
    "D#-nDCG@20",
    "I-rec@20",
    "AP",
)

sys.path.insert(0, HERE)
from generate import generate  # noqa: E402

_LAUNCHER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "t = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "sys.stderr.buffer.write(p.stderr)\n"
    "print(t, u.ru_utime + u.ru_stime, p.returncode)\n"
)


def inputs() -> tuple[list[str], str]:
    """(30 run files, the qrels), generated once under bench/out/analyses."""
    runs = [os.path.join(OUT, f"run{r:02d}.txt") for r in range(N_RUNS)]
    qrels = os.path.join(OUT, "gen.qrels")
    if all(os.path.exists(path) for path in [*runs, qrels]):
        return runs, qrels
    os.makedirs(OUT, exist_ok=True)
    generate(OUT, topics=N_TOPICS, depth=100, subtopics=5, judged=20, seed=SEED)
    by_topic: dict[str, list[str]] = {}
    with open(os.path.join(OUT, "gen.run"), encoding="utf-8") as handle:
        for line in handle:
            topic, _, docno = line.split()[:3]
            by_topic.setdefault(topic, []).append(docno)
    rng = np.random.default_rng(SEED)
    for number, path in enumerate(runs):
        with open(path, "w", encoding="utf-8") as handle:
            for topic, docnos in by_topic.items():
                swapped = int(rng.integers(0, 40))  # how far down the ranking is reshuffled
                order = np.r_[rng.permutation(swapped), np.arange(swapped, len(docnos))]
                for rank, position in enumerate(order, start=1):
                    handle.write(
                        f"{topic} Q0 {docnos[position]} {rank} {1000 - rank} run{number:02d}\n"
                    )
    return runs, qrels


def pinned(command: list[str]) -> list[str]:
    """``command`` on one core (``taskset -c 0``) where taskset exists."""
    return ["taskset", "-c", "0", *command] if shutil.which("taskset") else command


def run_once(command: list[str], checkout: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``command`` with the divaeval of ``checkout``
    first on the path (from bench/out, so that no working directory's divaeval is imported
    instead); a failure stops the bench."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([checkout, os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *command],
        capture_output=True,
        text=True,
        cwd=OUT,
        env=env,
    )
    wall, cpu, code = proc.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{proc.stderr}")
    return float(wall), float(cpu)


def interleaved(commands: dict[str, list[str]], repeat: int, checkout: str) -> dict[str, dict]:
    """Each command ``repeat`` times, taking turns; per command the medians and ranges."""
    runs: dict[str, list[tuple[float, float]]] = {key: [] for key in commands}
    for _ in range(repeat):
        for key, command in commands.items():
            runs[key].append(run_once(command, checkout))
    found = {}
    for key, values in runs.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        found[key] = {
            "wall": statistics.median(walls),
            "wall_range": [min(walls), max(walls)],
            "cpu": statistics.median(cpus),
            "cpu_range": [min(cpus), max(cpus)],
            "command": " ".join(commands[key]),
        }
        print(
            f"  {key:<44} wall {found[key]['wall']:6.3f} s ({min(walls):.3f}-{max(walls):.3f})"
            f"   CPU {found[key]['cpu']:6.3f} s ({min(cpus):.3f}-{max(cpus):.3f})",
            flush=True,
        )
    return found


def compare_case(name: str, ours: tuple[str, list[str]], reference: tuple[str, list[str]],
                 target: float | None, repeat: int, checkout: str) -> dict:  # fmt: skip
    """One case: both commands interleaved, the ratios of the medians against ``target``
    (None: none)."""
    load_before = os.getloadavg()
    print(f"\n{name} (load average {load_before[0]:.2f} {load_before[1]:.2f} before)")
    commands = {ours[0]: pinned(ours[1]), reference[0]: pinned(reference[1])}
    found = interleaved(commands, repeat, checkout)
    load_after = os.getloadavg()
    ratios = {what: found[ours[0]][what] / found[reference[0]][what] for what in ("wall", "cpu")}
    for what, value in ratios.items():
        verdict = "" if target is None else "met" if value <= target else "NOT met"
        verdict = f"   (target <= {target}: {verdict})" if target is not None else ""
        print(f"  -> divaeval / reference, {what:<4} {value:6.2f}{verdict}")
    print(f"  load average {load_after[0]:.2f} {load_after[1]:.2f} after")
    return {
        "results": found,
        "ratios": ratios,
        "target": target,
        "load_before": load_before,
        "load_after": load_after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (median)")
    parser.add_argument(
        "--checkout",
        default=os.path.dirname(HERE),
        help="the checkout whose divaeval runs (default: this one), e.g. to time another commit",
    )
    args = parser.parse_args()
    runs, qrels = inputs()
    divaeval = [sys.executable, "-m", "divaeval"]
    matrix = os.path.join(OUT, "alpha-ndcg20.tsv")
    subprocess.run(
        [*divaeval, *runs, qrels, "-m", "alpha-nDCG@20", "-q", "-f", "tsv", "-o", matrix],
        check=True,
        cwd=OUT,
        env={**os.environ, "PYTHONPATH": args.checkout},
    )
    measures = [arg for m in MEASURES for arg in ("-m", m)]
    report = {
        "tukey-hsd": compare_case(
            "compare --test tukey-hsd -B 5000, 30 runs x 50 topics, against plain numpy",
            ("divaeval compare --test tukey-hsd -B 5000",
             [*divaeval, "compare", *runs, qrels, "-m", "alpha-nDCG@20", "--test", "tukey-hsd",
              "-B", "5000", "-f", "tsv", "-j", "1"]),
            ("plain numpy Tukey HSD, B = 5000",
             [sys.executable, os.path.join(HERE, "plain_tukey.py"), matrix, "5000", "42"]),
            1.5,
            args.repeat,
            args.checkout,
        ),
        "discriminative-power": compare_case(
            "meta discriminative-power, 10 measures, against evaluating them",
            ("divaeval meta discriminative-power",
             [*divaeval, "meta", "discriminative-power", *runs, qrels, *measures, "-f", "tsv",
              "-j", "1"]),
            ("divaeval -q (the same 10 measures)",
             [*divaeval, *runs, qrels, *measures, "-q", "-f", "tsv", "-j", "1"]),
            1.5,
            args.repeat,
            args.checkout,
        ),
        "discriminative-power-tukey": compare_case(
            "meta discriminative-power --test tukey-hsd, 10 measures, against evaluating them",
            ("divaeval meta discriminative-power --test tukey-hsd",
             [*divaeval, "meta", "discriminative-power", *runs, qrels, *measures, "--test",
              "tukey-hsd", "-f", "tsv", "-j", "1"]),
            ("divaeval -q (the same 10 measures)",
             [*divaeval, *runs, qrels, *measures, "-q", "-f", "tsv", "-j", "1"]),
            None,
            args.repeat,
            args.checkout,
        ),
    }  # fmt: skip
    with open(os.path.join(HERE, "out", "analyses.json"), "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main()
