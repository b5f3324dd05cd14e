"""The compiled loops (divaeval/_native.c, :mod:`divaeval.native`) against numpy's, bit for bit.

Each compiled loop replaces a numpy computation step for step (the greedy ideal ranking, the
word matrices of a text's tokens, short integers and decimals read from them). Both paths run
here on the same inputs and must agree exactly: values, flags, the bits of every double.
Where the compiled module is not built (an install without a C compiler) these tests are
skipped, unless ``DIVAEVAL_REQUIRE_NATIVE=1`` (CI) makes that a failure.
"""

from __future__ import annotations

import copy
import functools
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import SAMPLE_DATA, TREC2012, TREC2012_RUNS, examples, judge_text, measure_values
from test_novelty_kernels import literal_greedy, pools, ranked_collections

import divaeval
from divaeval import native
from divaeval.errors import DataError
from divaeval.io import _numbers, _text, _tokens, _words, read_qrels, read_run
from divaeval.judged import judge
from divaeval.judged.index import QrelsIndex
from divaeval.metrics.families import ndeval
from divaeval.metrics.novelty import GreedyIdeal, novelty_gains
from divaeval.report import ReportOptions, trec_eval
from divaeval.report.numbers import fixed_rows
from divaeval.settings import Settings

BUILT = native.kernels
SETTINGS = settings(max_examples=examples(60), deadline=None)

if BUILT is None:
    if os.environ.get("DIVAEVAL_REQUIRE_NATIVE") == "1":
        pytest.fail("divaeval._native is not built (pip install needs a C compiler)")
    pytest.skip("divaeval._native is not built: numpy computes alone", allow_module_level=True)


@contextmanager
def computed_by(kernels) -> Iterator[None]:
    """divaeval's numbers computed by ``kernels`` (None: numpy alone) within the block."""
    saved = native.kernels
    native.kernels = kernels
    try:
        yield
    finally:
        native.kernels = saved


def both(compute):
    """(numpy's result, the compiled loops' result) of ``compute()``."""
    with computed_by(None):
        plain = compute()
    with computed_by(BUILT):
        compiled = compute()
    return plain, compiled


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def printed_on_both_paths(command: list[str]) -> list[str]:
    """What ``command`` prints without the compiled loops and with them (the same text)."""
    outputs = []
    for setting in ("0", "1"):
        env = {**os.environ, "DIVAEVAL_NATIVE": setting}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    return outputs


@SETTINGS
@given(pools(), st.sampled_from([0.0, 0.5, 0.9, 1.0]))
def test_the_greedy_ideal_is_ndeval_loop_on_both_paths(case, beta):
    """Both paths, and the length past which the RBP sums settle (rbp_settled_length
    against numpy's loop rank by rank)."""
    relevant, alpha, values, lengths = case

    def gains():
        greedy = GreedyIdeal(relevant, alpha, values)
        # resumed like a caller does: later calls continue the same ranking
        return [greedy.gains(length).copy() for length in lengths], greedy.rbp_length(beta)

    (plain, plain_rbp), (compiled, compiled_rbp) = both(gains)
    for length, a, b in zip(lengths, plain, compiled, strict=True):
        assert same_bits(a, b)
        assert np.array_equal(b, literal_greedy(relevant, alpha, values, length))
    assert plain_rbp == compiled_rbp


@SETTINGS
@given(pools())
def test_novelty_gains_are_summed_alike(case):
    relevant, alpha, values, _ = case  # (a pool's shape serves as rankings [T, K, S])
    plain, compiled = both(lambda: novelty_gains(relevant, alpha, values))
    assert same_bits(plain, compiled)


@SETTINGS
@given(ranked_collections(), st.sampled_from([1, 2]), st.lists(st.integers(1, 60), max_size=3))
def test_subtopic_hits_are_counted_alike(collection, level, ks):
    """MAP-IA's precision sums, P-IA's relevant pairs and strec's covered subtopics of the
    compiled pass (subtopic_hits) against numpy's, on rankings mostly unjudged; the cutoffs
    below, at and past the rankings' depth."""
    qrels, run = collection
    text = "".join(f"{t} {s} {d} {g}\n" for (t, s, d), g in qrels.items())
    pairs = [(t, d) for t, docs in run.items() for d in docs]
    cutoffs = (*ks, None)

    def counted():
        jr = judge_text(text, pairs, rel_level=level)
        sums = ndeval._precision_sums(jr, cutoffs)
        hits = ndeval._hit_counts(jr, tuple(ks))
        values = measure_values(jr, ["MAP-IA", "P-IA@1,3,100", "strec@1,3,100", "MAP-IA@2"])
        return sums, hits, values

    (plain_sums, plain_hits, plain), (sums, hits, compiled) = both(counted)
    assert same_bits(plain_sums, sums)
    assert all(same_bits(a, b) for a, b in zip(plain_hits, hits, strict=True))
    assert plain.keys() == compiled.keys()
    assert all(same_bits(plain[key], compiled[key]) for key in plain)


@SETTINGS
@given(ranked_collections(), st.sampled_from([0.0, 0.5, 0.25, 1.0]), st.integers(1, 60))
def test_the_run_gains_at_every_rank_are_summed_alike(collection, alpha, length):
    """The run's binary novelty gains at every rank (ranked_novelty_gains) against numpy's
    over the ranks with a relevant document, and the measures that read them, bit for bit."""
    qrels, run = collection
    text = "".join(f"{t} {s} {d} {g}\n" for (t, s, d), g in qrels.items())
    pairs = [(t, d) for t, docs in run.items() for d in docs]
    params = {"alpha": alpha, "beta": 0.5}

    def summed():
        jr = judge_text(text, pairs)
        gains = ndeval._run_gains(jr, params, length)
        rbp = ndeval._run_rbp_sums(jr, params, (1, length, None))
        values = measure_values(
            jr, ["NRBP", "nNRBP", "NRBP@3", "alpha-nDCG@1,5,20", "ERR-IA@5,20", "nERR-IA@10"]
        )
        return gains, rbp, values

    (plain_gains, plain_rbp, plain), (gains, rbp, compiled) = both(summed)
    assert same_bits(plain_gains, gains) and same_bits(plain_rbp, rbp)
    assert all(same_bits(plain[key], compiled[key]) for key in plain)


