"""Benchmark of the generated-case analyses (issue 12): the axiomatic checker and the tie
probabilities.

Run as ``python bench/bench_meta.py``. Targets: Amigó et al.'s Table 1 (20 metrics, ten
constraints, default search) well under a minute on 2 cores; every registered metric in under
a minute; the exact Tables 3/4 in about a second.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from divaeval.errors import UsageError  # noqa: E402
from divaeval.meta.axioms import PAPER_TABLE1, check_axioms  # noqa: E402
from divaeval.meta.ties import analytic_ties, table2_measures, worst_case_comparison  # noqa: E402
from divaeval.metrics import all_specs, parse_measure  # noqa: E402


def timed(label: str, work: Callable[[], object]) -> None:
    start = time.perf_counter()
    work()
    print(f"{label:<58} {time.perf_counter() - start:8.2f} s")


def every_measure() -> list[str]:
    """Every registered metric with its defaults (TSE-linear and metric-LR with n = 1000; those
    that need another parameter, such as INST's max_rel, are left out as -m all does)."""
    out = []
    for spec in all_specs():
        text = spec.name + ("(n=1000)" if spec.param("n") is not None else "")
        text += "@10" if spec.cutoff == "required" else ""
        try:
            parse_measure(text)
        except UsageError:
            continue
        out.append(text)
    return out


def main() -> None:
    print(f"python {platform.python_version()}, {os.cpu_count()} cores")
    timed(
        "axioms: Table 1 (20 metrics x 10 constraints, seed 42)",
        lambda: check_axioms([text for text, _ in PAPER_TABLE1.values()]),
    )
    timed("axioms: every registered metric, default cutoffs", lambda: check_axioms(every_measure()))
    timed(
        "ties: Tables 3 and 4, exact",
        lambda: (
            [analytic_ties(n, 10) for n in (10**3, 10**4, 10**5, 10**6)]
            + [analytic_ties(10**6, m) for m in (1, 5, 10, 25, 50)]
        ),
    )
    timed(
        "ties: Table 2 at n = 10^4, 10,000 pairs, 5 measures",
        lambda: worst_case_comparison(table2_measures(), 10**4, samples=10_000),
    )


if __name__ == "__main__":
    main()
