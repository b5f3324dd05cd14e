"""Numbers in word matrices (:mod:`divaeval.io._words`): scores, grades and ranks, read
exactly and without a Python step per token.

:func:`parse_floats` converts a field as C's ``strtod`` does, correctly rounded (plain short
decimals by a few word operations, the others by numpy's bytes-to-float cast), and locates the
first token that is not a number; :func:`parse_integers` reads integers exactly within int64.
"""

from __future__ import annotations

import re

import numpy as np

from divaeval import native
from divaeval.io._words import as_bytes, long_rows, token_bytes


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
    return values, cast_rest(values, rest, words[rest] if len(rest) else words[:0])


def cast_rest(values: np.ndarray, rest: np.ndarray, words: np.ndarray) -> int | None:
    """``values[rest]`` = the tokens ``words`` (of the rows ``rest``, ascending: those that are
    not short plain decimals) read by numpy's cast; the first row of ``rest`` refused, or
    None."""
    if len(rest) == 0:
        return None
    rest_values, first_bad = _cast_floats(words)
    values[rest] = rest_values
    return None if first_bad is None else int(rest[first_bad])


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
    if native.kernels is not None:
        return _compiled(native.kernels.parse_short_decimals, word, np.float64)
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


_INTEGER = rb"[+-]?[0-9]+"  # (compiled at first use: long tokens only)
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
        integral[row] = re.fullmatch(_INTEGER, token_bytes(words, row)) is not None
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
    if native.kernels is not None:
        return _compiled(native.kernels.parse_short_integers, word, np.int64)
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


def _compiled(parse, word: np.ndarray, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """(values, fine) of one-word tokens by a compiled loop of :mod:`divaeval.native`, which
    reads each token as the word operations above do."""
    word = np.ascontiguousarray(word, dtype=np.uint64)
    values: np.ndarray = np.empty(len(word), dtype=dtype)
    fine = np.empty(len(word), dtype=bool)
    parse(word, values, fine, len(word))
    return values, fine
