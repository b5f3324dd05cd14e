"""Metric unanimity (Amigó et al. 2018, §6.1) as bars: per metric its PMI with the unanimous
preferences of the other metrics; a taller bar agrees more with the others' consensus."""

from __future__ import annotations

import numpy as np
import pandas as pd

from divaeval.plots.figure import Bars, Figure


def unanimity_bars(table: pd.DataFrame) -> Figure:
    """``table``: the ``meta unanimity`` table (metric, mu, ...), one bar per metric in its
    order. ``data``: metric, mu."""
    labels = tuple(str(m) for m in table["metric"])
    values = table["mu"].to_numpy(dtype=np.float64)
    panel = Bars(
        "Metric unanimity",
        labels,
        values,
        tuple(f"{m}: unanimity {v:.4f}" for m, v in zip(labels, values, strict=True)),
        "unanimity (PMI, bits)",
        "metric",
        signed=False,
    )
    return Figure(
        "unanimity",
        "Metric unanimity",
        "One bar per metric: how much its preferences between runs agree with what all the "
        "other metrics agree on; taller is more unanimous.",
        (panel,),
        pd.DataFrame({"metric": labels, "mu": values}),
    )
