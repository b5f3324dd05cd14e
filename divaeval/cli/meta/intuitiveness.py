"""``divaeval meta intuitiveness``: Sakai's intuitiveness test (2012, Figure 6)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    analysis_inputs,
    measure_option,
    output_options,
    scores_option,
    settings_options,
)
from divaeval.cli.paths import INPUT
from divaeval.settings import JUDGING


@click.command("intuitiveness")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@click.option(
    "--gold",
    "golds",
    multiple=True,
    required=True,
    metavar="MEASURE",
    help="gold-standard measure (e.g. I-rec@10 or strec@10, EfP@10); one or two",
)
@settings_options(*JUDGING)
@output_options
def intuitiveness_command(files, measures, score_files, golds, out, **options) -> None:
    """Sakai's intuitiveness test (2012, Figure 6): for each pair of metrics, of the run pairs
    on which they disagree, how often each agrees with the gold standard(s)."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.intuitiveness import intuitiveness

    result = intuitiveness(
        **analysis_inputs(files, score_files, options),
        measures=measures,
        gold=list(golds),
    )
    out.result(result, key="metric_1", title="intuitiveness")