_SUMMED = st.sampled_from([0.0, -0.0, 1.0, 0.1, 1 / 3, 2.5e-17, -0.7, 1e300])


@SETTINGS
@given(st.data())
def test_running_sums_are_taken_alike(data):
    """running_sums_at against np.cumsum and at_cutoffs: a first term of -0.0 (cumsum keeps
    it), any signs, products and quotients that round; rows of a wider array (a prefix)."""
    n_rows, width = data.draw(st.integers(0, 5)), data.draw(st.integers(1, 12))
    wide = np.array(data.draw(st.lists(_SUMMED, min_size=n_rows * width, max_size=n_rows * width)))
    values = wide.reshape(n_rows, width)[:, : data.draw(st.integers(0, width))]
    weights = np.array(data.draw(st.lists(_SUMMED, min_size=values.shape[1],
                                          max_size=values.shape[1])))  # fmt: skip
    divide = data.draw(st.booleans())
    cutoffs = (*data.draw(st.lists(st.integers(1, 15), max_size=3)), None)
    with np.errstate(all="ignore"):
        plain, compiled = both(lambda: ndeval._running_at(values, weights, divide, cutoffs))
    assert same_bits(plain, compiled)


def test_subtopic_hits_by_hand():
    # one topic, subtopics 1 and 2; ranks: d1 {1}, u (unjudged), d2 {1, 2}, d3 {2}:
    # subtopic 1: 1/1 + 2/3; subtopic 2: 1/3 + 2/4; pairs at 2 ranks 1, at 4 ranks 4;
    # covered at 2 ranks 1 subtopic, at 4 ranks 2
    qrels = "1 1 d1 1\n1 1 d2 1\n1 2 d2 1\n1 2 d3 1\n"
    with computed_by(BUILT):
        jr = judge_text(qrels, [("1", "d1"), ("1", "u"), ("1", "d2"), ("1", "d3")])
        sums = ndeval._precision_sums(jr, (2, None))
        pairs, covered = ndeval._hit_counts(jr, (2, 4))
    assert sums[0].tolist() == [[1.0, 1.0 + 2 / 3], [0.0, 1 / 3 + 2 / 4]]
    assert pairs.tolist() == [[1.0, 4.0]] and covered.tolist() == [[1.0, 2.0]]
    with pytest.raises(ValueError, match="negative"):
        BUILT.subtopic_hits(jr.grades, 1, np.array([-1]), None, None, None, 1, 4, 2, 1)


def test_the_greedy_ideal_keeps_ties_in_pool_order():
    # one topic, pool d3 d2 d1 d0: d3 {1}, d2 {2}, d1 {1,2}, d0 {1,2} (alpha 0.5): d1 and d0
    # gain 2, d1 comes first; then d0 gains .5 + .5 = 1; then d3 and d2 tie at .25: d3; d2 .25
    relevant = np.array([[[1, 0], [0, 1], [1, 1], [1, 1]]], dtype=bool)
    with computed_by(BUILT):
        assert GreedyIdeal(relevant, 0.5).gains(5).tolist() == [[2.0, 1.0, 0.25, 0.25, 0.0]]


_ONE_WORD = st.binary(min_size=1, max_size=8).filter(lambda b: b"\0" not in b) | st.text(
    alphabet="0123456789+-.", min_size=1, max_size=8
).map(str.encode)


def _words_of(tokens: list[bytes]) -> np.ndarray:
    """One little-endian word per token (zero-padded), as the tokenizer makes them."""
    return np.frombuffer(b"".join(t.ljust(8, b"\0") for t in tokens), dtype="<u8").copy()


@SETTINGS
@given(st.lists(_ONE_WORD, min_size=1, max_size=60))
def test_short_numbers_are_read_alike(tokens):
    words = _words_of(tokens)
    for parse in (_numbers._parse_short_integers, _numbers._parse_short_decimals):
        (plain, plain_fine), (compiled, compiled_fine) = both(lambda p=parse: p(words))
        assert np.array_equal(plain_fine, compiled_fine)
        assert same_bits(plain[plain_fine], compiled[compiled_fine])


def test_short_numbers_by_hand():
    # "-0" is -0.0 (its sign bit set); "0.1" is 1 / 10, the double nearest 0.1; ".5" and "5."
    # have a digit; "+-5", "1.2.3", "." and "-" are not numbers
    tokens = [b"-0", b"0.1", b".5", b"5.", b"-12.5", b"+-5", b"1.2.3", b".", b"-", b"99999999"]
    with computed_by(BUILT):
        values, fine = _numbers._parse_short_decimals(_words_of(tokens))
    assert fine.tolist() == [True] * 5 + [False] * 4 + [True]
    assert np.signbit(values[0]) and values[0] == 0.0
    assert values[1:5].tolist() == [0.1, 0.5, 5.0, -12.5] and values[9] == 99999999.0
    with computed_by(BUILT):
        integers, fine = _numbers._parse_short_integers(_words_of([b"-7", b"+7", b"7a", b"+"]))
    assert fine.tolist() == [True, True, False, False]
    assert integers.tolist() == [-7, 7, 0, 0]


