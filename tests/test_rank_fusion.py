"""MC4 and Borda rank fusion as pref_eval does it (diazf/pref_eval ``pref_aggregate.py``; Diaz,
Ekstrand & Mitra, TORS 2025, §8.1)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from divaeval.errors import DataError, UsageError
from divaeval.stats.rank_fusion import (
    FusedRanking,
    borda,
    fuse_preferences,
    fuse_rankings,
    mc4,
    net_scores,
    topic_rankings_from_preferences,
    topic_rankings_from_scores,
)

RUNS = ["A", "B", "C", "D"]


def rankings(*orders: str, runs=RUNS) -> list[list[int]]:
    index = {name: i for i, name in enumerate(runs)}
    return [[index[name] for name in order] for order in orders]


def test_mc4_example_follows_the_condorcet_winner():
    # topics (A B D C), (B C D A), (A B C D): A beats B, C, D 2-1; B beats C, D 3-0; C beats D.
    # A stays; B → A 1/4; C → A, B 1/4; D → A, B, C 1/4. e after 1 step (1.75, 1.25, 0.75, 0.25)
    ranks = rankings("ABDC", "BCDA", "ABCD")
    one_step = mc4(ranks, RUNS, iterations=1)
    assert list(one_step.values.values()) == [1.75, 1.25, 0.75, 0.25]
    result = mc4(ranks, RUNS)
    assert result.ranking == ["A", "B", "C", "D"]
    np.testing.assert_allclose(
        [result.values[r] for r in RUNS], [3.831059, 0.166987, 0.001952, 0.000001], atol=1e-6
    )


def test_borda_example():
    # A 4 + 1 + 4 = 9, B 3 + 4 + 3 = 10, C 1 + 3 + 2 = 6, D 2 + 2 + 1 = 5
    result = borda(rankings("ABDC", "BCDA", "ABCD"), RUNS)
    assert result.ranking == ["B", "A", "C", "D"]
    assert result.values == {"A": 9.0, "B": 10.0, "C": 6.0, "D": 5.0}


def test_condorcet_cycle_ties_break_by_name_descending():
    runs = ["A", "B", "C"]
    ranks = rankings("ABC", "BCA", "CAB", runs=runs)
    assert mc4(ranks, runs).values == {"A": 1.0, "B": 1.0, "C": 1.0}
    assert mc4(ranks, runs).ranking == ["C", "B", "A"]
    assert borda(ranks, runs).ranking == ["C", "B", "A"]


def lexicographic_example(measure: str) -> np.ndarray:
    """Per-topic preferences of lexicographic.md §8.1 (runs A, B, C; topics 1 and 2).

    Topic 1: A vs B lexirecall +1, lexiprecision −1; A and B beat C (C finds 2 of 6 relevant,
    first at rank 2). Topic 2: A vs B +1 for both; C retrieves nothing, so A and B beat it.
    """
    prefs = np.zeros((3, 3, 2))
    a_vs_b_topic1 = 1 if measure == "lexirecall" else -1
    for (i, j), values in {(0, 1): (a_vs_b_topic1, 1), (0, 2): (1, 1), (1, 2): (1, 1)}.items():
        prefs[i, j] = values
        prefs[j, i] = [-v for v in values]
    return prefs


def test_lexicographic_aggregation_example():
    runs = ["runA", "runB", "runC"]
    # lexiprecision: topic 1 net A 0, B 2, C −2 → (B A C); topic 2 (A B C).
    # Borda A 2 + 3 = 5 = B 3 + 2 → name descending puts runB first; MC4: A-B majority tie.
    lexiprecision = lexicographic_example("lexiprecision")
    assert net_scores(lexiprecision)[:, 0].tolist() == [0.0, 2.0, -2.0]
    assert topic_rankings_from_preferences(lexiprecision, runs) == [[1, 0, 2], [0, 1, 2]]
    for method in ("mc4", "borda"):
        assert fuse_preferences(lexiprecision, runs, method).ranking == [
            "runB",
            "runA",
            "runC",
        ]
        lexirecall = lexicographic_example("lexirecall")
        assert fuse_preferences(lexirecall, runs, method).ranking == ["runA", "runB", "runC"]


def test_upper_triangle_only_and_mean_preferences():
    upper = np.triu(lexicographic_example("lexiprecision").transpose(2, 0, 1)).transpose(1, 2, 0)
    runs = ["runA", "runB", "runC"]
    assert topic_rankings_from_preferences(upper, runs) == [[1, 0, 2], [0, 1, 2]]
    # mean preferences as one "topic": A-B 0, A-C 1, B-C 1 → net A 1 = B 1, C −2 → (B A C)
    mean_prefs = lexicographic_example("lexiprecision").mean(axis=2)
    assert topic_rankings_from_preferences(mean_prefs, runs) == [[1, 0, 2]]


def fuse_scores(scores: np.ndarray, runs: Sequence[str], method: str = "mean") -> FusedRanking:
    """Metric scores ``[n_runs, n_topics]`` fused by their mean over topics ((mean, name)
    descending, pref_eval's order) or by mc4 | borda of their per-topic rankings."""
    if method != "mean":
        return fuse_rankings(topic_rankings_from_scores(scores, runs), runs, method)
    means = np.asarray(scores, dtype=np.float64).mean(axis=1)
    order = sorted(range(len(runs)), key=lambda i: (means[i], runs[i]), reverse=True)
    return FusedRanking(
        "mean", [runs[i] for i in order], dict(zip(runs, means.tolist(), strict=True))
    )


def test_score_fusion():
    scores = np.array([[0.25, 0.75], [0.5, 0.5], [0.1, 0.1]])
    runs = ["x", "y", "z"]
    # means 0.5, 0.5, 0.1 (exact in binary): tie → name descending → y, x, z
    assert fuse_scores(scores, runs).ranking == ["y", "x", "z"]
    # per-topic rankings (x y z) → (y x z), (x y z); Borda x 3+2=5, y 2+3=5 → y first
    assert fuse_scores(scores, runs, "borda").ranking == ["y", "x", "z"]


def test_errors():
    with pytest.raises(DataError):
        net_scores(np.zeros((2, 3, 1)))
    bad = np.zeros((2, 2, 1))
    bad[0, 1] = bad[1, 0] = 1
    with pytest.raises(DataError):
        net_scores(bad)
    with pytest.raises(DataError):
        mc4([[0, 0, 1]], ["a", "b", "c"])
    with pytest.raises(UsageError):
        fuse_preferences(lexicographic_example("lexirecall"), ["a", "b", "c"], "kemeny")
