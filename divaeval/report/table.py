"""Tables for people: a rich table fitted to the terminal (``-f table``; the score table in
the formats for people is written by :mod:`divaeval.report.frames`).

A table wider than the terminal (``COLUMNS``, else the terminal's width; a file or a pipe
without ``COLUMNS`` has no limit) is fitted without cutting anything: long column names wrap
at their natural breaks (``ci_low_`` / ``unadjusted``, ``IPrec(`` / ``rounding=v10)@0.1``);
if it is still too wide, it is printed transposed (its columns as rows) when that fits; else
its columns are split into several tables, each repeating the columns that identify a row.
Colour only when writing to a terminal; ``NO_COLOR`` disables it (rich's own rules).
"""

from __future__ import annotations

import os
import re
from typing import Any, TextIO

#: a name breaks after these characters when it wraps
_BREAK = re.compile(r"(?<=[_\-@(,=/ ])")
#: the characters of rich's default box around n columns of widths w: sum(w) + 3n + 1
_BORDER_PER_COLUMN = 3
#: the signature's line width when nothing limits it
_SIGNATURE_WIDTH = 200


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


def terminal_width(out: TextIO) -> int | None:
    """The width to fit tables to: ``COLUMNS`` when set, else the terminal's width when
    ``out`` is a terminal, else None (no limit: a file or a pipe gets the whole table)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if out.isatty():
            return os.get_terminal_size(out.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return None


def wrapped(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, broken after ``_ - @ ( , = /`` or a
    space (a piece longer than ``width`` is cut into lines of ``width``): all of it shown."""
    lines: list[str] = []
    line = ""
    for piece in _BREAK.split(text):
        while len(piece) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len((line + piece).rstrip()) > width:
            lines.append(line.rstrip())
            line = piece
        else:
            line += piece
    if line or not lines:
        lines.append(line.rstrip())
    return "\n".join(lines)


def _longest_piece(text: str) -> int:
    return max((len(piece.rstrip()) for piece in _BREAK.split(text)), default=0)


def _lines_width(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=0)


def _total(widths: list[int]) -> int:
    return sum(widths) + _BORDER_PER_COLUMN * len(widths) + 1