@SETTINGS
@given(st.data())
def test_tokens_become_the_same_words(data):
    text = data.draw(st.binary(min_size=1, max_size=300))
    buffer = np.zeros(len(text) + _words._PAD, dtype=np.uint8)
    buffer[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    spans = data.draw(
        st.lists(st.tuples(st.integers(0, len(text) - 1), st.integers(0, 200)), max_size=30)
    )
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    lengths = np.array([min(n, len(text) - s) for s, n in spans], dtype=np.int64)
    plain, compiled = both(lambda: _words.gather_words(buffer, starts, lengths))
    assert same_bits(plain, compiled)


#: lines of a few fields: mostly plain grids, sometimes not (a field missing or empty, the other
#: delimiter, a control byte, a blank line), so that both answers of the grid check occur
_GRID_LINES = st.lists(
    st.lists(st.text(alphabet="ab1\x01", min_size=0, max_size=3), min_size=1, max_size=4),
    min_size=1, max_size=8,
)  # fmt: skip


@SETTINGS
@given(_GRID_LINES, st.sampled_from([" ", "\t"]), st.booleans())
def test_a_plain_grid_is_found_alike(lines, delimiter, mixed):
    text = "".join(
        (" " if mixed and i == 1 else delimiter).join(fields) + "\n"
        for i, fields in enumerate(lines)
    ).encode()
    padded = np.zeros(len(text) + _words._PAD, dtype=np.uint8)
    padded[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    plain, compiled = both(lambda: _tokens._grid_spans(text, len(text), padded))
    assert (plain is None) == (compiled is None)
    if plain is not None:
        assert all(same_bits(a.astype(np.int64), b) for a, b in zip(plain, compiled, strict=True))


#: tokens of a run's lines: numbers (short plain decimals, long ones, exponents, not numbers,
#: not finite), tokens of one word, of several, wider than the first row's, long (past 128
#: bytes), comment marks, and bytes just above a separator's (33, 127, 128, 160, 255: a
#: separator is a byte below 33, unsigned), so that every way out of the compiled grid's pass
#: occurs
_RUN_TOKEN = st.one_of(
    st.sampled_from([b"-2.28234", b"12.5", b"-0", b"1e5", b"-1.2345678901", b"nan", b"-inf",
                     b"1e999", b"x", b"1_0", b"--5", b"#c", b"a#", b"\xc3\xa9", b"z" * 129,
                     b"!\x7f\x80\xa0\xff"]),
    st.binary(min_size=1, max_size=40).map(lambda b: bytes(c for c in b if c > 32) or b"y"),
)  # fmt: skip


@st.composite
def run_pieces(draw) -> bytes:
    """Whole lines of a few fields, mostly a plain grid, sometimes not (a field more or less,
    a doubled delimiter, the other one, a control byte, a blank line)."""
    n_fields = draw(st.integers(1, 7))
    rows = draw(st.lists(st.lists(_RUN_TOKEN, min_size=n_fields, max_size=n_fields),
                         min_size=1, max_size=10))  # fmt: skip
    delimiter = draw(st.sampled_from([b" ", b"\t"]))
    lines = [delimiter.join(row) for row in rows]
    at = draw(st.integers(0, len(lines) - 1))
    flaw = draw(st.sampled_from([None] * 6 + ["more", "fewer", "double", "other", "control",
                                               "blank"]))  # fmt: skip
    if flaw == "more":
        lines[at] += delimiter + b"x"
    elif flaw == "fewer":
        lines[at] = lines[at].rsplit(delimiter, 1)[0]
    elif flaw == "double":
        lines[at] = lines[at].replace(delimiter, delimiter * 2, 1)
    elif flaw == "other":
        lines[at] += b" \t"[:: -1 if delimiter == b" " else 1][:1] + b"y"
    elif flaw == "control":  # (a byte below 33 in a token: a control byte, or a delimiter)
        control = bytes([draw(st.sampled_from([1, 9, 11, 13, 31, 32]))])
        lines[at] = lines[at][:1] + control + lines[at][1:]
    elif flaw == "blank":
        lines.insert(at, b"")
    return b"".join(line + b"\n" for line in lines)


def split_alike(a: _tokens.Fields, b: _tokens.Fields) -> bool:
    """The same rows, words, first row, lines, numbers (bit for bit) and bad numbers."""
    return (
        same_bits(a.row_count, b.row_count)
        and a.columns.keys() == b.columns.keys()
        and all(same_bits(a.columns[j], b.columns[j]) for j in a.columns)
        and a.first_row == b.first_row
        and [a.lines.line_of(row) for row in range(a.n_rows)]
        == [b.lines.line_of(row) for row in range(b.n_rows)]
        and a.numbers.keys() == b.numbers.keys()
        and all(same_bits(a.numbers[j], b.numbers[j]) for j in a.numbers)
        and a.bad_numbers == b.bad_numbers
        and (a.n_lines, a.n_bytes) == (b.n_lines, b.n_bytes)
    )


@SETTINGS
@given(run_pieces(), st.integers(0, 7), st.booleans(), st.sampled_from([128] * 4 + [1, 9, 16]))
def test_a_piece_is_split_alike(text, number, comments, long_limit):
    # the compiled grid's one pass (words and a number field at once) and numpy's spans give
    # the same fields, with every kind of token and almost-grid; and with fewer bytes before
    # a token is long, so that some are, in the number field too
    columns, first_row = (0, 2, 3, 6), (number, 5)
    saved = _words.LONG_TOKEN_BYTES
    _words.LONG_TOKEN_BYTES = long_limit
    try:
        plain, compiled = both(
            lambda: _tokens.split_piece(text, columns, first_row, 3, comments, (number,))
        )
    finally:
        _words.LONG_TOKEN_BYTES = saved
    assert split_alike(plain, compiled)


@SETTINGS
@given(run_pieces())
def test_the_one_pass_finds_the_grids_numpy_finds(text):
    # grid_words's check alone (nothing gathered, no number, no token long) takes a piece for
    # a grid exactly where numpy's spans do: a byte found for a separator that is none (one of
    # 128 and above taken for a signed one below 33) would only send a grid to the slower path
    first_end = text.find(b"\n")
    assume(first_end > 0)
    delimiter = b"\t" if b"\t" in text[:first_end] else b" "
    padded = np.zeros(len(text) + _words._PAD, dtype=np.uint8)
    padded[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    with computed_by(None):
        plain = _tokens._grid_spans(text, len(text), padded)
    n_fields = text.count(delimiter, 0, first_end) + 1
    found = BUILT.grid_words(padded, len(text), delimiter[0], n_fields, 1, (), (), -1, 1 << 20)
    assert (found is None) == (plain is None)
    assert found is None or plain is None or found[0] == plain[0].shape[1]
    # and whether a line starts with "#" (a comment line, for the spans' path to drop)
    assert found is None or found[4] == any(line[:1] == b"#" for line in text.split(b"\n"))


def test_a_grid_wider_than_its_first_row_is_split_alike():
    # the docno field widens (1 -> 2 -> 5 words) after rows were written at the narrower
    # width; the scores: short decimals, an exponent (cast), one beyond a double
    text = (b"1 Q0 d 1 -2.5 t\n1 Q0 docno-long 2 1e5 t\n2 Q0 " + b"w" * 33
            + b" 3 1e999 t\n2 Q0 e 4 4 t\n")  # fmt: skip
    plain, compiled = both(lambda: _tokens.split_piece(text, (0, 2, 3), (4, 5), 1, True, (4,)))
    assert split_alike(plain, compiled)
    assert compiled.columns[2].shape == (4, 5)
    assert compiled.numbers[4].tolist() == [-2.5, 1e5, np.inf, 4.0]
    assert compiled.bad_numbers[4] == [_tokens.BadNumber(2, "1e999", True)]


def test_a_grid_of_more_rows_than_its_first_line_suggests_is_split_alike():
    # the rows are guessed from the lines of the first 8 KiB: 100 long lines and 3000 short
    # ones overflow the guess (the arrays grow several times), a wider docno comes late, and
    # some scores are left to numpy's cast (more than the first room for them)
    lines = [b"1 Q0 " + b"d" * 100 + b" 1 -1.5 tag"] * 100
    lines += [b"%d Q0 x%d %d %s t" % (k % 7, k, k, b"1e-%d" % (k % 3) if k % 20 else b"0.5")
              for k in range(3000)]  # fmt: skip
    lines[2600] = lines[2600].replace(b"x2500", b"y" * 120)
    text = b"\n".join(lines) + b"\n"
    sample = min(len(text), _tokens._SAMPLE_BYTES)
    assert len(text) * text.count(b"\n", 0, sample) // sample < 3100 // 2  # (the guess)
    plain, compiled = both(lambda: _tokens.split_piece(text, (0, 2, 3), (4, 5), 1, True, (4,)))
    assert split_alike(plain, compiled)
    assert compiled.n_rows == 3100 and compiled.columns[2].shape == (3100, 15)
    assert compiled.numbers[4][[0, 100, 101, 121]].tolist() == [-1.5, 0.5, 0.1, 1.0]


@SETTINGS
@given(st.lists(st.sampled_from([b"\r", b"\n", b"\r\n", b"a", b"bc\x00"]), max_size=40))
def test_line_ends_are_made_alike(parts):
    # every "\r\n" and lone "\r" made "\n": "\r\r\n" is two line ends, "\n\r" too, a "\r"
    # at the very end is one
    data = b"".join(parts)
    plain, compiled = both(lambda: _text.normalize_line_ends(data))
    assert plain == compiled == data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def test_line_ends_by_hand():
    assert BUILT.line_ends(b"a\r\r\nb\n\rc\r") == b"a\n\nb\n\nc\n"
    assert BUILT.line_ends(b"\r\n") == b"\n" and BUILT.line_ends(bytearray(b"x")) == b"x"


@SETTINGS
@given(st.binary(max_size=100), st.integers(0, 100))
def test_lines_are_counted_as_bytes_count_them(text, cut):
    n = min(cut, len(text))
    assert BUILT.count_lines(text, n) == text[:n].count(b"\n")


#: docnos for ranking cases: one word, several words, a long token (its bytes not in its words,
#: sharing its first 128 bytes with another), so that ties compare every kind
_DOCNOS = ["d1", "d10", "d2", "clueweb09-en0000-00-00001", "clueweb09-en0000-00-00002",
           "x" * 130 + "a", "x" * 130 + "b", "x" * 128]  # fmt: skip
_RANKING_QRELS = "1 1 d1 1\n1 2 d2 0\n2 1 d10 1\n3 1 d2 1\n"


@SETTINGS
@given(
    st.lists(
        st.tuples(st.sampled_from(["1", "2", "3", "9"]), st.sampled_from(_DOCNOS),
                  st.sampled_from([3.0, 2.0, 2.0, 1.0, -0.0, 0.0])),
        min_size=1, max_size=30,
    ),
    st.booleans(),
    st.sampled_from(["score", "score-docno-asc"]),
    st.sampled_from([None, 3]),
    st.sampled_from(["first", "error"]),
)  # fmt: skip
def test_a_run_is_ranked_alike(rows, grouped, order, depth, dedupe):
    # grouped: the rows by topic, scores descending (the usual run file, which the compiled
    # loop orders); else as drawn (it hands those to numpy's sort)
    if grouped:
        rows = sorted(rows, key=lambda row: (row[0], -row[2]))
    text = "".join(f"{t} Q0 {d} {i} {s!r} tag\n" for i, (t, d, s) in enumerate(rows, 1))
    run = read_run("<run>", text=text)
    index = QrelsIndex(read_qrels("<qrels>", text=_RANKING_QRELS))
    settings = Settings(order=order, depth=depth, dedupe=dedupe)

    def ranking():
        try:
            found = judge._ranking(run, index, settings, warn_duplicates=False)
        except DataError as error:  # a repeated docno refused: the same line and message
            return str(error)
        return found.topic, found.row, found.position, found.dropped

    plain, compiled = both(ranking)
    assert type(plain) is type(compiled)
    if isinstance(plain, str):
        assert plain == compiled
        return
    for a, b in zip(plain[:3], compiled[:3], strict=True):
        assert same_bits(a, b)
    assert plain[3] == compiled[3]


#: qrels of 3 topics (1, 2, 3), subtopics 1-3, grades -1..3; run topic 9 is not in them
_JUDGED_QRELS = st.lists(
    st.tuples(st.sampled_from(["1", "2", "3"]), st.integers(1, 3), st.sampled_from(_DOCNOS),
              st.integers(-1, 3)),
    min_size=1, max_size=30, unique_by=lambda line: line[:3],
)  # fmt: skip


@SETTINGS
@given(
    _JUDGED_QRELS,
    st.lists(
        st.tuples(st.sampled_from(["1", "2", "3", "9"]), st.sampled_from(_DOCNOS),
                  st.sampled_from([3.0, 2.0, 1.0, -0.0])),
        max_size=30,
    ),
    st.sampled_from([None, 2]),
    st.booleans(),
)  # fmt: skip
def test_a_run_is_judged_alike(qrels_lines, rows, depth, complete):
    # the cells of [topics x ranks]: scores, grades per subtopic, judged, qrels rows, lengths;
    # repeated docnos dropped, docnos the qrels lack or judge for another topic only
    qrels_text = "".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels_lines)
    text = "".join(f"{t} Q0 {d} {i} {s!r} tag\n" for i, (t, d, s) in enumerate(rows, 1))
    index = QrelsIndex(read_qrels("<qrels>", text=qrels_text))
    assert index.judged_row_of_key is not None  # (the direct table the compiled pass reads)
    run = read_run("<run>", text=text) if rows else judge.Run.empty("<run>", "tag")
    settings = Settings(depth=depth, dedupe="first", complete=complete)

    def judged():
        return judge.judge_run(run, index, settings, warn_duplicates=False)

    plain, compiled = both(judged)
    for name in ("grades", "judged", "length", "in_run", "scores", "doc_rows", "topic_codes"):
        assert same_bits(getattr(plain, name), getattr(compiled, name)), name
    judged_topics = {t for t, *_ in qrels_lines}
    evaluated = judged_topics if complete else judged_topics & {t for t, *_ in rows}
    assert compiled.scores.shape[0] == len(evaluated)


def test_judging_refuses_topics_that_leave_out_a_ranked_topic():
    # topics= names the qrels topics to evaluate; a ranked topic outside them would have its
    # documents written into another topic's cells (numpy wraps a -1 row), so both paths refuse
    index = QrelsIndex(read_qrels("<qrels>", text="1 1 d1 1\n2 1 d2 1\n"))
    run = read_run("<run>", text="1 Q0 d1 1 2.0 t\n2 Q0 d2 1 1.0 t\n")
    for kernels in (None, BUILT):
        with computed_by(kernels):
            every = judge.judge_run(run, index, Settings(), topics=np.arange(2))
            assert every.judged.tolist() == [[True], [True]]  # d1 for topic 1, d2 for topic 2
            with pytest.raises(ValueError, match="every topic the run ranks"):
                judge.judge_run(run, index, Settings(), topics=np.array([0]))


def test_judged_cells_refuse_indices_outside_their_arrays():
    one, none = np.zeros(1, np.int64), np.zeros(0, np.int64)

    def cells(topic=one, position=one, row_of_code=one, found=one, row_of_key=None):
        keys = np.zeros(1, np.int32) if row_of_key is None else row_of_key
        BUILT.judged_cells(topic, one, position, 1, row_of_code, len(row_of_code), one,
                           np.zeros(1), 1, found, len(found), keys, len(keys), 1,
                           np.zeros((2, 1), np.int16), 2, 1, 1, 1, np.zeros(1),
                           np.zeros(1, np.int16), np.zeros(1, bool), np.full(1, -1),
                           np.zeros(1, np.int64))  # fmt: skip

    cells()  # (in range: judged row 0 of 2, the last being the unjudged one)
    past_the_judged = np.full(1, 2, np.int32)  # (judged row 2 of 2)
    bad_indices = [
        dict(topic=one + 1),
        dict(position=one + 1),
        dict(row_of_code=one - 1),
        dict(found=none),
        dict(found=one + 1),
        dict(row_of_key=past_the_judged),
    ]
    for bad in bad_indices:
        with pytest.raises(ValueError, match="outside its arrays"):
            cells(**bad)


def test_ties_are_ordered_by_docno_by_hand():
    # topic 1: d2 and d10 tie at 2.0: by docno descending ("d2" > "d10" in byte order) d2
    # first; "d1" twice at 1.0: the second copy is a repeat, dropped
    text = "1 Q0 d10 1 2.0 t\n1 Q0 d2 2 2.0 t\n1 Q0 d1 3 1.0 t\n1 Q0 d1 4 1.0 t\n"
    run = read_run("<run>", text=text)
    index = QrelsIndex(read_qrels("<qrels>", text=_RANKING_QRELS))
    descending, ascending = (
        Settings(dedupe="first"),
        Settings(order="score-docno-asc", dedupe="first"),
    )
    with computed_by(BUILT):
        found = judge._ranking(run, index, descending, warn_duplicates=False)
        by_ascending = judge._ranking(run, index, ascending, warn_duplicates=False)
    assert found.row.tolist() == [1, 0, 2] and found.position.tolist() == [0, 1, 2]
    assert found.dropped == 1
    assert by_ascending.row.tolist() == [0, 1, 2]


@SETTINGS
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=24),
    st.integers(1, 9),
    st.integers(1, 4),
)
def test_numbers_are_printed_alike(values, precision, n_columns):
    values += [-0.0] * (-len(values) % n_columns)
    matrix = np.array(values, dtype=np.float64).reshape(-1, n_columns)
    plain, compiled = both(lambda: fixed_rows(matrix, precision))
    line = ",".join([f"%.{precision}f"] * n_columns)
    assert plain == compiled == [line % tuple(row) for row in matrix.tolist()]


