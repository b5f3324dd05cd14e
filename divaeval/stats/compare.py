"""The ``compare`` procedure: every pair of runs on one metric (Sakai WWW 2012, Figures 2-5;
Sakai, SIGIR Forum 2014 for effect sizes and intervals).

Input is a score table ``[n_runs, n_topics]`` with run names. Output is a table of run pairs
(mean difference, d_z, CI, p-value, adjusted p-value, significance) and a table of runs (mean and
the runs each one significantly beats), plus a one-line signature of the settings.

Corrections (Holm by default) apply to the pairwise tests (t-test, bootstrap, randomisation);
randomised Tukey HSD is already family-wise, so its p-values are never corrected again: with
``test="tukey-hsd"`` the correction is always ``none`` (an explicitly requested other correction
is ignored with a warning).

p-values (all two-sided; see :mod:`divaeval.stats.significance`): t-test 2·P(T_{N−1} ≥ |t|);
bootstrap ASL = count/B (Sakai's Fig. 2, can be 0); randomisation count/2ᴺ when exact (N ≤ 20,
the observed sign vector counted), (count + 1)/(B + 1) when sampled; Tukey HSD count/B,
family-wise.

The confidence interval of each pair (``ci_low_unadjusted``, ``ci_high_unadjusted``) is a
per-pair (1 − α) interval, never adjusted for multiple comparisons, whatever the correction or
test: beside Tukey HSD's family-wise p-values it is not a simultaneous interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from divaeval.errors import UsageError, warn
from divaeval.parallel import Workers
from divaeval.scores import EQUAL_TOLERANCE, equal_within_tolerance, row_means
from divaeval.stats.corrections import adjust_p_values, check_correction_name
from divaeval.stats.effects import (
    CI_METHODS,
    DEFAULT_CI_B,
    pairwise_bootstrap_cis,
    pairwise_effect_sizes,
    pairwise_t_cis,
)
from divaeval.stats.significance import (
    DEFAULT_SEED,
    GENERATOR_NAME,
    PairwiseTests,
    check_score_table,
    check_test_name,
    pair_differences,
    pairwise_tests,
    run_pair_indices,
)

if TYPE_CHECKING:
    import pandas as pd  # (lazily below: workers and the machine formats need no pandas)

PAIR_COLUMNS = (
    "run_a",
    "run_b",
    "mean_a",
    "mean_b",
    "diff",
    "effect_size",
    "ci_low_unadjusted",
    "ci_high_unadjusted",
    "statistic",
    "p_value",
    "p_adjusted",
    "significant",
)
RUN_COLUMNS = ("run", "mean", "beats")


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare_runs`: the tables :attr:`pairs` and :attr:`runs`, built (with
    pandas) when first read from their columns, which the machine formats print as they are."""

    #: :data:`PAIR_COLUMNS` -> one value per unordered pair (names in lists, numbers in arrays)
    pair_columns: dict[str, Any]
    #: :data:`RUN_COLUMNS` -> one value per run (``beats``: lists of run names)
    run_columns: dict[str, Any]
    signature: str
    test: str
    B: int | None
    seed: int | None
    alpha: float
    correction: str
    ci: str
    ci_B: int | None
    tests: PairwiseTests  # the raw test result (p-values, counts, Δ estimate)

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """One row per unordered pair, the columns of :data:`PAIR_COLUMNS`."""
        import pandas as pd  # lazily: the machine formats print the columns without pandas

        return pd.DataFrame(self.pair_columns, columns=list(PAIR_COLUMNS))

    @cached_property
    def runs(self) -> pd.DataFrame:
        """One row per run: run, mean, beats (a list of run names)."""
        import pandas as pd  # lazily: the machine formats print the columns without pandas

        return pd.DataFrame(self.run_columns, columns=list(RUN_COLUMNS))


def comparison_signature(
    test: str,
    *,
    B: int | None,
    seed: int | None,
    alpha: float,
    correction: str,
    ci: str = "bootstrap",
    ci_B: int | None = DEFAULT_CI_B,
    comparison: str | None = None,
    exact: bool = False,
) -> str:
    """One-line settings signature, e.g. ``test=bootstrap|B=1000|seed=42|rng=PCG64|…``.

    Keys in this order: test, B (``exact`` for an exact enumeration), seed, rng, hsd (Tukey's
    > or >=), alpha, correction, ci, ci_B. Keys that do not apply are left out; the seed appears
    whenever the test or the CI resamples.
    """
    parts = [f"test={test}"]
    if exact:
        parts.append("B=exact")
    elif B is not None:
        parts.append(f"B={B}")
    if seed is not None:
        parts += [f"seed={seed}", f"rng={GENERATOR_NAME}"]
    if comparison is not None:
        parts.append(f"hsd={comparison}")
    parts += [f"alpha={alpha:g}", f"correction={correction}", f"ci={ci}"]
    if ci == "bootstrap" and ci_B is not None:
        parts.append(f"ci_B={ci_B}")
    return "|".join(parts)


