"""Sakai's intuitiveness test, Figure 6 (meta-evaluation.md §9)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from divaeval.errors import DataError, UsageError
from divaeval.meta.intuitiveness import intuitiveness, intuitiveness_table

# The six (pair, topic) cases of §9 as two runs x six topics; run 2 scores 0 everywhere, so
# M(t, r1) − M(t, r2) is the listed Δ.
DM1 = [0.10, -0.10, 0.20, 0.0, -0.30, 0.05]
DM2 = [-0.20, 0.05, 0.10, 0.30, 0.10, -0.05]
DGS1 = [1, 0, -1, 1, 0.5, 0.2]
DGS2 = [-1, 1, 0, 1, 0, 0.1]


def two_runs(deltas):
    return np.array([deltas, [0.0] * len(deltas)])


def test_one_gold_standard():
    # disagreements: cases 1, 2, 5, 6 (case 3 agrees, case 4 has ΔM1 = 0) → 4
    # M1 correct with GS1: 1 (+·+), 2 (tie), 6 (+·+) → 3/4; M2: 2 (tie), 5 (+·+) → 2/4
    result = intuitiveness(two_runs(DM1), two_runs(DM2), two_runs(DGS1))
    assert (result.disagreements, result.correct1, result.correct2) == (4, 3, 2)
    assert result.intuitiveness1 == 0.75 and result.intuitiveness2 == 0.5


def test_two_gold_standards():
    # both must agree (≥ 0): M1 only case 6 → 1/4; M2 cases 2 and 5 → 2/4
    result = intuitiveness(two_runs(DM1), two_runs(DM2), [two_runs(DGS1), two_runs(DGS2)])
    assert (result.correct1, result.correct2) == (1, 2)
    assert result.intuitiveness1 == 0.25 and result.intuitiveness2 == 0.5


def test_pairs_over_several_runs_and_the_table():
    rng = np.random.default_rng(0)
    m1, m2, gold = rng.random((3, 4, 6))
    direct = intuitiveness(m1, m2, gold)
    # brute force over 6 run pairs x 6 topics
    disagreements = correct1 = correct2 = 0
    for a in range(4):
        for b in range(a + 1, 4):
            for t in range(6):
                d1, d2, dg = m1[a, t] - m1[b, t], m2[a, t] - m2[b, t], gold[a, t] - gold[b, t]
                if d1 * d2 < 0:
                    disagreements += 1
                    correct1 += d1 * dg >= 0
                    correct2 += d2 * dg >= 0
    assert (direct.disagreements, direct.correct1, direct.correct2) == (
        disagreements,
        correct1,
        correct2,
    )
    table = intuitiveness_table({"m1": m1, "m2": m2, "m3": gold}, {"I-rec": gold})
    assert table[["metric_1", "metric_2"]].values.tolist() == [
        ["m1", "m2"],
        ["m1", "m3"],
        ["m2", "m3"],
    ]
    assert table.loc[0, "disagreements"] == disagreements
    assert table.loc[1, "intuitiveness_2"] == 1.0  # the gold standard always agrees with itself


def test_no_disagreement_is_undefined():
    same = two_runs([0.1, 0.2])
    result = intuitiveness(same, same, same)
    assert result.disagreements == 0 and math.isnan(result.intuitiveness1)


def test_errors():
    with pytest.raises(DataError):
        intuitiveness(two_runs(DM1), two_runs(DM2[:5]), two_runs(DGS1))
    with pytest.raises(UsageError):
        intuitiveness(two_runs(DM1), two_runs(DM2), [two_runs(DGS1)] * 3)
    with pytest.raises(UsageError):
        intuitiveness_table({"m": two_runs(DM1)}, {"g": two_runs(DGS1)})