def test_halves_and_near_halves_are_printed_alike():
    # x.5 at 10^P: a tie only where the double is exact; its neighbours round away from it;
    # rows holding a huge, tiny or non-finite value are left to printf by both paths
    halves = (np.arange(-2000, 2000) + 0.5) / 10**6
    special = [0.0, -0.0, -1e-9, 5e-7, 2.5e-6, 9.9999995, 1e300, 2.0**53, np.nan, -np.inf]
    for values in (halves, np.nextafter(halves, np.inf), np.array(special * 2)):
        matrix = values.reshape(-1, 2)
        for precision in (1, 6, 9):
            plain, compiled = both(lambda m=matrix, p=precision: fixed_rows(m, p, ";"))
            assert plain == compiled
    with computed_by(BUILT):  # by hand: -0.0 keeps its sign, as printf prints it
        assert fixed_rows(np.array([[-0.0, 0.25, 12.5]]), 2) == ["-0.00,0.25,12.50"]


@functools.cache
def _sample_evaluation(measures: tuple[str, ...]):
    """Two sample runs scored on ``measures`` (their values are replaced by the tests)."""
    runs = [str(SAMPLE_DATA / "run.txt"), str(SAMPLE_DATA / "run2.txt")]
    return divaeval.evaluate(runs, str(SAMPLE_DATA / "qrels.txt"), list(measures)).evaluation


