"""What the qrels say about each topic, built once per qrels file for :class:`~divaeval.judged.
index.QrelsIndex`:

- :func:`subtopic_columns`: the column of each subtopic within its topic (subtopics ascending,
  numerically when all are integers, as ndeval iterates them);
- :func:`judged_documents`: one row per judged (topic, docno), its grade per subtopic column;
- :func:`topic_counts`: per topic, the largest grade and the relevant documents of each
  subtopic, the judged documents, and the documents of each grade level;
- :class:`IdealPools`: the *ideal material*, the grades of every positively judged document of
  a topic (the pool from which ideal rankings are built), ordered by docno descending so that
  "ties go to the largest docno" (ndeval) is "first wins" (that order built only when a
  measure reads it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from divaeval.io._words import DENSE_KEYS, byte_ranks, sort_keys, unique_inverse
from divaeval.judged.material import put_rows
from divaeval.topics import sort_topics


def unique_keys(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for int64 keys in [0, bound): by counting when
    the bound is small, also next to the number of keys (no sort), else by sorting."""
    if bound > min(DENSE_KEYS, 32 * len(key)):  # by a packed sort (faster than np.unique)
        keys = key.view(np.uint64) if key.dtype == np.int64 else key.astype(np.uint64)
        uniques, inverse, _ = unique_inverse(keys)  # (keys >= 0: a view, no copy)
        return uniques.astype(np.int64), inverse
    present = np.zeros(bound, dtype=bool)
    present[key] = True
    uniques = np.flatnonzero(present)
    # each present key's rank, written where it is (the other cells are never read): half
    # the time of a running count over the whole bound
    rank = np.empty(bound, dtype=np.int64)
    rank[uniques] = np.arange(len(uniques))
    return uniques, rank[key]


class SubtopicColumns(NamedTuple):
    """The subtopics of every topic as columns: ``column[i]`` of qrels line i's subtopic,
    ``subtopics[t, s]`` the id of column s of topic t (``""`` where the column is padding)."""

    column: np.ndarray  # [N] a signed integer type (the smallest that holds the columns)
    subtopics: np.ndarray  # [T, S] str (object)

    @property
    def width(self) -> int:
        return self.subtopics.shape[1]

    @property
    def valid(self) -> np.ndarray:
        """[T, S] bool: the column is a real subtopic of the topic."""
        return self.subtopics != ""


def subtopic_columns(
    topic_code: np.ndarray, subtopic_code: np.ndarray, names: np.ndarray, n_topics: int
) -> SubtopicColumns:
    """The :class:`SubtopicColumns` of qrels lines of topics ``topic_code`` (sorted codes) and
    subtopics ``names[subtopic_code]``."""
    order = sort_topics(names)
    position = {name: i for i, name in enumerate(order)}
    rank_of_name = np.array([position[name] for name in names], dtype=np.int64)
    n_ranks = max(len(order), 1)
    key = np.multiply(topic_code, n_ranks, dtype=np.int64)  # (one array of N, added to)
    if np.array_equal(rank_of_name, np.arange(len(rank_of_name))):  # (names in order)
        key += subtopic_code
    else:
        key += rank_of_name[subtopic_code]
    pair_keys, line_pair = unique_keys(key, n_ranks * (int(topic_code.max(initial=0)) + 1))
    pair_topic = pair_keys // n_ranks
    first = np.r_[0, np.flatnonzero(np.diff(pair_topic)) + 1]
    counts = np.diff(np.r_[first, len(pair_keys)])
    pair_column = np.arange(len(pair_keys)) - np.repeat(first, counts)
    subtopics = np.full((n_topics, int(pair_column.max()) + 1), "", dtype=object)
    subtopics[pair_topic, pair_column] = np.asarray(order, dtype=object)[pair_keys % n_ranks]
    # (the smallest integer type of the columns: a byte per qrels line, not 8)
    small = np.min_scalar_type(-subtopics.shape[1])
    return SubtopicColumns(pair_column.astype(small)[line_pair.ravel()], subtopics)


