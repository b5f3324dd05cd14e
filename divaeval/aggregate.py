"""Per-topic score tables and their means over topics.

:class:`RunScores` holds one run's per-topic values for every measure, plus the topics the run
and the qrels disagree on. Means are taken over the evaluated topics: the topics in both the run
and the qrels, or every qrels topic with ``-c`` (missing topics are evaluated as empty rankings
and so count as 0). Run-only topics are never in a mean.

Topic means (``--mean``):

- ``arith``: the arithmetic mean (trec_eval, ndeval; NaN propagates, as in ndeval's amean);
- ``geom``: the geometric mean of max(value, ε) with ε = 1e-5, as trec_eval's ``gm_map``
  (other-metrics.md; Golbus et al. 2013 §6.2 "geometric mean");
- ``dd``: the mean weighted by 1 − diversity difficulty of each topic (Golbus et al. 2013 §6.2,
  Eq. 2), from :mod:`divaeval.collection`. A topic without a relevant document (at ``-l``) has
  no difficulty: its weight is 0 (with a warning); if no topic has weight, the arithmetic mean
  is used (with a warning).

A measure with its own aggregate overrides ``--mean``: counts (num_ret, num_rel, …) are summed
and gm_map/gm_bpref take the geometric mean, as trec_eval prints them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import UsageError, warn
from divaeval.io._text import text_column
from divaeval.topics import sort_topics

GEOMETRIC_EPSILON = 1e-5
MEANS = ("arith", "geom", "dd")


@dataclass(eq=False)
class RunScores:
    """One run's per-topic values (``values[measure][i]`` for ``topics[i]``)."""

    name: str
    path: str
    topics: np.ndarray  # evaluated topics, sorted
    values: dict  # Measure -> np.ndarray over topics
    run_only_topics: list[str] = field(default_factory=list)
    missing_topics: list[str] = field(default_factory=list)  # qrels topics the run lacks
    denominator: int | None = None  # what the mean divides by (None: the number of topics)
    tag: str = ""  # the run file's tag (its first line's)

    @property
    def mean_count(self) -> int:
        """The number of topics the mean is taken over (trec_eval's ``num_q``)."""
        return len(self.topics) if self.denominator is None else self.denominator


def topic_mean(
    values: np.ndarray,
    how: str = "arith",
    weights: np.ndarray | None = None,
    denominator: int | None = None,
) -> float:
    """Mean of per-topic values: arithmetic, geometric (trec_eval gm_map's ε = 1e-5), or
    weighted by ``weights`` (``dd``: 1 − diversity difficulty). ``denominator`` replaces the
    number of values as the arithmetic mean's divisor (ndeval's ``-baseline`` rule)."""
    if denominator is not None and how != "arith":
        raise UsageError(
            f"--mean {how} cannot average risk values (they are differences; use --mean arith)"
        )
    count = len(values) if denominator is None else denominator
    if count == 0:
        return float("nan")
    if how == "arith":
        # cumsum accumulates sequentially, in topic order, as ndeval sums its columns
        total = np.cumsum(values)[-1] if len(values) else 0.0
        return float(total / count)
    if how == "geom":
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.exp(np.mean(np.log(np.maximum(values, GEOMETRIC_EPSILON)))))
    if how == "dd":
        if weights is None:
            raise UsageError("--mean dd needs diversity-difficulty weights")
        total_weight = float(np.sum(weights))
        if total_weight == 0:  # no topic has a defined difficulty: every weight is 0
            return topic_mean(values, "arith")
        return float(np.sum(values * weights) / total_weight)
    raise UsageError(f"unknown topic mean {how!r} (choose from {', '.join(MEANS)})")


def summary_of(
    values: np.ndarray,
    measure,
    how: str,
    weights: np.ndarray | None,
    denominator: int | None = None,
) -> float:
    """A measure's summary over topics: its own aggregate when it has one (counts such as
    num_ret are summed, gm_map takes the geometric mean, as trec_eval and ir_measures do),
    else the topic mean ``how``. Risk values (``denominator`` set: ndeval's ``-baseline``) are
    differences and always take ndeval's mean, whatever the measure's own aggregate."""
    if denominator is not None:
        return topic_mean(values, how, weights, denominator)
    aggregate = getattr(getattr(measure, "spec", None), "aggregate", "mean")
    if aggregate == "sum":
        return float(np.cumsum(values)[-1]) if len(values) else 0.0
    if aggregate == "geom":
        return topic_mean(values, "geom")
    return topic_mean(values, how, weights)


