"""Metric Unanimity (Amigó et al. 2018 §6.1; meta-evaluation.md §10)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from divaeval.errors import UsageError
from divaeval.meta.unanimity import metric_unanimity, metric_unanimity_table

# The paper's example: three system outputs for one topic (rows = outputs, one topic column).
M1 = np.array([[1.0], [0.5], [0.2]])
M2 = np.array([[0.8], [0.3], [0.4]])
M3 = np.array([[1.0], [0.2], [0.5]])


def test_paper_example_mu_is_0_415():
    # six ordered pairs; Δm1 holds for (S1,S2), (S1,S3), (S2,S3): P = 3/6.
    # Δℳ (m2 and m3 both ≥) for (S1,S2), (S1,S3), (S3,S2): P = 3/6. Joint (S1,S2), (S1,S3): 2/6.
    # MU = log₂((2/6)/(3/6·3/6)) = log₂(4/3) = 0.415
    result = metric_unanimity(M1, [M2, M3])
    assert round(result.mu, 3) == 0.415
    assert result.mu == pytest.approx(math.log2(4 / 3))
    assert (result.joint_count, result.unanimous_count, result.n_pairs) == (2.0, 3, 6)


def test_other_metrics_of_the_example():
    # MU_{m1,m3}(m2) = MU_{m1,m2}(m3) = log₂((2/6)/(1/2·2/6)) = 1.0
    assert metric_unanimity(M2, [M1, M3]).mu == pytest.approx(1.0)
    assert metric_unanimity(M3, [M1, M2]).mu == pytest.approx(1.0)
    table = metric_unanimity_table({"m1": M1, "m2": M2, "m3": M3})
    np.testing.assert_allclose(table["mu"], [math.log2(4 / 3), 1.0, 1.0])


def test_ties_count_one_half():
    # m1 = (1, 0.5, 0.5): the pair (S3,S2) adds 0.5: joint 2.5/6 → log₂((2.5/6)/(0.5·0.5)) = 0.737
    tied = np.array([[1.0], [0.5], [0.5]])
    assert metric_unanimity(tied, [M2, M3]).mu == pytest.approx(0.736966, abs=1e-6)


def test_constant_metric_has_zero_unanimity():
    # Property 2: every pair ties, joint = P(Δℳ)/2 → MU = log₂(1) = 0
    rng = np.random.default_rng(0)
    others = [rng.random((5, 4)) for _ in range(2)]
    assert metric_unanimity(np.full((5, 4), 0.3), others).mu == 0.0


def test_copies_in_the_other_metrics_do_not_change_mu():
    # Property 4: Δℳ is a conjunction
    rng = np.random.default_rng(1)
    target, a, b = rng.random((3, 6, 5))
    assert metric_unanimity(target, [a, b]).mu == metric_unanimity(target, [a, b, b, a]).mu


def test_pairs_are_pooled_over_topics():
    # two topics: the same example twice gives the same probabilities
    doubled = metric_unanimity(np.hstack([M1, M1]), [np.hstack([M2, M2]), np.hstack([M3, M3])])
    assert doubled.n_pairs == 12 and doubled.mu == pytest.approx(math.log2(4 / 3))


def test_undefined_and_minus_infinity_warn(collected_warnings):
    # m' = −m for a second metric: no output is unanimously ≥ another → nan
    target = np.array([[1.0], [0.5], [0.2]])
    undefined = metric_unanimity(target, [target, -target + np.array([[0.0], [0.1], [0.0]])])
    # the reverse of a unanimous ordering captures nothing → −inf
    reverse = metric_unanimity(-M1, [M1])
    assert math.isnan(undefined.mu)
    assert reverse.mu == -math.inf
    assert len(collected_warnings) == 2


def test_errors():
    with pytest.raises(UsageError):
        metric_unanimity(M1, [])
    with pytest.raises(UsageError):
        metric_unanimity_table({"m1": M1})
