"""Paired significance tests on score tables (meta-evaluation.md §1-§5, Sakai WWW 2012 Fig. 2-5).

Every function works on a **score table**: ``scores`` of shape ``[n_runs, n_topics]`` (rows =
runs, columns = topics in the same order for every run), or on two per-topic vectors ``x`` and
``y`` for one run pair. Run pairs are unordered and enumerated as in §1: ``(0, 1), (0, 2), …,
(1, 2), …`` (command-line order, a before b), i.e. :func:`run_pair_indices`.

Resampling conventions (conventions.md §1):

- every resampling function takes ``seed`` and draws from ``numpy.random.default_rng(seed)``
  (the PCG64 generator); the result records the seed and B actually used;
- **common random numbers**: the B bootstrap index vectors (or sign vectors) depend only on the
  seed, B and the number of topics, and the same ones are used for every run pair, so a pair's
  ASL does not depend on which other runs are in the table;
- comparisons between a resampled statistic and the observed one use the relative tolerance
  :func:`tolerance` (τ = 1e-9·max(1, |v_obs|), §1): "v ≥ v_obs" means ``v >= v_obs - τ`` and
  "v > v_obs" means ``v > v_obs + τ``;
- randomised Tukey HSD draws its permutations in blocks of :data:`RESAMPLE_BLOCK` (1000)
  resamples, block k from ``PCG64(seed).jumped(k)`` (numpy's independent streams for parallel
  work), so that the blocks can be drawn anywhere; block 0 is ``default_rng(seed)``'s own
  stream, so B ≤ 1000 draws what one stream draws. (Before these blocks every resample came
  from that one stream: with B > 1000 a seed now gives other permutations, as another seed
  would.)

Parallel work (``workers``, :mod:`divaeval.parallel`: ``--jobs``, ``--scheduler``): each
function cuts its work into the pieces its serial loop already goes through (chunks of run
pairs for the bootstrap and the exact randomisation test, chunks of sign vectors for the
sampled one, Tukey HSD's blocks of resamples), each computed by the same function on the same
arrays wherever it runs, and puts them together in order. The random numbers are drawn from the
seed alone (in this process, or per Tukey block), never per worker, so the results are the
same bits whatever the workers: in process, ``--jobs N`` or a Dask cluster.

Differences without variance (:data:`divaeval.scores.EQUAL_TOLERANCE`): a run pair's per-topic
differences that agree within 1e-12 × the largest |score| of the two runs are equal, and within
it of 0 they are 0 (scores reached by different floating-point paths differ in their last bits:
0.3 − 0.2 ≠ 0.4 − 0.3). Such a pair is never significant in any test: for identical runs (every
difference 0) every test gives p = 1; for equal non-zero differences the t-test and the
bootstrap, which studentise by the differences' spread, have no variance and so no evidence
(statistic NaN, p = 1), while the randomisation test, which needs no variance, counts sign
vectors as usual. Randomised Tukey HSD gives p = 1 to a pair whose means are equal within the
tolerance (every resample's range is at least 0).

p-value conventions (every test is two-sided):

- paired t-test: p = 2·P(T_{N−1} ≥ |t|), Student's t distribution from scipy
  (``scipy.special.stdtr``, which ``scipy.stats.t.sf`` evaluates);
- Sakai's bootstrap (Fig. 2): ASL = count/B, count = #{b : |t(w*ᵇ)| ≥ |t(z)|}; it can be 0;
- randomisation: exact (N ≤ 20 by default) count/2ᴺ over all sign vectors, the observed one
  included; sampled (count + 1)/(B + 1), never 0;
- randomised Tukey HSD (Fig. 4): ASL = count/B, count = #{b : range_b > |x̄_a − x̄_b|} (≥ with
  ``comparison=">="``); it can be 0; the p-values are family-wise;
- sign test: exact binomial, p = min(1, 2·P(Bin(n', ½) ≤ min(W, L))).

scipy is imported inside the functions that use it, so importing divaeval stays fast; the t
distribution comes from ``scipy.special`` (about 0.5 s to import) rather than ``scipy.stats``
(1-2 s).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.parallel import InProcess, Workers
from divaeval.scores import EQUAL_TOLERANCE, check_score_magnitude, equal_within_tolerance

DEFAULT_SEED = 42
"""Fixed, documented default seed of every resampling procedure."""

GENERATOR_NAME = "PCG64"
"""Bit generator behind ``numpy.random.default_rng`` (recorded in signatures)."""

DEFAULT_BOOTSTRAP_B = 1000  # Sakai 2012, "Following previous work ... B = 1,000"
DEFAULT_TUKEY_B = 5000  # Sakai 2012, chosen from the ASL curves of Figure 7(b)
#: the most resamples any resampling analysis takes (B, --samples): 200 times the largest
#: default, and a bound on time and memory (a usage error above it)
MAX_RESAMPLES = 1_000_000


def check_resamples(count: int, option: str = "-B") -> int:
    """``count`` if it is a usable number of resamples, else a usage error."""
    if count < 1 or count > MAX_RESAMPLES:
        raise UsageError(f"{option} {count}: resamples must be between 1 and {MAX_RESAMPLES:,}")
    return count


DEFAULT_RANDOMIZATION_B = 10_000  # meta-evaluation.md §5.2
EXACT_RANDOMIZATION_MAX_TOPICS = 20  # 2**20 sign vectors (§5.2)

RELATIVE_TOLERANCE = 1e-9
"""τ = RELATIVE_TOLERANCE · max(1, |v_obs|) (meta-evaluation.md §1)."""

TESTS = ("ttest", "bootstrap", "randomization", "tukey-hsd")
HSD_COMPARISONS = (">", ">=")

# Elements per resampling chunk (keeps temporary arrays around 32 MB of float64).
_CHUNK_ELEMENTS = 4_000_000
# Elements permuted at once by Tukey HSD (2 MB: in cache, faster than larger arrays; its results
# do not depend on it)
_PERMUTED_ELEMENTS = 250_000

RESAMPLE_BLOCK = 1000
"""Resamples per block of randomised Tukey HSD: block k draws from ``PCG64(seed).jumped(k)``."""


def _spans(total: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of consecutive pieces of ``size`` (the last one shorter)."""
    return [(start, min(start + size, total)) for start in range(0, total, size)]


