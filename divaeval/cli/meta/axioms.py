"""``divaeval meta axioms``: the formal constraints of Amigó et al. (SIGIR 2018) checked
on measures."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    measure_option,
    output_options,
    seed_option,
)
from divaeval.errors import UsageError


@click.command("axioms")
@measure_option("none: give -m or --table1")
@click.option(
    "--table1",
    is_flag=True,
    help="also check the 20 metrics of Amigó et al.'s Table 1 and print the paper's verdicts "
    "beside divaeval's",
)
@click.option(
    "--constraint",
    "constraints",
    multiple=True,
    metavar="NAME",
    help="Pri, Deep, DeepTh, CloseTh, Conf, AspDiv, Red, MRed, Sat, AspRel; repeatable "
    "[default: all ten]",
)
@seed_option()
@click.option(
    "--cases",
    type=click.IntRange(min=0),
    default=400,
    show_default=True,
    help="seeded random cases per constraint (besides the enumerated small ones)",
)
@click.option(
    "--max-length",
    type=click.IntRange(min=2),
    default=20,
    show_default=True,
    help="longest ranking searched",
)
@click.option(
    "--top-grade",
    type=click.IntRange(4, 16),
    default=10,
    show_default=True,
    help="the aspects' top grade: ranked grades 1-3 are low against it (r << 1)",
)
@output_options
def axioms_command(
    measures,
    table1,
    constraints,
    seed,
    cases,
    max_length,
    top_grade,
    out,
) -> None:
    """The ten formal constraints of Amigó et al. (SIGIR 2018, Eqs. 1-10) checked on each
    measure: a measure x constraint matrix (● satisfied, ○ not), a counterexample (qrels, both
    rankings, both scores) for every ○, and the search space of each check. Universal
    constraints are tested on enumerated and seeded random cases, DeepTh, CloseTh and Sat by
    bounded search."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.meta.axioms import axioms

    fmt = out.format
    if not measures and not table1:
        raise UsageError("meta axioms: give -m MEASURE (repeatable) or --table1")
    result = axioms(
        list(measures),
        table1=table1,
        constraint=list(constraints),
        seed=seed,
        cases=cases,
        max_length=max_length,
        top_grade=top_grade,
    )
    report, sig = result.report, result.signature
    if fmt in ("jsonl", "json", "csv", "tsv"):
        frame = report.frame(flat=fmt in ("csv", "tsv"))
        out.table(frame, key="measure", signature=sig, resampled=True)
        return
    sections = [
        (
            "axioms (● satisfied, ○ not)",
            result.verdicts(symbols=fmt != "trec_eval"),
            "measure",
        )
    ]
    if fmt == "table":
        examples = result.counterexamples
        if len(examples):
            sections.append(("counterexamples (topic q)", examples, "measure"))
        sections.append(("search spaces", result.spaces, "constraint"))
    out.tables(sections, signature=sig, resampled=True)
