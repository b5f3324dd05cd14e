"""The classical paired tests: Student's paired t-test and the sign (binomial) test.

- paired t-test: t = z̄ / (s/√N), p = 2·P(T_{N−1} ≥ |t|), Student's t distribution from scipy
  (``scipy.special.stdtr``, which ``scipy.stats.t.sf`` evaluates); equal to scipy's
  ``ttest_rel`` except for differences without variance (:mod:`divaeval.stats.significance`);
- sign test: p = min(1, 2·P(Bin(n', ½) ≤ min(W, L))), n' = W + L, ties dropped (Diaz, Ekstrand &
  Mitra, TORS 2025, for lexicographic preferences); p = 1 when n' = 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.scores import equal_within_tolerance
from divaeval.stats.significance.results import PairwiseTests, SignTestResult, TTestResult
from divaeval.stats.significance.tables import (
    check_alpha,
    check_pair,
    check_score_table,
    pair_differences,
    run_pair_indices,
)


def t_statistics(z: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, z̄, degenerate) per row of z: t = z̄ / (s/√N); rows whose differences are equal
    within the tolerance (:func:`~divaeval.scores.equal_within_tolerance` at ``scale``), or
    whose spread underflows to 0 (scores near 1e-300), are degenerate, t = 0 where they are 0
    and NaN otherwise (no variance: t is not defined)."""
    n_topics = z.shape[1]
    mean = z.mean(axis=1)
    constant, zero = equal_within_tolerance(z, scale)
    sd = z.std(axis=1, ddof=1)
    degenerate = constant | (sd == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / math.sqrt(n_topics))
    t = np.where(degenerate, np.where(zero, 0.0, np.nan), t)
    return t, mean, degenerate


def pairwise_t_tests(scores: np.ndarray, alpha: float = 0.05) -> PairwiseTests:
    """Paired two-sided t-test for every run pair: p = 2·P(T_{N−1} ≥ |t|).

    Equals scipy's ``ttest_rel`` except when the differences of a pair are equal within the
    tolerance (:data:`~divaeval.scores.EQUAL_TOLERANCE`, s = 0): no variance, no evidence, so
    p = 1 (t = 0 when they are 0, else NaN) where scipy gives NaN (R's ``t.test`` refuses
    "essentially constant" data).
    """
    # lazily (the resampling tests need no scipy): scipy's Student t CDF, what
    # scipy.stats.t.sf evaluates (bit for bit), without the 1-2 s import of scipy.stats
    from scipy.special import stdtr

    table = check_score_table(scores, min_runs=2, min_topics=2)
    alpha = check_alpha(alpha)
    pairs = run_pair_indices(table.shape[0])
    z, scale = pair_differences(table, pairs)
    t, _, degenerate = t_statistics(z, scale)
    two_sided = 2.0 * stdtr(table.shape[1] - 1, -np.abs(t))
    p_values = np.where(degenerate, 1.0, np.minimum(1.0, two_sided))
    return PairwiseTests("ttest", pairs, t, p_values, None, None, alpha)


def paired_t_test(x: Sequence[float], y: Sequence[float]) -> TTestResult:
    """Paired two-sided t-test of x − y with N − 1 degrees of freedom."""
    table = check_pair(x, y, min_topics=2)
    t, mean, degenerate = t_statistics(*pair_differences(table, run_pair_indices(2)))
    result = pairwise_t_tests(table)
    return TTestResult(
        statistic=float(t[0]),
        p_value=float(result.p_values[0]),
        df=table.shape[1] - 1,
        mean_difference=float(mean[0]),
        degenerate=bool(degenerate[0]),
    )


def sign_test(wins: int, losses: int, ties: int = 0) -> SignTestResult:
    """Two-sided sign test: p = min(1, 2·Σ_{k ≤ min(W, L)} C(n', k)/2^{n'}), n' = W + L ."""
    for label, value in (("wins", wins), ("losses", losses), ("ties", ties)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise UsageError(f"sign test: {label} must be a non-negative integer, got {value!r}")
    wins, losses, ties = int(wins), int(losses), int(ties)
    n = wins + losses
    if n == 0:
        return SignTestResult(wins, losses, ties, 1.0)
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1))
    # Exact integer arithmetic; int / int is correctly rounded even for huge n.
    p_value = min(1.0, (2 * tail) / (2**n))
    return SignTestResult(wins, losses, ties, p_value)


def sign_test_preferences(preferences: Sequence[float] | np.ndarray) -> SignTestResult:
    """Sign test of per-topic preferences (+ = run a preferred, − = run b, 0 = tie)."""
    values = np.asarray(preferences, dtype=np.float64)
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise DataError("sign test: preferences must be a 1-D array of finite numbers")
    return sign_test(
        int(np.count_nonzero(values > 0)),
        int(np.count_nonzero(values < 0)),
        int(np.count_nonzero(values == 0)),
    )
