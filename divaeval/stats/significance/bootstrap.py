"""Sakai's studentised, shifted paired bootstrap test (Sakai, "Evaluation with informational
and navigational intents", WWW 2012, Figure 2; Sakai SIGIR 2006) and its performance-Δ estimate
(Figure 3).

For one pair: z = the per-topic differences, t(z) = z̄ / (s/√N); w = z − z̄ (the null
hypothesis); for b = 1…B, w*ᵇ = N values of w drawn with replacement and t(w*ᵇ) likewise;
ASL = #{b : |t(w*ᵇ)| ≥ |t(z)|} / B (Sakai's count/B: it can be 0). Δ_α of a pair: the |w̄*ᵇ| of
the sample with the ⌈αB⌉-th largest |t(w*ᵇ)|, ties by sample index ascending; the table's Δ_α is
the largest over the pairs. A resample whose values are all equal has t* = 0 when they are 0,
+inf otherwise; a pair without variance has no evidence (ASL 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.parallel import InProcess, Workers
from divaeval.scores import EQUAL_TOLERANCE, equal_within_tolerance
from divaeval.stats.significance import resampling
from divaeval.stats.significance.classical import t_statistics
from divaeval.stats.significance.resampling import (
    DEFAULT_SEED,
    all_index_vectors,
    bootstrap_indices,
    check_B,
    check_seed,
    in_slices,
    resample_counts,
    spans,
)
from divaeval.stats.significance.results import BootstrapTestResult, PairwiseTests
from divaeval.stats.significance.tables import (
    check_alpha,
    check_pair,
    check_score_table,
    pair_differences,
    run_pair_indices,
    tolerance,
)

DEFAULT_BOOTSTRAP_B = 1000  # Sakai 2012, "Following previous work ... B = 1,000"


def _delta_rank(alpha: float, n_samples: int) -> int:
    """⌈α·B⌉, guarded against binary rounding (0.05·1000 must give 50)."""
    return max(1, min(n_samples, math.ceil(round(alpha * n_samples, 9))))


def _select_in_order(values: np.ndarray, rank: int) -> np.ndarray:
    """Per row, the column of the ``rank``-th largest value, ties by column ascending: the
    ``rank - 1``-th entry of a stable descending argsort, found by partition in O(B)."""
    kth_largest = -np.partition(-values, rank - 1, axis=1)[:, rank - 1 : rank]
    above = np.count_nonzero(values > kth_largest, axis=1)
    tied_seen = np.cumsum(values == kth_largest, axis=1)
    return np.argmax(tied_seen == (rank - above)[:, None], axis=1)


@dataclass(frozen=True)
class _BootstrapWork:
    """What every chunk of run pairs of the bootstrap test needs (sent once to each worker)."""

    w: np.ndarray  # [pairs, N]: the differences shifted to the null hypothesis
    indices: np.ndarray  # [B, N] index vectors
    counts_per_topic: np.ndarray  # [N, B]: how often resample b draws topic t
    threshold: np.ndarray  # [pairs]: |t(z)| − τ
    degenerate: np.ndarray  # [pairs]: all differences of the pair equal within the tolerance
    scale: np.ndarray  # [pairs]: the largest |score| of the pair's runs (the tolerance's scale)
    rank: int  # ⌈αB⌉ of Fig. 3


def _bootstrap_from_indices(
    z: np.ndarray,
    scale: np.ndarray,
    indices: np.ndarray,
    alpha: float,
    workers: Workers | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fig. 2 and 3 for every row of z with the given index vectors.

    Returns (t(z), count, per-pair Δ, degenerate) per row. With c_bt = how often resample b
    draws topic t (:func:`resample_counts`), the resampled mean is w̄*_b = Σ_t c_bt·w_t / N and
    the variance (Σ_t c_bt·w_t² − N·w̄*_b²)/(N − 1): two matrix products for all pairs and
    resamples. This one-pass variance has a relative error of about ε·(1 + t*²/(N − 1)), a few
    ulps wherever |t*| is near a threshold; it is clamped at 0, where |t*| is inf (0 if w̄* = 0).
    A resample whose drawn values are all equal within the tolerance (t* = 0 for the value
    0, +inf otherwise; :func:`~divaeval.scores.equal_within_tolerance` at the pair's ``scale``)
    has a computed Σ c·w² − N·w̄*² within 8·N·ε·Σ c·w² + N·(tolerance)² of 0; only those
    candidates are checked value by value. A pair whose differences are equal within the
    tolerance has no variance, so no evidence: ASL 1. The pairs are computed in chunks
    (:func:`_bootstrap_chunk`), on ``workers`` when given.
    """
    n_pairs = z.shape[0]
    n_samples = indices.shape[0]
    t_observed, mean, degenerate = t_statistics(z, scale)
    abs_t_observed = np.abs(t_observed)
    # Shift to the null hypothesis; equal differences give exactly w = 0 (degenerate rule).
    w = np.where(degenerate[:, None], 0.0, z - mean[:, None])
    with np.errstate(invalid="ignore"):  # |t(z)| = inf gives NaN here; handled below
        threshold = abs_t_observed - tolerance(abs_t_observed)  # |t*| ≥ |t(z)| with tolerance
    work = _BootstrapWork(
        w=w,
        indices=indices,
        counts_per_topic=resample_counts(indices).T,
        threshold=threshold,
        degenerate=degenerate,
        scale=scale,
        rank=_delta_rank(alpha, n_samples),
    )
    # about ten [chunk, B] float arrays live at once: keep each near 4 MB
    chunk = max(1, resampling.CHUNK_ELEMENTS // (8 * n_samples))
    pieces = list((workers or InProcess()).map(_bootstrap_chunk, spans(n_pairs, chunk), work))
    counts = np.concatenate([np.zeros(0, np.int64)] + [c for c, _ in pieces])
    deltas = np.concatenate([np.zeros(0)] + [d for _, d in pieces])
    # Pairs without variance: no evidence, ASL 1
    counts = np.where(degenerate, n_samples, counts)
    return t_observed, counts, deltas, degenerate


def _bootstrap_chunk(work: _BootstrapWork, span: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(count, Δ) of the pairs ``span`` of :func:`_bootstrap_from_indices` (one task)."""
    start, stop = span
    block = work.w[start:stop]  # [chunk, N]
    n_topics = block.shape[1]
    indices = work.indices
    near_zero = 8.0 * n_topics * np.finfo(np.float64).eps
    candidate_slice = max(1, resampling.CHUNK_ELEMENTS // n_topics)
    sums = block @ work.counts_per_topic  # [chunk, B]
    resampled_mean = sums / n_topics
    squares = (block * block) @ work.counts_per_topic
    spread = squares - sums * resampled_mean  # (N − 1)·variance
    with np.errstate(divide="ignore", invalid="ignore"):
        abs_t_star = np.abs(resampled_mean) / np.sqrt(spread / ((n_topics - 1) * n_topics))
    abs_t_star = np.where(spread > 0, abs_t_star, np.where(resampled_mean == 0, 0.0, np.inf))
    # All drawn values equal within the tolerance: w̄* is the first, t* = 0 where they are 0,
    # +inf otherwise. (Observed degenerate rows are w = 0 throughout: already w̄* = 0 and
    # t* = 0 there.)
    scale = work.scale[start:stop]
    limit = n_topics * (EQUAL_TOLERANCE * scale[:, None]) ** 2
    candidates = (spread <= near_zero * squares + limit) & ~work.degenerate[start:stop, None]
    for rows, samples in in_slices(*np.nonzero(candidates), size=candidate_slice):
        drawn = block[rows[:, None], indices[samples]]  # [candidates, N]
        equal, zero = equal_within_tolerance(drawn, scale[rows])
        rows, samples, value, zero = rows[equal], samples[equal], drawn[equal, 0], zero[equal]
        resampled_mean[rows, samples] = value
        abs_t_star[rows, samples] = np.where(zero, 0.0, np.inf)
    counts = np.count_nonzero(abs_t_star >= work.threshold[start:stop, None], axis=1)
    # Fig. 3: the sample with the ⌈αB⌉-th largest |t*|, ties by sample index ascending.
    chosen = _select_in_order(abs_t_star, work.rank)
    deltas = np.abs(resampled_mean[np.arange(len(block)), chosen])
    return counts.astype(np.int64), deltas


def pairwise_bootstrap_tests(
    scores: np.ndarray,
    B: int = DEFAULT_BOOTSTRAP_B,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    *,
    workers: Workers | None = None,
) -> PairwiseTests:
    """Sakai's studentised, shifted paired bootstrap test (Fig. 2) for every run pair.

    ASL = #{b : |t(w*ᵇ)| ≥ |t(z)|} / B (Sakai's count/B, not (count + 1)/(B + 1): an ASL of 0
    is possible). ``required_delta`` is Fig. 3's Δ_α: for every pair the |w̄*| of the sample
    with the ⌈αB⌉-th largest |t(w*)| (ties broken by sample index ascending), maximised over
    pairs. The same B index vectors serve every pair. Chunks of pairs run on ``workers``.
    """
    table = check_score_table(scores, min_runs=2, min_topics=2)
    B = check_B(B)
    seed = check_seed(seed)
    alpha = check_alpha(alpha)
    pairs = run_pair_indices(table.shape[0])
    z, scale = pair_differences(table, pairs)
    indices = bootstrap_indices(table.shape[1], B, seed)
    t_observed, counts, deltas, _ = _bootstrap_from_indices(z, scale, indices, alpha, workers)
    return PairwiseTests(
        "bootstrap",
        pairs,
        t_observed,
        counts / B,
        B,
        seed,
        alpha,
        required_delta=float(deltas.max()),
        pair_deltas=deltas,
        counts=counts,
    )


def _bootstrap_pair_result(
    x, y, indices_for, alpha: float, B: int | None, seed: int | None
) -> BootstrapTestResult:
    table = check_pair(x, y, min_topics=2)
    alpha = check_alpha(alpha)
    z, scale = pair_differences(table, run_pair_indices(2))
    indices = indices_for(table.shape[1])
    t_observed, counts, deltas, degenerate = _bootstrap_from_indices(z, scale, indices, alpha)
    n_samples = indices.shape[0]
    return BootstrapTestResult(
        statistic=float(t_observed[0]),
        p_value=float(counts[0] / n_samples),
        count=int(counts[0]),
        B=B,
        seed=seed,
        alpha=alpha,
        required_delta=float(deltas[0]),
        degenerate=bool(degenerate[0]),
    )


def paired_bootstrap_test(
    x: Sequence[float],
    y: Sequence[float],
    B: int = DEFAULT_BOOTSTRAP_B,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
) -> BootstrapTestResult:
    """Sakai's paired bootstrap test of x vs y (Fig. 2) and the pair's Δ of Fig. 3."""
    B = check_B(B)
    seed = check_seed(seed)
    return _bootstrap_pair_result(
        x, y, lambda n: bootstrap_indices(n, B, seed), alpha, B=B, seed=seed
    )


def exact_paired_bootstrap_test(
    x: Sequence[float], y: Sequence[float], alpha: float = 0.05
) -> BootstrapTestResult:
    """Fig. 2 with the B random index vectors replaced by all Nᴺ of them (an oracle; N ≤ 7)."""
    return _bootstrap_pair_result(x, y, all_index_vectors, alpha, B=None, seed=None)
