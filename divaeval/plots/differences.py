"""Per-topic differences between two runs, sorted: the wins and losses bars of the TREC Web
Track overviews (e.g. Clarke et al., TREC 2012 Web Track overview, Fig. 2). With a risk
sensitivity α the losses are also drawn times (1 + α) behind the bars: the risk values whose
mean is URisk (Wang, Bennett & Collins-Thompson 2012; :mod:`divaeval.risk_measures`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from divaeval.plots.figure import Bars, Figure, measures_of, per_topic, runs_of, sign_colour_tip
from divaeval.scores import score_matrix

CAPTION = (
    "One bar per topic, sorted: above 0 the topics where the first run wins, below 0 where it "
    "loses; hover a bar for its topic and difference."
)


def differences(
    table: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    *,
    measures: Sequence[str] | None = None,
    risk_alpha: float | None = None,
    title: str = "Per-topic differences",
) -> Figure:
    """One panel per measure and pair (run, reference) of ``table`` (the long score table:
    run, topic, measure, value), the topics sorted by ``run − reference`` descending; topics
    either run lacks are left out. ``data``: measure, run, reference, topic, difference (and
    weighted: the risk value, losses times 1 + ``risk_alpha``)."""
    rows = per_topic(table)
    chosen = list(measures or measures_of(rows))
    matrices = {measure: score_matrix(rows, measure) for measure in chosen}
    panels, frames = [], []
    for run, reference in pairs:  # one row of panels per pair: its measures side by side
        for measure in chosen:
            runs, topics, values = matrices[measure]
            position = {name: i for i, name in enumerate(runs)}
            delta = values[position[run]] - values[position[reference]]
            present = ~np.isnan(delta)
            order = np.argsort(-delta[present], kind="stable")
            shown = delta[present][order]
            labels = tuple(str(t) for t in np.asarray(topics, dtype=object)[present][order])
            weighted = None
            if risk_alpha is not None:
                weighted = np.where(shown < 0, (1.0 + risk_alpha) * shown, shown)
            panels.append(_panel(run, reference, measure, labels, shown, weighted, risk_alpha))
            frame = pd.DataFrame(
                {
                    "measure": measure,
                    "run": run,
                    "reference": reference,
                    "topic": labels,
                    "difference": shown,
                }
            )
            if weighted is not None:
                frame["weighted"] = weighted
            frames.append(frame)
    caption = CAPTION
    if risk_alpha is not None:
        caption += f" Pale bars: losses weighed 1 + α = {1 + risk_alpha:g} times (URisk)."
    return Figure(
        "differences",
        title,
        caption,
        tuple(panels),
        _concat(frames),
        columns=len(chosen) if len(chosen) > 1 else min(2, len(panels)),
    )


def against_baseline(
    table: pd.DataFrame,
    baseline: str,
    *,
    measures: Sequence[str] | None = None,
    risk_alpha: float | None = None,
) -> Figure:
    """:func:`differences` of every other run against ``baseline``."""
    pairs = [(run, baseline) for run in runs_of(table) if run != baseline]
    return differences(
        table,
        pairs,
        measures=measures,
        risk_alpha=risk_alpha,
        title=f"Per-topic differences against {baseline}",
    )


def between_pairs(table: pd.DataFrame, *, measures: Sequence[str] | None = None) -> Figure:
    """:func:`differences` of every pair of runs (a before b in run order), as ``compare``
    lists them (its ``diff`` is a panel's mean)."""
    runs = runs_of(table)
    pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :]]
    return differences(table, pairs, measures=measures)


def preferences(values: pd.DataFrame) -> Figure:
    """The per-topic preferences of ``prefer`` (run_a, run_b, topic, measure, value: +1 when
    run_a is preferred), sorted, one panel per pair and measure."""
    rows = per_topic(values)
    panels, frames = [], []
    for measure in measures_of(rows):
        for (run_a, run_b), group in rows[rows["measure"] == measure].groupby(
            ["run_a", "run_b"], sort=False
        ):
            shown = group["value"].to_numpy(dtype=np.float64)
            order = np.argsort(-shown, kind="stable")
            labels = tuple(str(t) for t in group["topic"].to_numpy()[order])
            panels.append(_panel(run_a, run_b, measure, labels, shown[order], None, None))
            frames.append(
                pd.DataFrame(
                    {
                        "measure": measure,
                        "run": run_a,
                        "reference": run_b,
                        "topic": labels,
                        "difference": shown[order],
                    }
                )
            )
    return Figure(
        "preferences",
        "Per-topic preferences",
        "One bar per topic, sorted: above 0 the topics where the first run is preferred, "
        "below 0 the second; hover a bar for its topic and value.",
        tuple(panels),
        _concat(frames),
        columns=2 if len(panels) > 1 else 1,
    )


def _panel(run, reference, measure, labels, shown, weighted, risk_alpha) -> Bars:
    wins, losses = int((shown > 0).sum()), int((shown < 0).sum())
    mean = float(shown.mean()) if len(shown) else float("nan")
    summary = f"{wins} wins, {losses} losses, mean {sign_colour_tip(mean)}"
    if weighted is not None:
        urisk = float(weighted.mean()) if len(weighted) else float("nan")
        summary += f", URisk (α={risk_alpha:g}) {sign_colour_tip(urisk)}"
    tips = tuple(
        f"topic {topic} · {run} − {reference} · {measure} {sign_colour_tip(value)}"
        for topic, value in zip(labels, shown, strict=True)
    )
    return Bars(
        title=f"{run} − {reference} · {measure}",
        subtitle=summary,
        labels=labels,
        values=shown,
        tips=tips,
        y_label=f"Δ {measure}",
        x_label="topics, sorted",
        weighted=weighted,
    )


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
