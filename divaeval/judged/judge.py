"""Joining a run with the qrels (:func:`judge_run`): ordering, depth truncation and duplicate
handling of the run's rankings, then one lookup of every ranked (topic, docno) in the
:class:`~divaeval.judged.index.QrelsIndex`; and the in-memory shortcuts of tests and analyses
(:func:`judge_texts`, :func:`trec_run_text`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from divaeval import native
from divaeval.errors import DataError, warn
from divaeval.io import Run, parse_ranks, read_intents, read_qrels, read_run
from divaeval.io._words import byte_ranks, has_repeats
from divaeval.judged.index import QrelsIndex
from divaeval.judged.material import put_rows
from divaeval.judged.rankings import JudgedRankings
from divaeval.settings import Order, Settings
from divaeval.topics import sort_topics


def _order_rows(
    run: Run, rows: np.ndarray, topic_code: np.ndarray, order: Order
) -> np.ndarray | None:
    """Permutation of ``rows`` (rows of ``run``; ``topic_code`` their qrels topic codes)
    grouping topics (by code) and ranking documents within each topic; None where ``rows``
    are in that order as they stand (the usual run file: no permutation to apply)."""
    if len(rows) == 0:  # no topic in common with the qrels: nothing to order
        return None
    if order == "file":
        return np.argsort(topic_code, kind="stable")
    if order == "rank":
        ranks = parse_ranks(run, rows)
        by_rank = np.lexsort((ranks, topic_code))
        same = (np.diff(topic_code[by_rank]) == 0) & (np.diff(ranks[by_rank]) == 0)
        if same.any():
            i = int(np.flatnonzero(same)[0])
            first, row = int(rows[by_rank[i]]), int(rows[by_rank[i + 1]])
            raise DataError(
                f"duplicate rank {ranks[by_rank[i]]} for topic "
                f"{run.topics[run.topic_codes[first]]} (also at line {run.line_of(first)}); "
                "--order rank needs distinct ranks",
                file=run.path,
                line=run.line_of(row),
            )
        return by_rank
    every_row = len(rows) == len(run.score)  # (rows is then 0, 1, ...: no copies below)
    scores = run.score if every_row else run.score[rows]
    if order != "score-file" and native.kernels is not None:  # the usual run: in one pass
        tied_order = np.empty(len(rows), dtype=np.int64)
        words = np.ascontiguousarray(run.doc_words, dtype=np.uint64)
        answer = native.kernels.score_order(
            topic_code, np.ascontiguousarray(scores),
            run.doc_codes if every_row else run.doc_codes[rows], words, len(rows), len(words),
            words.shape[1], order == "score-docno-asc", tied_order,
        )  # fmt: skip
        if answer:
            return None if answer == 1 else tied_order
    if order == "score-file":  # a stable sort by score: ties keep their file order
        return np.lexsort((np.arange(len(rows)), -scores, topic_code))
    # Run files are usually grouped by topic and sorted by score: a stable sort by topic (fast
    # on such runs) is then the whole permutation; otherwise sort by (topic, -score).
    perm = None
    s_sorted, t_sorted = scores, topic_code
    if not (topic_code[1:] >= topic_code[:-1]).all():  # not grouped in topic code order
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
        perm = np.arange(len(rows)) if perm is None else perm
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


def _positions_and_repeats(
    topic: np.ndarray, doc: np.ndarray, n_docs: int, drop_repeats: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(repeated, position) of rows in ranking order grouped by topic, their docno codes
    ``doc`` in [0, ``n_docs``): [K] bool, the (topic, doc) pair occurred on an earlier row
    (every copy after the first); [K] int64, the 0-based rank of the row within its topic,
    counting every row, or with ``drop_repeats`` only first copies (a repeat's is -1)."""
    repeated = np.zeros(len(topic), dtype=bool)
    position = np.empty(len(topic), dtype=np.int64)
    if native.kernels is not None:  # a stamp per docno, in one pass (no sort)
        native.kernels.rank_positions(
            topic, doc, len(topic), n_docs, drop_repeats, repeated, position
        )
        return repeated, position
    pair = topic * n_docs + doc
    if has_repeats(pair, (int(topic.max(initial=0)) + 1) * n_docs):
        by_pair = np.argsort(pair, kind="stable")
        repeated[by_pair[1:]] = pair[by_pair[1:]] == pair[by_pair[:-1]]
    counted = ~repeated if drop_repeats else np.ones(len(topic), dtype=bool)
    position[~counted] = -1
    topics = topic[counted]
    start = np.r_[True, topics[1:] != topics[:-1]]
    first = np.flatnonzero(start)
    counts = np.diff(np.r_[first, len(topics)])
    position[counted] = np.arange(len(topics)) - np.repeat(first, counts)
    return repeated, position


def _run_topic_codes(run: Run, index: QrelsIndex, compat: str | None = None) -> np.ndarray:
    """Qrels topic code of each of the run's distinct topics (-1: not in the qrels); with
    ``compat="ndeval"`` ids are matched as ndeval's numbers (:meth:`QrelsIndex.topic_code`)."""
    return np.array([index.topic_code(t, compat) for t in run.topics], dtype=np.int64)


