"""``divaeval compare`` and ``divaeval meta ...``: significance tests and meta-evaluation on
the score tables of an evaluation. Every run is scored on every qrels topic (a topic missing
from a run scores 0, as with ``-c``), so that paired tests compare like with like."""

from __future__ import annotations

import sys

import click

from divaeval.cli_options import evaluation_from, judging_options, measure_option
from divaeval.report.frames import TABLE_FORMATS


def _default_format(fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    return "table" if sys.stdout.isatty() else "csv"


def format_option():
    return click.option(
        "-f",
        "--format",
        "output_format",
        type=click.Choice(TABLE_FORMATS),
        default=None,
        help="output format [default: table on a terminal, else csv]",
    )


def output_options(command):
    command = click.option(
        "-o",
        "--output",
        type=str,
        default=None,
        metavar="FILE",
        help="write to FILE instead of stdout",
    )(command)
    command = click.option("--precision", type=click.IntRange(0, 17), default=4, show_default=True)(
        command
    )
    return format_option()(command)


def resampling_options(default_test: str, tests: tuple[str, ...]):
    def decorate(command):
        command = click.option(
            "--alpha",
            "significance",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=0.05,
            show_default=True,
            help="significance level",
        )(command)
        command = click.option(
            "--seed", type=int, default=None, help="random seed (default 42; always reported)"
        )(command)
        command = click.option(
            "-B",
            "--samples",
            "B",
            type=click.IntRange(min=1),
            default=None,
            help="resamples (default: the test's own)",
        )(command)
        return click.option(
            "--test",
            type=click.Choice(tests),
            default=default_test,
            show_default=True,
            help="significance test",
        )(command)

    return decorate


def score_tables(files, measures, judging) -> tuple[list[str], dict]:
    """(run names, measure name -> scores[n_runs, n_topics]) over all qrels topics."""
    from divaeval.aggregate import score_matrix

    result = evaluation_from(files, measures, judging, complete=True)
    table = result.table(per_topic=True, summary=False)
    tables = {}
    runs: list[str] = []
    for measure in result.measures:
        runs, _, matrix = score_matrix(table, measure.name)
        tables[measure.name] = matrix
    return runs, tables


def _write(frame, fmt, output, *, key, precision, signature, title=None):
    from divaeval.cli import _emit
    from divaeval.report.frames import write_frame

    if fmt in ("csv", "tsv", "jsonl", "trec_eval") and signature:
        click.echo(f"divaeval: signature: {signature}", err=True)
    _emit(
        lambda out: write_frame(
            frame, out, fmt, key=key, precision=precision, signature=signature, title=title
        ),
        output,
    )


@click.command("compare")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
@measure_option(required=True)
@resampling_options("ttest", ("ttest", "bootstrap", "randomization", "tukey-hsd"))
@click.option(
    "--correction",
    type=click.Choice(["holm", "bh", "bonferroni", "none"]),
    default=None,
    help="multiple-comparison correction [default: holm; none for "
    "tukey-hsd, which is family-wise already]",
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
    **judging,
) -> None:
    """Compare every pair of RUNs on each measure: mean difference, effect size (d_z),
    confidence interval, p-value and significance after correction; and a per-run table of
    the runs each one significantly beats. Sakai's paired bootstrap (Fig. 2) and randomised
    Tukey HSD (Fig. 4) are available."""
    from divaeval.stats import compare_runs
    from divaeval.stats.compare import comparison_to_latex
    from divaeval.stats.significance import DEFAULT_SEED

    fmt = _default_format(output_format)
    runs, tables = score_tables(files, measures, judging)
    if len(runs) < 2:
        from divaeval.errors import UsageError

        raise UsageError("compare needs at least two runs")
    frames = []
    for name, scores in tables.items():
        comparison = compare_runs(
            scores,
            runs,
            test=test,
            B=B,
            seed=DEFAULT_SEED if seed is None else seed,
            alpha=significance,
            correction=correction,
        )
        signature = f"measure={name}|{comparison.signature}"
        if fmt == "latex":
            parts = ["runs", "pairs"] if which is None else [which]
            text = "\n".join(
                comparison_to_latex(comparison, table=part, precision=precision, metric=name)
                for part in parts
            )
            from divaeval.cli import _emit

            _emit(
                lambda out, text=text: out.write(text if text.endswith("\n") else text + "\n"),
                output,
            )
            continue
        pairs = comparison.pairs.copy()
        pairs.insert(0, "measure", name)
        if fmt == "table":
            for part in ["runs", "pairs"] if which is None else [which]:
                frame = comparison.runs.copy() if part == "runs" else pairs
                if part == "runs":
                    frame["beats"] = frame["beats"].map(", ".join)
                _write(
                    frame,
                    fmt,
                    output,
                    key="run" if part == "runs" else "run_a",
                    precision=precision,
                    signature=signature if part == "pairs" or which else "",
                    title=f"{name}: {part}",
                )
            continue
        if which == "runs":
            frame = comparison.runs.copy()
            frame["beats"] = frame["beats"].map(" ".join)
            frame.insert(0, "measure", name)
            frames.append((frame, signature))
        else:
            frames.append((pairs, signature))
    if frames:
        import pandas as pd

        frame = pd.concat([f for f, _ in frames], ignore_index=True)
        _write(
            frame,
            fmt,
            output,
            key="measure",
            precision=precision,
            signature=" ; ".join(s for _, s in frames),
        )


@click.group("meta")
def meta_group() -> None:
    """Meta-evaluation of metrics on a set of runs: discriminative power, rank correlation,
    intuitiveness, metric unanimity, document selection sensitivity."""


@meta_group.command("discriminative-power")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
@measure_option(required=True)
@resampling_options("bootstrap", ("bootstrap", "tukey-hsd"))
@click.option(
    "--plot",
    type=str,
    default=None,
    metavar="FILE.png",
    help="draw ASL curves (needs matplotlib: pip install 'divaeval[plot]')",
)
@judging_options
@output_options
def discriminative_power_command(
    files, measures, test, B, seed, significance, plot, output_format, precision, output, **judging
) -> None:
    """Share of run pairs each metric finds significant, and the estimated performance
    difference required (Sakai 2012, Figures 3 and 5)."""
    from divaeval.meta import discriminative_power, plot_asl_curves
    from divaeval.stats.significance import DEFAULT_SEED

    fmt = _default_format(output_format)
    runs, tables = score_tables(files, measures, judging)
    progress = None
    if sys.stderr.isatty():

        def progress(metric, done, total):  # noqa: ARG001
            click.echo(f"\rdivaeval: {metric}: {done}/{total}", err=True, nl=done == total)

    result = discriminative_power(
        tables,
        runs,
        test=test,
        B=B,
        seed=DEFAULT_SEED if seed is None else seed,
        alpha=significance,
        progress=progress,
    )
    if plot:
        plot_asl_curves(result, plot)
    _write(
        result.table(),
        fmt,
        output,
        key="metric",
        precision=precision,
        signature=result.signature,
        title="discriminative power",
    )


@meta_group.command("correlation")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
@measure_option(required=True)
@click.option(
    "--matrix",
    type=click.Choice(["tau_b", "tau_a", "tau_ap", "tau_ap_sym"]),
    default=None,
    help="print one coefficient as a metric x metric matrix "
    "(default: a long table with every coefficient)",
)
@judging_options
@output_options
def correlation_command(
    files, measures, matrix, output_format, precision, output, **judging
) -> None:
    """Kendall's tau (tau-b, tau-a) and tau_ap (Yilmaz et al.; and its symmetric version)
    between the system rankings induced by each pair of metrics."""
    from divaeval.meta import rank_correlation_matrix, rank_correlations

    fmt = _default_format(output_format)
    runs, tables = score_tables(files, measures, judging)
    if matrix:
        frame = rank_correlation_matrix(tables, runs, matrix).reset_index(names="metric")
    else:
        frame = rank_correlations(tables, runs)
    _write(
        frame,
        fmt,
        output,
        key="metric" if matrix else "metric_a",
        precision=precision,
        signature=f"runs={len(runs)}|topics=qrels",
        title="rank correlation",
    )


@meta_group.command("intuitiveness")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
@measure_option(required=True)
@click.option(
    "--gold",
    "golds",
    multiple=True,
    required=True,
    metavar="MEASURE",
    help="gold-standard measure (e.g. I-rec@10 or strec@10, EfP@10); one or two",
)
@judging_options
@output_options
def intuitiveness_command(
    files, measures, golds, output_format, precision, output, **judging
) -> None:
    """Sakai's intuitiveness test (2012, Figure 6): for each pair of metrics, of the run pairs
    on which they disagree, how often each agrees with the gold standard(s)."""
    from divaeval.meta import intuitiveness_table
    from divaeval.metrics import parse_measures

    fmt = _default_format(output_format)
    gold_names = [m.name for m in parse_measures(list(golds))]
    runs, tables = score_tables(files, list(measures) + list(golds), judging)
    gold = {name: tables[name] for name in gold_names}
    compared = {m.name: tables[m.name] for m in parse_measures(list(measures))}
    frame = intuitiveness_table(compared, gold, runs)
    _write(
        frame,
        fmt,
        output,
        key="metric_1",
        precision=precision,
        signature=f"gold={'+'.join(gold_names)}|runs={len(runs)}",
        title="intuitiveness",
    )


@meta_group.command("unanimity")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
@measure_option(required=True)
@judging_options
@output_options
def unanimity_command(files, measures, output_format, precision, output, **judging) -> None:
    """Metric Unanimity (Amigó et al. 2018, §6.1): PMI (base 2) between a metric's
    preferences and the unanimous preferences of the other metrics; ties count 0.5."""
    from divaeval.meta import metric_unanimity_table

    fmt = _default_format(output_format)
    runs, tables = score_tables(files, measures, judging)
    _write(
        metric_unanimity_table(tables, runs),
        fmt,
        output,
        key="metric",
        precision=precision,
        signature=f"runs={len(runs)}|pmi=log2",
        title="unanimity",
    )