class JudgedDocuments(NamedTuple):
    """One row per judged (topic, docno), in key order (by topic, then docno code)."""

    keys: np.ndarray  # [J] int64: topic code * n_docs + docno code, ascending
    row: np.ndarray  # [N] int64: the judged row of each qrels line
    grades: np.ndarray  # [J + 1, S] int16: the grade per subtopic column; last row: unjudged
    n_docs: int

    @property
    def topic(self) -> np.ndarray:
        return (self.keys // self.n_docs).astype(np.int64)

    @property
    def doc(self) -> np.ndarray:
        return (self.keys % self.n_docs).astype(np.int64)


def judged_documents(
    topic_code: np.ndarray,
    doc_code: np.ndarray,
    grade: np.ndarray,
    columns: SubtopicColumns,
    n_topics: int,
    n_docs: int,
) -> JudgedDocuments:
    """The :class:`JudgedDocuments` of qrels lines (their topic and docno codes, grades)."""
    keys, row = unique_keys(topic_code * n_docs + doc_code, n_topics * n_docs)
    grades = np.zeros((len(keys) + 1, columns.width), dtype=np.int16)
    grades.reshape(-1)[row * columns.width + columns.column] = grade
    return JudgedDocuments(keys, row, grades, n_docs)


class TopicCounts(NamedTuple):
    """Per-topic counts of the qrels (see :class:`~divaeval.judged.material.TopicMaterial`)."""

    max_grade: np.ndarray  # [T, S] int64 (0 if none > 0)
    relevant_count: np.ndarray  # [T, S] int64
    judged_count: np.ndarray  # [T]
    judged_nonnegative: np.ndarray  # [T]
    grade_levels: np.ndarray  # [L]
    level_counts: np.ndarray  # [T, L]


def topic_counts(
    judged: JudgedDocuments, grade: np.ndarray, n_topics: int, rel_level: int
) -> TopicCounts:
    """The :class:`TopicCounts` of the judged documents of qrels lines (their grades)."""
    n_judged = len(judged.keys)
    judged_topic = judged.topic
    # Judged rows are sorted by topic (every topic has one): per-topic maxima by reduceat;
    # cells without a judgment hold 0, which the clip at 0 ignores.
    topic_start = np.searchsorted(judged_topic, np.arange(n_topics))
    max_grade = np.maximum.reduceat(judged.grades[:n_judged], topic_start, axis=0)
    # the relevant documents of each (topic, column), from the judged rows' grades: every
    # qrels line is one cell of them, and a cell without a line holds 0, below any level (>= 1)
    threshold = min(rel_level - 1, int(np.iinfo(judged.grades.dtype).max))  # (no overflow)
    relevant = judged.grades[:n_judged] > threshold
    relevant_count = np.empty((n_topics, relevant.shape[1]), dtype=np.int64)
    for s in range(relevant.shape[1]):  # (a column at a time: at once, the cast goes
        # through buffers, 1.7-7.9 ms a call in the 1M-line command, against 0.4-0.7 here)
        np.add.reduceat(relevant[:, s], topic_start, dtype=np.int64, out=relevant_count[:, s])
    del relevant
    # each judged document's own grade: the largest over its lines
    doc_grade = np.full(n_judged, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(doc_grade, judged.row, grade)
    lowest = int(doc_grade.min(initial=0))
    span = int(doc_grade.max(initial=0)) - lowest + 1
    grade_levels, level_of = unique_keys(doc_grade - lowest, span)
    grade_levels += lowest
    level_counts = np.bincount(
        judged_topic * len(grade_levels) + level_of, minlength=n_topics * len(grade_levels)
    ).reshape(n_topics, len(grade_levels))
    # (the judged documents, and those of a grade >= 0, are sums of the levels' counts)
    return TopicCounts(
        max_grade=np.maximum(max_grade.astype(np.int64), 0),
        relevant_count=relevant_count,
        judged_count=level_counts.sum(axis=1),
        judged_nonnegative=level_counts[:, grade_levels >= 0].sum(axis=1),
        grade_levels=grade_levels,
        level_counts=level_counts,
    )


def _index_type(bound: int) -> type:
    """The smaller integer type that holds the numbers in [-1, ``bound``)."""
    return np.int32 if bound < 1 << 31 else np.int64


class IdealPools:
    """Per topic, its positively judged documents: their grades in key order (by docno code)
    at once, for the measures that only count or sort them (nDCG, AP, RR, …); docno descending
    (see the module doc) only when a measure breaks ties by docno (:meth:`by_docno`; 1M-line
    ad hoc qrels: 35 -> 8 ms when none does), and the first qrels line of each only when a
    measure reads it (:meth:`positions`: ndeval's measures do not)."""

    def __init__(
        self,
        judged: JudgedDocuments,
        doc_words: np.ndarray,
        n_topics: int,
        row_of_line: Callable[[], np.ndarray],
    ):
        """``row_of_line``: the judged row of every qrels line, found again (the judged
        documents' own are let go with them once the docno order is built)."""
        pool_rows = _pool_rows(judged)
        # (judged rows are in key order: by topic, then docno code)
        pool_topic = judged.keys[pool_rows] // judged.n_docs
        #: [T, P, S] int16: the grades of each topic's pool, in key order
        self.grades_by_key, _, self.size = _pool_grades(judged, pool_rows, pool_topic, n_topics)
        # (what the docno order is built from: the pool rows, permuted within each topic; they,
        # their topics and cells are found again then, not kept: measures that never ask for
        # the docno order would hold them to the end, 10 MiB of a 1M-line ad hoc qrels' peak)
        self._in_key_order: JudgedDocuments | None = judged
        self._doc_words = doc_words
        self._row_of_line = row_of_line
        self._by_docno: tuple[np.ndarray, np.ndarray] | None = None
        self._positions: tuple[np.ndarray, np.ndarray] | None = None

    def by_docno(self) -> np.ndarray:
        """[T, P, S] int16: the grades of each topic's pool, docno descending (built once)."""
        return self._docno_order()[0]

    def _docno_order(self) -> tuple[np.ndarray, np.ndarray]:
        """([T, P, S] grades, [T, P] judged rows (-1 on padding)) of the pools in docno order;
        the judged documents are let go (what is kept after the first call is small)."""
        if self._by_docno is None:
            assert self._in_key_order is not None
            judged = self._in_key_order
            self._in_key_order = None
            pool_rows = _pool_rows(judged)
            pool_topic = judged.keys[pool_rows] // judged.n_docs
            cell = _pool_cells(pool_topic, self.size, self.grades_by_key.shape[1])
            pool_rows = _docno_descending(judged, self._doc_words, pool_rows, pool_topic)
            del pool_topic
            grades = np.zeros_like(self.grades_by_key)
            width = grades.shape[2]
            put_rows(grades.reshape(-1, width), cell, judged.grades, pool_rows)
            # (int32 where the rows fit: half the memory, in every topic subset's copy)
            rows: np.ndarray = np.full(grades.shape[:2], -1, dtype=_index_type(len(judged.keys)))
            rows.reshape(-1)[cell] = pool_rows
            self._by_docno = grades, rows
        return self._by_docno

    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """([T, P] judged rows (-1 on padding), [T, P] 0-based qrels line of the first
        judgment) of each topic's pool, docno descending (built once)."""
        if self._positions is None:
            rows = self._docno_order()[1]
            row_of_line = self._row_of_line()
            line_type = _index_type(len(row_of_line))
            n_judged = int(row_of_line.max(initial=-1)) + 1
            first_line: np.ndarray = np.full(n_judged, len(row_of_line), dtype=line_type)
            np.minimum.at(first_line, row_of_line, np.arange(len(row_of_line), dtype=line_type))
            del row_of_line
            lines: np.ndarray = np.where(rows >= 0, first_line[np.maximum(rows, 0)], 0).astype(
                line_type
            )
            self._positions = rows, lines
        return self._positions


def _pool_grades(
    judged: JudgedDocuments, pool_rows: np.ndarray, pool_topic: np.ndarray, n_topics: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """([T, P, S] grades of the pool rows ``pool_rows`` (grouped by topic ``pool_topic``, in
    the order given), the flat [T, P] cell of each, [T] the size of each topic's pool)."""
    width = judged.grades.shape[1]
    size = np.bincount(pool_topic, minlength=n_topics)
    pool_width = max(int(size.max(initial=0)), 1)
    cell = _pool_cells(pool_topic, size, pool_width)
    grades = np.zeros((n_topics, pool_width, width), np.int16)
    put_rows(grades.reshape(-1, width), cell, judged.grades, pool_rows)
    return grades, cell, size


def _pool_rows(judged: JudgedDocuments) -> np.ndarray:
    """The judged rows with a positive grade for some subtopic (the pools' documents)."""
    n_judged = len(judged.keys)
    positive = np.zeros(n_judged, dtype=bool)
    for s in range(judged.grades.shape[1]):  # faster than .max(axis=1) over a short axis
        positive |= judged.grades[:n_judged, s] > 0
    return np.flatnonzero(positive)


def _pool_cells(pool_topic: np.ndarray, size: np.ndarray, pool_width: int) -> np.ndarray:
    """The flat [T, P] cell of each pool row (grouped by topic ``pool_topic``; ``size[t]``
    rows of topic t, at most ``pool_width``): its topic's row, its place in its group."""
    starts = np.r_[0, np.cumsum(size)[:-1]]
    position = np.arange(len(pool_topic)) - starts[pool_topic]
    return pool_topic * pool_width + position


def _docno_descending(
    judged: JudgedDocuments, doc_words: np.ndarray, pool_rows: np.ndarray, pool_topic: np.ndarray
) -> np.ndarray:
    """The judged rows ``pool_rows`` (grouped by topic ``pool_topic``, in key order) ordered
    by topic, then docno descending (``doc_words``: the qrels' docnos)."""
    n_docs = judged.n_docs
    pool_doc = judged.keys[pool_rows]
    pool_doc -= pool_topic * n_docs
    # (ranked among the pool's documents only: a third of all judged ones, in the 2012 qrels;
    # found by marking them in a table of the qrels' docnos, no longer than the qrels)
    in_pool = np.zeros(n_docs, dtype=bool)
    in_pool[pool_doc] = True
    pool_docs = np.flatnonzero(in_pool)
    del in_pool
    rank_of_doc = np.empty(n_docs, dtype=np.int64)
    rank_of_doc[pool_docs] = byte_ranks(doc_words[pool_docs])
    n_ranks = max(len(pool_docs), 1)
    # by topic, then docno descending: distinct keys, so their ranks are the order
    key = pool_topic * n_ranks
    key += n_ranks - 1
    key -= rank_of_doc[pool_doc]
    del pool_doc, rank_of_doc
    return pool_rows[
        _order_of_distinct(key, n_ranks * (int(pool_topic[-1]) + 1 if len(key) else 1))
    ]


def _order_of_distinct(key: np.ndarray, bound: int) -> np.ndarray:
    """The argsort of distinct int64 ``key`` in [0, ``bound``): by a table of the bound when
    it is small (next to the number of keys), else by a packed sort."""
    if bound > min(DENSE_KEYS, 32 * len(key)):
        return sort_keys(key.view(np.uint64))[0]
    table: np.ndarray = np.full(bound, -1, dtype=_index_type(len(key)))
    table[key] = np.arange(len(key), dtype=table.dtype)
    return np.compress(table >= 0, table)  # (4 times faster than table[table >= 0])