def _near_half(k: int, precision: int, step: int) -> float:
    """(k + 1/2) / 10^P, or its neighbour below (step -1) or above (step 1)."""
    half = (k + 0.5) / 10**precision
    return float(np.nextafter(half, step * np.inf)) if step else half


def _printed(precision: int) -> st.SearchStrategy[float]:
    """Values as the writer may get them: halves at 10^-P and their neighbours, exact halves,
    huge, tiny, non-finite, signed zeros."""
    halves = st.builds(_near_half, st.integers(-(10**6), 10**6), st.just(precision),
                       st.integers(-1, 1))  # fmt: skip
    special = [0.0, -0.0, 5e-5, 1.5e-4, -5e-5, 0.5, 2.5, -0.4, -1.0, 0.09375, 0.28125, 1e15,
               -1e15, 2.0**52, 2.0**53, 1e-9, -1e-9, -np.nan, np.inf]  # fmt: skip
    return (
        st.floats(allow_nan=True, allow_infinity=True)
        | st.floats(-1.5, 1.5)
        | halves
        | st.sampled_from(special)
    )


#: counts (num_ret, num_rel, ...): integers, and what else a double may hold (not infinite:
#: Python's int(round(inf)) fails on either path)
_COUNTS = st.integers(-(10**6), 10**17).map(float) | st.sampled_from(
    [np.nan, 2.5, 0.5, -0.5, -0.0, 3.0000001, 1e17, 2.0**53 + 2]
)
_MEASURE_SETS = [
    ("alpha-nDCG@20", "num_ret", "ERR-IA@20"),  # divaeval's names: a count among them
    ("map", "P.10", "num_ret", "num_rel", "gm_map"),  # trec_eval's: topics in byte order
]


