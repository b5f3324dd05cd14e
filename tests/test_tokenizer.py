"""The numpy tokenizer (divaeval.io._tokens) against a plain Python reference split.

The reference: a line is a record, its fields are ``bytes.split()`` (ASCII whitespace), blank
lines are skipped, and ``\\r\\n`` and a lone ``\\r`` end lines as ``\\n`` does. Properties run
with the long-token threshold lowered too, so that most tokens take the long-token path.
"""

from __future__ import annotations

import random
import re
import struct

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import examples, row_lines

from divaeval import native
from divaeval.io import _text, _tokens, _words
from divaeval.io._numbers import integer_tokens, parse_floats, parse_integers
from divaeval.io._tokens import split_fields
from divaeval.io._words import (
    LONG_TOKEN_BYTES,
    TokenTable,
    as_bytes,
    byte_ranks,
    decode,
    factorize,
    factorize_with_keys,
    long_rows,
    row_changes,
    token_bytes,
    words_of,
)


def reference_rows(data: bytes) -> list[tuple[int, list[bytes]]]:
    """(1-based line number, fields) of every non-blank line."""
    text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return [
        (number, line.split())
        for number, line in enumerate(text.split(b"\n"), start=1)
        if line.split()
    ]


def tokens_of(words: np.ndarray) -> list[bytes]:
    return [token_bytes(words, row) for row in range(len(words))]


class long_from:
    """Context: tokens longer than ``limit`` bytes are long (restored on exit)."""

    def __init__(self, limit: int):
        self.limit = limit

    def __enter__(self):
        self.saved = _words.LONG_TOKEN_BYTES
        _words.LONG_TOKEN_BYTES = self.limit

    def __exit__(self, *exc):
        _words.LONG_TOKEN_BYTES = self.saved


_LONG_LIMITS = st.sampled_from([LONG_TOKEN_BYTES, 1, 3, 8, 9, 16])


_TOKEN = st.binary(min_size=1, max_size=30).map(
    lambda b: bytes(c for c in b if c not in b" \t\n\r\x0b\x0c\x00") or b"x"
)
_SEPARATOR = st.sampled_from([b" ", b"\t", b"  ", b" \t", b"\x0b", b"\x0c"])
_LINE_END = st.sampled_from([b"\n", b"\r\n", b"\r", b" \n", b"\n\n", b"\n  \n"])


@st.composite
def texts(draw) -> bytes:
    lines = draw(st.lists(st.lists(_TOKEN, max_size=7), max_size=12))
    out = b""
    for fields in lines:
        if draw(st.booleans()):
            out += draw(_SEPARATOR)
        for i, field in enumerate(fields):
            out += (draw(_SEPARATOR) if i else b"") + field
        out += draw(_LINE_END)
    if draw(st.booleans()) and out.endswith(b"\n"):
        out = out[:-1]  # no final newline
    return out


@settings(max_examples=examples(120), deadline=None)
@given(texts(), st.integers(1, 64), st.integers(1, 64), _LONG_LIMITS)
# a control byte where the second line lacks a delimiter: not a grid of two fields
@example(b"x x\n!\x01!\n", 64, 64, LONG_TOKEN_BYTES)
def test_split_matches_reference(data, chunk, piece, long_limit):
    original = _tokens.CHUNK_BYTES, _text.PIECE_BYTES
    _tokens.CHUNK_BYTES = chunk  # tiny parts and pieces: every boundary case
    _text.PIECE_BYTES = piece
    try:
        with long_from(long_limit):
            fields = split_fields(data, (0, 1, 2, 6), first_row=(0, 3))
    finally:
        _tokens.CHUNK_BYTES, _text.PIECE_BYTES = original
    assert_fields_are_the_reference(fields, data, long_limit)


