"""Diversity qrels: ``topic subtopic docno grade [inf|nav]``.

- Grades are integers; negative grades (the Web Track's ``-2`` spam label) mean judged and not
  relevant. NTCIREVAL's Dqrels labels ``L0`` … ``L9`` are read as grades 0 … 9, so a Dqrels file
  is a valid qrels file. An integral decimal (``2.0``) is read as that integer.
- An optional 5th column gives the subtopic's intent type (``inf`` or ``nav``). Lines of one
  subtopic may leave it out, but two lines giving different types for one subtopic are an
  error naming both lines (as for conflicting grades).
- Ad hoc qrels (``topic 0 docno grade``) are single-aspect topics.
- A repeated ``(topic, subtopic, docno)`` is an error naming both lines (ndeval silently
  double-counts such lines in MAP-IA; NTCIREVAL in the global gain).

A :class:`Qrels` holds numpy arrays read by the vectorised tokenizer of
:mod:`divaeval.io._tokens`; :attr:`Qrels.frame` builds a pandas view on request.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError, clip, shown, warn
from divaeval.io._numbers import integer_tokens, parse_floats, parse_integers
from divaeval.io._text import Source, display_name, padded_pieces, text_column
from divaeval.io._tokens import Fields, split_pieces
from divaeval.io._words import (
    decode,
    factorize_with_keys,
    has_repeats,
    long_rows,
    long_token,
    renumbered,
    token_bytes,
)
from divaeval.topics import sort_topics

QRELS_COLUMNS = "topic subtopic docno grade [inf|nav]"
QRELS_FIELDS = (0, 1, 2, 3, 4)
INTENT_TYPES = ("inf", "nav")
GRADE_LIMIT = 32767  # grades are stored as int16 in judged rankings
TYPE_NAMES = np.array(["", "inf", "nav"], dtype=object)  # by type code


@dataclass(eq=False)
class Qrels:
    """Parsed qrels; row ``i`` of every array is the ``i``-th judgment line of the file."""

    source: Source
    topic_codes: np.ndarray  # [N] int64: index into ``topic_names``
    topic_names: np.ndarray  # [T] str (object): distinct topic ids (read: in topic order)
    subtopic_codes: np.ndarray  # [N] int64: index into ``subtopic_names``
    subtopic_names: np.ndarray  # [K] str (object): distinct subtopic ids
    doc_codes: np.ndarray  # [N] int64: index into ``doc_words``
    doc_words: np.ndarray  # [U, W] uint64: distinct docnos (see divaeval.io._tokens)
    grade: np.ndarray  # [N] int64
    type_code: np.ndarray  # [N] int8: 0 = no type given, 1 = inf, 2 = nav (TYPE_NAMES)
    #: the hashes of ``doc_words``, ascending, if known (the qrels index's docno table)
    doc_hashes: np.ndarray | None = field(default=None, repr=False)
    #: topic id -> topic code, if ``topic_names`` are known to be in topic order (as read:
    #: the qrels index then takes the names and codes as they are)
    topic_order: dict[str, int] | None = field(default=None, repr=False)
    _frame: object = field(default=None, repr=False)

    @property
    def path(self) -> str:
        return self.source.name

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)

    def __len__(self) -> int:
        return len(self.grade)

    def topics(self) -> list[str]:
        return sort_topics(self.topic_names)

    @property
    def frame(self):
        """pandas DataFrame with columns topic, subtopic, docno (str), grade (int64), type
        (``inf``/``nav``/``""``) and row, in file order (built on first use)."""
        if self._frame is None:
            import pandas as pd  # (not at the top: only frames built on request need pandas)

            self._frame = pd.DataFrame(
                {
                    "topic": text_column(self.topic_names[self.topic_codes]),
                    "subtopic": text_column(self.subtopic_names[self.subtopic_codes]),
                    "docno": text_column(decode(self.doc_words)[self.doc_codes]),
                    "grade": self.grade,
                    "type": text_column(TYPE_NAMES[self.type_code]),
                    "row": np.arange(len(self), dtype=np.int64),
                }
            )
        return self._frame


def _fail(source: Source, row: int, message: str) -> DataError:
    return DataError(message, file=source.name, line=source.line_of(row))


def _word(text: bytes) -> np.uint64:
    return np.frombuffer(text.ljust(8, b"\0"), dtype="<u8")[0].astype(np.uint64)


def _intent_types(source: Source, fields: Fields) -> np.ndarray:
    """Type code of every row (0 where column 5 is absent); an unknown type is an error."""
    if not (fields.row_count == 5).any():  # (no line gives a type: no words to look at)
        return np.zeros(fields.n_rows, dtype=np.int8)
    words = fields.columns[4]
    short = np.all(words[:, 1:] == 0, axis=1)
    code = np.zeros(len(words), dtype=np.int8)
    code[short & (words[:, 0] == _word(b"inf"))] = 1
    code[short & (words[:, 0] == _word(b"nav"))] = 2
    bad = (fields.row_count == 5) & (code == 0)
    if bad.any():
        row = int(np.argmax(bad))
        text = shown(fields.text(4, row))
        raise _fail(source, row, f"intent type {text} in column 5 is not 'inf' or 'nav'")
    return code


def _parse_grades(source: Source, fields: Fields) -> np.ndarray:
    """Grades as int64: integers (any integer spelling: ``+1``, ``01``), NTCIR ``L<k>`` labels
    (all or none), or integral decimals (``1.0``: read as trec_eval's C parser reads them, with
    a warning naming the first and the count); |grade| <= GRADE_LIMIT. A non-integral grade
    (``1.5``, which trec_eval truncates) and exponent notation (``1e0``, ``2e1``, which it reads
    as the digits before the ``e``) are errors: divaeval does not guess which was meant."""
    words = fields.columns[3]
    first_byte = words[:, 0] & np.uint64(0xFF)  # (read once: long tokens and NTCIR labels)
    ntcir = first_byte == ord("L")
    long = np.flatnonzero(long_rows(words)) if not first_byte.all() else np.zeros(0, np.int64)
    del first_byte
    ntcir[long] = [token_bytes(words, row)[:1] == b"L" for row in long.tolist()]
    if ntcir.any():
        if not ntcir.all():
            row = int(np.argmax(~ntcir))
            raise _fail(
                source,
                row,
                f"grade {shown(fields.text(3, row))} mixes with NTCIR-style L<k> grades",
            )
        # L<k> is read as the integer +<k> (so L+1, L-1 and L stay errors)
        plus = words.copy()
        plus[:, 0] = (plus[:, 0] & ~np.uint64(0xFF)) | np.uint64(ord("+"))
        for row in long.tolist():
            plus[row, 0] = long_token(b"+" + token_bytes(words, row)[1:])
        grades, fine = parse_integers(plus)
        if not fine.all():
            row = int(np.argmax(~fine))
            raise _fail(source, row, f"grade {shown(fields.text(3, row))} is not an integer")
    else:
        grades, fine = parse_integers(words)
        if not fine.all():
            # Integral decimals (2.0) pass when every grade is a number.
            decimals, unparsable = parse_floats(words)
            whole = np.isfinite(decimals) & (decimals == np.round(decimals))
            accepted = fine | (whole & (np.abs(decimals) <= GRADE_LIMIT))
            if unparsable is not None or not accepted.all():
                row = unparsable if unparsable is not None else int(np.argmax(~accepted))
                integral = unparsable is None and (
                    whole[row] or integer_tokens(words[row : row + 1])[0]
                )
                why = (
                    f"is out of range (|grade| <= {GRADE_LIMIT})"
                    if integral
                    else "is not an integer"
                )
                raise _fail(source, row, f"grade {shown(fields.text(3, row))} {why}")
            decimal_rows = np.flatnonzero(~fine)
            for row in decimal_rows.tolist():  # (only the lines not written as integers)
                text = fields.text(3, row)
                if "e" in text or "E" in text:
                    raise _fail(
                        source,
                        row,
                        f"grade {shown(text)} is in exponent notation, which trec_eval reads as "
                        "its digits before the 'e' (2e1 as 2): write the integer",
                    )
            grades = np.where(fine, grades, decimals.astype(np.int64))
            row, count = int(decimal_rows[0]), len(decimal_rows)
            warn(
                (
                    "1 grade is written as a decimal "
                    f"({shown(fields.text(3, row))}); read as the integer it equals"
                    if count == 1
                    else f"{count} grades are written as decimals "
                    f"(e.g. {shown(fields.text(3, row))}); read as the integers they equal"
                ),
                file=source.name,
                line=source.line_of(row),
            )
    if int(grades.max()) > GRADE_LIMIT or int(grades.min()) < -GRADE_LIMIT:
        row = int(np.argmax(np.abs(grades) > GRADE_LIMIT))
        raise _fail(
            source,
            row,
            f"grade {shown(fields.text(3, row))} is out of range (|grade| <= {GRADE_LIMIT})",
        )
    return grades


def read_qrels(path: str, *, text: str | bytes | None = None) -> Qrels:
    """Parse a (diversity or ad hoc) qrels file or an NTCIREVAL Dqrels file (``text``: its
    content in memory, named ``path``)."""
    pieces = padded_pieces(path, what="qrels", text=text)
    return qrels_of(display_name(path), Fields.joined(list(split_pieces(pieces, QRELS_FIELDS))))


def qrels_of(name: str, fields: Fields) -> Qrels:
    """The :class:`Qrels` of the rows ``fields`` (:data:`QRELS_FIELDS`) of the qrels ``name``,
    checked; ``fields`` is consumed (its word matrices are let go as they are factorized)."""
    source = Source(name, fields.lines)
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
    topic_codes, topic_names, topic_order = _topics_in_order(
        *factorize_with_keys(fields.columns.pop(0))[:2]
    )
    subtopic_codes, subtopic_words, _ = factorize_with_keys(fields.columns.pop(1))
    doc_codes, doc_words, doc_hashes = factorize_with_keys(fields.columns.pop(2))
    fields.columns.clear()
    qrels = Qrels(
        source=source,
        topic_codes=topic_codes,
        topic_names=topic_names,
        subtopic_codes=subtopic_codes,
        subtopic_names=decode(subtopic_words),
        doc_codes=doc_codes,
        doc_words=doc_words,
        grade=grades,
        type_code=type_code,
        doc_hashes=doc_hashes,
        topic_order=topic_order,
    )
    _check_duplicates(qrels)
    _check_types(qrels)
    return qrels


def _topics_in_order(
    codes: np.ndarray, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """(codes, names, name -> code) of the topics of ``codes`` into the word matrix ``words``,
    renumbered in divaeval's topic order (:func:`~divaeval.topics.sort_topics`), the order of
    the qrels index's topic codes, which then takes these codes as they are."""
    names = decode(words)
    ordered = sort_topics(names)
    position = {name: i for i, name in enumerate(ordered)}
    rank = np.array([position[name] for name in names], dtype=np.int64)
    if not np.array_equal(rank, np.arange(len(rank))):
        codes = renumbered(codes, rank)  # (the codes are factorize's own: written over)
    return codes, np.array(ordered, dtype=object), position


