"""``divaeval collection QRELS``: analyses of the judgments alone (Golbus et al. 2013)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    dd_exponent_option,
    output_options,
    rel_level_option,
    resolve_format,
    topics_option,
)
from divaeval.cli.output import write_table
from divaeval.cli.paths import INPUT


@click.command("collection")
@click.argument("qrels", metavar="QRELS", type=INPUT)
@rel_level_option("minimum grade that counts as relevant")
@click.option(
    "--cover",
    type=click.Choice(["exact", "greedy"]),
    default="exact",
    show_default=True,
    help="xi: exact minimum set cover or the greedy approximation",
)
@dd_exponent_option()
@click.option(
    "--smr-rank",
    type=click.IntRange(min=1),
    default=None,
    help="subtopic miss rate at this rank (default: xi, Eq. 4)",
)
@topics_option()
@output_options
def collection_command(
    qrels,
    rel_level,
    cover,
    dd_exponent,
    smr_rank,
    topics_file,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """Per-topic collection analysis of QRELS: relevant documents, per-subtopic counts, xi,
    d_max, d_mean, diversity difficulty dd and subtopic miss rate (Golbus et al. 2013); with
    --topics, the subtopics split into informational and navigational (Sakai 2012, Table 1)."""
    from divaeval import __version__
    from divaeval.collection import collection_table
    from divaeval.io import read_qrels, read_topic_types

    dd_exponent = dd_exponent or "xi"
    frame = read_qrels(qrels).frame
    types = read_topic_types(topics_file) if topics_file else None
    table = collection_table(
        frame,
        rel_level=rel_level,
        cover=cover,
        dd_exponent=dd_exponent,
        smr_rank=smr_rank,
        topic_types=types,
    )
    sig = (
        f"divaeval {__version__}|collection|rel={rel_level}|cover={cover}|"
        f"dd_exponent={dd_exponent}|smr_rank={smr_rank or 'xi'}"
        + ("|intent_types=topics" if types is not None else "")
    )
    write_table(
        table,
        resolve_format(output_format),
        output,
        key="topic",
        precision=precision,
        signature=sig,
        show_signature=signature,
    )
