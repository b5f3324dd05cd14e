"""Risk measures on score tables (divaeval.risk_measures): hand-worked examples and properties.

URisk: Wang et al. SIGIR 2012 / TREC Web 2013; TRisk: Dinçer, Macdonald & Ounis SIGIR 2014;
ZRisk and GeoRisk: Dinçer, Macdonald & Ounis SIGIR 2016. ndeval's per-topic value and topic set
are checked against ndeval itself in test_risk_oracles.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support import examples

from divaeval.errors import DataError, UsageError
from divaeval.risk_measures import (
    RISK_COLUMNS,
    check_risk_alpha,
    georisk,
    ndeval_topic_set,
    risk_table,
    risk_values,
    trisk,
    urisk,
    zrisk,
)
from divaeval.scores import EQUAL_TOLERANCE

# ---------------------------------------------------------------------------------------------
# hand-worked examples


def test_risk_values_worked():
    # r − b where r ≥ b, (1 + a)(r − b) where r < b; a = 1:
    # 0.5 − 0.4 = 0.1; 2·(0.3 − 0.4) = −0.2; 0.4 − 0.4 = 0; 2·(0 − 0.25) = −0.5
    r = np.array([0.5, 0.3, 0.4, 0.0])
    b = np.array([0.4, 0.4, 0.4, 0.25])
    assert risk_values(r, b, 1.0) == pytest.approx([0.1, -0.2, 0.0, -0.5], abs=1e-15)
    # a = 5: losses ×6
    assert risk_values(r, b, 5.0) == pytest.approx([0.1, -0.6, 0.0, -1.5], abs=1e-15)
    # NaN on either side stays NaN (ndeval: "r >= b" is false, (1 + a)·NaN)
    assert np.isnan(risk_values(np.array([np.nan, 0.2]), np.array([0.1, np.nan]), 1.0)).all()


# run 0.5 0.3 0.6 0.2 against a flat baseline 0.4: δ = 0.1 −0.1 0.2 −0.2
RUN = np.array([0.5, 0.3, 0.6, 0.2])
FLAT = np.full(4, 0.4)


def test_urisk_worked():
    # a = 0: (0.1 − 0.1 + 0.2 − 0.2)/4 = 0 (up to rounding of the decimal inputs)
    assert urisk(RUN, FLAT, 0.0)[0] == pytest.approx(0.0, abs=1e-16)
    # a = 1: δ' = 0.1 −0.2 0.2 −0.4, URisk = −0.3/4 = −0.075
    assert urisk(RUN, FLAT, 1.0)[0] == pytest.approx(-0.075, abs=1e-15)
    # a = 5: δ' = 0.1 −0.6 0.2 −1.2, URisk = −1.5/4 = −0.375
    assert urisk(RUN, FLAT, 5.0)[0] == pytest.approx(-0.375, abs=1e-15)


def test_trisk_worked():
    # a = 1: δ' = 0.1 −0.2 0.2 −0.4, mean −0.075; deviations 0.175 −0.125 0.275 −0.325,
    # squares 0.030625 + 0.015625 + 0.075625 + 0.105625 = 0.2275; s² = 0.2275/3 = 0.0758333,
    # s = 0.2753785; SE = s/√4 = 0.1376893; TRisk = −0.075/0.1376893 = −0.544705
    statistic, p_value = trisk(RUN, FLAT, 1.0)
    assert statistic[0] == pytest.approx(-0.075 / (math.sqrt(0.2275 / 3) / 2), rel=1e-12)
    assert statistic[0] == pytest.approx(-0.544705, abs=1e-6)
    # two-sided p with 3 degrees of freedom: 2·P(T_3 ≥ 0.544705) = 0.623838
    assert p_value[0] == pytest.approx(0.623838, abs=1e-6)
    # it is the one-sample t test of the risk values
    reference = scipy.stats.ttest_1samp(risk_values(RUN, FLAT, 1.0), 0.0)
    assert statistic[0] == pytest.approx(reference.statistic, rel=1e-12)
    assert p_value[0] == pytest.approx(reference.pvalue, rel=1e-12)


def test_trisk_degenerate_cases():
    # identical runs: TRisk 0, p 1; a constant gain or loss has no spread, so no evidence:
    # TRisk undefined (NaN), p 1; one topic: both undefined
    assert trisk(FLAT, FLAT)[0][0] == 0.0 and trisk(FLAT, FLAT)[1][0] == 1.0
    statistic, p_value = trisk(FLAT + 0.25, FLAT)
    assert math.isnan(statistic[0]) and p_value[0] == 1.0
    statistic, p_value = trisk(FLAT - 0.25, FLAT, 1.0)
    assert math.isnan(statistic[0]) and p_value[0] == 1.0
    assert np.isnan(trisk([[0.3]], [0.1])).all()
    # equal on paper, not in binary: 0.3 − 0.2 and 0.4 − 0.3 are both a gain of 0.1
    statistic, p_value = trisk([[0.3, 0.4, 0.7]], [0.2, 0.3, 0.6])
    assert math.isnan(statistic[0]) and p_value[0] == 1.0


# two runs × two topics
#   run 0: 0.2 0.6    S_0 = 0.8
#   run 1: 0.4 0.4    S_1 = 0.8
#   T = 0.6 1.0, N = 1.6
# e_00 = 0.8·0.6/1.6 = 0.3, e_01 = 0.8·1.0/1.6 = 0.5, the same for run 1
# z_00 = (0.2 − 0.3)/√0.3 = −0.1825742, z_01 = (0.6 − 0.5)/√0.5 = +0.1414214
# z_10 = +0.1825742, z_11 = −0.1414214
TWO = np.array([[0.2, 0.6], [0.4, 0.4]])


def test_zrisk_worked():
    # a = 0: ZRisk_0 = −0.1825742 + 0.1414214 = −0.0411528, ZRisk_1 = +0.0411528
    assert zrisk(TWO, 0.0) == pytest.approx([-0.0411528, 0.0411528], abs=1e-7)
    # a = 1: ZRisk_0 = 0.1414214 + 2·(−0.1825742) = −0.2237270
    #        ZRisk_1 = 0.1825742 + 2·(−0.1414214) = −0.1002686
    expected = [
        0.1 / math.sqrt(0.5) + 2 * (-0.1) / math.sqrt(0.3),
        0.1 / math.sqrt(0.3) + 2 * (-0.1) / math.sqrt(0.5),
    ]
    assert zrisk(TWO, 1.0) == pytest.approx(expected, rel=1e-12)
    assert zrisk(TWO, 1.0) == pytest.approx([-0.2237270, -0.1002686], abs=1e-7)


def test_georisk_worked():
    # a = 1: mean S_i/c = 0.4 for both runs;
    # run 0: Φ(−0.2237270/2) = Φ(−0.1118635) = 0.4554658, √(0.4·0.4554658) = 0.4268329
    # run 1: Φ(−0.1002686/2) = Φ(−0.0501343) = 0.4800077, √(0.4·0.4800077) = 0.4381816
    assert georisk(TWO, 1.0) == pytest.approx([0.4268329, 0.4381816], abs=1e-7)
    phi = scipy.stats.norm.cdf(zrisk(TWO, 1.0) / 2)
    assert georisk(TWO, 1.0) == pytest.approx(np.sqrt(0.4 * phi), rel=1e-12)


def test_zero_cells_have_no_deviation():
    # topic 2 is 0 for everyone and run 2 is 0 everywhere: e = 0 there, z = 0
    table = np.array([[0.2, 0.6, 0.0], [0.4, 0.4, 0.0], [0.0, 0.0, 0.0]])
    assert zrisk(table, 1.0) == pytest.approx([*zrisk(TWO, 1.0), 0.0], rel=1e-12)
    assert zrisk(np.zeros((2, 3))) == pytest.approx([0.0, 0.0])
    # all zero: mean 0, GeoRisk 0
    assert georisk(np.zeros((2, 3))) == pytest.approx([0.0, 0.0])


def test_negative_scores_are_rejected_by_zrisk():
    with pytest.raises(DataError, match="non-negative"):
        zrisk([[0.1, -0.2], [0.3, 0.1]])
    # risk_table reports them as NaN instead
    frame = risk_table([[0.1, -0.2], [0.3, 0.1]], ["a", "b"], baseline=1)
    assert frame["ZRisk"].isna().all() and frame["GeoRisk"].isna().all()
    assert frame["URisk"].notna().all()


def test_risk_table_columns_and_baseline_row():
    frame = risk_table(np.vstack([RUN, FLAT]), ["run", "base"], baseline=1, alpha=1)
    assert tuple(frame.columns) == RISK_COLUMNS
    run, base = frame.to_dict("records")
    assert run["URisk"] == pytest.approx(-0.075) and run["wins"] == 2 and run["losses"] == 2
    assert base["URisk"] == 0.0 and base["TRisk"] == 0.0 and base["p_value"] == 1.0
    assert base["wins"] == 0 and base["losses"] == 0
    without = risk_table(np.vstack([RUN, FLAT]), ["run", "base"])
    assert tuple(without.columns) == ("run", "mean", "ZRisk", "GeoRisk")
    with pytest.raises(UsageError, match="run names"):
        risk_table(np.vstack([RUN, FLAT]), ["run"])


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (0, (0.0, "0")),
        (1.0, (1.0, "1")),
        (0.5, (0.5, "0.5")),
        ("1.0", (1.0, "1.0")),
        (" 5", (5.0, "5")),
    ],
)
def test_alpha_text(given, expected):
    # ndeval prints -riskAlpha exactly as typed; numbers are written shortest
    assert check_risk_alpha(given) == expected


def test_ndeval_topic_set_worked():
    # run {1, 2, 4}, baseline {1, 3}, qrels {1, 2, 3}
    # without -c: rows = run topics 1 2 4; denominator max(|run ∩ qrels| = 2, 3 rows) = 3
    plain = ndeval_topic_set(["4", "1", "2"], ["1", "3"], ["1", "2", "3"], complete=False)
    assert plain.topics == ["1", "2", "4"] and plain.denominator == 3
    # with -c: rows = run ∪ baseline = 1 2 3 4; denominator max(|qrels| = 3, 4) = 4
    complete = ndeval_topic_set(["4", "1", "2"], ["1", "3"], ["1", "2", "3"], complete=True)
    assert complete.topics == ["1", "2", "3", "4"] and complete.denominator == 4
    # -c with a qrels topic in neither run (5): max(|qrels| = 4, 4 rows) = 4, not |all| = 5
    quirk = ndeval_topic_set(["1", "2", "9"], ["1", "3"], ["1", "2", "3", "5"], complete=True)
    assert quirk.topics == ["1", "2", "3", "9"] and quirk.denominator == 4


# ---------------------------------------------------------------------------------------------
# properties

SCORE = st.floats(0.0, 1.0, allow_nan=False, width=64)


def tables(min_runs=1, max_runs=5, min_topics=1, max_topics=12):
    shapes = st.tuples(st.integers(min_runs, max_runs), st.integers(min_topics, max_topics))
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=SCORE))


@given(tables(min_runs=2))
@settings(max_examples=examples(40), deadline=None)
def test_alpha_zero_is_the_plain_difference(table):
    assert np.array_equal(risk_values(table[0], table[1], 0.0), table[0] - table[1])


@given(tables(min_runs=2), st.floats(0, 10), st.floats(0, 10))
@settings(max_examples=examples(40), deadline=None)
def test_urisk_decreases_with_alpha_when_a_topic_loses(table, a1, a2):
    low, high = sorted((a1, a2))
    run, base = table[0], table[1]
    u_low, u_high = urisk(run, base, low)[0], urisk(run, base, high)[0]
    assert u_high <= u_low
    if not np.any(run < base):
        assert u_high == u_low
    elif high - low >= 0.01 and np.max(base - run) >= 1e-6:
        # strictly lower (tinier losses or steps drown in rounding)
        assert u_high < u_low
    # losses only ever weigh more: every risk value is at most the plain difference
    assert np.all(risk_values(run, base, high) <= run - base)


@given(tables(min_runs=2, min_topics=2), st.floats(0, 5))
@settings(max_examples=examples(40), deadline=None)
# risk values without spread (a constant gain of 1): TRisk is undefined, not of URisk's sign
@example(table=np.array([[1.0, 1.0], [0.0, 0.0]]), alpha=0.0)
def test_trisk_has_the_sign_of_urisk_and_is_the_paired_t_at_zero(table, alpha):
    run, base = table[0], table[1]
    statistic, p_value = trisk(run, base, alpha)
    u = urisk(run, base, alpha)[0]
    assert 0.0 <= p_value[0] <= 1.0
    values = risk_values(run, base, alpha)
    scale = (1.0 + alpha) * max(np.abs(run).max(), np.abs(base).max())
    if np.ptp(values) <= EQUAL_TOLERANCE * scale:
        # no spread, no evidence (test_trisk_degenerate_cases): TRisk 0 or NaN, p = 1
        assert statistic[0] == 0.0 or math.isnan(statistic[0])
        assert p_value[0] == 1.0
    elif abs(u) > 1e-12:
        assert np.sign(statistic[0]) == np.sign(u)
    delta = run - base
    assume(np.ptp(delta) > 1e-6)
    reference = scipy.stats.ttest_rel(run, base)
    assert trisk(run, base, 0.0)[0][0] == pytest.approx(reference.statistic, rel=1e-9, abs=1e-9)


@given(tables(min_runs=2), st.floats(0, 5), st.randoms(use_true_random=False))
@settings(max_examples=examples(40), deadline=None)
def test_georisk_and_zrisk_invariant_to_run_and_topic_order(table, alpha, random):
    run_order = list(range(table.shape[0]))
    topic_order = list(range(table.shape[1]))
    random.shuffle(run_order)
    random.shuffle(topic_order)
    shuffled = table[run_order][:, topic_order]
    assert georisk(shuffled, alpha) == pytest.approx(georisk(table, alpha)[run_order], abs=1e-12)
    assert zrisk(shuffled, alpha) == pytest.approx(zrisk(table, alpha)[run_order], abs=1e-9)


@given(tables(), st.floats(0, 5))
@settings(max_examples=examples(40), deadline=None)
def test_zrisk_ignores_all_zero_topics_and_runs(table, alpha):
    # a topic every run scores 0 (T_j = 0) and a run that scores 0 everywhere (S_i = 0) leave
    # N, every other S_i and T_j, and so every other e_ij and z_ij unchanged
    padded = np.zeros((table.shape[0] + 1, table.shape[1] + 1))
    padded[:-1, :-1] = table
    z = zrisk(padded, alpha)
    assert z[:-1] == pytest.approx(zrisk(table, alpha), abs=1e-12)
    assert z[-1] == 0.0


@given(
    hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(0.01, 1.0)),
    hnp.arrays(np.float64, st.integers(1, 10), elements=st.floats(0.01, 1.0)),
    st.floats(0, 5),
)
@settings(max_examples=examples(40), deadline=None)
def test_proportional_profiles_carry_no_risk(run_factors, topic_factors, alpha):
    # x_ij = a_i·b_j: S_i = a_i·B, T_j = A·b_j, N = A·B, so e_ij = x_ij and every z_ij = 0
    table = np.outer(run_factors, topic_factors)
    assert zrisk(table, alpha) == pytest.approx(np.zeros(len(run_factors)), abs=1e-9)


@given(tables(), st.floats(0, 5), st.floats(0, 5))
@settings(max_examples=examples(40), deadline=None)
def test_zrisk_and_georisk_fall_as_alpha_grows_and_georisk_is_bounded(table, a1, a2):
    low, high = sorted((a1, a2))
    assert np.all(zrisk(table, high) <= zrisk(table, low) + 1e-12)
    assert np.all(georisk(table, high) <= georisk(table, low) + 1e-12)
    # 0 ≤ GeoRisk ≤ √(mean score), since 0 ≤ Φ ≤ 1
    mean = table.mean(axis=1)
    assert np.all(georisk(table, low) >= 0)
    assert np.all(georisk(table, low) <= np.sqrt(mean) + 1e-12)


@given(tables(min_runs=2), st.floats(0, 5))
@settings(max_examples=examples(40), deadline=None)
def test_identical_runs_have_no_zrisk(table, alpha):
    # every run the same: e_ij = x_ij, so ZRisk = 0 and GeoRisk = √(mean · Φ(0)) = √(mean/2)
    same = np.repeat(table[:1], table.shape[0], axis=0)
    assert zrisk(same, alpha) == pytest.approx(np.zeros(len(same)), abs=1e-9)
    assert georisk(same, alpha) == pytest.approx(np.sqrt(same.mean(axis=1) / 2), abs=1e-9)