def _trec_eval_text(evaluation, options: ReportOptions) -> str:
    out = io.StringIO()
    trec_eval.write(evaluation, out, options)
    return out.getvalue()


@SETTINGS
@given(st.data(), st.integers(0, 16), st.booleans(), st.sampled_from(_MEASURE_SETS))
def test_trec_eval_lines_are_printed_alike(data, precision, several, measures):
    """Every run's per-topic block (trec_lines) as Python's f-strings and printf print it."""
    evaluation = copy.copy(_sample_evaluation(measures))
    runs = evaluation.runs if several else evaluation.runs[:1]
    drawn = []
    for run in runs:
        n = len(run.topics)
        values = {
            m: np.array(data.draw(st.lists(_COUNTS if m.spec.integer else _printed(precision),
                                           min_size=n, max_size=n)), dtype=np.float64)
            for m in evaluation.measures
        }  # fmt: skip
        drawn.append(replace(run, values=values))
    evaluation.runs = drawn
    options = ReportOptions(per_topic=True, summary=False, precision=precision)
    plain, compiled = both(lambda: _trec_eval_text(evaluation, options))
    assert plain == compiled
    per_topic = len(measures) - ("gm_map" in measures)  # (trec_eval prints it in the summary)
    assert plain.count("\n") == len(runs) * len(runs[0].topics) * per_topic


def test_trec_eval_lines_by_hand():
    # P@10 holds -0.00004 (in (-1, 0], sign set): the column right-aligned in P + 2, that
    # value as an unsigned zero; num_ret a count: 2.5 rounds half to even (2); x an exact
    # half at 10^4: 937.5 -> 938 and 2812.5 -> 2812 (ties to even, as printf), -2.5 at 10^0 -> -2
    heads = [f"{name:<22}\t" for name in ("P@10", "num_ret", "x")]
    columns = [np.array([0.25, -0.00004, 1.0]), np.array([3.0, 2.5, 7.0]),
               np.array([0.09375, 0.28125, -2.5])]  # fmt: skip
    topics, counts = ["1", "2", "10"], bytes([0, 1, 0])
    with computed_by(BUILT):
        four = trec_eval._compiled_block(columns, heads, topics, counts, 4, "\tr\n")
        zero = trec_eval._compiled_block(columns, heads, topics, counts, 0, "\n")
        with_nan = trec_eval._compiled_block(
            [np.array([0.5, np.nan, 1.0])], heads[:1], topics, b"\0", 4, "\n"
        )
        not_ascii = trec_eval._compiled_block(columns, heads, ["1", "é", "3"], counts, 4, "\n")
        # 5e-05 is 5.0000000000000004e-05: 10^4 x rounds to 0.5 exactly, but "%.4f" is 0.0001
        inexact_half = trec_eval._compiled_block([np.array([5e-5])], heads[:1], ["1"], b"\0",
                                                 4, "\n")  # fmt: skip
    assert four == (
        "P@10                  \t1\t0.2500\tr\n"
        "num_ret               \t1\t3\tr\n"
        "x                     \t1\t0.0938\tr\n"
        "P@10                  \t2\t0.0000\tr\n"
        "num_ret               \t2\t2\tr\n"
        "x                     \t2\t0.2812\tr\n"
        "P@10                  \t10\t1.0000\tr\n"
        "num_ret               \t10\t7\tr\n"
        "x                     \t10\t-2.5000\tr\n"
    )
    assert zero == (
        "P@10                  \t1\t 0\n"
        "num_ret               \t1\t3\n"
        "x                     \t1\t 0\n"
        "P@10                  \t2\t 0\n"
        "num_ret               \t2\t2\n"
        "x                     \t2\t 0\n"
        "P@10                  \t10\t 1\n"
        "num_ret               \t10\t7\n"
        "x                     \t10\t-2\n"
    )
    assert with_nan is None and not_ascii is None and inexact_half is None  # left to printf


#: keys with repeats: a few distinct values, any 64 bits (so the top bits and 0 occur)
_FEW_KEYS = st.lists(
    st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**63, 2**64 - 1]), min_size=1, max_size=12
).flatmap(lambda pool: st.lists(st.sampled_from(pool), max_size=200))


@SETTINGS
@given(_FEW_KEYS, st.integers(1, 16))
def test_keys_are_numbered_alike(keys, head):
    # the hash table is tried from a few keys on here (a million and 4096 in the command), so
    # that both its answers occur: numbered, and too many distinct keys for its cap (n / 16)
    values = np.array(keys, dtype=np.uint64)
    saved = _words.FEW_KEYS, _words.FEW_HEAD
    _words.FEW_KEYS, _words.FEW_HEAD = 1, head
    try:
        plain, compiled = both(lambda: _words.unique_inverse(values))
    finally:
        _words.FEW_KEYS, _words.FEW_HEAD = saved
    assert same_bits(plain[0], compiled[0]) and same_bits(plain[1], compiled[1])
    for uniques, _, rows in (plain, compiled):
        assert same_bits(values[rows], uniques)


