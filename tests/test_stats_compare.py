"""The compare procedure on score tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from divaeval.errors import UsageError
from divaeval.stats.compare import PAIR_COLUMNS, compare_runs, comparison_to_latex
from divaeval.stats.effects import pairwise_bootstrap_cis, pairwise_t_cis

WORKED = np.array(
    [
        [0.50, 0.60, 0.30, 0.80, 0.45],
        [0.40, 0.55, 0.35, 0.60, 0.40],
        [0.30, 0.20, 0.10, 0.40, 0.45],
    ]
)
RUNS = ["A", "B", "C"]


def test_ttest_comparison_with_holm():
    result = compare_runs(WORKED, RUNS, test="ttest")
    pairs = result.pairs
    assert list(pairs.columns) == list(PAIR_COLUMNS)
    assert list(zip(pairs.run_a, pairs.run_b, strict=True)) == [("A", "B"), ("A", "C"), ("B", "C")]
    np.testing.assert_allclose(pairs["diff"], [0.07, 0.24, 0.17])
    np.testing.assert_allclose(pairs.p_value, [0.159935, 0.032678, 0.067268], atol=1e-6)
    # Holm: 0.032678·3 = 0.098034, max(0.067268·2, …) = 0.134536, 0.159935
    np.testing.assert_allclose(pairs.p_adjusted, [0.159935, 0.098034, 0.134536], atol=1e-6)
    assert not pairs.significant.any()
    assert result.correction == "holm"
    assert result.signature == (
        "test=ttest|seed=42|rng=PCG64|alpha=0.05|correction=holm|ci=bootstrap|ci_B=10000"
    )
    assert result.runs["run"].tolist() == RUNS
    np.testing.assert_allclose(result.runs["mean"], [0.53, 0.46, 0.29])


def test_uncorrected_t_test_marks_the_runs_beaten():
    # at α = 0.10 without correction A-C (0.033) and B-C (0.067) are significant
    result = compare_runs(WORKED, RUNS, test="ttest", alpha=0.10, correction="none", ci="t")
    assert result.runs["beats"].tolist() == [["C"], ["C"], []]
    assert result.signature == "test=ttest|alpha=0.1|correction=none|ci=t"


def test_reversed_direction_marks_the_better_run():
    result = compare_runs(WORKED[::-1], RUNS[::-1], test="ttest", alpha=0.10, correction="none")
    assert result.runs.set_index("run").loc["A", "beats"] == ["C"]


def test_bootstrap_signature_and_determinism():
    first = compare_runs(WORKED, RUNS, test="bootstrap", seed=7, correction="bh")
    second = compare_runs(WORKED, RUNS, test="bootstrap", seed=7, correction="bh")
    assert first.pairs.equals(second.pairs)
    assert first.signature == (
        "test=bootstrap|B=1000|seed=7|rng=PCG64|alpha=0.05|correction=bh|ci=bootstrap|ci_B=10000"
    )
    assert first.B == 1000 and first.seed == 7


def test_exact_randomization_signature():
    result = compare_runs(WORKED, RUNS, test="randomization", ci="t")
    assert result.signature == "test=randomization|B=exact|alpha=0.05|correction=holm|ci=t"
    np.testing.assert_allclose(result.pairs.p_value, [0.25, 0.125, 0.125])


def test_tukey_hsd_is_not_corrected_again(collected_warnings):
    result = compare_runs(WORKED, RUNS, test="tukey-hsd", correction="holm", seed=42)
    assert result.correction == "none"
    assert any("family-wise" in m for m in collected_warnings)
    np.testing.assert_array_equal(result.pairs.p_adjusted, result.pairs.p_value)
    assert "test=tukey-hsd|B=5000|seed=42|rng=PCG64|hsd=>|alpha=0.05|correction=none" in (
        result.signature
    )
    # only A-C is significant (exact ASL 0.006)
    assert result.pairs.significant.tolist() == [False, True, False]
    assert result.runs["beats"].tolist() == [["C"], [], []]


def test_confidence_intervals_are_per_pair_and_unadjusted():
    # the CI columns are the same per-pair intervals whatever the test and correction: beside
    # Tukey HSD's family-wise p-values they are not simultaneous intervals (hence the names)
    columns = ["ci_low_unadjusted", "ci_high_unadjusted"]
    assert set(columns) <= set(PAIR_COLUMNS)
    hsd = compare_runs(WORKED, RUNS, test="tukey-hsd", seed=42).pairs[columns]
    bonferroni = compare_runs(WORKED, RUNS, correction="bonferroni", seed=42).pairs[columns]
    pd.testing.assert_frame_equal(hsd, bonferroni)
    low, high = pairwise_bootstrap_cis(WORKED, seed=42)
    np.testing.assert_array_equal(hsd.to_numpy(), np.column_stack([low, high]))
    t_low, t_high = pairwise_t_cis(WORKED, alpha=0.05)
    t_pairs = compare_runs(WORKED, RUNS, test="tukey-hsd", ci="t").pairs
    np.testing.assert_array_equal(t_pairs[columns].to_numpy(), np.column_stack([t_low, t_high]))


def test_latex_rendering():
    result = compare_runs(WORKED, ["A", "B_1", "C&D"], test="tukey-hsd", seed=42)
    runs_latex = comparison_to_latex(result, metric="alpha-nDCG@10")
    assert r"1 & A & 0.5300$^{3}$ \\" in runs_latex
    assert r"B\_1" in runs_latex and r"C\&D" in runs_latex
    assert runs_latex.rstrip().endswith(result.signature)
    pairs_latex = comparison_to_latex(result, table="pairs", precision=3)
    assert r"\textbf{0.006}" in pairs_latex or r"\textbf{0.007}" in pairs_latex
    assert "CI low (unadj.) & CI high (unadj.)" in pairs_latex
    assert "% CI: per pair at 95%, unadjusted for multiple comparisons\n" in pairs_latex
    assert "unadj" not in runs_latex
    with pytest.raises(UsageError):
        comparison_to_latex(result, table="matrix")


def test_usage_errors():
    with pytest.raises(UsageError):
        compare_runs(WORKED, RUNS, test="anova")
    with pytest.raises(UsageError):
        compare_runs(WORKED, RUNS, correction="fdr")
    with pytest.raises(UsageError):
        compare_runs(WORKED, RUNS, ci="bca")
    with pytest.raises(UsageError):
        compare_runs(WORKED, ["A", "B"])
