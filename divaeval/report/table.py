"""A rich table for people: runs (and topics with ``-q``) by measures.

Colour only when writing to a terminal; ``NO_COLOR`` disables it (rich's own rules).
"""

from __future__ import annotations

from typing import TextIO


def write(evaluation, out: TextIO, options) -> None:
    from rich.console import Console
    from rich.table import Table

    precision = 4 if options.precision is None else options.precision
    measures = evaluation.measures
    table = Table(title=None, show_lines=False)
    table.add_column("run", style="bold")
    table.add_column("topic")
    for measure in measures:
        table.add_column(measure.name, justify="right")
    for run in evaluation.runs:
        if options.per_topic:
            for i, topic in enumerate(run.topics.tolist()):
                table.add_row(
                    run.name, topic, *(f"{run.values[m][i]:.{precision}f}" for m in measures)
                )
        if options.summary:
            averaged = evaluation.means(run, options.mean)
            table.add_row(
                run.name,
                f"mean ({len(run.topics)})",
                *(f"{averaged[m]:.{precision}f}" for m in measures),
                style="bold" if options.per_topic else None,
            )
    Console(file=out, width=max(100, 24 + 12 * len(measures))).print(table)
    if options.signature:
        Console(file=out, width=200).print(f"[dim]{options.signature}[/dim]")
