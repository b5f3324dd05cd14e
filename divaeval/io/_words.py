"""Word matrices: tokens as rows of 64-bit words, and what is done with them.

A field of many rows is held as an [N, W] ``uint64`` matrix (:func:`gather_words`): the
token's bytes, 8 per word (native little-endian, so in memory the bytes stay in text order),
zero-padded. Input files hold no NUL byte (the readers reject them), so a token's words
identify it exactly, and the matrix viewed as bytes is a fixed-width ``S`` array
(:func:`as_bytes`, no copy). Numeric order of words is not byte order; the byte-swapped words
are (:func:`byte_ranks`).

A token longer than :data:`LONG_TOKEN_BYTES` is *long*: its row holds one *marker* word
instead of its bytes, a process-wide id of the token (:func:`long_token`), whose first byte is
NUL, so it cannot be the start of text. A matrix is thus at most ``LONG_TOKEN_BYTES / 8``
words wide however long a token is (memory follows the input, not rows × the longest token),
equal tokens still have equal rows in every file, and the few long tokens take a Python path
wherever their bytes matter (order, numbers, text).

:func:`factorize` turns a word matrix into integer codes: exact keys for tokens of up to 8
bytes, otherwise a 64-bit hash that is then verified (a collision falls back to an exact
lexicographic sort), so codes are never wrong. :class:`TokenTable` finds tokens of one file
among the distinct tokens of another (a run's docnos among the qrels') the same way, and
:func:`byte_ranks` orders tokens as ``strcmp`` does, where an order is needed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from divaeval import native

#: _KEEP[r]: mask keeping the first r bytes (0..8) of a little-endian word
_KEEP = np.array([(1 << (8 * r)) - 1 for r in range(9)], dtype=np.uint64)

#: odd multipliers, one per word position (cycled), for :func:`_hash`
_MULTIPLIERS = np.array(
    [(0x9E3779B97F4A7C15 + 2 * j * 0x632BE59BD9B4E019) % 2**64 | 1 for j in range(16)],
    dtype=np.uint64,
)


#: integer keys below this bound are deduplicated by counting (no sort), and joins use a
#: direct (topic, docno) -> judgment table of that many cells (4 bytes each)
DENSE_KEYS = 1 << 22

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
    if native.kernels is not None:
        out = np.zeros((len(starts), n_words), dtype=np.uint64)
        native.kernels.gather_words(
            buffer, np.ascontiguousarray(starts, np.int64), np.ascontiguousarray(lengths, np.int64),
            out, len(starts), n_words,
        )  # fmt: skip
        return _mark_long(out, buffer, starts, long_at, long_lengths)
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
    return _mark_long(out, buffer, starts, long_at, long_lengths)


def _mark_long(
    out: np.ndarray, buffer: np.ndarray, starts: np.ndarray, long_at: np.ndarray,
    long_lengths: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """``out`` with the rows ``long_at`` (long tokens, zero so far) made their markers."""
    if len(long_at):  # one Python step per long token (at most the text's size / 128)
        spans = zip(starts[long_at].tolist(), long_lengths.tolist(), strict=True)
        numbers = [_long_number(buffer[i : i + length].tobytes()) for i, length in spans]
        out[long_at, 0] = np.array(numbers, dtype=np.uint64) << np.uint64(8)
    return out


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
    """64-bit hash of each row; zero words add nothing, so padding does not change it (the
    compiled loops compute the same values, in one pass)."""
    if native.kernels is not None:
        words = np.ascontiguousarray(words, np.uint64)
        hashes = np.empty(len(words), dtype=np.uint64)
        native.kernels.hash_words(words, len(words), max(words.shape[1], 1), hashes)
        return hashes
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
    """(codes, a row of each code): the dense ranks of the rows of a word matrix in byte
    order (byte-swapped words compare as bytes do): by one sort of the swapped words where a
    word is the whole token (:func:`unique_inverse`: a million 7-byte docnos, 97 -> 40 ms),
    else by a lexicographic sort of the columns."""
    n = len(words)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if words.shape[1] == 1:
        _, codes, rows = unique_inverse(words[:, 0].byteswap())
        return codes, rows
    order = np.lexsort(words.byteswap().T[::-1])
    ordered = words[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    codes = np.empty(n, dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes, order[new]


def row_changes(words: np.ndarray) -> np.ndarray:
    """[N - 1] bool: row ``i + 1`` of a word matrix differs from row ``i``, column by column
    (``np.any(..., axis=1)`` reduces rows of a few words slowly: 60,000 rows of 4 words,
    0.95 -> 0.11 ms; the first 4096 docnos of a run, 61 -> 10 us)."""
    if words.shape[1] == 0:
        return np.zeros(max(len(words) - 1, 0), dtype=bool)
    changed = words[1:, 0] != words[:-1, 0]
    for column in range(1, words.shape[1]):
        changed |= words[1:, column] != words[:-1, column]
    return changed


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
    if n > 1 and 2 * np.count_nonzero(row_changes(head)) < len(head):
        # columns such as topic ids repeat in long runs: factorize one row per run (runs of
        # two rows on average pay already: the docnos of the 2012 qrels, 3.7 lines each,
        # 5.1 ms -> 3.2)
        change = np.flatnonzero(row_changes(words)) + 1
        if len(change) < n // 2:
            starts = np.empty(len(change) + 1, dtype=np.int64)
            starts[0], starts[1:] = 0, change
            run_codes, uniques, keys = _factorize_rows(np.take(words, starts, axis=0))
            return np.repeat(run_codes, np.diff(np.append(starts, n))), uniques, keys
    return _factorize_rows(words)


def _factorize_rows(words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if words.shape[1] == 1 and _has_room(words[:, 0]):  # the word is the token: exact
        uniques, codes, _ = unique_inverse(words[:, 0])
        return codes, uniques[:, None], None
    if native.kernels is not None and words.shape[1] > 1 and len(words) < HASHED_ROWS:
        return hashed_codes(words)  # (one word: its sort below is exact and takes less memory)
    # (a single word of 7 or 8 bytes leaves no room for the row number in its sort; its hash
    # is a bijection of the word, so it is exact and sorts as fast as short words do)
    hashes, codes, first = unique_inverse(_hash(words), hashed=True)
    if words.shape[1] == 1:
        return codes, np.take(words, first, axis=0), hashes
    if not _groups_agree(words, codes, first):  # a hash collision: sort exactly
        codes, first = _exact_codes(words)
        return codes, np.take(words, first, axis=0), None
    # (np.take: several times faster than words[first] for a matrix)
    return codes, np.take(words, first, axis=0), hashes  # hashes[c]: the hash of unique c


def slot_count(rows: int, per_row: int = 2) -> int:
    """The slots of a compiled hash table of ``rows`` rows: the least power of
    two of at least ``per_row`` (>= 2) slots a row, and at least 16 (``_native.c``'s
    ``table_bits``)."""
    return 1 << max(4, (per_row * rows - 1).bit_length())


#: :class:`TokenTable` probes a compiled hash table of 8 slots of 4 bytes a token (most probes
#: of tokens it lacks then find a free slot at once: 50,000 docnos among 16,000, 0.58 -> 0.18
#: ms) for at most this many tokens (2 MiB of slots; ``_native.c``'s SMALL_TABLE_ROWS, the
#: rows its slots can name); larger tables search their sorted keys (a million qrels docnos:
#: 8 MiB of order)
COMPILED_TABLE_ROWS = 1 << 16

#: the compiled :func:`hashed_codes` numbers fewer rows than this (its table's slots are int32)
HASHED_ROWS = 1 << 30

#: all 64 bits of a hash (:func:`hashed_codes` keeps fewer in the tests, to make collisions)
ALL_BITS = (1 << 64) - 1


def hashed_codes(
    words: np.ndarray, *, mask: int = ALL_BITS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`factorize_with_keys` of a word matrix by the compiled hash table, in one pass:
    the rows numbered as they first appear (uniques in that order, not the hashes' order),
    rows whose hashes (``& mask``) agree compared word by word, so the codes are exact; the
    uniques' hashes (& ``mask``) with them. 50,000 docnos of 4 words, 0.82 -> 0.55 ms (the
    hash and the sort of the hashes before); the 9 TREC 2012 runs' ``run_of``, 7.9 -> 4.9 ms."""
    n, width = words.shape
    words = np.ascontiguousarray(words, np.uint64)
    codes = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    hashes = np.empty(n, dtype=np.uint64)
    assert native.kernels is not None
    count = native.kernels.hash_factorize(
        words, n, max(width, 1), mask, slot_count(n), codes, first, hashes
    )
    hashes = hashes[:count].copy() if count < n // 2 else hashes[:count]  # (few: let n go)
    return codes, np.take(words, first[:count], axis=0), hashes