@SETTINGS
@given(_FEW_KEYS, st.integers(0, 20))
def test_the_hash_table_numbers_keys_as_they_first_appear(keys, cap):
    numbers: dict[int, int] = {}
    for key in keys:
        numbers.setdefault(key, len(numbers))
    n = len(keys)
    ids, uniques, first = np.empty(n, np.int64), np.empty(cap, np.uint64), np.empty(cap, np.int64)
    count = BUILT.few_uniques(np.array(keys, dtype=np.uint64), ids, uniques, first, n, cap)
    if len(numbers) > cap:
        assert count == -1
        return
    assert count == len(numbers)
    assert ids.tolist() == [numbers[key] for key in keys]
    assert uniques[:count].tolist() == list(numbers)
    assert first[:count].tolist() == [keys.index(key) for key in numbers]


@SETTINGS
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=20).flatmap(
    lambda rank: st.tuples(st.just(rank), st.lists(st.integers(0, len(rank) - 1), max_size=60))
))  # fmt: skip
def test_codes_are_renumbered_alike(case):
    rank, codes = np.array(case[0], dtype=np.int64), np.array(case[1], dtype=np.int64)
    plain, compiled = both(lambda: _words.renumbered(codes.copy(), rank))
    assert same_bits(plain, compiled) and same_bits(plain, rank[codes])


def test_a_code_outside_the_rank_is_refused():
    for code in (-1, 3):
        with pytest.raises(IndexError, match="outside"):
            BUILT.renumber(np.array([0, code], np.int64), np.arange(3, dtype=np.int64), 2, 3)


#: tokens as in docno columns: short and long (past 8 bytes: several words), with repeats
_DOCNO_COLUMNS = st.lists(
    st.binary(min_size=1, max_size=40).map(lambda b: bytes(c for c in b if c > 32) or b"x"),
    min_size=1,
    max_size=12,
).flatmap(lambda pool: st.lists(st.sampled_from(pool), max_size=120))

#: hash bits kept by the compiled numbering: all, or few (every row then collides with others
#: and only the comparison of the words tells tokens apart), or none (all rows collide)
_HASH_MASKS = st.sampled_from([_words.ALL_BITS, 0, 1, 0xFF00000000000000, 0xFFFFFFFF])


def words_of_tokens(tokens: list[bytes], width: int = 1) -> np.ndarray:
    """The word matrix of ``tokens`` padded to at least ``width`` words."""
    if not tokens:
        return np.zeros((0, width), dtype=np.uint64)
    words = _tokens.split_fields(b"\n".join(tokens), (0,)).columns[0]
    return _words.pad_words(words, width)


@SETTINGS
@given(_DOCNO_COLUMNS, st.integers(1, 4))
def test_rows_are_hashed_alike(tokens, width):
    words = words_of_tokens(tokens, width)
    plain, compiled = both(lambda: _words._hash(words))
    assert same_bits(plain, compiled)
    # zero padding changes no hash (tables and probes of different widths share them)
    assert same_bits(compiled, _words._hash(words_of_tokens(tokens, width + 2)))


@SETTINGS
@given(_DOCNO_COLUMNS, st.integers(1, 3), _HASH_MASKS)
def test_the_hash_table_numbers_rows_exactly_as_they_first_appear(tokens, width, mask):
    words = words_of_tokens(tokens, width)
    codes, uniques, hashes = _words.hashed_codes(words, mask=mask)
    numbers: dict[bytes, int] = {}
    for token in tokens:
        numbers.setdefault(token, len(numbers))
    assert codes.tolist() == [numbers[token] for token in tokens]
    assert uniques.shape == (len(numbers), words.shape[1])
    assert same_bits(uniques[codes], words)
    expected = _words._hash(uniques) & np.uint64(mask)
    assert same_bits(hashes, expected)


def test_the_hash_table_numbers_colliding_long_docnos_by_hand():
    # 25-byte docnos (4 words) that differ in their last word only, and an empty matrix
    tokens = [b"clueweb12-0000tw-00-00001", b"clueweb12-0000tw-00-00002"] * 3
    tokens += [b"clueweb12-0000tw-00-00001x"]
    for mask in (_words.ALL_BITS, 0):
        codes, uniques, _ = _words.hashed_codes(words_of_tokens(tokens), mask=mask)
        assert codes.tolist() == [0, 1, 0, 1, 0, 1, 2] and len(uniques) == 3
    codes, uniques, hashes = _words.hashed_codes(np.zeros((0, 4), np.uint64))
    assert len(codes) == len(uniques) == len(hashes) == 0 and uniques.shape == (0, 4)


@SETTINGS
@given(
    _DOCNO_COLUMNS,
    _DOCNO_COLUMNS,
    st.integers(1, 3),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
)
def test_tokens_are_found_alike(table_tokens, probe_tokens, table_width, probe_width,
                                collide, keyed):  # fmt: skip
    # the qrels' docnos found for a run's (widths differ: zero words past the narrower);
    # ``collide``: every hash 0 on both sides, so that only the words tell tokens apart
    table = words_of_tokens(list(dict.fromkeys(table_tokens)), table_width)
    probes = words_of_tokens(probe_tokens, probe_width)
    table_hashes = probe_hashes = None
    if collide:
        table_hashes = np.zeros(len(table), np.uint64)
        probe_hashes = np.zeros(len(probes), np.uint64)
    elif keyed:  # the hashes as factorize_with_keys gives them (here: as they first appear)
        table_hashes, probe_hashes = _words._hash(table), _words._hash(probes)
    plain, compiled = both(
        lambda: _words.TokenTable(table, table_hashes).find(probes, probe_hashes)
    )
    rows = {token: row for row, token in enumerate(dict.fromkeys(table_tokens))}
    expected = np.array([rows.get(token, -1) for token in probe_tokens], dtype=np.int64)
    assert same_bits(compiled, expected) and same_bits(plain, expected)