class _Ranking(NamedTuple):
    """A run's rows in ranking order, each kept one with its 0-based rank in its topic."""

    topic: np.ndarray  # [K] int64: the qrels topic code of each kept row (ascending)
    row: np.ndarray  # [K] int64: the run's row
    position: np.ndarray  # [K] int64: its rank within its topic
    run_topics: np.ndarray  # the qrels topic codes of the run's topics, ascending
    dropped: int  # repeated docnos dropped (--dedupe first)


def judge_run(
    run: Run,
    index: QrelsIndex,
    settings: Settings,
    *,
    topics: np.ndarray | None = None,
    warn_duplicates: bool = True,
) -> JudgedRankings:
    """Order, truncate and check ``run``, and join it with the qrels (see the module doc).

    ``topics``: the qrels topic codes to evaluate (ascending; default: the run's topics, or
    every qrels topic with ``settings.complete``), every topic the run ranks among them.
    ``warn_duplicates=False`` leaves the warning about dropped repeated docnos to the caller
    (``dropped_duplicates`` counts them)."""
    ranking = _ranking(run, index, settings, warn_duplicates)
    if topics is not None:
        eval_codes = np.asarray(topics, dtype=np.int64)
    elif settings.complete:
        eval_codes = np.arange(len(index.topics))
    else:
        eval_codes = ranking.run_topics
    row_of_code = np.full(len(index.topics), -1, dtype=np.int64)
    row_of_code[eval_codes] = np.arange(len(eval_codes))
    if topics is not None and (row_of_code[ranking.run_topics] < 0).any():
        # (a ranked topic outside them has no row: its cells would land in another topic's)
        raise ValueError("judge_run: topics must include every topic the run ranks")

    n_topics = len(eval_codes)
    depth = int(ranking.position.max(initial=-1)) + 1
    if native.kernels is not None and index.judged_row_of_key is not None:
        cells = _cells_compiled(run, index, ranking, row_of_code, n_topics, depth)
    else:
        cells = _cells(run, index, ranking, row_of_code, n_topics, depth)
    scores, grades, judged, doc_rows, length = cells
    in_run = np.zeros(n_topics, dtype=bool)
    in_run[row_of_code[ranking.run_topics]] = True
    return JudgedRankings(
        run_name=run.name,
        material=index.material(eval_codes),
        grades=grades.reshape(n_topics, depth, index.width),
        judged=judged.reshape(n_topics, depth),
        length=length,
        in_run=in_run,
        settings=settings,
        scores=scores.reshape(n_topics, depth),
        doc_rows=doc_rows.reshape(n_topics, depth),
        topic_codes=eval_codes,
        dropped_duplicates=ranking.dropped,
    )


#: (scores, grades, judged, doc_rows) of [T * D] cells (grades: [T * D, S]), and length [T]
_Cells = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _cells(
    run: Run, index: QrelsIndex, ranking: _Ranking, row_of_code: np.ndarray, n_topics: int,
    depth: int,
) -> _Cells:  # fmt: skip
    """The ranked documents' scores and judgments in flat [topic row x rank] cells (the rows
    of ``row_of_code``), and the ranked documents of each topic."""
    # the qrels docno code of each ranked document (-1: unknown to the qrels)
    qdoc = index.doc_table.find(run.doc_words, run.doc_hashes)[run.doc_codes[ranking.row]]
    known = np.flatnonzero(qdoc >= 0)  # docnos the qrels know (for any topic)
    jrow = index.judged_rows(ranking.topic[known], qdoc[known])
    hit = jrow < len(index.judged_grades) - 1
    known, jrow = known[hit], jrow[hit]  # the judged documents, and their qrels rows
    trow = row_of_code[ranking.topic]
    cell = trow * depth + ranking.position  # flat [T, D] cell of each ranked document
    scores: np.ndarray = np.zeros(n_topics * depth, dtype=np.float64)
    scores[cell] = run.score[ranking.row]
    grades: np.ndarray = np.zeros((n_topics * depth, index.width), dtype=np.int16)
    put_rows(grades, cell[known], index.judged_grades, jrow)
    judged: np.ndarray = np.zeros(n_topics * depth, dtype=bool)
    judged[cell[known]] = True
    doc_rows: np.ndarray = np.full(n_topics * depth, -1, dtype=np.int64)
    doc_rows[cell[known]] = jrow
    length = np.bincount(trow, minlength=n_topics).astype(np.int64)
    return scores, grades, judged, doc_rows, length


