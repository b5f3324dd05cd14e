"""TREC run files: ``topic Q0 docno rank score tag`` (trec_eval's results format).

Whitespace-separated, at least 6 fields (later fields are ignored), CRLF accepted, blank and
``#`` comment lines skipped, gzip and stdin supported. Topic ids and docnos are strings, kept
exactly as written (``0101`` keeps its leading zero). The score is read as an IEEE double,
correctly rounded (never narrowed to float32, unlike trec_eval 9), and must be finite: ``inf``,
``nan`` and values beyond a double (``1e999``) are errors, as they have no place in a ranking.
The rank column is kept as text and only checked when ``--order rank`` uses it: an integer in
the 64-bit range (a larger one is an error, never wrapped around).

A :class:`Run` holds numpy arrays (topic and docno codes, scores), read by the vectorised
tokenizer of :mod:`divaeval.io._tokens` (or, for a large plain file, by pyarrow's CSV reader,
:mod:`divaeval.io._arrow`, with identical results); :attr:`Run.frame` builds a pandas view on
request.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError, shown
from divaeval.io._arrow import split_table
from divaeval.io._text import Source, read_source, text_column
from divaeval.io._tokens import (
    Fields,
    decode,
    integer_tokens,
    parse_floats,
    parse_integers,
    split_fields,
)

RUN_COLUMNS = "topic Q0 docno rank score tag"


@dataclass(eq=False)
class Run:
    """One parsed run file; row ``i`` of every array is the ``i``-th line of the file (blank
    and comment lines aside), so :meth:`line_of` locates it."""

    name: str
    tag: str
    source: Source
    topic_codes: np.ndarray  # [N] int64: index into ``topics``
    topics: np.ndarray  # [T] str (object): distinct topic ids
    doc_codes: np.ndarray  # [N] int64: index into ``doc_words``
    doc_words: np.ndarray  # [U, W] uint64: distinct docnos (see divaeval.io._tokens)
    score: np.ndarray  # [N] float64
    doc_hashes: np.ndarray | None = field(default=None, repr=False)  # of doc_words, if known
    _frame: object = field(default=None, repr=False)
    _rank_words: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def empty(cls, name: str, tag: str) -> Run:
        """A run of no lines (the rankings of topics a run lacks, scored with ``-c``)."""
        return cls(
            name=tag,
            tag=tag,
            source=Source(name=name, data=b""),
            topic_codes=np.zeros(0, dtype=np.int64),
            topics=np.zeros(0, dtype=object),
            doc_codes=np.zeros(0, dtype=np.int64),
            doc_words=np.zeros((0, 1), dtype=np.uint64),
            score=np.zeros(0, dtype=np.float64),
        )

    @property
    def path(self) -> str:
        return self.source.name

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)

    def __len__(self) -> int:
        return len(self.score)

    @property
    def rank_words(self) -> np.ndarray:
        """[N, W] uint64: the rank column's tokens (split again on first use: only
        ``--order rank`` and :attr:`frame` read it)."""
        if self._rank_words is None:
            self._rank_words = split_fields(self.source.data, (3,)).columns[3]
        return self._rank_words

    def docno(self, row: int) -> str:
        """The docno of ``row`` as text."""
        return decode(self.doc_words[self.doc_codes[row] : self.doc_codes[row] + 1])[0]

    @property
    def frame(self):
        """pandas DataFrame with columns ``topic``, ``docno``, ``rank`` (str), ``score``
        (float64) and ``row``, in file order (built on first use)."""
        if self._frame is None:
            import pandas as pd

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


def _parse_scores(source: Source, fields: Fields) -> np.ndarray:
    """The score column (words) as float64; a score that is not a finite number is an error."""
    scores, bad = parse_floats(fields.columns[4])
    if bad is not None:
        raise _fail_row(source, bad, f"score {shown(fields.text(4, bad))} is not a number")
    not_finite = ~np.isfinite(scores)
    if not_finite.any():
        row = int(np.argmax(not_finite))
        text = fields.text(4, row)
        spelled = text.lstrip("+-").lower() in ("inf", "infinity", "nan")
        why = "" if spelled else " (beyond the range of a double)"
        raise _fail_row(source, row, f"score {shown(text)} is not a finite number{why}")
    return scores


def read_run(path: str, *, text: str | bytes | None = None, first_line: int = 1) -> Run:
    """Parse a TREC run file (``-`` = stdin; ``text``: its content in memory, named ``path``,
    its first line numbered ``first_line``)."""
    source = read_source(path, what="run", text=text, first_line=first_line)
    fields = split_table(
        source.data,
        (),
        codes=(0, 2),
        numbers=(4,),
        first_row=(5,),
        min_fields=6,
        release_memory=False,  # reused by the next read (block) of a run
    )
    source.set_row_lines(fields)
    if fields.n_rows == 0:
        raise DataError("run file has no lines", file=source.name)

    short = fields.row_count < 6
    if short.any():
        row = int(np.argmax(short))
        found = int(fields.row_count[row])
        fifth = fields.text(4, row) if found >= 5 else ""
        raise _fail_row(source, row, too_few_columns(found, fifth, first=row == 0))

    scores = fields.numbers.get(4)  # parsed (and finite) when pyarrow read the file
    if scores is None:
        scores = _parse_scores(source, fields)

    topic_codes, topic_words, _ = fields.factorize(0)
    doc_codes, doc_words, doc_hashes = fields.factorize(2)
    tag = fields.first_row[5]
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
