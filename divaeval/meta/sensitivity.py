"""Document selection sensitivity (Golbus, Aslam & Clarke 2013, §7, Eq. 11;
``meta-evaluation.md`` §12).

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
   back to ``arith`` with a warning) — ``other-metrics.md`` §11.3. Topics without a relevant
   document, or whose dss is NaN, are left out of the average.

DSS is meant for non-negative metrics and is not invariant under affine transformations; RBU and
EU, which can be negative, are refused, and a warning is printed if any other metric produces a
negative value.

Sampling: each topic has its own generator, ``numpy.random.default_rng([seed, crc32(topic)])``
(PCG64), so a topic's lists do not depend on the other topics in the file. The L permutations of
a topic are the argsort of an L × m matrix of uniform doubles (one row per list). All L lists of
a batch of topics are evaluated at once, as the rows of one
:class:`~divaeval.judged.JudgedRankings`.

Parallel work (``workers``, :mod:`divaeval.parallel`: ``--jobs``, ``--scheduler``): every batch
of topics is a task; with a grid and several workers, the grid points are also split into parts
of consecutive points (whose measures share work, such as the novelty gains of one alpha), each a
task of its own that draws the batch's lists again (from the same per-topic generators) and
evaluates its points' measures on them. A measure's values depend only on its topic's lists, so
the results are the same bits wherever and however the work is split.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from divaeval.errors import DataError, UsageError, check_rel_level, warn
from divaeval.metrics.grid import Grid, grid_measures
from divaeval.metrics.spec import Measure
from divaeval.parallel import InProcess, Workers

if TYPE_CHECKING:
    from divaeval.io import Qrels
    from divaeval.settings import Settings

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
        import pandas as pd

        if not self.grid_maxima:
            raise UsageError("no --grid was evaluated")
        from divaeval.metrics.spec import format_value

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
        import pandas as pd

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
        import pandas as pd

        topics = [str(t) for t in self.topics] if per_topic else []
        data = {"topic": topics + (["all"] if summary else [])}
        for measure in self.measures:
            column = list(self.dss[measure]) if per_topic else []
            data[measure] = column + ([self.average[measure]] if summary else [])
        return pd.DataFrame(data)


def topic_generator(seed: int, topic: str) -> np.random.Generator:
    """The generator of one topic: PCG64 seeded with (seed, CRC-32 of the topic id)."""
    return np.random.default_rng([int(seed), zlib.crc32(str(topic).encode("utf-8"))])


def coefficient_of_variation(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, sd, cv) along the last axis: sd with divisor L − 1, cv = sd / mean (Eq. 11);
    sd = 0 exactly where all values are equal; cv = NaN where the mean is 0."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[-1]
    mean = values.mean(axis=-1)
    if n < 2:
        sd = np.full(mean.shape, np.nan)
    else:
        sd = values.std(axis=-1, ddof=1)
        sd = np.where(values.max(axis=-1) == values.min(axis=-1), 0.0, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        cv = np.where(mean != 0, sd / np.where(mean != 0, mean, 1.0), np.nan)
    return mean, sd, cv


def _measures_with_cutoff(texts: Sequence[str], cutoffs: Sequence[int]):
    """Parse ``-m`` texts; a measure given without ``@k`` (and that takes a cutoff) is
    evaluated at each of ``cutoffs`` (Golbus et al. use k = 5, 10, 20)."""
    from divaeval.metrics import Measure, parse_measure, parse_measures

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


def _topic_rows(material, t: int, rel_level: int) -> np.ndarray:
    """Pool positions of topic t's relevant documents (largest grade ≥ rel_level)."""
    grades = material.pool_grades[t, : int(material.pool_size[t])]
    return np.flatnonzero(grades.max(axis=1) >= rel_level)


def _sample_rankings(material, topic_rows, samples, seed, depth):
    """Batch of sampled lists: (row topic index [n], pool position [n, depth], length [n])."""
    row_topic, positions, lengths = [], [], []
    for t, relevant in topic_rows:
        m = len(relevant)
        keys = topic_generator(seed, str(material.topics[t])).random((samples, m))
        take = min(m, depth)
        order = np.argsort(keys, axis=1, kind="stable")[:, :take]
        block = np.full((samples, depth), -1, dtype=np.int64)
        block[:, :take] = relevant[order]
        row_topic.append(np.full(samples, t, dtype=np.int64))
        positions.append(block)
        lengths.append(np.full(samples, take, dtype=np.int64))
    return np.concatenate(row_topic), np.concatenate(positions), np.concatenate(lengths)


