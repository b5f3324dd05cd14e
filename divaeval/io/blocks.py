"""A run file cut into byte ranges of whole topics, read where they are scored.

:func:`range_blocks` cuts a plain run file (a local path or a URL) into :class:`FileRange` s of
about ``block_bytes``, each ending where a topic ends, by reading a few lines after each cut
point (not the whole file); worker processes, or the workers of a cluster on shared or object
storage, then read and parse their ranges themselves. (A run read in this process is cut into
blocks of whole topics as it is parsed: :func:`divaeval.io.runs.run_blocks`.)

Topics are found as the tokenizer finds them: the first field of a line that holds a field and
is not a comment (first field starting with ``#``). A run whose lines are not grouped by topic
is detected by the caller, which sees the same topic in two ranges.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from divaeval.io._text import UTF8_BOM, is_url, open_binary
from divaeval.io._tokens import split_piece
from divaeval.io._words import pad_words

#: the default amount of run text per block (about 100,000 lines; measured on the 1M-line runs
#: of the bench, -j 1: 235 -> 190 MiB with -m ndeval, 200 -> 173 with nDCG@10, AP and RR
#: against blocks of 8 MiB, in the same CPU time)
DEFAULT_BLOCK_BYTES = 4 << 20


class FileRange(NamedTuple):
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
    if is_url(location):
        import fsspec  # (not at the top: an optional extra, for URLs only)

        filesystem, path = fsspec.core.url_to_fs(location)
        return int(filesystem.size(path))
    return os.path.getsize(location)


#: bytes read at a time while looking for the end of a topic
_SCAN_BYTES = 1 << 16


def range_blocks(
    name: str, location: str, *, block_bytes: int = DEFAULT_BLOCK_BYTES
) -> Iterator[FileRange]:
    """The file cut into :class:`FileRange` s of about ``block_bytes`` ending where a topic
    ends, found by reading a few lines after each cut point (not the whole file): a range ends
    at the first line, after the first whole line past its nominal end, whose topic differs
    from the topic of the line before it (blank and comment lines belong to the range before).
    A run not grouped by topic is detected by the caller."""
    size = file_size(location)
    start = 0
    with open_plain(location, name) as stream:
        while start < size:
            end = size if start + block_bytes >= size else _topic_end(stream, start + block_bytes)
            yield FileRange(name, location, start, end)
            start = end


def _topic_end(stream, offset: int) -> int:
    """The offset of the first line, after the first line start past ``offset``, whose topic
    differs from the previous content line's (the file's size if none). The lines are read
    :data:`_SCAN_BYTES` at a time and split by the tokenizer (blank and comment lines cost
    their bytes, not a Python step each)."""
    stream.seek(offset)
    buffer = b""
    position = offset  # file offset of buffer[0]
    previous: np.ndarray | None = None  # the topic (words) of the last content line
    skipped_partial = False
    while True:
        chunk = stream.read(_SCAN_BYTES)
        buffer += chunk
        if not skipped_partial:
            newline = buffer.find(b"\n")
            if newline < 0:
                if not chunk:
                    return position + len(buffer)
                continue
            buffer, position = buffer[newline + 1 :], position + newline + 1
            skipped_partial = True
        end = buffer.rfind(b"\n") + 1 if chunk else len(buffer)
        if end == 0:
            if not chunk:
                return position + len(buffer)
            continue
        lines = buffer[:end] if buffer[:end].endswith(b"\n") else buffer[:end] + b"\n"
        fields = split_piece(lines, (0,), (), 0, True)
        topics = fields.columns[0]
        if fields.n_rows:
            if previous is not None:
                topics = np.concatenate(_same_width(previous[None, :], topics))
            changes = np.flatnonzero(np.any(topics[1:] != topics[:-1], axis=1))
            if len(changes):
                row = int(changes[0]) + (1 if previous is None else 0)
                line = fields.lines.line_of(row)  # 0-based line within ``lines``
                starts = np.flatnonzero(np.frombuffer(lines, dtype=np.uint8) == 10) + 1
                return position + (int(starts[line - 1]) if line else 0)
            previous = topics[-1]
        if not chunk:
            return position + len(buffer)
        buffer, position = buffer[end:], position + end


def _same_width(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    width = max(a.shape[1], b.shape[1])
    return pad_words(a, width), pad_words(b, width)