def _cells_compiled(
    run: Run, index: QrelsIndex, ranking: _Ranking, row_of_code: np.ndarray, n_topics: int,
    depth: int,
) -> _Cells:  # fmt: skip
    """:func:`_cells` in one compiled pass (judged_cells), where the qrels index has its
    direct (topic, docno) table: the 9 TREC 2012 runs, 4.6 -> 1.5 ms."""
    assert native.kernels is not None and index.judged_row_of_key is not None
    found = index.doc_table.find(run.doc_words, run.doc_hashes)  # [U]: qrels docno code or -1
    scores = np.zeros(n_topics * depth, dtype=np.float64)
    grades = np.zeros((n_topics * depth, index.width), dtype=np.int16)
    judged = np.zeros(n_topics * depth, dtype=bool)
    doc_rows = np.full(n_topics * depth, -1, dtype=np.int64)
    length = np.zeros(n_topics, dtype=np.int64)
    judged_grades = np.ascontiguousarray(index.judged_grades, np.int16)
    native.kernels.judged_cells(
        np.ascontiguousarray(ranking.topic, np.int64), np.ascontiguousarray(ranking.row, np.int64),
        np.ascontiguousarray(ranking.position, np.int64), len(ranking.row),
        np.ascontiguousarray(row_of_code, np.int64), len(row_of_code),
        np.ascontiguousarray(run.doc_codes, np.int64), np.ascontiguousarray(run.score, np.float64),
        len(run.score), np.ascontiguousarray(found, np.int64), len(found),
        index.judged_row_of_key, len(index.judged_row_of_key), index.n_docs,
        judged_grades, len(judged_grades), index.width, depth, n_topics,
        scores, grades, judged, doc_rows, length,
    )  # fmt: skip
    return scores, grades, judged, doc_rows, length


def _ranking(run: Run, index: QrelsIndex, settings: Settings, warn_duplicates: bool):
    """The :class:`_Ranking` of ``run``'s rows of qrels topics: in ranking order
    (``settings.ranking_order``), repeated docnos dropped or refused (``settings.dedupe``), cut
    at ``settings.depth``."""
    topic_code = _run_topic_codes(run, index, settings.compat)[run.topic_codes]
    rows = np.arange(len(topic_code))
    run_only = topic_code < 0
    every_row = not run_only.any()  # (rows is then 0, 1, ...: rows[perm] is perm)
    if not every_row:
        rows = rows[~run_only]
        topic_code = topic_code[rows]
    perm = _order_rows(run, rows, topic_code, settings.ranking_order)
    topic_sorted = topic_code if perm is None else topic_code[perm]
    rows_sorted = rows if perm is None else perm if every_row else rows[perm]
    n_docs = max(len(run.doc_words), 1)
    doc_sorted = run.doc_codes if perm is None and every_row else run.doc_codes[rows_sorted]
    drop = settings.dedupe == "first"
    duplicate, position = _positions_and_repeats(topic_sorted, doc_sorted, n_docs, drop)
    keep = np.ones(len(rows), dtype=bool)
    dropped = 0
    if drop and duplicate.any():
        dropped = int(duplicate.sum())
        if warn_duplicates:
            warn(f"{dropped} repeated docnos dropped (kept the highest-ranked copy)", file=run.path)
        keep &= ~duplicate
    if settings.depth is not None:
        keep &= position < settings.depth
    if settings.dedupe == "error" and (duplicate & keep).any():
        i = int(np.flatnonzero(duplicate & keep)[0])
        same = (topic_sorted == topic_sorted[i]) & (doc_sorted == doc_sorted[i])
        first = int(np.flatnonzero(same & keep)[0])
        row_first, row = int(rows_sorted[first]), int(rows_sorted[i])
        raise DataError(
            f"duplicate docno {run.docno(row)} for topic {run.topics[run.topic_codes[row]]} "
            f"(also at line {run.line_of(row_first)}); use --dedupe first to keep the "
            "first copy",
            file=run.path,
            line=run.line_of(row),
        )
    # every order groups topics by ascending code: distinct topics without a sort
    run_topics = topic_sorted[np.r_[True, topic_sorted[1:] != topic_sorted[:-1]][: len(rows)]]
    if keep.all():
        return _Ranking(topic_sorted, rows_sorted, position, run_topics, dropped)
    return _Ranking(topic_sorted[keep], rows_sorted[keep], position[keep], run_topics, dropped)


def run_only_topics(run: Run, index: QrelsIndex, compat: str | None = None) -> list[str]:
    """Topics of ``run`` that the qrels do not judge, sorted."""
    return sort_topics(run.topics[_run_topic_codes(run, index, compat) < 0])


def topics_matched_as_numbers(run: Run, index: QrelsIndex, compat: str | None) -> list[str]:
    """``run topic = qrels topic`` for each of the run's topics that matches a qrels topic
    only as ndeval's number (under ``compat="ndeval"``; none otherwise), sorted."""
    if compat != "ndeval":
        return []
    codes = _run_topic_codes(run, index, compat).tolist()
    code_of = dict(zip(run.topics.tolist(), codes, strict=True))
    return [
        f"{topic} = {index.topics[code_of[topic]]}"
        for topic in sort_topics(run.topics)
        if code_of[topic] >= 0 and index.topics[code_of[topic]] != topic
    ]


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
