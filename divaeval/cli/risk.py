"""``divaeval risk RUN... QRELS -m MEASURE [--baseline BASE] [--risk-alpha A]``: risk-sensitive
comparison, one row per run and measure (URisk, TRisk and its p-value against a baseline; ZRisk
and GeoRisk against all runs)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    baseline_option,
    evaluation_from,
    judging_options,
    measure_option,
    output_options,
    resolve_format,
    risk_alpha_option,
)
from divaeval.cli.output import write_table
from divaeval.cli.paths import INPUT


@click.command("risk")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@baseline_option(
    "the baseline run for URisk, TRisk, wins and losses (also one of the runs of ZRisk and "
    "GeoRisk); without it only ZRisk and GeoRisk"
)
@risk_alpha_option("risk sensitivity A >= 0: losses weigh 1 + A times  [default: 0]")
@judging_options
@output_options
def risk_command(
    files,
    measures,
    baseline,
    risk_alpha,
    output_format,
    precision,
    output,
    signature,
    **judging,
) -> None:
    """Risk-sensitive comparison of RUNs: per run and measure, the mean and

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

    Every run is scored on every qrels topic (a topic missing from a run scores 0). ZRisk and
    GeoRisk need scores >= 0 (NaN otherwise). For ndeval's per-topic values use
    'divaeval RUN... QRELS --baseline BASE --risk-alpha A'.
    """
    from divaeval import __version__
    from divaeval.risk_measures import check_risk_alpha, risk_frame

    fmt = resolve_format(output_format)
    alpha, alpha_text = check_risk_alpha("0" if risk_alpha is None else risk_alpha)
    paths, position = _runs_with_baseline(files[:-1], baseline)
    result = evaluation_from([*paths, files[-1]], measures, judging, complete=True)
    frame = risk_frame(result, baseline=position, alpha=alpha)
    names = ",".join(m.name for m in result.measures)
    base = "none" if position is None else result.runs[position].name
    sig = (
        f"divaeval {__version__}|risk|baseline={base}|risk_alpha={alpha_text}|"
        f"{result.settings.signature()}|measures={names}"
    )
    write_table(
        frame, fmt, output, key="run", precision=precision, signature=sig, show_signature=signature
    )


def _runs_with_baseline(run_paths, baseline: str | None) -> tuple[list[str], int | None]:
    """(run files, position of the baseline among them): the baseline file is added after the
    runs unless it is one of them already (then it is not counted twice by ZRisk)."""
    from divaeval.evaluation import same_file

    paths = list(run_paths)
    if baseline is None:
        return paths, None
    for position, path in enumerate(paths):
        if path == baseline or same_file(path, baseline):
            return paths, position
    return [*paths, baseline], len(paths)
