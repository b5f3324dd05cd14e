"""Reading input files as text: the bytes of a path, stdin, a URL or memory, decompressed as
they are read, in pieces of whole lines.

:func:`text_pieces` reads any input file (a path, ``-`` for stdin, a URL fsspec opens, or text
given in memory; gzip detected by its magic bytes and decompressed as it is read) about
:data:`PIECE_BYTES` at a time (a file of up to :data:`SMALL_FILE_PIECES` times that at once),
and yields *pieces*, bytes of whole lines: a leading UTF-8 byte-order mark dropped, ``\\n`` made
of every line end (``\\r\\n`` and a lone ``\\r`` end a line as ``\\n`` does, so line numbers
count all three), the last line ended too. Memory follows the piece, never the file: a gzip
bomb is read a piece at a time, and a line longer than
:data:`MAX_LINE_BYTES` is an error as soon as that many bytes of it have been read (its line
number is given by the reader that counts lines, :func:`divaeval.io._tokens.split_pieces`). A
NUL byte is an error: the file is binary, not one of our text formats.

:func:`padded_pieces` gives each piece in a buffer it reads the file into (``readinto``), with
the zero bytes after it that the compiled loops read past a token: the splitter
(:mod:`divaeval.io._tokens`) reads it where it is, neither new bytes made of every read nor a
padded copy of them; :func:`text_pieces` gives the pieces as bytes, for readers that keep them.

Blank and comment lines are left in the pieces: the tokenizer (:mod:`divaeval.io._tokens`) drops
them as it splits, at the cost of their bytes, and keeps the line number of every row.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import select
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, NamedTuple
from zlib import error as zlib_error

import numpy as np

from divaeval import native
from divaeval.errors import DataError
from divaeval.io._words import _PAD

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"  # dropped at the start of a file

#: text is read (and decompressed) this many bytes at a time
PIECE_BYTES = 1 << 20
#: a file of at most this many pieces' bytes is read at once: one piece (a TREC run of 50 topics
#: x 1000 lines is 2.5 MB), split without pieces to join; a larger one a piece at a time from
#: the start (a first piece of 4 MiB left the 1M-line run's heap 7 MB larger)
SMALL_FILE_PIECES = 4
#: how long a read of a pipe waits for data before it looks for a Ctrl-C (:class:`_PipeReader`)
PIPE_WAIT_SECONDS = 0.1
#: the longest line any reader takes (far beyond any token of a TREC file); a longer line is an
#: error as soon as this many of its bytes are read (a gzip bomb of one endless line included)
MAX_LINE_BYTES = 16 << 20


class LineTooLong(DataError):
    """A line longer than :data:`MAX_LINE_BYTES`; the reader that counts lines locates it."""

    def __init__(self, name: str):
        super().__init__(
            f"line longer than {MAX_LINE_BYTES >> 20} MiB (no TREC file has one)", file=name
        )


@dataclass(eq=False, repr=False)
class Source:
    """How to name an input in messages: its name, and the physical line of every row."""

    name: str
    lines: LineMap = field(default_factory=lambda: LineMap.empty(1))

    def line_of(self, row: int | np.integer) -> int:
        """Physical 1-based line number of row ``row``."""
        return self.lines.line_of(int(row))

    def lines_of(self, rows: np.ndarray) -> np.ndarray:
        """Physical 1-based line numbers of ``rows``."""
        return self.lines.lines_of(rows)


class LineMap(NamedTuple):
    """The line of every row of a text, compactly: rows ``starts[g]`` … are on consecutive
    lines from ``first_lines[g]`` on (one segment per stretch of rows without a blank or
    comment line between them: one for a file without any)."""

    starts: np.ndarray  # [G] int64: the first row of each segment, ascending, starts[0] == 0
    first_lines: np.ndarray  # [G] int64: the line of that row

    @classmethod
    def empty(cls, first_line: int) -> LineMap:
        return cls(np.zeros(1, dtype=np.int64), np.full(1, first_line, dtype=np.int64))

    @classmethod
    def of_rows(cls, row_lines: np.ndarray) -> LineMap:
        """The map of rows on the (ascending) lines ``row_lines``."""
        if not len(row_lines):
            return cls.empty(1)
        breaks = np.flatnonzero(np.diff(row_lines) != 1) + 1
        starts = np.concatenate(([0], breaks))
        return cls(starts, row_lines[starts])

    def line_of(self, row: int) -> int:
        segment = int(np.searchsorted(self.starts, row, side="right")) - 1
        return int(self.first_lines[segment]) + row - int(self.starts[segment])

    def lines_of(self, rows: np.ndarray) -> np.ndarray:
        """[K] int64: the line of each of ``rows``."""
        segment = np.searchsorted(self.starts, rows, side="right") - 1
        return self.first_lines[segment] + (rows - self.starts[segment])

    def shifted(self, lines: int) -> LineMap:
        """The same rows, ``lines`` lines further down."""
        return LineMap(self.starts, self.first_lines + lines)

    def rows(self, begin: int, end: int) -> LineMap:
        """The map of rows ``begin`` to ``end`` (exclusive), numbered from 0."""
        first = int(np.searchsorted(self.starts, begin, side="right")) - 1
        last = int(np.searchsorted(self.starts, max(end - 1, begin), side="right"))
        starts = self.starts[first:last] - begin
        first_lines = self.first_lines[first:last].copy()
        first_lines[0] += -int(starts[0])
        starts = starts.copy()
        starts[0] = 0
        return LineMap(starts, first_lines)

    @staticmethod
    def joined(maps: list[tuple[int, LineMap]]) -> LineMap:
        """One map of several maps' rows end to end: (rows, map) of each."""
        starts, first_lines = [], []
        offset = 0
        for n_rows, part in maps:
            if n_rows:
                starts.append(part.starts + offset)
                first_lines.append(part.first_lines)
            offset += n_rows
        if not starts:
            return maps[0][1] if maps else LineMap.empty(1)
        merged = LineMap(np.concatenate(starts), np.concatenate(first_lines))
        # segments that go on where the one before ended are one
        row_gap = np.diff(merged.starts)
        line_gap = np.diff(merged.first_lines)
        keep = np.concatenate(([True], row_gap != line_gap))
        return LineMap(merged.starts[keep], merged.first_lines[keep])


