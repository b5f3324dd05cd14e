"""The document selection sensitivity grid (Golbus et al. 2013, §7, Eq. 11): measures × topics,
each cell the coefficient of variation dss of the measure over random rankings of the topic's
relevant documents; a bright cell is a topic where the measure depends much on which relevant
documents are retrieved."""

from __future__ import annotations

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Grid, per_topic, sequential_tips
from divaeval.topics import sort_topics


def sensitivity_grid(table: pd.DataFrame) -> Figure:
    """``table``: the ``meta sensitivity`` table with per-topic rows (measure, topic, ...,
    dss). ``data``: measure, topic, dss."""
    rows = per_topic(table)
    wide = rows.pivot_table(index="measure", columns="topic", values="dss", aggfunc="first")
    measures = [m for m in dict.fromkeys(rows["measure"])]
    topics = sort_topics(wide.columns)
    values = wide.reindex(index=measures, columns=topics).to_numpy(dtype=np.float64)
    high = float(np.nanmax(values)) if np.isfinite(values).any() else 1.0
    panel = Grid(
        "Document selection sensitivity (dss) per topic",
        tuple(measures),
        tuple(str(t) for t in topics),
        values,
        sequential_tips(measures, topics, values, "dss", "measure", "topic"),
        "topic",
        "measure",
        low=0.0,
        high=max(high, 1e-12),
        column_labels=len(topics) <= 60,
    )
    data = pd.DataFrame(
        {
            "measure": np.repeat(measures, len(topics)),
            "topic": np.tile(np.asarray(topics, dtype=object), len(measures)),
            "dss": values.reshape(-1),
        }
    )
    return Figure(
        "sensitivity",
        "Document selection sensitivity",
        "Each cell: how much the measure varies over random rankings of the topic's relevant "
        "documents (dss); brighter cells depend more on which relevant documents are found.",
        (panel,),
        data,
    )
