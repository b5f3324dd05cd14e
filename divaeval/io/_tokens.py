"""Splitting text into rows of whitespace-separated fields, vectorised (numpy only).

Every input format of divaeval is "fields separated by whitespace, one record a line". This
module splits the pieces of such a file (:func:`divaeval.io._text.padded_pieces`: whole lines,
``\\n`` line ends, read where the file was read into) without a Python step per line:

- A *row* is a line that holds a field and is not a comment line (its first field starts with
  ``#``; a ``#`` inside a field is data: MS MARCO docids hold one). Blank and comment lines are
  dropped as the pieces are split, at the cost of their bytes (a piece of nothing but newlines
  costs one count), and :attr:`Fields.lines` keeps the physical line of every row, compactly.
- A *plain* piece (fields separated by exactly one space, or exactly one tab, the same number
  on every line, no other whitespace: what programs write) is split as a grid
  (:func:`_grid_spans`): the positions of its separators, read as a [rows, fields] grid, are
  the ends of every field. Any other piece is tokenized (:func:`_tokenize`): every byte is
  classified (whitespace = space, ``\\t``, ``\\n``, ``\\v``, ``\\f``), token boundaries are found
  where the class changes, and tokens are grouped into lines, in parts of about
  :data:`CHUNK_BYTES` so that the temporary arrays stay in cache.
- The fields a reader asks for are gathered into word matrices
  (:func:`divaeval.io._words.gather_words`), one per field, piece by piece, so that memory
  follows the rows, not the text (:func:`split_fields` joins them; :func:`split_pieces` yields
  them piece by piece, for readers that cut a run into blocks of whole topics). With the
  compiled loops, a plain piece's words (and a number field's values) are written as its grid
  is checked, in one pass with no spans in between (:func:`_grid_fields`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from divaeval import native
from divaeval.io import _words as word_matrices
from divaeval.io._numbers import cast_rest, parse_floats
from divaeval.io._text import LineMap, LineTooLong, Piece, padded_pieces
from divaeval.io._words import _PAD, decode, gather_words, pad_words

CHUNK_BYTES = 1 << 17  # non-plain text is tokenized in ~128 KiB parts of whole lines

#: Bytes that are whitespace to the tokenizer but never in a plain text (besides the other
#: delimiter). NUL bytes and \r never reach the tokenizer (text_pieces).
_NEVER_PLAIN = (b"\v", b"\f", b"\r")
_HASH = ord("#")
#: the bytes of a piece whose lines guess its rows (:func:`_grid_fields`)
_SAMPLE_BYTES = 8192


@dataclass(eq=False, repr=False)
class Fields:
    """Selected fields of every row of a text (see the module docstring)."""

    row_count: np.ndarray  # [R] int32: number of fields on the row
    columns: dict[int, np.ndarray]  # field j -> [R, W] uint64 words (zeros: the row lacks it)
    first_row: dict[int, str | None]  # field j of the first row as text (None: absent)
    lines: LineMap  # the line of every row
    #: field j -> [R] float64 of the fields parsed as numbers (:func:`split_pieces`'s
    #: ``numbers``; their words are not kept)
    numbers: dict[int, np.ndarray] = field(default_factory=dict)
    #: field j -> the tokens of number fields that are not finite numbers, located: the first
    #: that is not a number and the first that is not finite of each piece split
    bad_numbers: dict[int, list[BadNumber]] = field(default_factory=dict)
    #: the lines of the text split (blank and comment lines included)
    n_lines: int = 0
    #: bytes of the text split (for cutting a run into blocks of about a size)
    n_bytes: int = 0

    @property
    def n_rows(self) -> int:
        return len(self.row_count)

    def text(self, column: int, row: int) -> str:
        """Field ``column`` of ``row`` as text."""
        return decode(self.columns[column][row : row + 1])[0]

    def first_bad_number(self, column: int) -> BadNumber | None:
        """The first token of the number field ``column`` that is not a number, else the first
        that is not a finite number, else None."""
        found = self.bad_numbers.get(column, [])
        for finite in (False, True):
            bad = [number for number in found if number.finite == finite]
            if bad:
                return min(bad, key=lambda number: number.row)
        return None

    def rows(self, begin: int, end: int) -> Fields:
        """Rows ``begin`` to ``end`` (exclusive), numbered from 0 (views, no copies)."""
        return Fields(
            row_count=self.row_count[begin:end],
            columns={j: words[begin:end] for j, words in self.columns.items()},
            first_row=self.first_row,
            lines=self.lines.rows(begin, end),
            numbers={j: values[begin:end] for j, values in self.numbers.items()},
            bad_numbers={
                j: [bad.shifted(-begin) for bad in found if begin <= bad.row < end]
                for j, found in self.bad_numbers.items()
            },
            n_bytes=self.n_bytes * (end - begin) // max(self.n_rows, 1),
        )

    @staticmethod
    def joined(parts: Sequence[Fields]) -> Fields:
        """The rows of ``parts`` end to end (the first row's texts from the first part with a
        row; none: no rows)."""
        if not parts:
            return Fields(np.zeros(0, dtype=np.int32), {}, {}, LineMap.empty(1))
        if len(parts) == 1:
            return parts[0]
        first = next((part for part in parts if part.n_rows), parts[0])
        columns = {}
        for j in first.columns:
            if all(_is_absent(part.columns[j]) for part in parts):
                columns[j] = _absent(sum(part.n_rows for part in parts))
                continue
            width = max(part.columns[j].shape[1] for part in parts)
            columns[j] = np.concatenate([pad_words(part.columns[j], width) for part in parts])
        offsets = np.cumsum([0] + [part.n_rows for part in parts[:-1]]).tolist()
        return Fields(
            row_count=np.concatenate([part.row_count for part in parts]),
            columns=columns,
            first_row=first.first_row,
            lines=LineMap.joined([(part.n_rows, part.lines) for part in parts]),
            numbers={j: np.concatenate([part.numbers[j] for part in parts]) for j in first.numbers},
            bad_numbers={
                j: [
                    bad.shifted(offset)
                    for part, offset in zip(parts, offsets, strict=True)
                    for bad in part.bad_numbers[j]
                ]
                for j in first.bad_numbers
            },
            n_lines=sum(part.n_lines for part in parts),
            n_bytes=sum(part.n_bytes for part in parts),
        )


class BadNumber(NamedTuple):
    """A token of a number field that is not a number (or, ``finite``, not a finite one)."""

    row: int
    text: str
    finite: bool

    def shifted(self, rows: int) -> BadNumber:
        return BadNumber(self.row + rows, self.text, self.finite)


def split_fields(
    data: bytes, columns: Sequence[int], first_row: Sequence[int] = (), *, comments: bool = False
) -> Fields:
    """:func:`split_pieces` of a text in memory, joined (``comments``: drop comment lines)."""
    pieces = padded_pieces("<text>", what="text", text=data, raw=True)
    parts = list(split_pieces(pieces, columns, first_row, comments=comments))
    return Fields.joined(parts) if parts else _no_rows(columns, first_row, 1, 0)


def split_pieces(
    pieces: Iterable[bytes | Piece],
    columns: Sequence[int],
    first_row: Sequence[int] = (),
    *,
    numbers: Sequence[int] = (),
    comments: bool = True,
) -> Iterator[Fields]:
    """The :class:`Fields` of each piece: word matrices of the fields ``columns`` (0-based) of
    every row, the values of the fields ``numbers`` (parsed piece by piece, while their words
    are in cache: :func:`~divaeval.io._numbers.parse_floats`), the fields ``first_row`` of its
    first row as text, lines numbered from 1 across the pieces; blank lines dropped, and
    comment lines unless ``comments`` is False. A line too long for
    :func:`~divaeval.io._text.text_pieces` is located here, where lines are counted."""
    lines = 0
    iterator = iter(pieces)
    while True:
        try:
            piece = next(iterator, None)
        except LineTooLong as error:
            error.line = lines + 1
            raise
        if piece is None:
            return
        fields = split_piece(piece, columns, first_row, lines + 1, comments, numbers)
        lines += fields.n_lines
        yield fields


def split_piece(
    piece: bytes | Piece,
    columns: Sequence[int],
    first_row: Sequence[int],
    first_line: int,
    comments: bool,
    numbers: Sequence[int] = (),
) -> Fields:
    """The :class:`Fields` of one piece (whole lines, each ended by ``\\n``; bytes are copied
    into a :class:`~divaeval.io._text.Piece`) whose first line is ``first_line`` (see
    :func:`split_pieces`)."""
    data, n = piece if isinstance(piece, Piece) else Piece.of(piece)
    if data[:1] == b"\n" and data.count(b"\n", 0, n) == n:  # blank lines only: nothing to split
        return _no_rows(columns, first_row, first_line, n, numbers)
    # the text, readable past every token (a view of the piece's buffer: the caller's to reuse)
    text = np.frombuffer(data, dtype=np.uint8, count=n + _PAD)
    if native.kernels is not None:
        fields = _grid_fields(data, n, text, columns, first_row, first_line, comments, numbers)
        if isinstance(fields, Fields):
            return fields
        grid = None if fields is False else _grid_spans(data, n, text)  # (False: not a grid)
    else:
        grid = _grid_spans(data, n, text)
    if grid is not None:
        starts, lengths = grid
        n_fields, n_rows = starts.shape
        row_count = np.full(n_rows, n_fields, dtype=np.int32)
        row_line = None  # row i on line i
        n_lines = n_rows
        spans = {
            j: (np.ascontiguousarray(starts[j]), np.ascontiguousarray(lengths[j]))
            if j < n_fields
            else None
            for j in {*columns, *numbers, *first_row, 0}
        }
    else:
        row_count, row_line, spans, n_lines = _tokenized_spans(
            data, n, text, {*columns, *numbers, *first_row, 0}
        )
    if comments and data.find(b"#", 0, n) >= 0:
        first_field = spans[0]
        assert first_field is not None  # (every row has a first field)
        comment = text[first_field[0]] == _HASH
        if comment.any():
            keep = ~comment
            row_count = row_count[keep]
            row_line = np.flatnonzero(keep) if row_line is None else row_line[keep]
            spans = {
                j: None if span is None else (span[0][keep], span[1][keep])
                for j, span in spans.items()
            }
    n_rows = len(row_count)
    head: dict[int, str | None] = {}
    for j in first_row:
        span = spans[j]
        if n_rows and span is not None and row_count[0] > j:
            start, length = int(span[0][0]), int(span[1][0])
            head[j] = data[start : start + length].decode("utf-8", "surrogateescape")
        else:
            head[j] = None
    words = {j: _words(text, spans[j], n_rows) for j in columns}
    values, bad = {}, {}
    for j in numbers:
        values[j], bad[j] = number_field(_words(text, spans[j], n_rows))
    lines = (
        LineMap.empty(first_line) if row_line is None else LineMap.of_rows(row_line + first_line)
    )
    return Fields(row_count, words, head, lines, values, bad, n_lines=n_lines, n_bytes=n)


def _words(text: np.ndarray, span: tuple[np.ndarray, np.ndarray] | None, n_rows: int):
    """The word matrix of a field's spans (where no row has the field: zeros, as a view of one
    word, which :meth:`Fields.joined` keeps so)."""
    if span is None:
        return _absent(n_rows)
    return gather_words(text, *span)


_ZERO_WORD = np.zeros((1, 1), dtype=np.uint64)


def _absent(n_rows: int) -> np.ndarray:
    """[n_rows, 1] zero words of a field no row has: a read-only view of one word."""
    return np.broadcast_to(_ZERO_WORD, (n_rows, 1))


def _is_absent(words: np.ndarray) -> bool:
    return words.strides == (0, 0)


def number_field(words: np.ndarray) -> tuple[np.ndarray, list[BadNumber]]:
    """(float64 values, the first token that is not a number and the first that is not finite)
    of a field's words."""
    values, not_number = parse_floats(words)
    return values, _bad_numbers(values, not_number, words)


