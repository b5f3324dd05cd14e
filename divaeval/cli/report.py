"""``divaeval report RUN... QRELS -o report.html``: the runs on one self-contained HTML page."""

from __future__ import annotations

from functools import partial

import click

from divaeval.cli.options import (
    baseline_option,
    correction_option,
    measure_option,
    output_file_option,
    resampling_options,
    risk_alpha_option,
    runs_and_qrels,
    settings_from,
    settings_options,
    signature_option,
)
from divaeval.cli.output import emit, write_text
from divaeval.cli.paths import INPUT
from divaeval.settings import JUDGING


@click.command("report")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option("alpha-nDCG@20, ERR-IA@20")
@baseline_option("the run every other run is compared with  [default: the first RUN]")
@risk_alpha_option("also draw each loss against the baseline 1 + A times (the URisk view)")
@resampling_options("ttest", ("ttest", "bootstrap", "randomization", "tukey-hsd"))
@correction_option(None, "multiple-comparison correction [default: holm; none for tukey-hsd]")
@settings_options(*JUDGING)
@output_file_option()
@signature_option()
def report_command(
    files,
    measures,
    baseline,
    risk_alpha,
    resampling,
    correction,
    output,
    signature,
    **options,
) -> None:
    """The RUNs on one HTML page that opens offline (every script, style and figure inline):
    the means with confidence intervals and significance against the baseline, each run's
    per-topic wins and losses against it, a runs x topics heat map, each run's coverage of
    the subtopics of any topic, the alpha-nDCG@k and S-recall@k curves and the subtopics
    reached by type. Default measures: alpha-nDCG@20 and ERR-IA@20 (the first is the main
    one). The page goes to stdout, or to -o FILE; then stdout says where, and which run is
    best."""
    # divaeval's library is loaded once the command runs: --help stays free of numpy
    from divaeval.api.report import report_page

    runs, qrels = runs_and_qrels(files)
    result = report_page(
        runs,
        qrels,
        measures,
        baseline=baseline,
        risk_alpha=risk_alpha,
        **resampling,
        correction=correction,
        settings=settings_from(options),
    )
    if signature:
        click.echo(result.signature, err=True)
    emit(partial(write_text, result.html), output)
    if output is not None:  # where the page went, and what it says first (a CI log shows it)
        click.echo(f"Wrote {output}: {result.verdict}")
