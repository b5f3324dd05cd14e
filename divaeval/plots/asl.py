"""ASL curves (Sakai, WWW 2012, Figs. 7-9): per metric, the achieved significance levels of
every run pair sorted ascending; a metric whose curve stays under α longer tells more run pairs
apart (its discriminative power)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Lines


def asl_curves(curves: pd.DataFrame, alpha: float, *, title: str = "ASL curves") -> Figure:
    """``curves``: the long table metric, rank, run_a, run_b, asl
    (:meth:`divaeval.meta.discriminative_power.DiscriminativePower.asl_curves`); one line per
    metric over the pairs' ranks, and a reference line at ``alpha``. ``data``: ``curves``."""
    series = {
        str(metric): group["asl"].to_numpy(dtype=np.float64)
        for metric, group in curves.groupby("metric", sort=False)
    }
    n_pairs = max((len(v) for v in series.values()), default=0)
    panel = Lines(
        title,
        np.arange(1, n_pairs + 1, dtype=np.float64),
        series,
        "run pairs sorted by ASL",
        "ASL (p-value)",
        reference=alpha,
        reference_label=f"α = {alpha:g}",
    )
    return Figure(
        "asl",
        "ASL curves",
        f"Each line is a metric: its run pairs sorted by p-value; the pairs left of where it "
        f"crosses the dotted line (α = {alpha:g}) are significantly apart.",
        (panel,),
        curves.reset_index(drop=True),
    )
