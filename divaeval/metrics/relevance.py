"""trec_eval's relevance on judged rankings, shared by the ad hoc families (adhoc, recall, cwl,
trec_eval): each ranked document's grade (the largest over the topic's subtopics), which
documents are relevant (judged, grade >= ``-l`` or the measure's ``rel``, and >= 0), hits at
each rank, num_rel, linear gains and the ideal grades (trec_eval 10.0; see
:mod:`divaeval.metrics.families.adhoc`)."""

from __future__ import annotations

import numpy as np


def doc_grades(jr, length: int) -> np.ndarray:
    """[T, K] int: each ranked document's grade, the maximum over the topic's subtopic
    columns (0 for unjudged documents and beyond the ranking)."""
    key = ("doc-grades", length)
    if key not in jr.cache:
        grades = jr.padded_to(length)
        if grades.shape[2] == 1:
            out = grades[:, :, 0].astype(np.int64)
        else:
            valid = jr.material.subtopic_valid[:, None, :]
            out = np.where(valid, grades, np.int16(-32768)).max(axis=2).astype(np.int64)
        jr.cache[key] = out
    return jr.cache[key]


def judged_mask(jr, length: int) -> np.ndarray:
    """[T, K] bool: ``jr.judged`` padded (False) or cut to ``length`` ranks."""
    judged = jr.judged[:, :length]
    if length > jr.depth:
        judged = np.concatenate([judged, np.zeros((jr.n_topics, length - jr.depth), bool)], 1)
    return judged


def relevance_level(jr, params: dict | None = None) -> int:
    """The minimum relevant grade: the measure's ``rel`` parameter (ir_measures' ``rel=``),
    else ``-l``."""
    rel = None if params is None else params.get("rel")
    return int(jr.material.rel_level) if rel is None else int(rel)


def ranking(jr, params: dict):
    """The rankings a measure sees: without unjudged documents for ``judged_only=True``
    (trec_eval ``-J``)."""
    return jr.judged_only() if params.get("judged_only") else jr


def trec_relevant(jr, length: int, level: int | None = None) -> np.ndarray:
    """[T, K] bool: trec_eval relevance: judged, grade >= level (default ``-l``) and >= 0."""
    level = relevance_level(jr) if level is None else level
    key = ("trec-relevant", level, length)
    if key not in jr.cache:
        grade = doc_grades(jr, length)
        relevant = grade >= max(level, 0)
        if level <= 0:
            relevant &= judged_mask(jr, length)
        jr.cache[key] = relevant
    return jr.cache[key]


def num_rel(jr, level: int | None = None) -> np.ndarray:
    """[T] float: trec_eval's num_rel (judged documents with a relevant grade)."""
    level = relevance_level(jr) if level is None else level
    return jr.material.relevant_documents(level).astype(np.float64)


def hits(jr, length: int, level: int | None = None) -> np.ndarray:
    """[T, K] float: number of relevant documents at ranks <= i."""
    level = relevance_level(jr) if level is None else level
    key = ("trec-hits", level, length)
    if key not in jr.cache:
        jr.cache[key] = np.cumsum(trec_relevant(jr, length, level), axis=1).astype(np.float64)
    return jr.cache[key]


def positive_gains(jr, length: int) -> np.ndarray:
    """[T, K] float: the grade where positive, else 0 (trec_eval/NTCIREVAL linear gain)."""
    return np.maximum(doc_grades(jr, length), 0).astype(np.float64)


def ideal_grades(jr, length: int) -> np.ndarray:
    """[T, length] float: the topic's positive per-document grades sorted descending, padded
    with zeros (the ideal ranking of trec_eval's ndcg and of the Q-measure)."""
    material = jr.material
    key = ("ideal-doc-grades",)
    cached = material.cache.get(key)
    if cached is None:  # (kept as the int16 grades, not floats: a quarter of the memory)
        grades = np.maximum(material.pool_grades_any_order.max(axis=2), 0)
        cached = -np.sort(-grades, axis=1)
        material.cache[key] = cached
    if cached.shape[1] >= length:
        return cached[:, :length].astype(np.float64)
    out = np.zeros((len(cached), length))
    out[:, : cached.shape[1]] = cached
    return out
