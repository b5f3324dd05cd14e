"""The topics × runs heat map of a measure: one row per run (best mean at the top), one cell per
topic, darker where the run scores lower (viridis: dark purple low, yellow high)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Grid, measures_of, per_topic, sequential_tips
from divaeval.scores import score_matrix


def topic_heatmap(table: pd.DataFrame, measures: Sequence[str] | None = None) -> Figure:
    """One panel per measure of ``table`` (the long score table); rows are the runs sorted by
    their mean over the topics they have (best first), columns the topics in topic order.
    ``data``: measure, run, topic, value, and the rows' ``mean``."""
    rows = per_topic(table)
    panels, frames = [], []
    for measure in measures or measures_of(rows):
        runs, topics, values = score_matrix(rows, measure)
        means = np.nanmean(values, axis=1) if values.size else np.zeros(len(runs))
        order = np.argsort(-means, kind="stable")
        ranked = [runs[i] for i in order]
        matrix = values[order]
        labels = tuple(f"{run} ({means[i]:.3f})" for run, i in zip(ranked, order, strict=True))
        high = float(np.nanmax(matrix)) if np.isfinite(matrix).any() else 1.0
        panels.append(
            Grid(
                title=f"{measure} per topic, runs by mean (best at the top)",
                rows=labels,
                columns=tuple(str(t) for t in topics),
                values=matrix,
                tips=sequential_tips(ranked, topics, matrix, measure, "run", "topic"),
                x_label="topic",
                y_label="run (mean)",
                scale="sequential",
                low=min(0.0, float(np.nanmin(matrix)) if np.isfinite(matrix).any() else 0.0),
                high=max(high, 1e-12),
                column_labels=len(topics) <= 60,
            )
        )
        frames.append(
            pd.DataFrame(
                {
                    "measure": measure,
                    "run": np.repeat(ranked, len(topics)),
                    "topic": np.tile(np.asarray(topics, dtype=object), len(ranked)),
                    "value": matrix.reshape(-1),
                    "mean": np.repeat(means[order], len(topics)),
                }
            )
        )
    return Figure(
        "heatmap",
        "Runs × topics",
        "Each row is a run, best mean at the top; each cell a topic, brighter is better; "
        "a dark column is a topic every run finds hard. Hover a cell for its value.",
        tuple(panels),
        pd.concat(frames, ignore_index=True),
    )
