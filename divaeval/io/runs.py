"""TREC run files: ``topic Q0 docno rank score tag`` (trec_eval's results format).

Whitespace-separated, at least 6 fields (later fields are ignored), CRLF accepted, blank and
``#`` comment lines skipped, gzip and stdin supported. Topic ids and docnos are strings, kept
exactly as written (``0101`` keeps its leading zero). The score is read as an IEEE double,
correctly rounded (never narrowed to float32, unlike trec_eval 9), and must be finite: ``inf``,
``nan`` and values beyond a double (``1e999``) are errors, as they have no place in a ranking.
The rank column is kept as text and only checked when ``--order rank`` uses it: an integer in
the 64-bit range (a larger one is an error, never wrapped around).

A :class:`Run` holds numpy arrays (topic and docno codes, scores), read by the vectorised
tokenizer of :mod:`divaeval.io._tokens`; :attr:`Run.frame` builds a pandas view on request.
:func:`run_blocks` reads a run in blocks of whole topics, so that memory follows the block.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError, shown
from divaeval.io._numbers import integer_tokens, parse_integers
from divaeval.io._text import Source, display_name, padded_pieces, text_column
from divaeval.io._tokens import Fields, split_pieces
from divaeval.io._words import decode, factorize_with_keys, row_changes

RUN_COLUMNS = "topic Q0 docno rank score tag"


@dataclass(eq=False)
class Run:
    """One parsed run file (or a block of whole topics of one); row ``i`` of every array is
    the ``i``-th line of the file that is not blank or a comment, so :meth:`line_of` locates
    it."""

    name: str
    tag: str
    source: Source
    topic_codes: np.ndarray  # [N] int64: index into ``topics``
    topics: np.ndarray  # [T] str (object): distinct topic ids
    doc_codes: np.ndarray  # [N] int64: index into ``doc_words``
    doc_words: np.ndarray  # [U, W] uint64: distinct docnos (see divaeval.io._words)
    score: np.ndarray  # [N] float64
    #: [N, W] uint64: the rank column's tokens (parsed only where ``--order rank`` reads them)
    rank_words: np.ndarray = field(repr=False)
    doc_hashes: np.ndarray | None = field(default=None, repr=False)  # of doc_words, if known
    _frame: object = field(default=None, repr=False)

    @classmethod
    def empty(cls, name: str, tag: str) -> Run:
        """A run of no lines (the rankings of topics a run lacks, scored with ``-c``)."""
        return cls(
            name=tag,
            tag=tag,
            source=Source(name),
            topic_codes=np.zeros(0, dtype=np.int64),
            topics=np.zeros(0, dtype=object),
            doc_codes=np.zeros(0, dtype=np.int64),
            doc_words=np.zeros((0, 1), dtype=np.uint64),
            score=np.zeros(0, dtype=np.float64),
            rank_words=np.zeros((0, 1), dtype=np.uint64),
        )

    @property
    def path(self) -> str:
        return self.source.name

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)

    def __len__(self) -> int:
        return len(self.score)

    def docno(self, row: int) -> str:
        """The docno of ``row`` as text."""
        return decode(self.doc_words[self.doc_codes[row] : self.doc_codes[row] + 1])[0]

    @property
    def frame(self):
        """pandas DataFrame with columns ``topic``, ``docno``, ``rank`` (str), ``score``
        (float64) and ``row``, in file order (built on first use)."""
        if self._frame is None:
            import pandas as pd  # (not at the top: only frames built on request need pandas)

            self._frame = pd.DataFrame(
                {
                    "topic": text_column(self.topics[self.topic_codes]),
                    "docno": text_column(decode(self.doc_words)[self.doc_codes]),
                    "rank": text_column(decode(self.rank_words)),
                    "score": self.score,
                    "row": np.arange(len(self), dtype=np.int64),
                }
            )
        return self._frame


def too_few_columns(found: int, fifth: str, *, first: bool) -> str:
    """The message for a run line of ``found`` < 6 fields (``fifth``: its fifth field, if
    any; ``first``: it is the file's first line), with a hint when it looks like qrels."""
    message = f"expected 6 columns ({RUN_COLUMNS}), found {found}"
    if first and (found == 4 or (found == 5 and fifth.lower() in ("inf", "nav"))):
        message += (
            "; this looks like a qrels file: divaeval takes RUN... QRELS "
            "(qrels last, unlike trec_eval)"
        )
    return message


def _fail_row(source: Source, row: int, message: str) -> DataError:
    return DataError(message, file=source.name, line=source.line_of(row))


def _scores(source: Source, fields: Fields) -> np.ndarray:
    """The score column as float64 (parsed as it was split); a score that is not a finite
    number is an error."""
    bad = fields.first_bad_number(SCORE_FIELD)
    if bad is not None and not bad.finite:
        raise _fail_row(source, bad.row, f"score {shown(bad.text)} is not a number")
    if bad is not None:
        spelled = bad.text.lstrip("+-").lower() in ("inf", "infinity", "nan")
        why = "" if spelled else " (beyond the range of a double)"
        raise _fail_row(source, bad.row, f"score {shown(bad.text)} is not a finite number{why}")
    return fields.numbers[SCORE_FIELD]


#: the fields a run reader gathers as words (topic, docno, rank), parses as a number (score),
#: and takes from the first row (tag)
RUN_FIELDS = (0, 2, 3)
SCORE_FIELD = 4
TAG_FIELD = 5
FIRST_ROW = (SCORE_FIELD, TAG_FIELD)  # (the score: a hint when the first line is short)


def read_run(path: str, *, text: str | bytes | None = None) -> Run:
    """Parse a TREC run file (``-`` = stdin; ``text``: its content in memory, named
    ``path``)."""
    pieces = padded_pieces(path, what="run", text=text)
    parts = list(split_pieces(pieces, RUN_FIELDS, FIRST_ROW, numbers=(SCORE_FIELD,)))
    return run_of(display_name(path), Fields.joined(parts))


def run_blocks(path: str, *, block_bytes: int) -> Iterator[Run]:
    """The run file ``path`` in blocks of whole topics of about ``block_bytes`` of text each
    (a topic larger than that makes its block larger: a topic is never split), so that memory
    follows the block, not the file. Each block is a :class:`Run` whose rows are numbered with
    the lines of the file and whose tag is the file's (its first row's). A run whose lines are
    not grouped by topic is detected by the caller, which sees a topic in two blocks."""
    name = display_name(path)
    held: list[Fields] = []  # rows read and not yet in a block: the last topic, and pieces
    first_row = None
    yielded = False
    pieces = padded_pieces(path, what="run")
    for fields in split_pieces(pieces, RUN_FIELDS, FIRST_ROW, numbers=(SCORE_FIELD,)):
        if not fields.n_rows:
            continue
        first_row = first_row or fields.first_row
        held.append(fields)
        if sum(part.n_bytes for part in held) < block_bytes:
            continue
        rows = Fields.joined(held)
        cuts = _topic_cuts(rows.columns[0], block_bytes * rows.n_rows // max(rows.n_bytes, 1))
        for begin, end in zip([0, *cuts], cuts, strict=False):
            yield run_of(name, rows.rows(begin, end), first_row if yielded else None)
            yielded = True
        held = [rows.rows(cuts[-1], rows.n_rows) if cuts else rows]
    if held:
        yield run_of(name, Fields.joined(held), first_row if yielded else None)
    elif not yielded:
        raise DataError("run file has no lines", file=name)


def _topic_cuts(topics: np.ndarray, rows_per_block: int) -> list[int]:
    """The rows where blocks of whole topics end: each at the first topic change after at least
    ``rows_per_block`` rows of its block (none in the last topic, which may go on)."""
    changes = np.flatnonzero(row_changes(topics)) + 1
    cuts: list[int] = []
    at = 0
    while True:
        found = int(np.searchsorted(changes, at + max(rows_per_block, 1)))
        if found == len(changes):
            return cuts
        at = int(changes[found])
        cuts.append(at)


def run_of(name: str, fields: Fields, first_row: dict | None = None) -> Run:
    """The :class:`Run` of the rows ``fields`` of the run file ``name``: the whole file, or
    with ``first_row`` (the fields of the file's first row, whose tag it takes) a later block
    of it; ``fields`` is consumed (its word matrices are let go as they are factorized)."""
    source = Source(name, fields.lines)
    if fields.n_rows == 0:
        raise DataError("run file has no lines", file=source.name)

    short = fields.row_count < 6
    if short.any():
        row = int(np.argmax(short))
        found = int(fields.row_count[row])
        first = row == 0 and first_row is None  # the file's first row (not a later block's)
        fifth = (fields.first_row[SCORE_FIELD] or "") if first and found >= 5 else ""
        raise _fail_row(source, row, too_few_columns(found, fifth, first=first))

    scores = _scores(source, fields)
    topic_codes, topic_words, _ = factorize_with_keys(fields.columns.pop(0))
    doc_codes, doc_words, doc_hashes = factorize_with_keys(fields.columns.pop(2))
    tag = (first_row or fields.first_row)[TAG_FIELD]
    assert tag is not None  # every row has 6 fields (checked above)
    return Run(
        name=tag,
        tag=tag,
        source=source,
        topic_codes=topic_codes,
        topics=decode(topic_words),
        doc_codes=doc_codes,
        doc_words=doc_words,
        doc_hashes=doc_hashes,
        score=scores,
        rank_words=fields.columns[3],
    )


def parse_ranks(run: Run, rows: np.ndarray | None = None) -> np.ndarray:
    """The rank column of ``run`` (of ``rows``, default all) as int64, exactly; a rank that is
    not an integer or lies beyond 64 bits is a located error."""
    rows = np.arange(len(run)) if rows is None else rows
    words = run.rank_words[rows]
    ranks, fine = parse_integers(words)
    if not fine.all():
        bad = int(np.argmax(~fine))
        text = shown(decode(words[bad : bad + 1])[0])
        integral = integer_tokens(words[bad : bad + 1])[0]
        why = "is beyond the 64-bit integer range" if integral else "is not an integer"
        raise _fail_row(run.source, int(rows[bad]), f"rank {text} {why}")
    return ranks