def _evaluate_batch(material, row_topic, positions, lengths, measures, settings, rel_level):
    """Metric values of a batch of sampled lists, via the registered metric functions."""
    from divaeval.judged import JudgedRankings
    from divaeval.metrics import compute_measures

    n_rows, depth = positions.shape
    rows_material = material.take(row_topic)
    valid = positions >= 0
    grades = np.zeros((n_rows, depth, material.pool_grades.shape[2]), dtype=np.int16)
    r_idx, k_idx = np.nonzero(valid)
    grades[r_idx, k_idx] = material.pool_grades[row_topic[r_idx], positions[r_idx, k_idx]]
    jr = JudgedRankings(
        run_name="dss-sample",
        material=rows_material,
        grades=grades,
        judged=valid,
        length=lengths,
        in_run=np.ones(n_rows, dtype=bool),
        settings=settings,
    )
    return compute_measures(jr, measures)


@dataclass(frozen=True)
class _SamplingWork:
    """What every batch of topics needs to draw and score its lists (sent once to each
    worker)."""

    material: Any  # the qrels' topics (index.material_all)
    measures: list[Measure]
    samples: int
    seed: int
    depth: int
    settings: Settings
    rel_level: int
    keep_values: bool


#: a task: (topic batch as (topic index, relevant pool positions), positions in the measures)
_Batch = tuple[list[tuple[int, np.ndarray]], list[int]]
#: its result, per measure: (position, (mean, sd, cv), any negative value, values or None)
_BatchResult = list[tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray], bool, Any]]


