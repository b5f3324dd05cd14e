"""The analyses' regression corpus (``tests/regressions/analyses/``, issue 22): one small input
per wrong answer or raw numpy warning fixed, run through the CLI in process.

Each case asserts the exact exit code, the first stderr line and, where the command prints a
table, values of its first row. Before the fixes, randomised Tukey HSD called identical runs
significantly different (p = 0), the t-test was certain (p ≈ 1e-15) of a gain equal on paper,
``--risk-alpha 1e308`` and ``--scores`` values of ±1e308 printed numpy's overflow warnings
beside -inf and NaN, and ``meta correlation`` with one metric printed a bare header (exit 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from divaeval.cli import main

CORPUS = Path(__file__).parent / "regressions" / "analyses"
RUNS = ["ten_relevant.qrels", "-m", "P@10"]


@dataclass
class Case:
    args: list[str]
    code: int
    first_line: str  # exact first stderr line; "": the settings signature
    row: dict[str, str] = field(default_factory=dict)  # column -> value of the first row


CASES = {
    # P@10 of a: 3/10 4/10 7/10 and of copy: the same run under another tag: every range of
    # the two permuted runs is 0, and "range > 0" counted none (p = 0, significant)
    "tukey_identical_runs": Case(
        ["compare", "gain_a.run", "copy_a.run", *RUNS, "--test", "tukey-hsd", "-B", "100"], 0,
        "divaeval: warning: 1 pair(s) of runs score the same on every topic (within a relative "
        "1e-12), e.g. a and copy: p = 1",
        {"p_value": "1.0", "significant": "False"},
    ),
    # two runs without a relevant document: all-zero scores, the same failure
    "tukey_all_zero_runs": Case(
        ["compare", "zero_a.run", "zero_b.run", *RUNS, "--test", "tukey-hsd", "-B", "100"], 0,
        "divaeval: warning: 1 pair(s) of runs score the same on every topic (within a relative "
        "1e-12), e.g. zero_a and zero_b: p = 1",
        {"p_value": "1.0", "statistic": "0.0"},
    ),
    # a: 0.3 0.4 0.7, b: 0.2 0.3 0.6; a gain of 0.1 everywhere on paper, in binary differences
    # 5.6e-17 apart: t was 3.3e15 and p 2e-31; now no variance, no evidence
    "ttest_gain_equal_on_paper": Case(
        ["compare", "gain_a.run", "gain_b.run", *RUNS], 0,
        "divaeval: warning: 1 pair(s) of runs differ by the same amount on every topic (within a "
        "relative 1e-12), e.g. a and b: no variance, so the t-test gives no evidence (p = 1); "
        "the randomization test decides them",
        {"statistic": "NaN", "p_value": "1.0", "effect_size": "inf"},
    ),
    # the randomisation test needs no variance: 2 of the 2^3 sign vectors reach |Σz|
    "randomization_gain_equal_on_paper": Case(
        ["compare", "gain_a.run", "gain_b.run", *RUNS, "--test", "randomization"], 0, "",
        {"p_value": "0.25"},
    ),
    "risk_alpha_beyond_range": Case(
        ["risk", "gain_a.run", *RUNS, "--baseline", "gain_b.run", "--risk-alpha", "1e308"], 2,
        "divaeval: risk alpha '1e308' is beyond 1,000,000: losses would weigh more than "
        "1,000,000 times gains",
    ),
    "evaluate_risk_alpha_beyond_range": Case(
        ["gain_a.run", *RUNS, "--baseline", "gain_b.run", "--risk-alpha", "1e7"], 2,
        "divaeval: risk alpha '1e7' is beyond 1,000,000: losses would weigh more than "
        "1,000,000 times gains",
    ),
    "discriminative_power_huge_scores": Case(
        ["meta", "discriminative-power", "--scores", "huge.scores", "-B", "100"], 1,
        "divaeval: huge.scores:2: value '1e+308' is beyond 1e+100, the largest score the "
        "analyses take (their sums of squares would overflow)",
    ),
    "correlation_one_metric": Case(
        ["meta", "correlation", "--scores", "one_metric.scores"], 2,
        "divaeval: rank correlation needs at least two metrics",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_regression(name, capsys, monkeypatch):
    case = CASES[name]
    monkeypatch.chdir(CORPUS)
    capsys.readouterr()
    code = main([*case.args, "-f", "tsv"])
    out, err = capsys.readouterr()
    assert code == case.code, err
    lines = err.splitlines()
    assert "RuntimeWarning" not in err  # never a raw numpy warning
    if case.first_line:
        assert lines[0] == case.first_line
    else:
        assert lines[0].startswith("divaeval: signature: ")
    if code:
        assert out == "" and len(lines) == 1
        return
    header, first = (line.split("\t") for line in out.splitlines()[:2])
    row = dict(zip(header, first, strict=True))
    assert {column: row[column] for column in case.row} == case.row


def test_every_corpus_file_is_used():
    used = {arg for case in CASES.values() for arg in case.args}
    assert {path.name for path in CORPUS.iterdir()} <= used
