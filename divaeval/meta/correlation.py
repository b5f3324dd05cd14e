"""Rank correlation between the system rankings induced by metrics (Kendall's τ-a and τ-b;
Yilmaz, Aslam & Robertson's τ_AP, SIGIR 2008).

A metric ranks the runs by their **unrounded** mean scores (Golbus et al. 2013 Tables 5-8).

- Kendall's τ-b (default) over unordered run pairs: (n_c − n_d) / √((n_0 − n_1)(n_0 − n_2)),
  where a tie is exact floating-point equality of the unrounded means; τ-a = (n_c − n_d)/n_0.
  Both come from scipy's ``kendalltau(variant="b")`` (scipy has no τ-a): the integer n_c − n_d
  is recovered exactly from its τ-b and the tie counts n_1, n_2. τ-b is NaN when either ranking
  is all ties.
- τ_ap (Yilmaz, Aslam, Robertson, SIGIR 2008) of a candidate ranking against a reference:
  (2/(R − 1)) Σ_{i=2..R} C(i)/(i − 1) − 1, with C(i) = number of runs above position i in the
  candidate that are also above that run in the reference. It needs strict rankings: ties in the
  means are broken by run name ascending. The symmetric τ_ap is the average of both directions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from divaeval.errors import DataError, UsageError, warn
from divaeval.stats.significance import check_score_table

if TYPE_CHECKING:
    import pandas as pd  # (lazily below: compare reads score files through divaeval.meta)

CORRELATION_MEASURES = ("tau_b", "tau_a", "tau_ap", "tau_ap_sym")


def run_means(
    values: ArrayLike, runs: Sequence[str] | None = None, name: str = "scores"
) -> np.ndarray:
    """Per-run means of a ``[n_runs, n_topics]`` table (at least two runs: a ranking of one
    run has no pairs); a 1-D array is taken as the means."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    table = check_score_table(array, runs, min_runs=2, min_topics=1, name=name)
    return table.mean(axis=1)


def _check_same_length(x: np.ndarray, y: np.ndarray) -> None:
    if x.shape != y.shape or x.ndim != 1:
        raise DataError(
            f"rank correlation: need two 1-D arrays of equal length, got {x.shape} and {y.shape}"
        )
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise DataError("rank correlation: values must be finite")


