"""A run file read in blocks of whole topics, so that memory follows the block, not the file.

:func:`topic_blocks` reads a run (a path, ``-`` for stdin, gzip detected by its magic bytes, or
any URL fsspec opens) about ``block_bytes`` at a time and yields :class:`Block` s: text of whole
lines, normalised as :func:`~divaeval.io._text.read_source` normalises a whole file (no
byte-order mark, ``\\n`` for every line end), each with the number of its first line, so
:func:`~divaeval.io.runs.read_run` parses it with the line numbers of the file. A block ends
where a topic ends: the lines of the last topic read so far are held back and start the next
block. A topic larger than ``block_bytes`` makes its block larger (a topic is never split).

Topics are found as the tokenizer finds them: the first whitespace-separated field of a line
that holds a field and is not a comment (first non-blank character ``#``). Only the lines of the
last topic of a block are looked at (from the end), so finding the cut costs nothing
measurable. A run whose lines are not grouped by topic is detected by the caller, which sees
the same topic in two blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from divaeval.io._text import UTF8_BOM, open_binary
from divaeval.io._tokens import normalize_line_ends

#: the default amount of run text per block (about 200,000 lines; measured: a 1M-line run then
#: peaks at 250 MiB instead of 410 MiB read whole, in the same time)
DEFAULT_BLOCK_BYTES = 8 << 20


@dataclass(frozen=True)
class Block:
    """Whole topics of a run file: ``data`` (normalised text) starting at line ``first_line``;
    ``last`` is True for the file's last block."""

    name: str
    data: bytes
    first_line: int
    last: bool


def topic_of_line(line: bytes) -> bytes | None:
    """The topic of a line as the tokenizer finds it (its first whitespace-separated field),
    or None for a blank or comment line (first field starting with ``#``)."""
    fields = line.split(None, 1)
    return fields[0] if fields and not fields[0].startswith(b"#") else None


def _last_topic_start(data: bytes, end: int, known_end: int, known_topic: bytes | None):
    """(offset of the first line of the last topic in ``data[:end]``, that topic).

    ``data[:known_end]`` holds only lines of ``known_topic`` (the held-back topic), so the scan
    stops there. The offset is 0 when every line belongs to one topic."""
    topic = None
    start = end
    pos = end
    while pos > 0:
        if pos <= known_end and topic in (None, known_topic):
            return 0, known_topic
        line_start = data.rfind(b"\n", 0, pos - 1) + 1
        line_topic = topic_of_line(data[line_start:pos])
        if line_topic is not None:
            if topic is None:
                topic = line_topic
            elif line_topic != topic:
                return start, topic
            start = line_start
        pos = line_start
    return 0, topic


def topic_blocks(path: str, *, block_bytes: int = DEFAULT_BLOCK_BYTES) -> Iterator[Block]:
    """The blocks of whole topics of the run file ``path`` (see the module docstring)."""
    name = "<stdin>" if path == "-" else path
    with open_binary(path, what="run") as stream:
        held = b""  # lines of the last topic so far (and any incomplete last line)
        held_topic: bytes | None = None  # the topic of held's complete lines
        held_known = 0  # held[:held_known] is complete lines of held_topic (or blank)
        first_line = 1
        start = True
        pending_cr = b""
        while True:
            want = max(block_bytes, len(UTF8_BOM)) if start else block_bytes
            chunk = stream.read(want)
            at_end = len(chunk) < want  # read() returns less only at the end
            if start:
                if chunk.startswith(UTF8_BOM):
                    chunk = chunk[len(UTF8_BOM) :]
                start = False
            chunk = pending_cr + chunk
            pending_cr = b""
            if not at_end and chunk.endswith(b"\r"):  # may be the first half of \r\n
                chunk, pending_cr = chunk[:-1], b"\r"
            data = held + normalize_line_ends(chunk)  # no copy while nothing is held
            del chunk, held
            if at_end:
                yield Block(name, data, first_line, last=True)
                return
            end = data.rfind(b"\n") + 1  # complete lines end here
            cut, topic = _last_topic_start(data, end, held_known, held_topic)
            if cut == 0:  # one topic so far: read on
                held, held_topic, held_known = data, topic, end
                continue
            lines = data.count(b"\n", 0, cut)
            held, held_topic, held_known = data[cut:], topic, end - cut
            block = data[:cut]
            del data
            yield Block(name, block, first_line, last=False)
            del block
            first_line += lines


