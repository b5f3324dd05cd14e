"""Grades written otherwise than as plain integers (issue 28): an integer spelling (``+1``,
``01``) is that integer; an integral decimal (``1.0``) is read as the integer it equals, as
trec_eval's C parser reads it, with one warning naming the first line and the count; exponent
notation (``1e0``: trec_eval reads the digits before the ``e``, so ``2e1`` is 2 there) and
non-integral grades (``1.5``: trec_eval truncates) are errors, exit 1."""

from __future__ import annotations

import pytest
from support import run_cli

RUN = "1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n"


def _evaluate(capsys, tmp_path, grades: list[str]):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"1 0 d{i} {g}\n" for i, g in enumerate(grades, start=1)))
    run = tmp_path / "r.run"
    run.write_text(RUN)
    code, out, err = run_cli(capsys, run, qrels, "-m", "P@3", "-m", "nDCG@3", "-f", "csv")
    return code, out, err, str(qrels)


@pytest.mark.parametrize("spelling", [["+1", "0", "02"], ["01", "00", "+2"]])
def test_integer_spellings_are_integers(capsys, tmp_path, spelling):
    code, out, err, _ = _evaluate(capsys, tmp_path, spelling)
    plain = _evaluate(capsys, tmp_path, ["1", "0", "2"])
    assert code == 0 and err == "" and out == plain[1]


def test_integral_decimals_are_read_with_a_warning(capsys, tmp_path):
    code, out, err, qrels = _evaluate(capsys, tmp_path, ["1", "0.0", "2.00"])
    assert code == 0
    assert out == _evaluate(capsys, tmp_path, ["1", "0", "2"])[1]
    assert err == (
        f"divaeval: warning: {qrels}:2: 2 grades are written as decimals (e.g. '0.0'); read "
        "as the integers they equal\n"
    )
    code, _, err, qrels = _evaluate(capsys, tmp_path, ["1.0", "0", "2"])
    assert err == (
        f"divaeval: warning: {qrels}:1: 1 grade is written as a decimal ('1.0'); read as the "
        "integer it equals\n"
    )


@pytest.mark.parametrize(
    ("grade", "message"),
    [
        ("1e0", "grade '1e0' is in exponent notation, which trec_eval reads as its digits "
         "before the 'e' (2e1 as 2): write the integer"),
        ("2E1", "grade '2E1' is in exponent notation"),
        ("1.5", "grade '1.5' is not an integer"),
        ("x", "grade 'x' is not an integer"),
    ],
)  # fmt: skip
def test_exponents_and_fractions_are_errors(capsys, tmp_path, grade, message):
    code, out, err, qrels = _evaluate(capsys, tmp_path, ["1", "0.0", grade])
    assert code == 1 and out == ""
    assert err.startswith(f"divaeval: {qrels}:3: {message}")