def text_column(values):
    """A pandas column of input text, kept as Python ``str`` objects: pandas 3 would store text
    as Arrow strings where pyarrow is installed, and those refuse the surrogate escapes that
    stand for a file's non-UTF-8 bytes."""
    import pandas as pd  # (not at the top: only frames built on request need pandas)

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


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


@contextmanager
def open_binary(
    path: str,
    *,
    what: str,
    name: str | None = None,
    decompress: bool = True,
    text: bytes | None = None,
) -> Iterator[BinaryIO]:
    """``path`` opened for reading bytes (``-``: stdin; a URL: through fsspec; ``text``: these
    bytes, named ``path``), decompressed as it is read when it starts with gzip's magic bytes;
    a missing or unreadable file, or corrupt gzip data met while reading, is a DataError about
    ``name`` (default: ``path``). ``decompress=False``: the file as it is, seekable (not
    stdin), for reading ranges of it (:mod:`divaeval.io.blocks`)."""
    name = name or display_name(path)
    handle = None
    try:
        if text is not None:
            raw: BinaryIO = io.BytesIO(text)
        elif path == "-":
            raw = _interruptible(sys.stdin.buffer)
        elif is_url(path):
            try:
                import fsspec  # (not at the top: an optional extra, for URLs only)
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
            raw = _interruptible(handle)
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


def _interruptible(stream: Any) -> Any:
    """``stream``, or where it reads a pipe, FIFO, terminal or socket (stdin, ``<(zcat
    run.gz)``: an input read once), a :class:`_PipeReader` of its file descriptor, buffered
    (stdin is then read from its descriptor, not through ``sys.stdin``: divaeval reads it
    once, and nothing reads it before)."""
    try:
        fd = stream.fileno()
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except (OSError, ValueError, AttributeError):  # (io.UnsupportedOperation is both)
        return stream  # no descriptor: text in memory, a test's stdin
    if regular or not hasattr(select, "poll"):  # (Windows: poll is for sockets only)
        return stream
    return io.BufferedReader(_PipeReader(fd))