def assert_fields_are_the_reference(fields, data: bytes, long_limit: int) -> None:
    """``split_fields(data, (0, 1, 2, 6), first_row=(0, 3))`` is what a Python split gives."""
    expected = reference_rows(data)
    assert row_lines(fields) == [number for number, _ in expected]
    assert fields.row_count.tolist() == [len(row) for _, row in expected]
    for j in (0, 1, 2, 6):
        assert tokens_of(fields.columns[j]) == [
            row[j] if len(row) > j else b"" for _, row in expected
        ]
        assert fields.columns[j].shape[1] <= max(1, -(-long_limit // 8))
        long = [len(row) > j and len(row[j]) > long_limit for _, row in expected]
        assert long_rows(fields.columns[j]).tolist() == long
    first = expected[0][1] if expected else []
    for j in (0, 3):
        want = first[j].decode("utf-8", "surrogateescape") if len(first) > j else None
        assert fields.first_row[j] == want


#: tokens without control bytes (1-31, data to the tokenizer, but off the grid path)
_PRINTED_TOKEN = _TOKEN.map(lambda b: bytes(c for c in b if c > 32) or b"x")


@st.composite
def grids(draw) -> bytes:
    """Plain texts of rows with the same number of fields (the grid of ``_grid_fields``), and
    each of the ways a text is almost one: a field more or less on a line, a doubled or
    trailing delimiter, a blank line, the other delimiter, a lone ``\\r``, a control byte in
    a token or in place of a delimiter (data, but not a separator)."""
    n_fields = draw(st.integers(1, 6))
    rows = draw(st.lists(st.lists(_PRINTED_TOKEN, min_size=n_fields, max_size=n_fields),
                         min_size=1, max_size=12))  # fmt: skip
    delimiter = draw(st.sampled_from([b" ", b"\t"]))
    lines = [delimiter.join(row) for row in rows]
    flaw = draw(st.sampled_from([None, "more", "fewer", "double", "trailing", "leading", "blank",
                                 "other", "cr", "blank-end", "control",
                                 "control-delimiter"]))  # fmt: skip
    at = draw(st.integers(0, len(lines) - 1))
    if flaw == "more":
        lines[at] += delimiter + b"x"
    elif flaw == "fewer" and n_fields > 1:
        lines[at] = lines[at].rsplit(delimiter, 1)[0]
    elif flaw == "double" and n_fields > 1:
        lines[at] = lines[at].replace(delimiter, delimiter * 2, 1)
    elif flaw == "trailing":
        lines[at] += delimiter
    elif flaw == "leading":
        lines[at] = delimiter + lines[at]
    elif flaw == "blank":
        lines.insert(at, b"")
    elif flaw == "other":
        lines[at] += b" \t"[:: -1 if delimiter == b" " else 1][:1] + b"y"
    elif flaw == "cr":
        lines[at] += b"\r"
    elif flaw in ("control", "control-delimiter"):
        control = bytes([draw(st.sampled_from([1, 8, 14, 27, 31]))])
        if flaw == "control":
            lines[at] = lines[at][:1] + control + lines[at][1:]
        else:  # in place of a delimiter: a field fewer on the line, one token longer
            lines[at] = lines[at].replace(delimiter, control, 1)
    text = b"\n".join(lines)
    if flaw == "blank-end":
        text += b"\n\n"
    elif draw(st.booleans()):
        text += b"\n"
    return text


@settings(max_examples=examples(120), deadline=None)
@given(grids(), _LONG_LIMITS)
def test_grids_split_as_the_tokenizer_splits(data, long_limit):
    with long_from(long_limit):
        fields = split_fields(data, (0, 1, 2, 6), first_row=(0, 3))
    assert_fields_are_the_reference(fields, data, long_limit)
    lines = data.removesuffix(b"\n").split(b"\n")
    if (
        b"\r" not in data
        and not any(0 < byte < 32 and byte not in b"\t\n" for byte in data)  # control bytes
        and not data.startswith(b"\xef\xbb\xbf")  # a byte-order mark: not plain
        and len({len(line.split()) for line in lines}) == 1
        and all(line.split(b"\t" if b"\t" in lines[0] else b" ") == line.split() for line in lines)
    ):  # a grid: split as one, its rows numbered as lines (one segment of lines)
        assert fields.lines.starts.tolist() == [0] and fields.lines.first_lines.tolist() == [1]


@pytest.mark.parametrize("compiled", [False, True])
def test_a_grid_of_a_run_is_split_at_once(monkeypatch, compiled):
    # numpy's path finds the grid's spans (_grid_spans), the compiled one its words at once
    # (_grid_fields); either way a grid, split as the tokenizer splits it
    if compiled and native.kernels is None:
        pytest.skip("divaeval._native is not built")
    monkeypatch.setattr(native, "kernels", native.kernels if compiled else None)
    data = b"".join(
        f"{t} Q0 doc-{t}-{d} {d} {-d / 7} tag\n".encode() for t in (1, 2) for d in (1, 2, 3)
    )
    grids = []
    name = "_grid_fields" if compiled else "_grid_spans"
    found = getattr(_tokens, name)

    def grid(*args):
        grids.append(found(*args))
        return grids[-1]

    monkeypatch.setattr(_tokens, name, grid)
    fields = split_fields(data, (0, 2, 4), first_row=(1, 5, 6))
    assert grids and grids[0] not in (None, False, True) and fields.row_count.tolist() == [6] * 6
    assert tokens_of(fields.columns[2])[:2] == [b"doc-1-1", b"doc-1-2"]
    assert fields.first_row == {1: "Q0", 5: "tag", 6: None}
    # the same text tokenized (no grid): the same fields and lines
    monkeypatch.setattr(_tokens, name, lambda *a: False if compiled else None)
    tokenized = split_fields(data, (0, 2, 4), first_row=(1, 5, 6))
    assert row_lines(tokenized) == row_lines(fields) == [1, 2, 3, 4, 5, 6]
    for j in (0, 2, 4):
        assert np.array_equal(fields.columns[j], tokenized.columns[j])


def test_split_empty_and_blank():
    for data in (b"", b"\n\n", b"  \t\r\n"):
        fields = split_fields(data, (0,), first_row=(0,))
        assert fields.n_rows == 0
        assert fields.columns[0].shape[0] == 0
        assert fields.first_row == {0: None}


def test_split_long_tokens_and_text():
    long = b"clueweb12-0000tw-00-00000" * 3
    fields = split_fields(b"a " + long + b"\n\xc3\xa9t\xff b\n", (0, 1))
    assert tokens_of(fields.columns[1]) == [long, b"b"]
    assert fields.text(0, 1) == "\xe9t\udcff"


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=True), min_size=1, max_size=50))
def test_float_parsing_is_exact(values):
    data = b"\n".join(repr(v).encode() for v in values)
    parsed, bad = parse_floats(split_fields(data, (0,)).columns[0])
    assert bad is None
    assert [struct.pack("<d", v) for v in parsed] == [struct.pack("<d", v) for v in values]


