"""``divaeval [evaluate] RUN... QRELS -m MEASURE ...``: the main job."""

from __future__ import annotations

from functools import partial
from typing import TextIO

import click

from divaeval.cli.options import (
    alpha_option,
    baseline_option,
    measure_option,
    output_file_option,
    plot_option,
    precision_option,
    risk_alpha_option,
    runs_and_qrels,
    samples_option,
    seed_option,
    settings_from,
    settings_options,
    signature_option,
)
from divaeval.cli.output import emit, resolve_format, write_text
from divaeval.cli.paths import INPUT
from divaeval.report import ReportOptions, write_report
from divaeval.settings import AVERAGING, JUDGING

COMMAND_NAME = "evaluate"
SCORE_FORMATS = (
    "trec_eval", "ndeval", "ntcir", "csv", "tsv", "jsonl", "json", "table", "latex", "markdown",
    "html",
)  # fmt: skip
#: formats of the quality gates' report alone (markdown adds the gates to the score table;
#: the other formats print the scores, and the gates' report goes to stderr)
GATE_FORMATS = ("junit", "github")


@click.command(COMMAND_NAME)
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@click.option("-n", "--no-summary", is_flag=True, help="no mean over topics")
@settings_options("complete", *JUDGING, *AVERAGING)
@click.option(
    "-f",
    "--format",
    "output_format",
    default=None,
    type=click.Choice(SCORE_FORMATS + GATE_FORMATS),
    help="output format  [default: -o FILE's extension (.csv .tsv .jsonl .json .tex .md "
    ".html), else trec_eval]; junit and github: the quality gates' report",
)
@baseline_option(
    "risk-sensitive evaluation (ndeval's -baseline): every value becomes the run's minus this "
    "run's, and (1 + A) times that where the run loses; runs are labelled "
    "'RUN (rel to. BASE; rs=1+a; a=A)'"
)
@risk_alpha_option(
    "risk sensitivity 0 <= A <= 1e6 of --baseline (ndeval's -riskAlpha)  [default: 0]"
)
@click.option(
    "--fail-under",
    multiple=True,
    metavar="MEASURE=VALUE",
    help="quality gate, repeatable: exit 4 when a run's mean of MEASURE is below VALUE",
)
@click.option(
    "--fail-if-worse",
    type=INPUT,
    metavar="FILE",
    help="quality gate: exit 4 when a run is significantly worse than the baseline run FILE "
    "on a measure (paired test over topics, Holm-corrected across the measures)",
)
@click.option(
    "--test",
    type=click.Choice(["t", "ttest", "randomization", "bootstrap"]),
    default=None,
    help="--fail-if-worse's test  [default: t, the paired t-test]",
)
@samples_option("--fail-if-worse: resamples of the randomization or bootstrap test")
@seed_option("--fail-if-worse: random seed (default 42)")
@alpha_option("--fail-if-worse's significance level  [default: 0.05]", "alpha", default=None)
@plot_option("the runs x topics heat map of each measure, and its curve over its cutoffs")
@precision_option(default=None)
@output_file_option()
@signature_option()
def evaluate_command(
    files,
    measures,
    per_topic,
    no_summary,
    baseline,
    risk_alpha,
    fail_under,
    fail_if_worse,
    test,
    samples,
    seed,
    alpha,
    plot,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Evaluate RUN files against QRELS (the last file). A file may be '-' (stdin) and
    gzipped; the default measures are ndeval's 21 columns."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.evaluator import evaluate
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    output_format = resolve_format(output_format, output, default="trec_eval", terminal="trec_eval")
    settings = settings_from(options)
    runs, qrels = runs_and_qrels(files)
    gated = bool(fail_under) or fail_if_worse is not None
    _check_gate_options(gated, output_format, baseline, fail_if_worse, test, samples, seed, alpha)
    if gated:
        # the gates (significance tests: scipy) load when asked, not for every main job
        from divaeval.api.gating import gate

        gates = gate(
            runs,
            qrels,
            measures,
            fail_under=list(fail_under),
            fail_if_worse=fail_if_worse,
            test=test or "t",
            samples=samples,
            seed=seed,
            alpha=0.05 if alpha is None else alpha,
            settings=settings,
        )
        result = gates.evaluation
    else:
        gates = None
        result = evaluate(
            runs, qrels, measures, baseline=baseline, risk_alpha=risk_alpha, settings=settings
        )
    if plot:
        result.plot(plot)
    if signature:
        click.echo(result.signature if gates is None else gates.signature, err=True)
    if gates is not None and output_format in GATE_FORMATS:  # the gates' report alone
        report_format = output_format

        def write_gates(out: TextIO) -> None:
            gates.write(report_format, out)

        emit(write_gates, output)
        raise click.exceptions.Exit(gates.exit_code)
    _print_scores(result, gates, output_format, output, per_topic, no_summary, precision)
    if gates is not None:
        if output_format != "markdown":
            click.echo(gates.write("text"), err=True, nl=False)
        raise click.exceptions.Exit(gates.exit_code)


def _check_gate_options(gated, output_format, baseline, fail_if_worse, test, samples, seed, alpha):
    """The gates' options, where they apply."""
    if output_format in GATE_FORMATS and not gated:
        raise click.UsageError(
            f"-f {output_format} reports the quality gates: give --fail-under or --fail-if-worse"
        )
    if gated and baseline is not None:
        raise click.UsageError(
            "--baseline (risk values) and the quality gates do not go together: the gates "
            "judge the runs' own scores"
        )
    given = [name for name, value in (("--test", test), ("-B", samples), ("--seed", seed),
                                      ("--alpha", alpha)) if value is not None]  # fmt: skip
    if given and fail_if_worse is None:
        verb = "applies" if len(given) == 1 else "apply"
        raise click.UsageError(f"{', '.join(given)} {verb} to --fail-if-worse: give it")


def _print_scores(result, gates, output_format, output, per_topic, no_summary, precision):
    """The scores in ``output_format`` (markdown: with the gates' report after them)."""
    if output_format == "latex":  # runs x measures with significance superscripts
        text = result.latex(precision=4 if precision is None else precision)
        emit(partial(write_text, text), output)
        return
    report = ReportOptions(
        format=output_format,
        per_topic=per_topic or output_format == "ndeval",
        summary=not no_summary,
        precision=precision,
        mean=result.settings.mean,
        signature=result.signature,
    )

    def write(out: TextIO) -> None:
        write_report(result.evaluation, out, report)
        if gates is not None and output_format == "markdown":
            out.write("\n")
            gates.write("markdown", out)

    emit(write, output)
