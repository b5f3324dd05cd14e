"""``divaeval meta discriminative-power``: the share of run pairs each metric finds
significant (Sakai 2012)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    analysis_inputs,
    measure_option,
    output_options,
    plot_option,
    resampling_options,
    scores_option,
    settings_options,
)
from divaeval.cli.output import progress_bar
from divaeval.cli.paths import INPUT
from divaeval.settings import JUDGING


@click.command("discriminative-power")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@resampling_options("bootstrap", ("bootstrap", "tukey-hsd"))
@plot_option("the ASL curves")
@click.option(
    "--overlap",
    is_flag=True,
    help="print, for every pair of metrics, the run pairs significant under the first only, "
    "both, and the second only (Sakai 2012, Table 4)",
)
@settings_options(*JUDGING)
@output_options
def discriminative_power_command(
    files,
    measures,
    score_files,
    resampling,
    plot,
    overlap,
    out,
    **options,
) -> None:
    """Share of run pairs each metric finds significant, and the estimated performance
    difference required (Sakai 2012, Figures 3 and 5)."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.power import discriminative_power

    inputs = analysis_inputs(files, score_files, options)
    with progress_bar("resampling each metric") as bar:
        result = discriminative_power(
            **inputs,
            measures=measures,
            **resampling,
            plot=plot,
            progress=None if bar is None else (lambda metric, done, total: bar(done, total)),
        )
    out.table(
        result.overlap if overlap else result.frame,
        key="metric_a" if overlap else "metric",
        signature=result.signature,
        title="significant pairs shared" if overlap else "discriminative power",
        resampled=True,
    )
