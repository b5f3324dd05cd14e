"""The two-sided paired randomisation (sign-flip) test: under the null hypothesis each
per-topic difference z_t keeps or flips its sign with probability ½; the statistic is |Σ z_t|.

Exact when N ≤ 20 (all 2ᴺ sign vectors, the observed one counted: p = count/2ᴺ); sampled
otherwise (B sign vectors, p = (count + 1)/(B + 1), never 0); Smucker, Allan & Carterette,
CIKM 2007. Zero differences are kept (their sign is irrelevant: they double every
configuration, which leaves p unchanged).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.errors import UsageError
from divaeval.parallel import InProcess, Workers
from divaeval.scores import equal_within_tolerance
from divaeval.stats.significance import resampling
from divaeval.stats.significance.resampling import (
    DEFAULT_SEED,
    check_B,
    check_seed,
    sign_vector_chunks,
    spans,
)
from divaeval.stats.significance.results import PairwiseTests, RandomizationTestResult
from divaeval.stats.significance.tables import (
    check_alpha,
    check_pair,
    check_score_table,
    pair_differences,
    run_pair_indices,
    tolerance,
)

DEFAULT_RANDOMIZATION_B = 10_000  # ranx uses 1000; Smucker et al. 2007 used 100,000


EXACT_RANDOMIZATION_MAX_TOPICS = 20  # 2**20 sign vectors


def _subset_sums(z: np.ndarray) -> np.ndarray:
    """Σ s_t z_t for all 2ⁿ sign vectors of each row of z (doubling), ``[n_rows, 2ⁿ]``."""
    sums = np.zeros((z.shape[0], 1))
    for topic in range(z.shape[1]):
        column = z[:, topic : topic + 1]
        sums = np.concatenate([sums + column, sums - column], axis=1)
    return sums


def _exact_sign_flip_counts(z: np.ndarray, workers: Workers | None = None) -> np.ndarray:
    """#{s ∈ {±1}ᴺ : |Σ s_t z_t| ≥ |Σ z_t|} per row of z.

    Meet in the middle: the sign vectors are split into the two halves of the topics; for each
    first-half sum a, the second-half sums b with a + b ≥ thr or a + b ≤ −thr are counted in
    the sorted b (thr = |Σz| − τ). Rows are counted in chunks (each row on its own), on
    ``workers`` when given.
    """
    n_pairs, n_topics = z.shape
    chunk = max(1, resampling.CHUNK_ELEMENTS // 2 ** (n_topics - n_topics // 2))
    pieces: Iterator[np.ndarray] = (workers or InProcess()).map(
        _exact_sign_flip_chunk, spans(n_pairs, chunk), z
    )
    return np.concatenate([np.zeros(0, np.int64), *pieces])


def _exact_sign_flip_chunk(z: np.ndarray, span: tuple[int, int]) -> np.ndarray:
    """:func:`_exact_sign_flip_counts` of the rows ``span`` of z (one task)."""
    z = z[span[0] : span[1]]
    n_pairs, n_topics = z.shape
    observed = np.abs(z.sum(axis=1))
    threshold = observed - tolerance(observed)
    half = n_topics // 2
    first_sums = _subset_sums(z[:, :half])
    second_sums = np.sort(_subset_sums(z[:, half:]), axis=1)
    n_second = second_sums.shape[1]
    counts = np.empty(n_pairs, dtype=np.int64)
    for k in range(n_pairs):
        if threshold[k] <= 0:  # observed sum 0: every sign vector counts
            counts[k] = first_sums.shape[1] * n_second
            continue
        upper = n_second - np.searchsorted(second_sums[k], threshold[k] - first_sums[k], "left")
        lower = np.searchsorted(second_sums[k], -threshold[k] - first_sums[k], "right")
        # a + b ≥ thr and a + b ≤ −thr exclude each other (thr > 0), but where |a| dwarfs thr,
        # thr − a and −thr − a round to one number: a b equal to it is counted once
        counts[k] = int(upper.sum() + np.minimum(lower, n_second - upper).sum())
    return counts


@dataclass(frozen=True)
class _SignFlipWork:
    """What every chunk of sampled sign vectors needs (sent once to each worker)."""

    z: np.ndarray  # [pairs, N]
    threshold: np.ndarray  # [pairs]: |Σz| − τ


def _sign_flip_chunk(work: _SignFlipWork, bits: np.ndarray) -> np.ndarray:
    """Per pair, how many of the sign vectors ``bits`` reach the observed |Σz| (one task)."""
    signs = 2.0 * bits - 1.0
    sums = signs @ work.z.T  # [size, n_pairs]
    return np.count_nonzero(np.abs(sums) >= work.threshold[None, :], axis=0)


def _sampled_sign_flip_counts(
    z: np.ndarray, B: int, seed: int, workers: Workers | None = None
) -> np.ndarray:
    n_pairs, n_topics = z.shape
    observed = np.abs(z.sum(axis=1))
    work = _SignFlipWork(z, observed - tolerance(observed))
    chunk = max(1, resampling.CHUNK_ELEMENTS // max(n_topics, n_pairs))
    counts = np.zeros(n_pairs, dtype=np.int64)
    chunks = sign_vector_chunks(n_topics, B, seed, chunk)
    for part in (workers or InProcess()).map(_sign_flip_chunk, chunks, work):
        counts += part
    return counts


def _resolve_exact(exact: bool | None, n_topics: int) -> bool:
    if exact is None:
        return n_topics <= EXACT_RANDOMIZATION_MAX_TOPICS
    if exact and n_topics > 25:
        raise UsageError(
            f"exact randomisation test needs 2^{n_topics} sign vectors; use exact=False"
        )
    return bool(exact)


def pairwise_randomization_tests(
    scores: np.ndarray,
    B: int = DEFAULT_RANDOMIZATION_B,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    exact: bool | None = None,
    *,
    workers: Workers | None = None,
) -> PairwiseTests:
    """Two-sided paired sign-flip randomisation test for every run pair.

    ``exact=None`` enumerates all 2ᴺ sign vectors when N ≤ 20 (p = count/2ᴺ, the observed vector
    included) and otherwise samples B sign vectors (p = (1 + count)/(B + 1)); the same sign
    vectors serve every pair. ``B`` and ``seed`` are recorded as ``None`` when exact. Chunks of
    pairs (exact) or of sign vectors (sampled) run on ``workers``. A pair whose differences are
    all 0 within the tolerance (:data:`~divaeval.scores.EQUAL_TOLERANCE`) counts every sign
    vector: p = 1.
    """
    table = check_score_table(scores, min_runs=2, min_topics=1)
    alpha = check_alpha(alpha)
    pairs = run_pair_indices(table.shape[0])
    z, scale = pair_differences(table, pairs)
    _, identical = equal_within_tolerance(z, scale)
    n_topics = table.shape[1]
    if _resolve_exact(exact, n_topics):
        counts = np.where(identical, 2**n_topics, _exact_sign_flip_counts(z, workers))
        p_values = counts / float(2**n_topics)
        return PairwiseTests(
            "randomization",
            pairs,
            z.sum(axis=1),
            p_values,
            None,
            None,
            alpha,
            counts=counts,
            exact=True,
        )
    B = check_B(B)
    seed = check_seed(seed)
    counts = np.where(identical, B, _sampled_sign_flip_counts(z, B, seed, workers))
    p_values = (1.0 + counts) / (B + 1.0)
    return PairwiseTests(
        "randomization", pairs, z.sum(axis=1), p_values, B, seed, alpha, counts=counts
    )


def paired_randomization_test(
    x: Sequence[float],
    y: Sequence[float],
    B: int = DEFAULT_RANDOMIZATION_B,
    seed: int = DEFAULT_SEED,
    exact: bool | None = None,
) -> RandomizationTestResult:
    """Two-sided paired randomisation test of x vs y; exact for N ≤ 20 by default."""
    table = check_pair(x, y, min_topics=1)
    result = pairwise_randomization_tests(table, B=B, seed=seed, exact=exact)
    assert result.counts is not None
    return RandomizationTestResult(
        statistic=float(result.statistics[0]),
        p_value=float(result.p_values[0]),
        count=int(result.counts[0]),
        B=result.B,
        seed=result.seed,
        exact=result.exact,
    )


def exact_paired_randomization_test(x: Sequence[float], y: Sequence[float]) -> float:
    """Exact sign-flip p-value: #{s : |Σ s_t z_t| ≥ |Σ z_t|} / 2ᴺ over all 2ᴺ sign vectors."""
    return paired_randomization_test(x, y, exact=True).p_value
