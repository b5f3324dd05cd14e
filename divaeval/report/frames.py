"""Writing analysis tables (collection statistics, comparisons, meta-evaluation) in every
output format: one mechanism for every table that is not a score table (and for score tables
in the formats made for people: table, markdown, html).

``trec_eval`` prints ``%-22s\\t%s\\t%s`` lines (column, row key, value) for each numeric column;
csv/tsv/jsonl/json print the table as it is; ``table`` prints a rich table fitted to the
terminal (colour only on a terminal; :mod:`divaeval.report.table`); ``latex`` a tabular
environment; ``markdown`` a pipe table; ``html`` a table in a small HTML page.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from html import escape
from typing import Any, TextIO

import numpy as np

from divaeval.report import TABLE_FORMATS
from divaeval.report.numbers import cell, unsigned_zero
from divaeval.report.table import print_table

__all__ = ["TABLE_FORMATS", "score_frame", "write", "write_frame", "write_frames"]

#: decimals of the formats for people (and trec_eval) when ``--precision`` is not given
DEFAULT_DECIMALS = 4

#: the formats that print a table given as columns without making it a DataFrame
COLUMN_FORMATS = ("csv", "tsv", "jsonl", "json", "trec_eval")

_HTML_HEAD = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>divaeval</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px}
table{border-collapse:collapse;margin:12px 0;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
th.n,td.n{text-align:right}
.signature{color:#666;font-size:12px}
</style></head><body>
"""
_HTML_TAIL = "</body></html>\n"