class _Layout:
    """One table to print: headers, rows, alignment, and the width of every column."""

    def __init__(self, headers, rows, numeric, keys, widths=None, title=None):
        self.headers: list[str] = headers
        self.rows: list[list[str]] = rows
        self.numeric: list[bool] = numeric
        self.keys: int = keys
        self.title: str | None = title
        columns = list(zip(*rows, strict=True)) if rows else [() for _ in headers]
        self.natural = [
            max([_lines_width(h), *(_lines_width(t) for t in column)])
            for h, column in zip(headers, columns, strict=True)
        ]
        # the narrowest a column gets: its header wrapped at its breaks and its cells whole
        # (compact); or, as a last resort, text cells wrapped too (minimal)
        self.compact = []
        self.minimal = []
        for number, (header, column) in enumerate(zip(headers, columns, strict=True)):
            whole = number < keys or numeric[number]
            head = _longest_piece(header)
            self.compact.append(max([head, *(_lines_width(t) for t in column)]))
            cells = [_lines_width(t) if whole else _longest_piece(t) for t in column]
            self.minimal.append(max([head, *cells]))
        self.widths: list[int] = widths or self.natural

    def fitted(self, width: int, *, wrap_cells: bool = False) -> _Layout | None:
        """This table within ``width`` (columns widened from their minimum as far as the
        width allows), or None if even the minimum is too wide; text cells are wrapped only
        with ``wrap_cells`` (rows of several lines read worse than a table in two parts)."""
        if _total(self.natural) <= width:
            return self
        least = self.minimal if wrap_cells else self.compact
        if _total(least) > width:
            return None
        widths = list(least)
        # identifiers and numbers whole first (their headers unwrapped), left to right; then
        # the room left shared by the text columns in proportion to what they lack
        whole = [n for n in range(len(widths)) if n < self.keys or self.numeric[n]]
        for number in whole:
            spare = width - _total(widths)
            widths[number] += max(0, min(spare, self.natural[number] - widths[number]))
        text = [n for n in range(len(widths)) if n not in whole]
        lacking = {n: self.natural[n] - widths[n] for n in text}
        spare, wanted = width - _total(widths), sum(lacking.values())
        for number in text:
            if wanted:
                widths[number] += min(lacking[number], spare * lacking[number] // wanted)
        return _Layout(self.headers, self.rows, self.numeric, self.keys, widths, self.title)

    def transposed(self) -> _Layout:
        """Columns as rows: each row's identifying cells (one per line) head a column."""
        label = "\n".join(self.headers[: self.keys])
        headers = [label] + ["\n".join(row[: self.keys]) for row in self.rows]
        rows = [
            [self.headers[c]] + [row[c] for row in self.rows]
            for c in range(self.keys, len(self.headers))
        ]
        numeric = [False] + [True] * len(self.rows)
        return _Layout(headers, rows, numeric, 1, title=self.title)

    def split(self, width: int) -> list[_Layout]:
        """Tables of the identifying columns and as many others as fit in ``width``."""
        keys = list(range(self.keys))
        groups: list[list[int]] = [[]]
        for column in range(self.keys, len(self.headers)):
            trial = [self.compact[c] for c in keys + groups[-1] + [column]]
            if groups[-1] and _total(trial) > width:
                groups.append([])
            groups[-1].append(column)
        tables = []
        for number, group in enumerate(groups, start=1):
            chosen = keys + group
            title = self.title or ""
            title = f"{title} ({number} of {len(groups)})".strip()
            part = _Layout(
                [self.headers[c] for c in chosen],
                [[row[c] for c in chosen] for row in self.rows],
                [self.numeric[c] for c in chosen],
                self.keys,
                title=title,
            )
            tables.append(part.fitted(width) or part.fitted(width, wrap_cells=True) or part)
        return tables


def _fit(layout: _Layout, width: int | None) -> list[_Layout]:
    """The tables that print ``layout`` within ``width`` without cutting any text."""
    if width is None:
        return [layout]
    fitted = layout.fitted(width)
    if fitted is not None:
        return [fitted]
    if layout.keys and layout.rows:
        turned = layout.transposed().fitted(width)
        if turned is not None:
            return [turned]
    return layout.split(width)


def _rich(layout: _Layout):
    from rich.table import Table
    from rich.text import Text

    table = Table(title=layout.title)
    for header, width, numeric, natural in zip(
        layout.headers, layout.widths, layout.numeric, layout.natural, strict=True
    ):
        text = header if width >= natural else wrapped(header, width)
        table.add_column(
            Text(text), justify="right" if numeric else "left", width=width, overflow="fold"
        )
    for row in layout.rows:
        cells = []
        for number, text in enumerate(row):
            whole = number < layout.keys or layout.numeric[number]
            width = layout.widths[number]
            cells.append(Text(text if whole or len(text) <= width else wrapped(text, width)))
        table.add_row(*cells)
    return table


def print_table(
    out: TextIO,
    headers: list[str],
    rows: list[list[str]],
    numeric: list[bool],
    *,
    keys: int = 1,
    title: str | None = None,
    signature: str = "",
) -> None:
    """Print a table of text cells as a rich table fitted to :func:`terminal_width`; the
    first ``keys`` columns identify a row (repeated when the table is split); the signature
    follows in a dim line."""
    from rich.text import Text

    width = terminal_width(out)
    layouts = _fit(_Layout(headers, rows, numeric, keys, title=title), width)
    for number, layout in enumerate(layouts):
        if number:
            out.write("\n")
        needed = _total(layout.widths)
        print_rich(out, max(needed, len(layout.title or "")), _rich(layout))
    if signature:
        width = width or _SIGNATURE_WIDTH  # (folded at the width, not at its one space)
        lines = [signature[start : start + width] for start in range(0, len(signature), width)]
        print_rich(out, width, Text("\n".join(lines), style="dim"))