@dataclass(frozen=True)
class FileRange:
    """Bytes ``[start, end)`` of the run file ``name``, whole topics, read as they are where
    they are scored (:meth:`read`), so that worker processes, or the workers of a cluster on
    shared or object storage, read the run themselves: a range of a plain text, or a whole
    file (gzipped too: :func:`~divaeval.io.read_run` decompresses the bytes). ``location``
    is where to open it (an absolute path or a URL). Lines are numbered from the range's
    start; :meth:`lines_before` gives the lines before it, for messages."""

    name: str
    location: str
    start: int
    end: int

    def read(self) -> bytes:
        with open_plain(self.location, self.name) as stream:
            stream.seek(self.start)
            data = stream.read(self.end - self.start)
        return data[len(UTF8_BOM) :] if self.start == 0 and data.startswith(UTF8_BOM) else data

    def lines_before(self) -> int:
        """The lines of the file before ``start`` (line ends as the tokenizer counts them:
        ``\\n``, ``\\r\\n`` and a lone ``\\r``); read only when a message needs a line."""
        lines, left = 0, self.start
        previous_cr = False
        with open_plain(self.location, self.name) as stream:
            while left > 0:
                chunk = stream.read(min(left, DEFAULT_BLOCK_BYTES))
                if not chunk:
                    break
                left -= len(chunk)
                lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
                if previous_cr and chunk.startswith(b"\n"):
                    lines -= 1  # a \r\n cut in two, counted twice
                previous_cr = chunk.endswith(b"\r")
        return lines


def open_plain(location: str, name: str):
    """The run file at ``location`` (a local path or a URL) opened for reading its bytes as
    they are, seekable; errors name it ``name``."""
    return open_binary(location, what="run", name=name, decompress=False)


def file_size(location: str) -> int:
    from divaeval.io._text import is_url

    if is_url(location):
        import fsspec

        filesystem, path = fsspec.core.url_to_fs(location)
        return int(filesystem.size(path))
    import os

    return os.path.getsize(location)


#: bytes read at a time while looking for the end of a topic
_SCAN_BYTES = 1 << 16


def range_blocks(
    name: str, location: str, *, block_bytes: int = DEFAULT_BLOCK_BYTES
) -> Iterator[FileRange]:
    """The file cut into :class:`FileRange` s of about ``block_bytes`` ending where a topic
    ends, found by reading a few lines after each cut point (not the whole file): a range ends
    at the first line, after the first whole line past its nominal end, whose topic differs
    from the topic of the line before it (topics found as in :func:`topic_blocks`; blank and
    comment lines belong to the range before). A run not grouped by topic is detected by the
    caller, as for :func:`topic_blocks`."""
    size = file_size(location)
    start = 0
    with open_plain(location, name) as stream:
        while start < size:
            end = size if start + block_bytes >= size else _topic_end(stream, start + block_bytes)
            yield FileRange(name, location, start, end)
            start = end


def _topic_end(stream, offset: int) -> int:
    """The offset of the first line, after the first line start past ``offset``, whose topic
    differs from the previous content line's (the file's size if none)."""
    stream.seek(offset)
    buffer = b""
    position = offset  # file offset of buffer[0]
    skipped_partial = False
    previous: bytes | None = None
    while True:
        chunk = stream.read(_SCAN_BYTES)
        buffer += chunk
        at = 0
        if not skipped_partial:
            newline = buffer.find(b"\n")
            if newline < 0:
                if not chunk:
                    return position + len(buffer)
                continue
            at = newline + 1
            skipped_partial = True
        while True:
            newline = buffer.find(b"\n", at)
            if newline < 0 and chunk:
                break  # an incomplete line: read more
            topic = topic_of_line(buffer[at : len(buffer) if newline < 0 else newline])
            if topic is not None:
                if previous is not None and topic != previous:
                    return position + at
                previous = topic
            if newline < 0:
                return position + len(buffer)  # the end of the file
            at = newline + 1
        buffer, position = buffer[at:], position + at
