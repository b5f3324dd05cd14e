"""``divaeval compare RUN... QRELS -m MEASURE``: significance tests between every pair of runs."""

from __future__ import annotations

from functools import partial

import click

from divaeval.cli.options import (
    correction_option,
    judging_options,
    measure_option,
    output_options,
    resampling_options,
    resolve_format,
    score_tables,
    workers_from,
)
from divaeval.cli.output import emit, keyed_frame, write_table, write_text
from divaeval.cli.paths import INPUT


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
@judging_options
@output_options
def compare_command(
    files,
    measures,
    test,
    B,
    seed,
    significance,
    correction,
    which,
    output_format,
    precision,
    output,
    signature,
    **judging,
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
    from divaeval import __version__
    from divaeval.errors import UsageError
    from divaeval.stats import compare_runs
    from divaeval.stats.compare import comparison_to_latex
    from divaeval.stats.significance import DEFAULT_SEED

    fmt = resolve_format(output_format)
    runs_given = files[:-1]
    with workers_from(
        judging["jobs"], judging["scheduler"], runs_given, judging["chunk_size"]
    ) as workers:
        runs, tables = score_tables(files, measures, judging, workers=workers)
        if len(runs) < 2:
            raise UsageError("compare needs at least two runs")
        comparisons = {
            name: compare_runs(
                scores,
                runs,
                test=test,
                B=B,
                seed=DEFAULT_SEED if seed is None else seed,
                alpha=significance,
                correction=correction,
                workers=workers,
            )
            for name, scores in tables.items()
        }
    parts = ["runs", "pairs"] if which is None else [which]
    frames = []
    latex_runs: dict = {}  # measure -> comparison, for one runs x measures LaTeX table
    latex_pairs: list[str] = []
    latex_signatures: list[str] = []
    for name, comparison in comparisons.items():
        sig = f"divaeval {__version__}|compare|measure={name}|{comparison.signature}"
        if fmt == "latex":
            latex_runs[name] = comparison
            latex_signatures.append(sig)
            if "pairs" in parts:
                latex_pairs.append(
                    comparison_to_latex(
                        comparison,
                        table="pairs",
                        precision=4 if precision is None else precision,
                        metric=name,
                    )
                )
            continue
        pairs = comparison.pairs.copy()
        pairs.insert(0, "measure", name)
        if fmt == "table":
            for part in parts:
                frame = comparison.runs.copy() if part == "runs" else pairs
                if part == "runs":
                    frame["beats"] = frame["beats"].map(", ".join)
                write_table(
                    frame,
                    fmt,
                    output,
                    key="run" if part == "runs" else "run_a",
                    precision=precision,
                    signature=sig if part == "pairs" or which else "",
                    show_signature=signature,
                    resampled=True,
                    title=f"{name}: {part}",
                )
            continue
        if which == "runs":
            frame = comparison.runs.copy()
            frame["beats"] = frame["beats"].map(" ".join)
            frame.insert(0, "measure", name)
            frames.append((frame, sig))
        else:
            frames.append((pairs, sig))
    if fmt == "latex":
        from divaeval.stats.tables import comparisons_latex

        texts = []
        if "runs" in parts:
            texts.append(
                comparisons_latex(
                    runs,
                    latex_runs,
                    precision=4 if precision is None else precision,
                    note="superscripts: significantly better than the runs with those numbers "
                    "(the test and correction of the signature)",
                    signature=" ; ".join(latex_signatures),
                )
            )
        emit(partial(write_text, "\n".join([*texts, *latex_pairs])), output)
        return
    if frames:
        import pandas as pd

        frame = pd.concat([f for f, _ in frames], ignore_index=True)
        key = "measure"
        if fmt == "trec_eval":  # lines "column<TAB>measure<TAB>run(s)<TAB>value", each alone
            frame = keyed_frame(frame, ["measure", "run"] if which == "runs" else
                                ["measure", "run_a", "run_b"])  # fmt: skip
            key = "key"
        write_table(
            frame,
            fmt,
            output,
            key=key,
            precision=precision,
            signature=" ; ".join(s for _, s in frames),
            show_signature=signature,
            resampled=True,
        )
