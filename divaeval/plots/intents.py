"""The intent-aware breakdown: per subtopic of a topic, how many relevant documents each run
retrieves in its first ranks; and over every topic, per subtopic type (inf/nav when known),
the share of subtopics each run reaches (S-recall by type; Zhai, Cohen & Lafferty 2003)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from divaeval.plots.coverage import TopicCoverage, subtopic_label
from divaeval.plots.figure import Figure, Grid, sequential_tips


def subtopic_breakdown(coverages: Sequence[TopicCoverage]) -> Figure:
    """For one topic: rows are its subtopics, columns the runs (in the order given), a cell
    the number of the run's first-k documents relevant to the subtopic. ``data``: topic,
    subtopic, type, run, retrieved."""
    topic = coverages[0].topic
    first = coverages[0]
    rows = tuple(subtopic_label(s, t) for s, t in zip(first.subtopics, first.types, strict=True))
    runs = tuple(c.run for c in coverages)
    counts = np.stack([(c.grades > 0).sum(axis=0) for c in coverages], axis=1).astype(float)
    k = first.grades.shape[0]
    panel = Grid(
        title=f"Relevant documents per subtopic in the top {k}, topic {topic}",
        rows=rows,
        columns=runs,
        values=counts,
        tips=sequential_tips(rows, runs, counts, f"relevant in top {k}", "subtopic", "run", 0),
        x_label="run",
        y_label="subtopic",
        scale="sequential",
        low=0.0,
        high=float(max(counts.max(initial=0), 1)),
    )
    data = pd.DataFrame(
        {
            "topic": topic,
            "subtopic": np.repeat(np.asarray(first.subtopics, dtype=object), len(runs)),
            "type": np.repeat(np.asarray(first.types, dtype=object), len(runs)),
            "run": np.tile(np.asarray(runs, dtype=object), len(rows)),
            "retrieved": counts.reshape(-1).astype(int),
        }
    )
    return Figure(
        "subtopics",
        f"Subtopics retrieved, topic {topic}",
        "Each row a subtopic, each column a run: the number of its top documents relevant to "
        "the subtopic; a dark row is a subtopic the run misses.",
        (panel,),
        data,
    )


def type_breakdown(coverages_by_run: dict[str, Sequence[TopicCoverage]]) -> Figure:
    """Over every topic: rows are the runs, columns the subtopic types (inf, nav when known)
    and ``all``; a cell is the share of those subtopics (pooled over topics) with a relevant
    document in the run's first ranks. ``data``: run, type, covered, subtopics, share."""
    runs = list(coverages_by_run)
    kinds = sorted({t for cs in coverages_by_run.values() for c in cs for t in c.types} - {""})
    columns = (*kinds, "all")
    shares = np.full((len(runs), len(columns)), np.nan)
    records = []
    for i, run in enumerate(runs):
        for j, kind in enumerate(columns):
            covered = total = 0
            for item in coverages_by_run[run]:
                chosen = np.array([kind == "all" or t == kind for t in item.types], dtype=bool)
                covered += int(item.covered[chosen].sum())
                total += int(chosen.sum())
            share = covered / total if total else float("nan")
            shares[i, j] = share
            records.append((run, kind, covered, total, share))
    k = next(iter(coverages_by_run.values()))[0].grades.shape[0] if runs else 0
    panel = Grid(
        title=f"Share of subtopics reached in the top {k}, by type",
        rows=tuple(runs),
        columns=columns,
        values=shares,
        tips=sequential_tips(runs, columns, shares, "share reached", "run", "type"),
        x_label="subtopic type",
        y_label="run",
        scale="sequential",
        low=0.0,
        high=1.0,
    )
    return Figure(
        "types",
        "Subtopics reached, by type",
        "Each cell: of all the subtopics of that type over every topic, the share a run "
        "reaches in its top documents; brighter is better.",
        (panel,),
        pd.DataFrame(records, columns=["run", "type", "covered", "subtopics", "share"]),
    )
