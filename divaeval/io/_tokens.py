"""A vectorised (numpy-only) tokenizer for whitespace-separated text files.

Every input format of divaeval is "fields separated by whitespace, one record a line". This
module splits such a file without a Python loop per line and without pandas:

1. :func:`split_fields` classifies every byte (whitespace = space, ``\\t``, ``\\n``, ``\\v``,
   ``\\f``, ``\\r``), finds the token boundaries where the class changes, and groups tokens into
   *rows*: the lines that hold at least one token. ``row_first``/``row_count`` give each row's
   first token and field count (so a caller validates field counts for every line at once), and
   ``row_line`` the physical 1-based line number for error messages. A lone ``\\r`` ends a line
   (as ``\\r\\n`` and ``\\n`` do). The text is processed in pieces of whole lines (about
   128 KiB), so temporary arrays stay small and in cache.
2. :func:`split_fields` also gathers one field of many rows into a matrix of 64-bit words: the
   field's bytes, 8 per word (native little-endian uint64, so in memory the bytes stay in
   text order), zero-padded. Input files hold no NUL byte (the reader rejects them), so a
   token's words identify it exactly, and the matrix viewed as bytes is a fixed-width ``S``
   array (:func:`as_bytes`, no copy). Numeric order of words is not byte order; the
   byte-swapped words are (:func:`byte_ranks`).
   A token longer than :data:`LONG_TOKEN_BYTES` is *long*: its row holds one *marker* word
   instead of its bytes, a process-wide id of the token (:func:`long_token`), whose first
   byte is NUL, so it cannot be the start of text. A matrix is thus at most
   ``LONG_TOKEN_BYTES / 8`` words wide however long a token is (memory follows the input, not
   rows × the longest token), equal tokens still have equal rows in every file, and the few
   long tokens take a Python path wherever their bytes matter (order, numbers, text).
3. :func:`factorize` turns a word matrix into integer codes: exact keys for tokens of up to 8
   bytes, otherwise a 64-bit hash that is then verified (a collision falls back to an exact
   lexicographic sort), so codes are never wrong. :class:`TokenTable` finds tokens of one
   file among the distinct tokens of another (a run's docnos among the qrels') the same way,
   and :func:`byte_ranks` orders tokens as ``strcmp`` does, where an order is needed.
4. :func:`parse_floats` converts a field exactly (numpy's bytes-to-float cast rounds correctly,
   as ``float()`` and C's ``strtod``) and locates the first token that is not a number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

#: _KEEP[r]: mask keeping the first r bytes (0..8) of a little-endian word
_KEEP = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=np.uint64)

#: odd multipliers, one per word position (cycled), for :func:`_hash`
_MULTIPLIERS = np.array(
    [(0x9E3779B97F4A7C15 + 2 * j * 0x632BE59BD9B4E019) % 2**64 | 1 for j in range(16)],
    dtype=np.uint64,
)


CHUNK_BYTES = 1 << 17  # text is split in ~128 KiB pieces of whole lines (fastest here)

#: Tokens longer than this are *long* (see the module docstring). Docnos, topic ids, grades and
#: scores are far shorter; long tokens are read one by one, in Python.
LONG_TOKEN_BYTES = 128

#: zero bytes appended to a buffer of text, so that every 8-byte word of a token that is not
#: long can be read at its start + 8 j (word j), even past the token's end (then masked)
_PAD = LONG_TOKEN_BYTES + 8
#: _KEEP_WORD[j][length]: the mask of word j of a token of ``length`` bytes (not long)
_KEEP_WORD = np.array(
    [[_KEEP[min(max(length - 8 * j, 0), 8)] for length in range(LONG_TOKEN_BYTES + 1)]
     for j in range(-(-LONG_TOKEN_BYTES // 8))],
    dtype=np.uint64,
)  # fmt: skip

#: The long tokens met so far: bytes -> id (>= 1), and id - 1 -> bytes. Ids are never reused,
#: so a marker names one token for the life of the process (in every file read).
_LONG_IDS: dict[bytes, int] = {}
_LONG_TOKENS: list[bytes] = []


def long_token(raw: bytes) -> np.uint64:
    """The marker word of the long token ``raw``: its id shifted past a NUL first byte."""
    return np.uint64(_long_number(raw) << 8)


def _long_number(raw: bytes) -> int:
    """The id of the long token ``raw`` (a new one if it is new)."""
    number = _LONG_IDS.get(raw)
    if number is None:
        _LONG_TOKENS.append(raw)
        number = _LONG_IDS[raw] = len(_LONG_TOKENS)
    return number


def long_rows(words: np.ndarray) -> np.ndarray:
    """[N] bool: the row holds a long token's marker (first byte NUL, word not zero)."""
    first = words[:, 0]
    nul_first = (first & np.uint64(0xFF)) == 0
    if not nul_first.any():  # the common case: no long token, no missing field
        return nul_first
    return nul_first & (first != 0)


