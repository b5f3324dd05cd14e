"""``divaeval meta correlation``: rank correlation of the system rankings of every pair of
metrics."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    analysis_inputs,
    measure_option,
    output_options,
    plot_option,
    scores_option,
    settings_options,
)
from divaeval.cli.paths import INPUT
from divaeval.settings import JUDGING


@click.command("correlation")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@click.option(
    "--matrix",
    type=click.Choice(["tau_b", "tau_a", "tau_ap", "tau_ap_sym"]),
    default=None,
    help="print one coefficient as a metric x metric matrix "
    "(default: a long table with every coefficient)",
)
@plot_option("each pair of metrics' run means against each other, with Kendall's tau")
@settings_options(*JUDGING)
@output_options
def correlation_command(
    files,
    measures,
    score_files,
    matrix,
    plot,
    out,
    **options,
) -> None:
    """Kendall's tau (tau-b, tau-a) and tau_ap (Yilmaz et al.; and its symmetric version)
    between the system rankings induced by each pair of metrics."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.correlation import correlation
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    result = correlation(
        **analysis_inputs(files, score_files, options),
        measures=measures,
        matrix=matrix,
    )
    out.result(result, key="metric" if matrix else "metric_a", title="rank correlation", plot=plot)