def test_float_parsing_random_reprs_bit_exact():
    rng = random.Random(7)
    texts = []
    for _ in range(20000):
        kind = rng.random()
        if kind < 0.4:
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            text = repr(x) if x == x and abs(x) != float("inf") else "1.5"
        elif kind < 0.7:
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
            cut = rng.randint(0, len(digits))
            text = f"{rng.choice(['', '-', '+'])}{digits[:cut]}.{digits[cut:]}0"
            text += rng.choice(["", f"e{rng.randint(-330, 310)}", f"E+{rng.randint(0, 20)}"])
        else:
            text = f"{rng.uniform(-1e6, 1e6):.{rng.randint(0, 17)}f}"
        texts.append(text)
    data = "\n".join(texts).encode()
    parsed, bad = parse_floats(split_fields(data, (0,)).columns[0])
    assert bad is None
    expected = np.array([float(t) for t in texts])
    assert np.array_equal(parsed.view(np.uint64), expected.view(np.uint64))


@settings(max_examples=examples(120), deadline=None)
@given(st.lists(st.text(alphabet="0123456789.+-eE_x", min_size=1, max_size=10), min_size=1))
def test_short_decimal_path_agrees_with_float(tokens):
    # Tokens of up to 10 bytes from the characters of numbers: the fast path (plain decimals of
    # at most 8 bytes) and the cast (everything else) together give float()'s bits, and the
    # first token float() refuses (or that holds "_", which float() takes) is the one found.
    data = "\n".join(tokens).encode()
    parsed, bad = parse_floats(split_fields(data, (0,)).columns[0])

    def strtod(token):
        try:
            return None if "_" in token else float(token)
        except ValueError:
            return None

    expected = [strtod(token) for token in tokens]
    refused = [i for i, value in enumerate(expected) if value is None]
    assert bad == (refused[0] if refused else None)
    if not refused:  # (after a refusal, values are NaN)
        assert parsed.tobytes() == np.array(expected).tobytes()


