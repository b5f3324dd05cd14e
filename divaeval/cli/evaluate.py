"""``divaeval [evaluate] RUN... QRELS -m MEASURE ...``: the main job."""

from __future__ import annotations

from functools import partial

import click

from divaeval.cli.options import (
    baseline_option,
    measure_option,
    output_file_option,
    plot_option,
    precision_option,
    risk_alpha_option,
    runs_and_qrels,
    settings_from,
    settings_options,
    signature_option,
)
from divaeval.cli.output import emit, resolve_format, write_text
from divaeval.cli.paths import INPUT
from divaeval.report import ReportOptions, write_report
from divaeval.settings import AVERAGING, JUDGING

COMMAND_NAME = "evaluate"
SCORE_FORMATS = (
    "trec_eval", "ndeval", "ntcir", "csv", "tsv", "jsonl", "json", "table", "latex", "markdown",
    "html",
)  # fmt: skip


@click.command(COMMAND_NAME)
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@click.option("-n", "--no-summary", is_flag=True, help="no mean over topics")
@settings_options("complete", *JUDGING, *AVERAGING)
@click.option(
    "-f",
    "--format",
    "output_format",
    default=None,
    type=click.Choice(SCORE_FORMATS),
    help="output format  [default: -o FILE's extension (.csv .tsv .jsonl .json .tex .md "
    ".html), else trec_eval]",
)
@baseline_option(
    "risk-sensitive evaluation (ndeval's -baseline): every value becomes the run's minus this "
    "run's, and (1 + A) times that where the run loses; runs are labelled "
    "'RUN (rel to. BASE; rs=1+a; a=A)'"
)
@risk_alpha_option(
    "risk sensitivity 0 <= A <= 1e6 of --baseline (ndeval's -riskAlpha)  [default: 0]"
)
@plot_option("the runs x topics heat map of each measure, and its curve over its cutoffs")
@precision_option(default=None)
@output_file_option()
@signature_option()
def evaluate_command(
    files,
    measures,
    per_topic,
    no_summary,
    baseline,
    risk_alpha,
    plot,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Evaluate RUN files against QRELS (the last file). A file may be '-' (stdin) and
    gzipped; the default measures are ndeval's 21 columns."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.evaluator import evaluate
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    output_format = resolve_format(output_format, output, default="trec_eval", terminal="trec_eval")
    settings = settings_from(options)
    runs, qrels = runs_and_qrels(files)
    result = evaluate(
        runs, qrels, measures, baseline=baseline, risk_alpha=risk_alpha, settings=settings
    )
    if plot:
        result.plot(plot)
    if signature:
        click.echo(result.signature, err=True)
    if output_format == "latex":  # runs x measures with significance superscripts
        text = result.latex(precision=4 if precision is None else precision)
        emit(partial(write_text, text), output)
        return
    report = ReportOptions(
        format=output_format,
        per_topic=per_topic or output_format == "ndeval",
        summary=not no_summary,
        precision=precision,
        mean=settings.mean,
        signature=result.signature,
    )
    emit(lambda out: write_report(result.evaluation, out, report), output)
