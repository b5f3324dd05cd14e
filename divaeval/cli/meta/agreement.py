"""``divaeval meta agreement``: agreement of lexirecall with other metrics (Diaz, Ekstrand
& Mitra)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    measure_option,
    output_options,
    runs_and_qrels,
    settings_from,
    settings_options,
)
from divaeval.cli.paths import INPUT
from divaeval.settings import COMPARING


@click.command("agreement")
@click.argument("files", nargs=-1, metavar="RUN... QRELS", type=INPUT)
@measure_option("R@1000, Rprec, AP, nDCG, RR, nDCG@10, as Diaz et al.")
@settings_options(*COMPARING)
@output_options
def agreement_command(files, measures, out, **options):
    """Agreement of lexirecall with other metrics (Diaz, Ekstrand & Mitra, Figs. 8-10): per
    metric, the share of its decided ranking comparisons on which lexirecall prefers the same
    run, Kendall's tau-b between its ordering of the runs and lexirecall's MC4 ordering, and
    its share of ties [default metrics: R@1000, Rprec, AP, nDCG, RR, nDCG@10]."""
    # divaeval's library is loaded once the command runs: --help stays free of numpy
    from divaeval.api.meta.agreement import agreement

    settings = settings_from(options)
    runs, qrels = runs_and_qrels(files, at_least=2)
    result = agreement(runs, qrels, measures, settings=settings)
    out.result(result, key="measure", title="agreement with lexirecall")
