"""The run side of a judged run (:class:`JudgedRankings`): ``grades[t, r, s]`` is the grade of
the document at 0-based rank ``r`` of topic ``t`` for subtopic column ``s`` (0 when there is no
judgment; negative grades are kept), ``length[t]`` the number of ranked documents; and the views
metrics take of it (relevant ranks, judged-only rankings), cached."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from divaeval.judged.material import TopicMaterial, rows_view
from divaeval.settings import Settings


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
        return max(self.depth, self.material.pool_grades_any_order.shape[1])

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
            rows_view(compact.reshape(-1, width))[slot] = rows_view(grades.reshape(-1, width))[cell]
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
