"""Command line: ``divaeval RUN... QRELS -m MEASURE ...`` and subcommands.

The CLI is thin: it parses options, calls :mod:`divaeval.api`, and hands the result to a report
writer. Every user error is one line on stderr, ``divaeval: FILE:LINE: message``, with exit
code 2 for usage errors and 1 for bad data; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from divaeval import __version__
from divaeval.cli_options import evaluation_from, judging_options, measure_option

MAIN_COMMAND = "evaluate"


class DefaultCommandGroup(click.Group):
    """A group whose first argument, when it is not a subcommand, goes to ``evaluate``:
    ``divaeval run.txt qrels.txt`` = ``divaeval evaluate run.txt qrels.txt``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = [MAIN_COMMAND, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx, formatter):
        formatter.write_usage("divaeval", "[OPTIONS] RUN... QRELS  |  divaeval COMMAND ...")


@click.group(
    cls=DefaultCommandGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=False,
)
@click.version_option(__version__, "--version", prog_name="divaeval")
def cli() -> None:
    """Evaluate search-result diversification runs (ndeval, NTCIREVAL, RBU, lexicographic
    metrics, reproduced exactly) and compare runs and metrics.

    \b
    Main job:   divaeval RUN... QRELS -m MEASURE [-m MEASURE ...]
    Example:    divaeval run.txt qrels.txt -m rbu -m alpha-ndcg@5,10,20 -q
    Measures:   divaeval metrics
    """


@cli.command(MAIN_COMMAND)
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
@measure_option()
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@click.option("-n", "--no-summary", is_flag=True, help="no mean over topics")
@click.option(
    "-c",
    "--complete",
    is_flag=True,
    help="average over all qrels topics; topics missing from a run count as 0",
)
@judging_options
@click.option(
    "--mean",
    type=click.Choice(["arith", "geom", "dd"]),
    default="arith",
    show_default=True,
    help="topic average: arithmetic, geometric (gm_map), or weighted by 1 - diversity difficulty",
)
@click.option(
    "-f",
    "--format",
    "output_format",
    default="trec_eval",
    show_default=True,
    type=click.Choice(["trec_eval", "ndeval", "ntcir", "csv", "tsv", "jsonl", "json", "table"]),
    help="output format",
)
@click.option(
    "--precision",
    type=click.IntRange(0, 17),
    default=None,
    help="decimals printed (default: the format's own)",
)
@click.option(
    "-o", "--output", type=str, default=None, metavar="FILE", help="write to FILE instead of stdout"
)
@click.option("--signature", is_flag=True, help="print the settings signature on stderr")
def evaluate_command(
    files,
    measures,
    per_topic,
    no_summary,
    complete,
    mean,
    output_format,
    precision,
    output,
    signature,
    **judging,
) -> None:
    """Evaluate RUN files against QRELS (the last file). A file may be '-' (stdin) and
    gzipped; the default measures are ndeval's 21 columns."""
    from divaeval.report import ReportOptions, write_report

    result = evaluation_from(files, measures, judging, complete=complete)
    sig = _signature(result, mean)
    options = ReportOptions(
        format=output_format,
        per_topic=per_topic or output_format == "ndeval",
        summary=not no_summary,
        precision=precision,
        mean=mean,
        signature=sig,
    )
    if signature:
        click.echo(sig, err=True)
    _emit(lambda out: write_report(result, out, options), output)


def _signature(result, mean: str) -> str:
    measures = ",".join(m.name for m in result.measures)
    return f"divaeval {__version__}|{result.settings.signature()}|mean={mean}|measures={measures}"


def _emit(writer, output: str | None) -> None:
    if output is None:
        writer(sys.stdout)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            writer(handle)
    except OSError as exc:
        from divaeval.errors import DataError

        raise DataError(f"cannot write output: {exc.strerror}", file=output) from None


