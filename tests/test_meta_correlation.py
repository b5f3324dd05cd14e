"""Kendall's τ-b/τ-a and τ_ap between system rankings (meta-evaluation.md §11)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from divaeval.errors import DataError, UsageError
from divaeval.meta.correlation import (
    kendall_tau,
    rank_correlation_matrix,
    rank_correlations,
    symmetric_tau_ap,
    system_ranking,
    tau_ap,
)

RUNS = ["S1", "S2", "S3", "S4", "S5"]
X = [0.9, 0.8, 0.7, 0.6, 0.5]  # ranking S1 S2 S3 S4 S5
Y = [0.85, 0.60, 0.70, 0.65, 0.40]  # ranking S1 S3 S4 S2 S5


def test_kendall_tau_example():
    # discordant pairs (S2,S3), (S2,S4): τ = (8 − 2)/10 = 0.6
    assert kendall_tau(X, Y) == pytest.approx(0.6)
    assert kendall_tau(X, Y, "a") == pytest.approx(0.6)


def test_kendall_tau_b_with_a_tie():
    # S4 = S5 = 0.6 in X: n_c = 7, n_d = 2, n_1 = 1 → τ_b = 5/√(9·10) = 0.527046, τ_a = 0.5
    tied = [0.9, 0.8, 0.7, 0.6, 0.6]
    assert kendall_tau(tied, Y) == pytest.approx(0.527046, abs=1e-6)
    assert kendall_tau(tied, Y, "a") == pytest.approx(0.5)


def test_tau_ap_example():
    # τ_ap(Y | X): C(i)/(i−1) = 1/1, 2/2, 1/3, 4/4 → (2/4)·3.333333 − 1 = 0.666667
    # τ_ap(X | Y): 1/1, 1/2, 2/3, 4/4 → (2/4)·3.166667 − 1 = 0.583333; symmetric 0.625
    assert tau_ap(Y, X, RUNS) == pytest.approx(2 / 3)
    assert tau_ap(X, Y, RUNS) == pytest.approx(7 / 12)
    assert symmetric_tau_ap(X, Y, RUNS) == pytest.approx(0.625)


def test_tau_ap_extremes_and_tie_rule():
    assert tau_ap(X, X, RUNS) == pytest.approx(1.0)
    assert tau_ap(X, X[::-1], RUNS) == pytest.approx(-1.0)
    # ties in the means are broken by run name ascending
    assert system_ranking([0.5, 0.7, 0.5], ["b", "c", "a"]) == [1, 2, 0]


@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5]), st.floats(0, 1)),
        min_size=2,
        max_size=25,
    )
)
def test_tau_b_matches_scipy(values):
    x = [v[0] for v in values]
    y = [v[1] for v in values]
    expected = scipy.stats.kendalltau(x, y).statistic
    result = kendall_tau(x, y)
    if math.isnan(expected):
        assert math.isnan(result)
    else:
        assert result == pytest.approx(expected, rel=1e-12, abs=1e-15)


def brute_force_tau(x: list[float], y: list[float]) -> tuple[float, float]:
    """(τ-a, τ-b) by the definitions, with an explicit loop over the pairs."""
    n = len(x)
    score = tied_x = tied_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = (x[i] > x[j]) - (x[i] < x[j])
            dy = (y[i] > y[j]) - (y[i] < y[j])
            score += dx * dy
            tied_x += dx == 0
            tied_y += dy == 0
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return score / pairs, score / denominator if denominator else math.nan


@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5]), st.sampled_from([0.0, 0.4, 0.7])),
        min_size=2,
        max_size=40,
    )
)
def test_tau_a_and_b_equal_the_definitions_exactly(values):
    # n_c − n_d is recovered exactly from scipy's τ-b: both variants are bit-identical to the
    # definitions (many ties here, including rankings of all ties)
    x = [v[0] for v in values]
    y = [v[1] for v in values]
    tau_a, tau_b = brute_force_tau(x, y)
    assert kendall_tau(x, y, "a") == tau_a
    result = kendall_tau(x, y)
    assert (math.isnan(result) and math.isnan(tau_b)) or result == tau_b


@given(st.lists(st.floats(0, 1), min_size=2, max_size=30, unique=True), st.data())
def test_tau_a_equals_tau_b_without_ties(x, data):
    y = data.draw(st.permutations(x))
    assert kendall_tau(x, y, "a") == kendall_tau(x, y, "b")


def test_matrices_from_score_tables():
    x_table = np.array(X)[:, None] + np.zeros((5, 3))  # per-topic tables with those means
    y_table = np.array(Y)[:, None] + np.array([[-0.01, 0.0, 0.01]])
    scores = {"X": x_table, "Y": y_table}
    tau = rank_correlation_matrix(scores, RUNS)
    assert tau.loc["X", "Y"] == pytest.approx(0.6) and tau.loc["X", "X"] == pytest.approx(1.0)
    ap = rank_correlation_matrix(scores, RUNS, "tau_ap")
    assert ap.loc["Y", "X"] == pytest.approx(2 / 3)  # row = candidate, column = reference
    long = rank_correlations(scores, RUNS)
    row = long.iloc[0]
    assert (row.metric_a, row.metric_b) == ("X", "Y")
    assert row.tau_ap_b_given_a == pytest.approx(2 / 3)
    assert row.tau_ap_sym == pytest.approx(0.625)


def test_errors():
    with pytest.raises(DataError):
        kendall_tau([1, 2], [1, 2, 3])
    with pytest.raises(UsageError):
        kendall_tau(X, Y, "c")
    with pytest.raises(UsageError):
        rank_correlation_matrix({"X": np.array(X)}, RUNS, "spearman")