def test_short_decimals_read_exactly():
    # Every decimal of at most 8 bytes with its sign and dot anywhere: m / 10^k, correctly
    # rounded (Clinger), so the bits equal float()'s; "-0" is -0.0.
    rng = random.Random(11)
    texts = ["-0", "+0.0", "5.", ".5", "-.5", "99999999", "-9999999", "0.000001"]
    for _ in range(20000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 7)))
        cut = rng.randint(0, len(digits))
        sign = rng.choice(["", "-", "+"])
        texts.append(f"{sign}{digits[:cut]}.{digits[cut:]}"[:8] if rng.random() < 0.8 else digits)
    texts = [t for t in texts if any(c.isdigit() for c in t)]
    parsed, bad = parse_floats(split_fields("\n".join(texts).encode(), (0,)).columns[0])
    assert bad is None
    expected = np.array([float(t) for t in texts])
    assert parsed.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("column", "first_bad"),
    [
        ([b"1", b"2.5", b"x", b"3", b"y"], 2),
        ([b"1", b"1_0", b"x"], 1),
        ([b"1", b"2", b"1_0"], 2),
        ([b"nan", b"inf", b"-1e5", b".5"], None),
        ([b"0x10"], 0),
        # refused by strtod, though made of a decimal's characters (the short-decimal path)
        ([b"1", b"--5"], 1),
        ([b"+-5"], 0),
        ([b"2", b"1.2.3"], 1),
        ([b"."], 0),
        ([b"-"], 0),
        ([b"5", b"-.", b"+"], 1),
    ],
)
def test_float_parsing_locates_first_bad(column, first_bad):
    parsed, bad = parse_floats(split_fields(b"\n".join(column), (0,)).columns[0])
    assert bad == first_bad


def test_integer_tokens():
    column = [b"1", b"-2", b"+30", b"+", b"-", b"1.0", b"a1", b"007", b"12345678901234567890"]
    words = split_fields(b"\n".join(column), (0,)).columns[0]
    assert integer_tokens(words).tolist() == [1, 1, 1, 0, 0, 0, 0, 1, 1]


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(_TOKEN, min_size=1, max_size=40), st.lists(_TOKEN, max_size=20), _LONG_LIMITS)
def test_factorize_table_and_ranks(tokens, probes, long_limit):
    with long_from(long_limit):
        check_factorize_table_and_ranks(tokens, probes)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(_TOKEN, st.integers(1, 4)), min_size=1, max_size=30), _LONG_LIMITS)
def test_factorize_tokens_repeated_in_runs(runs, long_limit):
    # as the docnos of qrels (a line per subtopic): factorized one row per run where that pays
    tokens = [token for token, repeat in runs for _ in range(repeat)]
    with long_from(long_limit):
        check_factorize_table_and_ranks(tokens, [])