@cli.command("metrics")
@click.option(
    "-f",
    "--format",
    "output_format",
    type=click.Choice(["text", "jsonl"]),
    default="text",
    show_default=True,
)
def metrics_command(output_format: str) -> None:
    """List every metric: name, aliases, parameters, cutoffs, definition and source."""
    import json

    from divaeval.metrics import all_specs
    from divaeval.metrics.registry import presets
    from divaeval.metrics.spec import format_value

    specs = all_specs()
    if output_format == "jsonl":
        for spec in specs:
            click.echo(
                json.dumps(
                    {
                        "name": spec.name,
                        "family": spec.family,
                        "aliases": list(spec.aliases),
                        "params": {p.name: p.default for p in spec.params},
                        "cutoff": spec.cutoff,
                        "default_cutoffs": list(spec.default_cutoffs),
                        "summary": spec.summary,
                        "reference": spec.reference,
                        "notes": spec.notes,
                    }
                )
            )
        return
    family = None
    for spec in specs:
        if spec.family != family:
            family = spec.family
            click.echo(f"\n[{family}]")
        params = ", ".join(f"{p.name}={format_value(p.default)}" for p in spec.params)
        cut = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
        defaults = ",".join("all" if k is None else str(k) for k in spec.default_cutoffs)
        click.echo(f"  {spec.name}{f'({params})' if params else ''}{cut}")
        click.echo(f"      {spec.summary}")
        if spec.aliases:
            click.echo(f"      aliases: {', '.join(spec.aliases)}")
        if spec.cutoff != "none":
            click.echo(f"      default cutoffs: {defaults}")
        for param in spec.params:
            click.echo(f"      {param.name} (default {format_value(param.default)}): {param.help}")
        click.echo(f"      follows: {spec.reference}")
        if spec.notes:
            click.echo(f"      notes: {spec.notes}")
    click.echo("\n[presets]")
    for name, (items, summary) in presets().items():
        click.echo(f"  {name}: {summary}")
        click.echo(f"      = {' '.join(items)}")


def _table_format_option(default: str = "table"):
    from divaeval.report.frames import TABLE_FORMATS

    return click.option(
        "-f",
        "--format",
        "output_format",
        type=click.Choice(TABLE_FORMATS),
        default=default,
        show_default=True,
        help="output format",
    )


@cli.command("collection")
@click.argument("qrels", metavar="QRELS")
@click.option(
    "-l",
    "--rel-level",
    type=int,
    default=1,
    show_default=True,
    help="minimum grade that counts as relevant",
)
@click.option(
    "--cover",
    type=click.Choice(["exact", "greedy"]),
    default="exact",
    show_default=True,
    help="xi: exact minimum set cover or the greedy approximation",
)
@click.option(
    "--dd-exponent",
    type=click.Choice(["xi", "xi+1"]),
    default="xi",
    show_default=True,
    help="exponent of Eq. 1 (xi+1 reproduces Golbus Tables 1-2)",
)
@click.option(
    "--smr-rank",
    type=click.IntRange(min=1),
    default=None,
    help="subtopic miss rate at this rank (default: xi, Eq. 4)",
)
@_table_format_option("table")
@click.option("--precision", type=click.IntRange(0, 17), default=4, show_default=True)
@click.option("-o", "--output", type=str, default=None, metavar="FILE")
def collection_command(
    qrels, rel_level, cover, dd_exponent, smr_rank, output_format, precision, output
) -> None:
    """Per-topic collection analysis of QRELS: relevant documents, per-subtopic counts, xi,
    d_max, d_mean, diversity difficulty dd and subtopic miss rate (Golbus et al. 2013)."""
    from divaeval.collection import collection_table
    from divaeval.io import read_qrels
    from divaeval.report.frames import write_frame

    frame = read_qrels(qrels).frame
    table = collection_table(
        frame, rel_level=rel_level, cover=cover, dd_exponent=dd_exponent, smr_rank=smr_rank
    )
    signature = (
        f"divaeval {__version__}|collection|rel={rel_level}|cover={cover}|"
        f"dd_exponent={dd_exponent}|smr_rank={smr_rank or 'xi'}"
    )
    _emit(
        lambda out: write_frame(
            table, out, output_format, key="topic", precision=precision, signature=signature
        ),
        output,
    )


def _register_analysis_commands() -> None:
    from divaeval.cli_meta import compare_command, meta_group
    from divaeval.cli_prefer import prefer_command, sensitivity_command

    cli.add_command(compare_command, "compare")
    cli.add_command(prefer_command, "prefer")
    cli.add_command(meta_group, "meta")
    meta_group.add_command(sensitivity_command, "sensitivity")


_register_analysis_commands()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning user errors into one line and an exit code."""
    from divaeval.errors import EXIT_INTERNAL, EXIT_USAGE, DivaevalError

    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    try:
        cli.main(args=args, prog_name="divaeval", standalone_mode=False)
    except DivaevalError as exc:
        if debug:
            raise
        _flush_quietly()
        click.echo(f"divaeval: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message(), err=True)
        return EXIT_USAGE
    except click.ClickException as exc:
        if debug:
            raise
        click.echo(f"divaeval: {exc.format_message()}", err=True)
        return EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except click.exceptions.Abort:
        click.echo("divaeval: interrupted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("divaeval: interrupted", err=True)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # a bug in divaeval, not a user error: still one line
        if debug:
            raise
        click.echo(
            f"divaeval: internal error: {type(exc).__name__}: {exc} "
            "(rerun with --debug for the traceback, and please report it)",
            err=True,
        )
        return EXIT_INTERNAL
    return 0


def _flush_quietly() -> None:
    with contextlib.suppress(BrokenPipeError, ValueError):
        sys.stdout.flush()


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