def means(
    run: RunScores, measures: Sequence, how: str = "arith", weights: dict[str, float] | None = None
) -> dict:
    """Measure -> summary over the run's evaluated topics (:func:`summary_of`)."""
    topic_weights = None
    if how == "dd":
        if weights is None:
            raise UsageError("--mean dd needs diversity-difficulty weights")
        topic_weights = np.array([weights.get(str(t), 0.0) for t in run.topics])
        if len(topic_weights) and not topic_weights.any():
            warn(
                f"--mean dd: no topic of run {run.name} has a relevant document, so every "
                "weight is 0; the arithmetic mean is used"
            )
    return {m: summary_of(run.values[m], m, how, topic_weights, run.denominator) for m in measures}


# ---------------------------------------------------------------------------------------------
# ndeval's -baseline/-riskAlpha: risk values against a baseline run


def check_risk_alpha(alpha: float | str) -> tuple[float, str]:
    """(α as a float, α as text): α must be a finite number ≥ 0. Text is kept as given (ndeval
    prints ``-riskAlpha`` exactly as typed in its run label); a number is written shortest
    (``1.0`` -> ``1``)."""
    if isinstance(alpha, str):
        text = alpha.strip()
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"risk alpha must be a number >= 0, not {alpha!r}") from None
    else:
        value = float(alpha)
        text = repr(value).removesuffix(".0")
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"risk alpha must be a finite number >= 0, not {alpha!r}")
    return value, text


