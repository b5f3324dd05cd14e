"""Judged rankings: a run joined with the qrels, as dense per-topic matrices.

This is the hinge of the data flow (io → judged rankings → metrics). Everything a metric needs
is here, aligned on one topic axis, so that every metric is a vectorised function over whole
runs:

- :class:`TopicMaterial`: the qrels side of a set of topics: subtopic ids, which subtopics have
  relevant documents, intent weights and types, and the topic's *ideal material*, the grades of
  every positively judged document (the pool from which ideal rankings are built), ordered by
  docno descending so that "ties go to the largest docno" (ndeval) is "first wins".
- :class:`JudgedRankings`: the run side: ``grades[t, r, s]`` is the grade of the document at
  0-based rank ``r`` of topic ``t`` for subtopic column ``s`` (0 when there is no judgment;
  negative grades are kept), ``length[t]`` the number of ranked documents.

:class:`QrelsIndex` is built once per qrels file and joins any number of runs against it.
Ordering, depth truncation and duplicate handling of runs happen in :func:`judge_run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError, check_rel_level, clip, warn
from divaeval.io._words import TokenTable, byte_ranks
from divaeval.settings import Order, Settings
from divaeval.topics import sort_topics

#: the settings every judging takes (the alias keeps branches begun before the rename working)
EvalSettings = Settings

#: integer keys below this bound are deduplicated by counting (no sort), and joins use a
#: direct (topic, docno) -> judgment table of that many cells (4 bytes each)
_DENSE_KEYS = 1 << 22


@dataclass(eq=False)
class TopicMaterial:
    """The qrels side of ``T`` topics (see the module docstring). Shapes: ``S`` = the largest
    number of subtopics of a topic, ``P`` = the largest pool of positively judged documents."""

    topics: np.ndarray  # [T] str
    subtopics: np.ndarray  # [T, S] str, "" where the column is padding
    subtopic_valid: np.ndarray  # [T, S] bool: the column is a real subtopic of the topic
    max_grade: np.ndarray  # [T, S] int: the largest grade of the subtopic (0 if none > 0)
    relevant_count: np.ndarray  # [T, S] int: documents with grade >= rel_level
    pool_grades: np.ndarray  # [T, P, S] int16: positively judged docs, docno descending
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
    #: [T, P] int: the qrels-index row of each pool document (-1 on padding) and the file line
    #: (0-based) of its first qrels line; pool order as ``pool_grades``
    pool_rows: np.ndarray | None = None
    pool_lines: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    #: (root material, rows of the root) when taken from another material; see :meth:`root`
    origin: tuple | None = field(default=None, repr=False, compare=False)

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
                counts = (self.pool_grades.max(axis=2) >= max(level, 1)).sum(axis=1)
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
            pool_grades=self.pool_grades[rows],
            pool_size=self.pool_size[rows],
            judged_count=self.judged_count[rows],
            intent_weight=self.intent_weight[rows],
            intent_nav=self.intent_nav[rows],
            rel_level=self.rel_level,
            qrels_max_grade=self.qrels_max_grade,
            judged_nonnegative=_rows_of(self.judged_nonnegative, rows),
            grade_levels=self.grade_levels,
            level_counts=_rows_of(self.level_counts, rows),
            pool_rows=_rows_of(self.pool_rows, rows),
            pool_lines=_rows_of(self.pool_lines, rows),
        )

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


def _rows(matrix: np.ndarray) -> np.ndarray:
    """The rows of a C-contiguous 2-D array as a 1-D array of records (a view): numpy gathers
    and scatters short rows (a grade per subtopic) a few times faster this way."""
    return matrix.view(np.dtype((np.void, matrix.shape[1] * matrix.itemsize)))[:, 0]


def _rows_of(values: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if values is None else values[rows]


@dataclass(eq=False)
class JudgedRankings:
    """One run joined with the qrels over the evaluated topics (see the module docstring)."""

    run_name: str
    material: TopicMaterial
    grades: np.ndarray  # [T, D, S] int16
    judged: np.ndarray  # [T, D] bool: the document has a qrels line for the topic
    length: np.ndarray  # [T] int: ranked documents per topic
    in_run: np.ndarray  # [T] bool: False for qrels topics the run lacks (evaluated with -c)
    settings: Settings
    #: [T, D] float: the run score of each ranked document (0 beyond the ranking)
    scores: np.ndarray | None = None
    #: [T, D] int: the qrels-index row of each ranked document (-1: unjudged or padding)
    doc_rows: np.ndarray | None = None
    #: [T] int: the qrels topic code of each evaluated topic (ascending)
    topic_codes: np.ndarray | None = None
    #: repeated docnos dropped by ``--dedupe first``
    dropped_duplicates: int = 0
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def topics(self) -> np.ndarray:
        return self.material.topics

    @property
    def n_topics(self) -> int:
        return len(self.length)

    @property
    def depth(self) -> int:
        return self.grades.shape[1]

    @property
    def fill(self) -> int:
        """The most ranks any cutoff can fill: the rankings' depth or the largest pool of
        positively judged documents (the longest ideal ranking), whichever is larger. Beyond it
        a measure's running sums no longer change, so no array needs more ranks, however
        large the cutoff (``-m P@1000000000`` divides by k but allocates ``fill`` ranks)."""
        return max(self.depth, self.material.pool_grades.shape[1])

    @property
    def rank_mask(self) -> np.ndarray:
        """[T, D] bool: the position holds a ranked document."""
        return np.arange(self.depth)[None, :] < self.length[:, None]

    def relevant(self, rel_level: int | None = None) -> np.ndarray:
        """[T, D, S] bool: binary relevance (grade >= rel_level) of each ranked document."""
        level = self.material.rel_level if rel_level is None else rel_level
        key = ("relevant", level)
        if key not in self.cache:
            self.cache[key] = self.grades >= level
        return self.cache[key]

    def relevant_ranks(self, level: int, length: int) -> tuple[np.ndarray, np.ndarray]:
        """The first ``length`` ranks that hold a document relevant (grade >= ``level``) to
        some subtopic, in rank order: (their grades [T, R, S], 0 on padding; their 0-based ranks
        [T, R], ``length`` on padding). A running sum over ranks whose skipped terms are all 0
        (gains, hits) is the same sum bit for bit, so whole-run measures run over R ranks, not
        the depth (R is 175 of 1,000 on the TREC 2012 runs). Cached."""
        key = ("relevant-ranks", level, length)
        if key not in self.cache:
            grades = self.grades[:, :length]
            n_topics, depth, width = grades.shape
            relevant = np.zeros((n_topics, depth), dtype=bool)
            for s in range(width):  # faster than .any(axis=2) over a short axis
                relevant |= grades[:, :, s] >= level
            cell = np.flatnonzero(relevant)  # flat [T, D], topic-major
            topic, rank = np.divmod(cell, max(depth, 1))
            counts = np.bincount(topic, minlength=n_topics)
            column = np.arange(len(cell)) - np.repeat(np.cumsum(counts) - counts, counts)
            size = int(counts.max(initial=0))
            slot = topic * size + column  # flat [T, R]
            compact = np.zeros((n_topics, size, width), dtype=np.int16)
            _rows(compact.reshape(-1, width))[slot] = _rows(grades.reshape(-1, width))[cell]
            ranks = np.full((n_topics, size), length, dtype=np.int64)
            ranks.reshape(-1)[slot] = rank
            self.cache[key] = (compact, ranks)
        return self.cache[key]

    def judged_only(self) -> JudgedRankings:
        """The rankings without unjudged documents (no qrels line, or a negative grade on every
        line): trec_eval's ``-J`` and ir_measures' ``judged_only=True``. The remaining documents
        keep their relative order. Cached."""
        key = ("judged-only",)
        if key not in self.cache:
            grades = self.grades
            if grades.shape[2] == 1:
                best = grades[:, :, 0]
            else:
                valid = self.material.subtopic_valid[:, None, :]
                best = np.where(valid, grades, np.int16(-32768)).max(axis=2)
            keep = self.judged & (best >= 0) & self.rank_mask
            order = np.argsort(~keep, axis=1, kind="stable")
            length = keep.sum(axis=1).astype(np.int64)
            depth = int(length.max(initial=0))
            order = order[:, :depth]
            inside = np.arange(depth)[None, :] < length[:, None]

            def gather(values, fill):
                taken = np.take_along_axis(
                    values, order.reshape(order.shape + (1,) * (values.ndim - 2)), 1
                )
                shape = inside.shape + (1,) * (values.ndim - 2)
                return np.where(inside.reshape(shape), taken, fill)

            self.cache[key] = JudgedRankings(
                run_name=self.run_name,
                material=self.material,
                grades=gather(grades, np.int16(0)).astype(np.int16),
                judged=gather(self.judged, False),
                length=length,
                in_run=self.in_run,
                settings=self.settings,
                scores=None if self.scores is None else gather(self.scores, 0.0),
                doc_rows=None if self.doc_rows is None else gather(self.doc_rows, -1),
            )
        return self.cache[key]

    def padded_to(self, depth: int) -> np.ndarray:
        """``grades`` with the rank axis padded (with zeros) or cut to ``depth``."""
        if depth <= self.depth:
            return self.grades[:, :depth]
        pad = np.zeros((self.n_topics, depth - self.depth, self.grades.shape[2]), np.int16)
        return np.concatenate([self.grades, pad], axis=1)


def _unique_keys(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for int64 keys in [0, bound): by counting when
    the bound is small, also next to the number of keys (no sort), else by sorting."""
    if bound > min(_DENSE_KEYS, 32 * len(key)):
        uniques, inverse = np.unique(key, return_inverse=True)
        return uniques, inverse.reshape(-1)
    present = np.zeros(bound, dtype=bool)
    present[key] = True
    uniques = np.flatnonzero(present)
    # each present key's rank, written where it is (the other cells are never read): half
    # the time of a running count over the whole bound
    rank = np.empty(bound, dtype=np.int64)
    rank[uniques] = np.arange(len(uniques))
    return uniques, rank[key]


