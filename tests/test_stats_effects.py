"""Effect sizes and confidence intervals (meta-evaluation.md §7-§8)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.stats.effects import (
    bootstrap_mean_difference_ci,
    exact_bootstrap_mean_difference_ci,
    paired_effect_size,
    pairwise_bootstrap_cis,
    pairwise_effect_sizes,
    pairwise_t_cis,
    row_quantiles,
    t_mean_difference_ci,
)

WORKED = np.array(
    [
        [0.50, 0.60, 0.30, 0.80, 0.45],
        [0.40, 0.55, 0.35, 0.60, 0.40],
        [0.30, 0.20, 0.10, 0.40, 0.45],
    ]
)


def test_effect_size_worked_example():
    # A-B: d_z = z̄/s = 0.07/0.090830 = 0.770675; A-C 0.24/0.167332 = 1.434274;
    # B-C 0.17/0.152480 = 1.114904
    assert paired_effect_size(WORKED[0], WORKED[1]) == pytest.approx(0.770675, abs=1e-6)
    np.testing.assert_allclose(
        pairwise_effect_sizes(WORKED), [0.770675, 1.434274, 1.114904], atol=1e-6
    )


def test_effect_size_degenerate():
    assert paired_effect_size([0.5, 0.6], [0.4, 0.5]) == math.inf
    assert paired_effect_size([0.4, 0.5], [0.5, 0.6]) == -math.inf
    assert math.isnan(paired_effect_size([0.4, 0.5], [0.4, 0.5]))


def test_exact_bootstrap_ci_worked_example():
    # 3125 resampled means of z = (0.10, 0.05, -0.05, 0.20, 0.05), type-7 quantiles at 0.025
    # and 0.975 → [0.00, 0.14] around z̄ = 0.07
    ci = exact_bootstrap_mean_difference_ci(WORKED[0], WORKED[1])
    assert ci.low == pytest.approx(0.0, abs=1e-12)
    assert ci.high == pytest.approx(0.14, abs=1e-12)
    assert ci.mean_difference == pytest.approx(0.07)


def test_sampled_bootstrap_ci_is_close_to_exact_and_deterministic():
    ci = bootstrap_mean_difference_ci(WORKED[0], WORKED[1], B=10_000, seed=42)
    assert ci.B == 10_000 and ci.seed == 42 and ci.method == "bootstrap"
    assert ci.low == pytest.approx(0.0, abs=0.011)
    assert ci.high == pytest.approx(0.14, abs=0.011)
    again = bootstrap_mean_difference_ci(WORKED[0], WORKED[1], B=10_000, seed=42)
    assert again == ci
    low, high = pairwise_bootstrap_cis(WORKED, B=10_000, seed=42)
    assert (low[0], high[0]) == (ci.low, ci.high)  # the same index vectors for every pair


def test_t_ci_matches_scipy():
    rng = np.random.default_rng(4)
    x, y = rng.random(20), rng.random(20)
    expected = scipy.stats.ttest_rel(x, y).confidence_interval(0.95)
    ci = t_mean_difference_ci(x, y)
    assert ci.low == pytest.approx(expected.low, rel=1e-9)
    assert ci.high == pytest.approx(expected.high, rel=1e-9)
    low, high = pairwise_t_cis(np.vstack([x, y]), alpha=0.05)
    assert low[0] == pytest.approx(expected.low, rel=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.integers(min_value=1, max_value=4).flatmap(
        lambda rows: st.integers(min_value=1, max_value=80).flatmap(
            lambda n: st.lists(
                st.lists(
                    st.one_of(
                        st.floats(-1, 1),
                        st.sampled_from([0.0, -0.0, 0.5, -0.5, 1e-300]),
                    ),
                    min_size=n,
                    max_size=n,
                ),
                min_size=rows,
                max_size=rows,
            )
        )
    ),
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.05, 0.5, 1.0])),
)
def test_row_quantiles_are_numpys_quantiles_bit_for_bit(values, alpha):
    """The bootstrap intervals' quantiles (their own selection of the order statistics) are
    np.quantile's (type 7), the same bits, ties included: the intervals printed before. (Of
    a row holding 0.0 and -0.0, which compare equal, either zero may be taken: the writers
    print both as 0.)"""
    rows = np.array(values, dtype=float)
    levels = [alpha / 2.0, 1.0 - alpha / 2.0]
    expected = np.quantile(rows, levels, axis=1)
    found = row_quantiles(rows.copy(), levels)
    assert found.shape == expected.shape
    assert np.array_equal(found, expected)
    if not (rows == 0).any():
        assert (np.signbit(found) == np.signbit(expected)).all()


@pytest.mark.parametrize("n", [1, 2, 3, 40, 10_000])
@pytest.mark.parametrize("alpha", [0.0, 0.01, 0.05, 0.1, 0.5, 0.999, 1.0])
def test_row_quantiles_at_the_bounds_and_the_default_resamples(n, alpha):
    """Every position pattern: one value, neighbours at either end, the clipped top, and the
    intervals' own B = 10,000 (positions 249, 250, 9749, 9750 at alpha 0.05)."""
    rows = np.random.default_rng(n).normal(size=(3, n)).round(2)  # ties too
    levels = [alpha / 2.0, 1.0 - alpha / 2.0]
    expected = np.quantile(rows, levels, axis=1)
    assert np.array_equal(row_quantiles(rows.copy(), levels), expected)