def _tied_pairs(values: np.ndarray) -> int:
    """Number of pairs with equal values: Σ over groups of equal values of t(t − 1)/2."""
    _, group_sizes = np.unique(values, return_counts=True)
    return int(np.sum(group_sizes * (group_sizes - 1) // 2))


def kendall_tau(x: ArrayLike, y: ArrayLike, variant: str = "b") -> float:
    """Kendall's τ-b (``variant="b"``) or τ-a between two score vectors over the same runs."""
    if variant not in ("a", "b"):
        raise UsageError(f"Kendall's tau variant must be 'a' or 'b', got {variant!r}")
    x_arr = np.asarray(x, dtype=np.float64)
    y_arr = np.asarray(y, dtype=np.float64)
    _check_same_length(x_arr, y_arr)
    n = x_arr.size
    if n < 2:
        return math.nan
    untied_x = n * (n - 1) // 2 - _tied_pairs(x_arr)  # n_0 − n_1
    untied_y = n * (n - 1) // 2 - _tied_pairs(y_arr)  # n_0 − n_2
    if untied_x == 0 or untied_y == 0:  # a ranking of all ties: n_c = n_d = 0
        return math.nan if variant == "b" else 0.0
    from scipy.stats import kendalltau  # lazily: 1-2 s of import that only τ-b and τ-a need

    # scipy counts the pairs in O(n log n); n_c − n_d is an integer, so rounding recovers it
    # exactly from its τ-b, and each variant is then one correctly rounded division (scipy's own
    # τ-b divides by two square roots and can be an ulp off: 0.33333333333333337 for 1/3, where
    # τ-a = τ-b must hold without ties)
    tau_b = float(kendalltau(x_arr, y_arr, variant="b").statistic)
    untied_product = untied_x * untied_y
    concordant_minus_discordant = round(tau_b * math.sqrt(untied_product))
    if variant == "b":
        return concordant_minus_discordant / math.sqrt(untied_product)
    return concordant_minus_discordant / (n * (n - 1) // 2)


def system_ranking(means: ArrayLike, runs: Sequence[str]) -> list[int]:
    """Run indices from best to worst: mean descending, ties by run name ascending."""
    values = np.asarray(means, dtype=np.float64)
    if values.shape != (len(runs),):
        raise DataError(f"{len(runs)} run names for {values.size} mean values")
    return sorted(range(len(runs)), key=lambda i: (-values[i], str(runs[i])))


def tau_ap(candidate: ArrayLike, reference: ArrayLike, runs: Sequence[str]) -> float:
    """τ_ap(candidate | reference) between the rankings induced by two score vectors."""
    cand = np.asarray(candidate, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    _check_same_length(cand, ref)
    n = cand.size
    if n < 2:
        return math.nan
    candidate_order = system_ranking(cand, runs)
    reference_position = np.empty(n, dtype=np.intp)
    reference_position[system_ranking(ref, runs)] = np.arange(n)
    positions = reference_position[candidate_order]  # reference position of c_1 … c_R
    above = np.tril(positions[None, :] < positions[:, None], k=-1)  # [i, k]: k < i, c_k above c_i
    correct = above.sum(axis=1)[1:]  # C(i) for i = 2 … R
    return float(2.0 / (n - 1) * np.sum(correct / np.arange(1, n)) - 1.0)


def symmetric_tau_ap(x: ArrayLike, y: ArrayLike, runs: Sequence[str]) -> float:
    """(τ_ap(y | x) + τ_ap(x | y)) / 2."""
    return 0.5 * (tau_ap(y, x, runs) + tau_ap(x, y, runs))


def rank_correlation(
    x: ArrayLike, y: ArrayLike, runs: Sequence[str], measure: str = "tau_b"
) -> float:
    """One of tau_b | tau_a | tau_ap (x as candidate, y as reference) | tau_ap_sym."""
    if measure == "tau_b":
        return kendall_tau(x, y, "b")
    if measure == "tau_a":
        return kendall_tau(x, y, "a")
    if measure == "tau_ap":
        return tau_ap(x, y, runs)
    if measure == "tau_ap_sym":
        return symmetric_tau_ap(x, y, runs)
    raise UsageError(
        f"unknown correlation {measure!r}; choose one of {', '.join(CORRELATION_MEASURES)}"
    )


def _means_by_metric(
    scores_by_metric: Mapping[str, np.ndarray], runs: Sequence[str]
) -> dict[str, np.ndarray]:
    if len(scores_by_metric) < 2:
        raise UsageError("rank correlation needs at least two metrics")
    means = {name: run_means(v, runs, name) for name, v in scores_by_metric.items()}
    flat = [name for name, m in means.items() if np.all(m == m[0])]
    if flat and len(flat) == len(means):
        raise DataError(
            f"every metric gives all {len(runs)} runs the same mean (identical runs?): no rank "
            "correlation is defined"
        )
    if flat:
        warn(f"{', '.join(flat)} give(s) every run the same mean: their correlations are NaN")
    return means


def rank_correlation_matrix(
    scores_by_metric: Mapping[str, np.ndarray], runs: Sequence[str], measure: str = "tau_b"
) -> pd.DataFrame:
    """Metric × metric matrix of ``measure`` between system rankings.

    Values are ``[n_runs, n_topics]`` tables (ranked by their means) or 1-D mean vectors. For
    the asymmetric ``tau_ap`` the cell (row, column) is τ_ap(row | column), i.e. the column
    metric is the reference.
    """
    import pandas as pd  # lazily: only the tables need pandas

    means = _means_by_metric(scores_by_metric, runs)
    names = list(means)
    matrix = np.array(
        [[rank_correlation(means[a], means[b], runs, measure) for b in names] for a in names]
    )
    return pd.DataFrame(matrix, index=names, columns=names)


def rank_correlations(
    scores_by_metric: Mapping[str, np.ndarray], runs: Sequence[str]
) -> pd.DataFrame:
    """Long table over unordered metric pairs: metric_a, metric_b, tau_b, tau_a,
    tau_ap_a_given_b (a as candidate), tau_ap_b_given_a, tau_ap_sym."""
    import pandas as pd  # lazily: only the tables need pandas

    means = _means_by_metric(scores_by_metric, runs)
    names = list(means)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            a_given_b = tau_ap(means[a], means[b], runs)
            b_given_a = tau_ap(means[b], means[a], runs)
            rows.append(
                {
                    "metric_a": a,
                    "metric_b": b,
                    "tau_b": kendall_tau(means[a], means[b], "b"),
                    "tau_a": kendall_tau(means[a], means[b], "a"),
                    "tau_ap_a_given_b": a_given_b,
                    "tau_ap_b_given_a": b_given_a,
                    "tau_ap_sym": 0.5 * (a_given_b + b_given_a),
                }
            )
    columns = [
        "metric_a",
        "metric_b",
        "tau_b",
        "tau_a",
        "tau_ap_a_given_b",
        "tau_ap_b_given_a",
        "tau_ap_sym",
    ]
    return pd.DataFrame(rows, columns=columns)
