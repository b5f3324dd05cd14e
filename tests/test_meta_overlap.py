"""Overlap of the significantly different run pairs between metrics (Sakai WWW 2012 Table 4;
divaeval.meta.overlap)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from support import examples

from divaeval.errors import UsageError
from divaeval.meta.discriminative_power import discriminative_power
from divaeval.meta.overlap import overlap_frame, power_overlap, significant_pair_overlap


def test_hand_worked_masks():
    # five run pairs; A significant on pairs 0, 1, 2; B on 1, 2, 3; C on none
    #   A-B: only A = {0}, both = {1, 2}, only B = {3}  -> 1/2/1
    #   A-C: 3/0/0; B-C: 3/0/0
    masks = {
        "A": np.array([1, 1, 1, 0, 0], dtype=bool),
        "B": np.array([0, 1, 1, 1, 0], dtype=bool),
        "C": np.zeros(5, dtype=bool),
    }
    cells = [(o.first, o.second, o.cell, o.pairs) for o in significant_pair_overlap(masks)]
    assert cells == [("A", "B", "1/2/1", 5), ("A", "C", "3/0/0", 5), ("B", "C", "3/0/0", 5)]
    frame = overlap_frame(significant_pair_overlap(masks))
    assert list(frame.columns) == [
        "metric_a",
        "metric_b",
        "only_a",
        "both",
        "only_b",
        "pairs",
        "cell",
    ]
    assert frame.iloc[0][["only_a", "both", "only_b"]].tolist() == [1, 2, 1]


def test_sakai_table4_arithmetic():
    # Table 4's rightmost column: I-rec and P+Q# share 48 pairs, I-rec has 3 more and P+Q# 2
    # more; 3 + 48 = 51 and 48 + 2 = 50 significant of 190 pairs (26.8 % and 26.3 %).
    pairs = 190
    irec = np.zeros(pairs, dtype=bool)
    pq = np.zeros(pairs, dtype=bool)
    irec[:51] = True
    pq[3:53] = True
    (overlap,) = significant_pair_overlap({"I-rec": irec, "P+Q#": pq})
    assert overlap.cell == "3/48/2"
    assert round(100 * (overlap.only_first + overlap.both) / pairs, 1) == 26.8
    assert round(100 * (overlap.both + overlap.only_second) / pairs, 1) == 26.3


def test_worked_example_through_the_t_test():
    # M: the discriminative-power worked example, t-test p = 0.160 (A-B), 0.033 (A-C),
    # 0.067 (B-C); at α = 0.10 A-C and B-C are significant. N: run C raised by 0.25 on every
    # topic, so B-C's differences become -0.15, 0.10, 0.00, -0.05, -0.30 (p = 0.31) and A-C's
    # -0.05, 0.15, -0.05, 0.15, -0.25 (p = 0.90); A-B is unchanged (p = 0.160): N has no
    # significant pair. Overlap M-N: 2/0/0.
    worked = np.array(
        [
            [0.50, 0.60, 0.30, 0.80, 0.45],
            [0.40, 0.55, 0.35, 0.60, 0.40],
            [0.30, 0.20, 0.10, 0.40, 0.45],
        ]
    )
    raised = worked.copy()
    raised[2] += 0.25
    result = discriminative_power(
        {"M": worked, "N": raised}, ["A", "B", "C"], test="ttest", alpha=0.10
    )
    assert result.metrics["M"].n_significant == 2
    assert result.metrics["N"].n_significant == 0
    (overlap,) = power_overlap(result)
    assert overlap.cell == "2/0/0"


@settings(max_examples=examples(40), deadline=None)
@given(
    arrays(np.float64, (4, 6), elements=st.floats(0, 1, allow_nan=False)),
    arrays(np.float64, (4, 6), elements=st.floats(0, 1, allow_nan=False)),
)
def test_counts_add_up_to_each_metrics_power(first, second):
    result = discriminative_power(
        {"X": first, "Y": second}, ["a", "b", "c", "d"], test="ttest", alpha=0.2
    )
    (overlap,) = power_overlap(result)
    assert overlap.only_first + overlap.both == result.metrics["X"].n_significant
    assert overlap.both + overlap.only_second == result.metrics["Y"].n_significant
    assert overlap.pairs == 6
    # symmetric: swapping the metrics swaps the two "only" counts
    (swapped,) = significant_pair_overlap(
        {
            "Y": result.metrics["Y"].tests.p_values < 0.2,
            "X": result.metrics["X"].tests.p_values < 0.2,
        }
    )
    assert (swapped.only_first, swapped.both, swapped.only_second) == (
        overlap.only_second,
        overlap.both,
        overlap.only_first,
    )


def test_bad_inputs():
    with pytest.raises(UsageError, match="at least two metrics"):
        significant_pair_overlap({"A": np.ones(3, dtype=bool)})
    with pytest.raises(UsageError, match="same pairs"):
        significant_pair_overlap({"A": np.ones(3, dtype=bool), "B": np.ones(4, dtype=bool)})