# ---------------------------------------------------------------------------------------------
# Input handling
# ---------------------------------------------------------------------------------------------


def tolerance(observed: float | np.ndarray) -> float | np.ndarray:
    """Comparison tolerance τ = 1e-9·max(1, |v_obs|) of meta-evaluation.md §1."""
    return RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(observed))


def check_score_table(
    scores: np.ndarray | Sequence[Sequence[float]],
    runs: Sequence[str] | None = None,
    *,
    min_runs: int = 1,
    min_topics: int = 1,
    name: str = "scores",
) -> np.ndarray:
    """Validate a ``[n_runs, n_topics]`` score table and return it as a float64 array.

    Raises :class:`DataError` for a wrong shape, too few runs/topics, non-finite values or
    values beyond ±:data:`~divaeval.scores.MAX_SCORE`, and :class:`UsageError` for run names
    that do not match the rows or repeat.
    """
    try:
        table = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name}: not a numeric score table ({exc})") from None
    if table.ndim != 2:
        raise DataError(f"{name}: expected a [n_runs, n_topics] table, got shape {table.shape}")
    n_runs, n_topics = table.shape
    if runs is not None:
        if len(runs) != n_runs:
            raise UsageError(f"{name}: {len(runs)} run names for {n_runs} rows of scores")
        if len(set(runs)) != len(runs):
            duplicates = sorted({r for r in runs if list(runs).count(r) > 1})
            raise UsageError(f"{name}: duplicate run names: {', '.join(duplicates)}")
    if n_runs < min_runs:
        raise DataError(f"{name}: need at least {min_runs} runs, got {n_runs}")
    if n_topics < min_topics:
        raise DataError(f"{name}: need at least {min_topics} topics, got {n_topics}")
    if not np.all(np.isfinite(table)):
        raise DataError(f"{name}: scores contain NaN or infinite values")
    check_score_magnitude(table, name)
    return table


def _check_pair(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, min_topics: int):
    x_arr = np.asarray(x, dtype=np.float64)
    y_arr = np.asarray(y, dtype=np.float64)
    if x_arr.ndim != 1 or x_arr.shape != y_arr.shape:
        raise DataError(
            f"paired test: x and y must be 1-D with the same length, got {x_arr.shape} "
            f"and {y_arr.shape}"
        )
    return check_score_table(np.vstack([x_arr, y_arr]), min_runs=2, min_topics=min_topics)


def _check_B(B: int, name: str = "B") -> int:
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise UsageError(f"{name} must be a positive integer, got {B!r}")
    return int(B)


