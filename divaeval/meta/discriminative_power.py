"""Discriminative power, Δ estimates and ASL curves (Sakai WWW 2012 §4.1, Fig. 2-5, 7-9;
Sakai SIGIR 2006).

Discriminative power of a metric with a test = #{run pairs with ASL < α} / #pairs. It is
reported with the test's Δ estimate (bootstrap: Fig. 3, max over pairs; Tukey HSD: Fig. 5, min
over significant pairs, ``None`` when there is none) and the ASL curve (the pairs' ASLs sorted
ascending). Every metric is tested with the same seed, so the metrics see the same bootstrap
index vectors / permutation stream. No correction is applied (Sakai counts raw ASL < α).

With ``workers`` (:mod:`divaeval.parallel`) the metrics are tested in parallel, one task per
metric (a single metric's test cuts its own work into pieces instead); each task is the serial
computation, so the results are the same. Randomised Tukey HSD tests every metric on one set of
permutations (:func:`~divaeval.stats.significance.tukey_hsd.randomized_tukey_hsd_tables`: the
same bits as one metric at a time, in about a third of the time), its blocks of resamples the
tasks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import UsageError
from divaeval.parallel import InProcess, Workers
from divaeval.stats.significance import (
    DEFAULT_SEED,
    DEFAULT_TUKEY_B,
    GENERATOR_NAME,
    PairwiseTests,
    check_resamples,
    check_score_table,
    check_test_name,
    pairwise_tests,
    randomized_tukey_hsd_tables,
)

if TYPE_CHECKING:
    import pandas as pd  # (lazily below: compare reads score files through divaeval.meta)


@dataclass(frozen=True)
class MetricDiscriminativePower:
    """Discriminative power of one metric with one test."""

    metric: str
    test: str
    alpha: float
    n_pairs: int
    n_significant: int
    required_delta: float | None  # Fig. 3 (bootstrap) / Fig. 5 (tukey-hsd); None otherwise
    tests: PairwiseTests

    @property
    def power(self) -> float:
        """Share of run pairs with ASL < α."""
        return self.n_significant / self.n_pairs


@dataclass(frozen=True)
class DiscriminativePower:
    """Result of :func:`discriminative_power` for several metrics and one test."""

    runs: list[str]
    test: str
    alpha: float
    B: int | None
    seed: int | None
    metrics: dict[str, MetricDiscriminativePower]
    signature: str

    def table(self) -> pd.DataFrame:
        """One row per metric: metric, test, alpha, significant, pairs, power, power_percent,
        required_delta."""
        import pandas as pd  # lazily: only the tables need pandas

        rows = [
            {
                "metric": name,
                "test": self.test,
                "alpha": self.alpha,
                "significant": item.n_significant,
                "pairs": item.n_pairs,
                "power": item.power,
                "power_percent": 100.0 * item.power,
                "required_delta": item.required_delta,
            }
            for name, item in self.metrics.items()
        ]
        return pd.DataFrame(
            rows,
            columns=[
                "metric",
                "test",
                "alpha",
                "significant",
                "pairs",
                "power",
                "power_percent",
                "required_delta",
            ],
        )

    def asl_curves(self) -> pd.DataFrame:
        """Long table of ASL curves: metric, rank (1-based), run_a, run_b, asl; per metric the
        pairs sorted by ASL ascending (ties in pair order)."""
        import pandas as pd  # lazily: only the tables need pandas

        frames = []
        for name, item in self.metrics.items():
            order = np.argsort(item.tests.p_values, kind="stable")
            pairs = item.tests.pairs[order]
            frames.append(
                pd.DataFrame(
                    {
                        "metric": name,
                        "rank": np.arange(1, len(order) + 1),
                        "run_a": [self.runs[i] for i in pairs[:, 0]],
                        "run_b": [self.runs[j] for j in pairs[:, 1]],
                        "asl": item.tests.p_values[order],
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)


def discriminative_power_signature(
    test: str, *, B: int | None, seed: int | None, alpha: float
) -> str:
    """``test=bootstrap|B=1000|seed=42|rng=PCG64|alpha=0.05`` (keys that apply only)."""
    parts = [f"test={test}"]
    if B is not None:
        parts.append(f"B={B}")
    if seed is not None:
        parts += [f"seed={seed}", f"rng={GENERATOR_NAME}"]
    parts.append(f"alpha={alpha:g}")
    return "|".join(parts)


@dataclass(frozen=True)
class _MetricTests:
    """The tables and the test settings every metric's task needs (sent once to each
    worker)."""

    tables: dict[str, np.ndarray]
    test: str
    B: int | None
    seed: int
    alpha: float
    hsd_comparison: str


def _test_metric(work: _MetricTests, metric: str) -> PairwiseTests:
    """Every run pair of one metric's table under the test (one task)."""
    return pairwise_tests(
        work.tables[metric],
        test=work.test,
        B=work.B,
        seed=work.seed,
        alpha=work.alpha,
        comparison=work.hsd_comparison,
    )


