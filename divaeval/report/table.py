"""A rich table for people: runs (and topics with ``-q``) by measures.

Colour only when writing to a terminal; ``NO_COLOR`` disables it (rich's own rules).
"""

from __future__ import annotations

from typing import Any, TextIO


def print_rich(out: TextIO, width: int, *renderables: Any) -> None:
    """Render rich objects as text (colour only if ``out`` is a terminal) and write them to
    ``out``: divaeval writes, so a broken pipe reaches divaeval's handler (rich's own would
    exit 1)."""
    import io

    from rich.console import Console

    is_terminal = bool(getattr(out, "isatty", lambda: False)())
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=is_terminal or None)
    for renderable in renderables:
        console.print(renderable)
    out.write(buffer.getvalue())


def write(evaluation, out: TextIO, options) -> None:
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
                f"mean ({run.mean_count})",
                *(f"{averaged[m]:.{precision}f}" for m in measures),
                style="bold" if options.per_topic else None,
            )
    print_rich(out, max(100, 24 + 12 * len(measures)), table)
    if options.signature:
        print_rich(out, 200, f"[dim]{options.signature}[/dim]")