def _check_alpha(alpha: float) -> float:
    if not (isinstance(alpha, (int, float, np.floating)) and 0.0 < float(alpha) < 1.0):
        raise UsageError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    return float(alpha)


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise UsageError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def run_pair_indices(n_runs: int) -> np.ndarray:
    """Unordered run pairs ``[n_pairs, 2]`` in command-line order (a before b), §1."""
    first, second = np.triu_indices(n_runs, k=1)
    return np.column_stack([first, second]).astype(np.intp)


def _pair_differences(table: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(z, scale) for every pair: z = X[a] − X[b], shape ``[n_pairs, n_topics]``, and the
    largest |score| of the two runs, what :func:`~divaeval.scores.equal_within_tolerance`
    compares the differences by."""
    magnitude = np.abs(table).max(axis=1)
    scale = np.maximum(magnitude[pairs[:, 0]], magnitude[pairs[:, 1]])
    return table[pairs[:, 0]] - table[pairs[:, 1]], scale


# ---------------------------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TTestResult:
    """Paired t-test of one run pair (§5.1)."""

    statistic: float
    p_value: float
    df: int
    mean_difference: float
    degenerate: bool  # all differences equal within the tolerance (s = 0): no evidence, p = 1


@dataclass(frozen=True)
class BootstrapTestResult:
    """Sakai's paired bootstrap test of one run pair (Fig. 2) with its Δ estimate (Fig. 3)."""

    statistic: float  # t(z)
    p_value: float  # ASL = count / B
    count: int
    B: int | None  # None for the exact enumeration
    seed: int | None
    alpha: float
    required_delta: float  # |w̄*| of the ⌈αB⌉-th largest |t(w*)| (Fig. 3)
    degenerate: bool


@dataclass(frozen=True)
class RandomizationTestResult:
    """Two-sided paired randomisation (sign-flip) test of one run pair (§5.2)."""

    statistic: float  # Σ z_t
    p_value: float
    count: int  # resampled |Σ s_t z_t| ≥ |Σ z_t| (the exact count includes the observed vector)
    B: int | None  # None when exact
    seed: int | None
    exact: bool


@dataclass(frozen=True)
class SignTestResult:
    """Two-sided sign (binomial) test of per-topic preferences (§5.3)."""

    wins: int
    losses: int
    ties: int
    p_value: float


@dataclass(frozen=True)
class PairwiseTests:
    """One test applied to every run pair of a score table (pairs in §1 order).

    ``p_values`` are the raw (uncorrected) p-values / ASLs; for Tukey HSD they are already
    family-wise. ``required_delta`` is Sakai's Δ estimate (Fig. 3 for the bootstrap: max over
    pairs; Fig. 5 for Tukey HSD: min over significant pairs, ``None`` when none is significant);
    ``None`` for the other tests.
    """

    test: str
    pairs: np.ndarray  # [n_pairs, 2] run indices
    statistics: np.ndarray  # t, Σz or the mean difference (HSD)
    p_values: np.ndarray
    B: int | None
    seed: int | None
    alpha: float
    required_delta: float | None = None
    pair_deltas: np.ndarray | None = None  # bootstrap: per-pair Δ of Fig. 3
    counts: np.ndarray | None = None
    comparison: str | None = None  # Tukey HSD: ">" or ">="
    exact: bool = False


@dataclass(frozen=True)
class TukeyHSDResult(PairwiseTests):
    """Randomised Tukey HSD (Fig. 4) over all runs; also the sorted permutation ranges."""

    means: np.ndarray | None = None
    ranges: np.ndarray | None = None  # max − min of the permuted column means, one per resample


# ---------------------------------------------------------------------------------------------
# Paired t-test (§5.1)
# ---------------------------------------------------------------------------------------------


def _t_statistics(z: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    """Paired two-sided t-test for every run pair (§5.1): p = 2·P(T_{N−1} ≥ |t|).

    Equals scipy's ``ttest_rel`` except when the differences of a pair are equal within the
    tolerance (:data:`~divaeval.scores.EQUAL_TOLERANCE`, s = 0): no variance, no evidence, so
    p = 1 (t = 0 when they are 0, else NaN) where scipy gives NaN (R's ``t.test`` refuses
    "essentially constant" data).
    """
    # scipy's Student t CDF, what scipy.stats.t.sf evaluates (bit for bit), without the 1-2 s
    # import of scipy.stats (as TRisk in divaeval.risk_measures)
    from scipy.special import stdtr

    table = check_score_table(scores, min_runs=2, min_topics=2)
    alpha = _check_alpha(alpha)
    pairs = run_pair_indices(table.shape[0])
    z, scale = _pair_differences(table, pairs)
    t, _, degenerate = _t_statistics(z, scale)
    two_sided = 2.0 * stdtr(table.shape[1] - 1, -np.abs(t))
    p_values = np.where(degenerate, 1.0, np.minimum(1.0, two_sided))
    return PairwiseTests("ttest", pairs, t, p_values, None, None, alpha)


def paired_t_test(x: Sequence[float], y: Sequence[float]) -> TTestResult:
    """Paired two-sided t-test of x − y with N − 1 degrees of freedom (§5.1)."""
    table = _check_pair(x, y, min_topics=2)
    t, mean, degenerate = _t_statistics(*_pair_differences(table, run_pair_indices(2)))
    result = pairwise_t_tests(table)
    return TTestResult(
        statistic=float(t[0]),
        p_value=float(result.p_values[0]),
        df=table.shape[1] - 1,
        mean_difference=float(mean[0]),
        degenerate=bool(degenerate[0]),
    )


# ---------------------------------------------------------------------------------------------
# Sakai's paired bootstrap test (Fig. 2) and Δ estimate (Fig. 3)
# ---------------------------------------------------------------------------------------------


def _delta_rank(alpha: float, n_samples: int) -> int:
    """⌈α·B⌉, guarded against binary rounding (0.05·1000 must give 50)."""
    return max(1, min(n_samples, math.ceil(round(alpha * n_samples, 9))))


def bootstrap_indices(n_topics: int, B: int, seed: int) -> np.ndarray:
    """The B bootstrap index vectors ``[B, n_topics]`` drawn with replacement from ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_topics, size=(B, n_topics))


def resample_counts(indices: np.ndarray) -> np.ndarray:
    """How often each topic occurs in each resample: ``[B, N]`` float counts.

    A resample's sum of any per-topic value v is then ``counts @ v`` (one matrix product for
    every resample and run pair instead of a ``[pairs, B, N]`` gather).
    """
    n_samples, n_topics = indices.shape
    flat = (np.arange(n_samples)[:, None] * n_topics + indices).ravel()
    counts = np.bincount(flat, minlength=n_samples * n_topics)
    return counts.reshape(n_samples, n_topics).astype(np.float64)


def _in_slices(*arrays: np.ndarray, size: int):
    """The arrays (of equal length) in consecutive slices of ``size`` elements."""
    for start in range(0, len(arrays[0]), size):
        yield tuple(array[start : start + size] for array in arrays)


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
    A resample whose drawn values are all equal within the tolerance (§2: t* = 0 for the value
    0, +inf otherwise; :func:`~divaeval.scores.equal_within_tolerance` at the pair's ``scale``)
    has a computed Σ c·w² − N·w̄*² within 8·N·ε·Σ c·w² + N·(tolerance)² of 0; only those
    candidates are checked value by value. A pair whose differences are equal within the
    tolerance has no variance, so no evidence: ASL 1. The pairs are computed in chunks
    (:func:`_bootstrap_chunk`), on ``workers`` when given.
    """
    n_pairs = z.shape[0]
    n_samples = indices.shape[0]
    t_observed, mean, degenerate = _t_statistics(z, scale)
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
    chunk = max(1, _CHUNK_ELEMENTS // (8 * n_samples))
    pieces = list((workers or InProcess()).map(_bootstrap_chunk, _spans(n_pairs, chunk), work))
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
    candidate_slice = max(1, _CHUNK_ELEMENTS // n_topics)
    sums = block @ work.counts_per_topic  # [chunk, B]
    resampled_mean = sums / n_topics
    squares = (block * block) @ work.counts_per_topic
    spread = squares - sums * resampled_mean  # (N − 1)·variance
    with np.errstate(divide="ignore", invalid="ignore"):
        abs_t_star = np.abs(resampled_mean) / np.sqrt(spread / ((n_topics - 1) * n_topics))
    abs_t_star = np.where(spread > 0, abs_t_star, np.where(resampled_mean == 0, 0.0, np.inf))
    # All drawn values equal within the tolerance: w̄* is the first, t* = 0 where they are 0,
    # +inf otherwise (§2). (Observed degenerate rows are w = 0 throughout: already w̄* = 0 and
    # t* = 0 there.)
    scale = work.scale[start:stop]
    limit = n_topics * (EQUAL_TOLERANCE * scale[:, None]) ** 2
    candidates = (spread <= near_zero * squares + limit) & ~work.degenerate[start:stop, None]
    for rows, samples in _in_slices(*np.nonzero(candidates), size=candidate_slice):
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
    B = _check_B(B)
    seed = _check_seed(seed)
    alpha = _check_alpha(alpha)
    pairs = run_pair_indices(table.shape[0])
    z, scale = _pair_differences(table, pairs)
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
    table = _check_pair(x, y, min_topics=2)
    alpha = _check_alpha(alpha)
    z, scale = _pair_differences(table, run_pair_indices(2))
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
    B = _check_B(B)
    seed = _check_seed(seed)
    return _bootstrap_pair_result(
        x, y, lambda n: bootstrap_indices(n, B, seed), alpha, B=B, seed=seed
    )


def all_index_vectors(n_topics: int) -> np.ndarray:
    """All n^n index vectors (each once) in lexicographic order, for exact enumeration."""
    if n_topics > 7:
        raise UsageError(f"exact bootstrap enumeration is limited to 7 topics, got {n_topics}")
    grid = np.indices((n_topics,) * n_topics).reshape(n_topics, -1).T
    return np.ascontiguousarray(grid)


def exact_paired_bootstrap_test(
    x: Sequence[float], y: Sequence[float], alpha: float = 0.05
) -> BootstrapTestResult:
    """Fig. 2 with the B random index vectors replaced by all Nᴺ of them (§8 oracle; N ≤ 7)."""
    return _bootstrap_pair_result(x, y, all_index_vectors, alpha, B=None, seed=None)


# ---------------------------------------------------------------------------------------------
# Paired randomisation (sign-flip) test (§5.2)
# ---------------------------------------------------------------------------------------------


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
    chunk = max(1, _CHUNK_ELEMENTS // 2 ** (n_topics - n_topics // 2))
    pieces: Iterator[np.ndarray] = (workers or InProcess()).map(
        _exact_sign_flip_chunk, _spans(n_pairs, chunk), z
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


def _sign_vector_chunks(n_topics: int, B: int, seed: int, chunk: int) -> Iterator[np.ndarray]:
    """The B sampled sign vectors as 0/1 bits, ``chunk`` at a time, from one stream (drawn
    here, in order, whatever the workers)."""
    rng = np.random.default_rng(seed)
    for start in range(0, B, chunk):
        size = min(chunk, B - start)
        yield rng.integers(0, 2, size=(size, n_topics), dtype=np.int8)


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
    chunk = max(1, _CHUNK_ELEMENTS // max(n_topics, n_pairs))
    counts = np.zeros(n_pairs, dtype=np.int64)
    chunks = _sign_vector_chunks(n_topics, B, seed, chunk)
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
    """Two-sided paired sign-flip randomisation test for every run pair (§5.2).

    ``exact=None`` enumerates all 2ᴺ sign vectors when N ≤ 20 (p = count/2ᴺ, the observed vector
    included) and otherwise samples B sign vectors (p = (1 + count)/(B + 1)); the same sign
    vectors serve every pair. ``B`` and ``seed`` are recorded as ``None`` when exact. Chunks of
    pairs (exact) or of sign vectors (sampled) run on ``workers``. A pair whose differences are
    all 0 within the tolerance (:data:`~divaeval.scores.EQUAL_TOLERANCE`) counts every sign
    vector: p = 1.
    """
    table = check_score_table(scores, min_runs=2, min_topics=1)
    alpha = _check_alpha(alpha)
    pairs = run_pair_indices(table.shape[0])
    z, scale = _pair_differences(table, pairs)
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
    B = _check_B(B)
    seed = _check_seed(seed)
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
    """Two-sided paired randomisation test of x vs y (§5.2); exact for N ≤ 20 by default."""
    table = _check_pair(x, y, min_topics=1)
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


# ---------------------------------------------------------------------------------------------
# Randomised Tukey HSD (Fig. 4) and Δ estimate (Fig. 5)
# ---------------------------------------------------------------------------------------------


def _check_comparison(comparison: str) -> str:
    if comparison not in HSD_COMPARISONS:
        raise UsageError(f"Tukey HSD comparison must be '>' or '>=', got {comparison!r}")
    return comparison


def _hsd_counts(sorted_ranges: np.ndarray, differences: np.ndarray, comparison: str) -> np.ndarray:
    """#{b : range_b > d} (or ≥) for every |x̄_a − x̄_b| = d, with the §1 tolerance."""
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
    _, scale = _pair_differences(table, pairs)
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


@dataclass(frozen=True)
class _TukeyWork:
    """What every block of Tukey HSD's resamples needs (sent once to each worker)."""

    by_topic: np.ndarray  # [T, R]: each topic's values in ascending order, permuted within rows
    seed: int
    chunk: int  # resamples permuted at once (bounds memory)


def _tukey_block(work: _TukeyWork, block: tuple[int, int]) -> np.ndarray:
    """range_b = max − min of the permuted run means for the ``size`` resamples of block
    ``number``, drawn from ``PCG64(seed).jumped(number)`` (one task)."""
    number, size = block
    rng = np.random.Generator(np.random.PCG64(work.seed).jumped(number))
    n_topics, n_runs = work.by_topic.shape
    ranges = np.empty(size)
    for start in range(0, size, work.chunk):
        part = min(work.chunk, size - start)
        shape = (part, n_topics, n_runs)
        permuted = rng.permuted(np.broadcast_to(work.by_topic, shape), axis=-1)
        run_means = permuted.mean(axis=1)  # [part, R]
        ranges[start : start + part] = run_means.max(axis=1) - run_means.min(axis=1)
    return ranges


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
    table = check_score_table(scores, min_runs=2, min_topics=1)
    B = _check_B(B)
    seed = _check_seed(seed)
    alpha = _check_alpha(alpha)
    comparison = _check_comparison(comparison)
    n_runs, n_topics = table.shape
    work = _TukeyWork(
        by_topic=np.ascontiguousarray(np.sort(table.T, axis=1)),
        seed=seed,
        chunk=max(1, _PERMUTED_ELEMENTS // (n_runs * n_topics)),
    )
    blocks = [(k, stop - start) for k, (start, stop) in enumerate(_spans(B, RESAMPLE_BLOCK))]
    ranges = np.concatenate(list((workers or InProcess()).map(_tukey_block, blocks, work)))
    return _hsd_result(table, ranges, alpha, comparison, B, seed)


def exact_tukey_hsd(
    scores: np.ndarray, alpha: float = 0.05, comparison: str = ">"
) -> TukeyHSDResult:
    """Fig. 4 over all (R!)ᵀ row-permutation combinations, each once (§8 oracle, tiny tables)."""
    table = check_score_table(scores, min_runs=2, min_topics=1)
    alpha = _check_alpha(alpha)
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


# ---------------------------------------------------------------------------------------------
# Sign (binomial) test (§5.3)
# ---------------------------------------------------------------------------------------------


def sign_test(wins: int, losses: int, ties: int = 0) -> SignTestResult:
    """Two-sided sign test: p = min(1, 2·Σ_{k ≤ min(W, L)} C(n', k)/2^{n'}), n' = W + L (§5.3)."""
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


# ---------------------------------------------------------------------------------------------
# Dispatcher
# ---------------------------------------------------------------------------------------------


def default_B(test: str) -> int | None:
    """Default number of resamples of ``test`` (None for the t-test)."""
    return {
        "ttest": None,
        "bootstrap": DEFAULT_BOOTSTRAP_B,
        "randomization": DEFAULT_RANDOMIZATION_B,
        "tukey-hsd": DEFAULT_TUKEY_B,
    }[check_test_name(test)]


def check_test_name(test: str) -> str:
    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")
    return test


def pairwise_tests(
    scores: np.ndarray,
    test: str = "ttest",
    B: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    comparison: str = ">",
    exact: bool | None = None,
    *,
    workers: Workers | None = None,
) -> PairwiseTests:
    """Run ``test`` (ttest | bootstrap | randomization | tukey-hsd) on every run pair.

    ``B=None`` takes the test's default (1000, 10000, 5000). ``comparison`` only applies to
    Tukey HSD and ``exact`` only to the randomisation test. The resampling tests run their
    pieces on ``workers`` (same results, see the module docstring).
    """
    test = check_test_name(test)
    if test == "ttest":
        return pairwise_t_tests(scores, alpha=alpha)
    resamples = check_resamples(B) if B is not None else default_B(test)
    assert resamples is not None
    if test == "bootstrap":
        return pairwise_bootstrap_tests(
            scores, B=resamples, seed=seed, alpha=alpha, workers=workers
        )
    if test == "randomization":
        return pairwise_randomization_tests(
            scores, B=resamples, seed=seed, alpha=alpha, exact=exact, workers=workers
        )
    return randomized_tukey_hsd(
        scores, B=resamples, seed=seed, alpha=alpha, comparison=comparison, workers=workers
    )
