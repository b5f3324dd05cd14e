"""Per-topic score tables and their means over topics.

:class:`RunScores` holds one run's per-topic values for every measure, plus the topics the run
and the qrels disagree on. Means are taken over the evaluated topics: the topics in both the run
and the qrels, or every qrels topic with ``-c`` (missing topics are evaluated as empty rankings
and so count as 0). Run-only topics are never in a mean.

Topic means (``--mean``):

- ``arith``: the arithmetic mean (trec_eval, ndeval; NaN propagates, as in ndeval's amean);
- ``geom``: the geometric mean of max(value, ε) with ε = 1e-5, as trec_eval's ``gm_map``
  (trec_eval 10, ``m_gm_map.c``; Golbus et al. 2013 §6.2 "geometric mean");
- ``dd``: the mean weighted by 1 − diversity difficulty of each topic (Golbus et al. 2013 §6.2,
  Eq. 2), from :mod:`divaeval.collection`. A topic without a relevant document (at ``-l``) has
  no difficulty: its weight is 0 (with a warning); if no topic has weight, the arithmetic mean
  is used (with a warning).

A measure with its own aggregate overrides ``--mean``: counts (num_ret, num_rel, …) are summed
and gm_map/gm_bpref take the geometric mean, as trec_eval prints them.

:func:`long_table` and :func:`score_matrix` turn these into the long-form score table (run,
topic, measure, value) and one measure's [runs × topics] matrix. Risk values against a baseline
run live in :mod:`divaeval.risk_measures`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError, UsageError, warn
from divaeval.io._text import text_column
from divaeval.topics import sort_topics

GEOMETRIC_EPSILON = 1e-5
MEANS = ("arith", "geom", "dd")

MAX_SCORE = 1e100
"""The largest |score| the analyses take (significance tests, risk measures, meta-evaluation):
their sums of squared differences stay finite (float64 overflows beyond 1.8e308). Metric
values are far below it; a larger score is refused as input, not turned into inf or NaN."""


def check_score_magnitude(table: np.ndarray, name: str) -> None:
    """A DataError when a score of ``table`` is beyond ±:data:`MAX_SCORE`."""
    largest = float(np.abs(table).max()) if table.size else 0.0
    if largest > MAX_SCORE:
        raise DataError(
            f"{name}: a score of magnitude {largest:.3g} is beyond {MAX_SCORE:g}, the largest "
            "the analyses take (their sums of squares would overflow)"
        )


EQUAL_TOLERANCE = 1e-12
"""Relative tolerance within which per-topic values count as equal: 1e-12 times the largest
|score| involved. Scores reached by different floating-point paths differ in their last bits
(0.3 − 0.2 and 0.4 − 0.3 differ by 5.6e-17); per-topic differences of two runs that agree within
it are equal, and within it of 0 they are 0. Every significance test, effect size and TRisk
reads differences so (:func:`equal_within_tolerance`): differences without variance give no
evidence, and identical runs are never significantly different."""


def equal_within_tolerance(values: np.ndarray, scale) -> tuple[np.ndarray, np.ndarray]:
    """(constant, zero) per row of ``values`` (along the last axis): zero where every value is
    within :data:`EQUAL_TOLERANCE` · ``scale`` of 0, constant where the values agree within it
    (or are zero). ``scale`` (per row, or one number) is the largest |score| the values were
    computed from; with scale 0 only exact equality counts."""
    limit = EQUAL_TOLERANCE * np.asarray(scale, dtype=np.float64)
    zero = np.abs(values).max(axis=-1) <= limit
    constant = zero | (values.max(axis=-1) - values.min(axis=-1) <= limit)
    return constant, zero


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


def topic_sums(table: np.ndarray) -> np.ndarray:
    """The sum of each row of ``table`` [..., n_topics], accumulated sequentially in topic
    order, as ndeval sums its columns (numpy's ``sum`` adds pairwise: another last bit). The
    one summation of every arithmetic mean divaeval prints (evaluate, compare, risk), so that
    the same mean is the same double everywhere."""
    table = np.asarray(table, dtype=np.float64)
    if table.shape[-1] == 0:
        return np.zeros(table.shape[:-1])
    return np.cumsum(table, axis=-1)[..., -1]


def row_means(table: np.ndarray) -> np.ndarray:
    """The arithmetic mean of each row of ``table`` [..., n_topics] (:func:`topic_sums`
    divided by the number of topics; NaN without topics)."""
    table = np.asarray(table, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return topic_sums(table) / table.shape[-1]


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
        return float(topic_sums(values) / count)
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
    columns = [run.values[m] for m in measures]
    if how == "arith" and run.denominator is None:
        summed = _summed_together(columns, measures, len(run.topics))
    else:
        summed = [None] * len(measures)
    return {
        m: summary_of(values, m, how, topic_weights, run.denominator) if total is None else total
        for m, values, total in zip(measures, columns, summed, strict=True)
    }


def _summed_together(columns: list, measures: Sequence, n_topics: int) -> list[float | None]:
    """Each measure's arithmetic mean over the topics (its sum where it is summed: num_ret)
    where its values are n_topics float64 values, else None: one :func:`topic_sums` over the
    stacked rows (a row accumulated as alone: the doubles :func:`summary_of` gives)."""
    kinds = [getattr(getattr(m, "spec", None), "aggregate", "mean") for m in measures]
    chosen = [
        k for k, (values, kind) in enumerate(zip(columns, kinds, strict=True))
        if kind in ("mean", "sum") and values.dtype == np.float64 and values.shape == (n_topics,)
    ]  # fmt: skip
    summed: list[float | None] = [None] * len(measures)
    if not chosen or not n_topics:
        return summed
    sums = topic_sums(np.stack([columns[k] for k in chosen])).tolist()
    for k, total in zip(chosen, sums, strict=True):
        summed[k] = total if kinds[k] == "sum" else total / n_topics
    return summed


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
    import pandas as pd  # lazily: the main job writes its tables without pandas

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
