"""The pyarrow fast path of the run and qrels readers (divaeval.io._arrow) against the numpy
tokenizer, the authoritative path.

1. Differential (hypothesis): random run and qrels texts, valid and invalid, plain and not
   (single-space or single-tab fields, or any whitespace; ``\\n``, ``\\r\\n`` and ``\\r`` line
   ends; blank and comment lines; byte-order marks; quotes, backslashes, commas, ``NULL``,
   non-UTF-8 bytes and long tokens in fields; all kinds of scores and grades; a missing last
   line end; varying field counts) read through both paths give identical objects (every
   array, bit for bit, and the line of every row) or identical errors (message, file, line).
2. Focused cases: every pyarrow behaviour the fast path relies on, and that plain files do
   take the fast path (so the differential test compares two different readers).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from support import examples, row_lines

from divaeval.errors import DivaevalError
from divaeval.io import _arrow, read_qrels, read_run
from divaeval.io._text import Source, _content_line_numbers
from divaeval.io._tokens import LONG_TOKEN_BYTES, parse_floats, split_fields

EXAMPLES = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


# divaeval's warnings are collected, not printed (conftest.py)
pytestmark = pytest.mark.usefixtures("collected_warnings")


class FastPathSpy:
    """Counts the texts :func:`split_plain` read (returned fields for)."""

    def __init__(self, monkeypatch):
        self.taken = 0
        original = _arrow.split_plain

        def spy(*args, **kwargs):
            fields = original(*args, **kwargs)
            self.taken += fields is not None
            return fields

        monkeypatch.setattr(_arrow, "split_plain", spy)


def outcome(reader, text: bytes, fast: bool, block: int = 1 << 20, **options):
    """(``"ok"``, every array of the result, the line of every row) or (``"error"``, type,
    message, line) of one read, through the fast path (pyarrow reading blocks of ``block``
    bytes) or the tokenizer."""
    saved = _arrow.PLAIN_MIN_BYTES, _arrow.BLOCK_BYTES
    _arrow.PLAIN_MIN_BYTES = 0 if fast else 1 << 62
    _arrow.BLOCK_BYTES = block
    try:
        parsed = reader("given.txt", text=text, **options)
    except DivaevalError as error:
        return ("error", type(error), str(error), error.line)
    finally:
        _arrow.PLAIN_MIN_BYTES, _arrow.BLOCK_BYTES = saved
    state = {}
    for name, value in vars(parsed).items():
        if name.startswith("_") or name == "source":
            continue
        if isinstance(value, np.ndarray):
            state[name] = (value.dtype.str, value.shape, value.tolist())
        else:
            state[name] = value
    state["lines"] = [parsed.line_of(row) for row in range(len(parsed))]
    state["data"] = parsed.source.data
    return ("ok", state)


def assert_same(reader, text: bytes, block: int = 1 << 20, **options):
    taken = []
    original = _arrow.split_plain

    def spy(*args, **kwargs):
        fields = original(*args, **kwargs)
        taken.append(fields is not None)
        if fields is not None and fields.factorized:
            taken.append("dictionary")
        return fields

    _arrow.split_plain = spy
    try:
        fast = outcome(reader, text, True, block, **options)
    finally:
        _arrow.split_plain = original
    slow = outcome(reader, text, False, **options)
    assert fast == slow, text[:300]
    if currently_in_test_context():  # (--hypothesis-show-statistics: how often each)
        path = "tokenizer" if not any(taken) else "dictionary" if "dictionary" in taken else "fast"
        event(f"{fast[0]}, {path}")
    return fast


# ---------------------------------------------------------------------------------------------
# random texts

# bytes a field may hold: everything but whitespace and NUL, with CSV-special characters
# (quotes, backslash, comma), '#', and bytes that are not UTF-8
_FIELD_BYTES = sorted(set(range(33, 127)) | {0xC3, 0xA9, 0xFF, 0xEF, 0xBB, 0xBF})
_PLAIN_TOKEN = st.sampled_from([b"a", b"d1", b"0101", b"clueweb12-0000tw-00-09603", b"Q0"])
_ODD_TOKEN = st.sampled_from(
    [b'"', b'"a b"', b"a\\", b"\\n", b"x,y", b"NULL", b"NA", b"nan", b"#x", b"\xff\xfe", b"''"]
)
_RANDOM_TOKEN = st.lists(st.sampled_from(_FIELD_BYTES), min_size=1, max_size=10).map(bytes)
_LONG_TOKEN = st.just(b"L" * (LONG_TOKEN_BYTES + 5))
_TOKEN = st.one_of(_PLAIN_TOKEN, _PLAIN_TOKEN, _RANDOM_TOKEN, _ODD_TOKEN, _LONG_TOKEN)

_SCORE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: repr(v).encode()),
    st.floats(-1e6, 1e6).map(lambda v: f"{v:.6g}".encode()),
    st.integers(-(10**30), 10**30).map(lambda v: str(v).encode()),
    st.from_regex(rb"\A[+-]?[0-9]{0,25}(\.[0-9]{0,25})?([eE][+-]?[0-9]{1,4})?\Z"),
    st.sampled_from(
        b"inf -inf nan NaN Infinity 1e999 -1e999 1e-999 -0 +.5 1. . 0x1 1_0 1,5 NULL".split()
        + [b"nan(1)", b"4.9e-324", b""]
    ),
    _RANDOM_TOKEN,
)
_GRADE = st.one_of(
    st.integers(-3, 3).map(lambda v: str(v).encode()),
    st.sampled_from(
        [b"+1", b"02", b"2.0", b"L1", b"L0", b"x", b"99999", b"1e3", b"-2", b"-0", b"2.5", b""]
    ),
)
_TYPE = st.sampled_from([b"inf", b"nav", b"xyz", b"INF"])
_TOPIC = st.sampled_from([b"1", b"2", b"10", b"0101", b"t\xff", b'"q"'])


_CLEAN_TOKEN = st.one_of(_PLAIN_TOKEN, _RANDOM_TOKEN, _ODD_TOKEN)
_CLEAN_SCORE = st.floats(allow_nan=False, allow_infinity=False).map(lambda v: repr(v).encode())


@st.composite
def run_lines(draw):
    """Lines of a run: valid ones (half the texts), or anything."""
    clean = draw(st.booleans())
    token, score = (_CLEAN_TOKEN, _CLEAN_SCORE) if clean else (_TOKEN, _SCORE)
    extras = [draw(st.sampled_from([0, 0, 1]))] if clean else [0, 0, 0, 0, 1, 2, -1, -2]
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        fields = [draw(_TOPIC), b"Q0", draw(token), str(draw(st.integers(0, 99))).encode()]
        fields += [draw(score), b"tag"]
        extra = draw(st.sampled_from(extras))
        fields = fields + [b"x"] * extra if extra >= 0 else fields[:extra]
        lines.append(fields)
    return lines


@st.composite
def qrels_lines(draw):
    """Lines of a qrels file: valid ones (half the texts), or anything."""
    clean = draw(st.booleans())
    token = _CLEAN_TOKEN if clean else _TOKEN
    grade = st.integers(-3, 3).map(lambda v: str(v).encode()) if clean else _GRADE
    five = draw(st.booleans())
    lines = []
    seen = set()
    for _ in range(draw(st.integers(1, 12))):
        fields = [draw(_TOPIC), draw(st.sampled_from([b"0", b"1", b"2"])), draw(token)]
        if clean and tuple(fields) in seen:
            continue
        seen.add(tuple(fields))
        fields.append(draw(grade))
        if clean:
            fields += [b"inf"] if five else []
        elif five != draw(st.sampled_from([False, False, False, True])):
            fields.append(draw(_TYPE))
        lines.append(fields)
    return lines


@st.composite
def layouts(draw, lines):
    """One text of ``lines``: plain (one delimiter, ``\\n``) or with rewrites."""
    plain = draw(st.booleans())
    delimiter = draw(st.sampled_from([b" ", b" ", b"\t"]))
    out = b""
    if not plain and draw(st.booleans()):
        out += draw(st.sampled_from([b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\n"]))
    for fields in lines:
        if not plain and draw(st.integers(0, 4)) == 0:
            out += draw(st.sampled_from([b"\n", b"# comment\n", b"  \n", b"\t#x\n", b"\r\n"]))
        separators = [delimiter] * (len(fields) - 1)
        if not plain and draw(st.booleans()):
            at = draw(st.integers(0, max(len(separators) - 1, 0)))
            odd = draw(st.sampled_from([b"  ", b" \t", b"\t", b" ", b"\x0b", b"\x0c", b"\r"]))
            separators[at : at + 1] = [odd]
        line = fields[0] + b"".join(s + f for s, f in zip(separators, fields[1:], strict=True))
        if not plain and draw(st.integers(0, 5)) == 0:
            line = draw(st.sampled_from([b" ", b"\t"])) + line
        if not plain and draw(st.integers(0, 5)) == 0:
            line += draw(st.sampled_from([b" ", b"\t", delimiter]))
        end = b"\n" if plain else draw(st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"]))
        out += line + end
    if draw(st.booleans()):
        out = out.rstrip(b"\r\n")  # no last line end
    if not plain and draw(st.integers(0, 8)) == 0:
        out = out.replace(b"Q0", b"Q\x000", 1)
    return out


# pyarrow's blocks (table chunks, each with its own dictionaries): one, or a few lines each
_BLOCKS = st.sampled_from([1 << 20, 1 << 20, 64, 200])


@EXAMPLES
@given(data=st.data(), first_line=st.sampled_from([1, 1, 1000]), block=_BLOCKS)
def test_runs_fast_path_equals_tokenizer(data, first_line, block):
    text = data.draw(layouts(data.draw(run_lines())))
    assert_same(read_run, text, block, first_line=first_line)


@EXAMPLES
@given(data=st.data(), block=_BLOCKS)
def test_qrels_fast_path_equals_tokenizer(data, block):
    text = data.draw(layouts(data.draw(qrels_lines())))
    assert_same(read_qrels, text, block)


@settings(max_examples=examples(24), deadline=None)
@given(scores=st.lists(_SCORE, min_size=1, max_size=50))
def test_scores_are_bit_identical(scores):
    text = b"".join(b"1 Q0 d%d 1 %s t\n" % (i, score) for i, score in enumerate(scores))
    assert_same(read_run, text)


# ---------------------------------------------------------------------------------------------
# focused cases


def fast_fields(text: bytes, columns=(0, 2), numbers=(4,), **options):
    return _arrow.split_plain(text, columns, numbers=numbers, first_row=(5,), **options)


PLAIN_RUN = b"1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n2 Q0 c 1 0.5 t\n"


def test_plain_files_take_the_fast_path(monkeypatch):
    spy = FastPathSpy(monkeypatch)
    monkeypatch.setattr(_arrow, "PLAIN_MIN_BYTES", 0)
    for text in (
        PLAIN_RUN,
        PLAIN_RUN.replace(b" ", b"\t"),
        PLAIN_RUN.rstrip(b"\n"),  # no last line end
        b"\n\n" + PLAIN_RUN.replace(b"\n", b"\n\n"),  # empty lines
        PLAIN_RUN.replace(b"\n", b" x y\n"),  # more than 6 fields
        b'1 Q0 "a" 1 2 t\n1 Q0 a"b 2 1 "t\n',  # quotes are data
        b"1 Q0 a\\ 1 2 t\n1 Q0 \\ 2 1 t\n",  # so are backslashes
        b"1 Q0 NULL 1 2 NA\n1 Q0 nan 2 1 N/A\n",  # and null spellings
        b"1 Q0 \xff\xfe 1 2 t\n",  # and bytes that are not UTF-8
    ):
        before = spy.taken
        assert_same(read_run, text)
        assert spy.taken == before + 1, text
    qrels = b"1 0 a 1\n1 0 b -2\n2 1 c 0\n"
    before = spy.taken
    assert_same(read_qrels, qrels)
    assert_same(read_qrels, qrels.replace(b"\n", b" inf\n"))
    assert spy.taken == before + 2


@pytest.mark.parametrize("block", [1 << 20, 100])
def test_repetitive_fields_come_factorized(monkeypatch, block):
    # docnos drawn from a few (synthetic runs, qrels): pyarrow's dictionaries, one per block
    # (chunk), are factorized instead of every row; topics change rarely: their words are
    monkeypatch.setattr(_arrow, "BLOCK_BYTES", block)
    lines = [b"%d Q0 d%d %d %d t" % (i // 50, (i * 7) % 30, i % 50, -i) for i in range(400)]
    text = b"\n".join(lines) + b"\n"
    fields = fast_fields(text, columns=(), codes=(0, 2), min_fields=6)
    assert fields is not None and list(fields.factorized) == [2] and 0 in fields.columns
    assert_same(read_run, text, block)
    qrels = b"".join(b"%d %d d%d %d\n" % (i // 60, i % 3, i % 20, i % 3) for i in range(600))
    fields = _arrow.split_plain(qrels, (3,), codes=(0, 1, 2), min_fields=4)
    assert fields is not None and list(fields.factorized) == [1, 2]
    assert_same(read_qrels, qrels, block)


@pytest.mark.parametrize(
    "text",
    [
        PLAIN_RUN.replace(b"\n", b"\r\n"),  # (read_source makes \n of every line end first)
        PLAIN_RUN.replace(b"\n", b"\r"),
        PLAIN_RUN.replace(b"a", b"a\x0b"),
        PLAIN_RUN.replace(b"b", b"b\x0c"),
        PLAIN_RUN.replace(b" Q0", b"\tQ0", 1),  # a tab in a space-delimited text
        PLAIN_RUN.replace(b" Q0", b"  Q0", 1),  # an empty field
        PLAIN_RUN.replace(b"\n", b" \n", 1),  # a delimiter ending a line
        PLAIN_RUN.replace(b"\n2", b"\n 2", 1),  # or starting one
        PLAIN_RUN.replace(b"\n2", b"\n\t2", 1),
        # an empty field in place of a missing one, the field count kept: in a field pyarrow
        # is not asked to convert (Q0, rank, tag), or at the end of the text
        PLAIN_RUN.replace(b"1 Q0 b", b"1  b", 1),
        PLAIN_RUN.replace(b"b 2 1.5", b"b  1.5", 1),
        PLAIN_RUN.replace(b"1.5 t\n", b"1.5 \n", 1),
        PLAIN_RUN.replace(b"0.5 t\n", b"0.5 "),
        b"\xef\xbb\xbf" + PLAIN_RUN,  # pyarrow would drop this byte-order mark
        PLAIN_RUN.replace(b"\n", b" x\n", 1),  # a varying field count
        PLAIN_RUN.replace(b" t\n", b"\n"),  # too few fields
        PLAIN_RUN.replace(b"2.5", b"inf"),  # a score that is not finite
        PLAIN_RUN.replace(b"2.5", b"nan(1)"),
        PLAIN_RUN.replace(b"2.5", b"1e999"),
        PLAIN_RUN.replace(b"2.5", b"x"),  # or not a number
        PLAIN_RUN.replace(b" a ", b" %s " % (b"a" * (LONG_TOKEN_BYTES + 1))),  # a long token
        b"\n\n\n",  # no field at all
        b"",
    ],
)
def test_unusual_texts_are_left_to_the_tokenizer(text):
    # the run readers see text after read_source; split_plain is given the raw bytes here
    assert fast_fields(text, min_fields=6) is None
    assert_same(read_run, text)


def test_field_counts_outside_the_range_are_left_to_the_tokenizer():
    assert fast_fields(PLAIN_RUN, min_fields=7) is None
    assert fast_fields(PLAIN_RUN, min_fields=4, max_fields=5) is None
    assert fast_fields(PLAIN_RUN, min_fields=6, max_fields=6) is not None
    assert fast_fields(b"1 0 a\n", numbers=(4,)) is None  # no column 4 to parse


def test_fields_equal_the_tokenizers():
    text = b"\n1 Q0 a 1 2.5 t\n\n10 Q0 clueweb12-0000tw-00-09603 2 -1e-3 \xff\n"
    fast = fast_fields(text, columns=(0, 2, 7), min_fields=6)
    slow = split_fields(text, (0, 2, 4, 7), first_row=(5,))
    assert fast is not None and fast.row_line is None  # empty lines: counted when asked
    assert fast.row_count.tolist() == slow.row_count.tolist() == [6, 6]
    for j in (0, 2, 7):  # (7: absent on every row, zero words as for the tokenizer)
        assert fast.columns[j].tobytes() == slow.columns[j].tobytes()
        assert fast.columns[j].shape == slow.columns[j].shape
    assert fast.numbers[4].tobytes() == parse_floats(slow.columns[4])[0].tobytes()
    assert fast.first_row == slow.first_row == {5: "t"}


def test_rows_of_texts_without_empty_lines_are_numbered():
    # row i is on line i + 1, known without an array of a number per row
    fast = fast_fields(PLAIN_RUN, min_fields=6)
    assert fast is not None and fast.rows_are_lines and fast.row_line is None
    assert row_lines(split_fields(PLAIN_RUN, (0,))) == [1, 2, 3]
    source = Source("r", PLAIN_RUN, first_line=11)  # (a block of a file, from line 11)
    source.set_row_lines(fast)
    assert [source.line_of(row) for row in range(3)] == [11, 12, 13]
    assert not fast_fields(b"\n" + PLAIN_RUN, min_fields=6).rows_are_lines


@settings(max_examples=examples(120), deadline=None)
@given(st.binary(max_size=40).map(lambda raw: bytes(b"ab \t\n\x0b\x0c\n"[b % 8] for b in raw)))
def test_content_line_numbers(data):
    # lines holding a field, as the tokenizer numbers its rows (used for lines not recorded)
    expected = [n for n, line in enumerate(data.split(b"\n"), start=1) if line.split()]
    assert _content_line_numbers(data).tolist() == expected
    assert row_lines(split_fields(data, (0,))) == expected


def test_line_numbers_of_errors_found_after_the_fast_path():
    # a duplicate judgment is found on the parsed arrays: its lines are counted on demand
    text = b"\n# comment\n1 0 a 1\n\n1 0 b 1\n1 0 a 2\n"
    fast = outcome(read_qrels, text, True)
    assert fast == outcome(read_qrels, text, False)
    assert fast[2].startswith("given.txt:6: conflicting judgments") and "line 3" in fast[2]
    fast = outcome(read_run, b"\n1 Q0 a 1 2 t\n1 Q0 b x 1 t\n", True, first_line=41)
    assert fast[0] == "ok" and fast[1]["lines"] == [42, 43]


def test_many_scores_round_as_the_tokenizer():
    # 20,000 numbers of 20 significant digits, from subnormal to 1e303: correctly rounded by
    # both (a hard case for a float parser: more digits than a double holds)
    rng = np.random.default_rng(7)
    digits = (rng.integers(0, 10, size=(20000, 20)) + ord("0")).astype(np.uint8)
    exponents = rng.integers(-325, 300, size=20000)
    scores = [
        b"%s%s.%se%d" % (b"-" if e % 2 else b"", d[:3].tobytes(), d[3:].tobytes(), e)
        for d, e in zip(digits, exponents.tolist(), strict=True)
    ]
    text = b"".join(b"1 Q0 d%d 1 %s t\n" % (i, s) for i, s in enumerate(scores))
    fields = fast_fields(text, min_fields=6)
    assert fields is not None
    words = split_fields(text, (4,)).columns[4]
    assert fields.numbers[4].tobytes() == parse_floats(words)[0].tobytes()


def test_small_files_do_not_import_pyarrow(tmp_path):
    run = tmp_path / "r.txt"
    run.write_bytes(PLAIN_RUN)
    code = (
        "import sys; from divaeval.io import read_run; "
        f"read_run({str(run)!r}); print('pyarrow' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_the_fast_path_imports_neither_pandas_nor_pyarrow_compute(tmp_path):
    run = tmp_path / "r.txt"
    run.write_bytes(PLAIN_RUN)
    code = (
        "import sys; from divaeval.io import _arrow, read_run; _arrow.PLAIN_MIN_BYTES = 0; "
        "spied = _arrow.split_plain(open(sys.argv[1], 'rb').read(), (0, 2), numbers=(4,)); "
        f"read_run({str(run)!r}); "
        "print(spied is not None, [m for m in ('pandas', 'pyarrow.compute') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code, str(run)], capture_output=True, text=True)
    assert done.stdout.strip() == "True []", done.stderr


def test_two_threads_keep_the_items_order_and_raise_errors():
    assert _arrow._in_two_threads(lambda x: x * x, list(range(7))) == [0, 1, 4, 9, 16, 25, 36]
    assert _arrow._in_two_threads(lambda x: x, []) == []
    with pytest.raises(ZeroDivisionError):
        _arrow._in_two_threads(lambda x: 1 // x, [3, 2, 1, 0, 5])
    # as split_plain reads and checks a text: two tasks, the one failing raises
    assert _arrow._in_two_threads(lambda task: task(), [lambda: "table", lambda: True]) == [
        "table",
        True,
    ]
    with pytest.raises(ZeroDivisionError):
        _arrow._in_two_threads(lambda task: task(), [lambda: 1 // 0, lambda: True])
