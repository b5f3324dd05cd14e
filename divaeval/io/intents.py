"""Intent-probability files and TREC Web Track topic files.

- ``--intents FILE``: ``topic subtopic probability [inf|nav]`` per line, NTCIREVAL's Iprob /
  DINprob shape (so ``x.DINprob`` and ``x.Iprob`` files are read directly).
- ``--topics FILE``: TREC Web Track XML topics; subtopic types come from
  ``<subtopic number=".." type="inf|nav">`` (no ``type``: untyped). The official 2011 file has
  the typos ``inv`` and ``inav``; they are reported and read as ``inf``. A subtopic listed twice
  for one topic is an error naming both lines; so is XML that is not well-formed or declares an
  encoding Python cannot decode. The XML is parsed as it is read (expat), in bounded memory.

Both give :class:`Intents`: numpy arrays of (topic, subtopic, type, line), and the
probabilities of an intent file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import DataError, clip, shown, warn
from divaeval.io._numbers import parse_floats
from divaeval.io._text import Source, display_name, padded_pieces, text_column, text_pieces
from divaeval.io._tokens import Fields, split_pieces
from divaeval.io._words import decode, factorize_with_keys
from divaeval.io.qrels import INTENT_TYPES

if TYPE_CHECKING:
    import xml.parsers.expat

INTENT_COLUMNS = "topic subtopic probability [inf|nav]"


@dataclass(eq=False)
class Intents:
    """Parsed intents, one entry per (topic, subtopic): from an intent file (with
    ``probability``) or a topics XML file (``probability`` None). ``type`` is ``inf``,
    ``nav`` or ``""`` (untyped); ``line_of(k)`` the line of entry ``k``."""

    source: Source
    topic: np.ndarray  # [K] str (object)
    subtopic: np.ndarray  # [K] str (object)
    type: np.ndarray  # [K] str (object): "inf", "nav" or ""
    probability: np.ndarray | None = None  # [K] float64 (an intent file)
    lines: np.ndarray | None = None  # [K] int64: the line of each entry (a topics file)
    _frame: object = field(default=None, repr=False)

    def line_of(self, row: int) -> int:
        if self.lines is not None:
            return int(self.lines[row])
        return self.source.line_of(row)

    def __len__(self) -> int:
        return len(self.topic)

    @property
    def frame(self):
        """pandas DataFrame: topic, subtopic (str), probability (float64, an intent file), type
        (``inf``/``nav``/``""``), and row (an intent file) or line (a topics file)."""
        if self._frame is None:
            import pandas as pd  # (not at the top: only frames built on request need pandas)

            columns = {"topic": text_column(self.topic), "subtopic": text_column(self.subtopic)}
            if self.probability is not None:
                columns["probability"] = self.probability
            columns["type"] = text_column(self.type)
            if self.lines is None:
                columns["row"] = np.arange(len(self), dtype=np.int64)
            else:
                columns["line"] = self.lines
            self._frame = pd.DataFrame(columns)
            self._frame.attrs["source"] = self.source.name  # named in messages
        return self._frame


def read_intents(path: str, *, text: str | bytes | None = None) -> Intents:
    """Parse an intent-probability file (NTCIREVAL Iprob/DINprob shape; ``text``: its content in
    memory, named ``path``)."""
    pieces = padded_pieces(path, what="intent", text=text)
    return intents_of(display_name(path), Fields.joined(list(split_pieces(pieces, (0, 1, 2, 3)))))


def intents_of(name: str, fields: Fields) -> Intents:
    """The :class:`Intents` of the rows ``fields`` (fields 0-3) of the intent file ``name``,
    checked."""
    source = Source(name, fields.lines)
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
    repeated = _repeated_pair(fields)
    topics, subtopics = decode(fields.columns[0]), decode(fields.columns[1])
    if repeated is not None:
        raise fail(
            repeated,
            f"intent {clip(subtopics[repeated])} of topic {clip(topics[repeated])} is listed twice",
        )
    return Intents(source, topics, subtopics, types, probability=probability)


def _repeated_pair(fields: Fields) -> int | None:
    """The first row whose (topic, subtopic) an earlier row holds, or None."""
    topic_codes, _, _ = factorize_with_keys(fields.columns[0])
    subtopic_codes, subtopic_words, _ = factorize_with_keys(fields.columns[1])
    pair = topic_codes * max(len(subtopic_words), 1) + subtopic_codes
    _, first = np.unique(pair, return_index=True)
    seen_before = np.ones(len(pair), dtype=bool)
    seen_before[first] = False
    return int(np.argmax(seen_before)) if seen_before.any() else None


_TYPE_TYPOS = {"inv": "inf", "inav": "inf"}


@dataclass(eq=False, repr=False)
class _TopicsXml:
    """The state of one topics XML parse (see :func:`read_topic_types`)."""

    name: str
    parser: xml.parsers.expat.XMLParserType
    records: list[tuple[str, str, str, int]] = field(default_factory=list)
    seen: dict[tuple[str, str], int] = field(default_factory=dict)  # -> index in records
    open_topics: list[str] = field(default_factory=list)

    def fail(self, message: str) -> DataError:
        return DataError(message, file=self.name, line=self.parser.CurrentLineNumber)

    def start(self, name: str, attributes: dict[str, str]) -> None:
        if name == "topic":
            number = (attributes.get("number") or "").strip()
            if not number:
                raise self.fail("<topic> without a number attribute")
            self.open_topics.append(number)
        elif name == "subtopic":
            self.subtopic(attributes)

    def subtopic(self, attributes: dict[str, str]) -> None:
        line = self.parser.CurrentLineNumber
        number = (attributes.get("number") or "").strip()
        if not self.open_topics:
            warn("<subtopic> outside a <topic> ignored", file=self.name, line=line)
            return
        topic = self.open_topics[-1]
        if not number:
            raise self.fail(f"<subtopic> of topic {clip(topic)} without a number attribute")
        kind = (attributes.get("type") or "").strip()
        if kind and kind not in INTENT_TYPES:
            warn(
                f"topic {clip(topic)} subtopic {clip(number)}: unknown subtopic type "
                f"{shown(kind)}, read as 'inf'",
                file=self.name,
                line=line,
            )
            kind = "inf"
        earlier = self.seen.get((topic, number))
        if earlier is not None:
            _, _, earlier_kind, earlier_line = self.records[earlier]
            what = f"topic {clip(topic)} subtopic {clip(number)}"
            if kind != earlier_kind:
                raise self.fail(
                    f"conflicting types for {what}: {kind or 'none'} here, "
                    f"{earlier_kind or 'none'} at line {earlier_line}"
                )
            raise self.fail(f"{what} is listed twice (also at line {earlier_line})")
        self.seen[(topic, number)] = len(self.records)
        self.records.append((topic, number, kind, line))

    def end(self, name: str) -> None:
        if name == "topic":
            self.open_topics.pop()


def read_topic_types(path: str, *, text: str | bytes | None = None):
    """Subtopic intent types from a TREC Web Track topics XML file: a DataFrame with columns
    topic, subtopic, type (``inf``, ``nav``, or ``""`` when the element has no ``type``) and
    line (of the ``<subtopic>`` element); ``attrs["source"]`` names the file
    (:func:`parse_topic_types` gives them as :class:`Intents`)."""
    return parse_topic_types(path, text=text).frame


def parse_topic_types(path: str, *, text: str | bytes | None = None) -> Intents:
    """Subtopic intent types from a TREC Web Track topics XML file, as :class:`Intents` (no
    probabilities; ``lines``: the line of each ``<subtopic>`` element).

    Unknown types are reported and read as ``inf`` (the official 2011 file's ``inv`` and
    ``inav`` typos). A ``<subtopic>`` belongs to the innermost enclosing ``<topic>``; one
    outside every topic is reported and ignored. ``text``: the file's content, given in
    memory (``path`` then only names it)."""
    import xml.parsers.expat  # --topics only: not on the main job's start-up

    name = display_name(path)
    state = _TopicsXml(name, xml.parsers.expat.ParserCreate())
    state.parser.StartElementHandler = state.start
    state.parser.EndElementHandler = state.end
    try:
        for piece in text_pieces(path, what="topics", text=text, line_limit=False):
            state.parser.Parse(piece, False)
        state.parser.Parse(b"", True)
    except xml.parsers.expat.ExpatError as exc:
        message = xml.parsers.expat.ErrorString(exc.code)
        raise DataError(
            f"not well-formed topic XML: {message}", file=name, line=exc.lineno
        ) from None
    except (LookupError, ValueError) as exc:  # an encoding Python lacks or cannot use here
        raise DataError(
            f"cannot decode the topic XML: {clip(str(exc), 200)}", file=name, line=1
        ) from None
    if not state.records:
        raise DataError("no <topic>/<subtopic> elements found", file=name)
    topic, subtopic, kind, line = (
        np.array(column, dtype=object) for column in zip(*state.records, strict=True)
    )
    return Intents(Source(name), topic, subtopic, kind, lines=line.astype(np.int64))
