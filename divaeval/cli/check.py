"""``divaeval check RUN...``: the TREC submission checker (:mod:`divaeval.check`)."""

from __future__ import annotations

from typing import TextIO

import click

from divaeval.cli.output import emit
from divaeval.cli.paths import INPUT, OUTPUT

CHECK_FORMATS = ("text", "jsonl", "junit", "github", "markdown")


@click.command("check")
@click.argument("files", nargs=-1, required=True, metavar="RUN...", type=INPUT)
@click.option(
    "--qrels", type=INPUT, metavar="FILE", help="the topic set: the topics of the qrels FILE"
)
@click.option(
    "--topics",
    type=INPUT,
    metavar="FILE",
    help="the topic set: a TREC topics XML file, or a topic id first on each line (151:query)",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="at most N documents per topic (an error beyond)",
)
@click.option(
    "--docno",
    metavar="REGEX",
    default=None,
    help="every docno must match REGEX (Python syntax, whole docno), e.g. 'clueweb09-\\S+'",
)
@click.option(
    "--max-tag-length",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="a longer run tag is a warning",
)
@click.option("--strict", is_flag=True, help="warnings fail too (exit 4)")
@click.option(
    "--max-per-rule",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="findings listed per run and rule (the rest are counted; 0: list all)",
)
@click.option(
    "-f",
    "--format",
    "output_format",
    type=click.Choice(CHECK_FORMATS),
    default="text",
    show_default=True,
    help="report format: text, jsonl, junit (JUnit XML), github (workflow commands), markdown",
)
@click.option(
    "--fix",
    is_flag=True,
    help="write the run normalised to -o FILE (one RUN): ordered by topic and score, ranks "
    "renumbered, repeated docnos, unreadable lines and topics outside the set dropped, one "
    "tag, Q0; the report lists the changes and checks the written run",
)
@click.option(
    "-o",
    "--output",
    type=OUTPUT,
    default=None,
    metavar="FILE",
    help="with --fix: the normalised run; else the report (default stdout)",
)
def check_command(
    files,
    qrels,
    topics,
    depth,
    docno,
    max_tag_length,
    strict,
    max_per_rule,
    output_format,
    fix,
    output,
) -> None:
    """Check TREC run files before submitting them: every rule at once, every problem at its
    line (FILE:LINE: error: ...). Errors: a line without 6 fields, a rank that is not an
    integer, a score that is not a finite number, a docno repeated within a topic, a second
    run tag, a topic outside the topic set (--qrels or --topics) or of the set without
    documents, more than --depth documents. Warnings: ranks and scores that disagree on the
    order (trec_eval follows scores, ndeval ranks), tied scores, a long or odd run tag, a
    second column other than Q0, a docno not matching --docno. Exit 0: clean (warnings
    allowed unless --strict); 4: a check failed; 1: a file cannot be read; 2: usage."""
    if fix and output is None:
        raise click.UsageError("--fix writes the normalised run to -o FILE: give -o")
    # divaeval's library is loaded once the command runs: --help stays free of numpy
    from divaeval.api.checking import check

    result = check(
        files,
        qrels=qrels,
        topics=topics,
        depth=depth,
        docno=docno,
        max_tag_length=max_tag_length,
        max_per_rule=max_per_rule,
        strict=strict,
        fix=output if fix else None,
    )

    def report(out: TextIO) -> None:
        result.write(output_format, out)

    emit(report, None if fix else output)
    raise click.exceptions.Exit(result.exit_code)