def _plain(value):
    """A JSON value: a Python number or string, NaN as None, -0.0 as 0.0."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return None if value != value else unsigned_zero(value)
    return value


def numeric_columns(frame) -> list[bool]:
    """Which columns hold numbers (printed right-aligned; bools are not numbers here)."""
    return [frame[column].dtype.kind in "iuf" for column in frame.columns]


def rounded_floats(values: np.ndarray, precision: int) -> np.ndarray:
    """``values`` rounded to ``precision`` decimals (numpy's round, as pandas rounds), except
    where scaling by 10**precision overflows: such a value (beyond about 1e300) has no
    decimals to round and is kept, not turned into inf with a raw numpy warning."""
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = np.round(values, precision)
    return np.where(np.isinf(rounded) & np.isfinite(values), values, rounded)


def _rounded(frame, precision: int | None):
    """``frame`` with every float column rounded to ``precision`` (None: as it is) and its
    negative zeros made zeros."""
    floats = [column for column in frame.columns if frame[column].dtype.kind == "f"]
    if not floats:
        return frame
    frame = frame.copy()
    for column in floats:
        values = frame[column].to_numpy()
        frame[column] = (values if precision is None else rounded_floats(values, precision)) + 0.0
    return frame


def write_frames(
    sections: Sequence[tuple[str | None, Any, str]],
    out: TextIO,
    fmt: str,
    *,
    precision: int | None = None,
    signature: str = "",
) -> None:
    """Several (title, frame, key column) tables in one output: the formats for people
    separate them by a blank line (html: one page), with the signature after the last."""
    if fmt == "html":
        out.write(_HTML_HEAD)
    for number, (title, frame, key) in enumerate(sections):
        last = number == len(sections) - 1
        if number and fmt in ("table", "latex", "markdown"):
            out.write("\n")
        write_frame(
            frame,
            out,
            fmt,
            key=key,
            precision=precision,
            signature=signature if last else "",
            title=title,
        )
    if fmt == "html":
        out.write(_HTML_TAIL)


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

    ``precision``: decimals of every float value, in every format (fixed decimals in the text
    formats: ``0.300``, as trec_eval prints; rounded in JSON); ``None`` = the format's own: 4
    decimals for trec_eval, table, latex, markdown and html, full precision for csv, tsv,
    jsonl and json. Integers print as integers and zero as zero (never ``-0.0``). An html
    table alone is a fragment (:func:`write_frames` makes the page)."""
    if isinstance(frame, dict) and fmt not in COLUMN_FORMATS:
        import pandas as pd  # lazily: only the formats for people make columns a DataFrame

        frame = pd.DataFrame(frame)
    decimals = DEFAULT_DECIMALS if precision is None else precision
    if isinstance(frame, dict):
        columns = _rounded_columns(frame, precision)
        if fmt in ("csv", "tsv"):
            _write_delimited(columns, out, "," if fmt == "csv" else "\t", precision)
            return
        names = list(columns)
        rows: Any = zip(*(_listed(values) for values in columns.values()), strict=True)
    else:
        frame = _rounded(frame, precision)
        if fmt in ("csv", "tsv"):
            _write_csv(frame, out, "," if fmt == "csv" else "\t", precision)
            return
        names = list(frame.columns)
        rows = frame.itertuples(index=False, name=None)
    records = [{c: _plain(v) for c, v in zip(names, row, strict=True)} for row in rows]
    if fmt in ("jsonl", "json", "trec_eval"):
        _write_records(records, out, fmt, key=key, decimals=decimals, signature=signature)
    else:
        _write_for_people(
            frame, records, out, fmt, key=key, decimals=decimals, title=title, signature=signature
        )


def _write_csv(frame, out: TextIO, separator: str, precision: int | None) -> None:
    """A DataFrame as pandas writes it (fixed decimals with ``precision``: 0.300, not 0.3)."""
    if precision is not None:
        frame = frame.copy()
        for column in frame.columns:
            if frame[column].dtype.kind == "f":
                frame[column] = [cell(value, precision) for value in frame[column]]
    frame.to_csv(out, sep=separator, index=False, lineterminator="\n", na_rep="NaN")


def _write_records(
    records: list[dict], out: TextIO, fmt: str, *, key: str, decimals: int, signature: str
) -> None:
    """The rows as jsonl or json objects, or as trec_eval's lines (``column key value``)."""
    if fmt == "jsonl":
        out.write("".join(json.dumps(r) + "\n" for r in records))
    elif fmt == "json":
        json.dump({"signature": signature, "results": records}, out, indent=1)
        out.write("\n")
    else:
        lines = []
        for record in records:
            for column, value in record.items():
                if column == key:
                    continue
                lines.append(f"{column:<22}\t{record[key]}\t{cell(value, decimals)}\n")
        out.write("".join(lines))


def _write_for_people(
    frame,
    records: list[dict],
    out: TextIO,
    fmt: str,
    *,
    key: str,
    decimals: int,
    title: str | None,
    signature: str,
) -> None:
    """The rows as a LaTeX, Markdown or HTML table, or a rich table fitted to the terminal."""
    headers = [str(column) for column in frame.columns]
    rows = [[cell(record[c], decimals) for c in frame.columns] for record in records]
    numeric = numeric_columns(frame)
    if fmt == "latex":
        out.write("\\begin{tabular}{" + "l" * len(headers) + "}\n\\toprule\n")
        out.write(" & ".join(h.replace("_", "\\_") for h in headers) + " \\\\\n\\midrule\n")
        for row in rows:
            out.write(" & ".join(text.replace("_", "\\_") for text in row) + " \\\\\n")
        out.write("\\bottomrule\n\\end{tabular}\n")
    elif fmt == "markdown":
        write_markdown(out, headers, rows, numeric, title=title, signature=signature)
    elif fmt == "html":
        write_html(out, headers, rows, numeric, title=title, signature=signature)
    elif fmt == "table":
        position = frame.columns.get_loc(key) if key in frame.columns else 0
        print_table(
            out,
            headers,
            rows,
            numeric,
            keys=identifying_columns(frame, position),
            title=title,
            signature=signature,
        )
    else:
        raise ValueError(f"unknown table format {fmt!r}")


def _listed(values) -> list:
    """A column's values as Python objects."""
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def _rounded_columns(columns: dict[str, Any], precision: int | None) -> dict[str, Any]:
    """:func:`_rounded` of a table given as columns: float arrays rounded (numpy's round, as
    pandas rounds) and their negative zeros made zeros."""
    return {
        name: (values if precision is None else rounded_floats(values, precision)) + 0.0
        if isinstance(values, np.ndarray) and values.dtype.kind == "f"
        else values
        for name, values in columns.items()
    }


def _write_delimited(columns: dict[str, Any], out: TextIO, sep: str, precision: int | None) -> None:
    """csv or tsv of a table given as columns, byte for byte what pandas' ``to_csv`` writes
    of its DataFrame (the csv module's minimal quoting; NaN and None as ``NaN``): a float
    ``str(numpy.float64)``, or with ``precision`` its fixed decimals."""
    texts = []
    for values in columns.values():
        if isinstance(values, np.ndarray) and values.dtype.kind == "f" and precision is not None:
            texts.append([cell(value, precision) for value in values.tolist()])
        elif isinstance(values, np.ndarray):
            text = values.astype(str).astype(object)
            if values.dtype.kind == "f":
                text[np.isnan(values)] = "NaN"
            texts.append(text.tolist())
        else:
            texts.append(["NaN" if _missing(value) else value for value in values])
    writer = csv.writer(out, delimiter=sep, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(list(columns))
    writer.writerows(zip(*texts, strict=True))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def identifying_columns(frame, key_position: int) -> int:
    """How many leading columns identify a row: those up to the key column, and the text
    columns right after it (compare's measure, run_a, run_b)."""
    count = key_position + 1
    kinds = [frame[column].dtype.kind for column in frame.columns]
    while count < len(kinds) and kinds[count] == "O":
        count += 1
    return count


def _markdown_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|")


def write_markdown(
    out: TextIO,
    headers: list[str],
    rows: list[list[str]],
    numeric: list[bool],
    *,
    title: str | None = None,
    signature: str = "",
) -> None:
    """A pipe table (GitHub-flavoured Markdown), numbers right-aligned; the title in bold
    above it and the signature in a code span below it."""
    lines = [f"**{_markdown_text(title)}**", ""] if title else []
    lines.append("| " + " | ".join(_markdown_text(h) for h in headers) + " |")
    lines.append("|" + "|".join("---:" if n else ":---" for n in numeric) + "|")
    lines.extend("| " + " | ".join(_markdown_text(t) for t in row) + " |" for row in rows)
    if signature:
        lines += ["", f"`{signature}`"]
    out.write("\n".join(lines) + "\n")


def write_html(
    out: TextIO,
    headers: list[str],
    rows: list[list[str]],
    numeric: list[bool],
    *,
    title: str | None = None,
    signature: str = "",
) -> None:
    """An HTML ``<table>`` (numbers right-aligned), its title as the caption, the signature in
    a paragraph below it."""

    def cells(tag: str, texts: list[str]) -> str:
        return "".join(
            f'<{tag} class="n">{escape(t)}</{tag}>' if n else f"<{tag}>{escape(t)}</{tag}>"
            for t, n in zip(texts, numeric, strict=True)
        )

    parts = ["<table>"]
    if title:
        parts.append(f"<caption>{escape(title)}</caption>")
    parts.append(f"<thead><tr>{cells('th', headers)}</tr></thead><tbody>")
    parts.extend(f"<tr>{cells('td', row)}</tr>" for row in rows)
    parts.append("</tbody></table>")
    if signature:
        parts.append(f'<p class="signature"><code>{escape(signature)}</code></p>')
    out.write("\n".join(parts) + "\n")


def score_frame(evaluation, options):
    """The score table as a frame: run, topic (``mean (N)`` for the mean over N topics), one
    column per measure; counts (num_ret, ...) as integers."""
    import pandas as pd  # lazily: the analyses' machine formats print columns without pandas

    measures = evaluation.measures
    rows: list[list[Any]] = []
    for run in evaluation.runs:
        if options.per_topic:
            columns = [run.values[m].tolist() for m in measures]
            for i, topic in enumerate(run.topics.tolist()):
                rows.append([run.name, topic, *(column[i] for column in columns)])
        if options.summary:
            averaged = evaluation.means(run, options.mean)
            rows.append([run.name, f"mean ({run.mean_count})", *(averaged[m] for m in measures)])
    frame = pd.DataFrame(rows, columns=["run", "topic", *(m.name for m in measures)])
    for measure in measures:
        values = frame[measure.name]
        counts = measure.spec.integer and evaluation.risk is None
        if counts and len(values) and values.notna().all():
            frame[measure.name] = values.round().astype("int64")
        elif not len(values):
            frame[measure.name] = values.astype("float64")
    return frame


def write(evaluation, out: TextIO, options) -> None:
    """The score table in ``options.format``: table, markdown or html."""
    write_frames(
        [(None, score_frame(evaluation, options), "topic")],
        out,
        options.format,
        precision=options.precision,
        signature=options.signature,
    )
