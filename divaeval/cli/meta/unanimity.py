"""``divaeval meta unanimity``: Metric Unanimity (Amigó et al. 2018, §6.1, §6.3)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    analysis_inputs,
    measure_option,
    output_options,
    plot_option,
    scores_option,
    seed_option,
    settings_options,
)
from divaeval.cli.paths import INPUT
from divaeval.settings import JUDGING


@click.command("unanimity")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@click.option(
    "--simulate",
    default=None,
    metavar="SCENARIO",
    help="alter runs and qrels at random first (Amigó et al. §6.3, Table 2): shorter, "
    "cutoff50, or grades, weights, lengths=run, lengths=N joined with +",
)
@seed_option()
@plot_option("each metric's unanimity as a bar")
@settings_options(*JUDGING)
@output_options
def unanimity_command(
    files,
    measures,
    score_files,
    simulate,
    seed,
    plot,
    out,
    **options,
) -> None:
    """Metric Unanimity (Amigó et al. 2018, §6.1): PMI (base 2) between a metric's
    preferences and the unanimous preferences of the other metrics; ties count 0.5."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.unanimity import unanimity
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    result = unanimity(
        **analysis_inputs(files, score_files, options),
        measures=measures,
        simulate=simulate,
        seed=seed,
    )
    out.result(result, key="metric", title="unanimity", resampled=simulate is not None, plot=plot)