def check_factorize_table_and_ranks(tokens, probes):
    words = split_fields(b"\n".join(tokens), (0,)).columns[0]
    codes, uniques = factorize(words)
    assert [tokens_of(uniques)[c] for c in codes] == tokens
    assert len(set(tokens_of(uniques))) == len(uniques)
    ranks = byte_ranks(words)
    ordered = sorted(set(tokens))
    assert ranks.tolist() == [ordered.index(t) for t in tokens]
    if probes:
        probe_words = split_fields(b"\n".join(probes), (0,)).columns[0]
        found = TokenTable(uniques).find(probe_words)
        table = tokens_of(uniques)
        assert [table[i] if i >= 0 else None for i in found] == [
            p if p in table else None for p in probes
        ]
        # with the probes' hashes from factorize_with_keys (as runs pass them), and the
        # table's own hashes (as read qrels give them to the qrels index)
        probe_codes, probe_uniques, keys = factorize_with_keys(probe_words)
        found_uniques = TokenTable(uniques).find(probe_uniques, keys)
        assert found_uniques[probe_codes].tolist() == found.tolist()
        _, keyed_uniques, table_keys = factorize_with_keys(words)
        found_keyed = TokenTable(keyed_uniques, table_keys).find(probe_uniques, keys)
        keyed = tokens_of(keyed_uniques)
        assert [keyed[i] if i >= 0 else None for i in found_keyed[probe_codes]] == [
            p if p in table else None for p in probes
        ]


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 40), st.integers(0, 5), st.integers(1, 3), st.integers(0, 2**32))
def test_row_changes_are_the_rows_that_differ_from_the_row_above(n, width, values, seed):
    # few distinct values, so that equal neighbours occur; width 0 and fewer than 2 rows too
    words = np.random.default_rng(seed).integers(0, values, (n, width)).astype(np.uint64)
    expected = [words[i + 1].tolist() != words[i].tolist() for i in range(max(n - 1, 0))]
    assert row_changes(words).tolist() == expected


def test_seven_digit_docnos_by_their_hash():
    # 7-digit docnos as single words leave no room for 12 bits of row number in their sort:
    # factorized and found by their hash (a bijection of one word), exactly
    rng = np.random.default_rng(7)
    tokens = [b"%07d" % v for v in rng.integers(0, 10**7, 3000)] + [b"12345678", b"1234567"]
    words = split_fields(b"\n".join(tokens), (0,)).columns[0]
    assert words.shape[1] == 1 and not _words._has_room(words[:, 0])
    codes, uniques, keys = factorize_with_keys(words)
    assert [tokens_of(uniques)[c] for c in codes] == tokens
    assert len(set(tokens_of(uniques))) == len(uniques) and keys is not None
    probes = [b"%07d" % v for v in rng.integers(0, 10**7, 500)] + tokens[:100] + [b"123456"]
    probe_words = split_fields(b"\n".join(probes), (0,)).columns[0]
    table = tokens_of(uniques)
    expected = [p if p in table else None for p in probes]
    found = TokenTable(uniques).find(probe_words)
    assert [table[i] if i >= 0 else None for i in found] == expected
    probe_codes, probe_uniques, probe_keys = factorize_with_keys(probe_words)
    found_uniques = TokenTable(uniques).find(probe_uniques, probe_keys)
    assert found_uniques[probe_codes].tolist() == found.tolist()
    found_keyed = TokenTable(uniques, keys).find(probe_uniques, probe_keys)  # the qrels' way
    assert found_keyed[probe_codes].tolist() == found.tolist()
    ordered = sorted(set(tokens))
    assert byte_ranks(words).tolist() == [ordered.index(t) for t in tokens]


def test_hash_collisions_fall_back_to_exact(monkeypatch):
    # A constant hash: every pair of tokens collides, so only the exact paths answer.
    monkeypatch.setattr(_words, "_hash", lambda words: np.zeros(len(words), dtype=np.uint64))
    tokens = [b"clueweb09-en0000-00-1", b"clueweb09-en0000-00-2", b"clueweb09-en0000-00-1"]
    words = split_fields(b"\n".join(tokens), (0,)).columns[0]
    codes, uniques = factorize(words)
    assert [tokens_of(uniques)[c] for c in codes] == tokens
    found = TokenTable(uniques).find(
        split_fields(b"clueweb09-en0000-00-2\nnope-nope-nope\n", (0,)).columns[0]
    )
    assert tokens_of(uniques)[found[0]] == tokens[1]
    assert found[1] == -1


