"""Rank fusion: one ranking of the runs from their per-topic rankings, by MC4 or Borda, as
pref_eval's aggregator computes them (diazf/pref_eval ``pref_aggregate.py``; Diaz, Ekstrand &
Mitra, "Recall, Robustness, and Lexicographic Evaluation", TORS 2025, §8.1). Not to be confused
with the topic means of :mod:`divaeval.scores`, which average a run's scores over topics.

1. Per-topic ranking. Each run's net score = Σ over its pairs of the preference (+v for run i
   and −v for run j of a pair (i, j) with value v), accumulated over the pairs in command-line
   order (i < j). Runs are sorted by (net score, run name) **descending**; for metric scores the
   values are sorted the same way.
2. MC4 (Dwork et al. WWW 2001) as implemented by pref_eval: majority matrix M[a][b] = #topics
   ranking a above b − #topics ranking b above a; from a, move to each b with M[a][b] < 0 with
   probability 1/n, stay with 1 − (number of runs beating a)/n; **no damping or teleportation**;
   exactly ``iterations`` (10) power steps e ← e·P from e = (1, …, 1), no convergence test;
   final order by (e, run name) descending.
3. Borda: the run at 0-based position j of a topic's ranking gets n − j points; order by
   (points, run name) descending.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.stats.significance import check_score_table, run_pair_indices

MC4_ITERATIONS = 10
FUSION_METHODS = ("mc4", "borda")


@dataclass(frozen=True)
class FusedRanking:
    """A fused ranking of the runs, best first, with each run's fusion value."""

    method: str
    ranking: list[str]
    values: dict[str, float]  # MC4: final e; Borda: points


def _check_runs(runs: Sequence[str], n_runs: int) -> list[str]:
    names = [str(r) for r in runs]
    if len(names) != n_runs:
        raise UsageError(f"{len(names)} run names for {n_runs} runs")
    if len(set(names)) != len(names):
        raise UsageError("duplicate run names")
    return names


def _descending_order(values: Sequence[float], names: Sequence[str]) -> list[int]:
    """Indices sorted by (value, name) descending — pref_eval's order and tie rule."""
    return sorted(range(len(names)), key=lambda i: (values[i], names[i]), reverse=True)


def _preference_tensor(preferences: np.ndarray | Sequence) -> np.ndarray:
    tensor = np.asarray(preferences, dtype=np.float64)
    if tensor.ndim == 2:
        tensor = tensor[:, :, None]
    if tensor.ndim != 3 or tensor.shape[0] != tensor.shape[1]:
        raise DataError(
            f"preferences must have shape [n_runs, n_runs, n_topics] or [n_runs, n_runs], "
            f"got {np.shape(preferences)}"
        )
    if not np.all(np.isfinite(tensor)):
        raise DataError("preferences contain NaN or infinite values")
    return tensor


def net_scores(preferences: np.ndarray | Sequence) -> np.ndarray:
    """Net preference score ``[n_runs, n_topics]`` of every run per topic.

    ``preferences[i, j, t]`` is the preference of run i over run j on topic t (> 0: i preferred).
    Only the upper triangle (i < j) is read; a filled lower triangle must be its negation.
    A 2-D ``[n_runs, n_runs]`` matrix (e.g. mean preferences) is one topic.
    """
    tensor = _preference_tensor(preferences)
    n_runs = tensor.shape[0]
    pairs = run_pair_indices(n_runs)
    upper = tensor[pairs[:, 0], pairs[:, 1]]
    lower = tensor[pairs[:, 1], pairs[:, 0]]
    if np.any(lower != 0) and not np.allclose(lower, -upper, rtol=0.0, atol=1e-12):
        raise DataError("preferences are not antisymmetric: P[j, i] must be -P[i, j]")
    net = np.zeros((n_runs, tensor.shape[2]))
    for (i, j), values in zip(pairs, upper, strict=True):  # command-line pair order
        net[i] += values
        net[j] -= values
    return net


