"""``divaeval meta degradation``: label degradation (Diaz, Ekstrand & Mitra §6.2.4)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    measure_option,
    output_options,
    runs_and_qrels,
    samples_option,
    seed_option,
    settings_from,
    settings_options,
)
from divaeval.cli.paths import INPUT
from divaeval.errors import UsageError
from divaeval.settings import COMPARING


@click.command("degradation")
@click.argument("files", nargs=-1, metavar="RUN... QRELS", type=INPUT)
@measure_option("R@1000, Rprec, AP, nDCG, RR, nDCG@10, as Diaz et al.")
@click.option(
    "--fractions",
    default="0.1,0.3,0.5,0.7,0.9",
    show_default=True,
    metavar="F,...",
    help="shares of each topic's relevant documents to remove (one is always kept)",
)
@click.option(
    "--sampling",
    type=click.Choice(["uniform", "popular"]),
    default="uniform",
    show_default=True,
    help="draw the removed documents uniformly, or weighted by the number of runs retrieving them",
)
@samples_option("samples per fraction [default: 10]")
@seed_option()
@settings_options(*COMPARING)
@output_options
def degradation_command(
    files,
    measures,
    fractions,
    sampling,
    samples,
    seed,
    out,
    **options,
) -> None:
    """Label degradation (Diaz, Ekstrand & Mitra §6.2.4, Figs. 12-13): remove a share of
    every topic's relevant documents, and report per metric and lexirecall the share of tied
    ranking comparisons and the agreement of the decided ones with the complete labels,
    averaged over seeded samples [default metrics: R@1000, Rprec, AP, nDCG, RR, nDCG@10]."""
    # divaeval's library is loaded once the command runs: --help stays free of numpy
    from divaeval.api.meta.degradation import degradation

    settings = settings_from(options)
    runs, qrels = runs_and_qrels(files, at_least=2)
    result = degradation(
        runs,
        qrels,
        measures,
        fractions=_fractions(fractions),
        sampling=sampling,
        samples=samples,
        seed=seed,
        settings=settings,
    )
    out.result(result, key="fraction", title="label degradation", resampled=True)


def _fractions(text: str) -> list[float]:
    """``--fractions``: comma-separated numbers in [0, 1]."""
    values = []
    for piece in text.split(","):
        try:
            value = float(piece)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            raise UsageError(f"--fractions: {piece.strip()!r} is not a number between 0 and 1")
        values.append(value)
    return values
