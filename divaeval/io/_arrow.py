"""The fast path for large *plain* files: pyarrow's CSV reader instead of the numpy tokenizer.

A text is *plain* when every line is either empty or holds fields separated by exactly one
space (or exactly one tab, the same character throughout), with no whitespace at either end
of the line and no other whitespace byte (``\\t`` or space, ``\\v``, ``\\f``, ``\\r``) anywhere,
and does not start with a byte-order mark. Runs and qrels written by programs are plain. For
a plain text, a CSV reader with quoting, escaping and type guessing switched off splits each
line into exactly the fields the whitespace tokenizer of :mod:`divaeval.io._tokens` finds, and
skips exactly the lines it skips (the empty ones), so :func:`split_plain` returns the
tokenizer's :class:`~divaeval.io._tokens.Fields`, bit for bit, from pyarrow's C++ reader
(which also converts number columns, correctly rounded, without numpy's slow bytes-to-float
cast).

Whatever is not plain, or is unusual (a varying field count, an empty field, a token longer
than :data:`~divaeval.io._tokens.LONG_TOKEN_BYTES`, a number that is not finite, anything
pyarrow refuses), returns None, and the caller splits the text with the tokenizer, the
authoritative path: it words every error message and numbers every line. Plain fields of a
text without empty lines are numbered 1, 2, ...; with empty lines they record no line numbers,
and :meth:`divaeval.io._text.Source.line_of` counts them on demand.

pyarrow is imported on the first large read only (its import costs about 0.1 s and 30 MiB),
so small files, and programs that read none, never load it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from divaeval.heap import release_free_memory
from divaeval.io._tokens import (
    _PAD,
    LONG_TOKEN_BYTES,
    Fields,
    factorize_with_keys,
    first_fields,
    gather_words,
    pad_words,
    plain_bytes,
    split_fields,
)

T = TypeVar("T")

#: Texts shorter than this are split by the tokenizer (faster than importing pyarrow).
PLAIN_MIN_BYTES = 4 << 20

_LITTLE = sys.byteorder == "little"  # words are little-endian uint64 (see _tokens)


def split_table(
    data: bytes,
    columns: Sequence[int],
    *,
    codes: Sequence[int] = (),
    numbers: Sequence[int] = (),
    first_row: Sequence[int] = (),
    min_fields: int = 1,
    max_fields: int | None = None,
    release_memory: bool = True,
) -> Fields:
    """:func:`~divaeval.io._tokens.split_fields` of ``columns`` + ``codes`` + ``numbers``,
    through :func:`split_plain` when ``data`` is large and plain (``numbers`` then come parsed,
    in :attr:`Fields.numbers`, and ``codes``, the fields the caller only factorizes, may come
    factorized: :meth:`Fields.factorize`), else through the tokenizer."""
    if len(data) >= PLAIN_MIN_BYTES:
        fields = split_plain(
            data,
            columns,
            codes=codes,
            numbers=numbers,
            first_row=first_row,
            min_fields=min_fields,
            max_fields=max_fields,
            release_memory=release_memory,
        )
        if fields is not None:
            return fields
    return split_fields(data, tuple(columns) + tuple(codes) + tuple(numbers), first_row)


def split_plain(
    data: bytes,
    columns: Sequence[int],
    *,
    codes: Sequence[int] = (),
    numbers: Sequence[int] = (),
    first_row: Sequence[int] = (),
    min_fields: int = 1,
    max_fields: int | None = None,
    release_memory: bool = True,
) -> Fields | None:
    """The tokenizer's :class:`Fields` of a plain ``data`` (no NUL byte, as for the tokenizer),
    read by pyarrow: word matrices of ``columns`` and ``codes`` (or, for the latter, their
    factorization), float64 values of ``numbers`` (all finite), texts of ``first_row``; or None
    when ``data`` is not plain, a line does not hold ``min_fields``..``max_fields`` fields, or
    anything is unusual (module docstring).

    ``release_memory``: give the memory pyarrow's table held (freed in the heaps of its
    threads) back to the system at once (:func:`release_free_memory`), for a read followed
    by other work, such as indexing the qrels; False leaves it to the next read (a run's
    blocks: trimming costs each read 20 % in page faults)."""
    head = first_fields(data)
    if head is None:
        return None
    delimiter, first = head
    n_fields = len(first)
    if n_fields < min_fields or (max_fields is not None and n_fields > max_fields):
        return None
    if any(j >= n_fields for j in numbers):
        return None
    encoded = [j for j in _repetitive(data, delimiter, codes) if j < n_fields]
    texts = {
        j: first[j].decode("utf-8", "surrogateescape") if j < n_fields else None for j in first_row
    }
    wanted = tuple(columns) + tuple(codes)
    # pyarrow converts only the fields asked for (it still counts every line's fields): no
    # field is empty (checked while it reads), so the others need no look
    read = sorted({j for j in (*wanted, *numbers) if j < n_fields})
    try:
        # Empty lines kept: a text without any has row i on line i + 1 (numbered for free);
        # an empty line is a row of too few fields, refused, and only then are they skipped.
        # The text is read on the chance that it is plain, while that is checked (pyarrow
        # lets go of the interpreter as it reads: the check's byte searches, 17 ms of a
        # 1M-line run, take place during its 80 ms; a text found not plain waits for the read)
        table, plain = _in_two_threads(
            lambda task: task(),
            [
                lambda: _read_csv(data, delimiter, n_fields, read, numbers, encoded, False),
                lambda: plain_bytes(data, delimiter) and not _has_empty_field(data, delimiter),
            ],
        )
        if not plain:
            return None
        fields = _table_fields(table, n_fields, wanted, numbers, texts, numbered=True)
        if fields is None and (data.startswith(b"\n") or b"\n\n" in data):
            table = _read_csv(data, delimiter, n_fields, read, numbers, encoded, skip_empty=True)
            fields = _table_fields(table, n_fields, wanted, numbers, texts, numbered=False)
        return fields
    finally:
        table = None
        if release_memory:
            release_free_memory()


#: pyarrow reads a text in blocks of this many bytes (in parallel), each a chunk of the table
BLOCK_BYTES = 1 << 20

#: lines sampled from the start of a text to tell repetitive fields (:func:`_repetitive`)
SAMPLE_LINES = 2000


def _repetitive(data: bytes, delimiter: bytes, candidates: Sequence[int]) -> list[int]:
    """The fields among ``candidates`` worth reading dictionary-encoded: in the first
    :data:`SAMPLE_LINES` lines, at most half of their values are distinct, but most differ
    from the line above (a field that changes rarely, like a run's topic, is cheaper to
    factorize from its words, one row per stretch of equal values). Docnos of synthetic runs
    and of qrels are repetitive; docnos of real runs rarely are. Only speed depends on it."""
    if not candidates:
        return []
    head = data[: data.rfind(b"\n", 0, 256 * SAMPLE_LINES) + 1 or len(data)]
    rows = [line.split(delimiter) for line in head.split(b"\n", SAMPLE_LINES)[:SAMPLE_LINES]]
    chosen = []
    for j in candidates:
        values = [row[j] for row in rows if len(row) > j]
        changes = sum(a != b for a, b in zip(values, values[1:], strict=False))
        if 2 * len(set(values)) <= len(values) and 2 * changes > len(values):
            chosen.append(j)
    return chosen


#: :func:`_has_empty_field` looks at a text in pieces of this many bytes (its temporaries
#: stay in cache)
EMPTY_FIELD_PIECE = 1 << 20


def _has_empty_field(data: bytes, delimiter: bytes) -> bool:
    """Whether a line of a plain text (:func:`~divaeval.io._tokens.plain_head`) holds an
    empty field, where the whitespace tokenizer would find one field fewer than pyarrow: two
    separators (the delimiter or a newline) in a row, other than two newlines (an empty line,
    which :func:`split_plain` handles), or a delimiter at the text's start or end."""
    if not data or data[:1] == delimiter or data[-1:] == delimiter:
        return bool(data)
    text = np.frombuffer(data, dtype=np.uint8)
    code = ord(delimiter)
    for begin in range(0, len(text) - 1, EMPTY_FIELD_PIECE):
        piece = text[begin : begin + EMPTY_FIELD_PIECE + 1]  # (one byte of overlap)
        low = piece <= 32  # separators, and control bytes (data): pairs of them are looked at
        pairs = np.flatnonzero(low[1:] & low[:-1])
        if len(pairs):
            left, right = piece[pairs], piece[pairs + 1]
            left_newline, right_newline = left == 10, right == 10
            separators = (left_newline | (left == code)) & (right_newline | (right == code))
            if (separators & ~(left_newline & right_newline)).any():
                return True
    return False


