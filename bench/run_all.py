"""``make bench``: end-to-end timings of divaeval against the reference implementations.

Every timing is wall-clock for a whole command (parse + evaluate + print), best of
``--repeat`` runs, on this machine; peak memory is the child's max RSS. The reference for the
ndeval family is pyndeval (ndeval 4.5's C code) reading the same files in Python, and, when
``NDEVAL=/path/to/ndeval`` names a compiled ndeval 4.5 binary, the C tool itself. Results go
to stdout and ``bench/out/results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIX = os.path.join(ROOT, "tests", "fixtures", "trec2012")
RUNS_2012 = [
    os.path.join(FIX, f"{name}.txt.gz")
    for name in (
        "ql-cata-filtered",
        "ql-cata",
        "ql-catb-filtered",
        "ql-catb",
        "rm-cata-filtered",
        "rm-cata",
        "rm-catb-filtered",
        "rm-catb",
        "dssa-wt2012",
    )
]
QRELS_2012 = os.path.join(FIX, "qrels-for-ndeval.txt.gz")
OUT = os.path.join(HERE, "out")


_MEASURE_CHILD = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "t = time.perf_counter() - t\n"
    "sys.stderr.buffer.write(p.stderr)\n"
    "print(t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)\n"
)


def timed(command: list[str], repeat: int) -> tuple[float, float]:
    """(best wall seconds, peak RSS MiB) of a command run ``repeat`` times; each run is
    measured in its own launcher process, so the peak memory is that command's own."""
    best = float("inf")
    peak = 0.0
    for _ in range(repeat):
        proc = subprocess.run(
            [sys.executable, "-c", _MEASURE_CHILD, *command], capture_output=True, text=True
        )
        seconds, rss_kib, code = proc.stdout.split()
        if int(code) != 0:
            raise SystemExit(f"failed: {' '.join(command)}\n{proc.stderr}")
        best = min(best, float(seconds))
        peak = max(peak, int(rss_kib) / 1024)
    return best, peak


def registered(name: str) -> bool:
    from divaeval.errors import UsageError
    from divaeval.metrics import parse_measure

    try:
        parse_measure(name)
        return True
    except UsageError:
        return False


def _gunzip(path: str) -> str:
    """An unzipped copy of ``path`` under bench/out (for tools that cannot read gzip)."""
    import gzip
    import shutil

    target = os.path.join(OUT, os.path.basename(path).removesuffix(".gz"))
    if not os.path.exists(target):
        with gzip.open(path, "rb") as source, open(target, "wb") as sink:
            shutil.copyfileobj(source, sink)
    return target