def _pair_codes(qrels: Qrels) -> tuple[np.ndarray, int]:
    """([N] int64 a code of each row's (topic, subtopic), small enough to combine with a
    docno code (renumbered densely when the plain product could overflow); their bound)."""
    pair = qrels.topic_codes * len(qrels.subtopic_names) + qrels.subtopic_codes
    n_pairs = len(qrels.topic_names) * len(qrels.subtopic_names)
    if n_pairs * max(len(qrels.doc_words), 1) >= 2**62:
        uniques, pair = np.unique(pair, return_inverse=True)
        pair, n_pairs = pair.reshape(-1), len(uniques)
    return pair, n_pairs


def _describe(qrels: Qrels, row: int, docno: bool = False) -> str:
    """``topic T subtopic S [docno D]`` of ``row``, each id cut for a message."""
    what = (
        f"topic {clip(qrels.topic_names[qrels.topic_codes[row]])} "
        f"subtopic {clip(qrels.subtopic_names[qrels.subtopic_codes[row]])}"
    )
    if docno:
        code = qrels.doc_codes[row]
        what += f" docno {clip(decode(qrels.doc_words[code : code + 1])[0])}"
    return what


def _check_types(qrels: Qrels) -> None:
    """Lines typing one subtopic differently (inf and nav) are an error at the first line that
    disagrees with the subtopic's first typed line, naming that line."""
    typed = np.flatnonzero(qrels.type_code)
    if not len(typed):
        return
    _, first, which = np.unique(
        _pair_codes(qrels)[0][typed], return_index=True, return_inverse=True
    )
    which = which.reshape(-1)
    differs = qrels.type_code[typed] != qrels.type_code[typed[first]][which]
    if differs.any():
        at = int(np.argmax(differs))
        row, earlier = int(typed[at]), int(typed[first[which[at]]])
        raise _fail(
            qrels.source,
            row,
            f"conflicting intent types for {_describe(qrels, row)}: "
            f"{TYPE_NAMES[qrels.type_code[row]]} here, {TYPE_NAMES[qrels.type_code[earlier]]} "
            f"at line {qrels.line_of(earlier)}",
        )


def _check_duplicates(qrels: Qrels) -> None:
    """A repeated (topic, subtopic, docno) is an error at its second line, naming the first."""
    pair, n_pairs = _pair_codes(qrels)
    key = pair * len(qrels.doc_words)
    key += qrels.doc_codes
    if not has_repeats(key, n_pairs * len(qrels.doc_words)):
        return
    order = np.argsort(key, kind="stable")
    same = key[order[1:]] == key[order[:-1]]
    repeated = np.zeros(len(key), dtype=bool)
    repeated[order[1:][same]] = True
    repeated[order[:-1][same]] = True
    a = int(np.argmax(repeated))  # the first line of a repeated key, and its next copy
    b = int(np.flatnonzero(key == key[a])[1])
    line_a = qrels.line_of(a)
    what = _describe(qrels, a, docno=True)
    if qrels.grade[a] != qrels.grade[b]:
        message = (
            f"conflicting judgments for {what}: grade {qrels.grade[b]} here, "
            f"grade {qrels.grade[a]} at line {line_a}"
        )
    else:
        message = f"duplicate judgment for {what} (also at line {line_a})"
    raise _fail(qrels.source, b, message)