class _PipeReader(io.RawIOBase):
    """The file descriptor ``fd`` of a pipe read so that a Ctrl-C is never held up.

    A ``BufferedReader`` reads a pipe with ``read()`` calls in C until it has the bytes asked
    for. A SIGINT that comes while one of them returns data (the process woken, not yet
    running: a loaded machine) is only noted by Python's C-level handler, and the next
    ``read()`` sleeps until more data or the end comes, KeyboardInterrupt after it: never, if
    the writer waits (a named pipe written by a process the Ctrl-C did not reach). Here each
    read first waits for data in ``poll()`` at most :data:`PIPE_WAIT_SECONDS` at a time, and
    between two waits the interpreter raises the KeyboardInterrupt it has noted."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd
        self.poller = select.poll()
        self.poller.register(fd, select.POLLIN)

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def readinto(self, buffer: Any) -> int:
        while not self.poller.poll(PIPE_WAIT_SECONDS * 1000):
            pass  # (here a KeyboardInterrupt noted before or during the wait is raised)
        return os.readv(self.fd, [buffer])


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

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readable(self) -> bool:
        return True


def normalize_line_ends(data: bytes) -> bytes:
    """``data`` with every ``\\r\\n`` and lone ``\\r`` made ``\\n`` (a copy only if needed; with
    the compiled loops in one pass, a line at a time: replacing ``\\r\\n`` took 1.5 ns a byte)."""
    if b"\r" in data:
        if native.kernels is not None:
            return native.kernels.line_ends(data)
        data = data.replace(b"\r\n", b"\n")
        if b"\r" in data:
            data = data.replace(b"\r", b"\n")
    return data


def binary_file(what: str, name: str) -> DataError:
    return DataError(f"{what} file looks binary (NUL byte), not text", file=name)


class Piece(NamedTuple):
    """Whole lines of a text (see the module docstring): ``buffer[:size]``, followed in
    ``buffer`` by at least :data:`~divaeval.io._words._PAD` zero bytes, so that the compiled
    loops and the word gathering read past a token's end without a copy of the text."""

    buffer: bytes | bytearray
    size: int

    @classmethod
    def of(cls, data: bytes) -> Piece:
        """The piece of the whole lines ``data`` (copied, with the zero bytes after them)."""
        return cls(data + bytes(_PAD), len(data))

    def tobytes(self) -> bytes:
        return bytes(memoryview(self.buffer)[: self.size])


def text_pieces(
    path: str,
    *,
    what: str,
    text: str | bytes | None = None,
    piece_bytes: int | None = None,
    line_limit: bool = True,
    raw: bool = False,
) -> Iterator[bytes]:
    """The pieces of :func:`padded_pieces` as bytes (for readers that keep them)."""
    for piece in padded_pieces(
        path, what=what, text=text, piece_bytes=piece_bytes, line_limit=line_limit, raw=raw
    ):
        yield piece.tobytes()


