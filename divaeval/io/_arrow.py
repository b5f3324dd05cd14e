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
authoritative path: it words every error message and numbers every line. Plain fields
record no line numbers; :meth:`divaeval.io._text.Source.line_of` counts them on demand.

pyarrow is imported on the first large read only (its import costs about 0.1 s and 30 MiB),
so small files, and programs that read none, never load it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from divaeval.io._tokens import (
    _PAD,
    LONG_TOKEN_BYTES,
    Fields,
    gather_words,
    pad_words,
    split_fields,
)

#: Texts shorter than this are split by the tokenizer (faster than importing pyarrow).
PLAIN_MIN_BYTES = 4 << 20

#: Bytes that are whitespace to the tokenizer but never part of a plain text (with the
#: delimiter that is not used). NUL bytes are refused before (by the readers' read_source).
_NEVER_PLAIN = (b"\r", b"\v", b"\f")
_CONTENT = re.compile(rb"[^\n]")  # the first byte of the first non-empty line
_UTF8_BOM = b"\xef\xbb\xbf"  # pyarrow drops one at the start of a text; the tokenizer does not


def split_table(
    data: bytes,
    columns: Sequence[int],
    *,
    numbers: Sequence[int] = (),
    first_row: Sequence[int] = (),
    min_fields: int = 1,
    max_fields: int | None = None,
) -> Fields:
    """:func:`~divaeval.io._tokens.split_fields` of ``columns`` + ``numbers``, through
    :func:`split_plain` when ``data`` is large and plain (the ``numbers`` columns then come
    parsed, in :attr:`Fields.numbers`), else through the tokenizer."""
    if len(data) >= PLAIN_MIN_BYTES:
        fields = split_plain(
            data,
            columns,
            numbers=numbers,
            first_row=first_row,
            min_fields=min_fields,
            max_fields=max_fields,
        )
        if fields is not None:
            return fields
    return split_fields(data, tuple(columns) + tuple(numbers), first_row)


def plain_head(data: bytes) -> tuple[bytes, list[bytes]] | None:
    """(delimiter, fields of the first non-empty line) of a plain text (see the module
    docstring), or None when ``data`` is not plain (as far as a few byte searches tell) or
    holds no field."""
    found = _CONTENT.search(data)
    if found is None or data.startswith(_UTF8_BOM):
        return None
    start = found.start()
    end = data.find(b"\n", start)
    line = data[start : len(data) if end < 0 else end]
    delimiter, other = (b"\t", b" ") if b"\t" in line else (b" ", b"\t")
    if any(byte in data for byte in (other, *_NEVER_PLAIN)):
        return None
    return delimiter, line.split(delimiter)


def split_plain(
    data: bytes,
    columns: Sequence[int],
    *,
    numbers: Sequence[int] = (),
    first_row: Sequence[int] = (),
    min_fields: int = 1,
    max_fields: int | None = None,
) -> Fields | None:
    """The tokenizer's :class:`Fields` of a plain ``data`` (no NUL byte, as for the tokenizer),
    read by pyarrow: word matrices of ``columns``, float64 values of ``numbers`` (all finite),
    texts of ``first_row``; or None when ``data`` is not plain, a line does not hold
    ``min_fields``..``max_fields`` fields, or anything is unusual (module docstring)."""
    head = plain_head(data)
    if head is None:
        return None
    delimiter, first = head
    n_fields = len(first)
    if n_fields < min_fields or (max_fields is not None and n_fields > max_fields):
        return None
    if any(j >= n_fields for j in numbers):
        return None
    table = _read_csv(data, delimiter, n_fields, numbers)
    if table is None:
        return None
    try:
        return _table_fields(
            table,
            columns,
            numbers,
            {
                j: first[j].decode("utf-8", "surrogateescape") if j < n_fields else None
                for j in first_row
            },
        )
    finally:
        del table
        release_free_memory()