def compare_runs(
    scores: np.ndarray,
    runs: Sequence[str],
    *,
    test: str = "ttest",
    B: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
    correction: str | None = None,
    ci: str = "bootstrap",
    ci_B: int = DEFAULT_CI_B,
    hsd_comparison: str = ">",
    exact: bool | None = None,
    workers: Workers | None = None,
) -> Comparison:
    """Compare every pair of runs of a ``[n_runs, n_topics]`` score table.

    ``test``: ttest | bootstrap | randomization | tukey-hsd; ``B=None`` takes the test's
    default (bootstrap 1000, randomization 10000 sampled or exact for N ≤ 20, tukey-hsd 5000).
    ``correction``: holm | bh | bonferroni | none; ``None`` means holm for pairwise tests and
    none for tukey-hsd. A pair is significant iff its adjusted p-value is < α. ``ci``:
    bootstrap (percentile, ``ci_B`` resamples, separate seed stream) or t. The resampling
    runs on ``workers`` (:mod:`divaeval.parallel`) when given, with the same results.
    """
    test = check_test_name(test)
    correction = _correction_of(test, ci, correction)
    run_names = [str(r) for r in runs]
    table = check_score_table(scores, run_names, min_runs=2, min_topics=2)
    _warn_without_variance(table, run_names, test)
    result = pairwise_tests(
        table,
        test=test,
        B=B,
        seed=seed,
        alpha=alpha,
        comparison=hsd_comparison,
        exact=exact,
        workers=workers,
    )
    adjusted = adjust_p_values(result.p_values, correction)
    if ci == "bootstrap":
        interval = pairwise_bootstrap_cis(table, B=ci_B, seed=seed, alpha=alpha, workers=workers)
    else:
        interval = pairwise_t_cis(table, alpha=alpha)
    pairs = _pair_columns(table, run_names, result, adjusted, adjusted < alpha, interval)
    uses_seed = (test != "ttest" and not result.exact) or ci == "bootstrap"
    signature = comparison_signature(
        test,
        B=result.B,
        seed=seed if uses_seed else None,
        alpha=alpha,
        correction=correction,
        ci=ci,
        ci_B=ci_B,
        comparison=result.comparison,
        exact=result.exact,
    )
    return Comparison(
        pair_columns=pairs,
        run_columns=_run_columns(table, run_names, pairs),
        signature=signature,
        test=test,
        B=result.B,
        seed=seed if uses_seed else None,
        alpha=alpha,
        correction=correction,
        ci=ci,
        ci_B=ci_B if ci == "bootstrap" else None,
        tests=result,
    )


def _correction_of(test: str, ci: str, correction: str | None) -> str:
    """The correction ``compare`` applies: holm by default, always none for Tukey HSD (its
    p-values are family-wise already; another one asked for is ignored with a warning)."""
    if ci not in CI_METHODS:
        choices = ", ".join(CI_METHODS)
        raise UsageError(f"unknown confidence interval {ci!r}; choose one of {choices}")
    if correction is not None:
        check_correction_name(correction)
    if test != "tukey-hsd":
        return "holm" if correction is None else correction
    if correction not in (None, "none"):
        warn(
            f"correction {correction!r} ignored: randomised Tukey HSD is already "
            "family-wise (correction=none)"
        )
    return "none"


def _pair_columns(
    table: np.ndarray,
    runs: list[str],
    result: PairwiseTests,
    adjusted: np.ndarray,
    significant: np.ndarray,
    interval: tuple[np.ndarray, np.ndarray],
) -> dict[str, Any]:
    """The columns of :data:`PAIR_COLUMNS`, one value per run pair."""
    means = row_means(table)  # the means evaluate and risk print, to the last bit
    first, second = result.pairs[:, 0], result.pairs[:, 1]
    return {
        "run_a": [runs[i] for i in first],
        "run_b": [runs[j] for j in second],
        "mean_a": means[first],
        "mean_b": means[second],
        "diff": (table[first] - table[second]).mean(axis=1),
        "effect_size": pairwise_effect_sizes(table),
        "ci_low_unadjusted": interval[0],
        "ci_high_unadjusted": interval[1],
        "statistic": result.statistics,
        "p_value": result.p_values,
        "p_adjusted": adjusted,
        "significant": significant,
    }


