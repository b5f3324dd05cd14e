"""Tables for people (issue 29): fitted to the terminal width without cutting a name (wrapped,
transposed or split), integers as integers, zero as zero, and ``--precision`` as fixed decimals
in every text format."""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import SAMPLE_DATA, examples, run_cli

from divaeval.report.frames import write_frame
from divaeval.report.numbers import cell, fixed, fixed_rows, without_negative_zeros
from divaeval.report.table import print_table, wrapped

RUNS = [SAMPLE_DATA / "run.txt", SAMPLE_DATA / "run2.txt", SAMPLE_DATA / "run3.txt"]
QRELS = SAMPLE_DATA / "qrels.txt"
BOX = re.compile(r"[\s┃│━─┏┓┗┛┡┩└┘┳┻╇┼┴┬╋]+")


def flattened(text: str) -> str:
    return BOX.sub("", text)


def is_subsequence(word: str, text: str) -> bool:
    characters = iter(text)
    return all(ch in characters for ch in word)


def printed(headers, rows, numeric, width, keys=1, monkeypatch=None, title=None) -> str:
    out = io.StringIO()
    monkeypatch.setenv("COLUMNS", str(width))
    print_table(out, headers, rows, numeric, keys=keys, title=title)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# numbers


def percent_rows(matrix: np.ndarray, precision: int) -> list[str]:
    line = ",".join([f"%.{precision}f"] * matrix.shape[1])
    return [line % tuple(row) for row in matrix.tolist()]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=24),
    st.integers(0, 12),
    st.integers(1, 4),
)
def test_fixed_rows_print_as_percent_f(values, precision, n_columns):
    # the vectorised %.Pf (ndeval's 10,000 x 21 values) gives the bytes of %, value by value
    values += [0.0] * (-len(values) % n_columns)
    matrix = np.array(values, dtype=np.float64).reshape(-1, n_columns)
    assert fixed_rows(matrix, precision) == percent_rows(matrix, precision)


def test_fixed_rows_round_exact_halves_and_near_halves_as_printf():
    # 0.0000005 is below the half in binary (prints 0.000000), 0.0000015 above (0.000002);
    # x.5 at 10^P is a tie only where the double is exact (2.5e-6 is not)
    halves = (np.arange(-2000, 2000) + 0.5) / 10**6
    near = np.nextafter(halves, np.inf), np.nextafter(halves, -np.inf)
    special = [0.0, -0.0, -1e-9, 5e-7, 1.5e-6, 2.5e-6, 9.9999995, 1e300, -4.5e9, 2.0**53, 1e-320]
    for values in (halves, *near, np.array(special * 2)):
        matrix = values.reshape(-1, 2)
        for precision in (1, 3, 6, 9):
            assert fixed_rows(matrix, precision) == percent_rows(matrix, precision)
    scores = np.random.default_rng(5).random((300, 21))
    assert fixed_rows(scores, 6) == percent_rows(scores, 6)


