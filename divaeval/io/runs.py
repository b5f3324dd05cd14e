"""TREC run files: ``topic Q0 docno rank score tag`` (trec_eval's results format).

Whitespace-separated, at least 6 fields (later fields are ignored), CRLF accepted, blank and
``#`` comment lines skipped, gzip and stdin supported. Topic ids and docnos are strings, kept
exactly as written (``0101`` keeps its leading zero). The score is read as an IEEE double (never
narrowed to float32, unlike trec_eval 9). The rank column is kept as text and only checked when
``--order rank`` uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError
from divaeval.io._text import Source, field_count, missing_field, read_source, read_table

RUN_COLUMNS = "topic Q0 docno rank score tag"


@dataclass
class Run:
    """One parsed run file.

    ``frame`` has columns ``topic``, ``docno``, ``rank`` (str), ``score`` (float64) and ``row``
    (the row number in the file's table, for :meth:`line_of`), in file order.
    """

    name: str
    tag: str
    source: Source
    frame: object  # pandas.DataFrame

    @property
    def path(self) -> str:
        return self.source.name

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)


def _fail_row(source: Source, row: int, message: str) -> DataError:
    return DataError(message, file=source.name, line=source.line_of(row))


def read_run(path: str) -> Run:
    """Parse a TREC run file (``-`` = stdin)."""
    import pandas as pd

    source = read_source(path, what="run")
    try:
        table = read_table(source, min_columns=6, dtypes={4: np.float64})
        scores = table[4].to_numpy(dtype=np.float64)
    except ValueError:
        table = read_table(source, min_columns=6)
        scores = None
    if len(table) == 0:
        raise DataError("run file has no lines", file=source.name)

    short = missing_field(table, 5)
    if short.any():
        row = int(np.flatnonzero(short)[0])
        found = field_count(table, row)
        message = f"expected 6 columns ({RUN_COLUMNS}), found {found}"
        fifth = str(table[4].iat[row]).lower()
        if row == 0 and (found == 4 or (found == 5 and fifth in ("inf", "nav"))):
            message += (
                "; this looks like a qrels file: divaeval takes RUN... QRELS "
                "(qrels last, unlike trec_eval)"
            )
        raise _fail_row(source, row, message)

    if scores is None:
        numeric = pd.to_numeric(table[4], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(np.isnan(numeric) & (table[4].str.lower() != "nan").to_numpy())
        row = int(bad[0]) if len(bad) else 0
        raise _fail_row(source, row, f"score {table[4].iloc[row]!r} is not a number")
    not_finite = ~np.isfinite(scores)
    if not_finite.any():
        row = int(np.flatnonzero(not_finite)[0])
        raise _fail_row(source, row, f"score {str(table[4].iloc[row])!r} is not a finite number")

    frame = pd.DataFrame(
        {
            "topic": table[0].to_numpy(dtype=object),
            "docno": table[2].to_numpy(dtype=object),
            "rank": table[3].to_numpy(dtype=object),
            "score": scores,
            "row": np.arange(len(table), dtype=np.int64),
        }
    )
    tag = str(table[5].iat[0])
    return Run(name=tag, tag=tag, source=source, frame=frame)


def parse_ranks(frame, source: Source) -> np.ndarray:
    """The rank column of ``frame`` (rows of a run) as int64; a non-integer rank is a
    located error."""
    import pandas as pd

    text = frame["rank"]
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(values) | ~text.str.fullmatch(r"[+-]?\d+").to_numpy(dtype=bool)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        row = int(frame["row"].iat[index])
        raise _fail_row(source, row, f"rank {text.iat[index]!r} is not an integer")
    return values.astype(np.int64)
