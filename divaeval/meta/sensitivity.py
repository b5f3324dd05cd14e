"""Document selection sensitivity (Golbus, Aslam & Clarke, "Increasing evaluation sensitivity
to diversity", Information Retrieval 16(4), 2013, §7, Eq. 11).

A qrels-only analysis of a metric: how much it varies across rankings that all have perfect ad
hoc performance.

1. Per topic, the relevant set = the documents whose largest grade over the subtopics is
   ≥ ``rel_level`` (default 1: relevant to at least one subtopic, the binary TREC judgments;
   grades and intent probabilities are not used to draw the lists, §7.1).
2. Draw L (default 1000, §7.2) uniformly random permutations of the whole relevant set. Each
   permutation is a ranked list; the metric, evaluated at its own cutoff k, sees only its first
   k documents, so the lists differ in which relevant documents are selected as well as in their
   order. The metric is the registered one (``divaeval.metrics.compute_measures``) with the
   qrels' own grades and intents.
3. Per topic, **dss = s / x̄** (Eq. 11): the sample standard deviation (divisor L − 1) over the
   mean of the L values. NaN ("n/a") when x̄ = 0; exactly 0 when all L values are equal
   (compared as values, not through s, whose floating-point mean can miss by one ulp).
4. Topic average: ``arith`` (arithmetic), ``geom`` (exp of mean log of max(dss, 1e-5)) or ``dd``
   (Σ (1 − dd_q)·dss_q / Σ (1 − dd_q), diversity difficulty from
   :mod:`divaeval.collection`; topics whose weight is NaN are excluded; all-zero weights fall
   back to ``arith`` with a warning; Golbus et al. §6.3). Topics without a relevant
   document, or whose dss is NaN, are left out of the average.

DSS is meant for non-negative metrics and is not invariant under affine transformations; RBU and
EU, which can be negative, are refused, and a warning is printed if any other metric produces a
negative value.

Sampling (:mod:`divaeval.meta.sampled_lists`): each topic has its own generator,
``numpy.random.default_rng([seed, crc32(topic)])`` (PCG64), so a topic's lists do not depend on
the other topics in the file.

Parallel work (``workers``, :mod:`divaeval.parallel`: ``--jobs``, ``--scheduler``): every batch
of topics is a task; with a grid and several workers, the grid points are also split into parts
of consecutive points (whose measures share work, such as the novelty gains of one alpha), each a
task of its own that draws the batch's lists again (from the same per-topic generators) and
evaluates its points' measures on them. A measure's values depend only on its topic's lists, so
the results are the same bits wherever and however the work is split.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from divaeval.collection import check_dd_exponent
from divaeval.errors import DataError, UsageError, check_rel_level, warn
from divaeval.evaluation import difficulty_weights
from divaeval.io import Qrels, read_intents, read_qrels, read_topic_types
from divaeval.judged import QrelsIndex
from divaeval.meta.sampled_lists import (
    BatchResult,
    SamplingWork,
    coefficient_of_variation,
    evaluate_batch,
    relevant_rows,
    sample_and_score,
)
from divaeval.metrics import Measure, parse_measure, parse_measures
from divaeval.metrics.grid import Grid, grid_measures
from divaeval.metrics.spec import format_value
from divaeval.parallel import InProcess, Workers
from divaeval.scores import topic_mean
from divaeval.settings import Settings
from divaeval.stats.significance import DEFAULT_SEED, GENERATOR_NAME, check_resamples

__all__ = [
    "DEFAULT_CUTOFF",
    "DEFAULT_SAMPLES",
    "GridMaximum",
    "SensitivityResult",
    "coefficient_of_variation",
    "evaluate_batch",
    "selection_sensitivity",
    "sensitivity",
]


DEFAULT_SAMPLES = 1000


DEFAULT_CUTOFF = 20


TOPIC_MEANS = ("arith", "geom", "dd")  # as --mean of the other commands


REFUSED_METRICS = frozenset({"RBU", "EU"})
"""Metrics that can be negative, for which a coefficient of variation is meaningless."""


_BATCH_CELLS = 30_000_000  # rows × pool × subtopics of one batch (int16 grades)


_BATCH_VALUES = 5_000_000  # rows × measures of one batch (the metric values, float64)


@dataclass(frozen=True)
class GridMaximum:
    """One ``-m`` measure over a ``--grid``: the topic average of dss at every point
    (``averages``, in grid order), the first point reaching the largest (``best``) and the
    number of points reaching it exactly (``at_max``)."""

    measure: str
    grid: Grid
    points: list[dict]
    names: list[str]
    averages: np.ndarray
    best: int
    at_max: int

    @property
    def maximum(self) -> float:
        return float(self.averages[self.best])

    @property
    def argmax(self) -> dict:
        return self.points[self.best]


@dataclass(frozen=True)
class SensitivityResult:
    """Per-topic DSS of every measure and their topic averages.

    ``values[measure]`` is ``[T, L]`` (the metric on each sampled list), ``mean``, ``sd`` and
    ``dss`` are ``[T]``; ``average[measure]`` is the topic average of ``dss``.
    """

    measures: list[str]
    topics: np.ndarray
    n_relevant: np.ndarray
    values: dict[str, np.ndarray]
    mean: dict[str, np.ndarray]
    sd: dict[str, np.ndarray]
    dss: dict[str, np.ndarray]
    average: dict[str, float]
    averaged_topics: dict[str, int]
    topic_mean: str
    samples: int
    seed: int
    rel_level: int
    signature: str
    grid_maxima: list[GridMaximum] | None = None

    def averages(self, mean: str, weights: dict[str, float] | None = None) -> dict[str, float]:
        """Every measure's topic average of dss under another topic ``mean`` (the per-topic
        dss do not depend on it); ``weights`` (topic -> 1 − dd) for ``dd``, e.g.
        :func:`divaeval.evaluation.difficulty_weights`."""
        if mean not in TOPIC_MEANS:
            raise UsageError(f"unknown topic mean {mean!r} (choose from {', '.join(TOPIC_MEANS)})")
        if mean == "dd" and weights is None:
            raise UsageError("the dd topic mean needs the topics' weights")
        return {
            name: _topic_average(self.dss[name], self.topics, mean, weights)[0]
            for name in self.measures
        }

    def grid_frame(self, *, all_points: bool = False):
        """With a grid: per measure its largest topic average of dss (``dss_max``), the first
        grid point reaching it (one column per grid parameter) and ``at_max``, the number of
        points reaching it; with ``all_points``, the topic average at every point (Golbus
        et al.'s Figure 7 surface)."""
        if not self.grid_maxima:
            raise UsageError("no --grid was evaluated")
        axes = self.grid_maxima[0].grid.names
        rows: list[list[Any]] = []
        for found in self.grid_maxima:
            if all_points:
                for point, name, value in zip(
                    found.points, found.names, found.averages, strict=True
                ):
                    rows.append(
                        [found.measure]
                        + [format_value(point[a]) for a in axes]
                        + [self.averaged_topics[name], float(value)]
                    )
            else:
                rows.append(
                    [found.measure, len(found.points), found.at_max, found.maximum]
                    + [format_value(found.argmax[a]) for a in axes]
                    + [self.samples, self.seed]
                )
        if all_points:
            return pd.DataFrame(rows, columns=["measure", *axes, "topics", "dss"])
        return pd.DataFrame(
            rows,
            columns=["measure", "points", "at_max", "dss_max", *axes, "samples", "seed"],
        )

    def frame(self, *, per_topic: bool = True, summary: bool = True):
        """Long table: measure, topic, relevant, samples, mean, sd, dss; ``topic = "all"``
        rows carry the topic average of dss (``relevant`` = number of topics averaged)."""
        rows = []
        for measure in self.measures:
            if per_topic:
                for t, topic in enumerate(self.topics):
                    rows.append(
                        (
                            measure,
                            str(topic),
                            int(self.n_relevant[t]),
                            self.samples,
                            float(self.mean[measure][t]),
                            float(self.sd[measure][t]),
                            float(self.dss[measure][t]),
                        )
                    )
            if summary:
                rows.append(
                    (
                        measure,
                        "all",
                        int(self.averaged_topics[measure]),
                        self.samples,
                        float(np.nanmean(self.mean[measure])) if len(self.topics) else np.nan,
                        np.nan,
                        float(self.average[measure]),
                    )
                )
        return pd.DataFrame(
            rows, columns=["measure", "topic", "relevant", "samples", "mean", "sd", "dss"]
        )

    def wide_frame(self, *, per_topic: bool = True, summary: bool = True):
        """topic × measure table of dss (``all`` = the topic average), for trec_eval output."""
        topics = [str(t) for t in self.topics] if per_topic else []
        data = {"topic": topics + (["all"] if summary else [])}
        for measure in self.measures:
            column = list(self.dss[measure]) if per_topic else []
            data[measure] = column + ([self.average[measure]] if summary else [])
        return pd.DataFrame(data)


def _measures_with_cutoff(texts: Sequence[str], cutoffs: Sequence[int]):
    """Parse ``-m`` texts; a measure given without ``@k`` (and that takes a cutoff) is
    evaluated at each of ``cutoffs`` (Golbus et al. use k = 5, 10, 20)."""
    out: list[str] = []
    for text in texts:
        for measure in parse_measure(text):
            if "@" in text or not cutoffs or measure.spec.cutoff == "none":
                out.append(measure.name)
            else:
                out.extend(Measure(measure.spec, measure.params, int(k)).name for k in cutoffs)
    return parse_measures(out)


def _check_measures(measures) -> None:
    for measure in measures:
        if measure.spec.name in REFUSED_METRICS:
            raise UsageError(
                f"{measure.spec.name} can be negative; document selection sensitivity (a "
                "coefficient of variation) needs a non-negative metric (Golbus et al. 2013 §7.1)"
            )


def _grid_units(measures: list[Measure], expanded: list[list[tuple[dict, Measure]]]):
    """The positions in ``measures`` of every grid point's measures (one list per point, in
    grid order; each position once), or one list of all without a grid (``expanded`` empty)."""
    if not expanded:
        return [list(range(len(measures)))]
    position = {m.name: k for k, m in enumerate(measures)}
    placed: set[int] = set()
    units = []
    for point in zip(*expanded, strict=True):  # the bases' measures at one grid point
        unit = [position[m.name] for _, m in point]
        units.append([p for p in dict.fromkeys(unit) if p not in placed])
        placed.update(unit)
    return [unit for unit in units if unit]


def _measure_parts(units: list[list[int]], parts: int) -> list[list[int]]:
    """The ``units`` (lists of measure positions) in at most ``parts`` parts of consecutive
    units, as even as can be."""
    count = max(1, min(parts, len(units)))
    size, longer = divmod(len(units), count)  # the first ``longer`` parts take one more
    bounds = [k * size + min(k, longer) for k in range(count + 1)]
    return [
        [p for unit in units[start:stop] for p in unit]
        for start, stop in zip(bounds, bounds[1:], strict=False)
    ]


def _topic_average(dss: np.ndarray, topics: np.ndarray, how: str, weights) -> tuple[float, int]:
    ok = ~np.isnan(dss)
    if how == "arith":
        return topic_mean(dss[ok], "arith"), int(ok.sum())
    if how == "geom":
        return topic_mean(dss[ok], "geom"), int(ok.sum())
    w = np.array([weights.get(str(t), np.nan) for t in topics], dtype=np.float64)
    ok &= ~np.isnan(w)
    if ok.any() and float(np.sum(w[ok])) == 0.0:
        warn("every topic has diversity difficulty 1 (weight 0); dd falls back to arith")
        return topic_mean(dss[ok], "arith"), int(ok.sum())
    return topic_mean(dss[ok], "dd", w[ok]), int(ok.sum())


def selection_sensitivity(
    index,
    measures: Sequence[str],
    *,
    cutoffs: Sequence[int] = (DEFAULT_CUTOFF,),
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    mean: str = "arith",
    dd_exponent: str = "xi",
    rel_level: int = 1,
    grid: Grid | None = None,
    keep_values: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: Workers | None = None,
) -> SensitivityResult:
    """Document selection sensitivity of every measure on the qrels of ``index`` (a
    :class:`~divaeval.judged.QrelsIndex`); see the module docstring. ``measures`` are ``-m``
    strings; one given without ``@k`` is evaluated at each of ``cutoffs``. With ``grid``
    (:func:`divaeval.metrics.grid.parse_grid`) every measure is evaluated at every point of
    the grid on the same sampled lists, and ``result.grid_maxima`` holds each measure's
    largest topic average and where it is reached. ``keep_values`` keeps the [T, L] metric
    values (default: without a grid). ``progress(done, total)`` is called with the number of
    topics done after each batch of topics. The batches (and parts of the measures) run on
    ``workers`` when given, with the same results."""
    seed = DEFAULT_SEED if seed is None else int(seed)
    _check_options(samples, mean, rel_level, dd_exponent)
    bases, expanded, parsed = _parsed_measures(measures, cutoffs, grid)
    keep_values = grid is None if keep_values is None else keep_values
    topic_rows = _topics_with_relevant(index, rel_level)
    material = index.material_all
    work = SamplingWork(
        material,
        parsed,
        samples,
        seed,
        _sample_depth(parsed, topic_rows),
        Settings(rel_level=rel_level, complete=True),
        rel_level,
        keep_values,
    )
    stats, values, negative = _score_batches(
        work, topic_rows, _grid_units(parsed, expanded), progress, workers or InProcess()
    )
    topics = material.topics[np.array([t for t, _ in topic_rows], dtype=np.int64)]
    weights = difficulty_weights(index, dd_exponent) if mean == "dd" else None
    names = [m.name for m in parsed]
    means, sds, dsss, averages, counts = {}, {}, {}, {}, {}
    for name in names:
        mu, sd, cv = (np.concatenate(part) for part in zip(*stats.pop(name), strict=True))
        means[name], sds[name], dsss[name] = mu, sd, cv
        averages[name], counts[name] = _topic_average(cv, topics, mean, weights)
    maxima = _undefined_and_maxima(bases, expanded, grid, negative, dsss, averages)
    return SensitivityResult(
        measures=names,
        topics=topics,
        n_relevant=np.array([len(rows) for _, rows in topic_rows], dtype=np.int64),
        values={name: np.concatenate(values[name], axis=0) for name in names}
        if keep_values
        else {},
        mean=means,
        sd=sds,
        dss=dsss,
        average=averages,
        averaged_topics=counts,
        topic_mean=mean,
        samples=samples,
        seed=seed,
        rel_level=rel_level,
        signature=_signature(samples, seed, bases, grid),
        grid_maxima=maxima,
    )


def _check_options(samples: int, mean: str, rel_level: int, dd_exponent: str) -> None:
    if samples < 2:
        raise UsageError(f"--samples must be at least 2 (got {samples})")
    check_resamples(samples, "--samples")
    if mean not in TOPIC_MEANS:
        raise UsageError(f"unknown topic mean {mean!r} (choose from {', '.join(TOPIC_MEANS)})")
    check_rel_level(rel_level)
    check_dd_exponent(dd_exponent)


def _parsed_measures(
    measures: Sequence[str], cutoffs: Sequence[int], grid: Grid | None
) -> tuple[list[Measure], list[list[tuple[dict, Measure]]], list[Measure]]:
    """(the ``-m`` measures, each one's measures at every grid point, every measure scored)."""
    bases = _measures_with_cutoff(list(measures), list(cutoffs))
    if not bases:
        raise UsageError("give at least one measure with -m")
    _check_measures(bases)
    if grid is None:
        return bases, [], bases
    expanded = [grid_measures(measure, grid) for measure in bases]
    parsed = list({m.name: m for points in expanded for _, m in points}.values())
    return bases, expanded, parsed


def _topics_with_relevant(index, rel_level: int) -> list[tuple[int, np.ndarray]]:
    """(topic index, pool positions of its relevant documents) of every qrels topic with a
    relevant document (the others are left out with a warning)."""
    material = index.material_all
    topic_rows = [(t, relevant_rows(material, t, rel_level)) for t in range(len(material.topics))]
    empty = [str(material.topics[t]) for t, rows in topic_rows if len(rows) == 0]
    if empty:
        warn(
            f"{len(empty)} qrels topics have no document with grade >= {rel_level} "
            f"(e.g. topic {empty[0]}); left out"
        )
    topic_rows = [(t, rows) for t, rows in topic_rows if len(rows)]
    if not topic_rows:
        raise DataError("no qrels topic has a relevant document", file=index.qrels.path)
    return topic_rows


def _sample_depth(measures: list[Measure], topic_rows: list[tuple[int, np.ndarray]]) -> int:
    """How many documents of each sampled list the measures see: the largest cutoff, or the
    largest relevant set when a measure has none."""
    largest = max(len(rows) for _, rows in topic_rows)
    if any(m.cutoff is None for m in measures):
        return largest
    return min(largest, max(m.cutoff for m in measures if m.cutoff is not None))


def _score_batches(
    work: SamplingWork,
    topic_rows: list[tuple[int, np.ndarray]],
    units: list[list[int]],
    progress: Callable[[int, int], None] | None,
    workers: Workers,
) -> tuple[dict[str, list], dict[str, list[np.ndarray]], set[str]]:
    """Draw and score the lists of every batch of topics (a task per batch and part of the
    measures): per measure its (mean, sd, dss) per batch, its kept values, and the measures
    with a negative value."""
    pool = work.material.pool_grades
    per_row = max(1, work.samples * pool.shape[1] * pool.shape[2])
    per_batch = max(
        1, min(_BATCH_CELLS // per_row, _BATCH_VALUES // (work.samples * len(work.measures)))
    )
    chunks = [topic_rows[s : s + per_batch] for s in range(0, len(topic_rows), per_batch)]
    # one task per batch in process; with several workers, enough tasks to keep them busy
    wanted_parts = 1 if workers.size == 1 else math.ceil(2 * workers.size / len(chunks))
    parts = _measure_parts(units, wanted_parts)
    tasks = [(chunk, part) for chunk in chunks for part in parts]
    names = [m.name for m in work.measures]
    stats: dict[str, list] = {name: [] for name in names}
    values: dict[str, list[np.ndarray]] = {name: [] for name in names}
    negative: set[str] = set()
    done = 0
    results: Iterator[BatchResult] = workers.map(sample_and_score, tasks, work)
    for number, result in enumerate(results, start=1):
        for position, stat, any_negative, block in result:
            name = names[position]
            stats[name].append(stat)
            if any_negative:
                negative.add(name)
            if work.keep_values:
                values[name].append(block)
        if number % len(parts) == 0:  # a batch is complete
            done += len(tasks[number - 1][0])
            if progress is not None:
                progress(done, len(topic_rows))
    return stats, values, negative


def _undefined_and_maxima(bases, expanded, grid, negative, dsss, averages):
    """Warn of negative values and undefined dss (per measure, or per ``-m`` measure over the
    grid); with a grid, each ``-m`` measure's largest topic average (:class:`GridMaximum`)."""
    if grid is None:
        for base in bases:
            _warn_undefined(base.name, [base.name], negative, dsss)
        return None
    maxima = []
    for base, points in zip(bases, expanded, strict=True):
        _warn_undefined(f"{base.name} on --grid", [m.name for _, m in points], negative, dsss)
        maxima.append(_grid_maximum(base.name, grid, points, averages))
    return maxima


def _signature(samples, seed, bases, grid) -> str:
    """The analysis part of the signature (the settings part is the settings' own:
    :meth:`divaeval.settings.Settings.signature`)."""
    return (
        f"dss|samples={samples}|seed={seed}|rng={GENERATOR_NAME}|"
        f"measures={','.join(m.name for m in bases)}"
        + ("" if grid is None else f"|grid={grid.text}")
    )


def _warn_undefined(label: str, names: list[str], negative: set[str], dsss: dict) -> None:
    """One warning per measure (per ``-m`` measure over a grid): negative values, and topics
    whose dss is undefined (mean 0)."""
    if any(name in negative for name in names):
        warn(f"{label} is negative on some sampled lists; its dss is not meaningful")
    undefined = max(int(np.isnan(dsss[name]).sum()) for name in names)
    if undefined:
        where = " (at some grid points)" if len(names) > 1 else ""
        warn(
            f"{label}: dss undefined (mean 0) on {undefined} topics{where}; left out of the average"
        )


def _grid_maximum(base: str, grid: Grid, points, averages: dict[str, float]) -> GridMaximum:
    """The largest topic average of dss over the grid points of one measure; the first point
    in grid order that reaches it, and how many reach it exactly."""
    values = np.array([averages[m.name] for _, m in points], dtype=np.float64)
    defined = ~np.isnan(values)
    best = int(np.nanargmax(values)) if defined.any() else 0  # the first of the largest
    top = values[best]
    return GridMaximum(
        measure=base,
        grid=grid,
        points=[point for point, _ in points],
        names=[m.name for _, m in points],
        averages=values,
        best=best,
        at_max=int(np.sum(values == top)),
    )


def sensitivity(
    qrels_path: str | Qrels,
    measures: Sequence[str],
    *,
    cutoffs: Sequence[int] = (DEFAULT_CUTOFF,),
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    mean: str = "arith",
    dd_exponent: str = "xi",
    rel_level: int = 1,
    intents: str | None = None,
    topics: str | None = None,
    grid: Grid | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: Workers | None = None,
) -> SensitivityResult:
    """Read a qrels file (or take qrels already read, e.g. in memory) and optional intents /
    topics XML, and compute :func:`selection_sensitivity` (on ``workers`` when given) — the
    API behind ``divaeval meta sensitivity``."""
    index = QrelsIndex(
        read_qrels(qrels_path) if isinstance(qrels_path, str) else qrels_path,
        rel_level=rel_level,
        intents=read_intents(intents) if intents else None,
        topic_types=read_topic_types(topics) if topics else None,
    )
    return selection_sensitivity(
        index,
        measures,
        cutoffs=cutoffs,
        samples=samples,
        seed=seed,
        mean=mean,
        dd_exponent=dd_exponent,
        rel_level=rel_level,
        grid=grid,
        progress=progress,
        workers=workers,
    )