_KEY_SPACES = st.sampled_from([2**8, 2**20, 2**40, 2**44, 2**63, 2**64])


@settings(max_examples=examples(80), deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
    st.lists(st.integers(0, 300), max_size=300),
    _KEY_SPACES,
    st.integers(0, 2**64 - 1),
)
def test_unique_inverse_is_numpys(pool, picks, space, high):
    # keys small enough to shift (room for the row number) and large ones (hashes), and keys
    # sharing their high bits but not their low ones (the packed sort must fall back)
    pool = [v % space for v in pool] + [(high & ~0xFFFF) | (v & 0xFFFF) for v in pool]
    keys = np.array([pool[i % len(pool)] for i in picks] or pool, dtype=np.uint64)
    uniques, codes, first = _words.unique_inverse(keys)
    expected, index, inverse = np.unique(keys, return_index=True, return_inverse=True)
    assert uniques.tolist() == expected.tolist()
    assert codes.tolist() == inverse.reshape(-1).tolist() and codes.dtype == np.int64
    assert (keys[first] == uniques).all()  # a row of each unique
    _assert_sorts(keys)


def test_sort_order_of_hashes_sharing_their_high_bits():
    # 1000 rows: 10 bits of row number; keys differing only in their 10 low bits collide
    rng = np.random.default_rng(3)
    keys = (np.uint64(0xABCDEF) << np.uint64(40)) | rng.integers(0, 1024, 1000).astype(np.uint64)
    _assert_sorts(keys)
    keys = rng.integers(0, 2**63, 1000).astype(np.uint64) << np.uint64(1)  # distinct high bits
    _assert_sorts(keys)


def _assert_sorts(keys: np.ndarray) -> None:
    """``sort_keys(keys)`` is an argsort of ``keys`` and the keys in its order, whether they
    are taken for hashes or not."""
    for hashed in (False, True):
        order, ordered = _words.sort_keys(keys, hashed=hashed)
        assert sorted(order.tolist()) == list(range(len(keys)))  # a permutation
        assert ordered.tolist() == keys[order].tolist() == sorted(keys.tolist())
        order, ordered = _words.sort_keys(keys, hashed=hashed, stable=True)
        assert order.tolist() == np.argsort(keys, kind="stable").tolist()
        assert ordered.tolist() == keys[order].tolist()


def test_decode():
    words = split_fields("é\nab\n".encode(), (0,)).columns[0]
    assert decode(words).tolist() == ["é", "ab"]


def _reference_integer(token: bytes) -> int | None:
    """The value of ``[+-]?[0-9]+`` within int64, else None."""
    if re.fullmatch(rb"[+-]?[0-9]+", token) is None:
        return None
    value = int(token)
    return value if -(2**63) <= value < 2**63 else None


_INTEGER_TEXT = st.one_of(
    st.integers(-(2**70), 2**70).map(lambda v: str(v).encode()),
    st.integers(0, 10**9).map(lambda v: b"+" + str(v).encode()),
    st.integers(-(10**6), 10**6).map(lambda v: f"{v:+030d}".encode()),  # leading zeros
    st.sampled_from(
        [
            b"9223372036854775807",
            b"9223372036854775808",
            b"-9223372036854775808",
            b"-9223372036854775809",
            b"+",
            b"-",
            b"1.0",
            b"1e3",
            b"0x10",
            b"1_0",
            b"--1",
            b"0" * 200,
        ]
    ),
    _TOKEN,
)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(_INTEGER_TEXT, min_size=1, max_size=30), _LONG_LIMITS)
def test_parse_integers_exact_and_bounded(tokens, long_limit):
    with long_from(long_limit):
        words = split_fields(b"\n".join(tokens), (0,)).columns[0]
        values, fine = parse_integers(words)
        # every width: one word (the SWAR path), several words, long tokens
        wide_values, wide_fine = parse_integers(np.pad(words, ((0, 0), (0, 2))))
    expected = [_reference_integer(token) for token in tokens]
    assert fine.tolist() == [value is not None for value in expected]
    assert values.tolist() == [value or 0 for value in expected]
    assert wide_fine.tolist() == fine.tolist() and wide_values.tolist() == values.tolist()


