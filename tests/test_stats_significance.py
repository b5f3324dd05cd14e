"""Significance tests against hand-worked oracles (meta-evaluation.md §8), scipy and enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.errors import DataError, UsageError
from divaeval.stats import significance as sig
from divaeval.stats.significance import (
    bootstrap,
    exact_paired_bootstrap_test,
    exact_paired_randomization_test,
    exact_tukey_hsd,
    paired_bootstrap_test,
    paired_randomization_test,
    paired_t_test,
    pairwise_bootstrap_tests,
    pairwise_randomization_tests,
    pairwise_t_tests,
    pairwise_tests,
    randomized_tukey_hsd,
    resampling,
    run_pair_indices,
    sign_test,
    sign_test_preferences,
)

# meta-evaluation.md §8: 3 runs (rows) x 5 topics (columns); means 0.53, 0.46, 0.29.
WORKED = np.array(
    [
        [0.50, 0.60, 0.30, 0.80, 0.45],  # A
        [0.40, 0.55, 0.35, 0.60, 0.40],  # B
        [0.30, 0.20, 0.10, 0.40, 0.45],  # C
    ]
)
A, B, C = WORKED


def binomial_margin(p: float, n: int) -> float:
    """4 standard errors of a sampled proportion, plus one count of slack."""
    return 4.0 * math.sqrt(p * (1.0 - p) / n) + 1.0 / n


# ------------------------------------------------------------------------------- pair order


def test_pairs_are_enumerated_in_command_line_order():
    assert run_pair_indices(4).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]


# ------------------------------------------------------------------------------- t-test


def test_t_test_worked_example():
    # A-B: z = (0.10, 0.05, -0.05, 0.20, 0.05), z̄ = 0.35/5 = 0.07,
    # s² = (0.03² + 0.02² + 0.12² + 0.13² + 0.02²)/4 = 0.0330/4 = 0.00825, s = 0.090830,
    # t = 0.07 / (0.090830/√5) = 1.723281, df = 4, p = 0.159935.
    result = paired_t_test(A, B)
    assert result.statistic == pytest.approx(1.723281, abs=1e-6)
    assert result.p_value == pytest.approx(0.159935, abs=1e-6)
    assert result.df == 4
    assert result.mean_difference == pytest.approx(0.07)
    table = pairwise_t_tests(WORKED)
    np.testing.assert_allclose(table.statistics, [1.723281, 3.207135, 2.493001], atol=1e-6)
    np.testing.assert_allclose(table.p_values, [0.159935, 0.032678, 0.067268], atol=1e-6)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0, 1), st.floats(0, 1)),
        min_size=2,
        max_size=40,
    )
)
def test_t_test_matches_scipy(pairs):
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    z = x - y
    assume(z.max() != z.min())
    assume(np.std(z) > 1e-9 * max(1.0, np.abs(z).max()))  # avoid cancellation-dominated cases
    expected = scipy.stats.ttest_rel(x, y)
    result = paired_t_test(x, y)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-9)
    # scipy's t.sf loses ~1e-9 absolute precision for |t| ≲ 1e-4 (see the closed-form test)
    tolerance = 1e-8 if abs(expected.statistic) < 1e-4 else 1e-300
    assert result.p_value == pytest.approx(expected.pvalue, rel=1e-9, abs=tolerance)


@pytest.mark.parametrize("d", [1e-6, 0.01, 0.3, 1.0, 3.0, 50.0])
def test_t_test_p_value_closed_forms(d):
    # Two topics, z = (1, 1 + 2d): z̄ = 1 + d, s = d·√2, t = z̄/(s/√2) = (1 + d)/d with df = 1
    # (Cauchy): p = 1 − (2/π)·atan|t| = (2/π)·atan(1/|t|). Three topics, z = (1 − d, 1, 1 + d):
    # s = d, t = √3/d with df = 2: p = 1 − |t|/√(2 + t²). Checks df = N − 1 and two-sidedness.
    two = paired_t_test([1.0, 1.0 + 2 * d], [0.0, 0.0])
    assert two.df == 1
    assert two.statistic == pytest.approx((1 + d) / d, rel=1e-9)
    t = two.statistic
    assert two.p_value == pytest.approx(2.0 / math.pi * math.atan(1.0 / t), rel=1e-9)
    three = paired_t_test([1.0 - d, 1.0, 1.0 + d], [0.0, 0.0, 0.0])
    t = three.statistic
    assert t == pytest.approx(math.sqrt(3) / d, rel=1e-9)
    closed = 2.0 / (math.sqrt(2 + t * t) * (math.sqrt(2 + t * t) + t))  # = 1 − t/√(2 + t²)
    assert three.p_value == pytest.approx(closed, rel=1e-9)
    negative = paired_t_test([0.0, 0.0, 0.0], [1.0 - d, 1.0, 1.0 + d])
    assert negative.statistic == -three.statistic and negative.p_value == three.p_value


def test_t_test_degenerate_differences():
    # all differences equal (within 1e-12 of the largest score): no variance, no evidence:
    # p = 1; t = 0 when they are 0, NaN (undefined) otherwise
    shifted = paired_t_test([0.5, 0.6, 0.7], [0.4, 0.5, 0.6])
    assert shifted.degenerate and shifted.p_value == 1.0 and math.isnan(shifted.statistic)
    negative = paired_t_test([0.4, 0.5], [0.5, 0.6])
    assert math.isnan(negative.statistic) and negative.p_value == 1.0
    same = paired_t_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    assert same.degenerate and same.p_value == 1.0 and same.statistic == 0.0
    # the same scores reached by another path (0.1 + 0.2 is 0.30000000000000004): identical
    rounded = paired_t_test([0.1 + 0.2, 0.7, 0.2 + 0.4], [0.3, 0.7, 0.6])
    assert rounded.degenerate and rounded.p_value == 1.0 and rounded.statistic == 0.0


def test_t_test_differences_equal_on_paper_are_equal():
    # z = 0.1 on every topic in decimal, not in binary (0.3 − 0.2 ≠ 0.4 − 0.3): the spread
    # (1e-17) is noise, not variance; t was 7e15 and p 2e-31, now no evidence: p = 1
    x = np.array([0.3, 0.4, 0.7, 0.9, 0.4])
    y = np.array([0.2, 0.3, 0.6, 0.8, 0.3])
    assert len(set((x - y).tolist())) > 1
    result = paired_t_test(x, y)
    assert result.degenerate and result.p_value == 1.0 and math.isnan(result.statistic)
    # a real spread just above the tolerance is a test again
    spread = paired_t_test(x + np.array([0, 0, 0, 0, 1e-11]), y)
    assert not spread.degenerate and spread.p_value < 1e-10


# ------------------------------------------------------------------------------- bootstrap


def test_exact_bootstrap_worked_example():
    # All 5⁵ = 3125 index vectors: counts 480, 115, 280 (the 5 single-topic vectors count, as
    # their |t| is +inf). Δ (Fig. 3): the 157th largest |t| (⌈0.05·3125⌉) has |w̄| 0.08, 0.12,
    # 0.13 for A-B, A-C, B-C.
    expected = {(0, 1): (480, 0.08), (0, 2): (115, 0.12), (1, 2): (280, 0.13)}
    for (a, b), (count, delta) in expected.items():
        result = exact_paired_bootstrap_test(WORKED[a], WORKED[b])
        assert result.count == count
        assert result.p_value == count / 3125
        assert result.required_delta == pytest.approx(delta, abs=1e-12)
        assert result.B is None and result.seed is None


def test_sampled_bootstrap_agrees_with_exact_enumeration():
    result = pairwise_bootstrap_tests(WORKED, B=1000, seed=7)
    for asl, exact in zip(result.p_values, [0.1536, 0.0368, 0.0896], strict=True):
        assert abs(asl - exact) <= binomial_margin(exact, 1000)
    assert result.B == 1000 and result.seed == 7
    # Δ_α = max over pairs (Fig. 3); the exact value is 0.13, a sampled one is close.
    assert result.required_delta == pytest.approx(result.pair_deltas.max())
    assert 0.08 <= result.required_delta <= 0.18


def test_single_pair_bootstrap_equals_the_pairwise_table_row():
    # common random numbers: a pair's ASL does not depend on the other runs
    table = pairwise_bootstrap_tests(WORKED, B=500, seed=3)
    single = paired_bootstrap_test(B, C, B=500, seed=3)
    assert single.p_value == table.p_values[2]
    assert single.required_delta == table.pair_deltas[2]


def test_bootstrap_degenerate_rules():
    # constant non-zero difference: no variance to studentise by, no evidence → ASL 1
    shifted = paired_bootstrap_test([0.5, 0.6, 0.7, 0.9], [0.4, 0.5, 0.6, 0.8], B=200)
    assert shifted.p_value == 1.0 and shifted.degenerate and shifted.required_delta == 0.0
    same = paired_bootstrap_test([0.5, 0.6, 0.7], [0.5, 0.6, 0.7], B=200)
    assert same.p_value == 1.0


def brute_force_bootstrap(z: np.ndarray, indices: np.ndarray, alpha: float, scale: float):
    """Fig. 2 and 3 resample by resample (two-pass mean and s): (count, Δ) of one pair whose
    largest |score| is ``scale``; values within 1e-12·scale of each other are equal."""
    n = len(z)
    tolerance = 1e-12 * scale

    def equal(values) -> bool:
        return values.max() - values.min() <= tolerance or abs(values).max() <= tolerance

    t_observed = z.mean() / (z.std(ddof=1) / math.sqrt(n)) if not equal(z) else 0.0
    w = np.zeros(n) if equal(z) else z - z.mean()
    abs_t, means = [], []
    for draw in indices:
        values = w[draw]
        if equal(values):
            means.append(values[0])
            abs_t.append(0.0 if abs(values).max() <= tolerance else math.inf)
        else:
            means.append(values.mean())
            abs_t.append(abs(values.mean()) / (values.std(ddof=1) / math.sqrt(n)))
    if equal(z):  # no variance, no evidence: ASL 1
        count = len(indices)
    else:
        threshold = abs(t_observed) - 1e-9 * max(1.0, abs(t_observed))
        count = sum(t >= threshold for t in abs_t)
    rank = bootstrap._delta_rank(alpha, len(indices))
    chosen = sorted(range(len(indices)), key=lambda b: (-abs_t[b], b))[rank - 1]
    return count, abs(means[chosen])


@settings(max_examples=examples(24), deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0]), min_size=6, max_size=36),
    st.integers(1, 150),
    st.integers(0, 2**32 - 1),
)
def test_bootstrap_counts_equal_the_resample_by_resample_definition(grid, n_samples, seed):
    # grid scores make tied, zero, near-equal (0.3 − 0.2 ≠ 0.4 − 0.3 in binary) and constant
    # differences, and resamples whose drawn values are all equal: the count-matrix
    # implementation must count exactly the resamples the definition counts
    n_topics = len(grid) // 3
    table = np.array(grid[: 3 * n_topics]).reshape(3, n_topics)
    result = pairwise_bootstrap_tests(table, B=n_samples, seed=seed)
    indices = resampling.bootstrap_indices(n_topics, n_samples, seed)
    for pair, (a, b) in enumerate(result.pairs):
        scale = max(abs(table[a]).max(), abs(table[b]).max())
        count, _ = brute_force_bootstrap(table[a] - table[b], indices, 0.05, scale)
        assert result.counts[pair] == count


@settings(max_examples=examples(16), deadline=None)
@given(st.integers(2, 30), st.integers(20, 300), st.integers(0, 2**32 - 1))
def test_bootstrap_delta_equals_the_resample_by_resample_definition(n_topics, n_samples, seed):
    # continuous scores: distinct resampled multisets have distinct |t*|, so the Δ sample is
    # the same up to the order of the floating-point sums
    table = np.random.default_rng(seed).random((3, n_topics))
    result = pairwise_bootstrap_tests(table, B=n_samples, seed=seed, alpha=0.1)
    indices = resampling.bootstrap_indices(n_topics, n_samples, seed)
    for pair, (a, b) in enumerate(result.pairs):
        scale = max(abs(table[a]).max(), abs(table[b]).max())
        count, delta = brute_force_bootstrap(table[a] - table[b], indices, 0.1, scale)
        assert result.counts[pair] == count
        assert result.pair_deltas[pair] == pytest.approx(delta, rel=1e-12, abs=1e-15)


@given(
    st.lists(
        st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, math.inf]), min_size=8, max_size=8),
        min_size=1,
        max_size=4,
    ),
    st.integers(1, 8),
)
def test_delta_sample_is_the_stable_descending_order(rows, rank):
    # Fig. 3's tie rule (sample index ascending) by partition equals a stable argsort
    values = np.array(rows)
    expected = np.argsort(-values, axis=1, kind="stable")[:, rank - 1]
    np.testing.assert_array_equal(bootstrap._select_in_order(values, rank), expected)


def test_bootstrap_with_near_equal_differences():
    # z = 0.1 in decimal for every topic but not in binary (0.3 − 0.2 vs 0.4 − 0.3): equal
    # within the tolerance, so no variance and no evidence: ASL 1 (before, t(z) ≈ 7e15 from
    # the 1e-17 noise, and the count was 29 of 300)
    x = np.array([0.3, 0.4, 0.7, 0.9, 0.4])
    y = np.array([0.2, 0.3, 0.6, 0.8, 0.3])
    assert len(set((x - y).tolist())) > 1
    result = paired_bootstrap_test(x, y, B=300, seed=4)
    assert result.degenerate and result.count == 300 and result.p_value == 1.0
    count, delta = brute_force_bootstrap(x - y, resampling.bootstrap_indices(5, 300, 4), 0.05, 0.9)
    assert count == 300 and result.required_delta == delta == 0.0


def test_bootstrap_resamples_equal_within_the_tolerance():
    # z has a real spread, but w's values at topics 0 and 1 differ by noise only (5.6e-17):
    # a resample drawing only them has no variance: |t*| = inf, as for exactly equal values
    x = np.array([0.3, 0.4, 0.9, 0.1])
    y = np.array([0.2, 0.3, 0.2, 0.5])
    indices = np.array([[0, 1, 0, 1], [1, 1, 1, 1], [0, 2, 3, 1]])
    count, _ = brute_force_bootstrap(x - y, indices, 0.05, 0.9)
    table = np.vstack([x, y])
    _, counts, _, _ = bootstrap._bootstrap_from_indices(
        *sig.pair_differences(table, run_pair_indices(2)), indices, 0.05
    )
    assert counts[0] == count == 2


def test_bootstrap_is_deterministic_for_a_seed():
    first = pairwise_bootstrap_tests(WORKED, B=300, seed=11)
    second = pairwise_bootstrap_tests(WORKED, B=300, seed=11)
    np.testing.assert_array_equal(first.p_values, second.p_values)
    np.testing.assert_array_equal(first.pair_deltas, second.pair_deltas)


# ------------------------------------------------------------------------------- randomisation


def test_exact_randomization_worked_example():
    # A-B: z = (0.10, 0.05, -0.05, 0.20, 0.05), |Σz| = 0.35. Of the 32 sign vectors, those with
    # |Σ s z| ≥ 0.35 are ± (all +) and ± (flip -0.05 only) ... 8 in total: p = 8/32 = 0.25.
    # A-C: the zero difference doubles every configuration: 4/32 = 0.125. B-C: 4/32.
    assert exact_paired_randomization_test(A, B) == 0.25
    assert exact_paired_randomization_test(A, C) == 0.125
    assert exact_paired_randomization_test(B, C) == 0.125
    automatic = paired_randomization_test(A, B)  # N = 5 ≤ 20: exact by default
    assert automatic.exact and automatic.B is None and automatic.count == 8


def brute_force_sign_flip_p(z: np.ndarray) -> float:
    """Independent enumeration with explicit sign vectors."""
    n = len(z)
    signs = np.array(np.meshgrid(*[[1.0, -1.0]] * n, indexing="ij")).reshape(n, -1).T
    sums = np.abs(signs @ z)
    observed = abs(z.sum())
    return float(np.mean(sums >= observed - 1e-9 * max(1.0, observed)))


@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.2, 0.5, 1.0]), st.sampled_from([0.0, 0.1, 0.3])),
        min_size=1,
        max_size=12,
    )
)
def test_exact_randomization_matches_brute_force_with_ties(pairs):
    # grid values make many tied and zero differences; meet-in-the-middle vs explicit vectors
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    assert exact_paired_randomization_test(x, y) == brute_force_sign_flip_p(x - y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sampled_randomization_converges_to_exact(seed):
    rng = np.random.default_rng(100 + seed)
    x = rng.random(9)
    y = np.clip(x - 0.1 + 0.3 * rng.standard_normal(9), 0, 1)
    exact = exact_paired_randomization_test(x, y)
    assert exact == pytest.approx(brute_force_sign_flip_p(x - y), abs=1e-15)
    n_samples = 40_000
    sampled = paired_randomization_test(x, y, B=n_samples, seed=seed, exact=False)
    assert (sampled.exact, sampled.B) == (False, n_samples)
    assert sampled.p_value == (1 + sampled.count) / (n_samples + 1)
    assert abs(sampled.p_value - exact) <= binomial_margin(exact, n_samples)


def test_sampled_randomization_p_is_never_zero():
    x = np.linspace(0.5, 1.0, 30)
    result = paired_randomization_test(x, x - 0.4 - 0.01 * np.arange(30), B=1000, seed=1)
    assert result.p_value == 1 / 1001


def test_randomization_uses_sampling_above_twenty_topics():
    rng = np.random.default_rng(5)
    table = rng.random((3, 21))
    result = pairwise_randomization_tests(table, B=2000, seed=9)
    assert not result.exact and result.B == 2000 and result.seed == 9


# ------------------------------------------------------------------------------- Tukey HSD


def test_exact_tukey_hsd_worked_example():
    # All (3!)⁵ = 7776 row-permutation combinations. Counts with ">" (Fig. 4): 5724, 48, 1356;
    # with ">=": 6096, 120, 1692 (0.783951, 0.015432, 0.217593).
    strict = exact_tukey_hsd(WORKED)
    assert strict.counts.tolist() == [5724, 48, 1356]
    np.testing.assert_allclose(strict.p_values, [0.736111, 0.006173, 0.174383], atol=1e-6)
    loose = exact_tukey_hsd(WORKED, comparison=">=")
    assert loose.counts.tolist() == [6096, 120, 1692]
    # Fig. 5: only A-C is significant at 0.05 → Δ = |0.53 − 0.29| = 0.24
    assert strict.required_delta == pytest.approx(0.24)
    assert exact_tukey_hsd(WORKED, alpha=0.001).required_delta is None


def test_sampled_tukey_hsd_agrees_with_exact_enumeration():
    result = randomized_tukey_hsd(WORKED, B=5000, seed=42)
    assert result.B == 5000 and result.seed == 42 and result.comparison == ">"
    for asl, exact in zip(result.p_values, [0.736111, 0.006173, 0.174383], strict=True):
        assert abs(asl - exact) <= binomial_margin(exact, 5000)
    np.testing.assert_allclose(result.means, [0.53, 0.46, 0.29])


def test_tukey_hsd_with_two_runs_is_the_sign_flip_test():
    # With R = 2, permuting a topic's two values flips the sign of its difference; the range is
    # |Σ s z|/N, so HSD with ">=" is the exact sign-flip test.
    for first, second in [(A, B), (A, C), (B, C)]:
        hsd = exact_tukey_hsd(np.vstack([first, second]), comparison=">=")
        assert hsd.p_values[0] == pytest.approx(exact_paired_randomization_test(first, second))


def test_tukey_hsd_family_wise_error_rate_under_the_null():
    # 1000 null data sets (5 exchangeable runs x 12 topics, topic effects plus noise): the share
    # with at least one pair at ASL < 0.05 must stay at α (3 standard errors of slack); it should
    # not be far below α either (the test is exact under exchangeability).
    rng = np.random.default_rng(2024)
    n_sets, alpha = 1000, 0.05
    rejections = 0
    for k in range(n_sets):
        topic_effect = rng.random(12)
        table = np.clip(topic_effect + 0.15 * rng.standard_normal((5, 12)), 0, 1)
        result = randomized_tukey_hsd(table, B=400, seed=k)
        rejections += bool(np.any(result.p_values < alpha))
    rate = rejections / n_sets
    slack = 3 * math.sqrt(alpha * (1 - alpha) / n_sets)
    assert alpha - slack <= rate <= alpha + slack


def test_tukey_hsd_is_deterministic_and_seed_dependent():
    rng = np.random.default_rng(1)
    table = rng.random((6, 15))
    first = randomized_tukey_hsd(table, B=1000, seed=5)
    second = randomized_tukey_hsd(table, B=1000, seed=5)
    np.testing.assert_array_equal(first.p_values, second.p_values)
    np.testing.assert_array_equal(first.ranges, second.ranges)
    other = randomized_tukey_hsd(table, B=1000, seed=6)
    assert not np.array_equal(first.ranges, other.ranges)


def test_tukey_hsd_is_more_conservative_than_the_bootstrap():
    rng = np.random.default_rng(3)
    table = np.clip(rng.random((8, 25)) * 0.5 + np.linspace(0, 0.3, 8)[:, None], 0, 1)
    hsd = randomized_tukey_hsd(table, B=2000, seed=1)
    boot = pairwise_bootstrap_tests(table, B=1000, seed=1)
    assert np.count_nonzero(hsd.p_values < 0.05) <= np.count_nonzero(boot.p_values < 0.05)


# ------------------------------------------------------------------------------- sign test


def test_sign_test_worked_example():
    # W = 7, L = 1, 2 ties: n' = 8, p = 2·(C(8,0) + C(8,1))/2⁸ = 2·9/256 = 0.0703125
    result = sign_test(7, 1, 2)
    assert result.p_value == 0.0703125
    prefs = [1, 1, 1, 0, 1, -1, 1, 1, 0, 1]
    assert sign_test_preferences(prefs) == result


@given(st.integers(0, 60), st.integers(0, 60))
def test_sign_test_matches_scipy_binomtest(wins, losses):
    expected = 1.0 if wins + losses == 0 else scipy.stats.binomtest(wins, wins + losses).pvalue
    assert sign_test(wins, losses).p_value == pytest.approx(expected, rel=1e-12)


def test_sign_test_without_decisions():
    assert sign_test(0, 0, 5).p_value == 1.0


# ----------------------------------------------------------------------------- p-value conventions


def test_p_value_conventions_stated_in_the_docs():
    # bootstrap and Tukey HSD: count/B (Sakai's Fig. 2 and 4; 0 is possible); sampled
    # randomisation: (count + 1)/(B + 1); exact randomisation: count/2ᴺ
    rng = np.random.default_rng(8)
    table = np.clip(rng.random((4, 22)) * 0.4 + np.array([[0.0], [0.05], [0.3], [0.6]]), 0, 1)
    boot = pairwise_bootstrap_tests(table, B=400, seed=2)
    np.testing.assert_array_equal(boot.p_values, boot.counts / 400)
    assert boot.p_values.min() == 0.0  # run 0 vs run 3: no resample reaches |t(z)|
    hsd = randomized_tukey_hsd(table, B=300, seed=2)
    np.testing.assert_array_equal(hsd.p_values, hsd.counts / 300)
    assert hsd.p_values.min() == 0.0
    sampled = pairwise_randomization_tests(table, B=500, seed=2)
    assert not sampled.exact
    np.testing.assert_array_equal(sampled.p_values, (sampled.counts + 1) / 501)
    assert sampled.p_values.min() == 1 / 501
    exact = pairwise_randomization_tests(table[:, :12], seed=2)
    assert exact.exact
    np.testing.assert_array_equal(exact.p_values, exact.counts / 2**12)


# ------------------------------------------------------------------------------- dispatcher, errors


def test_dispatcher_defaults():
    assert pairwise_tests(WORKED, "bootstrap").B == 1000
    assert pairwise_tests(WORKED, "tukey-hsd").B == 5000
    assert pairwise_tests(WORKED, "randomization").exact
    assert pairwise_tests(WORKED, "ttest").B is None


def test_bad_input_raises_divaeval_errors():
    with pytest.raises(UsageError):
        pairwise_tests(WORKED, "wilcoxon")
    with pytest.raises(UsageError):
        randomized_tukey_hsd(WORKED, B=0)
    with pytest.raises(UsageError):
        randomized_tukey_hsd(WORKED, comparison="<")
    with pytest.raises(UsageError):
        pairwise_bootstrap_tests(WORKED, alpha=1.5)
    with pytest.raises(UsageError):
        pairwise_bootstrap_tests(WORKED, seed=-1)
    with pytest.raises(DataError):
        pairwise_t_tests(np.array([[0.1, np.nan], [0.2, 0.3]]))
    with pytest.raises(DataError):
        pairwise_t_tests(np.array([[0.1], [0.2]]))  # one topic: no degrees of freedom
    with pytest.raises(DataError):
        paired_t_test([0.1, 0.2], [0.1, 0.2, 0.3])
    with pytest.raises(UsageError):
        sig.check_score_table(WORKED, ["a", "b"])
    with pytest.raises(UsageError):
        sig.check_score_table(WORKED, ["a", "b", "a"])
    with pytest.raises(UsageError):
        sign_test(-1, 2)
