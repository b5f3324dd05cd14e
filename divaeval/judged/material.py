"""The qrels side of a set of topics (:class:`TopicMaterial`): subtopic ids, which subtopics
have relevant documents, intent weights and types, and the topic's *ideal material*, the grades
of every positively judged document (the pool from which ideal rankings are built), ordered by
docno descending so that "ties go to the largest docno" (ndeval) is "first wins"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # (pools.py imports this module)
    from divaeval.judged.pools import IdealPools


@dataclass(eq=False, repr=False)
class TopicMaterial:
    """The qrels side of ``T`` topics (see the module docstring). Shapes: ``S`` = the largest
    number of subtopics of a topic, ``P`` = the largest pool of positively judged documents."""

    topics: np.ndarray  # [T] str
    subtopics: np.ndarray  # [T, S] str, "" where the column is padding
    subtopic_valid: np.ndarray  # [T, S] bool: the column is a real subtopic of the topic
    max_grade: np.ndarray  # [T, S] int: the largest grade of the subtopic (0 if none > 0)
    relevant_count: np.ndarray  # [T, S] int: documents with grade >= rel_level
    #: [T, P, S] int16: the positively judged docs in any order (for measures that only
    #: count or sort them; :attr:`pool_grades` has them docno descending)
    pool_grades_any_order: np.ndarray
    pool_size: np.ndarray  # [T] int
    judged_count: np.ndarray  # [T] int: distinct judged documents (any grade)
    intent_weight: np.ndarray  # [T, S] float: intent probabilities (0 on padding)
    intent_nav: np.ndarray  # [T, S] bool: navigational intent
    rel_level: int
    #: the largest grade anywhere in the qrels file (every topic, not only these): the scale
    #: maximum G of collection-wide grade mappings such as textbook ERR's (2^g − 1)/2^G
    qrels_max_grade: int = 0
    #: [T] int: judged documents whose largest qrels grade is >= 0 (trec_eval's num_rel at
    #: ``-l 0`` or below, where negative grades stay "judged but never relevant")
    judged_nonnegative: np.ndarray | None = None
    #: [L] int: every distinct per-document grade (a document's largest grade over its
    #: subtopic lines) in the qrels file, ascending; ``level_counts[t, l]`` [T, L] counts the
    #: judged documents of topic t whose grade is ``grade_levels[l]`` (gain-mapped ideals)
    grade_levels: np.ndarray | None = None
    level_counts: np.ndarray | None = None
    #: the pools in docno order, built when first read (:attr:`pool_grades`,
    #: :meth:`pool_positions`). A root material's only: one taken from it reads its rows.
    pools: IdealPools | None = field(default=None, repr=False, compare=False)
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    #: (root material, rows of the root) when taken from another material; see :meth:`root`
    origin: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def pool_grades(self) -> np.ndarray:
        """[T, P, S] int16: the positively judged docs, docno descending."""
        key = ("pool-grades",)
        if key not in self.cache:
            root, rows = self.root()
            if rows is not None:
                self.cache[key] = root.pool_grades[rows]
            elif root.pools is None:
                raise AssertionError("material without pools")
            else:
                self.cache[key] = root.pools.by_docno()
        return self.cache[key]

    @property
    def relevant_subtopic(self) -> np.ndarray:
        """[T, S] bool: the subtopic has at least one document with grade >= rel_level."""
        return self.relevant_count > 0

    def relevant_documents(self, level: int) -> np.ndarray:
        """[T] int: trec_eval's num_rel on per-document grades (max over subtopics): judged
        documents with grade >= ``level`` (and >= 0: negative grades are never relevant)."""
        key = ("relevant_documents", level)
        if key not in self.cache:
            if level >= 1 or self.judged_nonnegative is None:
                grades = self.pool_grades_any_order.max(axis=2)
                counts = (grades >= max(level, 1)).sum(axis=1)
            else:
                counts = self.judged_nonnegative
            self.cache[key] = np.asarray(counts, dtype=np.int64)
        return self.cache[key]

    @property
    def n_relevant_subtopics(self) -> np.ndarray:
        """[T] int: S of ndeval, the number of subtopics with a relevant document."""
        return self.relevant_subtopic.sum(axis=1)

    def root(self) -> tuple[TopicMaterial, np.ndarray | None]:
        """(the material this one was taken from, its rows there); (self, None) for a root.
        Per-topic values that depend only on the qrels (ideal rankings) are computed once on
        the root and shared by every topic subset, run and resampled copy."""
        if self.origin is None:
            return self, None
        return self.origin

    def take(self, rows: np.ndarray) -> TopicMaterial:
        root, base = self.root()
        rows = np.asarray(rows)
        return TopicMaterial(
            origin=(root, rows if base is None else base[rows]),
            topics=self.topics[rows],
            subtopics=self.subtopics[rows],
            subtopic_valid=self.subtopic_valid[rows],
            max_grade=self.max_grade[rows],
            relevant_count=self.relevant_count[rows],
            pool_grades_any_order=self.pool_grades_any_order[rows],
            pool_size=self.pool_size[rows],
            judged_count=self.judged_count[rows],
            intent_weight=self.intent_weight[rows],
            intent_nav=self.intent_nav[rows],
            rel_level=self.rel_level,
            qrels_max_grade=self.qrels_max_grade,
            judged_nonnegative=_rows_of(self.judged_nonnegative, rows),
            grade_levels=self.grade_levels,
            level_counts=_rows_of(self.level_counts, rows),
        )

    def pool_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """(``pool_rows``, ``pool_lines``) of these topics, taken from the root material's
        (only the Compat measure reads them: the blocks of a streamed run, each a material,
        do not copy them)."""
        root, rows = self.root()
        if root.pools is None:
            raise AssertionError("material without pools")
        pool_rows, pool_lines = root.pools.positions()
        if rows is None:
            return pool_rows, pool_lines
        key = ("pool-positions",)
        if key not in self.cache:
            self.cache[key] = (pool_rows[rows], pool_lines[rows])
        return self.cache[key]

    def judged_at_least(self, level: int) -> np.ndarray:
        """[T] int: judged documents whose (per-document) grade is >= ``level``."""
        if self.level_counts is None or self.grade_levels is None:
            raise AssertionError("material without grade levels")
        return self.level_counts[:, np.asarray(self.grade_levels >= level)].sum(axis=1)

    def judged_nonrelevant(self, level: int) -> np.ndarray:
        """[T] int: judged documents with 0 <= grade < ``level`` (trec_eval's judged
        nonrelevant documents; negative grades are "pooled but unjudged")."""
        nonnegative = self.judged_at_least(0)
        return nonnegative - self.relevant_documents(level) if level > 0 else 0 * nonnegative


def _rows_of(values: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if values is None else values[rows]


def rows_view(matrix: np.ndarray) -> np.ndarray:
    """The rows of a C-contiguous 2-D array as a 1-D array of records (a view): numpy gathers
    and scatters short rows (a grade per subtopic) a few times faster this way."""
    return matrix.view(np.dtype((np.void, matrix.shape[1] * matrix.itemsize)))[:, 0]


def put_rows(target: np.ndarray, at: np.ndarray, source: np.ndarray, rows: np.ndarray) -> None:
    """``target[at] = source[rows]`` for the rows of C-contiguous 2-D arrays of one type, as
    records, by ``np.take`` then ``np.put`` (400,000 rows of 5 int16: 1.6 ms, against 2.9 by
    indexing the records)."""
    np.put(rows_view(target), at, rows_view(np.take(source, rows, axis=0)))