def _bad_numbers(
    values: np.ndarray, not_number: int | None, words: np.ndarray, rows: np.ndarray | None = None
) -> list[BadNumber]:
    """The first token of a number field that is not a number (row ``not_number``) and the
    first that is not finite, located: ``values`` of every row, ``words`` the tokens of the rows
    ``rows`` (ascending; None: every row), among which is every token that is not a finite
    number."""
    bad = []
    not_finite = ~np.isfinite(values if rows is None else values[rows])
    if not_number is not None:
        at = not_number if rows is None else int(np.searchsorted(rows, not_number))
        bad.append(BadNumber(not_number, decode(words[at : at + 1])[0], False))
        not_finite[at] = False  # (reported as not a number)
    if not_finite.any():
        k = int(np.argmax(not_finite))
        row = k if rows is None else int(rows[k])
        bad.append(BadNumber(row, decode(words[k : k + 1])[0], True))
    return bad


def _no_rows(
    columns: Sequence[int],
    first_row: Sequence[int],
    first_line: int,
    n_lines: int,
    numbers: Sequence[int] = (),
) -> Fields:
    return Fields(
        row_count=np.zeros(0, dtype=np.int32),
        columns={j: _absent(0) for j in columns},
        first_row=dict.fromkeys(first_row),
        lines=LineMap.empty(first_line),
        numbers={j: np.zeros(0, dtype=np.float64) for j in numbers},
        bad_numbers={j: [] for j in numbers},
        n_lines=n_lines,
        n_bytes=n_lines,
    )