def divaeval_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "divaeval", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the 1M-line run")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    results: dict[str, dict] = {}

    def record(key: str, command: list[str], repeat: int = args.repeat, **extra) -> None:
        seconds, mib = timed(command, repeat)
        results[key] = {"seconds": round(seconds, 3), "peak_mib": round(mib, 1), **extra}
        print(f"{key:<58} {seconds:8.3f} s {mib:8.1f} MiB", flush=True)

    # Issue 2: the 9 real 2012 runs, ndeval's 21 columns, vs pyndeval on the same files.
    record(
        "2012: 9 runs -m ndeval (divaeval)",
        divaeval_cmd(*RUNS_2012, QRELS_2012, "-m", "ndeval", "-q"),
    )
    record(
        "2012: 9 runs, ndeval's 21 columns (pyndeval 0.0.8)",
        [sys.executable, os.path.join(HERE, "pyndeval_reference.py"), QRELS_2012, *RUNS_2012],
    )
    ratio = (
        results["2012: 9 runs, ndeval's 21 columns (pyndeval 0.0.8)"]["seconds"]
        / results["2012: 9 runs -m ndeval (divaeval)"]["seconds"]
    )
    results["ratio pyndeval/divaeval (ndeval family)"] = {"ratio": round(ratio, 2)}
    print(f"{'  -> divaeval is faster by a factor of':<58} {ratio:8.2f}")

    # Issue 11: risk-sensitive mode (ndeval's -baseline) must cost at most 1.2x the same
    # evaluation. Baseline ql-cata as a separate file (a copy: a 10th run to read, judge and
    # score) and as one of the 9 runs (its scores are reused). The three commands run in turn,
    # so that a busy machine slows them alike.
    import shutil

    baseline_copy = os.path.join(OUT, "baseline-ql-cata.txt.gz")
    shutil.copy(os.path.join(FIX, "ql-cata.txt.gz"), baseline_copy)
    plain = divaeval_cmd(*RUNS_2012, QRELS_2012, "-m", "ndeval", "-q")
    cases = {
        "2012: 9 runs -m ndeval, no baseline": plain,
        "2012: 9 runs -m ndeval --baseline (a separate file)": [
            *plain,
            "--baseline",
            baseline_copy,
            "--risk-alpha",
            "5",
        ],
        "2012: 9 runs -m ndeval --baseline (one of the runs)": [
            *plain,
            "--baseline",
            RUNS_2012[1],
            "--risk-alpha",
            "5",
        ],
    }
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(max(3, args.repeat)):
        for key, command in cases.items():
            best[key] = min(best[key], timed(command, 1)[0])
    for key, seconds in best.items():
        results[key] = {"seconds": round(seconds, 3)}
        print(f"{key:<58} {seconds:8.3f} s", flush=True)
        if key != "2012: 9 runs -m ndeval, no baseline":
            ratio = seconds / best["2012: 9 runs -m ndeval, no baseline"]
            results[f"ratio {key} / without"] = {"ratio": round(ratio, 2)}
            print(f"{'  -> risk mode time / plain time (limit 1.2)':<58} {ratio:8.2f}")
    record(
        "2012: divaeval risk, 9 runs, -m ndeval (URisk..GeoRisk)",
        divaeval_cmd(
            "risk", *RUNS_2012, QRELS_2012, "-m", "ndeval", "--baseline", RUNS_2012[1], "-f", "csv"
        ),
    )

    ndeval = os.environ.get("NDEVAL")
    if ndeval:
        # The C tool itself (a binary you built; none ships here): one process per run, as
        # ndeval takes one run at a time, on unzipped copies (ndeval cannot read gzip).
        plain = [_gunzip(path) for path in (*RUNS_2012, QRELS_2012)]
        loop = " ; ".join(
            f"{ndeval} -traditional {plain[-1]} {run} > /dev/null" for run in plain[:-1]
        )
        record("2012: 9 runs, C ndeval 4.5 -traditional", ["sh", "-c", loop])
        record(
            "2012: 9 runs -m ndeval (divaeval, plain files)",
            divaeval_cmd(*plain, "-m", "ndeval", "-q"),
        )
        ratio = (
            results["2012: 9 runs, C ndeval 4.5 -traditional"]["seconds"]
            / results["2012: 9 runs -m ndeval (divaeval, plain files)"]["seconds"]
        )
        results["ratio C ndeval/divaeval, 2012"] = {"ratio": round(ratio, 2)}
        print(f"{'  -> C ndeval time / divaeval time':<58} {ratio:8.2f}")

    optional = {
        "2012: 9 runs -m ntcir@10,20": ["ntcir@10,20"],
        "2012: 9 runs, every metric @20": ["all@20"],
    }
    for key, measures in optional.items():
        if all(registered(m) for m in measures):
            flags = [x for m in measures for x in ("-m", m)]
            record(key, divaeval_cmd(*RUNS_2012, QRELS_2012, *flags, "-q"))

    if not args.quick:
        from generate import generate

        qrels, run = generate(OUT, 10_000, 100, 5, 20, 42)
        record(
            "1M lines: alpha-nDCG@20 ERR-IA@20 strec@20",
            divaeval_cmd(run, qrels, "-m", "alpha-ndcg@20", "-m", "err-ia@20", "-m", "strec@20"),
        )
        record("1M lines: -m ndeval (21 columns)", divaeval_cmd(run, qrels, "-m", "ndeval"))
        if ndeval:
            record("1M lines: C ndeval 4.5 -traditional", [ndeval, "-traditional", qrels, run])
            ratio = (
                results["1M lines: C ndeval 4.5 -traditional"]["seconds"]
                / results["1M lines: -m ndeval (21 columns)"]["seconds"]
            )
            results["ratio C ndeval/divaeval, 1M lines"] = {"ratio": round(ratio, 2)}
            print(f"{'  -> C ndeval time / divaeval time':<58} {ratio:8.2f}")
        extra = [m for m in ("rbu", "nDCG-IA@20", "alpha#-nDCG-IA@20") if registered(m)]
        if extra:
            flags = [x for m in extra for x in ("-m", m)]
            record(f"1M lines: {' '.join(extra)}", divaeval_cmd(run, qrels, *flags))
        record(
            "1M lines: parse only (divaeval -m strec@1)", divaeval_cmd(run, qrels, "-m", "strec@1")
        )
    from generate import generate_long_token

    for size in (100_000, 1_000_000, 10_000_000):  # one long docno in a 1,000-line run + qrels
        qrels, run = generate_long_token(OUT, size)
        record(
            f"1,000 lines, one {size // 1000:,} KB docno (run + qrels)",
            divaeval_cmd(run, qrels, "-m", "strec@5", "--order", "rank"),
        )
    record("startup: divaeval --help", divaeval_cmd("--help"), repeat=5)

    stats = os.path.join(HERE, "bench_stats.py")
    if os.path.exists(stats):
        print("\nresampling statistics (bench/bench_stats.py):", flush=True)
        subprocess.run([sys.executable, stats], check=True)
    if not args.quick:
        print("\nthe Python API on in-memory data (bench/bench_memory.py):", flush=True)
        subprocess.run([sys.executable, os.path.join(HERE, "bench_memory.py")], check=True)
    with open(os.path.join(OUT, "results.json"), "w") as handle:
        json.dump(results, handle, indent=1)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
