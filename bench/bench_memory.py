"""Timings of the Python API on in-memory inputs against the same data in files.

``python bench/bench_memory.py [--topics 10000] [--depth 100]``: the seeded synthetic data of
``generate.py`` (10,000 topics x 100 documents = a 1M-line run and a 1M-line qrels), scored on
alpha-nDCG@20 from the files, from pandas DataFrames (read before the clock starts), from
pytrec_eval-style dicts and from ir_measures-style records; the median of ``--repeat`` runs. The
numbers must be identical (checked); the difference is what turning the data into the readers'
objects costs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import namedtuple

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from generate import generate  # noqa: E402

import divaeval  # noqa: E402

ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])  # ir_measures' fields


def median_time(repeat: int, call) -> tuple[float, object]:
    """The median wall seconds of ``repeat`` calls, and the last call's result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = generate(folder, args.topics, args.depth, 5, 20, 42)
        run = pd.read_csv(run_path, sep=" ", header=None, dtype={0: str, 2: str, 5: str})
        run.columns = ["topic", "Q0", "docno", "rank", "score", "tag"]
        qrels = pd.read_csv(qrels_path, sep=" ", header=None, dtype={0: str, 1: str, 2: str})
        qrels.columns = ["topic", "subtopic", "docno", "grade"]
        as_dict: dict = {}
        for topic, docno, score in run[["topic", "docno", "score"]].itertuples(index=False):
            as_dict.setdefault(topic, {})[docno] = score
        records = [ScoredDoc(*row) for row in run[["topic", "docno", "score"]].itertuples(
            index=False, name=None)]  # fmt: skip
        inputs = {
            "files": (run_path, qrels_path),
            "DataFrames": ({"gen": run}, qrels),
            "dicts": ({"gen": as_dict}, qrels),
            "records": ({"gen": records}, qrels),
        }
        reference = None
        print(f"{len(run):,} run lines, {len(qrels):,} qrels lines; alpha-nDCG@20, median of "
              f"{args.repeat}")  # fmt: skip
        for name, (runs, judgments) in inputs.items():
            seconds, table = median_time(
                args.repeat, lambda r=runs, j=judgments: divaeval.evaluate(r, j, "alpha-nDCG@20")
            )
            values = table["value"].to_numpy()  # type: ignore[index]
            if reference is None:
                reference = values
            assert (values == reference).all(), name
            print(f"{name:>12}: {seconds:6.2f} s")


if __name__ == "__main__":
    main()