def _table_fields(
    table,
    n_fields: int,
    columns: Sequence[int],
    numbers: Sequence[int],
    first_row: dict[int, str | None],
    numbered: bool,
) -> Fields | None:
    """:class:`Fields` of a table read by :func:`_read_csv` from a text of ``n_fields`` fields
    per line (None if there is no table, or it holds an empty field, a long token or a number
    that is not finite), its columns taken by two threads (:func:`_column_fields`: a 1M-line
    run in 10 ms less). A dictionary-encoded column comes factorized: its chunks'
    dictionaries (the distinct values of each chunk, so every value of the column, and only
    those) are factorized as one word matrix, then each row takes the code of its value (the
    same codes and uniques as factorizing every row: they depend only on the set of values).
    ``numbered``: the table has a row for every line (none was empty), so row ``i`` is on
    line ``i + 1``."""
    if table is None or table.num_rows == 0:
        return None
    n_rows = table.num_rows
    names = table.column_names  # f0, f1, ... (named by _read_csv)
    read = [(int(name[1:]), column) for name, column in zip(names, table.columns, strict=True)]
    found = _in_two_threads(lambda item: _column_fields(item[1], n_rows, item[0] in numbers), read)
    if any(result is None for result in found):
        return None
    words: dict[int, np.ndarray] = {}
    values: dict[int, np.ndarray] = {}
    factorized: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}
    for (j, _), outcome in zip(read, found, strict=True):
        assert outcome is not None  # (checked above)
        kind, result = outcome
        if kind == "values":
            values[j] = result
        elif kind == "factorized":
            factorized[j] = result
        else:
            words[j] = result
    for j in columns:
        if j >= n_fields:  # as for the tokenizer: rows without field j hold zero words
            words[j] = np.zeros((n_rows, 1), dtype=np.uint64)
    return Fields(
        row_count=np.broadcast_to(np.int64(n_fields), (n_rows,)),  # (a view: no 8 MB to fill)
        row_line=None,
        rows_are_lines=numbered,
        columns=words,
        first_row=first_row,
        numbers=values,
        factorized=factorized,
    )


