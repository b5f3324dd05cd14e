"""Randomised Tukey HSD (Carterette, "Multiple testing in statistical analysis of
systems-based information retrieval experiments", TOIS 2012; Sakai WWW 2012, Figure 4) and its
performance-Δ estimate (Figure 5).

Null hypothesis: no run differs from any other. For b = 1…B every topic's values are permuted
independently across the runs and range_b = max − min of the permuted run means;
ASL(a, b') = #{b : range_b > |x̄_a − x̄_b'|} / B (Figure 4's strict ">", or ">=" as an option):
family-wise p-values, never corrected again. Δ_α: the smallest |x̄_a − x̄_b'| among the pairs
with ASL < α (Figure 5), ``None`` when no pair is significant. With two runs it is the sampled
randomisation test.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.parallel import InProcess, Workers
from divaeval.scores import equal_within_tolerance
from divaeval.stats.significance import resampling
from divaeval.stats.significance.resampling import (
    DEFAULT_SEED,
    RESAMPLE_BLOCK,
    TukeyWork,
    check_B,
    check_seed,
    spans,
    tukey_block,
)
from divaeval.stats.significance.results import TukeyHSDResult
from divaeval.stats.significance.tables import (
    check_alpha,
    check_score_table,
    pair_differences,
    run_pair_indices,
    tolerance,
)

DEFAULT_TUKEY_B = 5000  # Sakai 2012, chosen from the ASL curves of Figure 7(b)


HSD_COMPARISONS = (">", ">=")


def _check_comparison(comparison: str) -> str:
    if comparison not in HSD_COMPARISONS:
        raise UsageError(f"Tukey HSD comparison must be '>' or '>=', got {comparison!r}")
    return comparison


def _hsd_counts(sorted_ranges: np.ndarray, differences: np.ndarray, comparison: str) -> np.ndarray:
    """#{b : range_b > d} (or ≥) for every |x̄_a − x̄_b| = d, within :func:`~.tables.tolerance`."""
    n_samples = sorted_ranges.shape[0]
    tau = tolerance(differences)
    if comparison == ">":
        below = np.searchsorted(sorted_ranges, differences + tau, side="right")
    else:
        below = np.searchsorted(sorted_ranges, differences - tau, side="left")
    return (n_samples - below).astype(np.int64)


def _hsd_result(
    table: np.ndarray,
    ranges: np.ndarray,
    alpha: float,
    comparison: str,
    B: int | None,
    seed: int | None,
) -> TukeyHSDResult:
    """Fig. 4's counts and Fig. 5's Δ from the permutation ``ranges``. A pair whose means are
    equal within the tolerance (:data:`~divaeval.scores.EQUAL_TOLERANCE`) counts every
    resample (each range is at least 0): p = 1, also where every range is 0 (two identical
    runs, where ">" would count none)."""
    means = table.mean(axis=1)
    pairs = run_pair_indices(table.shape[0])
    differences = means[pairs[:, 0]] - means[pairs[:, 1]]
    _, scale = pair_differences(table, pairs)
    _, equal_means = equal_within_tolerance(differences[:, None], scale)
    sorted_ranges = np.sort(ranges)
    counts = _hsd_counts(sorted_ranges, np.abs(differences), comparison)
    counts = np.where(equal_means, ranges.shape[0], counts)
    p_values = counts / float(ranges.shape[0])
    significant = p_values < alpha
    required_delta = float(np.abs(differences[significant]).min()) if significant.any() else None
    return TukeyHSDResult(
        "tukey-hsd",
        pairs,
        differences,
        p_values,
        B,
        seed,
        alpha,
        required_delta=required_delta,
        counts=counts,
        comparison=comparison,
        means=means,
        ranges=sorted_ranges,
    )


