"""Metric Unanimity (Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018 §6.1).

MU_ℳ(m) = log₂ [ P(Δm, Δℳ) / (P(Δm)·P(Δℳ)) ], the pointwise mutual information between the
improvements reported by metric m and the unanimous improvements of the other metrics ℳ, over
**ordered pairs (i, j), i ≠ j, of system outputs**. A system output is one run's ranking for one
topic; pairs are formed within each topic and the counts pooled over topics (divaeval's reading:
the paper compares metrics at topic level). Conventions of the paper:

- Δm_{i,j} ≡ m(i) > m(j), and a tie m(i) = m(j) adds 0.5 to the count, so P(Δm) = 1/2;
- Δℳ_{i,j} ≡ m'(i) ≥ m'(j) for every m' ∈ ℳ (ties count as "not worse");
- log base 2 (the paper's example gives log₂(4/3) = 0.415).

MU is NaN when no unanimous improvement exists (P(Δℳ) = 0) and −inf when the joint count is 0;
both are reported with a warning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import DataError, UsageError, warn
from divaeval.stats.significance import check_score_table

if TYPE_CHECKING:
    import pandas as pd  # (lazily below: compare reads score files through divaeval.meta)


@dataclass(frozen=True)
class UnanimityResult:
    """MU of one metric with its counts over the pooled ordered pairs."""

    mu: float
    joint_count: float  # Σ over pairs with Δℳ of 1 (m(i) > m(j)) or 0.5 (tie)
    unanimous_count: int  # pairs with Δℳ
    n_pairs: int  # ordered pairs: topics × R(R − 1)

    @property
    def p_joint(self) -> float:
        return self.joint_count / self.n_pairs

    @property
    def p_unanimous(self) -> float:
        return self.unanimous_count / self.n_pairs


def _ordered_pair_mask(n_runs: int) -> np.ndarray:
    return ~np.eye(n_runs, dtype=bool)[:, :, None]


def metric_unanimity(
    metric: np.ndarray, others: Sequence[np.ndarray], *, name: str = "metric"
) -> UnanimityResult:
    """MU_ℳ(m) of ``metric`` against ``others`` (ℳ), all ``[n_runs, n_topics]`` tables."""
    target = check_score_table(metric, min_runs=2, name=name)
    if len(others) == 0:
        raise UsageError("metric unanimity needs at least one other metric")
    tables = [check_score_table(o, min_runs=2, name="other metric") for o in others]
    for table in tables:
        if table.shape != target.shape:
            raise DataError(
                f"metric unanimity: score tables differ in shape ({target.shape} vs {table.shape})"
            )
    n_runs, n_topics = target.shape
    off_diagonal = _ordered_pair_mask(n_runs)
    # [i, j, t] over ordered pairs within each topic
    unanimous = np.broadcast_to(off_diagonal, (n_runs, n_runs, n_topics)).copy()
    for table in tables:
        unanimous &= table[:, None, :] >= table[None, :, :]
    better = target[:, None, :] > target[None, :, :]
    tied = target[:, None, :] == target[None, :, :]
    joint_count = float(np.count_nonzero(unanimous & better)) + 0.5 * float(
        np.count_nonzero(unanimous & tied)
    )
    unanimous_count = int(np.count_nonzero(unanimous))
    n_pairs = n_topics * n_runs * (n_runs - 1)
    if unanimous_count == 0:
        warn(
            f"metric unanimity of {name}: no unanimous improvement among the other metrics; "
            "MU is undefined (nan)"
        )
        mu = math.nan
    elif joint_count == 0:
        warn(f"metric unanimity of {name}: no unanimous improvement captured; MU = -inf")
        mu = -math.inf
    else:
        # P(Δm, Δℳ) / (P(Δm)·P(Δℳ)) with P(Δm) = 1/2; the pair count cancels.
        mu = math.log2(joint_count / (0.5 * unanimous_count))
    return UnanimityResult(mu, joint_count, unanimous_count, n_pairs)


def metric_unanimity_table(
    scores_by_metric: Mapping[str, np.ndarray], runs: Sequence[str] | None = None
) -> pd.DataFrame:
    """MU of every metric against all the other metrics of the mapping.

    Columns: metric, mu, p_joint, p_unanimous, pairs.
    """
    import pandas as pd  # lazily: only the tables need pandas

    if len(scores_by_metric) < 2:
        raise UsageError("metric unanimity needs at least two metrics")
    tables = {
        name: check_score_table(table, runs, min_runs=2, name=name)
        for name, table in scores_by_metric.items()
    }
    rows = []
    for name, table in tables.items():
        others = [other for other_name, other in tables.items() if other_name != name]
        result = metric_unanimity(table, others, name=name)
        rows.append(
            {
                "metric": name,
                "mu": result.mu,
                "p_joint": result.p_joint,
                "p_unanimous": result.p_unanimous,
                "pairs": result.n_pairs,
            }
        )
    return pd.DataFrame(rows, columns=["metric", "mu", "p_joint", "p_unanimous", "pairs"])
