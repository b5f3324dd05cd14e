"""Ties of recall measures on truncated rankings with pessimistic imputation (Diaz, Ekstrand &
Mitra, TORS 2025, §2.2, Figure 6; divaeval.meta.depth_ties): the exact probabilities against
brute force over every pair of relevant-position sets, the complete-ranking theorems at full
depth, a hand-worked case, and the Monte Carlo estimates against the exact values."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.errors import UsageError
from divaeval.meta.depth_ties import (
    depth_ties,
    figure6,
    impute_positions,
    position_measures,
    recall_at_depth_distribution,
    sampled_depth_ties,
    tie_lexirecall_at_depth,
    tie_recall_at_depth,
    tie_rprecision_at_depth,
    tie_tse_at_depth,
)
from divaeval.meta.ties import score_positions, tie_lexirecall, tie_recall_at, tie_tse
from divaeval.metrics import parse_measures


def imputed(subset: tuple[int, ...], n: int, depth: int) -> tuple[int, ...]:
    """Pessimistic imputation written out: the retrieved positions, then the u missed items at
    n - u + 1, ..., n."""
    kept = [p for p in subset if p <= depth]
    u = len(subset) - len(kept)
    return tuple(kept + list(range(n - u + 1, n + 1)))


def brute_force(n: int, m: int, k: int, depth: int) -> dict[str, Fraction]:
    subsets = [imputed(s, n, depth) for s in itertools.combinations(range(1, n + 1), m)]
    pairs = len(subsets) ** 2
    count = {"TSE": 0, "R@k": 0, "RP": 0, "LR": 0}
    for p, q in itertools.product(subsets, repeat=2):
        count["TSE"] += p[-1] == q[-1]
        count["R@k"] += sum(x <= k for x in p) == sum(x <= k for x in q)
        count["RP"] += sum(x <= m for x in p) == sum(x <= m for x in q)
        count["LR"] += p == q
    return {key: Fraction(c, pairs) for key, c in count.items()}


@pytest.mark.parametrize("n", range(1, 8))
def test_exact_equals_brute_force(n):
    for m in range(1, n + 1):
        for depth in range(0, n + 1):
            for k in range(0, n + 1):
                expected = brute_force(n, m, k, depth)
                assert tie_recall_at_depth(n, m, k, depth) == expected["R@k"], (n, m, k, depth)
            assert tie_tse_at_depth(n, m, depth) == expected["TSE"], (n, m, depth)
            assert tie_rprecision_at_depth(n, m, depth) == expected["RP"]
            assert tie_lexirecall_at_depth(n, m, depth) == expected["LR"]


def test_hand_worked_case():
    # n = 4, m = 2, depth 2: the C(4,2) = 6 position sets, imputed:
    #   {1,2} -> (1,2); {1,3},{1,4} -> (1,4); {2,3},{2,4} -> (2,4); {3,4} -> (3,4)
    # LR: classes of sizes 1, 2, 2, 1 -> (1 + 4 + 4 + 1)/36 = 10/36
    # TSE: last position 2 for 1 set, 4 for 5 sets -> (1 + 25)/36 = 26/36
    # R@2 (= RP): 2 relevant in top 2 for 1 set, 1 for 4, 0 for 1 -> (1 + 16 + 1)/36 = 18/36
    assert tie_lexirecall_at_depth(4, 2, 2) == Fraction(10, 36)
    assert tie_tse_at_depth(4, 2, 2) == Fraction(26, 36)
    assert tie_recall_at_depth(4, 2, 2, 2) == Fraction(18, 36)
    assert tie_rprecision_at_depth(4, 2, 2) == Fraction(18, 36)
    assert impute_positions(np.array([[1, 3], [3, 4], [1, 2]]), 4, 2).tolist() == [
        [1, 4],
        [3, 4],
        [1, 2],
    ]


@pytest.mark.parametrize(("n", "m"), [(10, 3), (50, 5), (1000, 10)])
def test_full_depth_is_the_complete_ranking(n, m):
    # at depth n nothing is imputed: Theorems D.1-D.3
    assert tie_lexirecall_at_depth(n, m, n) == tie_lexirecall(n, m)
    assert tie_tse_at_depth(n, m, n) == tie_tse(n, m)
    for k in (1, m, n // 2):
        assert tie_recall_at_depth(n, m, k, n) == tie_recall_at(n, m, k)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 60), st.data())
def test_distribution_sums_to_one_and_ties_grow_as_depth_shrinks(n, data):
    m = data.draw(st.integers(1, min(n, 8)))
    k = data.draw(st.integers(0, n))
    depth = data.draw(st.integers(0, n))
    assert sum(recall_at_depth_distribution(n, m, k, depth).values()) == 1
    probabilities = depth_ties(n, m, depth, k)
    assert all(0 <= p <= 1 for p in probabilities.values())
    # lexirecall ties imply ties of every other measure here (equal imputed vectors)
    assert probabilities["LR"] <= min(probabilities["TSE"], probabilities["RP"])
    if depth > 0:  # a shallower cut merges rankings: lexirecall and TSE tie more often
        assert tie_lexirecall_at_depth(n, m, depth - 1) >= probabilities["LR"]
    # depth 0: nothing retrieved, every ranking is imputed alike
    assert depth_ties(n, m, 0, k)["LR"] == 1


def test_position_measures_equal_the_metric_machinery():
    # AP and nDCG from positions = divaeval's AP and nDCG of the complete ranking
    rng = np.random.default_rng(3)
    n, m = 40, 6
    positions = [np.sort(rng.choice(n, size=m, replace=False)) for _ in range(20)]
    machinery = score_positions(parse_measures(["AP", "nDCG"]), positions, n)
    measures = position_measures()
    ones = np.stack(positions) + 1
    by_name = {measure.name: value for measure, value in machinery.items()}
    assert measures["AP"](ones) == pytest.approx(by_name["AP"], abs=1e-12)
    assert measures["nDCG"](ones) == pytest.approx(by_name["nDCG"], abs=1e-12)


def test_monte_carlo_agrees_with_exact():
    n, m, depths = 200, 5, [200, 60, 20]
    sampled = sampled_depth_ties(n, m, depths, k=30, samples=4000, rng=np.random.default_rng(1))
    for depth in depths:
        exact = depth_ties(n, m, depth, k=30)
        for name in ("TSE", "R@30", "RP", "LR"):
            p = float(exact[name])
            se = math.sqrt(p * (1 - p) / 4000)
            assert abs(sampled[depth][name] - p) <= 4 * se + 1e-9, (depth, name)


def test_figure6_is_seeded_and_averages_the_requests():
    first = figure6([1000, 100], n=5000, requests=3, samples=50, seed=7)
    again = figure6([100, 1000], n=5000, requests=3, samples=50, seed=7)
    assert first.sizes == again.sizes and all(5 <= m <= 50 for m in first.sizes)
    assert first.exact == again.exact and first.sampled == again.sampled
    expected = sum(tie_tse_at_depth(5000, m, 100) for m in first.sizes) / 3
    assert first.exact[100]["TSE"] == pytest.approx(float(expected))
    frame = first.frame()
    assert frame["depth"].tolist() == [1000, 100]
    assert {"TSE", "R@1000", "RP", "LR", "AP (MC)", "seed"} <= set(frame.columns)
    assert (frame["seed"] == 7).all()


def test_bad_values():
    with pytest.raises(UsageError, match="depth"):
        tie_tse_at_depth(10, 2, 11)
    with pytest.raises(UsageError, match="m <= n"):
        tie_lexirecall_at_depth(3, 4, 2)
    with pytest.raises(UsageError, match="cutoff"):
        tie_recall_at_depth(10, 2, -1, 5)
    with pytest.raises(UsageError, match="requests"):
        figure6([10], n=100, requests=0)
    with pytest.raises(UsageError, match="m_min"):
        figure6([10], n=100, m_range=(5, 200))
    with pytest.raises(UsageError, match="at least one depth"):
        figure6([], n=100)