def randomized_tukey_hsd(
    scores: np.ndarray,
    B: int = DEFAULT_TUKEY_B,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    comparison: str = ">",
    *,
    workers: Workers | None = None,
) -> TukeyHSDResult:
    """Randomised Tukey HSD (Carterette 2012; Sakai 2012 Fig. 4) over all runs at once.

    For b = 1…B every topic's R values are permuted independently across the runs, and
    range_b = max − min of the permuted run means; ASL(a, b') = #{b : range_b > |x̄_a − x̄_b'|}/B
    (``comparison=">"`` as in Fig. 4, or ``">="``). The p-values are family-wise and must not be
    corrected again. ``required_delta`` is Fig. 5's Δ_α: the smallest |x̄_a − x̄_b'| among pairs
    with ASL < α, ``None`` if no pair is significant.

    The resamples are drawn in blocks of :data:`RESAMPLE_BLOCK`, block k from
    ``PCG64(seed).jumped(k)`` (block 0 is ``default_rng(seed)``), the blocks on ``workers``.
    Each topic's values are sorted before they are permuted (a uniform permutation of sorted
    values is one of the values in any order), so the ranges do not depend on the order of the
    runs: swapping two runs gives every pair the same p-value.
    """
    (result,) = randomized_tukey_hsd_tables([scores], B, seed, alpha, comparison, workers=workers)
    return result


def randomized_tukey_hsd_tables(
    tables: Sequence[np.ndarray],
    B: int = DEFAULT_TUKEY_B,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    comparison: str = ">",
    *,
    workers: Workers | None = None,
) -> list[TukeyHSDResult]:
    """:func:`randomized_tukey_hsd` of several score tables of one shape (the measures of
    one evaluation), each the same bits as alone: the permutations of each block are drawn
    once and serve every table (:func:`~.resampling.tukey_block`), so ten measures cost about
    a third of ten tests."""
    checked = [check_score_table(scores, min_runs=2, min_topics=1) for scores in tables]
    if len({table.shape for table in checked}) > 1:
        raise DataError("Tukey HSD of several tables needs tables of one shape")
    B = check_B(B)
    seed = check_seed(seed)
    alpha = check_alpha(alpha)
    comparison = _check_comparison(comparison)
    n_runs, n_topics = checked[0].shape
    work = TukeyWork(
        by_topic=np.ascontiguousarray(np.stack([np.sort(table.T, axis=1) for table in checked])),
        seed=seed,
        chunk=max(1, resampling.PERMUTED_ELEMENTS // (n_runs * n_topics)),
    )
    blocks = [(k, stop - start) for k, (start, stop) in enumerate(spans(B, RESAMPLE_BLOCK))]
    ranges = np.concatenate(list((workers or InProcess()).map(tukey_block, blocks, work)), axis=1)
    return [
        _hsd_result(table, table_ranges, alpha, comparison, B, seed)
        for table, table_ranges in zip(checked, ranges, strict=True)
    ]


def exact_tukey_hsd(
    scores: np.ndarray, alpha: float = 0.05, comparison: str = ">"
) -> TukeyHSDResult:
    """Fig. 4 over all (R!)ᵀ row-permutation combinations, each once (an oracle for tiny tables)."""
    table = check_score_table(scores, min_runs=2, min_topics=1)
    alpha = check_alpha(alpha)
    comparison = _check_comparison(comparison)
    n_runs, n_topics = table.shape
    permutations = np.array(list(itertools.permutations(range(n_runs))))
    n_combinations = len(permutations) ** n_topics
    if n_combinations > 2_000_000:
        raise UsageError(f"exact Tukey HSD would enumerate {n_combinations} combinations")
    combinations = np.indices((len(permutations),) * n_topics).reshape(n_topics, -1)
    totals = np.zeros((n_combinations, n_runs))
    for topic in range(n_topics):
        permuted_rows = table[:, topic][permutations]  # [R!, R]
        totals += permuted_rows[combinations[topic]]
    run_means = totals / n_topics
    ranges = run_means.max(axis=1) - run_means.min(axis=1)
    return _hsd_result(table, ranges, alpha, comparison, None, None)
