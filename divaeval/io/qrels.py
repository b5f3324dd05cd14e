"""Diversity qrels: ``topic subtopic docno grade [inf|nav]``.

- Grades are integers; negative grades (the Web Track's ``-2`` spam label) mean judged and not
  relevant. NTCIREVAL's Dqrels labels ``L0`` … ``L9`` are read as grades 0 … 9, so a Dqrels file
  is a valid qrels file.
- An optional 5th column gives the subtopic's intent type (``inf`` or ``nav``).
- Ad hoc qrels (``topic 0 docno grade``) are single-aspect topics.
- A repeated ``(topic, subtopic, docno)`` is an error naming both lines (ndeval silently
  double-counts such lines in MAP-IA; NTCIREVAL in the global gain).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError
from divaeval.io._text import Source, field_count, missing_field, read_source, read_table

QRELS_COLUMNS = "topic subtopic docno grade [inf|nav]"
INTENT_TYPES = ("inf", "nav")
GRADE_LIMIT = 32767  # grades are stored as int16 in judged rankings


@dataclass
class Qrels:
    """Parsed qrels. ``frame`` columns: topic, subtopic, docno (str), grade (int64),
    type (``inf``/``nav``/``""``) and row (table row, for :meth:`line_of`)."""

    source: Source
    frame: object  # pandas.DataFrame

    @property
    def path(self) -> str:
        return self.source.name

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)

    def topics(self) -> list[str]:
        from divaeval.topics import sort_topics

        return sort_topics(self.frame["topic"].unique())


def _fail(source: Source, row: int, message: str) -> DataError:
    return DataError(message, file=source.name, line=source.line_of(row))


def _parse_grades(source: Source, text) -> np.ndarray:
    import pandas as pd

    values = text.to_numpy(dtype=object)
    ntcir = text.str.match(r"L\d+$").to_numpy(dtype=bool)
    if ntcir.all():
        text = text.str.slice(1)
    elif ntcir.any():
        row = int(np.flatnonzero(~ntcir)[0])
        raise _fail(source, row, f"grade {values[row]!r} mixes with NTCIR-style L<k> grades")
    integral = text.str.fullmatch(r"[+-]?\d+").to_numpy(dtype=bool)
    if not integral.all():
        row = int(np.flatnonzero(~integral)[0])
        raise _fail(source, row, f"grade {values[row]!r} is not an integer")
    grades = pd.to_numeric(text).to_numpy(dtype=np.int64)
    too_big = np.abs(grades) > GRADE_LIMIT
    if too_big.any():
        row = int(np.flatnonzero(too_big)[0])
        raise _fail(
            source, row, f"grade {values[row]!r} is out of range (|grade| <= {GRADE_LIMIT})"
        )
    return grades


def read_qrels(path: str) -> Qrels:
    """Parse a (diversity or ad hoc) qrels file or an NTCIREVAL Dqrels file."""
    import pandas as pd

    source = read_source(path, what="qrels")
    try:  # fast path: the C parser reads integral grades (it also takes 2.0 as 2)
        table = read_table(source, min_columns=5, dtypes={3: np.int64})
        grades = table[3].to_numpy(dtype=np.int64)
    except (ValueError, OverflowError):
        table = read_table(source, min_columns=5)
        grades = None
    if len(table) == 0:
        raise DataError("qrels file has no judgments", file=source.name)

    short = missing_field(table, 3)
    if short.any():
        row = int(np.flatnonzero(short)[0])
        found = field_count(table, row)
        raise _fail(source, row, f"expected 4 or 5 columns ({QRELS_COLUMNS}), found {found}")
    if table.shape[1] > 5:
        long = ~missing_field(table, 5)
        row = int(np.flatnonzero(long)[0])
        found = field_count(table, row)
        message = f"expected 4 or 5 columns ({QRELS_COLUMNS}), found {found}"
        if found == 6 and row == 0:
            message += "; this looks like a run file: divaeval takes RUN... QRELS (qrels last)"
        raise _fail(source, row, message)

    types = np.array(table[4].to_numpy(dtype=object), copy=True)
    types[missing_field(table, 4)] = ""
    typed = types != ""
    if typed.any():
        bad_type = typed & ~np.isin(types, INTENT_TYPES)
        if bad_type.any():
            row = int(np.flatnonzero(bad_type)[0])
            message = f"intent type {types[row]!r} in column 5 is not 'inf' or 'nav'"
            if row == 0 and table.shape[1] > 5:
                message += "; is this a run file?"
            raise _fail(source, row, message)

    if grades is None or (np.abs(grades) > GRADE_LIMIT).any():
        grades = _parse_grades(source, table[3].astype(str))
    frame = pd.DataFrame(
        {
            "topic": table[0].to_numpy(dtype=object),
            "subtopic": table[1].to_numpy(dtype=object),
            "docno": table[2].to_numpy(dtype=object),
            "grade": grades,
            "type": types,
            "row": np.arange(len(table), dtype=np.int64),
        }
    )
    _check_duplicates(source, frame)
    return Qrels(source=source, frame=frame)


def _check_duplicates(source: Source, frame) -> None:
    import pandas as pd

    key = np.zeros(len(frame), dtype=np.int64)
    for column in ("topic", "subtopic", "docno"):
        codes, uniques = pd.factorize(frame[column])
        key = key * max(len(uniques), 1) + codes
    if not pd.Series(key).duplicated().any():
        return
    dup = frame.duplicated(["topic", "subtopic", "docno"], keep=False).to_numpy()
    rows = frame[dup]
    first_key = rows.iloc[0][["topic", "subtopic", "docno"]]
    same = rows[
        (rows["topic"] == first_key["topic"])
        & (rows["subtopic"] == first_key["subtopic"])
        & (rows["docno"] == first_key["docno"])
    ]
    a, b = same.iloc[0], same.iloc[1]
    line_a = source.line_of(a["row"])
    what = f"topic {a['topic']} subtopic {a['subtopic']} docno {a['docno']}"
    if a["grade"] != b["grade"]:
        message = (
            f"conflicting judgments for {what}: grade {b['grade']} here, "
            f"grade {a['grade']} at line {line_a}"
        )
    else:
        message = f"duplicate judgment for {what} (also at line {line_a})"
    raise _fail(source, int(b["row"]), message)