def token_bytes(words: np.ndarray, row: int) -> bytes:
    """The bytes of the token in ``row`` of a word matrix (long or not)."""
    first = int(words[row, 0])
    if first and not first & 0xFF:
        return _LONG_TOKENS[(first >> 8) - 1]
    return words[row].astype("<u8").tobytes().rstrip(b"\0")


@dataclass(eq=False)
class Fields:
    """Selected fields of every row (non-blank line) of a text."""

    row_count: np.ndarray  # [R] int64: number of fields on the row
    row_line: np.ndarray | None  # [R] int64: 1-based line number of the row (None: not known)
    columns: dict[int, np.ndarray]  # field j -> [R, W] uint64 words (zeros: the row lacks it)
    first_row: dict[int, str | None]  # field j of the first row as text (None: absent)
    #: field j -> [R] float64, parsed, all finite (only from :mod:`divaeval.io._arrow`; the
    #: tokenizer leaves numbers as words, in ``columns``)
    numbers: dict[int, np.ndarray] = field(default_factory=dict)
    #: field j -> its :func:`factorize_with_keys` (only from :mod:`divaeval.io._arrow`, for
    #: fields pyarrow read dictionary-encoded; :meth:`factorize` serves both)
    factorized: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = field(
        default_factory=dict
    )
    #: row i is on line i + 1 (no blank line: so ``row_line`` is None, not an array to fill)
    rows_are_lines: bool = False

    @property
    def n_rows(self) -> int:
        return len(self.row_count)

    def text(self, column: int, row: int) -> str:
        """Field ``column`` of ``row`` as text."""
        return decode(self.columns[column][row : row + 1])[0]

    def factorize(self, column: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """:func:`factorize_with_keys` of field ``column`` (done already if pyarrow read it
        dictionary-encoded)."""
        if column in self.factorized:
            return self.factorized[column]
        return factorize_with_keys(self.columns[column])


def normalize_line_ends(data: bytes) -> bytes:
    """``data`` with every ``\\r\\n`` and lone ``\\r`` made ``\\n`` (a copy only if needed)."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if b"\r" in data:
            data = data.replace(b"\r", b"\n")
    return data


#: Bytes that are whitespace to the tokenizer but never part of a plain text (with the
#: delimiter that is not used). NUL bytes are refused before (by the readers' read_source).
_NEVER_PLAIN = (b"\r", b"\v", b"\f")
_CONTENT = re.compile(rb"[^\n]")  # the first byte of the first non-empty line
UTF8_BOM = b"\xef\xbb\xbf"  # pyarrow drops one at the start of a text; the tokenizer does not


def plain_head(data: bytes) -> tuple[bytes, list[bytes]] | None:
    """(delimiter, fields of the first non-empty line) of a *plain* text, or None when
    ``data`` is not plain (as far as a few byte searches tell) or holds no field.

    A text is plain when every line is either empty or holds fields separated by exactly one
    space (or exactly one tab, the same character throughout), with no whitespace at either
    end of the line and no other whitespace byte (``\\t`` or space, ``\\v``, ``\\f``,
    ``\\r``) anywhere, and does not start with a byte-order mark. Runs and qrels written by
    programs are plain (:mod:`divaeval.io._arrow` reads large ones with pyarrow;
    :func:`split_fields` splits small ones without classifying whitespace)."""
    head = first_fields(data)
    return head if head is not None and plain_bytes(data, head[0]) else None


def first_fields(data: bytes) -> tuple[bytes, list[bytes]] | None:
    """(delimiter, fields of the first non-empty line) as :func:`plain_head` finds them, with
    none of its searches through the whole text (:func:`plain_bytes`); None for a text
    without content or starting with a byte-order mark."""
    found = _CONTENT.search(data)
    if found is None or data.startswith(UTF8_BOM):
        return None
    start = found.start()
    end = data.find(b"\n", start)
    line = data[start : len(data) if end < 0 else end]
    delimiter = b"\t" if b"\t" in line else b" "
    return delimiter, line.split(delimiter)


def plain_bytes(data: bytes, delimiter: bytes) -> bool:
    """Whether ``data`` holds none of the whitespace bytes a plain text with ``delimiter``
    lacks (the other delimiter, ``\\r``, ``\\v``, ``\\f``): four byte searches."""
    other = b" " if delimiter == b"\t" else b"\t"
    return not any(byte in data for byte in (other, *_NEVER_PLAIN))


#: :func:`split_fields` splits a plain text of at most this many bytes as a grid
#: (:func:`_grid_fields`, whose temporaries span the whole text: a run of 4 MiB peaks at 45 MiB,
#: 33 MiB in pieces); larger ones in pieces (plain texts that large are mostly pyarrow's)
GRID_MAX_BYTES = 4 << 20


def split_fields(data: bytes, columns: Sequence[int], first_row: Sequence[int] = ()) -> Fields:
    """Split ``data`` (no NUL bytes) into rows and gather the fields ``columns`` (0-based) of
    every row as word matrices (see the module docstring), and the fields ``first_row`` of the
    first row only, as text.

    Tokens are found piece by piece, pieces of about :data:`CHUNK_BYTES` ending at a newline,
    so the byte-wide temporary arrays stay small and in cache (a whole-file pass would
    allocate several times the file size). Each field is then gathered once over the whole
    text, from its tokens' spans (row-wide steps on a few thousand rows per piece would cost
    more in numpy's per-call overhead than in work). A plain text whose lines all hold the
    same number of fields is split as a grid instead (:func:`_grid_fields`: a 2.5 MB run in
    17 ms instead of 21)."""
    data = normalize_line_ends(data)
    n = len(data)
    text = np.empty(n + _PAD, dtype=np.uint8)  # the text, readable past every token
    text[:n] = np.frombuffer(data, dtype=np.uint8)
    text[n:] = 0
    if n <= GRID_MAX_BYTES:
        grid = _grid_fields(data, text, columns, first_row)
        if grid is not None:
            return grid
    counts: list[np.ndarray] = []
    lines: list[np.ndarray] = []
    spans: dict[int, tuple[list[np.ndarray], list[np.ndarray]]] = {j: ([], []) for j in columns}
    head: dict[int, str | None] = dict.fromkeys(first_row)
    head_done = False
    lines_before = 0
    begin = 0
    while begin < n:
        stop = data.find(b"\n", begin + CHUNK_BYTES)
        stop = n if stop < 0 else stop + 1
        piece = _tokenize(text[begin : stop + _PAD], stop - begin)
        counts.append(piece.row_count)
        lines.append(piece.row_line + lines_before)
        lines_before += piece.n_lines - 1
        n_tokens = len(piece.starts)
        if not head_done and piece.n_rows:
            head_done = True
            for j in first_row:
                if piece.row_count[0] > j:
                    head[j] = piece.text(int(piece.row_first[0]) + j)
        for j, (starts, lengths) in spans.items():
            tokens = np.minimum(piece.row_first + j, n_tokens - 1)
            first = piece.starts[tokens]
            starts.append(first + begin)
            lengths.append(np.where(piece.row_count > j, piece.ends[tokens] - first, 0))
        begin = stop
    fields = {
        j: gather_words(text, _joined(starts), _joined(lengths))
        for j, (starts, lengths) in spans.items()
    }
    return Fields(
        row_count=_joined(counts),
        row_line=_joined(lines),
        columns=fields,
        first_row=head,
    )


def _grid_fields(
    data: bytes, text: np.ndarray, columns: Sequence[int], first_row: Sequence[int]
) -> Fields | None:
    """:func:`split_fields` of a plain text (:func:`plain_head`) whose lines all hold the
    same number F of fields, without a blank line (the last line may lack its newline), or
    None for any other text. Every field of such a text ends at a *separator*, the delimiter
    or a newline, and every separator ends a field: so the separators' positions, read as an
    [R, F] grid, are the ends of every row's fields, with no whitespace to classify and no
    tokens to group into rows. The grid holds if no field is empty (no two separators are
    adjacent, none starts the text), their count is a multiple of F, and the newlines are
    exactly the grid's last column. ``text``: the text's bytes, padded as for
    :func:`gather_words`."""
    head = plain_head(data)
    if head is None:
        return None
    delimiter, first = head
    n_fields, n = len(first), len(data)
    # Below 33, a plain text holds only newlines, its delimiter and (as data) control bytes:
    # one comparison finds the separators (a third of the cost of two, with 10 and the
    # delimiter). A control byte taken for one adds a separator but no newline, so the grid's
    # rows outnumber the newlines, and the count below refuses the text.
    ends = np.flatnonzero(text[:n] <= 32)
    if not data.endswith(b"\n"):
        ends = np.append(ends, n)  # the last line's end (text[n] is padding, not a newline)
    n_rows = len(ends) // n_fields
    if not n_rows or len(ends) != n_rows * n_fields or ends[0] == 0:
        return None
    starts = np.empty_like(ends)
    starts[0] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    lengths = ends - starts
    if not lengths.all():  # an empty field: a blank line, or two delimiters in a row
        return None
    # each row's last separator is its newline (or the text's end), and no other is
    last = text[ends[n_fields - 1 :: n_fields]]
    newlines = n_rows - (not data.endswith(b"\n"))
    if (last == ord(delimiter)).any() or np.count_nonzero(text[ends] == 10) != newlines:
        return None
    row_starts, row_lengths = starts.reshape(n_rows, n_fields), lengths.reshape(n_rows, n_fields)
    fields = {  # (a field that no row holds: zero words, as the tokenizer gives)
        j: gather_words(text, row_starts[:, j].copy(), row_lengths[:, j].copy())
        if j < n_fields
        else np.zeros((n_rows, 1), dtype=np.uint64)
        for j in columns
    }
    return Fields(
        row_count=np.broadcast_to(np.int64(n_fields), (n_rows,)),
        row_line=None,
        columns=fields,
        first_row={
            j: first[j].decode("utf-8", "surrogateescape") if j < n_fields else None
            for j in first_row
        },
        rows_are_lines=True,
    )


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The int64 arrays ``parts`` end to end."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


@dataclass(eq=False)
class _Piece:
    """The tokens of one piece of text: byte spans, and their grouping into rows."""

    buffer: np.ndarray  # uint8: the text plus at least _PAD readable bytes
    starts: np.ndarray  # [N] int64: first byte of each token
    ends: np.ndarray  # [N] int64: one past the last byte
    row_first: np.ndarray  # [R] int64: index of the row's first token
    row_count: np.ndarray  # [R] int64: number of tokens (fields) on the row
    row_line: np.ndarray  # [R] int64: 1-based line number of the row within the piece
    n_lines: int  # newlines in the piece + 1

    @property
    def n_rows(self) -> int:
        return len(self.row_first)

    def text(self, token: int) -> str:
        """One token as text (UTF-8; undecodable bytes kept as surrogates)."""
        raw = self.buffer[self.starts[token] : self.ends[token]].tobytes()
        return raw.decode("utf-8", "surrogateescape")


def gather_words(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """[N, W] uint64: the bytes ``buffer[starts[i] : starts[i] + lengths[i]]`` of each token,
    little-endian, 8 per word, zero-padded (W = words of the longest token that is not long,
    at least 1); a long token's row is its marker; a row of length 0 is zero.

    ``buffer``: uint8, readable for at least :data:`_PAD` bytes past every token."""
    long = lengths > LONG_TOKEN_BYTES
    long_at = np.flatnonzero(long)
    long_lengths = lengths[long_at]
    if len(long_at):
        lengths = lengths.copy()
        lengths[long_at] = 0
    n_words = max(1, -(-int(lengths.max(initial=0)) // 8))
    shortest = int(lengths.min()) if len(lengths) else 0
    # word j of every token, contiguous (filling the columns of an [N, W] matrix in place
    # costs twice as much), transposed at the end
    word_rows = np.empty((n_words, len(starts)), dtype=np.uint64)
    for j in range(n_words):  # one vectorised pass per 8 bytes of the longest token
        # 8-byte words starting at every byte offset from 8 j on (an overlapping strided view;
        # the padding keeps the word j of every token start inside the buffer)
        at = np.ndarray((len(buffer) - 7 - 8 * j,), "<u8", buffer, offset=8 * j, strides=(1,))
        if shortest >= 8 * (j + 1):  # every token fills word j: no bytes of others to mask
            word_rows[j] = at[starts]
        else:
            np.bitwise_and(at[starts], _KEEP_WORD[j][lengths], out=word_rows[j])
    out = word_rows.T.copy() if n_words > 1 else word_rows.reshape(len(starts), 1)
    if len(long_at):  # one Python step per long token (at most the text's size / 128)
        spans = zip(starts[long_at].tolist(), long_lengths.tolist(), strict=True)
        numbers = [_long_number(buffer[i : i + length].tobytes()) for i, length in spans]
        out[long_at, 0] = np.array(numbers, dtype=np.uint64) << np.uint64(8)
    return out


def _tokenize(buffer: np.ndarray, n: int) -> _Piece:
    """Tokens and rows of ``buffer[:n]`` (whole lines)."""
    text = buffer[:n]
    # space[i + 1]: byte i is whitespace (9-13 or 32); both ends padded with "whitespace"
    space = np.ones(n + 2, dtype=bool)
    np.less_equal(text - np.uint8(9), 4, out=space[1:-1])  # (uint8: below 9 wraps around)
    space[1:-1] |= text == 32
    edges = np.flatnonzero(space[1:] != space[:-1])  # alternately token starts and ends
    starts, ends = edges[0::2], edges[1::2]
    # Tokens of line k are [bounds[k], bounds[k + 1]).
    newlines = np.flatnonzero(text == 10)
    bounds = np.empty(len(newlines) + 2, dtype=np.int64)
    bounds[0], bounds[-1] = 0, len(starts)
    bounds[1:-1] = np.searchsorted(starts, newlines)
    counts = np.diff(bounds)
    content = np.flatnonzero(counts)
    return _Piece(
        buffer=buffer,
        starts=starts,
        ends=ends,
        row_first=bounds[:-1][content],
        row_count=counts[content],
        row_line=content + 1,
        n_lines=len(newlines) + 1,
    )


def as_bytes(words: np.ndarray) -> np.ndarray:
    """A word matrix (see :func:`split_fields`) as a fixed-width ``S`` array (one per row)."""
    n, width = words.shape
    return np.ascontiguousarray(words, dtype="<u8").view(f"S{8 * width}").reshape(n)


def decode(words: np.ndarray) -> np.ndarray:
    """A word matrix as an object array of ``str`` (UTF-8, surrogateescape).

    A Python object per row: meant for unique values (topics, subtopics) and for building
    pandas frames on request, not for the evaluation's per-line path. The rows are joined by
    a newline, which no token holds, and decoded at once (3 times faster than one by one);
    a long token's row is its marker, whose bytes may be anything, so it is joined empty and
    decoded alone."""
    out = np.empty(len(words), dtype=object)
    if not len(words):
        return out
    rows = as_bytes(words).tolist()
    long_at = np.flatnonzero(long_rows(words)).tolist()
    for row in long_at:
        rows[row] = b""
    out[:] = b"\n".join(rows).decode("utf-8", "surrogateescape").split("\n")
    for row in long_at:
        out[row] = token_bytes(words, row).decode("utf-8", "surrogateescape")
    return out


def pad_words(words: np.ndarray, width: int) -> np.ndarray:
    """``words`` with zero words appended up to ``width`` columns (same tokens)."""
    if words.shape[1] >= width:
        return words
    padded = np.zeros((len(words), width), dtype=words.dtype)
    padded[:, : words.shape[1]] = words
    return padded


def _hash(words: np.ndarray) -> np.ndarray:
    """64-bit hash of each row; zero words add nothing, so padding does not change it."""
    out = np.zeros(len(words), dtype=np.uint64)
    z = np.empty(len(words), dtype=np.uint64)
    shifted = np.empty(len(words), dtype=np.uint64)
    for j in range(words.shape[1]):  # (in place: no temporary arrays per step)
        np.multiply(words[:, j], _MULTIPLIERS[j % len(_MULTIPLIERS)], out=z)
        z ^= np.right_shift(z, np.uint64(31), out=shifted)
        z *= np.uint64(0xBF58476D1CE4E5B9)
        z ^= np.right_shift(z, np.uint64(29), out=shifted)
        out += z
    return out


def _exact_codes(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, first row of each code) by a lexicographic sort of the words: byte order."""
    n = len(words)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort(words.byteswap().T[::-1])  # byte-swapped: numeric order = byte order
    ordered = words[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    group = np.cumsum(new) - 1
    codes = np.empty(n, dtype=np.int64)
    codes[order] = group
    return codes, order[new]


def factorize(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes [N] int64, uniques [U, W]) of the rows of a word matrix: ``uniques[codes]``
    equals ``words``. Uniques are in no particular order (see :func:`byte_ranks`)."""
    codes, uniques, _ = factorize_with_keys(words)
    return codes, uniques


def factorize_with_keys(words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """:func:`factorize`, plus the uniques' :class:`TokenTable` probe keys when they come for
    free (their hashes; None otherwise)."""
    n, width = words.shape
    head = words[:4096]  # (rows that differ from the row above in most of these: not worth it)
    if n > 1 and 2 * np.count_nonzero(np.any(head[1:] != head[:-1], axis=1)) < len(head):
        # columns such as topic ids repeat in long runs: factorize one row per run (runs of
        # two rows on average pay already: the docnos of the 2012 qrels, 3.7 lines each,
        # 5.1 ms -> 3.2)
        change = np.flatnonzero(np.any(words[1:] != words[:-1], axis=1)) + 1
        if len(change) < n // 2:
            starts = np.empty(len(change) + 1, dtype=np.int64)
            starts[0], starts[1:] = 0, change
            run_codes, uniques, keys = _factorize_rows(np.take(words, starts, axis=0))
            return np.repeat(run_codes, np.diff(np.append(starts, n))), uniques, keys
    return _factorize_rows(words)


def _factorize_rows(words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if words.shape[1] == 1:  # the word is the token: exact
        uniques, codes, _ = unique_inverse(words[:, 0])
        return codes, uniques[:, None], None
    hashes, codes, first = unique_inverse(_hash(words))
    if not _groups_agree(words, codes, first):  # a hash collision: sort exactly
        codes, first = _exact_codes(words)
        return codes, np.take(words, first, axis=0), None
    # (np.take: several times faster than words[first] for a matrix)
    return codes, np.take(words, first, axis=0), hashes  # hashes[c]: the hash of unique c


def _groups_agree(words: np.ndarray, codes: np.ndarray, first: np.ndarray) -> bool:
    """Every row equals the row ``first`` names for its code (no two tokens share a hash)."""
    repeated = np.flatnonzero(first[codes] != np.arange(len(codes)))  # rows not their own first
    others = np.take(words, first[codes[repeated]], axis=0)
    return bool(np.array_equal(np.take(words, repeated, axis=0), others))


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(uniques, codes, first) of uint64 ``keys``: the distinct keys in increasing order,
    ``uniques[codes] == keys`` (int64 codes), and the first row holding each unique; what
    ``np.unique(keys, return_inverse=True, return_index=True)`` gives, faster
    (:func:`_sort_order`)."""
    n = len(keys)
    order = _sort_order(keys)
    ordered = keys[order]
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return ordered[new], codes, order[new]


def _sort_order(keys: np.ndarray) -> np.ndarray:
    """[N] int64: a stable argsort of uint64 ``keys``, by numpy's (vectorised) sort of the
    keys with the row number packed into their low bits, 2-3 times faster than ``argsort``.

    Keys that leave room for the row number (short tokens as words) are shifted left to make
    it; others (hashes) give up their low bits to it, which orders them by their high bits
    only: if that misorders two keys (different keys sharing their high bits: about 3 % of
    hash columns of a million rows), it is ``argsort`` after all."""
    n = len(keys)
    bits = max(1, (n - 1).bit_length())
    if n < 2 or bits > 32:
        return np.argsort(keys, kind="stable")
    row = np.arange(n, dtype=np.uint64)
    low = np.uint64((1 << bits) - 1)
    if int(keys.max()) >> (64 - bits) == 0:  # room: shift
        packed = keys << np.uint64(bits)
        packed |= row
        packed.sort()
        packed &= low
        return packed.astype(np.int64)
    packed = keys & ~low
    packed |= row
    packed.sort()
    packed &= low
    order = packed.astype(np.int64)
    ordered = keys[order]
    if (ordered[1:] < ordered[:-1]).any():
        return np.argsort(keys, kind="stable")
    return order


def byte_ranks(words: np.ndarray) -> np.ndarray:
    """[N] int64 dense ranks of the rows of a word matrix in byte (``strcmp``) order."""
    rows = np.flatnonzero(long_rows(words))
    if not len(rows):
        return _exact_codes(words)[0]
    # A long token is longer than a row: it sorts as its first 8·W bytes, after a token equal
    # to them (a proper prefix sorts first), and among long tokens with that prefix by its
    # bytes. An extra last column carries that tie-break (pre-swapped: _exact_codes sorts
    # byte-swapped words).
    width = words.shape[1]
    texts = [token_bytes(words, row) for row in rows.tolist()]
    keys = np.empty((len(words), width + 1), dtype=np.uint64)
    keys[:, :width] = words
    keys[:, width] = 0
    keys[rows, :width] = np.frombuffer(
        b"".join(text[: 8 * width].ljust(8 * width, b"\0") for text in texts), dtype="<u8"
    ).reshape(len(rows), width)
    position = {text: i + 1 for i, text in enumerate(sorted(set(texts)))}
    keys[rows, width] = np.array([position[text] for text in texts], dtype=np.uint64).byteswap()
    return _exact_codes(keys)[0]


class TokenTable:
    """Distinct tokens (a word matrix without repeated rows) prepared for :meth:`find`."""

    def __init__(self, words: np.ndarray):
        self.words = words
        self._keys: dict[int, tuple] = {}  # padded width -> (sorted keys, order, padded words)

    def _prepared(self, width: int) -> tuple:
        if width not in self._keys:
            table = pad_words(self.words, width)
            keys = table[:, 0] if width == 1 else _hash(table)
            order = _sort_order(keys)
            keys = keys[order]
            unique = not (keys[1:] == keys[:-1]).any()  # else two tokens share a hash
            self._keys[width] = (keys, order, table, unique)
        return self._keys[width]

    def find(self, words: np.ndarray, hashes: np.ndarray | None = None) -> np.ndarray:
        """Row of the table holding each row of ``words``, or -1 where the token is not in
        the table. Exact. ``hashes``: the rows' hashes if known (from
        :func:`factorize_with_keys`)."""
        width = max(self.words.shape[1], words.shape[1])
        keys, order, table, unique = self._prepared(width)
        words = pad_words(words, width)
        if not unique:  # sort table and probes together, exactly
            codes, _ = _exact_codes(np.concatenate([table, words]))
            row_of_code = np.full(int(codes.max()) + 1, -1, dtype=np.int64)
            row_of_code[codes[: len(table)]] = np.arange(len(table))
            return row_of_code[codes[len(table) :]]
        # (the hash ignores zero padding, so known hashes of narrower rows serve)
        if hashes is None or width == 1:
            hashes = words[:, 0] if width == 1 else _hash(words)
        probes = hashes
        if len(keys) == 0:
            return np.full(len(words), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, probes), len(keys) - 1)
        hit = np.flatnonzero(keys[at] == probes)  # the hash found: compare the words of those
        rows = order[at[hit]]
        same = table[rows, 0] == words[hit, 0]
        for column in range(1, width):
            same &= table[rows, column] == words[hit, column]
        found = np.full(len(words), -1, dtype=np.int64)
        found[hit[same]] = rows[same]
        return found


def parse_floats(words: np.ndarray) -> tuple[np.ndarray, int | None]:
    """(values, index of the first token that is not a number, or None).

    Accepts what C's ``strtod`` and Python's ``float`` accept (``1e5``, ``.5``, ``inf``,
    ``nan``), correctly rounded, except digit-group underscores (``1_0``), which are refused.
    Out-of-range values become ``±inf`` (``1e999``) or 0, as for ``strtod``.

    Plain decimals of at most 8 bytes (``-5.70123``, ``39.486``, ``1000``: nearly every score
    of a run) are read by :func:`_parse_short_decimals`, exactly and about ten times faster
    than numpy's bytes-to-float cast, which reads the others."""
    values = np.empty(len(words), dtype=np.float64)
    if len(words) == 0:
        return values, None
    short = ~long_rows(words)
    if words.shape[1] > 1:
        short &= ~np.any(words[:, 1:], axis=1)
    fast, fine = _parse_short_decimals(words[:, 0])
    fine &= short
    values[fine] = fast[fine]
    rest = np.flatnonzero(~fine)
    if len(rest) == 0:
        return values, None
    rest_values, first_bad = _cast_floats(words[rest])
    values[rest] = rest_values
    return values, None if first_bad is None else int(rest[first_bad])


def _cast_floats(words: np.ndarray) -> tuple[np.ndarray, int | None]:
    """:func:`parse_floats` by numpy's bytes-to-float cast (long tokens by ``float``)."""
    long = np.flatnonzero(long_rows(words))
    long_values = [_long_float(token_bytes(words, row)) for row in long.tolist()]
    if len(long):  # cast a placeholder "0" in their place
        words = words.copy()
        words[long] = 0
        words[long, 0] = ord("0")
    text = as_bytes(words)
    bad = np.any(text.view(np.uint8).reshape(len(text), -1) == ord("_"), axis=1)
    bad[long[[value is None for value in long_values]]] = True
    try:
        with np.errstate(over="ignore"):  # 1e999 is inf, as for strtod; not a warning
            values = text.astype(np.float64)
        first_bad = int(np.argmax(bad)) if bad.any() else None
    except ValueError:
        # The first token the cast refuses: bisection, O(log N) casts of shrinking slices.
        lo, hi = 0, len(text)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            try:
                with np.errstate(over="ignore"):
                    text[lo:mid].astype(np.float64)
                lo = mid
            except ValueError:
                hi = mid
        first_bad = lo if not bad[:lo].any() else int(np.argmax(bad))
        values = np.full(len(text), np.nan)
    for row, value in zip(long.tolist(), long_values, strict=True):
        values[row] = np.nan if value is None else value
    return values, first_bad


_DOTS = 0x2E2E2E2E2E2E2E2E  # eight ASCII "."
_LOW_BITS = 0x0101010101010101
_HIGH_BITS = 0x8080808080808080
#: 10.0 ** k, exact (every power of ten up to 10^22 is a double)
_POWERS_OF_TEN = np.array([10.0**k for k in range(9)])


def _parse_short_decimals(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, fine): the tokens ``[+-]?[0-9]*[.]?[0-9]*`` with at least one digit, of one
    word (at most 8 bytes), read exactly; ``fine`` is False for every other token.

    A sign is dropped, the first ``.`` found by a zero-byte test and cut out of the word, and
    the remaining digits read as an integer m by :func:`_parse_short_integers`; the value is
    m / 10^k for the k digits after the dot. This is Clinger's fast path (m < 10^8 < 2^53 and
    10^k are both doubles, and IEEE division rounds correctly), so the value is the correctly
    rounded one that ``strtod`` gives, bit for bit (``-0`` included)."""
    first = word & _U64(0xFF)
    negative = first == ord("-")
    signed = negative | (first == ord("+"))
    body = np.where(signed, word >> _U64(8), word)
    # the first dot: the lowest zero byte of body ^ dots (the zero-byte test is exact for
    # the lowest one; padding bytes become "." ^ 0 = 0x2E, not zero)
    x = body ^ _U64(_DOTS)
    dots = (x - _U64(_LOW_BITS)) & ~x & _U64(_HIGH_BITS)
    has_dot = dots != 0
    lowest = dots & (~dots + _U64(1))
    before = np.where(has_dot, (lowest >> _U64(7)) - _U64(1), _U64(0xFFFFFFFFFFFFFFFF))
    digits = (body & before) | ((body >> _U64(8)) & ~before)
    # digits before the dot (bytes of ``before``), and all digits (non-zero bytes)
    n_before = ((before & _U64(_LOW_BITS)) * _U64(_LOW_BITS)) >> _U64(56)
    zero_bytes = ((digits - _U64(_LOW_BITS)) & ~digits & _U64(_HIGH_BITS)) >> _U64(7)
    n_digits = _U64(8) - ((zero_bytes * _U64(_LOW_BITS)) >> _U64(56))
    after = np.where(has_dot, n_digits - np.minimum(n_before, n_digits), _U64(0))
    mantissa, fine = _parse_short_integers(digits)
    lead = digits & _U64(0xFF)
    fine &= (lead != ord("-")) & (lead != ord("+"))  # "--5", "+-5": not a sign here
    values = mantissa.astype(np.float64) / _POWERS_OF_TEN[after.astype(np.intp)]
    np.negative(values, out=values, where=negative)
    return values, fine


def _long_float(raw: bytes) -> float | None:
    """A long token as a number (as the cast reads it), or None."""
    if b"_" in raw:
        return None
    try:
        return float(raw)
    except ValueError:
        return None


_INTEGER = re.compile(rb"[+-]?[0-9]+")
#: every integer of up to this many digits fits in int64 (9.2e18)
_SAFE_DIGITS = 18


def integer_tokens(words: np.ndarray) -> np.ndarray:
    """[N] bool: the token is ``[+-]?[0-9]+`` (a word matrix, see :func:`split_fields`)."""
    raw = as_bytes(words)
    chars = raw.view(np.uint8).reshape(len(raw), -1)
    lengths = np.count_nonzero(chars, axis=1)
    digit = (chars >= ord("0")) & (chars <= ord("9"))
    signed = (chars[:, 0] == ord("+")) | (chars[:, 0] == ord("-"))
    digit[:, 0] |= signed
    padding = chars == 0
    integral = np.all(digit | padding, axis=1) & (lengths > signed)
    for row in np.flatnonzero(long_rows(words)).tolist():
        integral[row] = _INTEGER.fullmatch(token_bytes(words, row)) is not None
    return integral


def parse_integers(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values [N] int64, fine [N] bool): exact values (no detour through floats) of the
    tokens that are ``[+-]?[0-9]+`` within int64; ``fine`` is False for the others (value 0)."""
    if words.shape[1] == 1 and not long_rows(words).any():
        return _parse_short_integers(words[:, 0])
    fine = integer_tokens(words)
    long = long_rows(words)
    raw = as_bytes(words)
    chars = raw.view(np.uint8).reshape(len(raw), -1)
    signed = (chars[:, 0] == ord("+")) | (chars[:, 0] == ord("-"))
    n_digits = np.count_nonzero(chars, axis=1) - signed
    values = np.zeros(len(words), dtype=np.int64)
    for c in range(min(chars.shape[1], _SAFE_DIGITS + 1)):  # longer tokens are read below
        digit = chars[:, c].astype(np.int64) - ord("0")
        is_digit = (digit >= 0) & (digit <= 9)
        values = np.where(is_digit, values * 10 + digit, values)
    np.negative(values, out=values, where=chars[:, 0] == ord("-"))
    values[~fine] = 0
    for row in np.flatnonzero(fine & ((n_digits > _SAFE_DIGITS) | long)).tolist():
        text = token_bytes(words, row)
        magnitude = text.lstrip(b"+-").lstrip(b"0")
        # (int() refuses thousands of digits: anything past 20 is out of range anyway)
        value = int(text) if len(magnitude) <= _SAFE_DIGITS + 2 else None
        if value is None or not -(2**63) <= value < 2**63:
            fine[row] = False
            values[row] = 0
        else:
            values[row] = value
    return values, fine


