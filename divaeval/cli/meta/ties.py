"""``divaeval meta ties``: tie probabilities of random rankings (Diaz, Ekstrand & Mitra
§5.3)."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    measure_option,
    output_options,
    samples_option,
    seed_option,
)
from divaeval.errors import UsageError


@click.command("ties")
@click.option(
    "--n",
    "sizes_n",
    multiple=True,
    required=True,
    type=click.IntRange(min=1),
    help="number of items ranked; repeatable",
)
@click.option(
    "--m",
    "sizes_m",
    multiple=True,
    type=click.IntRange(min=1),
    help="number of relevant items; repeatable (not with --worst-case)",
)
@click.option(
    "-k",
    "--cutoff",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="k of the analytic R@k",
)
@measure_option("none: TSE, R@k, RP and LR, exact")
@samples_option("Monte Carlo pairs [default: 1000; 10000 with --worst-case]")
@seed_option()
@click.option(
    "--depth",
    "depths",
    multiple=True,
    type=click.IntRange(min=0),
    help="cut the rankings at this depth and impute the missed relevant items at the bottom "
    "(Diaz et al. §2.2); repeatable; without --m, their Figure 6 (m ~ U(5, 50) per request)",
)
@click.option(
    "--requests",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="requests averaged by --depth without --m (Figure 6)",
)
@click.option(
    "--worst-case",
    is_flag=True,
    help="Diaz et al.'s Table 2: m ~ U(5, 50) per pair; the fraction of pairs tied in the "
    "worst case and each measure's agreement with it [default measures: TSE-ap, R@1000, "
    "Rprec, AP, nDCG over the whole ranking]",
)
@output_options
def ties_command(
    sizes_n,
    sizes_m,
    cutoff,
    measures,
    samples,
    seed,
    depths,
    requests,
    worst_case,
    out,
) -> None:
    """Tie probabilities for two random complete rankings of n items with m relevant (Diaz,
    Ekstrand & Mitra, §5.3): exact for TSE, R@k, R-precision and lexirecall, Monte Carlo
    (seeded) for any measure given with -m; or, with --worst-case, their Table 2."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.ties import ties

    if worst_case and (sizes_m or depths):
        raise UsageError("meta ties: --worst-case draws m ~ U(5, 50); do not give --m or --depth")
    if not worst_case and not sizes_m and not depths:
        raise UsageError("meta ties: give --m M (the number of relevant items) or --depth")
    result = ties(
        list(sizes_n),
        list(sizes_m),
        cutoff=cutoff,
        measures=list(measures),
        samples=samples,
        seed=seed,
        worst_case=worst_case,
        depth=list(depths),
        requests=requests,
    )
    out.result(
        result, key="n", title=result.title, resampled=worst_case or bool(measures) or bool(depths)
    )
