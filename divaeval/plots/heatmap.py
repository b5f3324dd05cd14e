"""The topics × runs heat map of a measure: one row per run (best mean at the top), one cell per
topic, darker where the run scores lower (viridis: dark purple low, yellow high); of
differences against a baseline, a diverging scale centred on 0 (vermillion below, white at 0,
blue above)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Grid, measures_of, per_topic, sequential_tips
from divaeval.scores import score_matrix


def topic_heatmap(
    table: pd.DataFrame, measures: Sequence[str] | None = None, baseline: str | None = None
) -> Figure:
    """One panel per measure of ``table`` (the long score table); rows are the runs sorted by
    their mean over the topics they have (best first), columns the topics in topic order.
    With ``baseline``, the values are differences against that run (``evaluate --baseline``'s
    risk values), coloured on a scale centred on 0. ``data``: measure, run, topic, value, and
    the rows' ``mean``."""
    rows = per_topic(table)
    panels, frames = [], []
    for measure in measures or measures_of(rows):
        runs, topics, values = score_matrix(rows, measure)
        means = np.nanmean(values, axis=1) if values.size else np.zeros(len(runs))
        order = np.argsort(-means, kind="stable")
        ranked = [runs[i] for i in order]
        matrix = values[order]
        labels = tuple(f"{run} ({means[i]:.3f})" for run, i in zip(ranked, order, strict=True))
        finite = np.isfinite(matrix).any()
        high = float(np.nanmax(matrix)) if finite else 1.0
        low = min(0.0, float(np.nanmin(matrix)) if finite else 0.0)
        if baseline is not None:  # as far below 0 as above: white is no difference
            high = max(abs(low), abs(high), 1e-12)
            low = -high
        panels.append(
            Grid(
                title=f"{measure} per topic, runs by mean (best at the top)"
                if baseline is None
                else f"{measure} against {baseline} per topic, best mean at the top",
                rows=labels,
                columns=tuple(str(t) for t in topics),
                values=matrix,
                tips=sequential_tips(ranked, topics, matrix, measure, "run", "topic"),
                x_label="topic",
                y_label="run (mean)",
                scale="sequential" if baseline is None else "diverging",
                low=low,
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
    caption = (
        "Each row is a run, best mean at the top; each cell a topic, brighter is better; "
        "a dark column is a topic every run finds hard. Hover a cell for its value."
        if baseline is None
        else f"Each row is a run, best mean at the top; each cell a topic: blue where the run "
        f"beats {baseline}, vermillion where it loses, white where they tie. Hover a cell "
        "for its value."
    )
    return Figure(
        "heatmap",
        "Runs × topics" if baseline is None else f"Runs × topics, against {baseline}",
        caption,
        tuple(panels),
        pd.concat(frames, ignore_index=True),
    )
