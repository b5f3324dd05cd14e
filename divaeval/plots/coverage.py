"""The subtopic coverage map (the picture of diversification): for one topic and one run, which
of the first k ranked documents is relevant to which subtopic, and at what grade. A ranking that
diversifies well reaches every subtopic's row early; one that does not piles its relevant
documents into one row."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure, Grid
from divaeval.scores import score_matrix

#: ranks shown by default (the TREC Web Track's official cutoff)
DEFAULT_RANKS = 20


@dataclass(frozen=True, eq=False)
class TopicCoverage:
    """The first ranks of one run for one topic, joined with the judgments: ``grades[rank,
    subtopic]`` (0: not relevant to it; negative grades shown as 0), ``judged[rank]`` (the
    document has a qrels line for the topic), ``length`` ranked documents (<= k)."""

    run: str
    topic: str
    subtopics: tuple[str, ...]
    types: tuple[str, ...]  # "inf", "nav", or "" when no type is known
    grades: np.ndarray  # [k, S] int
    judged: np.ndarray  # [k] bool
    length: int

    @property
    def covered(self) -> np.ndarray:
        """[S] bool: the subtopic has a relevant document in the first ranks."""
        return np.asarray((self.grades > 0).any(axis=0))

    @property
    def first_rank(self) -> np.ndarray:
        """[S] int: the 1-based rank of each subtopic's first relevant document (0: none)."""
        hit = self.grades > 0
        return np.where(hit.any(axis=0), hit.argmax(axis=0) + 1, 0)


def coverage_of_rankings(
    rankings, *, ranks: int = DEFAULT_RANKS, typed: bool = False, run: str | None = None
) -> list[TopicCoverage]:
    """One :class:`TopicCoverage` per evaluated topic of a run's judged rankings
    (:class:`divaeval.judged.JudgedRankings`: ``grades[t, r, s]``, ``judged``, ``length`` and
    the material's subtopics). ``typed``: the subtopic types (inf/nav) are known; ``run``:
    the run's name (default: the rankings' own)."""
    name = rankings.run_name if run is None else run
    material = rankings.material
    covered = []
    for t, topic in enumerate(material.topics):
        valid = np.asarray(material.subtopic_valid[t], dtype=bool)
        subtopics = tuple(str(s) for s in material.subtopics[t][valid])
        nav = np.asarray(material.intent_nav[t])[valid]
        types = tuple(("nav" if n else "inf") if typed else "" for n in nav)
        grades = np.zeros((ranks, len(subtopics)), dtype=np.int64)
        judged = np.zeros(ranks, dtype=bool)
        shown = min(ranks, rankings.grades.shape[1])
        grades[:shown] = np.maximum(rankings.grades[t, :shown][:, valid], 0)
        judged[:shown] = rankings.judged[t, :shown]
        length = int(min(ranks, rankings.length[t]))
        grades[length:] = 0
        judged[length:] = False
        covered.append(TopicCoverage(name, str(topic), subtopics, types, grades, judged, length))
    return covered


def subtopic_label(subtopic: str, kind: str) -> str:
    return f"{subtopic} ({kind})" if kind else subtopic


def coverage_map(
    coverages: Sequence[TopicCoverage],
    *,
    title: str | None = None,
    scores: Mapping[str, float] | None = None,
    measure: str = "",
) -> Figure:
    """One panel per run (in the order given) for one topic: rows are the subtopics, columns
    the ranks 1..k, a cell's colour the grade of the document at that rank for that subtopic;
    grey columns are unjudged documents, blank columns past the end of the ranking. ``scores``
    (run -> the topic's value of ``measure``) go in the panels' titles. ``data``: run, topic,
    rank, subtopic, type, grade, judged."""
    if not coverages:
        raise ValueError("coverage_map needs at least one run's coverage")
    topic = coverages[0].topic
    top = max(int(c.grades.max(initial=0)) for c in coverages)
    panels, frames = [], []
    for position, item in enumerate(coverages):
        k, width = item.grades.shape
        rows = tuple(subtopic_label(s, t) for s, t in zip(item.subtopics, item.types, strict=True))
        values = item.grades.T.astype(np.float64)
        values[:, item.length :] = np.nan
        tips = np.empty(values.shape, dtype=object)
        for s, row in enumerate(rows):
            for r in range(k):
                state = (
                    "past the ranking"
                    if r >= item.length
                    else (f"grade {item.grades[r, s]}" if item.judged[r] else "unjudged")
                )
                tips[s, r] = f"rank {r + 1} · subtopic {row} · {state}"
        n_covered = int(item.covered.sum())
        score = ""
        if scores is not None and item.run in scores:
            score = f"{measure} {scores[item.run]:.3f}, "
        panels.append(
            Grid(
                title=f"{item.run}: {score}{n_covered} of {width} subtopics in the top {k}",
                rows=rows,
                columns=tuple(str(r) for r in range(1, k + 1)),
                values=values,
                tips=tips,
                x_label="rank",
                y_label="subtopic",
                scale="grades",
                low=0.0,
                high=float(max(top, 1)),
                greyed_columns=~item.judged & (np.arange(k) < item.length),
                column_ticks=tuple(r - 1 for r in (1, *range(5, k + 1, 5))),
                legend=position == len(coverages) - 1,
            )
        )
        frames.append(
            pd.DataFrame(
                {
                    "run": item.run,
                    "topic": topic,
                    "rank": np.repeat(np.arange(1, k + 1), width),
                    "subtopic": np.tile(np.asarray(item.subtopics, dtype=object), k),
                    "type": np.tile(np.asarray(item.types, dtype=object), k),
                    "grade": item.grades.reshape(-1),
                    "judged": np.repeat(item.judged, width),
                }
            )
        )
    return Figure(
        "coverage",
        title or f"Subtopic coverage, topic {topic}",
        "Each strip is a run's top ranks (left to right) against the topic's subtopics (rows): "
        "a blue cell is a document relevant to that subtopic, darker for a higher grade; grey "
        "columns are unjudged documents. Good diversification reaches every row early.",
        tuple(panels),
        pd.concat(frames, ignore_index=True),
    )


def topic_spreads(table: pd.DataFrame, measure: str) -> list[tuple[str, float]]:
    """(topic, spread) of the topics of ``table`` (the long score table) by how much the runs
    differ on ``measure`` (spread = max − min over runs, largest first; ties in topic order):
    the topics whose coverage maps are most worth a look."""
    rows = table[table["topic"].astype(str) != "all"]
    _, topics, values = score_matrix(rows, measure)
    spread = np.nanmax(values, axis=0) - np.nanmin(values, axis=0)
    order = np.argsort(-np.nan_to_num(spread, nan=-1.0), kind="stable")
    return [(str(topics[i]), float(spread[i])) for i in order]