def _sample_and_score(work: _SamplingWork, batch: _Batch) -> _BatchResult:
    """Draw the lists of a batch of topics and score them on some of the measures (one
    task): per measure its (mean, sd, dss) per topic, whether a value was negative, and the
    [topics, L] values if kept."""
    chunk, positions = batch
    measures = [work.measures[i] for i in positions]
    row_topic, ranked, lengths = _sample_rankings(
        work.material, chunk, work.samples, work.seed, work.depth
    )
    values = _evaluate_batch(
        work.material, row_topic, ranked, lengths, measures, work.settings, work.rel_level
    )
    out: _BatchResult = []
    for position, measure in zip(positions, measures, strict=True):
        block = values.pop(measure).reshape(len(chunk), work.samples)
        kept = block if work.keep_values else None
        out.append((position, coefficient_of_variation(block), bool(np.any(block < 0)), kept))
    return out


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
    from divaeval.scores import topic_mean

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
    from divaeval.collection import check_dd_exponent
    from divaeval.settings import Settings
    from divaeval.stats.significance import DEFAULT_SEED, GENERATOR_NAME, check_resamples

    seed = DEFAULT_SEED if seed is None else int(seed)
    if samples < 2:
        raise UsageError(f"--samples must be at least 2 (got {samples})")
    check_resamples(samples, "--samples")
    if mean not in TOPIC_MEANS:
        raise UsageError(f"unknown topic mean {mean!r} (choose from {', '.join(TOPIC_MEANS)})")
    check_rel_level(rel_level)
    check_dd_exponent(dd_exponent)
    parsed = _measures_with_cutoff(list(measures), list(cutoffs))
    if not parsed:
        raise UsageError("give at least one measure with -m")
    _check_measures(parsed)
    keep_values = grid is None if keep_values is None else keep_values
    bases = parsed
    expanded: list[list[tuple[dict, Measure]]] = []
    if grid is not None:
        expanded = [grid_measures(measure, grid) for measure in bases]
        parsed = list({m.name: m for points in expanded for _, m in points}.values())
    names = [m.name for m in parsed]

    material = index.material_all
    topic_rows = [(t, _topic_rows(material, t, rel_level)) for t in range(len(material.topics))]
    empty = [str(material.topics[t]) for t, rows in topic_rows if len(rows) == 0]
    topic_rows = [(t, rows) for t, rows in topic_rows if len(rows)]
    if empty:
        warn(
            f"{len(empty)} qrels topics have no document with grade >= {rel_level} "
            f"(e.g. topic {empty[0]}); left out"
        )
    if not topic_rows:
        raise DataError("no qrels topic has a relevant document", file=index.qrels.path)
    largest = max(len(rows) for _, rows in topic_rows)
    finite = [m.cutoff for m in parsed if m.cutoff is not None]
    needs_all = any(m.cutoff is None for m in parsed)
    depth = largest if needs_all else min(largest, max(finite))
    settings = Settings(rel_level=rel_level, complete=True)

    per_row = max(1, samples * material.pool_grades.shape[1] * material.pool_grades.shape[2])
    per_batch = max(1, min(_BATCH_CELLS // per_row, _BATCH_VALUES // (samples * len(parsed))))
    values: dict[str, list[np.ndarray]] = {name: [] for name in names}
    stats: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {n: [] for n in names}
    negative: set[str] = set()
    workers = workers or InProcess()
    chunks = [topic_rows[s : s + per_batch] for s in range(0, len(topic_rows), per_batch)]
    # one task per batch in process; with several workers, enough tasks to keep them busy
    wanted_parts = 1 if workers.size == 1 else math.ceil(2 * workers.size / len(chunks))
    parts = _measure_parts(_grid_units(parsed, expanded), wanted_parts)
    tasks = [(chunk, part) for chunk in chunks for part in parts]
    work = _SamplingWork(material, parsed, samples, seed, depth, settings, rel_level, keep_values)
    done = 0
    for number, result in enumerate(workers.map(_sample_and_score, tasks, work), start=1):
        for position, stat, any_negative, block in result:
            name = parsed[position].name
            stats[name].append(stat)
            if any_negative:
                negative.add(name)
            if keep_values:
                values[name].append(block)
        if number % len(parts) == 0:  # a batch is complete
            done += len(tasks[number - 1][0])
            if progress is not None:
                progress(done, len(topic_rows))
    kept = np.array([t for t, _ in topic_rows], dtype=np.int64)
    topics = material.topics[kept]
    n_relevant = np.array([len(rows) for _, rows in topic_rows], dtype=np.int64)

    weights = None
    if mean == "dd":
        from divaeval.evaluation import difficulty_weights

        weights = difficulty_weights(index, dd_exponent)
    result_values, means, sds, dsss, averages, counts = {}, {}, {}, {}, {}, {}
    for name in names:
        if keep_values:
            result_values[name] = np.concatenate(values.pop(name), axis=0)
        mu, sd, cv = (np.concatenate(part) for part in zip(*stats.pop(name), strict=True))
        means[name], sds[name], dsss[name] = mu, sd, cv
        averages[name], counts[name] = _topic_average(cv, topics, mean, weights)
    if grid is None:
        for name in names:
            _warn_undefined(name, [name], negative, dsss)
        maxima = None
    else:
        maxima = []
        for base, points in zip(bases, expanded, strict=True):
            point_names = [m.name for _, m in points]
            _warn_undefined(f"{base.name} on --grid", point_names, negative, dsss)
            maxima.append(_grid_maximum(base.name, grid, points, averages))
    listed = [m.name for m in bases]
    signature = (
        f"dss|samples={samples}|seed={seed}|rng={GENERATOR_NAME}|mean={mean}|"
        + (f"dd_exponent={dd_exponent}|" if mean == "dd" else "")
        + f"rel={rel_level}|measures={','.join(listed)}"
        + ("" if grid is None else f"|grid={grid.text}")
    )
    return SensitivityResult(
        measures=names,
        topics=topics,
        n_relevant=n_relevant,
        values=result_values,
        mean=means,
        sd=sds,
        dss=dsss,
        average=averages,
        averaged_topics=counts,
        topic_mean=mean,
        samples=samples,
        seed=seed,
        rel_level=rel_level,
        signature=signature,
        grid_maxima=maxima,
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
    from divaeval.io import read_intents, read_qrels, read_topic_types
    from divaeval.judged import QrelsIndex

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
