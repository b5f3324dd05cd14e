"""Diversity qrels: ``topic subtopic docno grade [inf|nav]``.

- Grades are integers; negative grades (the Web Track's ``-2`` spam label) mean judged and not
  relevant. NTCIREVAL's Dqrels labels ``L0`` … ``L9`` are read as grades 0 … 9, so a Dqrels file
  is a valid qrels file. An integral decimal (``2.0``) is read as that integer.
- An optional 5th column gives the subtopic's intent type (``inf`` or ``nav``).
- Ad hoc qrels (``topic 0 docno grade``) are single-aspect topics.
- A repeated ``(topic, subtopic, docno)`` is an error naming both lines (ndeval silently
  double-counts such lines in MAP-IA; NTCIREVAL in the global gain).

A :class:`Qrels` holds numpy arrays read by the vectorised tokenizer of
:mod:`divaeval.io._tokens`; :attr:`Qrels.frame` builds a pandas view on request.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError
from divaeval.io._text import Source, read_source
from divaeval.io._tokens import (
    as_bytes,
    decode,
    factorize,
    integer_tokens,
    parse_floats,
    split_fields,
)

QRELS_COLUMNS = "topic subtopic docno grade [inf|nav]"
INTENT_TYPES = ("inf", "nav")
GRADE_LIMIT = 32767  # grades are stored as int16 in judged rankings
TYPE_NAMES = np.array(["", "inf", "nav"], dtype=object)  # by type code


@dataclass
class Qrels:
    """Parsed qrels; row ``i`` of every array is the ``i``-th judgment line of the file."""

    source: Source
    topic_codes: np.ndarray  # [N] int64: index into ``topic_names``
    topic_names: np.ndarray  # [T] str (object): distinct topic ids
    subtopic_codes: np.ndarray  # [N] int64: index into ``subtopic_names``
    subtopic_names: np.ndarray  # [K] str (object): distinct subtopic ids
    doc_codes: np.ndarray  # [N] int64: index into ``doc_words``
    doc_words: np.ndarray  # [U, W] uint64: distinct docnos (see divaeval.io._tokens)
    grade: np.ndarray  # [N] int64
    type_code: np.ndarray  # [N] int8: 0 = no type given, 1 = inf, 2 = nav (TYPE_NAMES)
    _frame: object = field(default=None, repr=False)

    @property
    def path(self) -> str:
        return self.source.name

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)

    def __len__(self) -> int:
        return len(self.grade)

    def topics(self) -> list[str]:
        from divaeval.topics import sort_topics

        return sort_topics(self.topic_names)

    @property
    def frame(self):
        """pandas DataFrame with columns topic, subtopic, docno (str), grade (int64), type
        (``inf``/``nav``/``""``) and row, in file order (built on first use)."""
        if self._frame is None:
            import pandas as pd

            self._frame = pd.DataFrame(
                {
                    "topic": self.topic_names[self.topic_codes],
                    "subtopic": self.subtopic_names[self.subtopic_codes],
                    "docno": decode(self.doc_words)[self.doc_codes],
                    "grade": self.grade,
                    "type": TYPE_NAMES[self.type_code],
                    "row": np.arange(len(self), dtype=np.int64),
                }
            )
        return self._frame


def _fail(source: Source, row: int, message: str) -> DataError:
    return DataError(message, file=source.name, line=source.line_of(row))


def _word(text: bytes) -> np.uint64:
    return np.frombuffer(text.ljust(8, b"\0"), dtype="<u8")[0].astype(np.uint64)


def _intent_types(source: Source, fields) -> np.ndarray:
    """Type code of every row (0 where column 5 is absent); an unknown type is an error."""
    words = fields.columns[4]
    short = np.all(words[:, 1:] == 0, axis=1)
    code = np.zeros(len(words), dtype=np.int8)
    code[short & (words[:, 0] == _word(b"inf"))] = 1
    code[short & (words[:, 0] == _word(b"nav"))] = 2
    bad = (fields.row_count == 5) & (code == 0)
    if bad.any():
        row = int(np.argmax(bad))
        raise _fail(
            source, row, f"intent type {fields.text(4, row)!r} in column 5 is not 'inf' or 'nav'"
        )
    return code


def _parse_grades(source: Source, fields) -> np.ndarray:
    """Grades as int64: integers, NTCIR ``L<k>`` labels (all or none), or integral decimals
    (``2.0``, as the C parser took them); |grade| <= GRADE_LIMIT."""
    words = fields.columns[3]
    chars = as_bytes(words).view(np.uint8).reshape(len(words), -1)
    ntcir = chars[:, 0] == ord("L")
    if ntcir.any():
        ntcir &= _digits_after_first(chars)
        if not ntcir.all():
            row = int(np.argmax(~ntcir))
            raise _fail(
                source, row, f"grade {fields.text(3, row)!r} mixes with NTCIR-style L<k> grades"
            )
        digits = np.ascontiguousarray(np.pad(chars[:, 1:], ((0, 0), (0, 1))))
        grades = digits.view(f"S{chars.shape[1]}").reshape(-1).astype(np.float64)
    else:
        integral = integer_tokens(words)
        if integral.all() and words.shape[1] == 1:  # at most 8 characters: exact in int64
            grades = _small_integers(chars)
        else:
            grades, unparsable = parse_floats(words)
        if not integral.all():
            # Integral decimals pass when every grade is a number, integral and in range.
            whole = np.isfinite(grades) & (grades == np.round(grades))
            fine = unparsable is None and whole.all() and (np.abs(grades) <= GRADE_LIMIT).all()
            if not fine:
                row = int(np.argmax(~integral))
                raise _fail(source, row, f"grade {fields.text(3, row)!r} is not an integer")
    too_big = np.abs(grades) > GRADE_LIMIT
    if too_big.any():
        row = int(np.argmax(too_big))
        raise _fail(
            source,
            row,
            f"grade {fields.text(3, row)!r} is out of range (|grade| <= {GRADE_LIMIT})",
        )
    return grades.astype(np.int64)


def _small_integers(chars: np.ndarray) -> np.ndarray:
    """Values of ``[+-]?[0-9]+`` tokens of at most 8 bytes (``chars``: [N, 8] uint8, zero
    padded), as float64 (exact), without a text-to-number cast."""
    negative = chars[:, 0] == ord("-")
    value = np.zeros(len(chars), dtype=np.int64)
    for c in range(chars.shape[1]):
        digit = chars[:, c].astype(np.int64) - ord("0")
        is_digit = (digit >= 0) & (digit <= 9)
        value = np.where(is_digit, value * 10 + digit, value)
    return np.where(negative, -value, value).astype(np.float64)


def _digits_after_first(chars: np.ndarray) -> np.ndarray:
    """[N] bool: bytes 2.. of each token are one or more ASCII digits."""
    rest = chars[:, 1:]
    digit = (rest >= ord("0")) & (rest <= ord("9"))
    return np.all(digit | (rest == 0), axis=1) & digit[:, 0] if rest.shape[1] else digit[:, 0]


def read_qrels(path: str, *, text: str | bytes | None = None) -> Qrels:
    """Parse a (diversity or ad hoc) qrels file or an NTCIREVAL Dqrels file (``text``: its
    content in memory, named ``path``)."""
    source = read_source(path, what="qrels", text=text)
    fields = split_fields(source.data, (0, 1, 2, 3, 4))
    source.set_row_lines(fields.row_line)
    if fields.n_rows == 0:
        raise DataError("qrels file has no judgments", file=source.name)

    for bad in (fields.row_count < 4, fields.row_count > 5):
        if bad.any():
            row = int(np.argmax(bad))
            found = int(fields.row_count[row])
            message = f"expected 4 or 5 columns ({QRELS_COLUMNS}), found {found}"
            if found == 6 and row == 0:
                message += "; this looks like a run file: divaeval takes RUN... QRELS (qrels last)"
            raise _fail(source, row, message)

    type_code = _intent_types(source, fields)
    grades = _parse_grades(source, fields)
    topic_codes, topic_words = factorize(fields.columns[0])
    subtopic_codes, subtopic_words = factorize(fields.columns[1])
    doc_codes, doc_words = factorize(fields.columns[2])
    qrels = Qrels(
        source=source,
        topic_codes=topic_codes,
        topic_names=decode(topic_words),
        subtopic_codes=subtopic_codes,
        subtopic_names=decode(subtopic_words),
        doc_codes=doc_codes,
        doc_words=doc_words,
        grade=grades,
        type_code=type_code,
    )
    _check_duplicates(qrels)
    return qrels


def _check_duplicates(qrels: Qrels) -> None:
    """A repeated (topic, subtopic, docno) is an error at its second line, naming the first."""
    pair = qrels.topic_codes * len(qrels.subtopic_names) + qrels.subtopic_codes
    n_pairs = len(qrels.topic_names) * len(qrels.subtopic_names)
    if n_pairs * len(qrels.doc_words) >= 2**62:  # renumber the pairs densely first
        _, pair = np.unique(pair, return_inverse=True)
        pair = pair.reshape(-1)
    key = pair * len(qrels.doc_words) + qrels.doc_codes
    ordered = np.sort(key)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(key, kind="stable")
    same = key[order[1:]] == key[order[:-1]]
    repeated = np.zeros(len(key), dtype=bool)
    repeated[order[1:][same]] = True
    repeated[order[:-1][same]] = True
    a = int(np.argmax(repeated))  # the first line of a repeated key, and its next copy
    b = int(np.flatnonzero(key == key[a])[1])
    line_a = qrels.line_of(a)
    what = (
        f"topic {qrels.topic_names[qrels.topic_codes[a]]} "
        f"subtopic {qrels.subtopic_names[qrels.subtopic_codes[a]]} "
        f"docno {decode(qrels.doc_words[qrels.doc_codes[a] : qrels.doc_codes[a] + 1])[0]}"
    )
    if qrels.grade[a] != qrels.grade[b]:
        message = (
            f"conflicting judgments for {what}: grade {qrels.grade[b]} here, "
            f"grade {qrels.grade[a]} at line {line_a}"
        )
    else:
        message = f"duplicate judgment for {what} (also at line {line_a})"
    raise _fail(qrels.source, b, message)