def _column_fields(column, n_rows: int, number: bool) -> tuple[str, Any] | None:
    """One column of :func:`_table_fields`: ("values", float64 values) of a number column,
    ("factorized", its factorization) of a dictionary column, ("words", word matrix) of
    another; None if it holds an empty field, a long token or a number that is not finite."""
    if column.null_count:
        return None
    if number:
        values = np.concatenate([_floats(chunk) for chunk in column.chunks])
        return ("values", values) if np.isfinite(values).all() else None
    encoded = hasattr(column.type, "value_type")  # a dictionary column
    parts: list[np.ndarray] = []
    indices: list[tuple[np.ndarray, int, int]] = []  # (a chunk's index, its values' span)
    n_values = 0
    for chunk in column.chunks:
        binary = chunk.dictionary if encoded else chunk
        offsets = _offsets(binary)
        lengths = np.diff(offsets)
        if len(lengths) and lengths.min() == 0:
            return None
        if lengths.max(initial=0) > LONG_TOKEN_BYTES:
            return None  # long tokens are numbered in tokenizer order: leave them to it
        parts.append(_words(binary, offsets, lengths))
        if encoded:
            index = np.frombuffer(chunk.indices.buffers()[1], dtype=np.int32)
            index = index[chunk.offset : chunk.offset + len(chunk)]
            if not np.bincount(index, minlength=len(binary)).all():
                return None  # a value no row holds (not pyarrow's way): be safe
            indices.append((index, n_values, n_values + len(binary)))
            n_values += len(binary)
    width = max((part.shape[1] for part in parts), default=1)
    matrix = np.concatenate([pad_words(part, width) for part in parts])
    if not encoded:
        return "words", matrix
    value_codes, uniques, keys = factorize_with_keys(matrix)
    return "factorized", (_row_codes(value_codes, indices, n_rows), uniques, keys)