def padded_pieces(
    path: str,
    *,
    what: str,
    text: str | bytes | None = None,
    piece_bytes: int | None = None,
    line_limit: bool = True,
    raw: bool = False,
) -> Iterator[Piece]:
    """The pieces of the input ``path`` (``-`` = stdin; ``text``: its content in memory,
    named ``path``), see the module docstring; ``piece_bytes``: read this many bytes at a time
    (default :data:`PIECE_BYTES`). ``line_limit=False``: lines of any length (XML, whose lines
    the parser reads in parts); ``raw``: the text as it is, neither decompressed nor without a
    byte-order mark (:func:`~divaeval.io._tokens.split_fields`).

    Each piece is read (``readinto``) into one buffer, with the zero bytes after it, and the
    next piece into the same buffer: a piece is valid until the next is asked for. A file is
    so neither read into new bytes nor copied into a padded array, a piece at a time. The
    buffer is sized by the file's size where that is known (a plain local file, text in
    memory) and never filled before it is read into: a small file touches no more memory than
    its bytes."""
    name = display_name(path)
    piece_bytes = piece_bytes or PIECE_BYTES
    given = None if text is None else text.encode("utf-8") if isinstance(text, str) else text
    with open_binary(path, what=what, text=given, decompress=not raw) as stream:
        size = piece_bytes
        stored = len(given) if given is not None else _file_size(path)
        if given is None and stored <= SMALL_FILE_PIECES * piece_bytes:
            size = SMALL_FILE_PIECES * piece_bytes
        # the bytes the stream holds, where known (a buffer for more than them is not touched)
        expected = float("inf") if isinstance(stream, gzip.GzipFile) else stored
        buffer = bytearray()
        held = 0  # buffer[:held]: the start of a line not ended yet
        consumed = 0  # bytes read from the stream
        pending_cr = False  # the last chunk ended with \r (the first half of \r\n?)
        start = not raw
        while True:
            request = int(min(size, max(expected - consumed, 0) + _EOF_PROBE_BYTES))
            if start:  # (a byte-order mark is read whole, however small the pieces)
                request = max(request, len(UTF8_BOM))
            size = piece_bytes
            if len(buffer) < held + request + _PAD:
                buffer = _grown(buffer, held, held + request + _PAD)
            got = _fill(stream, memoryview(buffer)[held : held + request])
            consumed += got
            if not got:
                if held:
                    buffer[held] = 10  # the last line ended
                    yield _padded(buffer, held + 1)
                return
            if start:
                if got >= len(UTF8_BOM) and buffer.startswith(UTF8_BOM):
                    buffer[: got - len(UTF8_BOM)] = buffer[len(UTF8_BOM) : got]
                    got -= len(UTF8_BOM)
                start = False
            end = held + got
            if buffer.find(0, held, end) >= 0:
                raise binary_file(what, name)
            if pending_cr and end > held and buffer[held] == 10:
                # the \n of a \r\n cut in two: its \r ended the line
                buffer[held : end - 1] = buffer[held + 1 : end]
                end -= 1
            pending_cr = end > held and buffer[end - 1] == 13
            if buffer.find(13, held, end) >= 0:
                ended = normalize_line_ends(bytes(memoryview(buffer)[held:end]))
                buffer[held : held + len(ended)] = ended
                end = held + len(ended)
            if line_limit and end > MAX_LINE_BYTES:
                # (every other line of the chunk is shorter than the chunk: only the one
                # that began before it can be too long)
                newline = buffer.find(10, held, end)
                if (newline if newline >= 0 else end) > MAX_LINE_BYTES:
                    raise LineTooLong(name)
            lines_end = buffer.rfind(10, held, end) + 1
            if lines_end == 0:
                held = end
                continue
            rest = bytes(memoryview(buffer)[lines_end:end])
            yield _padded(buffer, lines_end)
            buffer[: len(rest)] = rest
            held = len(rest)


#: beyond the bytes a file is expected to hold, a read asks for this many more, so that a read
#: that ends short is known to have met the end (and a file that grew is still read whole)
_EOF_PROBE_BYTES = 4096


def _grown(buffer: bytearray, held: int, needed: int) -> bytearray:
    """A buffer of at least ``needed`` bytes (half as large again as ``buffer`` at least,
    where there was one) that starts with ``buffer[:held]``."""
    size = max(needed, len(buffer) * 3 // 2)
    grown = bytearray(size) if native.kernels is None else native.kernels.unfilled_bytearray(size)
    grown[:held] = memoryview(buffer)[:held]
    return grown


def _padded(buffer: bytearray, size: int) -> Piece:
    """The piece ``buffer[:size]``, the bytes after it zeroed."""
    buffer[size : size + _PAD] = bytes(_PAD)
    return Piece(buffer, size)


def _fill(stream: Any, view: memoryview) -> int:
    """Read ``stream`` into ``view`` until it is full or the stream ends; the bytes read."""
    got = 0
    while got < len(view):
        more = stream.readinto(view[got:])
        if not more:
            break
        got += more
    return got


def _file_size(path: str) -> float:
    """The size of the local file ``path`` as stored (gzip: compressed), or inf (stdin, a URL,
    not a regular file, or not there: :func:`open_binary` says why)."""
    if path == "-" or is_url(path):
        return float("inf")
    try:
        status = os.stat(path)
    except OSError:
        return float("inf")
    return status.st_size if stat.S_ISREG(status.st_mode) else float("inf")


_COMMENT_LINE = rb"(?m)^[ \t\f\v]*#[^\n]*"  # (compiled at first use)


class WholeText(NamedTuple):
    """The whole text of an input file (:func:`read_source`)."""

    name: str
    data: bytes


def read_source(path: str, *, what: str, comments: bool = True) -> WholeText:
    """The whole text of ``path`` as :func:`text_pieces` reads it, comment lines blanked
    (unless ``comments`` is False), for the readers that take a file at once (score tables)."""
    data = b"".join(text_pieces(path, what=what))
    if comments and b"#" in data:
        data = re.sub(_COMMENT_LINE, b"", data)
    return WholeText(display_name(path), data)
