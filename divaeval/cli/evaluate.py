"""``divaeval [evaluate] RUN... QRELS -m MEASURE ...``: the main job."""

from __future__ import annotations

from functools import partial

import click

from divaeval.cli.options import (
    baseline_option,
    check_dd_exponent,
    dd_exponent_option,
    evaluation_from,
    judging_options,
    mean_option,
    measure_option,
    output_file_option,
    precision_option,
    risk_alpha_option,
    signature_option,
)
from divaeval.cli.output import emit, write_text
from divaeval.cli.paths import INPUT

COMMAND_NAME = "evaluate"
SCORE_FORMATS = ("trec_eval", "ndeval", "ntcir", "csv", "tsv", "jsonl", "json", "table", "latex")


@click.command(COMMAND_NAME)
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@click.option("-n", "--no-summary", is_flag=True, help="no mean over topics")
@click.option(
    "-c",
    "--complete",
    is_flag=True,
    help="average over all qrels topics; topics missing from a run count as 0",
)
@judging_options
@mean_option(
    "topic average: arithmetic, geometric (gm_map), or weighted by 1 - diversity difficulty"
)
@dd_exponent_option()
@click.option(
    "-f",
    "--format",
    "output_format",
    default="trec_eval",
    show_default=True,
    type=click.Choice(SCORE_FORMATS),
    help="output format",
)
@baseline_option(
    "risk-sensitive evaluation (ndeval's -baseline): every value becomes the run's minus this "
    "run's, and (1 + A) times that where the run loses; runs are labelled "
    "'RUN (rel to. BASE; rs=1+a; a=A)'"
)
@risk_alpha_option("risk sensitivity A >= 0 of --baseline (ndeval's -riskAlpha)  [default: 0]")
@precision_option(default=None)
@output_file_option()
@signature_option()
def evaluate_command(
    files,
    measures,
    per_topic,
    no_summary,
    complete,
    mean,
    dd_exponent,
    baseline,
    risk_alpha,
    output_format,
    precision,
    output,
    signature,
    **judging,
) -> None:
    """Evaluate RUN files against QRELS (the last file). A file may be '-' (stdin) and
    gzipped; the default measures are ndeval's 21 columns."""
    from divaeval import __version__
    from divaeval.report import ReportOptions, write_report

    dd_exponent = check_dd_exponent(mean, dd_exponent)
    result = evaluation_from(
        files,
        measures,
        judging,
        complete=complete,
        baseline=baseline,
        risk_alpha=risk_alpha,
        dd_exponent=dd_exponent,
    )
    result.check_mean(mean)
    names = ",".join(m.name for m in result.measures)
    risk = f"|{result.risk.signature()}" if result.risk else ""
    averaged = f"mean={mean}" + (f"|dd_exponent={dd_exponent}" if mean == "dd" else "")
    sig = f"divaeval {__version__}|{result.settings.signature()}{risk}|{averaged}|measures={names}"
    options = ReportOptions(
        format=output_format,
        per_topic=per_topic or output_format == "ndeval",
        summary=not no_summary,
        precision=precision,
        mean=mean,
        signature=sig,
    )
    if signature:
        click.echo(sig, err=True)
    if output_format == "latex":  # runs x measures with significance superscripts
        from divaeval.stats.tables import evaluation_latex

        text = evaluation_latex(
            result, mean=mean, precision=4 if precision is None else precision, signature=sig
        )
        emit(partial(write_text, text), output)
        return
    emit(lambda out: write_report(result, out, options), output)
