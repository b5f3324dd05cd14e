"""``divaeval risk RUN... QRELS -m MEASURE [--baseline BASE] [--risk-alpha A]``: risk-sensitive
comparison, one row per run and measure (URisk, TRisk and its p-value against a baseline; ZRisk
and GeoRisk against all runs)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    baseline_option,
    measure_option,
    output_options,
    plot_option,
    risk_alpha_option,
    runs_and_qrels,
    settings_from,
    settings_options,
)
from divaeval.cli.paths import INPUT
from divaeval.errors import UsageError
from divaeval.settings import JUDGING


@click.command("risk")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@baseline_option(
    "the baseline run for URisk, TRisk, wins and losses (also one of the runs of ZRisk and "
    "GeoRisk, counted once if it is among the RUNs; its own row is left out); without it only "
    "ZRisk and GeoRisk"
)
@risk_alpha_option("risk sensitivity 0 <= A <= 1e6: losses weigh 1 + A times  [default: 0]")
@plot_option("each run's per-topic differences against the baseline, losses also times 1 + A")
@settings_options(*JUDGING)
@output_options
def risk_command(
    files,
    measures,
    baseline,
    risk_alpha,
    plot,
    out,
    **options,
) -> None:
    """Risk-sensitive comparison of RUNs. Per run and measure: its mean, and

    \b
    URisk    (1/c)·Σ_q δ'_q, δ'_q = r_q − b_q if r_q ≥ b_q, else (1 + A)(r_q − b_q)
             (Wang, Bennett & Collins-Thompson, SIGIR 2012; TREC Web 2013-14,
             ndeval -baseline -riskAlpha)
    TRisk    URisk / (s/√c), s² = Σ_q (δ'_q − URisk)²/(c − 1): the t statistic of the
             δ'_q; p_value two-sided, Student t with c − 1 df; below −2 a significant
             risk, above +2 a significant reward (Dinçer, Macdonald & Ounis, SIGIR 2014)
    wins     topics where the run beats the baseline; losses: where it falls below it
    ZRisk    Σ_j z_ij with z_ij < 0 weighted 1 + A, z_ij = (x_ij − e_ij)/√e_ij,
             e_ij = S_i·T_j/N (run total × topic total / grand total over all runs):
             risk against every run, not one baseline
    GeoRisk  √((S_i/c)·Φ(ZRisk_i/c)), Φ the standard normal CDF
             (both: Dinçer, Macdonald & Ounis, SIGIR 2016)

    The baseline's own row is left out (it would compare it with itself); it is one of the
    runs of ZRisk and GeoRisk, counted once when it is also among the RUNs.
    Every run is scored on every qrels topic (a topic missing from a run scores 0). ZRisk and
    GeoRisk need scores >= 0 (NaN otherwise). For ndeval's per-topic values use
    'divaeval RUN... QRELS --baseline BASE --risk-alpha A'.
    """
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.results import check_plot
    from divaeval.api.risk_comparison import risk

    check_plot(plot)  # before any work
    if plot and baseline is None:
        raise UsageError("--plot draws the runs' differences against --baseline: give --baseline")
    runs, qrels = runs_and_qrels(files)
    result = risk(
        runs,
        qrels,
        measures,
        baseline=baseline,
        risk_alpha="0" if risk_alpha is None else risk_alpha,
        settings=settings_from(options),
    )
    out.result(result, key="run", plot=plot)
