"""Intent-probability files and TREC Web Track topic files.

- ``--intents FILE``: ``topic subtopic probability [inf|nav]`` per line, NTCIREVAL's Iprob /
  DINprob shape (so ``x.DINprob`` and ``x.Iprob`` files are read directly).
- ``--topics FILE``: TREC Web Track XML topics; subtopic types come from
  ``<subtopic number=".." type="inf|nav">``. The official 2011 file has the typos ``inv`` and
  ``inav``; they are reported and read as ``inf``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError, warn
from divaeval.io._text import Source, read_source
from divaeval.io._tokens import decode, parse_floats, split_fields
from divaeval.io.qrels import INTENT_TYPES

INTENT_COLUMNS = "topic subtopic probability [inf|nav]"


@dataclass
class Intents:
    """Parsed intent file. ``frame`` columns: topic, subtopic (str), probability (float64),
    type (``inf``/``nav``/``""``), row."""

    source: Source
    frame: object  # pandas.DataFrame

    def line_of(self, row: int) -> int:
        return self.source.line_of(row)


def read_intents(path: str, *, text: str | bytes | None = None) -> Intents:
    """Parse an intent-probability file (NTCIREVAL Iprob/DINprob shape; ``text``: its content in
    memory, named ``path``)."""
    import pandas as pd

    source = read_source(path, what="intent", text=text)
    fields = split_fields(source.data, (0, 1, 2, 3))
    source.set_row_lines(fields.row_line)
    if fields.n_rows == 0:
        raise DataError("intent file has no lines", file=source.name)

    def fail(row: int, message: str) -> DataError:
        return DataError(message, file=source.name, line=source.line_of(row))

    bad_count = (fields.row_count < 3) | (fields.row_count > 4)
    if bad_count.any():
        raise fail(int(np.argmax(bad_count)), f"expected 3 or 4 columns ({INTENT_COLUMNS})")
    probability, not_number = parse_floats(fields.columns[2])
    bad = ~np.isfinite(probability) | (probability < 0) | (probability > 1)
    if not_number is not None or bad.any():
        row = not_number if not_number is not None else int(np.argmax(bad))
        raise fail(row, f"probability {fields.text(2, row)!r} is not a number in [0, 1]")
    types = decode(fields.columns[3])
    bad_type = (types != "") & ~np.isin(types, INTENT_TYPES)
    if bad_type.any():
        row = int(np.flatnonzero(bad_type)[0])
        raise fail(row, f"intent type {types[row]!r} is not 'inf' or 'nav'")
    frame = pd.DataFrame(
        {
            "topic": decode(fields.columns[0]),
            "subtopic": decode(fields.columns[1]),
            "probability": probability,
            "type": types,
            "row": np.arange(fields.n_rows, dtype=np.int64),
        }
    )
    dup = frame.duplicated(["topic", "subtopic"]).to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise fail(
            row,
            f"intent {frame['subtopic'].iat[row]} of topic "
            f"{frame['topic'].iat[row]} is listed twice",
        )
    return Intents(source=source, frame=frame)


_TYPE_TYPOS = {"inv": "inf", "inav": "inf"}


def read_topic_types(path: str):
    """Subtopic intent types from a TREC Web Track topics XML file.

    Returns a DataFrame with columns topic, subtopic, type. Unknown types are reported and read
    as ``inf`` (the official 2011 file's ``inv`` and ``inav`` typos).
    """
    import xml.etree.ElementTree as ET

    import pandas as pd

    source = read_source(path, what="topics")
    try:
        root = ET.fromstring(source.data)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise DataError(
            f"not well-formed topic XML: {exc.msg}", file=source.name, line=line
        ) from None
    records = []
    for topic in root.iter("topic"):
        number = topic.get("number")
        if number is None:
            raise DataError("<topic> without a number attribute", file=source.name)
        for sub in topic.iter("subtopic"):
            sub_number = sub.get("number")
            if sub_number is None:
                raise DataError(
                    f"<subtopic> of topic {number} without a number attribute", file=source.name
                )
            kind = (sub.get("type") or "inf").strip()
            if kind not in INTENT_TYPES:
                warn(
                    f"topic {number} subtopic {sub_number}: unknown subtopic type {kind!r}, "
                    "read as 'inf'",
                    file=source.name,
                )
                kind = _TYPE_TYPOS.get(kind, "inf")
            records.append((number.strip(), sub_number.strip(), kind))
    if not records:
        raise DataError("no <topic>/<subtopic> elements found", file=source.name)
    return pd.DataFrame(records, columns=["topic", "subtopic", "type"])
