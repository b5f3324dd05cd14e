"""The sampled rankings of document selection sensitivity (Golbus, Aslam & Clarke 2013, §7):
drawing a topic's L random permutations of its relevant documents, scoring them with the
registered metric functions, and summarising each measure's values per topic by their mean,
standard deviation and coefficient of variation (Eq. 11). One batch of topics (and some of the
measures) is one task of :mod:`divaeval.parallel`.

Each topic has its own generator, ``numpy.random.default_rng([seed, crc32(topic)])`` (PCG64),
so a topic's lists do not depend on the other topics in the file; its L permutations are the
argsort of an L × m matrix of uniform doubles (one row per list). All L lists of a batch of
topics are scored at once, as the rows of one :class:`~divaeval.judged.JudgedRankings`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from divaeval.judged import JudgedRankings
from divaeval.metrics import compute_measures
from divaeval.metrics.spec import Measure
from divaeval.settings import Settings


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


def relevant_rows(material, t: int, rel_level: int) -> np.ndarray:
    """Pool positions of topic t's relevant documents (largest grade ≥ rel_level)."""
    grades = material.pool_grades[t, : int(material.pool_size[t])]
    return np.flatnonzero(grades.max(axis=1) >= rel_level)


def sample_rankings(material, topic_rows, samples, seed, depth):
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


def evaluate_batch(material, row_topic, positions, lengths, measures, settings, rel_level):
    """Metric values of a batch of sampled lists, via the registered metric functions."""
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
class SamplingWork:
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
Batch = tuple[list[tuple[int, np.ndarray]], list[int]]


#: its result, per measure: (position, (mean, sd, cv), any negative value, values or None)
BatchResult = list[tuple[int, tuple[np.ndarray, np.ndarray, np.ndarray], bool, Any]]


def sample_and_score(work: SamplingWork, batch: Batch) -> BatchResult:
    """Draw the lists of a batch of topics and score them on some of the measures (one
    task): per measure its (mean, sd, dss) per topic, whether a value was negative, and the
    [topics, L] values if kept."""
    chunk, positions = batch
    measures = [work.measures[i] for i in positions]
    row_topic, ranked, lengths = sample_rankings(
        work.material, chunk, work.samples, work.seed, work.depth
    )
    values = evaluate_batch(
        work.material, row_topic, ranked, lengths, measures, work.settings, work.rel_level
    )
    out: BatchResult = []
    for position, measure in zip(positions, measures, strict=True):
        block = values.pop(measure).reshape(len(chunk), work.samples)
        kept = block if work.keep_values else None
        out.append((position, coefficient_of_variation(block), bool(np.any(block < 0)), kept))
    return out