def _subtopic_columns(topic_code: np.ndarray, subtopic_code: np.ndarray, names: np.ndarray):
    """Column of each qrels line's subtopic within its topic: subtopics ascending (numerically
    when all are integers, as ndeval iterates them). Returns (column per line, and per
    (topic, subtopic) pair: topic code, subtopic id, column)."""
    order = sort_topics(names)
    position = {name: i for i, name in enumerate(order)}
    rank_of_name = np.array([position[name] for name in names], dtype=np.int64)
    n_ranks = max(len(order), 1)
    key = topic_code.astype(np.int64) * n_ranks + rank_of_name[subtopic_code]
    pair_keys, line_pair = _unique_keys(key, n_ranks * (int(topic_code.max(initial=0)) + 1))
    pair_topic = pair_keys // n_ranks
    first = np.r_[0, np.flatnonzero(np.diff(pair_topic)) + 1]
    counts = np.diff(np.r_[first, len(pair_keys)])
    pair_column = np.arange(len(pair_keys)) - np.repeat(first, counts)
    pair_subtopic = np.asarray(order, dtype=object)[pair_keys % n_ranks]
    return pair_column[line_pair.ravel()].astype(np.int64), pair_topic, pair_subtopic, pair_column


class QrelsIndex:
    """The qrels prepared for joining runs: one row per judged (topic, docno)."""

    def __init__(
        self,
        qrels,
        *,
        rel_level: int = 1,
        intents=None,
        topic_types=None,
        normalize_intents: bool = False,
    ):
        check_rel_level(rel_level)
        self.qrels = qrels
        self.rel_level = rel_level
        topics = sort_topics(qrels.topic_names)
        self.topics = np.array(topics, dtype=object)
        self.topic_code_of = {topic: code for code, topic in enumerate(topics)}
        code_of_name = np.array([self.topic_code_of[t] for t in qrels.topic_names], np.int64)
        topic_code = code_of_name[qrels.topic_codes]
        self.doc_table = TokenTable(qrels.doc_words)
        doc_code = qrels.doc_codes
        n_docs = max(len(qrels.doc_words), 1)
        grade = qrels.grade

        column, pair_topic, pair_subtopic, pair_column = _subtopic_columns(
            topic_code, qrels.subtopic_codes, qrels.subtopic_names
        )
        n_topics = len(topics)
        width = int(pair_column.max()) + 1
        self.width = width

        key = topic_code * n_docs + doc_code
        judged_keys, judged_row = _unique_keys(key, n_topics * n_docs)
        self.n_docs = n_docs
        n_judged = len(judged_keys)
        self.judged_row_of_key: np.ndarray | None
        self.judged_keys: np.ndarray | None
        if n_topics * n_docs <= _DENSE_KEYS:  # a direct table: key -> judged row
            self.judged_row_of_key = np.full(n_topics * n_docs, n_judged, dtype=np.int32)
            self.judged_row_of_key[judged_keys] = np.arange(n_judged)
            self.judged_keys = None
        else:
            self.judged_row_of_key = None
            self.judged_keys = judged_keys
        grades = np.zeros((n_judged + 1, width), dtype=np.int16)  # last row: unjudged
        grades.reshape(-1)[judged_row * width + column] = grade
        self.judged_grades = grades
        judged_topic = (judged_keys // n_docs).astype(np.int64)
        judged_doc = (judged_keys % n_docs).astype(np.int64)

        subtopics = np.full((n_topics, width), "", dtype=object)
        subtopics[pair_topic, pair_column] = pair_subtopic
        valid = subtopics != ""
        # Judged rows are sorted by topic (every topic has one): per-topic maxima by reduceat;
        # cells without a judgment hold 0, which the clip at 0 below ignores.
        topic_start = np.searchsorted(judged_topic, np.arange(n_topics))
        max_grade = np.maximum.reduceat(grades[:n_judged], topic_start, axis=0).astype(np.int64)
        is_rel = grade >= rel_level
        relevant_count = np.bincount(
            topic_code[is_rel] * width + column[is_rel], minlength=n_topics * width
        ).reshape(n_topics, width)
        judged_count = np.bincount(judged_topic, minlength=n_topics)
        has_nonnegative = np.bincount(judged_row[grade >= 0], minlength=n_judged) > 0
        judged_nonnegative = np.bincount(judged_topic[has_nonnegative], minlength=n_topics)
        # each judged document's own grade (the largest over its lines) and first line
        doc_grade = np.full(n_judged, np.iinfo(np.int64).min, dtype=np.int64)
        np.maximum.at(doc_grade, judged_row, grade)
        first_line = np.full(n_judged, len(grade), dtype=np.int64)
        np.minimum.at(first_line, judged_row, np.arange(len(grade)))
        lowest = int(doc_grade.min(initial=0))
        span = int(doc_grade.max(initial=0)) - lowest + 1
        grade_levels, level_of = _unique_keys(doc_grade - lowest, span)
        grade_levels = grade_levels + lowest
        level_counts = np.bincount(
            judged_topic * len(grade_levels) + level_of,
            minlength=n_topics * len(grade_levels),
        ).reshape(n_topics, len(grade_levels))

        # Ideal material: positively judged documents per topic, docno descending.
        positive = np.zeros(n_judged, dtype=bool)
        for s in range(width):  # faster than .max(axis=1) over a short axis
            positive |= grades[:n_judged, s] > 0
        pool_rows = np.flatnonzero(positive)
        pool_topic = judged_topic[pool_rows]
        # (ranked among the pool's documents only: a third of all judged ones, in the 2012 qrels)
        pool_docs, pool_doc = np.unique(judged_doc[pool_rows], return_inverse=True)
        doc_rank = byte_ranks(qrels.doc_words[pool_docs])[pool_doc.reshape(-1)]
        # by topic, then docno descending: distinct keys, so their ranks are the order
        _, slot = _unique_keys(pool_topic * n_docs + (n_docs - 1 - doc_rank), n_topics * n_docs)
        order = np.empty_like(slot)
        order[slot] = np.arange(len(slot))
        pool_rows, pool_topic = pool_rows[order], pool_topic[order]
        pool_size = np.bincount(pool_topic, minlength=n_topics)
        starts = np.r_[0, np.cumsum(pool_size)[:-1]]
        position = np.arange(len(pool_rows)) - starts[pool_topic]
        pool_width = max(int(pool_size.max(initial=0)), 1)
        cell = pool_topic * pool_width + position  # flat [T, P]
        pool = np.zeros((n_topics, pool_width, width), np.int16)
        _rows(pool.reshape(-1, width))[cell] = _rows(grades)[pool_rows]
        pool_row_table = np.full((n_topics, pool_width), -1, dtype=np.int64)
        pool_row_table.reshape(-1)[cell] = pool_rows
        pool_line_table = np.zeros((n_topics, pool_width), dtype=np.int64)
        pool_line_table.reshape(-1)[cell] = first_line[pool_rows]

        weight, nav = self._intents(
            subtopics,
            valid,
            relevant_count > 0,
            intents,
            topic_types,
            qrels,
            topic_code,
            column,
            normalize_intents,
        )
        self.material_all = TopicMaterial(
            topics=np.array(topics, dtype=object),
            subtopics=subtopics,
            subtopic_valid=valid,
            max_grade=np.maximum(max_grade, 0),
            relevant_count=relevant_count,
            pool_grades=pool,
            pool_size=pool_size,
            judged_count=judged_count,
            intent_weight=weight,
            intent_nav=nav,
            rel_level=rel_level,
            qrels_max_grade=max(int(grade.max()), 0),
            judged_nonnegative=judged_nonnegative,
            grade_levels=grade_levels,
            level_counts=level_counts,
            pool_rows=pool_row_table,
            pool_lines=pool_line_table,
        )
        self._materials: dict[bytes, TopicMaterial] = {}

    def _intents(
        self, subtopics, valid, relevant, intents, topic_types, qrels, topic_code, column, normalize
    ):
        """Intent weights [T, S] and navigational flags [T, S].

        Weights: the intent file's probabilities, else uniform over the subtopics with a
        relevant document. Types, by precedence: intent file column 4, qrels column 5, topic
        XML, default ``inf``; a type that loses to a different one is reported (see
        :func:`_resolve_types`).
        """
        n_topics, width = subtopics.shape
        n_rel = relevant.sum(axis=1, keepdims=True)
        uniform = np.where(relevant, 1.0 / np.maximum(n_rel, 1), 0.0)

        def locate(frame):
            """Flat [T * S] cell of each (topic, subtopic) row of ``frame`` (NaN: unknown)."""
            import pandas as pd  # intent and topic files only

            cell = pd.Series(
                np.arange(n_topics * width),
                index=pd.MultiIndex.from_arrays([np.repeat(self.topics, width), subtopics.ravel()]),
            )
            cell = cell[valid.ravel()]
            keys = pd.MultiIndex.from_arrays([frame["topic"], frame["subtopic"]])
            return cell.reindex(keys).to_numpy()

        def typed_rows(frame):
            """(rows of ``frame`` that type a subtopic of the qrels, their cells, type codes)."""
            where = locate(frame)
            kinds = frame["type"].to_numpy()
            rows = np.flatnonzero(~np.isnan(where) & (kinds != ""))
            return rows, where[rows].astype(np.int64), np.where(kinds[rows] == "nav", 2, 1)

        sources = []  # by precedence: (file name, cells, type codes, line of the k-th entry)
        if intents is not None:
            rows, cells, kinds = typed_rows(intents.frame)
            sources.append(
                (intents.source.name, cells, kinds, lambda k, r=rows: intents.line_of(int(r[k])))
            )
        rows = np.flatnonzero(qrels.type_code)
        sources.append(
            (
                qrels.path,
                topic_code[rows] * width + column[rows],
                qrels.type_code[rows],
                lambda k, r=rows: qrels.line_of(int(r[k])),
            )
        )
        if topic_types is not None:
            rows, cells, kinds = typed_rows(topic_types)
            lines = topic_types["line"].to_numpy() if "line" in topic_types else None
            sources.append(
                (
                    topic_types.attrs.get("source", "the topic types"),
                    cells,
                    kinds,
                    lambda k, r=rows: None if lines is None else int(lines[r[k]]),
                )
            )
        nav = _resolve_types(sources, self.topics, subtopics) == 2

        if intents is None:
            return uniform, nav
        frame = intents.frame
        where = locate(frame)
        known = ~np.isnan(where)
        for row in np.flatnonzero(~known)[:5]:
            warn(
                f"intent {frame['subtopic'].iat[row]} of topic {frame['topic'].iat[row]} "
                "is not a subtopic in the qrels (no judged documents); it adds nothing",
                file=intents.source.name,
                line=intents.line_of(row),
            )
        if (~known).sum() > 5:
            warn(
                f"{int((~known).sum())} intents name unknown subtopics in all",
                file=intents.source.name,
            )
        weight = np.zeros(n_topics * width)
        flat = where[known].astype(np.int64)
        weight[flat] = frame["probability"].to_numpy()[known]
        weight = weight.reshape(n_topics, width)
        listed = np.zeros(n_topics * width, dtype=bool)
        listed[flat] = True
        listed = listed.reshape(n_topics, width)
        topics_with_intents = listed.any(axis=1)
        missing = relevant & ~listed & topics_with_intents[:, None]
        for t, s in list(zip(*np.nonzero(missing), strict=True))[:5]:
            warn(
                f"topic {self.topics[t]} subtopic {subtopics[t, s]} has relevant documents "
                "but no intent probability; weight 0",
                file=intents.source.name,
            )
        no_intents = ~topics_with_intents & relevant.any(axis=1)
        if no_intents.any():
            warn(
                f"{int(no_intents.sum())} qrels topics have no intent probabilities "
                "(uniform weights used)",
                file=intents.source.name,
            )
            weight[no_intents] = uniform[no_intents]
        # The sum is the file's: an intent without judgments (no relevant documents) keeps its
        # probability mass, as in NTCIREVAL (the topic's maximum is then below 1).
        row_topic = self.topic_index.get_indexer(frame["topic"])
        in_qrels = row_topic >= 0
        sums = np.zeros(n_topics)
        np.add.at(sums, row_topic[in_qrels], frame["probability"].to_numpy()[in_qrels])
        sums = np.where(no_intents, weight.sum(axis=1), sums)
        off = topics_with_intents & (np.abs(sums - 1.0) > 1e-6)
        if off.any():
            example = self.topics[int(np.flatnonzero(off)[0])]
            action = "renormalised" if normalize else "used as given (--normalize-intents rescales)"
            warn(
                f"intent probabilities of {int(off.sum())} topics do not sum to 1 "
                f"(e.g. topic {example}: {sums[off][0]:.6g}); {action}",
                file=intents.source.name,
            )
            if normalize:
                weight[off] = weight[off] / np.where(sums[off] > 0, sums[off], 1)[:, None]
        return weight, nav

    @property
    def topic_index(self):
        """The qrels topics, sorted, as a pandas Index (for pandas-based analyses)."""
        import pandas as pd

        return pd.Index(self.topics, dtype=object)

    def judged_rows(self, topic_code: np.ndarray, doc_code: np.ndarray) -> np.ndarray:
        """Row of ``judged_grades`` of each (qrels topic code, qrels doc code) pair; the last
        row (all zeros, unjudged) where the pair has no judgment or ``doc_code`` is -1."""
        unjudged = len(self.judged_grades) - 1
        known = doc_code >= 0
        key = topic_code * self.n_docs + np.where(known, doc_code, 0)
        if self.judged_row_of_key is not None:
            rows = self.judged_row_of_key[key]
        else:
            keys = self.judged_keys
            assert keys is not None  # the sorted-keys index is used when the table is not
            at = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
            rows = np.where(keys[at] == key, at, unjudged)
        return np.where(known, rows, unjudged)

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


#: the most topic selections whose material :meth:`QrelsIndex.material` keeps (runs sharing
#: their topics share one; a run streamed in blocks would otherwise keep one per block)
MATERIALS_KEPT = 8

_TYPE_NAMES = ("none", "inf", "nav")


def _resolve_types(sources, topics: np.ndarray, subtopics: np.ndarray) -> np.ndarray:
    """[T, S] subtopic types (0 none, 1 inf, 2 nav) from ``sources``, highest precedence
    first: ``(file name, flat cells, type codes, k -> line of entry k)``. The first source that
    types a subtopic wins; each other source that types it differently gets one warning (per
    winning source), with a count, an example and the winner. Each file is consistent within
    itself (the readers reject a subtopic typed twice differently)."""
    n_topics, width = subtopics.shape
    kind = np.zeros(n_topics * width, dtype=np.int8)
    winner = np.full(n_topics * width, -1, dtype=np.int64)
    for i, (name, cells, kinds, line_of) in enumerate(sources):
        differs = (winner[cells] >= 0) & (kind[cells] != kinds)
        # (np.unique of nothing is skipped: numpy 2.4's first np.unique imports numpy.ma, 15 ms)
        losers = sorted(set(winner[cells[differs]].tolist())) if differs.any() else []
        for j in losers:
            lost = np.flatnonzero(differs & (winner[cells] == j))
            k = int(lost[0])
            topic, column = divmod(int(cells[k]), width)
            count = len(np.unique(cells[lost]))
            won = sources[j][0]
            warn(
                f"{count} subtopic type{'s differ' if count > 1 else ' differs'} from {won} "
                f"(e.g. topic {clip(topics[topic])} subtopic {clip(subtopics[topic, column])}: "
                f"{_TYPE_NAMES[kinds[k]]} here, {_TYPE_NAMES[kind[cells[k]]]} in {won}); "
                f"{won} wins (precedence: intent file, qrels, topics file)",
                file=name,
                line=line_of(k),
            )
        free = winner[cells] < 0
        kind[cells[free]] = kinds[free]
        winner[cells[free]] = i
    return kind.reshape(n_topics, width)


def _order_rows(run, rows: np.ndarray, topic_code: np.ndarray, order: Order) -> np.ndarray:
    """Permutation of ``rows`` (rows of ``run``; ``topic_code`` their qrels topic codes)
    grouping topics (by code) and ranking documents within each topic."""
    if len(rows) == 0:  # no topic in common with the qrels: nothing to order
        return np.arange(0)
    if order == "file":
        return np.argsort(topic_code, kind="stable")
    if order == "rank":
        from divaeval.io.runs import parse_ranks

        ranks = parse_ranks(run, rows)
        perm = np.lexsort((ranks, topic_code))
        same = (np.diff(topic_code[perm]) == 0) & (np.diff(ranks[perm]) == 0)
        if same.any():
            i = int(np.flatnonzero(same)[0])
            first, row = int(rows[perm[i]]), int(rows[perm[i + 1]])
            raise DataError(
                f"duplicate rank {ranks[perm[i]]} for topic "
                f"{run.topics[run.topic_codes[first]]} (also at line {run.line_of(first)}); "
                "--order rank needs distinct ranks",
                file=run.path,
                line=run.line_of(row),
            )
        return perm
    scores = run.score[rows]
    if order == "score-file":  # a stable sort by score: ties keep their file order
        return np.lexsort((np.arange(len(rows)), -scores, topic_code))
    # Run files are usually grouped by topic and sorted by score: a stable sort by topic (fast
    # on such runs) is then the whole permutation; otherwise sort by (topic, -score).
    if (topic_code[1:] >= topic_code[:-1]).all():  # already grouped in topic code order
        perm = np.arange(len(topic_code))
        s_sorted, t_sorted = scores, topic_code
    else:
        perm = np.argsort(topic_code, kind="stable")
        s_sorted, t_sorted = scores[perm], topic_code[perm]
    same_topic = t_sorted[1:] == t_sorted[:-1]
    if (same_topic & (s_sorted[1:] > s_sorted[:-1])).any():
        perm = np.lexsort((-scores, topic_code))
        s_sorted, t_sorted = scores[perm], topic_code[perm]
        same_topic = t_sorted[1:] == t_sorted[:-1]
    tie_next = same_topic & (s_sorted[1:] == s_sorted[:-1])
    if tie_next.any():
        # Break score ties by docno descending (byte order, as trec_eval's strcmp).
        in_tie = np.zeros(len(perm), dtype=bool)
        in_tie[:-1] |= tie_next
        in_tie[1:] |= tie_next
        group = np.cumsum(np.r_[True, ~tie_next])  # equal (topic, score) runs share a group
        positions = np.flatnonzero(in_tie)
        doc_rank = byte_ranks(run.doc_words[run.doc_codes[rows[perm[positions]]]])
        if order == "score-docno-asc":
            doc_rank = -doc_rank
        within = np.lexsort((-doc_rank, group[positions]))
        perm[positions] = perm[positions][within]
    return perm


def _has_repeats(keys: np.ndarray, bound: int) -> bool:
    """Whether an int64 key in [0, ``bound``) occurs twice: by marking a table when the bound
    is small (no sort), else by sorting."""
    if bound > 4 * _DENSE_KEYS:
        ordered = np.sort(keys)
        return bool((ordered[1:] == ordered[:-1]).any())
    seen = np.zeros(bound, dtype=bool)
    seen[keys] = True
    return int(np.count_nonzero(seen)) < len(keys)


def _positions(topics_in_order: np.ndarray) -> np.ndarray:
    """0-based position of each element within its run of equal topics."""
    start = np.r_[True, topics_in_order[1:] != topics_in_order[:-1]]
    first = np.flatnonzero(start)
    counts = np.diff(np.r_[first, len(topics_in_order)])
    return np.arange(len(topics_in_order)) - np.repeat(first, counts)


def _run_topic_codes(run, index: QrelsIndex) -> np.ndarray:
    """Qrels topic code of each of the run's distinct topics (-1: not in the qrels)."""
    return np.array([index.topic_code_of.get(t, -1) for t in run.topics], dtype=np.int64)


def judge_run(
    run,
    index: QrelsIndex,
    settings: Settings,
    *,
    topics: np.ndarray | None = None,
    warn_duplicates: bool = True,
) -> JudgedRankings:
    """Order, truncate and check ``run``, and join it with the qrels (see the module doc).

    ``topics``: the qrels topic codes to evaluate (ascending; default: the run's topics, or
    every qrels topic with ``settings.complete``). ``warn_duplicates=False`` leaves the warning
    about dropped repeated docnos to the caller (``dropped_duplicates`` counts them)."""
    topic_code = _run_topic_codes(run, index)[run.topic_codes]
    rows = np.arange(len(topic_code))
    run_only = topic_code < 0
    if run_only.any():
        rows = rows[~run_only]
        topic_code = topic_code[rows]
    perm = _order_rows(run, rows, topic_code, settings.ranking_order)
    topic_sorted = topic_code[perm]
    rows_sorted = rows[perm]
    doc_codes = run.doc_codes[rows_sorted]

    n_docs = max(len(run.doc_words), 1)
    pair = topic_sorted * n_docs + doc_codes
    duplicate = np.zeros(len(pair), dtype=bool)
    n_pairs = (int(topic_sorted.max(initial=0)) + 1) * n_docs
    if _has_repeats(pair, n_pairs):  # flag every copy after the highest-ranked one
        by_pair = np.argsort(pair, kind="stable")
        duplicate[by_pair[1:]] = pair[by_pair[1:]] == pair[by_pair[:-1]]

    keep = np.ones(len(perm), dtype=bool)
    dropped = 0
    if settings.dedupe == "first" and duplicate.any():
        dropped = int(duplicate.sum())
        if warn_duplicates:
            warn(f"{dropped} repeated docnos dropped (kept the highest-ranked copy)", file=run.path)
        keep &= ~duplicate
    position = np.full(len(perm), -1, dtype=np.int64)
    position[keep] = _positions(topic_sorted[keep])
    if settings.depth is not None:
        keep &= position < settings.depth
    if settings.dedupe == "error":
        dup_kept = duplicate & keep
        if dup_kept.any():
            i = int(np.flatnonzero(dup_kept)[0])
            first = int(np.flatnonzero((pair == pair[i]) & keep)[0])
            row_first, row = int(rows_sorted[first]), int(rows_sorted[i])
            raise DataError(
                f"duplicate docno {run.docno(row)} for topic "
                f"{run.topics[run.topic_codes[row]]} "
                f"(also at line {run.line_of(row_first)}); use --dedupe first to keep the "
                "first copy",
                file=run.path,
                line=run.line_of(row),
            )

    n_qrels_topics = len(index.topics)
    # every order groups topics by ascending code: distinct topics without a sort
    run_topics = topic_sorted[np.r_[True, topic_sorted[1:] != topic_sorted[:-1]][: len(perm)]]
    if topics is not None:
        eval_codes = np.asarray(topics, dtype=np.int64)
    else:
        eval_codes = np.arange(n_qrels_topics) if settings.complete else run_topics
    row_of_code = np.full(n_qrels_topics, -1, dtype=np.int64)
    row_of_code[eval_codes] = np.arange(len(eval_codes))

    if keep.all():
        kept_topic, kept_position, kept_docs = topic_sorted, position, doc_codes
    else:
        kept_topic, kept_position, kept_docs = topic_sorted[keep], position[keep], doc_codes[keep]
    qdoc = index.doc_table.find(run.doc_words, run.doc_hashes)[kept_docs]
    known = np.flatnonzero(qdoc >= 0)  # docnos the qrels know (for any topic)
    jrow = index.judged_rows(kept_topic[known], qdoc[known])
    hit = jrow < len(index.judged_grades) - 1
    known, jrow = known[hit], jrow[hit]  # the judged documents, and their qrels rows

    n_topics = len(eval_codes)
    depth = int(kept_position.max(initial=-1)) + 1
    trow = row_of_code[kept_topic]
    cell = trow * depth + kept_position  # flat [T, D] cell of each ranked document
    scores: np.ndarray = np.zeros(n_topics * depth, dtype=np.float64)
    scores[cell] = run.score[rows_sorted[keep] if not keep.all() else rows_sorted]
    grades: np.ndarray = np.zeros((n_topics * depth, index.width), dtype=np.int16)
    _rows(grades)[cell[known]] = _rows(index.judged_grades)[jrow]
    judged: np.ndarray = np.zeros(n_topics * depth, dtype=bool)
    judged[cell[known]] = True
    doc_rows: np.ndarray = np.full(n_topics * depth, -1, dtype=np.int64)
    doc_rows[cell[known]] = jrow
    grades = grades.reshape(n_topics, depth, index.width)
    judged, scores, doc_rows = (a.reshape(n_topics, depth) for a in (judged, scores, doc_rows))
    length = np.bincount(trow, minlength=n_topics).astype(np.int64)
    in_run = np.zeros(n_topics, dtype=bool)
    in_run[row_of_code[run_topics]] = True
    return JudgedRankings(
        run_name=run.name,
        material=index.material(eval_codes),
        grades=grades,
        judged=judged,
        length=length,
        in_run=in_run,
        settings=settings,
        scores=scores,
        doc_rows=doc_rows,
        topic_codes=eval_codes,
        dropped_duplicates=dropped,
    )


def run_only_topics(run, index: QrelsIndex) -> list[str]:
    """Topics of ``run`` that the qrels do not judge, sorted."""
    return sort_topics(run.topics[_run_topic_codes(run, index) < 0])


def trec_run_text(pairs, tag: str = "run") -> str:
    """TREC run lines for ``(topic, docno)`` pairs given in ranking order: ranks 1, 2, … and
    strictly decreasing scores per topic, so that every ordering rule gives that ranking."""
    lines = []
    rank: dict[str, int] = {}
    for topic, docno in pairs:
        rank[topic] = rank.get(topic, 0) + 1
        lines.append(f"{topic} Q0 {docno} {rank[topic]} {-rank[topic]} {tag}")
    return "\n".join(lines) + "\n"


def judge_texts(
    qrels: str,
    runs,
    *,
    intents: str | None = None,
    settings: Settings | None = None,
) -> list[JudgedRankings]:
    """Judge runs given as text against qrels (and intents) given as text: the in-memory
    equivalent of reading the files (same parsers, checks and join). Messages name the inputs
    ``<qrels>``, ``<intents>`` and ``<run 1>``, ``<run 2>``, …"""
    from divaeval.io import read_intents, read_qrels, read_run

    settings = settings or Settings()
    index = QrelsIndex(
        read_qrels("<qrels>", text=qrels),
        rel_level=settings.rel_level,
        intents=read_intents("<intents>", text=intents) if intents is not None else None,
        normalize_intents=settings.normalize_intents,
    )
    return [
        judge_run(read_run(f"<run {i}>", text=text), index, settings)
        for i, text in enumerate(runs, start=1)
    ]
