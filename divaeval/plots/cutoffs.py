"""Measure-at-cutoff curves: the mean of a measure at k = 1, 2, ... per run (e.g. alpha-nDCG@k
and S-recall@k), showing how early each run gathers its gain."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Lines, runs_of

_AT_CUTOFF = re.compile(r"^(?P<family>.+)@(?P<k>\d+)$")


def cutoff_families(measures) -> dict[str, list[tuple[int, str]]]:
    """Measure family -> [(k, measure name)] sorted by k, for families with two cutoffs or
    more (``alpha-nDCG@5``, ``alpha-nDCG@10`` -> ``alpha-nDCG``)."""
    families: dict[str, list[tuple[int, str]]] = {}
    for name in measures:
        match = _AT_CUTOFF.match(str(name))
        if match:
            families.setdefault(match["family"], []).append((int(match["k"]), str(name)))
    return {f: sorted(set(cuts)) for f, cuts in families.items() if len(set(cuts)) > 1}


def cutoff_curves(table: pd.DataFrame) -> Figure | None:
    """One panel per measure family with several cutoffs in ``table`` (the long score table):
    x = k, one line per run through its means (the ``all`` rows the text output prints, or
    the mean of the per-topic rows when there are none). None when no family has two
    cutoffs. ``data``: family, k, measure, run, mean."""
    means = _means(table)
    families = cutoff_families(means["measure"].unique())
    if not families:
        return None
    runs = runs_of(means)
    panels, frames = [], []
    for family, cuts in families.items():
        ks = np.array([k for k, _ in cuts], dtype=np.float64)
        wide = means.pivot_table(index="run", columns="measure", values="value", aggfunc="first")
        series = {
            run: wide.loc[run, [name for _, name in cuts]].to_numpy(dtype=np.float64)
            for run in runs
        }
        panels.append(Lines(f"{family}@k", ks, series, "cutoff k", f"mean {family}@k"))
        for run, values in series.items():
            frames.append(
                pd.DataFrame(
                    {
                        "family": family,
                        "k": ks.astype(int),
                        "measure": [name for _, name in cuts],
                        "run": run,
                        "mean": values,
                    }
                )
            )
    return Figure(
        "cutoffs",
        "Measures at cutoffs",
        "Each line is a run's mean at cutoff k: higher and steeper early means more of the "
        "gain near the top. Hover a point for its value.",
        tuple(panels),
        pd.concat(frames, ignore_index=True),
        columns=min(2, len(panels)),
    )


def _means(table: pd.DataFrame) -> pd.DataFrame:
    summary = table[table["topic"].astype(str) == "all"]
    if summary.empty:
        summary = table.groupby(["run", "measure"], sort=False, as_index=False)["value"].mean()
    return summary[["run", "measure", "value"]].astype({"value": np.float64})
