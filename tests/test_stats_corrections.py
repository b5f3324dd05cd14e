"""Multiple-comparison corrections (meta-evaluation.md §6)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from divaeval.errors import DataError, UsageError
from divaeval.stats.corrections import (
    adjust_p_values,
    benjamini_hochberg,
    bonferroni,
    correct_p_values,
    holm,
)

P = [0.010, 0.040, 0.030, 0.005, 0.200]


def test_bonferroni_hand_example():
    # m = 5: 5·p capped at 1
    np.testing.assert_allclose(bonferroni(P), [0.05, 0.20, 0.15, 0.025, 1.0])


def test_holm_hand_example():
    # sorted: 0.005·5 = 0.025, 0.010·4 = 0.04, 0.030·3 = 0.09, max(0.040·2, 0.09) = 0.09,
    # 0.200·1 = 0.20
    np.testing.assert_allclose(holm(P), [0.04, 0.09, 0.09, 0.025, 0.20])


def test_benjamini_hochberg_hand_example():
    # 0.005·5/1 = 0.025, 0.010·5/2 = 0.025, 0.030·5/3 = 0.05, 0.040·5/4 = 0.05, 0.200·5/5 = 0.2
    np.testing.assert_allclose(benjamini_hochberg(P), [0.025, 0.05, 0.05, 0.025, 0.20])


def test_worked_example_t_test_p_values():
    # meta-evaluation.md §8: t-test p-values of A-B, A-C, B-C
    p = [0.159935, 0.032678, 0.067268]
    np.testing.assert_allclose(bonferroni(p), [0.479805, 0.098034, 0.201804], atol=1e-6)
    np.testing.assert_allclose(holm(p), [0.159935, 0.098034, 0.134536], atol=1e-6)
    np.testing.assert_allclose(benjamini_hochberg(p), [0.159935, 0.098034, 0.100902], atol=1e-6)


def test_reject_is_strict():
    result = correct_p_values([0.01, 0.05], "none", alpha=0.05)
    assert result.reject.tolist() == [True, False]
    holm_result = correct_p_values(P, "holm", alpha=0.05)
    assert holm_result.reject.tolist() == [True, False, False, True, False]
    assert holm_result.method == "holm"


p_value_lists = st.lists(st.floats(0, 1), min_size=1, max_size=40)


@given(p_value_lists)
def test_bh_matches_scipy(p):
    expected = scipy.stats.false_discovery_control(p, method="bh")
    np.testing.assert_allclose(benjamini_hochberg(p), expected, rtol=1e-12, atol=1e-15)


@given(p_value_lists)
def test_adjusted_values_are_ordered_and_bounded(p):
    raw = np.array(p)
    for method in ("bonferroni", "holm", "bh"):
        adjusted = adjust_p_values(raw, method)
        assert np.all(adjusted >= raw - 1e-15) and np.all(adjusted <= 1.0)
        order = np.argsort(raw, kind="stable")
        assert np.all(np.diff(adjusted[order]) >= -1e-15)  # monotone in the raw p-values
    # Holm is never more liberal than BH, never more conservative than Bonferroni
    assert np.all(holm(raw) <= bonferroni(raw) + 1e-15)
    assert np.all(benjamini_hochberg(raw) <= holm(raw) + 1e-15)


def test_none_returns_a_copy():
    raw = np.array(P)
    adjusted = adjust_p_values(raw, "none")
    np.testing.assert_array_equal(adjusted, raw)
    assert adjusted is not raw


def test_errors():
    with pytest.raises(UsageError):
        adjust_p_values(P, "sidak")
    with pytest.raises(DataError):
        holm([0.1, 1.2])
    with pytest.raises(DataError):
        holm([0.1, float("nan")])
    with pytest.raises(UsageError):
        correct_p_values(P, "holm", alpha=0)