def _table_fields(
    table, columns: Sequence[int], numbers: Sequence[int], first_row: dict[int, str | None]
) -> Fields | None:
    """:class:`Fields` of a table read by :func:`_read_csv` (None if it holds an empty field,
    a long token or a number that is not finite), consuming it column by column, so that the
    memory of each is free again before the next is converted."""
    n_rows, n_fields = table.num_rows, table.num_columns
    if n_rows == 0:
        return None
    words: dict[int, np.ndarray] = {}
    values: dict[int, np.ndarray] = {}
    for j in range(n_fields):
        column = table.column(0)
        table = table.remove_column(0)
        if column.null_count:
            return None
        if j in numbers:
            values[j] = np.concatenate([_floats(chunk) for chunk in column.chunks])
            if not np.isfinite(values[j]).all():
                return None
            continue
        parts = []
        for chunk in column.chunks:
            offsets = _offsets(chunk)
            lengths = np.diff(offsets)
            if len(lengths) and lengths.min() == 0:
                return None  # an empty field: not plain after all
            if j not in columns:
                continue  # fields read only to find empty ones
            if lengths.max(initial=0) > LONG_TOKEN_BYTES:
                return None  # long tokens are numbered in tokenizer order: leave them to it
            parts.append(gather_words(_padded(chunk, offsets), offsets[:-1], lengths))
        if j in columns:
            width = max((part.shape[1] for part in parts), default=1)
            words[j] = np.concatenate([pad_words(part, width) for part in parts])
        del column, parts
    for j in columns:
        if j >= n_fields:  # as for the tokenizer: rows without field j hold zero words
            words[j] = np.zeros((n_rows, 1), dtype=np.uint64)
    return Fields(
        row_count=np.full(n_rows, n_fields, dtype=np.int64),
        row_line=None,
        columns=words,
        first_row=first_row,
        numbers=values,
    )


def _read_csv(data: bytes, delimiter: bytes, n_fields: int, numbers: Sequence[int]):
    """pyarrow Table of ``data``: every field as binary, ``numbers`` as float64; None when
    pyarrow is missing or refuses the text (e.g. lines with different field counts)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as csv
    except ImportError:  # pragma: no cover - a dependency; the tokenizer does without
        return None
    names = [f"f{j}" for j in range(n_fields)]
    types = {name: pa.float64() if j in numbers else pa.binary() for j, name in enumerate(names)}
    try:
        return csv.read_csv(
            pa.py_buffer(data),
            read_options=csv.ReadOptions(column_names=names),
            parse_options=csv.ParseOptions(
                delimiter=delimiter.decode(),
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=csv.ConvertOptions(
                column_types=types,
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                check_utf8=False,
            ),
            memory_pool=pa.system_memory_pool(),
        )
    except (pa.ArrowException, ValueError):
        return None


def release_free_memory() -> None:
    """Give memory that is free again back to the operating system (glibc's ``malloc_trim``;
    nothing elsewhere). pyarrow's reader leaves tens of MiB of freed blocks in glibc's heaps,
    which would otherwise stay in the process's resident size until it ends."""
    if not _malloc_trim:
        try:
            import ctypes

            _malloc_trim.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):  # not glibc
            _malloc_trim.append(None)
    if _malloc_trim[0] is not None:
        _malloc_trim[0](0)


_malloc_trim: list[Callable[[int], int] | None] = []  # glibc's, once looked up


def _floats(chunk) -> np.ndarray:
    """The values of a pyarrow float64 array without nulls (read from its buffer: the
    array's ``to_numpy`` would import pandas)."""
    values = np.frombuffer(chunk.buffers()[1], dtype=np.float64)
    return values[chunk.offset : chunk.offset + len(chunk)]


def _offsets(chunk) -> np.ndarray:
    """[len + 1] int64: where the values of a pyarrow binary array start in its data buffer."""
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)
    return offsets[chunk.offset : chunk.offset + len(chunk) + 1].astype(np.int64)


def _padded(chunk, offsets: np.ndarray) -> np.ndarray:
    """The data buffer of a pyarrow binary array, copied with :data:`_PAD` zero bytes after
    it (:func:`gather_words` reads 8 bytes at every token start)."""
    size = int(offsets[-1])
    padded = np.zeros(size + _PAD, dtype=np.uint8)
    if size:
        padded[:size] = np.frombuffer(chunk.buffers()[2], dtype=np.uint8, count=size)
    return padded