_U64 = np.uint64
_ZEROS = 0x3030303030303030  # eight ASCII "0"
#: _FILL[n]: ASCII "0" in the low 8 - n bytes (left padding of an n-digit number)
_FILL = np.array([_ZEROS >> (8 * n) if n < 8 else 0 for n in range(9)], dtype=np.uint64)
#: _SHIFT[n]: bits that move n digits to the top bytes of a word (n = 0: none)
_SHIFT = np.array([8 * (8 - n) if n else 0 for n in range(9)], dtype=np.uint64)


def _parse_short_integers(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parse_integers` of tokens of at most 8 bytes (one word each), with a few word
    operations per token (SWAR): a sign is dropped, the digits are moved to the top bytes and
    padded with ASCII zeros, checked all-digit byte-wise and combined pairwise (the
    eight-digit parse of simdjson, Lemire & Langdale)."""
    # length: 8 - the number of zero bytes (all of them padding at the top; the classic
    # zero-byte test is exact below the first zero byte, and all bytes above it are zero),
    # counted by summing one bit per byte with a multiply
    zero_bytes = ((word - _U64(0x0101010101010101)) & ~word & _U64(0x8080808080808080)) >> _U64(7)
    n = 8 - ((zero_bytes * _U64(0x0101010101010101)) >> _U64(56)).astype(np.int64)
    first = word & _U64(0xFF)
    negative = first == ord("-")
    signed = negative | (first == ord("+"))
    digits = np.where(signed, word >> _U64(8), word)
    n = n - signed
    digits = (digits << _SHIFT[n]) | _FILL[n]
    # every byte in 0x30..0x39: high nibble 3, and adding 6 keeps it 3 (no carry reaches a
    # byte that is a digit unless some byte is not)
    nibbles = _U64(0xF0F0F0F0F0F0F0F0)
    fine = ((digits & nibbles) | (((digits + _U64(0x0606060606060606)) & nibbles) >> _U64(4))) == (
        _U64(0x3333333333333333)
    )
    fine &= n > 0
    value = digits & _U64(0x0F0F0F0F0F0F0F0F)
    value = (value * _U64(2561)) >> _U64(8)
    value = ((value & _U64(0x00FF00FF00FF00FF)) * _U64(6553601)) >> _U64(16)
    value = ((value & _U64(0x0000FFFF0000FFFF)) * _U64(42949672960001)) >> _U64(32)
    values = value.astype(np.int64)
    np.negative(values, out=values, where=negative)
    values[~fine] = 0
    return values, fine