def test_parse_integers_int64_edges():
    words = split_fields(
        b"9223372036854775807\n-9223372036854775808\n9223372036854775808\n99999999999999999999\n"
        b"00000000000000000000000000042\n-0\n12345678\n",
        (0,),
    ).columns[0]
    values, fine = parse_integers(words)
    assert fine.tolist() == [True, True, False, False, True, True, True]
    assert values.tolist() == [2**63 - 1, -(2**63), 0, 0, 42, 0, 12345678]


def test_long_numbers_read_like_short_ones():
    # a number longer than LONG_TOKEN_BYTES (leading zeros) reads as its short spelling
    zeros = b"0" * (LONG_TOKEN_BYTES + 5)
    words = split_fields(b"\n".join([zeros + b"1.5", b"1.5", zeros + b"1_0", b"-" + zeros]), (0,))
    column = words.columns[0]
    assert long_rows(column).tolist() == [True, False, True, True]
    values, bad = parse_floats(column)
    assert bad == 2  # the underscore, as for short tokens
    assert values[0] == values[1] == 1.5 and values[3] == 0.0
    assert parse_floats(column[[0, 1, 3]])[1] is None
    assert integer_tokens(column).tolist() == [False, False, False, True]


def test_ten_megabyte_token_is_one_word():
    # Memory follows the input: a 10 MB docno takes one marker word, not 1.25M words per row.
    huge = b"d" + b"x" * 10_000_000
    text = b"".join(b"1 Q0 d%d 1 1 t\n" % i for i in range(1000)) + b"1 Q0 " + huge + b" 1 1 t\n"
    fields = split_fields(text, (2,))
    column = fields.columns[2]
    assert column.shape == (1001, 1)
    assert token_bytes(column, 1000) == huge
    assert decode(column[[999, 1000]]).tolist() == ["d999", huge.decode()]
    codes, uniques = factorize(column)
    assert len(uniques) == 1001
    # byte order: d999 < dxxx... (b"9" < b"x")
    assert byte_ranks(column[[999, 1000]]).tolist() == [0, 1]


def test_decode_rows_of_long_tokens_whatever_the_bytes_of_their_markers():
    # decode joins rows with newlines; a long token's row is its marker (id << 8), whose bytes
    # may hold 0x0a: 300 new long tokens take 300 consecutive ids, so some marker does
    tokens = [f"{i:03d}" + "é" * LONG_TOKEN_BYTES for i in range(300)]
    text = "".join(f"q{i} {token}\n" for i, token in enumerate(tokens)).encode()
    words = split_fields(text, (1,)).columns[1]
    assert any(b"\n" in row for row in as_bytes(words).tolist())
    assert decode(words).tolist() == tokens
    assert decode(split_fields(text, (0,)).columns[0]).tolist() == [f"q{i}" for i in range(300)]


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(_TOKEN, min_size=1, max_size=30), _LONG_LIMITS)
def test_words_of_tokens_are_the_tokenizers_words(tokens, long_limit):
    # in-memory ids (the Python API's frames) become the words a file of them splits into
    texts = [token.decode("utf-8", "surrogateescape") for token in tokens]
    with long_from(long_limit):
        words = words_of(texts)
        split = split_fields(b"\n".join(tokens) + b"\n", (0,)).columns[0]
    assert np.array_equal(words, split)
    assert words_of([]).shape == (0, 1)
