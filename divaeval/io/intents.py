"""Intent-probability files and TREC Web Track topic files.

- ``--intents FILE``: ``topic subtopic probability [inf|nav]`` per line, NTCIREVAL's Iprob /
  DINprob shape (so ``x.DINprob`` and ``x.Iprob`` files are read directly).
- ``--topics FILE``: TREC Web Track XML topics; subtopic types come from
  ``<subtopic number=".." type="inf|nav">`` (no ``type``: untyped). The official 2011 file has
  the typos ``inv`` and ``inav``; they are reported and read as ``inf``. A subtopic listed twice
  for one topic is an error naming both lines; so is XML that is not well-formed or declares an
  encoding Python cannot decode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError, clip, shown, warn
from divaeval.io._text import Source, read_source, text_column
from divaeval.io._tokens import decode, parse_floats, split_fields
from divaeval.io.qrels import INTENT_TYPES

INTENT_COLUMNS = "topic subtopic probability [inf|nav]"


@dataclass(eq=False)
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
    source.set_row_lines(fields)
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
        raise fail(row, f"probability {shown(fields.text(2, row))} is not a number in [0, 1]")
    types = decode(fields.columns[3])
    bad_type = (types != "") & ~np.isin(types, INTENT_TYPES)
    if bad_type.any():
        row = int(np.flatnonzero(bad_type)[0])
        raise fail(row, f"intent type {shown(types[row])} is not 'inf' or 'nav'")
    frame = pd.DataFrame(
        {
            "topic": text_column(decode(fields.columns[0])),
            "subtopic": text_column(decode(fields.columns[1])),
            "probability": probability,
            "type": text_column(types),
            "row": np.arange(fields.n_rows, dtype=np.int64),
        }
    )
    dup = frame.duplicated(["topic", "subtopic"]).to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise fail(
            row,
            f"intent {clip(frame['subtopic'].iat[row])} of topic "
            f"{clip(frame['topic'].iat[row])} is listed twice",
        )
    return Intents(source=source, frame=frame)


_TYPE_TYPOS = {"inv": "inf", "inav": "inf"}


def read_topic_types(path: str, *, text: str | bytes | None = None):
    """Subtopic intent types from a TREC Web Track topics XML file.

    Returns a DataFrame with columns topic, subtopic, type (``inf``, ``nav``, or ``""`` when
    the element has no ``type``) and line (of the ``<subtopic>`` element); ``attrs["source"]``
    names the file. Unknown types are reported and read as ``inf`` (the official 2011 file's
    ``inv`` and ``inav`` typos). A ``<subtopic>`` belongs to the innermost enclosing
    ``<topic>``; one outside every topic is reported and ignored. ``text``: the file's content,
    given in memory (``path`` then only names it).
    """
    import xml.parsers.expat

    import pandas as pd

    source = read_source(path, what="topics", text=text, comments=False)
    parser = xml.parsers.expat.ParserCreate()
    records: list[tuple[str, str, str, int]] = []
    seen: dict[tuple[str, str], int] = {}  # (topic, subtopic) -> index in records
    open_topics: list[str] = []

    def fail(message: str) -> DataError:
        return DataError(message, file=source.name, line=parser.CurrentLineNumber)

    def start(name: str, attributes: dict[str, str]) -> None:
        if name == "topic":
            number = (attributes.get("number") or "").strip()
            if not number:
                raise fail("<topic> without a number attribute")
            open_topics.append(number)
        elif name == "subtopic":
            line = parser.CurrentLineNumber
            number = (attributes.get("number") or "").strip()
            if not open_topics:
                warn("<subtopic> outside a <topic> ignored", file=source.name, line=line)
                return
            topic = open_topics[-1]
            if not number:
                raise fail(f"<subtopic> of topic {clip(topic)} without a number attribute")
            kind = (attributes.get("type") or "").strip()
            if kind and kind not in INTENT_TYPES:
                warn(
                    f"topic {clip(topic)} subtopic {clip(number)}: unknown subtopic type "
                    f"{shown(kind)}, read as 'inf'",
                    file=source.name,
                    line=line,
                )
                kind = "inf"
            earlier = seen.get((topic, number))
            if earlier is not None:
                _, _, earlier_kind, earlier_line = records[earlier]
                what = f"topic {clip(topic)} subtopic {clip(number)}"
                if kind != earlier_kind:
                    raise fail(
                        f"conflicting types for {what}: {kind or 'none'} here, "
                        f"{earlier_kind or 'none'} at line {earlier_line}"
                    )
                raise fail(f"{what} is listed twice (also at line {earlier_line})")
            seen[(topic, number)] = len(records)
            records.append((topic, number, kind, line))

    def end(name: str) -> None:
        if name == "topic":
            open_topics.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(source.data, True)
    except xml.parsers.expat.ExpatError as exc:
        message = xml.parsers.expat.ErrorString(exc.code)
        raise DataError(
            f"not well-formed topic XML: {message}", file=source.name, line=exc.lineno
        ) from None
    except (LookupError, ValueError) as exc:  # an encoding Python lacks or cannot use here
        raise DataError(
            f"cannot decode the topic XML: {clip(str(exc), 200)}", file=source.name, line=1
        ) from None
    if not records:
        raise DataError("no <topic>/<subtopic> elements found", file=source.name)
    table = pd.DataFrame(records, columns=["topic", "subtopic", "type", "line"])
    table.attrs["source"] = source.name  # named in messages about these types
    return table
