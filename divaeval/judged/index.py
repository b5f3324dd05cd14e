"""The qrels prepared for joining runs (:class:`QrelsIndex`): one row per judged (topic, docno)
with its grade per subtopic column, found from a run's (topic, docno) codes by a direct table
(or a search of sorted keys, for collections too large for one), and the material of every
qrels topic (:mod:`.pools`, :mod:`.intents`), built once per qrels file."""

from __future__ import annotations

from functools import partial

import numpy as np

from divaeval.errors import check_rel_level
from divaeval.io import Intents, Qrels
from divaeval.io._words import TokenTable, sort_keys
from divaeval.judged.intents import intent_weights
from divaeval.judged.material import TopicMaterial
from divaeval.judged.pools import (
    DENSE_KEYS,
    IdealPools,
    judged_documents,
    subtopic_columns,
    topic_counts,
)
from divaeval.topics import ndeval_topic_number, sort_topics

#: the most topic selections whose material :meth:`QrelsIndex.material` keeps (runs sharing
#: their topics share one; a run streamed in blocks would otherwise keep one per block)
MATERIALS_KEPT = 8


class QrelsIndex:
    """The qrels prepared for joining runs: one row per judged (topic, docno)."""

    def __init__(
        self,
        qrels: Qrels,
        *,
        rel_level: int = 1,
        intents: Intents | None = None,
        topic_types=None,
        normalize_intents: bool = False,
    ):
        check_rel_level(rel_level)
        self.qrels = qrels
        self.rel_level = rel_level
        self._numbered: dict[int, int] | None = None  # see numbered_topics
        topic_code = qrels.topic_codes
        if qrels.topic_order is not None:  # (read_qrels gives the topics in this order)
            self.topics = qrels.topic_names
            self.topic_code_of = qrels.topic_order
        else:
            self.topics = np.array(sort_topics(qrels.topic_names), dtype=object)
            self.topic_code_of = {topic: code for code, topic in enumerate(self.topics.tolist())}
            code_of_name = np.array([self.topic_code_of[t] for t in qrels.topic_names], np.int64)
            if not np.array_equal(code_of_name, np.arange(len(code_of_name))):
                topic_code = code_of_name[qrels.topic_codes]
        n_topics = len(self.topics)
        self.doc_table = TokenTable(qrels.doc_words, qrels.doc_hashes)
        self.n_docs = max(len(qrels.doc_words), 1)
        columns = subtopic_columns(topic_code, qrels.subtopic_codes, qrels.subtopic_names, n_topics)
        self.width = columns.width
        judged = judged_documents(
            topic_code, qrels.doc_codes, qrels.grade, columns, n_topics, self.n_docs
        )
        self.judged_grades = judged.grades
        self.judged_row_of_key: np.ndarray | None = None
        self.judged_keys: np.ndarray | None = None
        if n_topics * self.n_docs <= DENSE_KEYS:  # a direct table: key -> judged row
            self.judged_row_of_key = np.full(n_topics * self.n_docs, len(judged.keys), np.int32)
            self.judged_row_of_key[judged.keys] = np.arange(len(judged.keys))
        else:
            self.judged_keys = judged.keys
        #: (row of key table or None, sorted keys or None, n_docs, the unjudged row)
        self._lookup = (
            self.judged_row_of_key,
            self.judged_keys,
            self.n_docs,
            len(self.judged_grades) - 1,
        )
        counts = topic_counts(judged, qrels.grade, n_topics, rel_level)
        pools = IdealPools(
            judged,
            qrels.doc_words,
            n_topics,
            # (the lookup, not the index: a closure over the index would make a reference
            # cycle, which keeps a dropped index's arrays until the cyclic collector runs)
            partial(_judged_rows, self._lookup, topic_code, qrels.doc_codes),
        )
        weight, nav = intent_weights(
            self.topics,
            columns,
            counts.relevant_count > 0,
            qrels,
            topic_code,
            intents=intents,
            topic_types=topic_types,
            normalize=normalize_intents,
        )
        self.material_all = TopicMaterial(
            topics=self.topics.copy(),
            subtopics=columns.subtopics,
            subtopic_valid=columns.valid,
            max_grade=counts.max_grade,
            relevant_count=counts.relevant_count,
            pool_grades_any_order=pools.grades_by_key,
            pool_size=pools.size,
            judged_count=counts.judged_count,
            intent_weight=weight,
            intent_nav=nav,
            rel_level=rel_level,
            qrels_max_grade=max(int(qrels.grade.max()), 0),
            judged_nonnegative=counts.judged_nonnegative,
            grade_levels=counts.grade_levels,
            level_counts=counts.level_counts,
            pools=pools,
        )
        self._materials: dict[bytes, TopicMaterial] = {}

    @property
    def topic_index(self):
        """The qrels topics, sorted, as a pandas Index (for pandas-based analyses)."""
        import pandas as pd  # (not at the top: only pandas-based analyses ask for it)

        return pd.Index(self.topics, dtype=object)

    def topic_code(self, topic: str, compat: str | None = None) -> int:
        """The qrels code of a run's topic id, -1 when the qrels lack it. Ids are compared as
        strings, except with ``compat="ndeval"``, where a run's ``01`` or ``wt09-1`` is qrels
        topic ``1``, as ndeval reads topic ids as numbers
        (:func:`divaeval.topics.ndeval_topic_number`)."""
        code = self.topic_code_of.get(topic, -1)
        if code >= 0 or compat != "ndeval":
            return code
        number = ndeval_topic_number(topic, run=True)
        return -1 if number is None else self.numbered_topics().get(number, -1)

    def numbered_topics(self) -> dict[int, int]:
        """ndeval's number of each qrels topic id that is one -> its code (the first topic
        in divaeval's order when two ids are the same number, as ``1`` and ``01``)."""
        if self._numbered is None:
            numbered: dict[int, int] = {}
            for code, topic in enumerate(self.topics.tolist()):
                number = ndeval_topic_number(topic)
                if number is not None:
                    numbered.setdefault(number, code)
            self._numbered = numbered
        return self._numbered

    def judged_rows(self, topic_code: np.ndarray, doc_code: np.ndarray) -> np.ndarray:
        """Row of ``judged_grades`` of each (qrels topic code, qrels doc code) pair; the last
        row (all zeros, unjudged) where the pair has no judgment or ``doc_code`` is -1."""
        return _judged_rows(self._lookup, topic_code, doc_code)

    def material(self, codes: np.ndarray) -> TopicMaterial:
        """The material of the qrels topics with the given codes, in that order (all of them,
        in order: the root material itself, no copy)."""
        if len(codes) == len(self.topics) and np.array_equal(codes, np.arange(len(codes))):
            return self.material_all
        key = codes.tobytes()
        material = self._materials.pop(key, None)
        if material is None:
            material = self.material_all.take(codes)
        self._materials[key] = material  # the most recent last
        while len(self._materials) > MATERIALS_KEPT:  # blocks of a streamed run differ
            del self._materials[next(iter(self._materials))]
        return material


def _judged_rows(lookup: tuple, topic_code: np.ndarray, doc_code: np.ndarray) -> np.ndarray:
    """:meth:`QrelsIndex.judged_rows` by the index's ``_lookup``."""
    row_of_key, keys, n_docs, unjudged = lookup
    known = doc_code >= 0
    key = topic_code * n_docs + np.where(known, doc_code, 0)
    if row_of_key is not None:
        rows = row_of_key[key]
    else:
        assert keys is not None  # the sorted-keys index is used when the table is not
        # searched in key order (a packed sort): each search starts where the last ended
        # and reads the keys in order (1M-line ad hoc run: 31 -> 16 ms)
        order, ordered = sort_keys(key.view(np.uint64))
        at = np.searchsorted(keys, ordered.view(np.int64))
        np.minimum(at, len(keys) - 1, out=at)
        rows = np.empty_like(at)
        rows[order] = np.where(keys[at] == ordered.view(np.int64), at, unjudged)
    return np.where(known, rows, unjudged)
