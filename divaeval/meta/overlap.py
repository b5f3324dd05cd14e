"""Overlap of the significantly different run pairs between metrics (Sakai, WWW 2012, §5.3,
Table 4).

For two metrics A and B tested on the same runs, each run pair is significant under both, under
A only or under B only. Sakai's Table 4 prints ``only A / both / only B`` for every pair of
metrics (randomised Tukey HSD, α = 0.05): e.g. I-rec and P+Q# share 48 significant pairs,
I-rec finds 3 more and P+Q# 2 more, so their discriminative powers are (3 + 48)/190 and
(48 + 2)/190. A pair significant under one metric only is where the two disagree on whether
the runs differ; the table shows whether a metric's power comes from the pairs another metric
already separates.

The significance of a pair is the test's own: ASL < α, with the p-values of
:func:`divaeval.meta.discriminative_power` (for Tukey HSD already family-wise), so the counts
add up to the power that command prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.meta.discriminative_power import DiscriminativePower


@dataclass(frozen=True)
class PairOverlap:
    """Sakai's Table 4 cell for metrics ``first`` and ``second``: the run pairs significant
    under ``first`` only, under both, under ``second`` only, out of ``pairs``."""

    first: str
    second: str
    only_first: int
    both: int
    only_second: int
    pairs: int

    @property
    def cell(self) -> str:
        """``only_first/both/only_second``, as Table 4 prints it."""
        return f"{self.only_first}/{self.both}/{self.only_second}"


def significant_pair_overlap(significant: Mapping[str, np.ndarray]) -> list[PairOverlap]:
    """Every pair of metrics (in the mapping's order, first before second) with the counts of
    run pairs significant under each alone and under both. ``significant`` maps a metric to a
    boolean vector over the same run pairs in the same order."""
    names = list(significant)
    if len(names) < 2:
        raise UsageError("the overlap of significant pairs needs at least two metrics")
    masks = {name: np.asarray(significant[name], dtype=bool) for name in names}
    sizes = {mask.shape for mask in masks.values()}
    if len(sizes) != 1 or len(next(iter(sizes))) != 1:
        raise UsageError("every metric needs one significance flag per run pair, the same pairs")
    out = []
    for first, second in combinations(names, 2):
        a, b = masks[first], masks[second]
        out.append(
            PairOverlap(
                first,
                second,
                only_first=int(np.count_nonzero(a & ~b)),
                both=int(np.count_nonzero(a & b)),
                only_second=int(np.count_nonzero(~a & b)),
                pairs=len(a),
            )
        )
    return out


def power_overlap(result: DiscriminativePower) -> list[PairOverlap]:
    """:func:`significant_pair_overlap` of a discriminative-power result: a pair is
    significant under a metric when its ASL < α (the power's own count)."""
    return significant_pair_overlap(
        {name: item.tests.p_values < result.alpha for name, item in result.metrics.items()}
    )


def overlap_frame(overlaps: list[PairOverlap]) -> pd.DataFrame:
    """One row per pair of metrics: metric_a, metric_b, only_a, both, only_b, pairs, and the
    ``only_a/both/only_b`` cell of Sakai's Table 4."""
    import pandas as pd

    return pd.DataFrame(
        [
            (o.first, o.second, o.only_first, o.both, o.only_second, o.pairs, o.cell)
            for o in overlaps
        ],
        columns=["metric_a", "metric_b", "only_a", "both", "only_b", "pairs", "cell"],
    )