def _in_two_threads(function: Callable[[Any], T], items: Sequence) -> list[T]:
    """``function(item)`` of every item, taken in turn by this thread and a helper (numpy, in
    its loops over arrays, and pyarrow's reader let go of the interpreter, so the two
    overlap): the results in the items' order; the first exception raised is raised here."""
    results: list = [None] * len(items)
    failures: list[BaseException] = []
    pending = iter(range(len(items)))
    lock = threading.Lock()

    def work() -> None:
        while not failures:
            with lock:
                i = next(pending, None)
            if i is None:
                return
            try:
                results[i] = function(items[i])
            except BaseException as exc:  # re-raised in the caller's thread
                failures.append(exc)

    helper = threading.Thread(target=work, name="divaeval-columns", daemon=True)
    helper.start()
    try:
        work()
    finally:
        helper.join()
    if failures:
        raise failures[0]
    return results


def _row_codes(
    value_codes: np.ndarray, indices: Sequence[tuple[np.ndarray, int, int]], n_rows: int
) -> np.ndarray:
    """[n_rows] int64: the code of every row of a dictionary-encoded column, from the codes of
    its chunks' dictionary values (``value_codes``, the chunks' values end to end) and each
    chunk's (index into its own values, the span of those in ``value_codes``); one gather per
    chunk into the result (a gather through the concatenated indices costs 5 times as much)."""
    codes = np.empty(n_rows, dtype=np.int64)
    row = 0
    for index, first, stop in indices:
        np.take(value_codes[first:stop], index, out=codes[row : row + len(index)])
        row += len(index)
    return codes


def _read_csv(
    data: bytes,
    delimiter: bytes,
    n_fields: int,
    read: Sequence[int],
    numbers: Sequence[int],
    encoded: Sequence[int],
    skip_empty: bool,
):
    """pyarrow Table of the fields ``read`` of ``data``, a line of ``n_fields`` fields each,
    named ``f0``, ``f1``, ...: as binary (``encoded`` ones dictionary-encoded), ``numbers`` as
    float64, empty lines skipped or not; None when pyarrow is missing or refuses the text
    (e.g. a line of another number of fields)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as csv
    except ImportError:  # pragma: no cover - a dependency; the tokenizer does without
        return None
    names = [f"f{j}" for j in range(n_fields)]
    types = {
        name: pa.float64()
        if j in numbers
        else pa.dictionary(pa.int32(), pa.binary())
        if j in encoded
        else pa.binary()
        for j, name in enumerate(names)
    }
    try:
        return csv.read_csv(
            pa.py_buffer(data),
            read_options=csv.ReadOptions(column_names=names, block_size=BLOCK_BYTES),
            parse_options=csv.ParseOptions(
                delimiter=delimiter.decode(),
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=skip_empty,
            ),
            convert_options=csv.ConvertOptions(
                column_types=types,
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                check_utf8=False,
                include_columns=[names[j] for j in read],
            ),
            memory_pool=pa.system_memory_pool(),
        )
    except (pa.ArrowException, ValueError):
        return None


def _floats(chunk) -> np.ndarray:
    """The values of a pyarrow float64 array without nulls (read from its buffer: the
    array's ``to_numpy`` would import pandas)."""
    values = np.frombuffer(chunk.buffers()[1], dtype=np.float64)
    return values[chunk.offset : chunk.offset + len(chunk)]


def _offsets(chunk) -> np.ndarray:
    """[len + 1] int32, a view of its buffer: where the values of a pyarrow binary array
    start in its data buffer."""
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
    return offsets[chunk.offset : chunk.offset + len(chunk) + 1]


def _words(chunk, offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The word matrix (:func:`gather_words`) of the values of a pyarrow binary array; when
    they all have one length (docnos often do), one strided copy of its data buffer."""
    n = len(lengths)
    size = int(lengths[0]) if n else 0
    if not n or int(lengths.max()) != size or int(lengths.min()) != size or not _LITTLE:
        return gather_words(_padded(chunk, offsets), offsets[:-1], lengths)
    width = -(-size // 8)
    out = np.zeros((n, width), dtype=np.uint64)
    data = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)
    values = data[int(offsets[0]) : int(offsets[-1])].reshape(n, size)
    out.view(np.uint8).reshape(n, 8 * width)[:, :size] = values  # (little-endian words)
    return out


def _padded(chunk, offsets: np.ndarray) -> np.ndarray:
    """The data buffer of a pyarrow binary array, copied with :data:`_PAD` zero bytes after
    it (:func:`gather_words` reads 8 bytes at every token start)."""
    size = int(offsets[-1])
    padded = np.zeros(size + _PAD, dtype=np.uint8)
    if size:
        padded[:size] = np.frombuffer(chunk.buffers()[2], dtype=np.uint8, count=size)
    return padded
