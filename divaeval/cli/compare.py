"""``divaeval compare RUN... QRELS -m MEASURE``: significance tests between every pair of runs."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import click

from divaeval.cli.options import (
    analysis_inputs,
    correction_option,
    measure_option,
    output_options,
    plot_option,
    resampling_options,
    settings_options,
)
from divaeval.cli.output import TableOutput, emit, keyed_frame, write_text
from divaeval.cli.paths import INPUT
from divaeval.settings import JUDGING

if TYPE_CHECKING:
    from divaeval.api.comparison import ComparisonResult


@click.command("compare")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@resampling_options("ttest", ("ttest", "bootstrap", "randomization", "tukey-hsd"))
@correction_option(
    None,
    "multiple-comparison correction [default: holm; none for tukey-hsd, which is family-wise "
    "already]",
)
@click.option(
    "--table",
    "which",
    type=click.Choice(["pairs", "runs"]),
    default=None,
    help="which table to print [default: both for table/latex, pairs otherwise]",
)
@plot_option("each pair's per-topic differences, sorted")
@settings_options(*JUDGING)
@output_options
def compare_command(
    files,
    measures,
    resampling,
    correction,
    which,
    plot,
    out,
    **options,
) -> None:
    """Compare every pair of RUNs on each measure: mean difference, effect size (d_z),
    confidence interval, p-value and significance after correction; and a per-run table of
    the runs each one significantly beats. Sakai's paired bootstrap (Fig. 2) and randomised
    Tukey HSD (Fig. 4) are available.

    \b
    p-values, all two-sided:
      ttest          2*P(T(N-1) >= |t|), Student's t with N-1 degrees of freedom
      bootstrap      count/B, count = #{b: |t*_b| >= |t|} (Sakai's Fig. 2);
                     can be 0
      randomization  count/2^N when exact (N <= 20 topics; the observed signs
                     counted), (count+1)/(B+1) when sampled: never 0
      tukey-hsd      count/B, count = #{b: range_b > |mean_a - mean_b|} (Fig. 4);
                     family-wise, never corrected again; can be 0

    The confidence interval (ci_low_unadjusted, ci_high_unadjusted) is per pair at
    1 - alpha and never adjusted for multiple comparisons: beside tukey-hsd's family-wise
    p-values it is not a simultaneous interval."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.comparison import compare
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    result = compare(
        **analysis_inputs(files, (), options),
        measures=measures,
        **resampling,
        correction=correction,
    )
    if plot:
        result.plot(plot)
    if out.format == "latex":
        _write_latex(result, out, which)
    elif out.format == "table":
        _write_titled_tables(result, out, which)
    else:
        _write_long_table(result, out, which)


def _parts(which: str | None) -> list[str]:
    """The tables ``--table`` asks for (None: the format's default, both)."""
    return ["runs", "pairs"] if which is None else [which]


def _write_latex(result: ComparisonResult, out: TableOutput, which: str | None) -> None:
    """One runs x measures table, then each measure's pairs."""
    text = result.latex(
        runs="runs" in _parts(which),
        pairs="pairs" in _parts(which),
        precision=4 if out.precision is None else out.precision,
    )
    emit(partial(write_text, text), out.file)


def _write_titled_tables(result: ComparisonResult, out: TableOutput, which: str | None) -> None:
    """Each measure's tables (``-f table``), titled."""
    for name, comparison in result.comparisons.items():
        for part in _parts(which):
            if part == "runs":
                frame = comparison.runs.copy()
                frame["beats"] = frame["beats"].map(", ".join)
            else:
                frame = result.pairs[result.pairs["measure"] == name].reset_index(drop=True)
            out.table(
                frame,
                key="run" if part == "runs" else "run_a",
                signature=result.signatures[name] if part == "pairs" or which else "",
                resampled=True,
                title=f"{name}: {part}",
            )


def _write_long_table(result: ComparisonResult, out: TableOutput, which: str | None) -> None:
    """The pairs (or ``--table runs``) of every measure in one table, as columns (the machine
    formats need no pandas); trec_eval's lines ``column<TAB>measure<TAB>run(s)<TAB>value``,
    each alone."""
    if which == "runs":
        frame = {**result.run_columns}
        frame["beats"] = [" ".join(beats) for beats in frame["beats"]]
    else:
        frame = result.pair_columns
    key = "measure"
    if out.format == "trec_eval":
        runs = ["measure", "run"] if which == "runs" else ["measure", "run_a", "run_b"]
        frame, key = keyed_frame(frame, runs), "key"
    out.table(frame, key=key, signature=result.signature, resampled=True)