def _run_columns(table: np.ndarray, runs: list[str], pairs: dict[str, Any]) -> dict[str, Any]:
    """The columns of :data:`RUN_COLUMNS`: each run's mean and the runs it significantly
    beats, in run order."""
    beats: dict[str, list[str]] = {name: [] for name in runs}
    for run_a, run_b, diff, significant in zip(
        pairs["run_a"], pairs["run_b"], pairs["diff"].tolist(), pairs["significant"].tolist(),
        strict=True,
    ):  # fmt: skip
        if significant and diff > 0:
            beats[run_a].append(run_b)
        elif significant and diff < 0:
            beats[run_b].append(run_a)
    order = {name: k for k, name in enumerate(runs)}
    return {
        "run": runs,
        "mean": row_means(table),
        "beats": [sorted(beats[name], key=order.__getitem__) for name in runs],
    }


def _warn_without_variance(table: np.ndarray, runs: list[str], test: str) -> None:
    """Warn of pairs whose per-topic differences are equal within the tolerance
    (:data:`~divaeval.scores.EQUAL_TOLERANCE`): identical runs (p = 1 in every test), and for
    the t-test and the bootstrap, equal non-zero differences (no variance: p = 1)."""
    pairs = run_pair_indices(len(runs))
    constant, zero = equal_within_tolerance(*pair_differences(table, pairs))
    if zero.any():
        a, b = pairs[np.argmax(zero)]
        warn(
            f"{int(zero.sum())} pair(s) of runs score the same on every topic (within a relative "
            f"{EQUAL_TOLERANCE:g}), e.g. {runs[a]} and {runs[b]}: p = 1"
        )
    shifted = constant & ~zero
    if shifted.any() and test in ("ttest", "bootstrap"):
        a, b = pairs[np.argmax(shifted)]
        warn(
            f"{int(shifted.sum())} pair(s) of runs differ by the same amount on every topic "
            f"(within a relative {EQUAL_TOLERANCE:g}), e.g. {runs[a]} and {runs[b]}: no variance, "
            f"so the {'t-test' if test == 'ttest' else 'bootstrap'} gives no evidence (p = 1); "
            "the randomization test decides them"
        )


# ---------------------------------------------------------------------------------------------
# LaTeX
# ---------------------------------------------------------------------------------------------

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in a run or metric name."""
    return "".join(_LATEX_SPECIALS.get(char, char) for char in str(text))


def _number(value: float, precision: int) -> str:
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return r"$\infty$" if value > 0 else r"$-\infty$"
    return f"{value:.{precision}f}"


def comparison_to_latex(
    comparison: Comparison, *, table: str = "runs", precision: int = 4, metric: str | None = None
) -> str:
    """A LaTeX ``tabular`` of the runs table (mean with superscript indices of the runs it
    significantly beats) or of the pairs table (``table="pairs"``); significant pairs in bold.
    The signature goes into a trailing comment line.
    """
    if table not in ("runs", "pairs"):
        raise UsageError(f"unknown LaTeX table {table!r}; choose runs or pairs")
    lines: list[str] = []
    if table == "runs":
        runs = comparison.runs
        index = {name: k + 1 for k, name in enumerate(runs["run"])}
        header = latex_escape(metric) if metric else "Mean"
        lines += [r"\begin{tabular}{rll}", r"\toprule", rf"\# & Run & {header} \\", r"\midrule"]
        for k, row in enumerate(runs.itertuples(index=False), start=1):
            marks = ",".join(str(index[name]) for name in row.beats)
            value = _number(row.mean, precision)
            if marks:
                value += rf"$^{{{marks}}}$"
            lines.append(rf"{k} & {latex_escape(row.run)} & {value} \\")
    else:
        lines += [
            r"\begin{tabular}{llrrrrrr}",
            r"\toprule",
            r"Run A & Run B & $\Delta$ & $d_z$ & CI low (unadj.) & CI high (unadj.) & $p$ & "
            r"$p_{adj}$ \\",
            r"\midrule",
        ]
        for row in comparison.pairs.itertuples(index=False):
            cells = [
                latex_escape(row.run_a),
                latex_escape(row.run_b),
                *(
                    _number(v, precision)
                    for v in (
                        row.diff,
                        row.effect_size,
                        row.ci_low_unadjusted,
                        row.ci_high_unadjusted,
                        row.p_value,
                    )
                ),
            ]
            adjusted = _number(row.p_adjusted, precision)
            cells.append(rf"\textbf{{{adjusted}}}" if row.significant else adjusted)
            lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table == "pairs":
        level = f"{100 * (1 - comparison.alpha):g}%"
        lines.append(f"% CI: per pair at {level}, unadjusted for multiple comparisons")
    lines.append(f"% {comparison.signature}")
    return "\n".join(lines) + "\n"
