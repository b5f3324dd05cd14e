"""Collection difficulty per topic (Golbus et al. 2013, Eq. 2): one bar per topic of its
diversity difficulty dd; a tall bar is a topic whose subtopics are hard to cover together."""

from __future__ import annotations

import numpy as np
import pandas as pd

from divaeval.plots.figure import Bars, Figure


def difficulty_bars(table: pd.DataFrame) -> Figure:
    """``table``: the ``collection`` table (topic, ..., xi, dd, ...), one bar per topic in its
    order. ``data``: topic, n_subtopics, xi, dd."""
    labels = tuple(str(t) for t in table["topic"])
    values = table["dd"].to_numpy(dtype=np.float64)
    tips = tuple(
        f"topic {t} · {n} subtopics · minimum cover {xi} · dd {v:.4f}"
        for t, n, xi, v in zip(labels, table["n_subtopics"], table["xi"], values, strict=True)
    )
    panel = Bars(
        "Diversity difficulty per topic",
        labels,
        values,
        tips,
        "diversity difficulty dd",
        "topic",
        signed=False,
    )
    return Figure(
        "difficulty",
        "Diversity difficulty",
        "One bar per topic: its diversity difficulty (0 easy to 1 hard); hover a bar for its "
        "subtopics and minimum cover.",
        (panel,),
        table[["topic", "n_subtopics", "xi", "dd"]].reset_index(drop=True),
    )
