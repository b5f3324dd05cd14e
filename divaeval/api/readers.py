"""The validating readers of the Python API (runs, qrels, intents, topic types, from files or
data in memory), the measures of ``-m`` strings, and one measure's score matrix of a long
table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from divaeval.api._common import _library_call, _measures, _no_bytes
from divaeval.errors import UsageError
from divaeval.io import Intents, Qrels, Run
from divaeval.io import read_intents as read_intents_file
from divaeval.io import read_qrels as read_qrels_file
from divaeval.io import read_run as read_run_file
from divaeval.io import read_topic_types as read_topic_types_file
from divaeval.metrics import Measure
from divaeval.metrics import parse_measures as parse_measure_texts
from divaeval.scores import score_matrix as scores_score_matrix

if TYPE_CHECKING:
    import pandas as pd


def read_run(source: Any) -> Run:
    """A run, checked as the command line checks run files: a path (``-`` is stdin; gzipped
    files too) or in-memory data (a DataFrame, a ``{topic: {docno: score}}`` dict, ir_measures'
    records; see :mod:`divaeval.api`).

    >>> run = divaeval.read_run("sample_data/run.txt")
    >>> run.tag, len(run.topics)
    ('ql-cata', 10)
    """
    _no_bytes(source, "run")
    with _library_call() as inputs:
        run = inputs.run(source)
        return read_run_file(run) if isinstance(run, str) else run


def read_qrels(source: Any) -> Qrels:
    """Qrels, checked as the command line checks qrels files: a path or in-memory data (a
    DataFrame ``topic, subtopic, docno, grade[, type]``, a dict, ir_measures' ``Qrel``
    records).

    >>> qrels = divaeval.read_qrels({"1": {"a": {"d1": 1}, "b": {"d2": 2}}})
    >>> qrels.frame[["topic", "subtopic", "docno", "grade"]]
      topic subtopic docno  grade
    0     1        a    d1      1
    1     1        b    d2      2
    """
    _no_bytes(source, "qrels")
    with _library_call() as inputs:
        qrels = inputs.qrels(source)
        return read_qrels_file(qrels) if isinstance(qrels, str) else qrels


def read_intents(source: Any) -> Intents:
    """Intent probabilities (``--intents``), checked as the files are: a path (lines
    ``topic subtopic probability [inf|nav]``), a DataFrame ``topic, subtopic, probability[,
    type]`` or a dict ``{topic: {subtopic: probability}}``.

    >>> intents = divaeval.read_intents({"1": {"a": 0.7, "b": 0.3}})
    >>> intents.frame[["topic", "subtopic", "probability"]]
      topic subtopic  probability
    0     1        a          0.7
    1     1        b          0.3
    """
    _no_bytes(source, "intents")
    with _library_call() as inputs:
        intents = inputs.intents(source)
        return read_intents_file(intents) if isinstance(intents, str) else intents


def read_topic_types(source: Any) -> pd.DataFrame:
    """Subtopic types (``--topics``): a TREC Web Track topics XML path, a DataFrame ``topic,
    subtopic, type`` or a dict ``{topic: {subtopic: type}}`` (types ``inf``, ``nav``); the
    table topic, subtopic, type, line.

    >>> divaeval.read_topic_types({"1": {"a": "nav", "b": "inf"}})[["topic", "subtopic", "type"]]
      topic subtopic type
    0     1        a  nav
    1     1        b  inf
    """
    _no_bytes(source, "topics")
    with _library_call() as inputs:
        types = inputs.topic_types(source)
        return read_topic_types_file(types) if isinstance(types, str) else types


def parse_measures(measures: Any) -> list[Measure]:
    """The measures of ``-m`` specifications: one string is one specification (it may name
    several measures: ``alpha-nDCG@5,10``, a preset), or a list of them.

    >>> [m.name for m in divaeval.parse_measures("alpha-nDCG@5,10")]
    ['alpha-nDCG@5', 'alpha-nDCG@10']
    >>> [m.name for m in divaeval.parse_measures("RR")]
    ['RR']
    """
    chosen = _measures(measures)
    if not chosen:
        raise UsageError("measures: give at least one measure specification")
    return parse_measure_texts(chosen)


def score_matrix(table: Any, measure: Any) -> tuple[list[str], list[str], np.ndarray]:
    """(runs, topics, values[n_runs, n_topics]) of one measure of a long table (run, topic,
    measure, value, as :meth:`EvaluationResult.table` gives it; the ``all`` rows are left
    out), topics sorted.

    >>> table = divaeval.evaluate(["sample_data/run.txt", "sample_data/run2.txt"],
    ...                           "sample_data/qrels.txt", "P@5").table()
    >>> runs, topics, values = divaeval.score_matrix(table, "P@5")
    >>> runs, values.shape
    (['ql-cata', 'rm-cata'], (2, 10))
    """
    columns = getattr(table, "columns", None)
    if columns is None or not hasattr(table, "pivot_table"):
        raise UsageError(f"table: expected a DataFrame, got {type(table).__name__}")
    missing = [c for c in ("run", "topic", "measure", "value") if c not in list(columns)]
    if missing:
        raise UsageError(f"table: no column {', '.join(missing)} (run, topic, measure, value)")
    if not isinstance(measure, str):
        raise UsageError(f"measure: expected a measure name, got {type(measure).__name__}")
    return scores_score_matrix(table, measure)
