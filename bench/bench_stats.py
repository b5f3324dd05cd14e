"""Benchmark of the resampling core (issue 5): 30 runs x 50 topics, seeded.

Run as ``python bench/bench_stats.py``. Targets: randomised Tukey HSD B = 5000 for one metric
≤ 2 s; paired bootstrap B = 1000 for all 435 pairs ≤ 2 s; discriminative power for 10 metrics
with both tests ≤ 30 s.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from divaeval.meta.discriminative_power import discriminative_power  # noqa: E402
from divaeval.stats.compare import compare_runs  # noqa: E402
from divaeval.stats.significance import (  # noqa: E402
    pairwise_bootstrap_tests,
    randomized_tukey_hsd,
)

N_RUNS, N_TOPICS, N_METRICS, SEED = 30, 50, 10, 12345


def score_tables() -> dict[str, np.ndarray]:
    """10 correlated metrics: run quality + topic difficulty + metric-specific noise, in [0, 1]."""
    rng = np.random.default_rng(SEED)
    quality = rng.uniform(0.2, 0.5, size=(N_RUNS, 1))
    difficulty = rng.normal(0.0, 0.15, size=(1, N_TOPICS))
    base = quality + difficulty + rng.normal(0.0, 0.1, size=(N_RUNS, N_TOPICS))
    return {
        f"metric{k}": np.clip(base + rng.normal(0.0, 0.02 * (k + 1), base.shape), 0.0, 1.0)
        for k in range(N_METRICS)
    }


def timed(function: Callable[[], object], repeats: int) -> tuple[float, float]:
    """(first call, median of ``repeats``) wall-clock seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times[0], statistics.median(times)


def main() -> None:
    tables = score_tables()
    runs = [f"run{i:02d}" for i in range(N_RUNS)]
    one = tables["metric0"]
    cases = [
        ("randomised Tukey HSD, B=5000, 1 metric", 2.0, 3,
         lambda: randomized_tukey_hsd(one, B=5000, seed=42)),
        ("paired bootstrap, B=1000, 435 pairs", 2.0, 3,
         lambda: pairwise_bootstrap_tests(one, B=1000, seed=42)),
        ("discriminative power, 10 metrics, bootstrap + HSD", 30.0, 1,
         lambda: [discriminative_power(tables, runs, test=t, seed=42)
                  for t in ("bootstrap", "tukey-hsd")]),
        ("compare (bootstrap B=1000 + CI B=10000), 435 pairs", None, 3,
         lambda: compare_runs(one, runs, test="bootstrap", seed=42)),
    ]  # fmt: skip
    print(f"divaeval stats benchmark: {N_RUNS} runs x {N_TOPICS} topics, seed {SEED}")
    print(f"python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print(f"{'case':<54} {'first':>8} {'median':>8} {'target':>8}")
    for name, target, repeats, function in cases:
        first, median = timed(function, repeats)
        target_text = f"{target:.0f} s" if target is not None else "-"
        print(f"{name:<54} {first:>7.3f}s {median:>7.3f}s {target_text:>8}")


if __name__ == "__main__":
    main()
