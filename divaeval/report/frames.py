"""Writing analysis tables (collection statistics, comparisons, meta-evaluation) in every
output format: one mechanism for every table that is not a score table.

``trec_eval`` prints ``%-22s\\t%s\\t%s`` lines (column, row key, value) for each numeric column;
csv/tsv/jsonl/json print the table as it is; ``table`` prints a rich table (colour only on a
terminal); ``latex`` a tabular environment.
"""

from __future__ import annotations

import json
import math
from typing import TextIO

TABLE_FORMATS = ("trec_eval", "csv", "tsv", "jsonl", "json", "table", "latex")


def _plain(value):
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _text(value, precision: int) -> str:
    value = _plain(value)
    if value is None:
        return "NaN"
    if isinstance(value, float):
        text = f"{value:.{precision}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    return str(value)


def write_frame(
    frame,
    out: TextIO,
    fmt: str,
    *,
    key: str,
    precision: int | None = None,
    signature: str = "",
    title: str | None = None,
) -> None:
    """Write ``frame`` in ``fmt``; ``key`` names the column that identifies a row.

    ``precision``: decimals of every float value, in every format (as ``--precision`` does for
    score tables); ``None`` = the format's own: 4 decimals for trec_eval, table and latex, full
    precision for csv, tsv, jsonl and json."""
    if precision is not None:
        frame = frame.copy()
        for column in frame.columns:
            if frame[column].dtype.kind == "f":
                frame[column] = frame[column].round(precision)
    else:
        precision = 4
    if fmt in ("csv", "tsv"):
        frame.to_csv(
            out, sep="," if fmt == "csv" else "\t", index=False, lineterminator="\n", na_rep="NaN"
        )
        return
    records = [
        {c: _plain(v) for c, v in zip(frame.columns, row, strict=True)}
        for row in frame.itertuples(index=False, name=None)
    ]
    if fmt == "jsonl":
        out.write("".join(json.dumps(r) + "\n" for r in records))
        return
    if fmt == "json":
        json.dump({"signature": signature, "results": records}, out, indent=1)
        out.write("\n")
        return
    if fmt == "trec_eval":
        lines = []
        for record in records:
            for column, value in record.items():
                if column == key:
                    continue
                lines.append(f"{column:<22}\t{record[key]}\t{_text(value, precision)}\n")
        out.write("".join(lines))
        return
    if fmt == "latex":
        columns = list(frame.columns)
        out.write("\\begin{tabular}{" + "l" * len(columns) + "}\n\\toprule\n")
        out.write(" & ".join(c.replace("_", "\\_") for c in columns) + " \\\\\n\\midrule\n")
        for record in records:
            cells = [_text(record[c], precision).replace("_", "\\_") for c in columns]
            out.write(" & ".join(cells) + " \\\\\n")
        out.write("\\bottomrule\n\\end{tabular}\n")
        return
    if fmt == "table":
        from rich.table import Table

        from divaeval.report.table import print_rich

        table = Table(title=title)
        for column in frame.columns:
            table.add_column(str(column), justify="left" if column == key else "right")
        for record in records:
            table.add_row(*(_text(record[c], precision) for c in frame.columns))
        print_rich(out, max(100, 14 * len(frame.columns)), table)
        if signature:
            print_rich(out, 200, f"[dim]{signature}[/dim]")
        return
    raise ValueError(f"unknown table format {fmt!r}")
