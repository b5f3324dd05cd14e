"""Paired significance tests on score tables (Sakai, "Evaluation with informational and
navigational intents", WWW 2012, Figures 2-5; Carterette, TOIS 2012), with the same conventions
for every test.

Where they live: :mod:`.tables` (input checks, run pairs, tolerances), :mod:`.results` (the
result types), :mod:`.resampling` (seeds, index and sign vectors, permutations, the pieces of
parallel work), and one module per test: :mod:`.classical` (paired t-test, sign test),
:mod:`.bootstrap` (Sakai's bootstrap and Δ), :mod:`.randomization` (sign flips),
:mod:`.tukey_hsd` (randomised Tukey HSD and Δ). :func:`pairwise_tests` runs any of them on every
pair of a score table ``[n_runs, n_topics]``.

Every p-value is two-sided:

- paired t-test: p = 2·P(T_{N−1} ≥ |t|);
- Sakai's bootstrap (Fig. 2): ASL = count/B, count = #{b : |t(w*ᵇ)| ≥ |t(z)|}; it can be 0;
- randomisation: exact (N ≤ 20 by default) count/2ᴺ over all sign vectors, the observed one
  included; sampled (count + 1)/(B + 1), never 0;
- randomised Tukey HSD (Fig. 4): ASL = count/B, count = #{b : range_b > |x̄_a − x̄_b|} (≥ with
  ``comparison=">="``); it can be 0; the p-values are family-wise;
- sign test: exact binomial, p = min(1, 2·P(Bin(n', ½) ≤ min(W, L))).

A resampled statistic is compared with the observed one within τ = 1e-9·max(1, |v_obs|)
(:func:`~.tables.tolerance`): "v ≥ v_obs" means ``v >= v_obs - τ`` and "v > v_obs" means
``v > v_obs + τ`` (sums of the same numbers in another order differ in their last bits).

Differences without variance (:data:`divaeval.scores.EQUAL_TOLERANCE`): a run pair's per-topic
differences that agree within 1e-12 × the largest |score| of the two runs are equal, and within
it of 0 they are 0 (scores reached by different floating-point paths differ in their last bits:
0.3 − 0.2 ≠ 0.4 − 0.3). For identical runs (every difference 0) every test gives p = 1; for
equal non-zero differences the t-test and the bootstrap, which studentise by the differences'
spread, have no variance and so no evidence (statistic NaN, p = 1), while the randomisation
test, which needs no variance, counts sign vectors as usual. Randomised Tukey HSD gives p = 1 to
a pair whose means are equal within the tolerance (every resample's range is at least 0), and
its ranges do not depend on the runs' order. Swapping two runs never changes a p-value.

Parallel work (``workers``, :mod:`divaeval.parallel`: ``--jobs``, ``--scheduler``): chunks of
run pairs for the bootstrap and the exact randomisation test, chunks of sign vectors for the
sampled one, Tukey HSD's blocks of resamples; the same bits whatever the workers
(:mod:`.resampling`).

scipy is imported inside the functions that use it, so importing divaeval stays fast; the t
distribution comes from ``scipy.special`` (about 0.5 s to import) rather than ``scipy.stats``
(1-2 s).
"""

from __future__ import annotations

import numpy as np

from divaeval.errors import UsageError
from divaeval.parallel import Workers
from divaeval.stats.significance.bootstrap import (
    DEFAULT_BOOTSTRAP_B,
    exact_paired_bootstrap_test,
    paired_bootstrap_test,
    pairwise_bootstrap_tests,
)
from divaeval.stats.significance.classical import (
    paired_t_test,
    pairwise_t_tests,
    sign_test,
    sign_test_preferences,
)
from divaeval.stats.significance.randomization import (
    DEFAULT_RANDOMIZATION_B,
    EXACT_RANDOMIZATION_MAX_TOPICS,
    exact_paired_randomization_test,
    paired_randomization_test,
    pairwise_randomization_tests,
)
from divaeval.stats.significance.resampling import (
    DEFAULT_SEED,
    GENERATOR_NAME,
    MAX_RESAMPLES,
    RESAMPLE_BLOCK,
    check_resamples,
)
from divaeval.stats.significance.results import (
    BootstrapTestResult,
    PairwiseTests,
    RandomizationTestResult,
    SignTestResult,
    TTestResult,
    TukeyHSDResult,
)
from divaeval.stats.significance.tables import (
    RELATIVE_TOLERANCE,
    check_score_table,
    pair_differences,
    run_pair_indices,
    tolerance,
)
from divaeval.stats.significance.tukey_hsd import (
    DEFAULT_TUKEY_B,
    HSD_COMPARISONS,
    exact_tukey_hsd,
    randomized_tukey_hsd,
    randomized_tukey_hsd_tables,
)

__all__ = [
    "DEFAULT_BOOTSTRAP_B",
    "DEFAULT_RANDOMIZATION_B",
    "DEFAULT_SEED",
    "DEFAULT_TUKEY_B",
    "EXACT_RANDOMIZATION_MAX_TOPICS",
    "GENERATOR_NAME",
    "HSD_COMPARISONS",
    "MAX_RESAMPLES",
    "RELATIVE_TOLERANCE",
    "RESAMPLE_BLOCK",
    "TESTS",
    "BootstrapTestResult",
    "PairwiseTests",
    "RandomizationTestResult",
    "SignTestResult",
    "TTestResult",
    "TukeyHSDResult",
    "check_resamples",
    "check_score_table",
    "check_test_name",
    "default_B",
    "exact_paired_bootstrap_test",
    "exact_paired_randomization_test",
    "exact_tukey_hsd",
    "pair_differences",
    "paired_bootstrap_test",
    "paired_randomization_test",
    "paired_t_test",
    "pairwise_bootstrap_tests",
    "pairwise_randomization_tests",
    "pairwise_t_tests",
    "pairwise_tests",
    "randomized_tukey_hsd",
    "randomized_tukey_hsd_tables",
    "run_pair_indices",
    "sign_test",
    "sign_test_preferences",
    "tolerance",
]


TESTS = ("ttest", "bootstrap", "randomization", "tukey-hsd")


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