def test_a_large_token_table_is_searched_by_its_sorted_keys():
    # past COMPILED_TABLE_ROWS the compiled table would take more memory than the sort: the
    # sorted keys answer (the same rows), the compiled table is never built
    tokens = [b"clueweb12-%011d" % i for i in range(_words.COMPILED_TABLE_ROWS + 1)]
    table = _words.TokenTable(words_of_tokens(tokens))
    probes = words_of_tokens([tokens[5], b"clueweb12-nope", tokens[-1]])
    assert table.find(probes).tolist() == [5, -1, len(tokens) - 1]
    assert table._slots is None
    small = _words.TokenTable(words_of_tokens(tokens[:100]))
    assert small.find(probes).tolist() == [5, -1, -1] and small._slots is not None


def test_the_row_hash_tables_refuse_bad_sizes():
    words, one = np.zeros((2, 2), np.uint64), np.zeros(2, np.int64)
    with pytest.raises(ValueError, match="power of two"):  # (2 rows need 16 slots)
        BUILT.hash_factorize(words, 2, 2, _words.ALL_BITS, 8, one, one.copy(),
                             np.zeros(2, np.uint64))  # fmt: skip
    with pytest.raises(ValueError, match="holds"):
        BUILT.hash_factorize(words, 2, 2, _words.ALL_BITS, 16, one, one.copy(),
                             np.zeros(1, np.uint64))  # fmt: skip
    with pytest.raises(ValueError, match="power of two"):
        BUILT.hash_slots(np.zeros(2, np.uint64), 2, np.zeros(24, np.uint32), 24)
    with pytest.raises(ValueError, match="at most 65536 rows"):  # (what a slot can name)
        rows = _words.COMPILED_TABLE_ROWS + 1
        size = _words.slot_count(rows)
        BUILT.hash_slots(np.zeros(rows, np.uint64), rows, np.zeros(size, np.uint32), size)
    with pytest.raises(ValueError, match="hash_slots' size"):
        BUILT.find_rows(words, 2, 2, np.zeros(8, np.uint32), 8,
                        words, 2, 2, np.zeros(2, np.uint64), one)  # fmt: skip
    with pytest.raises(IndexError, match="outside the table"):  # (a slot naming row 5 of 2)
        slots = np.zeros(16, np.uint32)
        slots[:] = 6  # (row 5 + 1, tag 0: every hash 0 probes it)
        BUILT.find_rows(words, 2, 2, slots, 16, words, 2, 2,
                        np.zeros(2, np.uint64), one)  # fmt: skip


def test_a_collection_of_few_docnos_prints_the_same_on_both_paths(tmp_path):
    """20 000 qrels lines and 20 000 run lines over 60 docnos (the hash table numbers them in
    the command): ndeval's measures, the same text with the compiled loops and without."""
    rng = np.random.default_rng(7)
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(
        "".join(
            f"{t} {s} d{d} {rng.integers(-1, 3)}\n"
            for t in range(200)
            for s in (1, 2, 3, 4)
            for d in rng.choice(60, 25, replace=False)
        )
    )
    run.write_text(
        "".join(
            f"{t} Q0 d{d} {r + 1} {100 - r} gen\n"
            for t in range(200)
            for r, d in enumerate(rng.choice(110, 100, replace=False))
        )
    )
    command = [sys.executable, "-m", "divaeval", str(run), str(qrels), "-m", "ndeval",
               "-f", "ndeval"]  # fmt: skip
    outputs = printed_on_both_paths(command)
    assert len(outputs[0].splitlines()) == 202  # (a header, 200 topics, the mean)


def test_the_compiled_loops_refuse_arrays_of_the_wrong_size():
    with pytest.raises(ValueError, match="holds"):
        BUILT.parse_short_integers(np.zeros(3, np.uint64), np.zeros(2, np.int64),
                                   np.zeros(3, bool), 3)  # fmt: skip
    with pytest.raises(ValueError, match="outside"):
        BUILT.gather_words(np.zeros(8, np.uint8), np.array([4]), np.array([3]),
                           np.zeros((1, 1), np.uint64), 1, 1)  # fmt: skip
    with pytest.raises(ValueError, match="outside"):
        BUILT.rank_positions(np.zeros(2, np.int64), np.array([0, 5]), 2, 3, True,
                             np.zeros(2, bool), np.zeros(2, np.int64))  # fmt: skip
    with pytest.raises(ValueError, match="outside"):  # (a docno code past the words: 1 of 1)
        BUILT.score_order(np.zeros(2, np.int64), np.zeros(2), np.array([0, 1]),
                          np.zeros((1, 1), np.uint64), 2, 1, 1, False,
                          np.zeros(2, np.int64))  # fmt: skip
    with pytest.raises(ValueError, match="1 pattern or more"):
        one = np.zeros(1, np.int64)
        BUILT.greedy_patterns(np.ones(2, np.uint8), 1, 2, 1, 0, one, np.full(2, 2),
                              np.zeros(0, np.int64), one.copy())  # fmt: skip
    with pytest.raises(ValueError, match="precision"):
        BUILT.fixed_cells(np.zeros(1), 1, 1, 12, b",", np.zeros(1, bool))
    with pytest.raises(ValueError, match="precision"):
        BUILT.trec_lines(np.zeros(1), 1, 1, ["a\t"], ["1"], b"\0", 16, "\n")
    with pytest.raises(ValueError, match="wrong length"):
        BUILT.trec_lines(np.zeros(2), 1, 2, ["a\t"], ["1"], b"\0", 4, "\n")


def test_the_command_prints_the_same_on_both_paths():
    """The 9 TREC 2012 runs, ndeval's 21 measures per topic and more cascade measures, at 17
    decimals: the same text with the compiled loops and without (DIVAEVAL_NATIVE=0)."""
    runs = [str(path) for path in TREC2012_RUNS.values()]
    qrels = str(TREC2012 / "qrels-for-ndeval.txt.gz")
    command = [sys.executable, "-m", "divaeval", *runs, qrels, "-m", "ndeval", "-m",
               "alpha-nDCG(alpha=0.3)@20", "-m", "nNRBP", "-q", "--precision", "17"]  # fmt: skip
    outputs = printed_on_both_paths(command)
    assert len(outputs[0].splitlines()) > 9 * 50 * 21
