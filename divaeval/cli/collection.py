"""``divaeval collection QRELS``: analyses of the judgments alone (Golbus et al. 2013)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    output_options,
    plot_option,
    settings_from,
    settings_options,
)
from divaeval.cli.paths import INPUT


@click.command("collection")
@click.argument("qrels", metavar="QRELS", type=INPUT)
@settings_options("rel_level", help={"rel_level": "minimum grade that counts as relevant"})
@click.option(
    "--cover",
    type=click.Choice(["exact", "greedy"]),
    default="exact",
    show_default=True,
    help="xi: exact minimum set cover or the greedy approximation",
)
@settings_options("dd_exponent")
@click.option(
    "--smr-rank",
    type=click.IntRange(min=1),
    default=None,
    help="subtopic miss rate at this rank (default: xi, Eq. 4)",
)
@settings_options("topics")
@plot_option("each topic's diversity difficulty as a bar")
@output_options
def collection_command(
    qrels,
    cover,
    smr_rank,
    plot,
    out,
    **options,
) -> None:
    """Per-topic collection analysis of QRELS: relevant documents, per-subtopic counts, xi,
    d_max, d_mean, diversity difficulty dd and subtopic miss rate (Golbus et al. 2013); with
    --topics, the subtopics split into informational and navigational (Sakai 2012, Table 1)."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.collection import collection_table
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    result = collection_table(
        qrels, cover=cover, smr_rank=smr_rank, settings=settings_from(options, mean="dd")
    )
    out.result(result, key="topic", plot=plot)
