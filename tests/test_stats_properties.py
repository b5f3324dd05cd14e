"""Properties every significance test holds (issue 22): identical runs are never significantly
different (p = 1, also when their scores differ by floating-point noise), and swapping runs A and
B gives the pair the same p-value, bit for bit. Tests: paired t, Sakai's bootstrap, randomisation
(exact and sampled), randomised and exact Tukey HSD (> and >=), the sign test; TRisk, the
effect size and discriminative power on top of them."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.meta.discriminative_power import discriminative_power
from divaeval.risk_measures import trisk
from divaeval.stats.effects import pairwise_effect_sizes
from divaeval.stats.significance import (
    exact_tukey_hsd,
    pairwise_bootstrap_tests,
    pairwise_randomization_tests,
    pairwise_t_tests,
    randomized_tukey_hsd,
    sign_test_preferences,
)

#: grid values make ties, zeros and differences equal on paper but not in binary
GRID = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9, 1.0]


def _noisy_copy(row: np.ndarray, how: int) -> np.ndarray:
    """The same scores reached by another floating-point path (equal on paper), with rounding
    at the scale of the scores themselves (the largest of the run), as a metric's own sums
    and ratios round: (x + m) − m, x·3/3, (x + 0.7m) − 0.7m."""
    scale = float(np.abs(row).max())
    if how == 0:
        return row.copy()
    if how == 1:
        return (row + scale) - scale
    if how == 2:
        return (row * 3.0) / 3.0
    return (row + 0.7 * scale) - 0.7 * scale


def _pairwise_p_values(table: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Every test's p-values of every pair of ``table`` (pairs in command-line order)."""
    return {
        "ttest": pairwise_t_tests(table).p_values,
        "bootstrap": pairwise_bootstrap_tests(table, B=200, seed=seed).p_values,
        "randomization exact": pairwise_randomization_tests(table, exact=True).p_values,
        "randomization sampled": pairwise_randomization_tests(
            table, B=300, seed=seed, exact=False
        ).p_values,
        "tukey-hsd >": randomized_tukey_hsd(table, B=200, seed=seed).p_values,
        "tukey-hsd >=": randomized_tukey_hsd(table, B=200, seed=seed, comparison=">=").p_values,
    }


scores = st.sampled_from(GRID) | st.floats(0.0, 1.0, allow_nan=False, allow_subnormal=False)


@st.composite
def tables_with_a_copy(draw) -> tuple[np.ndarray, int]:
    """(table, how): rows 0 and 1 are the same run, row 1 reached by another path ``how``;
    0 to 2 other runs."""
    n_topics = draw(st.integers(2, 10))
    n_others = draw(st.integers(0, 2))
    rows = [
        np.array(draw(st.lists(scores, min_size=n_topics, max_size=n_topics)))
        for _ in range(1 + n_others)
    ]
    how = draw(st.integers(0, 3))
    return np.vstack([rows[0], _noisy_copy(rows[0], how), *rows[1:]]), how


@settings(max_examples=examples(20), deadline=None)
@given(tables_with_a_copy(), st.integers(0, 2**32 - 1))
def test_identical_runs_are_never_significant(case, seed):
    table, _ = case
    for test, p_values in _pairwise_p_values(table, seed).items():
        assert p_values[0] == 1.0, test  # pair (0, 1): the two copies
    if table.shape[0] <= 3 and table.shape[1] <= 4:
        assert exact_tukey_hsd(table).p_values[0] == 1.0
    z = table[0] - table[1]
    preferences = np.where(np.abs(z) <= 1e-12, 0.0, np.sign(z))
    assert sign_test_preferences(preferences).p_value == 1.0
    assert math.isnan(pairwise_effect_sizes(table)[0])
    statistic, p_value = trisk(table[1:2], table[0])
    assert statistic[0] == 0.0 and p_value[0] == 1.0


@settings(max_examples=examples(20), deadline=None)
@given(
    st.integers(2, 10).flatmap(
        lambda n: st.lists(
            st.lists(scores, min_size=n, max_size=n).map(np.array), min_size=2, max_size=4
        )
    ),
    st.integers(0, 2**32 - 1),
)
def test_swapping_two_runs_gives_the_same_p_values(rows, seed):
    table = np.vstack(rows)
    swapped = table[[1, 0, *range(2, len(rows))]]
    before = _pairwise_p_values(table, seed)
    after = _pairwise_p_values(swapped, seed)
    for test in before:
        # pair (0, 1) is the pair (1, 0); every other pair keeps its runs
        assert after[test][0] == before[test][0], test
        assert sorted(after[test][1:]) == sorted(before[test][1:]), test
    if table.shape[0] <= 3 and table.shape[1] <= 4:
        assert exact_tukey_hsd(swapped).p_values[0] == exact_tukey_hsd(table).p_values[0]
    z = table[0] - table[1]
    assert sign_test_preferences(np.sign(z)).p_value == sign_test_preferences(-np.sign(z)).p_value
    forward, backward = trisk(table[:1], table[1]), trisk(table[1:2], table[0])
    assert forward[1][0] == backward[1][0]  # α = 0: the paired t test, either way round


@settings(max_examples=examples(20), deadline=None)
@given(tables_with_a_copy(), st.sampled_from(["bootstrap", "tukey-hsd", "ttest"]))
def test_identical_runs_add_no_discriminative_power(case, test):
    table, _ = case
    if table.shape[0] == 2:
        result = discriminative_power({"m": table}, ["a", "b"], test=test, B=100)
        assert result.metrics["m"].n_significant == 0