def risk_values(run: np.ndarray, baseline: np.ndarray, alpha: float) -> np.ndarray:
    """ndeval's ``RiskBased(r, b, a)`` elementwise: r − b where r ≥ b, else (1 + a)·(r − b).

    The same floating-point operations as ndeval 4.5, so the values agree bit for bit; NaN on
    either side gives NaN (ndeval's ``r >= b`` is false for NaN).
    """
    run = np.asarray(run, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    difference = run - baseline
    return np.where(run >= baseline, difference, (1.0 + alpha) * difference)


@dataclass(frozen=True)
class RiskTopicSet:
    """ndeval's rows and mean denominator of a run against a baseline."""

    topics: list[str]  # the printed rows, ascending
    denominator: int  # what the row sum is divided by


def ndeval_topic_set(
    run_topics: Sequence[str],
    baseline_topics: Sequence[str],
    qrels_topics: Sequence[str],
    *,
    complete: bool,
) -> RiskTopicSet:
    """The topic set of ``ndeval -baseline`` (ndeval 4.5, ``outputMeasures``).

    Rows: every topic of the run file; with ``-c`` every topic of the run or the baseline file.
    A topic missing from one side (or without qrels) counts as 0 for that side. Denominator:
    |run ∩ qrels| (with ``-c``: |qrels|), replaced by the number of rows when that is larger, so
    without ``-c`` it is the number of run topics, and with ``-c`` it is
    max(|qrels|, |run ∪ baseline|), which is less than |qrels ∪ run ∪ baseline| when both the
    qrels and the two runs have topics the other side lacks.
    """
    run_set = {str(t) for t in run_topics}
    qrels_set = {str(t) for t in qrels_topics}
    rows = run_set | {str(t) for t in baseline_topics} if complete else run_set
    counted = len(qrels_set) if complete else len(run_set & qrels_set)
    return RiskTopicSet(topics=sort_topics(rows), denominator=max(counted, len(rows)))


def file_topics(run: RunScores) -> list[str]:
    """The topics of the run file: its evaluated topics it did not lack, and its topics without
    qrels."""
    missing = set(run.missing_topics)
    return [str(t) for t in run.topics if t not in missing] + list(run.run_only_topics)


def _values_on(run: RunScores, topics: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(positions into ``run.topics``, present) for ``topics``: present where the run file has
    the topic and it was evaluated (topics without qrels and topics the run lacks are absent)."""
    missing = set(run.missing_topics)
    position = {str(t): i for i, t in enumerate(run.topics) if t not in missing}
    index = np.array([position.get(t, -1) for t in topics], dtype=np.int64)
    return np.maximum(index, 0), index >= 0


def relative_to_baseline(
    run: RunScores,
    baseline: RunScores,
    measures: Sequence,
    qrels_topics: Sequence[str],
    *,
    alpha: float,
    complete: bool,
    name: str,
) -> RunScores:
    """``run``'s risk values against ``baseline`` as ndeval 4.5's ``-baseline -riskAlpha``
    computes them: per topic r − b, or (1 + α)·(r − b) where the
    run loses; rows and mean denominator by :func:`ndeval_topic_set`; a
    topic missing from either run file, or without qrels, counts as 0 for that side."""
    topic_set = ndeval_topic_set(
        file_topics(run), file_topics(baseline), qrels_topics, complete=complete
    )
    rows = topic_set.topics
    run_index, run_present = _values_on(run, rows)
    base_index, base_present = _values_on(baseline, rows)

    def on_rows(scores: RunScores, measure, index: np.ndarray, present: np.ndarray) -> np.ndarray:
        if not present.any():
            return np.zeros(len(rows))
        return np.where(present, scores.values[measure][index], 0.0)

    values = {
        measure: risk_values(
            on_rows(run, measure, run_index, run_present),
            on_rows(baseline, measure, base_index, base_present),
            alpha,
        )
        for measure in measures
    }
    return RunScores(
        name=name,
        path=run.path,
        topics=np.array(rows, dtype=object),
        values=values,
        denominator=topic_set.denominator,
    )


def long_table(
    runs: Sequence[RunScores],
    measures: Sequence,
    *,
    per_topic: bool = True,
    summary: bool = True,
    how: str = "arith",
    weights=None,
):
    """The long-form score table: one row per (run, topic, measure) with ``topic = "all"``
    for the mean. Columns: run, topic, measure, value."""
    import pandas as pd

    frames = []
    names = [m.name for m in measures]
    for run in runs:
        if per_topic and len(run.topics):
            block = np.column_stack([run.values[m] for m in measures]) if measures else None
            if block is not None:
                n = len(run.topics) * len(measures)
                frames.append(
                    pd.DataFrame(
                        {
                            "run": text_column(np.full(n, run.name, dtype=object)),
                            "topic": text_column(
                                np.repeat(run.topics.astype(object), len(measures))
                            ),
                            "measure": text_column(
                                np.tile(np.array(names, dtype=object), len(run.topics))
                            ),
                            "value": block.ravel(),
                        }
                    )
                )
        if summary:
            averaged = means(run, measures, how, weights)
            frames.append(
                pd.DataFrame(
                    {
                        "run": text_column(np.full(len(names), run.name, dtype=object)),
                        "topic": text_column(np.full(len(names), "all", dtype=object)),
                        "measure": text_column(np.array(names, dtype=object)),
                        "value": [averaged[m] for m in measures],
                    }
                )
            )
    if not frames:
        empty = text_column(np.array([], dtype=object))
        return pd.DataFrame({"run": empty, "topic": empty, "measure": empty, "value": []})
    return pd.concat(frames, ignore_index=True)


def score_matrix(table, measure: str):
    """(runs, topics, values[n_runs, n_topics]) for one measure of a long table's per-topic
    rows, topics sorted; used by significance tests and meta-evaluation."""
    from divaeval.topics import sort_topics

    rows = table[(table["measure"] == measure) & (table["topic"] != "all")]
    if rows.empty:
        raise UsageError(f"no per-topic values for measure {measure!r}")
    wide = rows.pivot_table(
        index="run", columns="topic", values="value", aggfunc="first", sort=False
    )
    topics = sort_topics(wide.columns)
    runs = list(dict.fromkeys(rows["run"]))
    wide = wide.reindex(index=runs, columns=topics)
    return runs, topics, wide.to_numpy(dtype=np.float64)