def topic_rankings_from_scores(scores: np.ndarray, runs: Sequence[str]) -> list[list[int]]:
    """Per-topic rankings (run indices, best first) of a ``[n_runs, n_topics]`` table, sorted
    by (value, run name) descending."""
    table = check_score_table(scores, min_runs=1, min_topics=1)
    names = _check_runs(runs, table.shape[0])
    return [_descending_order(table[:, t].tolist(), names) for t in range(table.shape[1])]


def topic_rankings_from_preferences(
    preferences: np.ndarray, runs: Sequence[str]
) -> list[list[int]]:
    """Per-topic rankings from pairwise preferences: net score, then run name, descending."""
    return topic_rankings_from_scores(net_scores(preferences), runs)


def _check_rankings(rankings: Sequence[Sequence[int]], n_runs: int) -> np.ndarray:
    if len(rankings) == 0:
        raise DataError("rank aggregation needs at least one topic ranking")
    array = np.asarray(rankings, dtype=np.intp)
    expected = np.arange(n_runs)
    if array.ndim != 2 or any(not np.array_equal(np.sort(r), expected) for r in array):
        raise DataError("every topic ranking must be a permutation of all runs")
    return array


def mc4(
    rankings: Sequence[Sequence[int]], runs: Sequence[str], iterations: int = MC4_ITERATIONS
) -> FusedRanking:
    """MC4 aggregation of per-topic rankings exactly as pref_eval computes it (see module doc)."""
    names = _check_runs(runs, len(runs))
    n = len(names)
    order = _check_rankings(rankings, n)
    positions = np.empty_like(order)
    rows = np.arange(order.shape[0])[:, None]
    positions[rows, order] = np.arange(n)[None, :]
    # majority[a, b] = #topics with a above b − #topics with b above a
    majority = np.sign(positions[:, None, :] - positions[:, :, None]).sum(axis=0)
    beaten_by = majority < 0  # [a, b]: b beats a by majority
    transition = np.where(beaten_by, 1.0 / n, 0.0)
    np.fill_diagonal(transition, 1.0 - beaten_by.sum(axis=1) / n)
    weights = np.ones(n)
    for _ in range(iterations):
        weights = weights @ transition
    ranking = _descending_order(weights.tolist(), names)
    return FusedRanking(
        "mc4", [names[i] for i in ranking], {names[i]: float(weights[i]) for i in range(n)}
    )


def borda(rankings: Sequence[Sequence[int]], runs: Sequence[str]) -> FusedRanking:
    """Borda count: n − j points for 0-based position j; (points, run name) descending."""
    names = _check_runs(runs, len(runs))
    n = len(names)
    order = _check_rankings(rankings, n)
    points = np.zeros(n)
    for ranking in order:
        points[ranking] += n - np.arange(n)
    ranking = _descending_order(points.tolist(), names)
    return FusedRanking(
        "borda", [names[i] for i in ranking], {names[i]: float(points[i]) for i in range(n)}
    )


def fuse_rankings(rankings: list[list[int]], runs: Sequence[str], method: str) -> FusedRanking:
    """Per-topic rankings (run indices, best first) fused by ``method`` mc4 | borda."""
    if method == "mc4":
        return mc4(rankings, runs)
    if method == "borda":
        return borda(rankings, runs)
    raise UsageError(f"unknown aggregation {method!r}; choose one of {', '.join(FUSION_METHODS)}")


def fuse_preferences(
    preferences: np.ndarray, runs: Sequence[str], method: str = "mc4"
) -> FusedRanking:
    """Fuse a preference tensor ``[n_runs, n_runs, n_topics]`` (values in {−1, 0, 1} or real
    preferences) with ``method`` mc4 | borda, via pref_eval's per-topic net-score rankings."""
    return fuse_rankings(topic_rankings_from_preferences(preferences, runs), runs, method)
