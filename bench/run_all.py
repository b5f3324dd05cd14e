"""``make bench``: divaeval timed side by side with the reference tools on the workloads of
issues 13 and 27, and the older cases.

**What is measured, and how.** Each command is run whole (start-up, parse, evaluate, print;
stdout discarded; divaeval's modules compiled to bytecode first, as in an installed package),
``--repeat`` times (``make bench REPEAT=N``; default 5), each run from a small launcher process
(``measure.py``). Printed for each command, and written to ``bench/out/results.json``:

- wall time: median and range (min-max) of the runs;
- CPU time, user + system, of the command and every process it waited for
  (``RUSAGE_CHILDREN``; a shell loop's calls, divaeval's workers): median and range;
- peak memory: the median of the runs' maximum resident set of the command's process (of the
  largest one, for a shell loop or for workers);
- the ``-j`` divaeval ran with ("auto" when it was given none);
- the 1-minute load average (``os.getloadavg``) before the first and after the last run of
  the workload: what else the machine was doing.

**One core.** By default (``--cores 0``) every timed command, divaeval's and the reference
tool's alike, runs pinned to CPU 0 (``os.sched_setaffinity`` in the launcher, before it starts
the command; the command and its children inherit it), and the comparisons with a goal run
divaeval with ``-j 1``; the default ``--jobs auto`` (a worker per usable core: one, when
pinned) is kept beside them, labelled, without a goal. ``--cores 0,1`` pins to those CPUs,
``--cores all`` does not pin (the CPUs used are printed at the top). Commands compared with
each other run interleaved (A B A B ...), so that a busy machine slows them alike. Ratios are
divaeval / reference, of the medians: wall, CPU (both against the workload's goal) and peak
memory; below 1 divaeval is faster (or smaller). CPU time is the figure to judge on a shared
machine: wall time also counts the time the core spent on other processes. divaeval runs as
``sys.executable -m divaeval`` and the start-up peer as ``sys.executable -c "import numpy"``,
never through a shell shim (a version manager's ``python`` shim adds its own start-up, ~70 ms
of CPU, to every call). Generated inputs stay in ``bench/out`` (gitignored) and are reused by
the next run.

**The goals of issue 27** (one core, ``-j 1``; printed beside each ratio):

- 1M-line run ``-m ndeval -f ndeval -j 1`` against ``ndeval -traditional``: time ≤ 0.5,
  peak memory ≤ 1.5 (part ``ndeval-1m``);
- 1M-line ad hoc run ``-m ndcg_cut.10 -m map -m recip_rank -j 1`` against trec_eval: time
  ≤ 0.5, peak memory ≤ 1.5 (part ``adhoc``);
- the 9 real TREC 2012 runs ``-m ndeval -q -j 1`` in one call against nine
  ``ndeval -traditional`` calls in a shell loop: time ≤ 0.4 (part ``2012``);
- start-up, the main job on sample_data (``divaeval sample_data/run.txt
  sample_data/qrels.txt``) against ``python -c "import numpy"`` from the same interpreter:
  time ≤ 1.3 (part ``startup``; at least 9 runs each);
- the statistics (``compare --test tukey-hsd``, ``meta discriminative-power``): part
  ``analyses``, ``bench_analyses.py``, which pins itself to CPU 0 and reports its own CPU times.

**Reference tools.** None ships here, and nothing built from them is committed; the comparisons
they take part in are skipped, with a note, unless the environment names them:

- ``NDEVAL=/path/to/ndeval``: ndeval 4.5, the TREC Web Track's diversity evaluator, a single
  C file: ``src/eval/ndeval.c`` in the GitHub repository trec-web/trec-web-2014, or
  ``src/ndeval.c`` in seanmacavaney/pyndeval (the same file as in the pyndeval 0.0.8 sdist),
  compiled with ``cc -O2 -o ndeval ndeval.c -lm``.
- ``TREC_EVAL=/path/to/trec_eval``: trec_eval 10, built from its public repository
  https://github.com/usnistgov/trec_eval (a clone of the default branch, then ``make`` in it; no
  configure step); ``trec_eval -v`` must print version 10.x.

**Workloads and targets** (issues 13 and 27; ratio = divaeval / reference, the goal is a
maximum). The comparisons with a goal run divaeval with ``--jobs 1``; each also shows the
default, ``--jobs auto`` (worker processes, one per usable core, once the runs hold 4 MiB of
text), labelled, without a goal.

1. 9 real TREC 2012 Web Track runs (``tests/fixtures/trec2012``, unzipped), ndeval's 21
   columns: one ``divaeval RUN*9 QRELS -m ndeval -f ndeval`` against nine
   ``ndeval -traditional QRELS RUN`` calls in a shell loop (timed: ``-m ndeval -q -j 1``, the
   same values in trec_eval's layout). Goal: time ≤ 0.4. The values are checked to be the C
   tool's first (the same CSV rows of ``-f ndeval``, run names aside).
2. A 1M-line run + 1M-line qrels (``generate.py``: 10,000 topics × 100 documents, 5 subtopics ×
   20 judged documents): ``divaeval RUN QRELS -m ndeval -f ndeval`` against
   ``ndeval -traditional QRELS RUN``, whose output it reproduces byte for byte (checked first).
   Goals: time ≤ 0.5, peak memory ≤ 1.5 (``--jobs 1`` against C ndeval; the default's summed
   PSS over its processes is printed beside it).
3. A 1M-line ad hoc run (``generate_adhoc``: 10,000 topics × 100 documents, MS MARCO-like
   integer docnos, tied scores) + 1M-line ad hoc qrels (``topic 0 docno grade``):
   ``divaeval RUN QRELS -m ndcg_cut.10 -m map -m recip_rank`` against
   ``trec_eval -m ndcg_cut.10 -m map -m recip_rank QRELS RUN`` (the same measure names; nDCG@10,
   AP, RR). Every per-topic value and mean is first checked against trec_eval's (printed to 4
   decimals, so the largest difference must be at most 5e-5 and the 4-decimal strings equal).
   Goals (``--jobs 1``): time ≤ 0.5, peak memory ≤ 1.5.
4. The parse floor: reading the 1M-line run of (2) with ``divaeval.io.read_run`` in one
   process against ``pyarrow.csv.read_csv`` (delimiter ' ', binary columns, float64 score;
   pyarrow's default threads), and the same as whole processes (Python start-up and imports
   included). Target: time ≤ 2.0.
5. Scaling: ``divaeval RUN QRELS -m alpha-nDCG@20 -m ERR-IA@20 --jobs 1`` (and ``--jobs 2`` when
   divaeval has it) on runs of 1M and 10M lines over 100,000 topics (10 and 100 documents a
   topic) against one qrels of 3M lines (100,000 topics × 3 subtopics × 10 judged documents),
   so that only the run grows. Printed: the exponent of a least-squares fit of log time
   against log lines (1 = linear; the fixed cost of the qrels pulls it below 1), and the
   seconds per added million lines between consecutive sizes (equal when time is linear). The
   100M-line case (1,000 documents a topic, MS MARCO's shape; a 3.2 GB file written in bounded
   memory, about two minutes the first time) runs only with ``DIVAEVAL_BENCH_LARGE=1`` and
   only when divaeval evaluates in bounded memory (its ``evaluate --help`` offers
   ``--chunk-size``; without streaming it would need about 25 GB). Target (issue 13): peak
   memory under 1 GiB at 100M lines, time linear in lines. ``--scale-repeat`` (default 3)
   runs per size. With ``--jobs`` the peak memory of the largest process is printed and, when
   psutil is installed, the sampled peak of all its processes' summed PSS.

Older cases kept: pyndeval on the gzipped 2012 runs, risk mode (``--baseline``, at most 1.2 ×
the time without), the long-token inputs, ``divaeval --help``, and ``bench_stats.py``,
``bench_analyses.py`` (compare and discriminative power as whole processes, with CPU time)
and ``bench_memory.py``. ``--quick`` leaves out the 1M-line and larger cases;
``--only PART,...`` runs some parts only (``--help`` lists them), e.g.
``python bench/run_all.py --only scale``.

Usage: the table of issue 27 (one core, the goals above, the analyses), about 4 minutes with
9 runs each::

    NDEVAL=/path/to/ndeval TREC_EVAL=/path/to/trec_eval make bench REPEAT=9 \\
        BENCH_ARGS="--only 2012,ndeval-1m,adhoc,startup,analyses"

Everything: ``NDEVAL=/tmp/ndeval-build/ndeval TREC_EVAL=/tmp/trec_eval-src/trec_eval make bench``
(about 15 minutes on 2 cores); ``DIVAEVAL_BENCH_LARGE=1 make bench`` adds the 100M-line case
(about 15 minutes more: 3 runs of 2-3 minutes, with and without ``--jobs 2``), and
``DIVAEVAL_BENCH_LARGE=1 make bench BENCH_ARGS="--only scale --scale-repeat 1"`` runs only it.
The scaling part's ``--jobs 2`` and every ``--jobs auto`` case show what a second core buys only
with ``--cores all`` (or ``--cores 0,1``): on one core they run one worker.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import itertools
import math
import os
import shutil
import subprocess
import sys

import numpy as np

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
ADHOC_MEASURES = ["-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank"]
TREC_EVAL_NAMES = {"ndcg_cut_10": "nDCG@10", "map": "AP", "recip_rank": "RR"}
SCALE_MEASURES = ["-m", "alpha-nDCG@20", "-m", "ERR-IA@20"]
SCALE_TOPICS = 100_000

sys.path.insert(0, HERE)
from measure import Report, pinnable  # noqa: E402


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
    target = os.path.join(OUT, os.path.basename(path).removesuffix(".gz"))
    if not os.path.exists(target):
        with gzip.open(path, "rb") as source, open(target, "wb") as sink:
            shutil.copyfileobj(source, sink)
    return target


def divaeval_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "divaeval", *args]


def output(command: list[str]) -> str:
    """The stdout of ``command`` (which must succeed)."""
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{proc.stderr}")
    return proc.stdout


def compile_bytecode(report: Report) -> None:
    """Compile the divaeval package that ``python -m divaeval`` imports to bytecode, as
    ``pip install`` does: with ``PYTHONDONTWRITEBYTECODE`` set (as on the machine these numbers
    were first taken on) every call would otherwise compile its modules again (0.2-0.3 s)."""
    script = (
        "import compileall, os, divaeval\n"
        "folder = os.path.dirname(divaeval.__file__)\n"
        "compileall.compile_dir(folder, quiet=1)\n"
        "print(folder)\n"
    )
    folder = output([sys.executable, "-c", script]).strip()
    report.results["divaeval package"] = {"folder": folder}
    print(f"divaeval from {folder} (compiled to bytecode first, as an installed package is)")


def reference_tool(variable: str, report: Report) -> str | None:
    """The executable named by the environment variable, or None (with a note)."""
    path = os.environ.get(variable)
    if not path:
        report.note(f"{variable} is not set: the comparisons with it are skipped")
        return None
    if not os.access(path, os.X_OK):
        raise SystemExit(f"{variable}={path} is not an executable")
    return path


def ndeval_rows(text: str) -> list[list[str]]:
    """The value rows of ndeval CSV output (one run or several), without the run names and
    the header lines."""
    return [line.split(",")[1:] for line in text.splitlines() if not line.startswith("runid,")]


# -- 1. and the older 2012 cases ---------------------------------------------------------------


def bench_2012(report: Report, ndeval: str | None) -> None:
    report.heading("9 real TREC 2012 runs, ndeval's 21 columns")
    report.compare(
        "2012 vs pyndeval",
        ("2012: 9 runs -m ndeval -q (divaeval, gzipped files)",
         divaeval_cmd(*RUNS_2012, QRELS_2012, "-m", "ndeval", "-q")),
        ("2012: 9 runs, ndeval's 21 columns (pyndeval 0.0.8)",
         [sys.executable, os.path.join(HERE, "pyndeval_reference.py"), QRELS_2012, *RUNS_2012]),
        time_target=None, label="pyndeval",
    )  # fmt: skip
    if ndeval is None:
        return
    plain = [_gunzip(path) for path in (*RUNS_2012, QRELS_2012)]
    runs, qrels = plain[:-1], plain[-1]
    ours = divaeval_cmd(*runs, qrels, "-m", "ndeval", "-f", "ndeval")
    theirs = "".join(output([ndeval, "-traditional", qrels, run]) for run in runs)
    if ndeval_rows(output(ours)) != ndeval_rows(theirs):
        report.note("2012: divaeval's ndeval rows differ from C ndeval's; not timed")
        return
    print("  check: the 9 runs' 460 ndeval rows equal C ndeval's (run names aside)")
    loop = " ; ".join(f"{ndeval} -traditional {qrels} {run} > /dev/null" for run in runs)
    # the same values per topic and means, in trec_eval's layout (the command)
    timed = divaeval_cmd(*runs, qrels, "-m", "ndeval", "-q")
    report.compare(
        "2012 vs C ndeval",
        ("2012: 9 runs, one divaeval -m ndeval -q -j 1", [*timed, "-j", "1"]),
        ("2012: 9 runs, 9 calls of C ndeval -traditional (a shell loop)", ["sh", "-c", loop]),
        time_target=0.4, label="C ndeval",
    )  # fmt: skip
    # the default, --jobs auto (one worker per usable core: one on one core)
    report.time("2012: 9 runs, one divaeval -m ndeval -q (--jobs auto)", timed)


def bench_risk(report: Report, repeat: int) -> None:
    """Issue 11: risk-sensitive mode (ndeval's -baseline) must cost at most 1.2x the same
    evaluation. Baseline ql-cata as a separate file (a copy: a 10th run to read, judge and
    score) and as one of the 9 runs (its scores are reused)."""
    report.heading("risk mode (--baseline) on the 9 2012 runs")
    baseline_copy = os.path.join(OUT, "baseline-ql-cata.txt.gz")
    shutil.copy(os.path.join(FIX, "ql-cata.txt.gz"), baseline_copy)
    plain = divaeval_cmd(*RUNS_2012, QRELS_2012, "-m", "ndeval", "-q")
    without = "2012: 9 runs -m ndeval, no baseline"
    cases = {
        without: plain,
        "2012: 9 runs -m ndeval --baseline (a separate file)": [
            *plain, "--baseline", baseline_copy, "--risk-alpha", "5"],
        "2012: 9 runs -m ndeval --baseline (one of the runs)": [
            *plain, "--baseline", RUNS_2012[1], "--risk-alpha", "5"],
    }  # fmt: skip
    found = report.measure(cases, max(3, repeat))
    for key, command in cases.items():
        report.add(key, found[key], show_memory=False, command=command)
        if key != without:
            report.ratio(
                f"ratio {key} / without",
                found[key].median_seconds / found[without].median_seconds,
                1.2,
                "risk mode time / plain time",
            )
    report.time(
        "2012: divaeval risk, 9 runs, -m ndeval (URisk..GeoRisk)",
        divaeval_cmd(
            "risk", *RUNS_2012, QRELS_2012, "-m", "ndeval", "--baseline", RUNS_2012[1], "-f", "csv"
        ),
    )
    optional = {
        "2012: 9 runs -m ntcir@10,20": ["ntcir@10,20"],
        "2012: 9 runs, every metric @20": ["all@20"],
    }
    for key, measures in optional.items():
        if all(registered(m) for m in measures):
            flags = [x for m in measures for x in ("-m", m)]
            report.time(key, divaeval_cmd(*RUNS_2012, QRELS_2012, *flags, "-q"))


# -- 2. the 1M-line ndeval workload ------------------------------------------------------------


@functools.cache
def one_million() -> tuple[str, str]:
    """(qrels, run) of ``generate.py --topics 10000 --depth 100``: 1M lines each."""
    from generate import generate

    return generate(OUT, 10_000, 100, 5, 20, 42)


def tree_memory_measurable() -> bool:
    """Whether the summed PSS of a command's processes can be sampled (needs psutil)."""
    try:
        import psutil  # noqa: F401
    except ImportError:
        return False
    return True


def compare_one_core_and_auto(
    report: Report,
    name: str,
    label: str,
    ours: tuple[str, list[str]],
    reference: tuple[str, list[str]],
    reference_beside_auto: str | None = None,
) -> None:
    """divaeval's command (``ours``: its row name and command) beside the reference twice: in
    one process (``-j 1``, the issue's goals: time ≤ 0.5, peak memory ≤ 1.5) and with the
    default ``--jobs auto`` (a worker per usable core: no goal)."""
    (our_name, our_command), (reference_name, reference_command) = ours, reference
    report.compare(
        name,
        (f"{our_name} -j 1", [*our_command, "-j", "1"]),
        (reference_name, reference_command),
        time_target=0.5, memory_target=1.5, label=label,
    )  # fmt: skip
    report.compare(
        f"{name} (--jobs auto)",
        (f"{our_name} (--jobs auto)", our_command),
        (reference_beside_auto or f"{reference_name} (beside --jobs auto)", reference_command),
        time_target=None, label=label,
    )  # fmt: skip


def bench_1m_ndeval(report: Report, ndeval: str | None) -> None:
    report.heading("1M-line run + 1M-line qrels (generate.py --topics 10000 --depth 100)")
    qrels, run = one_million()
    report.time(
        "1M lines: alpha-nDCG@20 ERR-IA@20 strec@20",
        divaeval_cmd(run, qrels, "-m", "alpha-ndcg@20", "-m", "err-ia@20", "-m", "strec@20"),
    )
    ours = divaeval_cmd(run, qrels, "-m", "ndeval", "-f", "ndeval")
    if ndeval is not None:
        if output(ours) != output([ndeval, "-traditional", qrels, run]):
            report.note("1M lines: divaeval -m ndeval -f ndeval differs from C ndeval; not timed")
        else:
            print("  check: divaeval -m ndeval -f ndeval prints C ndeval's output byte for byte")
            compare_one_core_and_auto(
                report, "1M lines vs C ndeval", "C ndeval",
                ("1M lines: divaeval -m ndeval -f ndeval", ours),
                ("1M lines: C ndeval -traditional", [ndeval, "-traditional", qrels, run]),
            )  # fmt: skip
            if tree_memory_measurable():
                report.time(
                    "1M lines: divaeval -m ndeval -f ndeval (--jobs auto, all processes)",
                    ours,
                    tree=True,
                )
    else:
        report.time("1M lines: divaeval -m ndeval -f ndeval", ours)
    extra = [m for m in ("rbu", "nDCG-IA@20", "alpha#-nDCG-IA@20") if registered(m)]
    if extra:
        flags = [x for m in extra for x in ("-m", m)]
        report.time(f"1M lines: {' '.join(extra)}", divaeval_cmd(run, qrels, *flags))
    report.time(
        "1M lines: parse and judge only (divaeval -m strec@1)",
        divaeval_cmd(run, qrels, "-m", "strec@1"),
    )


# -- 3. ad hoc against trec_eval ---------------------------------------------------------------


def trec_eval_values(text: str, names: dict[str, str] | None) -> dict[tuple[str, str], str]:
    """(measure, topic) -> printed value of trec_eval-format lines (``names`` maps trec_eval's
    measure names to divaeval's own, where a name is in it); runid and num_q lines left out."""
    values = {}
    for line in text.splitlines():
        measure_name, topic, value = line.split()[:3]
        if measure_name in ("runid", "num_q"):
            continue
        if names is not None:
            measure_name = names.get(measure_name, measure_name)
        values[measure_name, topic] = value
    return values


def check_adhoc(report: Report, trec_eval: str, run: str, qrels: str) -> bool:
    """Every per-topic value and mean of divaeval (17 decimals) against trec_eval -q's (4):
    the largest absolute difference, and whether the 4-decimal strings are all equal."""
    theirs = trec_eval_values(
        output([trec_eval, "-q", *ADHOC_MEASURES, qrels, run]), TREC_EVAL_NAMES
    )
    ours = trec_eval_values(  # divaeval prints trec_eval's names (older versions: its own)
        output(divaeval_cmd(run, qrels, *ADHOC_MEASURES, "-q", "--precision", "17")),
        TREC_EVAL_NAMES,
    )
    if ours.keys() != theirs.keys():
        missing = len(theirs.keys() - ours.keys()) + len(ours.keys() - theirs.keys())
        report.note(f"ad hoc: {missing} (measure, topic) pairs printed by one tool only")
        return False
    largest = max(abs(float(ours[key]) - float(theirs[key])) for key in ours)
    differ = sum(f"{float(ours[key]):.4f}" != theirs[key] for key in ours)
    report.results["ad hoc agreement with trec_eval"] = {
        "values": len(ours), "max_abs_difference": largest, "differing_4_decimal_strings": differ
    }  # fmt: skip
    print(
        f"  check: {len(ours):,} values (per topic and means) against trec_eval -q: largest "
        f"absolute difference {largest:.2e} (trec_eval prints 4 decimals), "
        f"{differ} differ when divaeval's are printed to 4 decimals"
    )
    if largest > 5e-5 + 1e-12 or differ:
        report.note("ad hoc: divaeval disagrees with trec_eval; not timed")
        return False
    return True


def bench_adhoc(report: Report, trec_eval: str | None) -> None:
    from generate import generate_adhoc

    report.heading("1M-line ad hoc run + 1M-line ad hoc qrels: nDCG@10, AP, RR")
    qrels, run = generate_adhoc(OUT)
    ours = divaeval_cmd(run, qrels, *ADHOC_MEASURES)
    if trec_eval is None:
        report.time("ad hoc 1M lines: divaeval -m ndcg_cut.10 -m map -m recip_rank", ours)
        return
    version = subprocess.run([trec_eval, "-v"], capture_output=True, text=True)
    stated = (version.stdout + version.stderr).strip()
    report.results["trec_eval version"] = {"version": stated}
    print(f"  {stated}")
    if "version 10." not in stated:
        report.note(f"TREC_EVAL is not trec_eval 10 ({stated!r}); the target is about 10")
    if not check_adhoc(report, trec_eval, run, qrels):
        return
    compare_one_core_and_auto(
        report, "ad hoc 1M lines vs trec_eval", "trec_eval",
        ("ad hoc 1M lines: divaeval -m ndcg_cut.10 -m map -m recip_rank", ours),
        ("ad hoc 1M lines: trec_eval -m ndcg_cut.10 -m map -m recip_rank",
         [trec_eval, *ADHOC_MEASURES, qrels, run]),
        reference_beside_auto="ad hoc 1M lines: trec_eval (beside --jobs auto)",
    )  # fmt: skip


# -- 4. the parse floor ------------------------------------------------------------------------


def bench_parse(report: Report, repeat: int) -> None:
    import json

    _, run = one_million()
    report.heading(f"parse floor: the 1M-line run of generate.py ({os.path.basename(run)})")
    script = os.path.join(HERE, "bench_parse.py")
    found = json.loads(output([sys.executable, script, run, "--repeat", str(repeat), "--json"]))
    medians = found["medians"]
    for name, seconds in medians.items():
        report.results[f"parse in-process: {name}"] = {
            "seconds": round(seconds, 3), "all_seconds": [round(s, 3) for s in found["all"][name]]
        }  # fmt: skip
        print(f"{'parse in-process: ' + name:<62} {seconds:8.3f} s", flush=True)
    ours = medians["divaeval.io.read_run"]
    report.ratio(
        "ratio parse in-process: time",
        ours / medians["pyarrow.csv.read_csv (threads)"],
        2.0,
        "read_run / pyarrow (threads), in-process",
    )
    report.ratio(
        "ratio parse in-process, 1 thread: time",
        ours / medians["pyarrow.csv.read_csv (1 thread)"],
        None,
        "read_run / pyarrow (1 thread), in-process",
    )
    # the first read of a fresh process (imports untimed), as the command line reads a run
    command = [sys.executable, script, run, "--repeat", str(repeat), "--json", "--cold"]
    found = json.loads(output(command))
    for name, seconds in found["medians"].items():
        report.results[f"parse cold: {name}"] = {
            "seconds": round(seconds, 3), "all_seconds": [round(s, 3) for s in found["all"][name]]
        }  # fmt: skip
        print(f"{'parse cold (a fresh process): ' + name:<62} {seconds:8.3f} s", flush=True)
    report.ratio(
        "ratio parse cold: time",
        found["medians"]["divaeval.io.read_run"]
        / found["medians"]["pyarrow.csv.read_csv (threads)"],
        2.0,
        "read_run / pyarrow (threads), first read of a fresh process",
    )
    report.compare(
        "parse whole process",
        ("parse whole process: python -c read_run",
         [sys.executable, script, run, "--reader", "divaeval.io.read_run"]),
        ("parse whole process: python -c pyarrow.csv.read_csv",
         [sys.executable, script, run, "--reader", "pyarrow.csv.read_csv (threads)"]),
        time_target=2.0, label="pyarrow (threads)",
    )  # fmt: skip


# -- 5. scaling --------------------------------------------------------------------------------


def streaming_options() -> tuple[bool, bool]:
    """(whether divaeval has ``--jobs``, whether it evaluates in bounded memory: reads runs in
    blocks of whole topics, ``--chunk-size``), read from ``divaeval evaluate --help``."""
    text = output(divaeval_cmd("evaluate", "--help"))
    return "--jobs" in text, "--chunk-size" in text


def bench_scale(report: Report, repeat: int) -> None:
    from generate import generate_scaled

    report.heading(
        "scaling: -m alpha-nDCG@20 -m ERR-IA@20, 100,000 topics, one 3M-line qrels "
        "(100,000 topics x 3 subtopics x 10 judged)"
    )
    jobs, streaming = streaming_options()
    sizes = [1_000_000, 10_000_000]
    if os.environ.get("DIVAEVAL_BENCH_LARGE") == "1":
        free = shutil.disk_usage(OUT).free
        if not streaming:
            report.note("scale: 100M lines skipped: this divaeval does not stream (~25 GB)")
        elif free < 8 * 2**30:
            report.note(f"scale: 100M lines skipped: {free / 2**30:.1f} GiB free under {OUT}")
        else:
            sizes.append(100_000_000)
    else:
        report.note("scale: 100M lines only with DIVAEVAL_BENCH_LARGE=1")
    if not jobs:
        report.note("scale: divaeval has no --jobs yet: one process only")
    tree_memory = tree_memory_measurable()
    if not tree_memory:
        report.note("scale: without psutil the memory of --jobs is its largest process's only")
    # in one process (the default, --jobs auto, would start workers for these runs)
    variants = {"": ["--jobs", "1"], ", --jobs 2": ["--jobs", "2"]} if jobs else {"": []}
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for lines in sizes:
        qrels, run = generate_scaled(OUT, lines, topics=SCALE_TOPICS)
        commands = {
            f"scale {lines // 1_000_000}M lines{name}": divaeval_cmd(
                run, qrels, *SCALE_MEASURES, *flags
            )
            for name, flags in variants.items()
        }
        found = report.measure(commands, repeat, tree=jobs and tree_memory)
        for name, (key, command) in zip(variants, commands.items(), strict=True):
            report.add(key, found[key], command=command, lines=lines)
            seconds[name].append(found[key].median_seconds)
            print(f"  {lines / found[key].median_seconds / 1e6:.2f} M lines/s")
    for name, values in seconds.items():
        slope = float(np.polyfit([math.log(n) for n in sizes], np.log(values), 1)[0])
        report.ratio(
            f"scale exponent{name}",
            slope,
            None,
            f"exponent of time ~ lines^e, {len(sizes)} sizes{name}",
        )
        # the fixed qrels cost hides linearity in the fit; the cost of each added line does not
        points = list(zip(sizes, values, strict=True))
        for (small, t_small), (large, t_large) in itertools.pairwise(points):
            span = f"{small // 1_000_000}M to {large // 1_000_000}M lines{name}"
            marginal = (t_large - t_small) / ((large - small) / 1e6)
            exponent = math.log(t_large / t_small) / math.log(large / small)
            report.results[f"scale {span}"] = {
                "exponent": round(exponent, 3),
                "seconds_per_million_added_lines": round(marginal, 3),
            }
            print(f"  {span}: {marginal:.3f} s per added million lines, exponent {exponent:.2f}")


# -- the rest ----------------------------------------------------------------------------------


def bench_startup(report: Report) -> None:
    """The main job on sample_data against importing numpy, both from this interpreter
    (``sys.executable``: a version manager's shim would add its own start-up to every call);
    at least 9 runs each, as a start-up is short and its spread wide."""
    report.heading("start-up: the main job on sample_data against `python -c 'import numpy'`")
    sample = os.path.join(ROOT, "sample_data")
    report.compare(
        "start-up vs import numpy",
        ("start-up: divaeval sample_data/run.txt sample_data/qrels.txt",
         divaeval_cmd(os.path.join(sample, "run.txt"), os.path.join(sample, "qrels.txt"))),
        ("start-up: python -c 'import numpy' (the same interpreter)",
         [sys.executable, "-c", "import numpy"]),
        time_target=1.3, label="import numpy", repeat=max(report.repeat, 9),
    )  # fmt: skip


def bench_small(report: Report) -> None:
    from generate import generate_long_token

    report.heading("long tokens, and divaeval --help")
    for size in (100_000, 1_000_000, 10_000_000):  # one long docno in a 1,000-line run + qrels
        qrels, run = generate_long_token(OUT, size)
        report.time(
            f"1,000 lines, one {size // 1000:,} KB docno (run + qrels)",
            divaeval_cmd(run, qrels, "-m", "strec@5", "--order", "rank"),
        )
    report.time("startup: divaeval --help", divaeval_cmd("--help"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (median)")
    parser.add_argument("--scale-repeat", type=int, default=3, help="runs per scaling size")
    parser.add_argument("--quick", action="store_true", help="skip the 1M-line and larger runs")
    parser.add_argument(
        "--cores",
        default="0",
        metavar="CPUS",
        help="the CPUs every timed command runs on, comma-separated (default 0: one core, for "
        "divaeval and the reference tools alike); 'all': not pinned",
    )
    parser.add_argument(
        "--only",
        metavar="PARTS",
        help=f"run only these parts, comma-separated, of: {', '.join(PARTS)}",
    )
    args = parser.parse_args()
    if args.repeat < 1 or args.scale_repeat < 1:
        parser.error("--repeat and --scale-repeat must be at least 1")
    chosen = PARTS if args.only is None else args.only.split(",")
    if unknown := set(chosen) - set(PARTS):
        parser.error(f"unknown parts: {', '.join(sorted(unknown))} (known: {', '.join(PARTS)})")
    if args.quick:
        chosen = [part for part in chosen if part not in LARGE_PARTS]
    cpus = chosen_cpus(parser, args.cores)
    os.makedirs(OUT, exist_ok=True)
    report = Report(OUT, args.repeat, cpus)
    print(f"make bench: medians of {args.repeat} runs; ratio = divaeval / reference")
    if cpus is None:
        print(f"CPUs: not pinned ({os.cpu_count()} on this machine)")
    else:
        print(f"CPUs: {','.join(map(str, cpus))} (os.sched_setaffinity), both tools alike")
    print(
        "each command: wall and CPU (user + sys) medians (min-max), peak RSS, the -j it ran "
        "with, the 1-minute load average at the start and end of its workload"
    )
    compile_bytecode(report)
    ndeval = reference_tool("NDEVAL", report)
    trec_eval = reference_tool("TREC_EVAL", report)
    parts = {
        "2012": lambda: bench_2012(report, ndeval),
        "risk": lambda: bench_risk(report, args.repeat),
        "ndeval-1m": lambda: bench_1m_ndeval(report, ndeval),
        "adhoc": lambda: bench_adhoc(report, trec_eval),
        "parse": lambda: bench_parse(report, args.repeat),
        "startup": lambda: bench_startup(report),
        "small": lambda: bench_small(report),
        "scale": lambda: bench_scale(report, args.scale_repeat),
        "stats": lambda: bench_script(report, "bench_stats.py"),
        "analyses": lambda: bench_script(report, "bench_analyses.py", "--repeat", str(args.repeat)),
        "memory": lambda: bench_script(report, "bench_memory.py", "--repeat", str(args.repeat)),
    }
    for part in PARTS:
        if part in chosen:
            parts[part]()
            report.write()  # after each part, so that an interrupted run keeps what it found


def chosen_cpus(parser: argparse.ArgumentParser, text: str) -> list[int] | None:
    """The CPUs of ``--cores`` (None: 'all', or a platform that cannot pin)."""
    if text == "all":
        return None
    try:
        cpus = sorted({int(part) for part in text.split(",")})
    except ValueError:
        parser.error(f"--cores: {text!r} is not 'all' or CPU numbers, comma-separated")
    if not pinnable():
        print("note: this platform cannot pin processes to CPUs (os.sched_setaffinity): not pinned")
        return None
    if unusable := set(cpus) - os.sched_getaffinity(0):
        parser.error(f"--cores: CPU {min(unusable)} is not available here")
    return cpus


def bench_script(report: Report, script: str, *args: str) -> None:
    """One of the other bench scripts, which print their own table."""
    report.heading(f"bench/{script}:")
    subprocess.run([sys.executable, os.path.join(HERE, script), *args], check=True)


PARTS = [
    "2012", "risk", "ndeval-1m", "adhoc", "startup", "parse", "small", "scale", "stats",
    "analyses", "memory",
]  # fmt: skip
LARGE_PARTS = {"ndeval-1m", "adhoc", "parse", "scale", "memory"}


if __name__ == "__main__":
    main()