def discriminative_power(
    scores_by_metric: Mapping[str, np.ndarray],
    runs: Sequence[str],
    *,
    test: str = "bootstrap",
    B: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    hsd_comparison: str = ">",
    progress: Callable[[str, int, int], None] | None = None,
    workers: Workers | None = None,
) -> DiscriminativePower:
    """Discriminative power of every metric (share of run pairs with ASL < α) with ``test``.

    ``scores_by_metric`` maps a metric name to its ``[n_runs, n_topics]`` table (same runs in the
    same order for every metric). ``test`` is bootstrap (Sakai's, B = 1000) or tukey-hsd
    (B = 5000) as in the paper; ttest and randomization are accepted too (no Δ estimate).
    ``progress(metric, done, total)`` is called after each metric (for a CLI progress bar).
    ``workers``: see the module docstring.
    """
    test = check_test_name(test)
    if not scores_by_metric:
        raise UsageError("discriminative power needs at least one metric")
    run_names = [str(r) for r in runs]
    tables = {
        metric: check_score_table(scores, run_names, min_runs=2, min_topics=2, name=metric)
        for metric, scores in scores_by_metric.items()
    }
    workers = workers or InProcess()
    metric_tests: Iterator[PairwiseTests]
    if test == "tukey-hsd" and len(tables) > 1:  # one set of permutations for every metric
        samples = DEFAULT_TUKEY_B if B is None else check_resamples(B)
        metric_tests = iter(
            randomized_tukey_hsd_tables(
                list(tables.values()), samples, seed, alpha, hsd_comparison, workers=workers
            )
        )
    elif len(tables) == 1 or workers.size == 1:  # the test cuts its own work into pieces
        metric_tests = (
            pairwise_tests(
                table,
                test=test,
                B=B,
                seed=seed,
                alpha=alpha,
                comparison=hsd_comparison,
                workers=workers,
            )
            for table in tables.values()
        )
    else:
        work = _MetricTests(tables, test, B, seed, alpha, hsd_comparison)
        metric_tests = workers.map(_test_metric, list(tables), work)
    results: dict[str, MetricDiscriminativePower] = {}
    used_B: int | None = None
    used_seed: int | None = None
    for done, (metric, tests) in enumerate(zip(tables, metric_tests, strict=True), start=1):
        used_B, used_seed = tests.B, tests.seed
        significant = int(np.count_nonzero(tests.p_values < alpha))
        results[metric] = MetricDiscriminativePower(
            metric=metric,
            test=test,
            alpha=alpha,
            n_pairs=len(tests.pairs),
            n_significant=significant,
            required_delta=tests.required_delta,
            tests=tests,
        )
        if progress is not None:
            progress(metric, done, len(scores_by_metric))
    signature = discriminative_power_signature(test, B=used_B, seed=used_seed, alpha=alpha)
    if test == "tukey-hsd":
        signature = signature.replace("|alpha=", f"|hsd={hsd_comparison}|alpha=")
    return DiscriminativePower(run_names, test, alpha, used_B, used_seed, results, signature)
