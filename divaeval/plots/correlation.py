"""Kendall τ scatter: per pair of metrics, each run as a point at its mean under one metric
against its mean under the other; τ_b of the two system rankings in the panel's title (Sakai
2012 §4.3; :mod:`divaeval.meta.correlation`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Points


def tau_scatter(runs, tables, correlations: pd.DataFrame) -> Figure:
    """``runs`` and ``tables`` (measure -> scores ``[len(runs), topics]``): the score tables
    the correlations were computed from; ``correlations``: the ``meta correlation`` table
    (metric_a, metric_b, tau_b, ...). One panel per row of ``correlations``. ``data``:
    metric_a, metric_b, tau_b, run, mean_a, mean_b."""
    names = tuple(str(run) for run in runs)
    means = {m: np.asarray(v, dtype=np.float64).mean(axis=1) for m, v in tables.items()}
    panels, frames = [], []
    for pair in correlations.itertuples(index=False):
        a, b, tau = str(pair.metric_a), str(pair.metric_b), float(pair.tau_b)
        x, y = means[a], means[b]
        panels.append(Points(f"{a} vs {b}: τ_b = {tau:.3f}", x, y, names, a, b, False))
        frames.append(
            pd.DataFrame(
                {"metric_a": a, "metric_b": b, "tau_b": tau, "run": names, "mean_a": x, "mean_b": y}
            )
        )
    return Figure(
        "correlation",
        "System rankings of two metrics",
        "Each point is a run at its mean under two metrics: points along a rising line mean "
        "the two metrics rank the runs alike (τ near 1).",
        tuple(panels),
        pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(),
        columns=min(3, max(len(panels), 1)),
    )