def _groups_agree(words: np.ndarray, codes: np.ndarray, first: np.ndarray) -> bool:
    """Every row equals the row ``first`` names for its code (no two tokens share a hash)."""
    repeated = np.flatnonzero(first[codes] != np.arange(len(codes)))  # rows not their own first
    others = np.take(words, first[codes[repeated]], axis=0)
    return bool(np.array_equal(np.take(words, repeated, axis=0), others))


def unique_inverse(
    keys: np.ndarray, *, hashed: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(uniques, codes, rows) of uint64 ``keys``: the distinct keys in increasing order,
    ``uniques[codes] == keys`` (int64 codes), and a row holding each unique; what
    ``np.unique(keys, return_inverse=True, return_index=True)`` gives (but for which of the
    rows of a key), faster (:func:`sort_keys`, or :func:`_few_uniques`; ``hashed``: the keys
    are hashes)."""
    few = _few_uniques(keys)
    if few is not None:
        return few
    n = len(keys)
    order, ordered = sort_keys(keys, hashed=hashed)
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    counts = np.cumsum(new)
    counts -= 1
    codes = np.empty(n, dtype=np.int64)
    codes[order] = counts
    return ordered[new], codes, order[new]


#: :func:`_few_uniques` numbers at least this many keys, when the first FEW_HEAD of them hold
#: at most FEW_HEAD / 8 distinct values (then so do most columns of docnos or topic ids)
FEW_KEYS, FEW_HEAD = 1 << 14, 4096


def _distinct(keys: np.ndarray) -> int:
    """The number of distinct values of a few keys (by a sort: ``np.unique`` takes 10 times
    as long on 4096 of them, 0.3 ms, paid by every run's docnos)."""
    ordered = np.sort(keys)
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + min(len(keys), 1)


def _few_uniques(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`unique_inverse` of uint64 ``keys`` with few distinct values (at most 1 in 16)
    by the compiled hash table (the keys numbered as they first appear, then the few
    uniques sorted): a million docnos of 60 distinct values, 14 -> 3 ms. None where the
    compiled loops are not built, or the keys look or are too varied: a sort is faster."""
    n = len(keys)
    kernels = native.kernels
    if kernels is None or n < FEW_KEYS or _distinct(keys[:FEW_HEAD]) > FEW_HEAD // 8:
        return None
    cap = n // 16
    ids = np.empty(n, dtype=np.int64)
    uniques = np.empty(cap, dtype=np.uint64)
    first = np.empty(cap, dtype=np.int64)
    count = kernels.few_uniques(np.ascontiguousarray(keys, np.uint64), ids, uniques, first, n, cap)
    if count < 0:
        return None
    order = np.argsort(uniques[:count])
    rank = np.empty(count, dtype=np.int64)
    rank[order] = np.arange(count)
    kernels.renumber(ids, rank, n, count)
    return uniques[order], ids, first[order]


def renumbered(codes: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """``rank[codes]`` (int64 both), written over ``codes`` where the compiled loops are built
    (no new array of their length)."""
    if native.kernels is None:
        return rank[codes]
    codes = np.ascontiguousarray(codes, np.int64)
    native.kernels.renumber(codes, np.ascontiguousarray(rank, np.int64), len(codes), len(rank))
    return codes


def has_repeats(key: np.ndarray, bound: int) -> bool:
    """Whether int64 ``key`` (in [0, ``bound``)) holds a value twice: by marking them in a
    table where the bound is small next to their number (1M qrels lines: 5.3 -> 1.0 ms), else
    by a sort."""
    if bound <= min(DENSE_KEYS, 32 * len(key)):
        seen = np.zeros(bound, dtype=bool)
        seen[key] = True
        return int(np.count_nonzero(seen)) < len(key)
    ordered = np.sort(key)
    return bool((ordered[1:] == ordered[:-1]).any())


def _has_room(keys: np.ndarray) -> bool:
    """Whether uint64 ``keys`` leave room in their high bits for the row numbers that
    :func:`sort_keys` packs into their low bits."""
    bits = max(1, (len(keys) - 1).bit_length())
    return len(keys) < 2 or (bits <= 32 and int(keys.max()) >> (64 - bits) == 0)


def sort_keys(
    keys: np.ndarray, *, hashed: bool = False, stable: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """(order, keys[order]): an argsort of uint64 ``keys`` (equal keys in any order; with
    ``stable``, in row order) and the keys in order, by numpy's sort of the keys with the row
    number packed into their low bits (numpy sorts integers with SIMD: 5 ms for a million,
    against 17 for ``argsort`` and 90 for a stable one).

    Keys that leave room for the row number (short tokens as words) are shifted left to make
    it, and come back sorted with it (equal keys in row order). ``hashed`` keys (spread over
    all 64 bits) give up their low bits to it, which orders them by their high bits only: if
    that misorders two keys (different keys sharing their high bits, rare for hashes), it is
    ``argsort`` after all.
    Other keys without room (tokens of 7 or 8 bytes as words, whose low bits are their first
    bytes: the high bits of a million of them misorder some) are sorted by ``argsort``."""
    n = len(keys)
    bits = max(1, (n - 1).bit_length())
    room = _has_room(keys)
    if n < 2 or bits > 32 or not (room or (hashed and not stable)):
        order = np.argsort(keys, kind="stable" if stable else None)
        return order, keys[order]
    row = np.arange(n, dtype=np.uint64)
    low = np.uint64((1 << bits) - 1)
    if room:  # shift
        packed = keys << np.uint64(bits)
        packed |= row
        del row
        packed.sort()
        order = np.bitwise_and(packed, low).view(np.int64)  # (row numbers: no sign bit)
        packed >>= np.uint64(bits)
        return order, packed
    packed = keys & ~low
    packed |= row
    del row
    packed.sort()
    packed &= low
    order = packed.view(np.int64)
    ordered = keys[order]
    if (ordered[1:] < ordered[:-1]).any():
        order = np.argsort(keys)
        ordered = keys[order]
    return order, ordered


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

    def __init__(self, words: np.ndarray, hashes: np.ndarray | None = None):
        """``hashes``: the rows' hashes, as :func:`factorize_with_keys` gives them with its
        uniques (then not computed again; in ascending order from numpy's path)."""
        self.words = words
        self.hashes = hashes
        #: padded width -> (sorted keys, order, padded words, keys unique, keys are hashes)
        self._keys: dict[int, tuple] = {}
        #: (words, slots) of the compiled table, once built
        self._slots: tuple[np.ndarray, np.ndarray] | None = None

    def _prepared(self, width: int) -> tuple:
        if width not in self._keys:
            table = pad_words(self.words, width)
            # the word itself where it is the token and sorts fast; else its hash (of a
            # single word: a bijection, so the keys are unique)
            hashed = width > 1 or not _has_room(table[:, 0])
            if hashed and self.hashes is not None:  # (padding changes no hash)
                keys, order = self.hashes, np.arange(len(table))
                if (keys[1:] < keys[:-1]).any():  # (the compiled loops' order: as they came)
                    order, keys = sort_keys(keys, hashed=True)
            else:
                keys = _hash(table) if hashed else table[:, 0]
                order, keys = sort_keys(keys, hashed=hashed)
            unique = not (keys[1:] == keys[:-1]).any()  # else two tokens share a hash
            self._keys[width] = (keys, order, table, unique, hashed)
        return self._keys[width]

    def find(self, words: np.ndarray, hashes: np.ndarray | None = None) -> np.ndarray:
        """Row of the table holding each row of ``words``, or -1 where the token is not in
        the table. Exact. ``hashes``: the rows' hashes if known (from
        :func:`factorize_with_keys`)."""
        if native.kernels is not None and len(self.words) <= COMPILED_TABLE_ROWS:
            return self._find_compiled(words, hashes)
        width = max(self.words.shape[1], words.shape[1])
        keys, order, table, unique, hashed = self._prepared(width)
        words = pad_words(words, width)
        if not unique:  # sort table and probes together, exactly
            codes, _ = _exact_codes(np.concatenate([table, words]))
            row_of_code = np.full(int(codes.max()) + 1, -1, dtype=np.int64)
            row_of_code[codes[: len(table)]] = np.arange(len(table))
            return row_of_code[codes[len(table) :]]
        # (the hash ignores zero padding, so known hashes of narrower rows serve)
        probes = words[:, 0]
        if hashed:
            probes = _hash(words) if hashes is None else hashes
        if len(keys) == 0:
            return np.full(len(words), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, probes), len(keys) - 1)
        hit = np.flatnonzero(keys[at] == probes)  # the hash found: compare the words of those
        rows = order[at[hit]]
        found = np.full(len(words), -1, dtype=np.int64)
        if width == 1:  # the key is the word, or its hash, a bijection of it: equal words
            found[hit] = rows
            return found
        same = table[rows, 0] == words[hit, 0]
        for column in range(1, width):
            same &= table[rows, column] == words[hit, column]
        found[hit[same]] = rows[same]
        return found

    def _find_compiled(self, words: np.ndarray, hashes: np.ndarray | None) -> np.ndarray:
        """:meth:`find` by the compiled hash table of the tokens' hashes (built on first use,
        then probed by each run: 50,000 docnos of 4 words among 16,000, 0.70 -> 0.20 ms with
        the table in cache, the 9 TREC 2012 runs 5.7 -> 3.3 ms in the command), every row
        whose slot bears the probe's tag compared word by word."""
        kernels = native.kernels
        assert kernels is not None
        if self._slots is None:
            table = np.ascontiguousarray(self.words, np.uint64)
            table_hashes = self.hashes if self.hashes is not None else _hash(table)
            table_hashes = np.ascontiguousarray(table_hashes, np.uint64)
            slots = np.empty(slot_count(len(table), per_row=8), dtype=np.uint32)
            kernels.hash_slots(table_hashes, len(table), slots, len(slots))
            self._slots = (table, slots)
        table, slots = self._slots
        words = np.ascontiguousarray(words, np.uint64)
        hashes = _hash(words) if hashes is None else np.ascontiguousarray(hashes, np.uint64)
        found = np.empty(len(words), dtype=np.int64)
        kernels.find_rows(
            table, len(table), max(table.shape[1], 1), slots, len(slots), words, len(words),
            max(words.shape[1], 1), hashes, found,
        )  # fmt: skip
        return found


def words_of(tokens: Sequence[str]) -> np.ndarray:
    """The word matrix of ``tokens`` (text without NUL or whitespace; bytes that are not UTF-8
    as surrogate escapes), as :func:`gather_words` gives it for the same tokens in a file (an
    empty token: a zero row). The tokens are joined by newlines and encoded at once."""
    if not len(tokens):
        return np.zeros((0, 1), dtype=np.uint64)
    text = "\n".join(tokens).encode("utf-8", "surrogateescape") + b"\n"
    buffer = np.frombuffer(text + bytes(_PAD), dtype=np.uint8)
    ends = np.flatnonzero(buffer[: len(text)] == 10)
    starts = np.empty_like(ends)
    starts[:1] = 0
    np.add(ends[:-1], 1, out=starts[1:])
    return gather_words(buffer, starts, ends - starts)