def test_zero_prints_as_zero():
    assert fixed(-0.0, 4) == "0.0000" and fixed(-1e-17, 4, 6) == "0.0000"
    assert fixed(-1e-9, 0, 2) == " 0" and fixed(-0.5, 2) == "-0.50"
    assert cell(-0.0, 3) == "0.000" and cell(float("nan"), 3) == "NaN" and cell(5000, 4) == "5000"
    assert without_negative_zeros("a,-0.000000,-0.000001,1e-05,-nan") == (
        "a,0.000000,-0.000001,1e-05,-nan"
    )


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "json", "table", "markdown", "latex"])
def test_negative_zero_and_integers_in_every_format(fmt, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    frame = pd.DataFrame({"metric": ["a"], "count": [5000], "diff": [-0.0], "tiny": [-1e-9]})
    out = io.StringIO()
    write_frame(frame, out, fmt, key="metric", precision=None)
    text = out.getvalue()
    assert "-0.0" not in text and "5000.0" not in text and "5000" in text


@pytest.mark.parametrize("fmt", ["csv", "tsv", "trec_eval", "table", "markdown", "latex", "html"])
def test_precision_is_fixed_decimals_in_every_text_format(fmt, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    frame = pd.DataFrame({"metric": ["a"], "value": [0.3], "n": [3]})
    out = io.StringIO()
    write_frame(frame, out, fmt, key="metric", precision=3)
    assert "0.300" in out.getvalue() and "3.000" not in out.getvalue()


def test_precision_in_csv_of_every_command(capsys):
    # trec_eval prints %.Nf: 0.300, not 0.3; the main job's csv and an analysis' csv alike
    code, out, _ = run_cli(capsys, RUNS[0], QRELS, "-m", "P@5", "-f", "csv", "--precision", "3")
    assert code == 0 and out.splitlines()[1].startswith("ql-cata,all,P@5,0.260,")
    code, out, _ = run_cli(
        capsys, "compare", *RUNS[:2], QRELS, "-m", "P@5", "-f", "csv", "--precision", "3"
    )
    assert code == 0 and ",0.260,0.260,0.000," in out.splitlines()[1]


def test_counts_are_integers_in_tables_and_long_forms(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(capsys, RUNS[0], QRELS, "-m", "NumRet", "-m", "P@5", "-f", "table")
    assert code == 0 and "1000 " in out and "1000.0000" not in out and "0.2600" in out
    code, out, _ = run_cli(capsys, RUNS[0], QRELS, "-m", "NumRet", "-f", "csv")
    assert out.splitlines()[1].startswith("ql-cata,all,NumRet,1000,")
    code, out, _ = run_cli(capsys, RUNS[0], QRELS, "-m", "NumRet", "-f", "jsonl")
    assert json.loads(out)["value"] == 1000 and isinstance(json.loads(out)["value"], int)


# ---------------------------------------------------------------------------------------------
# fitting to the width


def test_wrapped_breaks_names_at_their_natural_breaks():
    assert wrapped("ci_low_unadjusted", 10) == "ci_low_\nunadjusted"
    assert wrapped("IPrec(rounding=v10)@0.1", 12) == "IPrec(\nrounding=\nv10)@0.1"
    assert wrapped("abcdefghij", 4) == "abcd\nefgh\nij"  # no break: cut, but every character kept


def test_the_compare_table_fits_80_columns_and_shows_every_name(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    args = ["compare", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "IPrec(rounding=v10)@0.1"]
    code, out, err = run_cli(capsys, *args, "-f", "table")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    flat = flattened(out)
    names = ["IPrec(rounding=v10)@0.1", "ci_high_unadjusted", "effect_size", "p_adjusted"]
    assert all(is_subsequence(name, flat) for name in names)
    assert "dssa" in out and "ql-cata" in out


def test_the_official_preset_fits_80_columns_transposed(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(capsys, *RUNS[:2], QRELS, "-m", "official", "-f", "table")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "iprec_at_recall_0.10 " in out and "…" not in out  # whole, one per row
    assert re.search(r"num_ret\s+│\s+1000 │\s+1000 │", out)


def test_without_a_width_a_file_gets_the_whole_table(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("COLUMNS", raising=False)
    target = tmp_path / "t.txt"
    code, _, _ = run_cli(capsys, *RUNS, QRELS, "-m", "official", "-f", "table", "-o", target)
    assert code == 0
    header = [line for line in target.read_text().splitlines() if "num_ret" in line][0]
    assert "iprec_at_recall_0.10" in header and len(header) > 300


def test_a_table_too_wide_to_transpose_is_split_repeating_its_keys(monkeypatch):
    headers = ["run", "topic", *(f"measure_number_{k}@10" for k in range(12))]
    rows = [[f"run{r}", str(t), *(f"0.{k}{t}00" for k in range(12))] for r in range(4)
            for t in range(10)]  # fmt: skip
    text = printed(headers, rows, [False, False] + [True] * 12, 60, 2, monkeypatch, "scores")
    assert max(len(line) for line in text.splitlines()) <= 60
    parts = re.findall(r"scores \((\d+) of (\d+)\)", text)
    assert len(parts) >= 3 and parts[-1][0] == parts[-1][1]
    assert text.count("run3") == 10 * len(parts)  # every part repeats the identifying columns
    flat = flattened(text)
    assert all(is_subsequence(name, flat) for name in headers)


@settings(max_examples=examples(60), deadline=None)
@given(
    names=st.lists(
        st.text(alphabet="abcdefghij_-@(,=0123456789", min_size=1, max_size=30),
        min_size=1,
        max_size=12,
        unique=True,
    ),
    n_rows=st.integers(1, 6),
    width=st.integers(40, 120),
)
def test_every_fitted_table_keeps_within_the_width_and_cuts_nothing(names, n_rows, width):
    import os

    headers = ["run", *names]
    rows = [[f"r{r}", *(f"{(r + k) / 7:.4f}" for k in range(len(names)))] for r in range(n_rows)]
    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        print_table(out, headers, rows, [False] + [True] * len(names), keys=1)
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    flat = flattened(text)
    assert all(is_subsequence(BOX.sub("", name), flat) for name in headers)
    assert all(is_subsequence(value, flat) for row in rows for value in row)


def test_text_cells_stay_whole_when_splitting_the_table_keeps_them_so(capsys, monkeypatch):
    # collection's list columns (subtopic counts, smr per subtopic) would wrap into rows of
    # five lines at 100 columns: the table is printed in two parts instead, each topic a line
    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = run_cli(capsys, "collection", QRELS, "-f", "table")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert "(1 of 2)" in out and "(2 of 2)" in out
    assert "148,92,99,89,87" in out and "0.0163,0.2449,0.2163,0.2571,0.2653" in out
    assert sum("│ 151 " in line for line in out.splitlines()) == 2  # one line in each part


_TEXT = st.text(alphabet=st.sampled_from("ab ,;\t\"'\n\r-_é0.9"), max_size=6)
_FLOAT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-5, 1e-4, 0.1 + 0.2, 1e15, 1e16, 123456789.0, -2.5e-300]),
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.integers(min_value=0, max_value=6).flatmap(
        lambda n: st.tuples(
            st.lists(_TEXT, min_size=n, max_size=n),
            st.lists(_FLOAT, min_size=n, max_size=n),
            st.lists(st.booleans(), min_size=n, max_size=n),
            st.lists(st.integers(-(2**40), 2**40), min_size=n, max_size=n),
        )
    ),
    st.sampled_from(["csv", "tsv", "jsonl", "json", "trec_eval"]),
    st.sampled_from([None, 0, 3]),
)
def test_a_table_given_as_columns_prints_as_its_dataframe(values, fmt, precision):
    """The machine formats print a table's columns (no pandas: compare's output) byte for byte
    as they print its DataFrame (pandas' to_csv): quoting, NaN, inf, -0.0, exponents."""
    names, floats, flags, counts = values
    columns = {
        "name": names,
        "value": np.array(floats, dtype=float),
        "flag": np.array(flags, dtype=bool),
        "count": np.array(counts, dtype=np.int64),
    }
    printed = []
    for table in (columns, pd.DataFrame(columns)):
        out = io.StringIO()
        write_frame(table, out, fmt, key="name", precision=precision, signature="s")
        printed.append(out.getvalue())
    assert printed[0] == printed[1]


@pytest.mark.parametrize("as_frame", [False, True])
def test_rounding_keeps_values_too_large_to_have_decimals(as_frame):
    """--precision 3 of 1e308: 1e308 x 10**3 overflows, and numpy's (and pandas') round makes
    it inf with a raw RuntimeWarning; such a value has no decimals to round and prints as it
    is, in both ways of giving a table. 0.12345 still rounds to 0.123 and -0.0001 to 0."""
    columns = {"name": ["a", "b", "c"], "value": np.array([1e308, 0.12345, -0.0001])}
    table = pd.DataFrame(columns) if as_frame else columns
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_frame(table, out, "csv", key="name", precision=3, signature="s")
    assert out.getvalue().splitlines()[1:] == [
        "a,100000000000000001097906362944045541740492309677311846336810682903157585404911491537163328978494688899061249669721172515611590283743140088328307009198146046031271664502933027185697489699588559043338384466165001178426897626212945177628091195786707458122783970171784415105291802893207873272974885715430223118336.000",
        "b,0.123",
        "c,0.000",
    ]