def _grid_fields(
    data: bytes | bytearray,
    n: int,
    text: np.ndarray,
    columns: Sequence[int],
    first_row: Sequence[int],
    first_line: int,
    comments: bool,
    numbers: Sequence[int],
) -> Fields | bool:
    """:func:`split_piece` of a plain piece (see :func:`_grid_spans`) in one compiled pass
    (``grid_words``): the grid checked, the fields ``columns`` written as word matrices and a
    number field read where its token is a short plain decimal, with no spans in between.
    False: not a plain grid; True: a grid that :func:`_grid_spans`'s path splits (a long token
    to mark, a comment line to drop, more than one number field)."""
    assert native.kernels is not None
    first_end = data.find(b"\n", 0, n)
    if first_end <= 0:
        return False
    if len(numbers) > 1:
        return True
    delimiter = b"\t" if b"\t" in data[:first_end] else b" "
    head_tokens = data[:first_end].split(delimiter)
    n_fields = len(head_tokens)
    gathered = tuple(sorted({0, *columns} & set(range(n_fields))))
    # (a token longer than LONG_TOKEN_BYTES is long: grid_words refuses it)
    most = max(1, -(-word_matrices.LONG_TOKEN_BYTES // 8))
    widths = tuple(min(max(1, -(-len(head_tokens[j]) // 8)), most) for j in gathered)
    number = numbers[0] if numbers and numbers[0] < n_fields else -1
    # room for the rows of the first 8 KiB's line length, and a little: an array keeps its room
    # (grown by half if the lines are shorter; its rows are then copied)
    sample = min(n, _SAMPLE_BYTES)
    rows_guess = n * data.count(b"\n", 0, sample) // sample * 33 // 32 + 16
    found = native.kernels.grid_words(
        text, n, delimiter[0], n_fields, rows_guess, gathered, widths, number,
        word_matrices.LONG_TOKEN_BYTES,
    )  # fmt: skip
    if found is None or found is False:
        return found is False
    n_rows, matrices, values_bytes, rest_bytes, commented = found
    if comments and commented:  # (a line starts with "#")
        return True
    words = {
        j: np.frombuffer(matrix, dtype=np.uint64).reshape(n_rows, -1)
        for j, matrix in zip(gathered, matrices, strict=True)
    }
    numbers_read, bad = {}, {}
    for j in numbers:
        if number < 0:
            numbers_read[j], bad[j] = number_field(_absent(n_rows))
            continue
        values = np.frombuffer(values_bytes, dtype=np.float64)
        rows, starts, lengths = np.frombuffer(rest_bytes, dtype=np.int64).reshape(-1, 3).T
        rest_words = gather_words(text, starts, lengths) if len(rows) else _absent(0)
        not_number = cast_rest(values, rows, rest_words)
        numbers_read[j], bad[j] = values, _bad_numbers(values, not_number, rest_words, rows)
    head = {
        j: head_tokens[j].decode("utf-8", "surrogateescape") if j < n_fields else None
        for j in first_row
    }
    return Fields(
        row_count=np.full(n_rows, n_fields, dtype=np.int32),
        columns={j: words[j] if j < n_fields else _absent(n_rows) for j in columns},
        first_row=head,
        lines=LineMap.empty(first_line),
        numbers=numbers_read,
        bad_numbers=bad,
        n_lines=n_rows,
        n_bytes=n,
    )


def _grid_spans(
    data: bytes | bytearray, n: int, text: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """(starts, lengths) [F, R] (field by field) of the fields of a plain piece whose lines all
    hold the same number F of fields, or None for any other piece.

    Every field of such a text ends at a *separator*, the delimiter or a newline, and every
    separator ends a field: so the separators' positions, read as an [R, F] grid, are the ends
    of every row's fields, with no whitespace to classify and no tokens to group into rows. The
    grid holds if no field is empty (no two separators are adjacent, none starts the text),
    their count is a multiple of F, the newlines are exactly the grid's last column, and every
    other separator is the delimiter (not a control byte)."""
    first_end = data.find(b"\n", 0, n)
    if first_end <= 0:
        return None
    delimiter = b"\t" if b"\t" in data[:first_end] else b" "
    other = b" " if delimiter == b"\t" else b"\t"
    if any(data.find(byte, 0, n) >= 0 for byte in (other, *_NEVER_PLAIN)):
        return None
    n_fields = data.count(delimiter, 0, first_end) + 1
    if native.kernels is not None:  # the same checks in one pass over the text
        n_rows = native.kernels.count_lines(text, n)
        starts = np.empty((n_fields, n_rows), dtype=np.int64)
        lengths = np.empty((n_fields, n_rows), dtype=np.int64)
        grid = native.kernels.grid_spans(text, n, delimiter[0], n_fields, starts, lengths, n_rows)
        return (starts, lengths) if grid and n_rows else None
    # Below 33, a plain text holds only newlines, its delimiter and (as data) control bytes:
    # one comparison finds the separators. A control byte taken for one adds a separator that
    # is neither, so the separators outnumber the newlines and delimiters, and the counts below
    # refuse it (also where it stands in for a missing delimiter: "x x\n!\x01!\n" is not
    # two rows of two fields "x" and "!").
    ends = np.flatnonzero(text[:n] <= 32)
    n_rows = len(ends) // n_fields
    if not n_rows or len(ends) != n_rows * n_fields or ends[0] == 0:
        return None
    starts = np.empty_like(ends)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    lengths = ends - starts
    if not lengths.all():  # an empty field: a blank line, or two delimiters in a row
        return None
    # each row's last separator is its newline, and every other one is the delimiter
    separators = text[ends]
    newlines = separators == 10
    if not newlines[n_fields - 1 :: n_fields].all() or np.count_nonzero(newlines) != n_rows:
        return None
    if np.count_nonzero(separators == ord(delimiter)) != len(ends) - n_rows:
        return None
    return starts.reshape(n_rows, n_fields).T, lengths.reshape(n_rows, n_fields).T


def _tokenized_spans(data: bytes | bytearray, n: int, text: np.ndarray, wanted: set[int]):
    """(row_count, row_line (0-based, within the piece), spans, lines) of a piece split by the
    tokenizer, in parts of about :data:`CHUNK_BYTES`: spans[j] = (starts, lengths) of field j
    of every row (length 0 where a row lacks it)."""
    counts: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    parts: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {j: ([], []) for j in wanted}
    lines_before = 0
    begin = 0
    while begin < n:
        stop = data.find(b"\n", begin + CHUNK_BYTES, n)
        stop = n if stop < 0 else stop + 1
        piece = _tokenize(text[begin : stop + _PAD], stop - begin)
        counts.append(piece.row_count.astype(np.int32))
        lines.append(piece.row_line + lines_before)
        lines_before += piece.n_lines
        n_tokens = len(piece.starts)
        for j, (starts, lengths) in parts.items():
            tokens = np.minimum(piece.row_first + j, n_tokens - 1)
            first = piece.starts[tokens]
            starts.append(first + begin)
            lengths.append(np.where(piece.row_count > j, piece.ends[tokens] - first, 0))
        begin = stop
    spans = {j: (_joined(starts), _joined(lengths)) for j, (starts, lengths) in parts.items()}
    return _joined(counts), _joined(lines), spans, lines_before


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The arrays ``parts`` end to end."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class _Tokens(NamedTuple):
    """The tokens of one part of a piece: byte spans, and their grouping into rows."""

    starts: np.ndarray  # [N] int64: first byte of each token
    ends: np.ndarray  # [N] int64: one past the last byte
    row_first: np.ndarray  # [R] int64: index of the row's first token
    row_count: np.ndarray  # [R] int64: number of tokens (fields) on the row
    row_line: np.ndarray  # [R] int64: 0-based line of the row within the part
    n_lines: int  # lines in the part (newlines: every line ends with one)


def _tokenize(buffer: np.ndarray, n: int) -> _Tokens:
    """Tokens and rows of ``buffer[:n]`` (whole lines, each ended by a newline)."""
    text = buffer[:n]
    # space[i + 1]: byte i is whitespace (9-13 or 32); both ends padded with "whitespace"
    space = np.ones(n + 2, dtype=bool)
    np.less_equal(text - np.uint8(9), 4, out=space[1:-1])  # (uint8: below 9 wraps around)
    space[1:-1] |= text == 32
    edges = np.flatnonzero(space[1:] != space[:-1])  # alternately token starts and ends
    starts, ends = edges[0::2], edges[1::2]
    # Tokens of line k are [bounds[k], bounds[k + 1]).
    newlines = np.flatnonzero(text == 10)
    bounds = np.empty(len(newlines) + 1, dtype=np.int64)
    bounds[0] = 0
    bounds[1:] = np.searchsorted(starts, newlines)
    counts = np.diff(bounds)
    content = np.flatnonzero(counts)
    return _Tokens(
        starts=starts,
        ends=ends,
        row_first=bounds[:-1][content],
        row_count=counts[content],
        row_line=content,
        n_lines=len(newlines),
    )
