"""One run file as ``divaeval check`` sees it (:class:`RunLines`): every non-blank,
non-comment line's fields as codes and parsed numbers, with its line number, read by the run
readers' own tokenizer and parsers (:func:`read_run_lines`); and trec_eval's order of its lines
(:func:`trec_order`), which the rules check and ``--fix`` writes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from divaeval.io._numbers import parse_floats, parse_integers
from divaeval.io._text import padded_pieces
from divaeval.io._tokens import Fields, split_pieces
from divaeval.io._words import byte_ranks, decode, factorize


@dataclass
class RunLines:
    """One run file as the rules see it (rows = non-blank, non-comment lines)."""

    name: str
    n_rows: int
    line: np.ndarray  # [R] 1-based line numbers
    fields: np.ndarray  # [R] field counts
    ok: np.ndarray  # [R] bool: 6 fields or more
    topic_code: np.ndarray  # [R] (rows without 6 fields: meaningless)
    topics: np.ndarray  # [T] str
    doc_code: np.ndarray  # [R]
    docnos: np.ndarray  # [D] str
    doc_words: np.ndarray  # [R, W] the docno words (ties are broken by their byte order)
    rank: np.ndarray  # [R] int64
    rank_ok: np.ndarray  # [R] bool
    rank_words: np.ndarray
    score: np.ndarray  # [R] float64
    score_ok: np.ndarray  # [R] bool
    score_text: np.ndarray
    q0: np.ndarray  # [R] str
    tag_code: np.ndarray  # [R]
    tags: np.ndarray  # [G] str
    words: dict[int, np.ndarray] = field(repr=False, default_factory=dict)


def read_run_lines(path: str) -> tuple[str, RunLines | None]:
    """(the file's name in messages, its rows; None when it has none)."""
    pieces = padded_pieces(path, what="run")
    fields = Fields.joined(list(split_pieces(pieces, (0, 1, 2, 3, 4, 5))))
    name = "<stdin>" if path == "-" else path
    n = fields.n_rows
    if n == 0:
        return name, None
    starts, first_lines = fields.lines.starts, fields.lines.first_lines
    sizes = np.diff(np.append(starts, n))
    line = np.arange(n) - np.repeat(starts, sizes) + np.repeat(first_lines, sizes)
    columns = fields.columns
    ok = fields.row_count >= 6
    topic_code, topic_words = factorize(columns[0])
    doc_code, doc_words = factorize(columns[2])
    q0_code, q0_words = factorize(columns[1])
    tag_code, tag_words = factorize(columns[5])
    rank, rank_ok = parse_integers(columns[3])
    score, score_ok = _scores(columns[4])
    return name, RunLines(
        name=name,
        n_rows=n,
        line=line,
        fields=fields.row_count,
        ok=ok,
        topic_code=topic_code,
        topics=decode(topic_words),
        doc_code=doc_code,
        docnos=decode(doc_words),
        doc_words=columns[2],
        rank=rank,
        rank_ok=rank_ok & ok,
        rank_words=columns[3],
        score=score,
        score_ok=score_ok & ok,
        score_text=columns[4],
        q0=decode(q0_words)[q0_code],
        tag_code=tag_code,
        tags=decode(tag_words),
    )


def _scores(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, finite) of the score tokens, read by the run reader's parser; where it
    stops at a token that is not a number (it names the first only), every token it could
    not read fast is read once more by Python's ``float``, as the parser reads a long token
    (digit-group underscores refused)."""
    values, first_bad = parse_floats(words)
    if first_bad is not None:
        for row, text in enumerate(decode(words).tolist()):
            if "_" in text or not np.isfinite(values[row]):
                try:
                    values[row] = float(text) if "_" not in text else np.nan
                except ValueError:
                    values[row] = np.nan
    with np.errstate(invalid="ignore"):
        return values, np.isfinite(values)


def first_of_groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first index of each key's group, inverse, counts) for int64 ``keys`` in order."""
    _, first, inverse, counts = np.unique(
        keys, return_index=True, return_inverse=True, return_counts=True
    )
    return first, inverse.reshape(-1), counts


def trec_order(run: RunLines, rows: np.ndarray) -> np.ndarray:
    """``rows`` grouped by topic (code) and in trec_eval's order within each: score
    descending, ties by docno descending (byte order, as trec_eval's ``strcmp``; only the
    tied docnos are ranked)."""
    perm = rows[np.lexsort((-run.score[rows], run.topic_code[rows]))]
    topic, score = run.topic_code[perm], run.score[perm]
    tie_next = (topic[1:] == topic[:-1]) & (score[1:] == score[:-1])
    if tie_next.any():
        in_tie = np.zeros(len(perm), dtype=bool)
        in_tie[:-1] |= tie_next
        in_tie[1:] |= tie_next
        group = np.cumsum(np.r_[True, ~tie_next])  # equal (topic, score) share a group
        positions = np.flatnonzero(in_tie)
        doc_rank = byte_ranks(run.doc_words[perm[positions]])
        perm[positions] = perm[positions][np.lexsort((-doc_rank, group[positions]))]
    return perm


def score_text(run: RunLines, row: int) -> str:
    return decode(run.score_text[row : row + 1])[0]
