"""Reading input files into whitespace-separated tables.

:func:`read_source` loads the bytes of any input file (a path, ``-`` for stdin, gzip detected by
its magic bytes), drops a leading UTF-8 byte-order mark, makes ``\\n`` of every line end (``\\r\\n``
and a lone ``\\r`` end a line as ``\\n`` does, so line numbers count all three) and blanks out
comment lines (first non-blank character ``#``); a ``#`` inside a field is data (MS MARCO docids
contain it). Every file is then split by the one numpy tokenizer
of :mod:`divaeval.io._tokens`, which also records the line number of every row; large plain runs
and qrels go through pyarrow's CSV reader instead (:mod:`divaeval.io._arrow`, the same fields),
and their line numbers are counted only when a message needs one.

Row ``i`` of the table is the ``i``-th non-blank, non-comment line; :meth:`Source.line_of` maps it
back to the physical 1-based line number for error messages. That mapping is computed lazily,
only when a message needs it, so the fast path never pays for it.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO
from zlib import error as zlib_error

import numpy as np

from divaeval.errors import DataError
from divaeval.io._tokens import UTF8_BOM, Fields, normalize_line_ends

_COMMENT_LINE = re.compile(rb"(?m)^[ \t\f\v]*#[^\n]*")
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(eq=False)
class Source:
    """The cleaned bytes of one input file and how to name it in messages."""

    name: str
    data: bytes
    #: the line number of the first line of ``data`` (> 1 for a block of a larger file)
    first_line: int = 1
    _line_numbers: np.ndarray | None = field(default=None, repr=False)
    _rows_are_lines: bool = field(default=False, repr=False)

    def set_row_lines(self, fields: Fields) -> None:
        """Record the physical line number of every row of ``fields`` split from ``data``:
        known to the tokenizer, or row i on line i + 1 (a plain text without blank lines),
        else (after pyarrow's fast path) counted by :meth:`line_of` when asked."""
        self._line_numbers = fields.row_line
        self._rows_are_lines = fields.rows_are_lines

    def line_of(self, row: int | np.integer) -> int:
        """Physical 1-based line number of table row ``row``."""
        if self._rows_are_lines:
            return int(row) + self.first_line
        if self._line_numbers is None:
            self._line_numbers = _content_line_numbers(self.data)
        return int(self._line_numbers[int(row)]) + self.first_line - 1


def _content_line_numbers(data: bytes) -> np.ndarray:
    """1-based numbers of the lines that hold at least one non-whitespace byte.

    One bool per byte and one number per line (not per byte: pyarrow's fast path leaves every
    block's line numbers to this)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    if not len(arr):
        return np.zeros(0, dtype=np.int64)
    content = arr != 32  # whitespace: space and 9..13 (\t \n \v \f \r), as for the tokenizer
    content &= (arr < 9) | (arr > 13)
    starts = np.flatnonzero(arr == 10)
    starts += 1  # every line starts after a newline, and the first at 0
    starts = np.concatenate(([0], starts[starts < len(arr)]))
    # (an empty line spans just its newline, which is not content)
    return np.flatnonzero(np.logical_or.reduceat(content, starts)) + 1


def text_column(values):
    """A pandas column of input text, kept as Python ``str`` objects: pandas 3 would store text
    as Arrow strings where pyarrow is installed, and those refuse the surrogate escapes that
    stand for a file's non-UTF-8 bytes."""
    import pandas as pd

    return pd.Series(values, dtype=object, copy=False)


def is_url(path: str) -> bool:
    """Whether ``path`` names a file fsspec opens (``s3://...``, ``gcs://...``,
    ``https://...``), not a local path."""
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.replace("+", "").replace("-", "").isalnum() and len(scheme) > 1


def read_once(path: str) -> bool:
    """Whether the input ``path`` can be read only once: stdin (``-``), or a pipe or device,
    such as a shell's ``<(zcat run.gz)``; not a regular file or a URL (nor a path that does
    not exist: opening it reports that). Such an input is never peeked at before it is read."""
    if path == "-":
        return True
    if is_url(path):
        return False
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


@contextmanager
def open_binary(
    path: str, *, what: str, name: str | None = None, decompress: bool = True
) -> Iterator[BinaryIO]:
    """``path`` opened for reading bytes (``-``: stdin; a URL: through fsspec), decompressed
    when it starts with gzip's magic bytes; a missing or unreadable file is a DataError about
    ``name`` (default: ``path``). ``decompress=False``: the file as it is, seekable (not
    stdin), for reading ranges of it (:mod:`divaeval.io.blocks`)."""
    name = name or ("<stdin>" if path == "-" else path)
    handle = None
    try:
        if path == "-":
            raw: BinaryIO = sys.stdin.buffer
        elif is_url(path):
            try:
                import fsspec
            except ImportError:
                raise DataError(
                    f"cannot open {what} file: reading URLs needs fsspec "
                    "(pip install 'divaeval[dask]' or fsspec)",
                    file=name,
                ) from None
            handle = fsspec.open(path, "rb").open()
            raw = handle
        else:
            handle = open(path, "rb")  # noqa: SIM115 (closed below)
            raw = handle
        if not decompress:
            yield raw
            return
        stream: Any = raw if hasattr(raw, "peek") else _Peekable(raw)
        if _magic(handle, stream) == GZIP_MAGIC:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")
        yield stream
    except FileNotFoundError:
        raise DataError(f"cannot open {what} file: no such file", file=name) from None
    except IsADirectoryError:
        raise DataError(f"cannot open {what} file: is a directory", file=name) from None
    except (gzip.BadGzipFile, EOFError, zlib_error) as exc:
        raise DataError(f"corrupt gzip data in {what} file: {exc}", file=name) from None
    except OSError as exc:
        raise DataError(f"cannot read {what} file: {exc.strerror or exc}", file=name) from None
    finally:
        if handle is not None:
            handle.close()


def _magic(handle: Any, stream: Any) -> bytes:
    """The first two bytes of a stream not read yet. A local file's are read where they are
    (``pread``): peeking fills the buffer of a ``BufferedReader``, and its ``read()`` of the
    rest then copies the whole file once more (25 ms for 24 MB)."""
    if handle is not None and hasattr(handle, "fileno"):
        try:
            return os.pread(handle.fileno(), 2, 0)
        except (OSError, AttributeError, ValueError):  # a pipe (``<(...)``), or no pread
            pass
    return stream.peek(2)[:2]


class _Peekable:
    """A binary stream with ``peek`` (for streams fsspec returns without one)."""

    def __init__(self, raw):
        self._raw = raw
        self._head = b""

    def peek(self, size: int = 1) -> bytes:
        if len(self._head) < size:
            self._head += self._raw.read(size - len(self._head))
        return self._head

    def read(self, size: int = -1) -> bytes:
        head = self._head
        if size is None or size < 0:
            self._head = b""
            return head + self._raw.read()
        if size <= len(head):
            self._head = head[size:]
            return head[:size]
        self._head = b""
        return head + self._raw.read(size - len(head))

    def readable(self) -> bool:
        return True


def check_text(data: bytes, *, what: str, name: str) -> None:
    """A file with a NUL byte is binary, not one of our text formats: an error."""
    if b"\x00" in data:
        raise DataError(f"{what} file looks binary (NUL byte), not text", file=name)


def read_source(
    path: str,
    *,
    what: str,
    text: str | bytes | None = None,
    comments: bool = True,
    first_line: int = 1,
) -> Source:
    """Read ``path`` (``-`` = stdin; gzip by magic bytes): without a leading byte-order mark,
    ``\\n`` line ends, and comment lines blanked (unless ``comments`` is False: XML).

    ``text``: the file's content, given in memory instead of read (``path`` then only names it
    in messages); it goes through the same checks. ``first_line``: the line number of its
    first line, when ``text`` is a block of a larger file (:mod:`divaeval.io.blocks`)."""
    name = "<stdin>" if path == "-" else path
    if text is not None:
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        if data[:2] == GZIP_MAGIC:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib_error) as exc:
                raise DataError(f"corrupt gzip data in {what} file: {exc}", file=name) from None
    else:
        with open_binary(path, what=what) as stream:
            data = stream.read()
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    check_text(data, what=what, name=name)
    data = normalize_line_ends(data)
    if comments and b"#" in data:
        data = _COMMENT_LINE.sub(b"", data)
    return Source(name=name, data=data, first_line=first_line)
