"""``divaeval meta sensitivity``: document selection sensitivity of the qrels (Golbus et
al. 2013)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    output_options,
    plot_option,
    samples_option,
    seed_option,
    settings_from,
    settings_options,
)
from divaeval.cli.output import progress_bar
from divaeval.cli.paths import INPUT
from divaeval.errors import UsageError


@click.command("sensitivity")
@click.argument("qrels", metavar="QRELS", type=INPUT)
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    required=True,
    metavar="MEASURE",
    help="NAME[(p=v,...)][@k,...]; repeatable; without @k the -k cutoffs apply",
)
@click.option(
    "-k",
    "--cutoff",
    "cutoffs",
    multiple=True,
    type=click.IntRange(min=1),
    help="cutoff for measures given without @k; repeatable [default: 20]",
)
@samples_option(
    "random permutations of each topic's relevant documents",
    minimum=2,
    default=1000,
    aliases=("-L",),
)
@seed_option()
@settings_options(
    "mean",
    "dd_exponent",
    "rel_level",
    "intents",
    "topics",
    help={"rel_level": "relevant iff the document's largest grade >= this"},
)
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@click.option(
    "--grid",
    "grids",
    multiple=True,
    metavar="NAME=START:STOP:STEP,...",
    help="evaluate each measure at every point of a parameter grid (e.g. "
    "alpha=0:1:0.1,lambda=0:1:0.1) on the same sampled lists and report the largest topic "
    "average and its argmax (Golbus Table 10); repeatable",
)
@click.option(
    "--all-points",
    is_flag=True,
    help="with --grid: print the topic average at every grid point (Golbus Figure 7)",
)
@plot_option("the measures x topics grid of dss")
@settings_options("jobs", "scheduler")
@output_options
def sensitivity_command(
    qrels,
    measures,
    cutoffs,
    samples,
    seed,
    per_topic,
    grids,
    all_points,
    plot,
    out,
    **options,
) -> None:
    """Document selection sensitivity of each measure on QRELS (Golbus et al. 2013, §7,
    Eq. 11): per topic, the coefficient of variation of the measure over random permutations
    of the topic's relevant documents, averaged over topics. With --grid, the largest average
    over a grid of the measures' parameters and where it is reached. The seed and the number
    of samples are reported."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.sensitivity import sensitivity
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    settings = settings_from(options)
    if not grids and all_points:
        raise UsageError("--all-points needs --grid")
    if grids and per_topic:
        raise UsageError("-q prints one measure's per-topic values; with --grid use --all-points")
    with progress_bar("sampling rankings of each topic") as progress:
        result = sensitivity(
            qrels,
            measures,
            cutoff=list(cutoffs),
            samples=samples,
            seed=seed,
            grid=list(grids),
            progress=progress,
            settings=settings,
        )
    if plot:  # drawn before the table is printed: a closed pipe cannot lose it
        result.plot(plot)
    if grids:
        frame, key = result.grid(all_points=all_points), "measure"
    elif out.format == "trec_eval":
        frame, key = result.wide(per_topic=per_topic), "topic"
    else:
        frame, key = result.table(per_topic=per_topic), "measure"
    out.table(
        frame,
        key=key,
        signature=result.signature,
        title="document selection sensitivity",
        resampled=True,
    )
