"""Sakai's intuitiveness test (WWW 2012 §4.2, Figure 6).

Over every (run pair, topic): the metrics M1 and M2 *disagree* when ΔM1·ΔM2 < 0 (a zero on
either side is no disagreement). For each disagreement, M_i is *correct* when ΔM_i·ΔGS ≥ 0 — a
tie of the gold standard counts as correct for both. With two gold standards, M_i is correct only
if it agrees (≥ 0) with both. Intuitiveness(M1 | M2, GS) = Correct1 / Disagreements; undefined
(NaN) when there is no disagreement. Signs are compared instead of multiplying the differences,
so tiny differences cannot underflow to a spurious zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.stats.significance import check_score_table, run_pair_indices

if TYPE_CHECKING:
    import pandas as pd  # (lazily below: compare reads score files through divaeval.meta)


@dataclass(frozen=True)
class IntuitivenessResult:
    """Counts and scores of Figure 6 for one metric pair."""

    disagreements: int
    correct1: int
    correct2: int

    @property
    def intuitiveness1(self) -> float:
        """Intuitiveness(M1 | M2, GS) = Correct1 / Disagreements (NaN if none)."""
        return self.correct1 / self.disagreements if self.disagreements else math.nan

    @property
    def intuitiveness2(self) -> float:
        """Intuitiveness(M2 | M1, GS) = Correct2 / Disagreements (NaN if none)."""
        return self.correct2 / self.disagreements if self.disagreements else math.nan


def _pair_delta_signs(table: np.ndarray) -> np.ndarray:
    """sign(M(t, r1) − M(t, r2)) for every run pair (in command-line order) and topic."""
    pairs = run_pair_indices(table.shape[0])
    return np.sign(table[pairs[:, 0]] - table[pairs[:, 1]])


def _gold_list(gold: np.ndarray | Sequence[np.ndarray]) -> list[np.ndarray]:
    """A 2-D array is one gold standard; a 3-D array or a list/tuple holds one or two."""
    if isinstance(gold, np.ndarray) and gold.ndim == 2:
        return [gold]
    golds = list(gold)
    if not 1 <= len(golds) <= 2:
        raise UsageError(f"intuitiveness takes one or two gold-standard metrics, got {len(golds)}")
    return [np.asarray(g, dtype=np.float64) for g in golds]


def intuitiveness(
    m1: np.ndarray,
    m2: np.ndarray,
    gold: np.ndarray | Sequence[np.ndarray],
) -> IntuitivenessResult:
    """Figure 6 for metrics M1, M2 and one gold standard or two.

    All inputs are ``[n_runs, n_topics]`` tables over the same runs and topics; ``gold`` is one
    2-D numpy array, or a list/tuple (or 3-D array) of one or two such tables.
    """
    first = check_score_table(m1, min_runs=2, name="M1")
    second = check_score_table(m2, min_runs=2, name="M2")
    golds = [check_score_table(g, min_runs=2, name="gold") for g in _gold_list(gold)]
    for table in (second, *golds):
        if table.shape != first.shape:
            raise DataError(
                f"intuitiveness: score tables differ in shape ({first.shape} vs {table.shape})"
            )
    sign1 = _pair_delta_signs(first)
    sign2 = _pair_delta_signs(second)
    disagree = sign1 * sign2 < 0
    agrees1 = disagree.copy()
    agrees2 = disagree.copy()
    for table in golds:
        sign_gold = _pair_delta_signs(table)
        agrees1 &= sign1 * sign_gold >= 0
        agrees2 &= sign2 * sign_gold >= 0
    return IntuitivenessResult(
        disagreements=int(np.count_nonzero(disagree)),
        correct1=int(np.count_nonzero(agrees1)),
        correct2=int(np.count_nonzero(agrees2)),
    )


def intuitiveness_table(
    scores_by_metric: Mapping[str, np.ndarray],
    gold_by_name: Mapping[str, np.ndarray],
    runs: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Figure 6 for every unordered pair of metrics (in mapping order) against one or two gold
    standards (``gold_by_name``, e.g. ``{"I-rec@10": …, "EfP@10": …}``).

    Columns: metric_1, metric_2, gold, disagreements, correct_1, correct_2, intuitiveness_1,
    intuitiveness_2 (NaN when there is no disagreement).
    """
    import pandas as pd  # lazily: only the tables need pandas

    if len(scores_by_metric) < 2:
        raise UsageError("intuitiveness needs at least two metrics to compare")
    if not 1 <= len(gold_by_name) <= 2:
        raise UsageError(
            f"intuitiveness takes one or two gold-standard metrics, got {len(gold_by_name)}"
        )
    if runs is not None:
        for name, table in {**scores_by_metric, **gold_by_name}.items():
            check_score_table(table, runs, min_runs=2, name=name)
    golds = list(gold_by_name.values())
    gold_label = "+".join(gold_by_name)
    names = list(scores_by_metric)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            result = intuitiveness(scores_by_metric[a], scores_by_metric[b], golds)
            rows.append(
                {
                    "metric_1": a,
                    "metric_2": b,
                    "gold": gold_label,
                    "disagreements": result.disagreements,
                    "correct_1": result.correct1,
                    "correct_2": result.correct2,
                    "intuitiveness_1": result.intuitiveness1,
                    "intuitiveness_2": result.intuitiveness2,
                }
            )
    return pd.DataFrame(rows)
