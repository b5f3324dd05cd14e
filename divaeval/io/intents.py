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
from divaeval.io._text import Source, missing_field, read_source, read_table
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


def read_intents(path: str) -> Intents:
    """Parse an intent-probability file (NTCIREVAL Iprob/DINprob shape)."""
    import pandas as pd

    source = read_source(path, what="intent")
    table = read_table(source, min_columns=4)
    if len(table) == 0:
        raise DataError("intent file has no lines", file=source.name)

    def fail(row: int, message: str) -> DataError:
        return DataError(message, file=source.name, line=source.line_of(row))

    short = missing_field(table, 2)
    if short.any():
        row = int(np.flatnonzero(short)[0])
        raise fail(row, f"expected 3 or 4 columns ({INTENT_COLUMNS})")
    if table.shape[1] > 4 and (~missing_field(table, 4)).any():
        row = int(np.flatnonzero(~missing_field(table, 4))[0])
        raise fail(row, f"expected 3 or 4 columns ({INTENT_COLUMNS})")
    probability = pd.to_numeric(table[2], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(probability) | (probability < 0) | (probability > 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise fail(row, f"probability {table[2].iat[row]!r} is not a number in [0, 1]")
    types = np.array(table[3].to_numpy(dtype=object), copy=True)
    types[missing_field(table, 3)] = ""
    bad_type = (types != "") & ~np.isin(types, INTENT_TYPES)
    if bad_type.any():
        row = int(np.flatnonzero(bad_type)[0])
        raise fail(row, f"intent type {types[row]!r} is not 'inf' or 'nav'")
    frame = pd.DataFrame(
        {
            "topic": table[0].to_numpy(dtype=object),
            "subtopic": table[1].to_numpy(dtype=object),
            "probability": probability,
            "type": types,
            "row": np.arange(len(table), dtype=np.int64),
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
