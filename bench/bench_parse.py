"""The parse floor: divaeval's run reader against a pyarrow CSV read of the same file, in one
process (imports done before the clock starts).

``python bench/bench_parse.py RUN [--repeat 5] [--json]``: median wall seconds of
``divaeval.io.read_run(RUN)`` and of ``pyarrow.csv.read_csv`` with the delimiter ' ', every
column binary but the score (float64), with pyarrow's default threads and with one thread;
interleaved, so that a busy machine slows them alike. The issue's target is divaeval ≤ 2 ×
pyarrow (default threads).

Two settings, both reported:

- *warm* (the default): the readers take turns in one process, so each read after the first
  finds memory its allocator kept (pyarrow's mimalloc keeps its pages; glibc, which numpy and
  divaeval's arrays use, gives large blocks back): a program reading many runs;
- *cold* (``--cold``): every read in a fresh process, its imports done before the clock
  starts: the first read of a process, as the command line reads a run.

The whole-process comparison (start-up and imports included) is in ``run_all.py``, which runs
this file's ``--reader`` mode as a command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_COLUMNS = ["topic", "q0", "docno", "rank", "score", "tag"]


def pyarrow_reader(threads: bool) -> Callable[[str], int]:
    """A pyarrow CSV read of a TREC run: ' '-delimited, no header, binary columns, float64
    score; returns the number of rows."""
    import pyarrow as pa
    import pyarrow.csv as csv

    types = {name: pa.binary() for name in RUN_COLUMNS} | {"score": pa.float64()}

    def read(path: str) -> int:
        table = csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=RUN_COLUMNS, use_threads=threads),
            parse_options=csv.ParseOptions(delimiter=" "),
            convert_options=csv.ConvertOptions(column_types=types),
        )
        return table.num_rows

    return read


def divaeval_reader() -> Callable[[str], int]:
    """``divaeval.io.read_run``; returns the number of rows."""
    from divaeval.io import read_run

    def read(path: str) -> int:
        return len(read_run(path))

    return read


READERS = {
    "divaeval.io.read_run": divaeval_reader,
    "pyarrow.csv.read_csv (threads)": lambda: pyarrow_reader(True),
    "pyarrow.csv.read_csv (1 thread)": lambda: pyarrow_reader(False),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    parser.add_argument("--reader", choices=list(READERS), help="read RUN once with this, only")
    parser.add_argument(
        "--cold", action="store_true", help="each read in a fresh process (imports untimed)"
    )
    parser.add_argument("--timed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reader:  # one read in a fresh process: the whole-process comparison
        read = READERS[args.reader]()
        if args.timed:  # (--cold: everything imported, then one read on the clock)
            import pyarrow.csv  # noqa: F401

            started = time.perf_counter()
            read(args.run)
            print(time.perf_counter() - started)
        else:
            read(args.run)
        return
    if args.cold:
        cold(args)
        return
    readers = {name: make() for name, make in READERS.items()}
    times: dict[str, list[float]] = {name: [] for name in readers}
    rows = {name: read(args.run) for name, read in readers.items()}  # warm the page cache
    if len(set(rows.values())) != 1:
        raise SystemExit(f"the readers disagree on the number of rows: {rows}")
    for _ in range(args.repeat):
        for name, read in readers.items():
            started = time.perf_counter()
            read(args.run)
            times[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) for name, values in times.items()}
    if args.json:
        print(json.dumps({"rows": next(iter(rows.values())), "medians": medians, "all": times}))
        return
    for name, seconds in medians.items():
        print(f"{name:<40} {seconds:8.3f} s")


def cold(args) -> None:
    """Medians of reads each in a fresh process (imports untimed), interleaved."""
    import subprocess

    times: dict[str, list[float]] = {name: [] for name in READERS}
    for _ in range(args.repeat):
        for name in READERS:
            command = [sys.executable, __file__, args.run, "--reader", name, "--timed"]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            times[name].append(float(done.stdout))
    medians = {name: statistics.median(values) for name, values in times.items()}
    if args.json:
        print(json.dumps({"medians": medians, "all": times}))
        return
    for name, seconds in medians.items():
        print(f"{name:<40} {seconds:8.3f} s")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(HERE))
    main()
