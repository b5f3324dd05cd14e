"""In-memory runs and qrels, the Python API's inputs, as the readers' validated objects.

Accepted forms (:class:`MemoryInputs`):

- **runs**: a pandas DataFrame with the run file's columns ``topic, Q0, docno, rank, score,
  tag`` (``Q0``, ``rank`` and ``tag`` optional; ir_measures' and ranx's ``query_id``/``q_id``,
  ``doc_id`` are accepted too; a frame without column names, as ``pandas.read_csv(...,
  header=None)`` gives, is read by position like the file); a pytrec_eval-style dict
  ``{topic: {docno: score}}``; an iterable of ir_measures' ``ScoredDoc(query_id, doc_id, score)``
  (or plain ``(topic, docno, score)`` tuples). A missing rank column is 1, 2, … per topic in
  the given order (what ``order="rank"`` then follows).
- **qrels**: a DataFrame ``topic, subtopic, docno, grade[, type]`` or ad hoc ``topic, docno,
  grade`` (ir_measures' ``relevance`` and ``iteration``, ranx's ``score`` are accepted too); a
  dict ``{topic: {docno: grade}}`` or ``{topic: {subtopic: {docno: grade}}}``; an iterable of
  ir_measures' ``Qrel(query_id, doc_id, relevance[, iteration])`` (``iteration`` is the
  subtopic, as pyndeval reads it). Ad hoc judgments get subtopic ``0``, as in a TREC qrels file.

Every form becomes the fields a file's lines give the readers (one word matrix per field,
:func:`~divaeval.io._words.words_of`, without writing text to split it again), checked by the
file readers' own checks (:func:`~divaeval.io.runs.run_of`, :func:`~divaeval.io.qrels.qrels_of`),
so the messages are the files' own and the numbers are identical; only the location differs,
``run 'bm25': topic 3, docno d7 (row 12)`` instead of ``FILE:LINE``
(:meth:`MemoryInputs.relocate`; ``row`` is the frame's index label or the item's position,
dicts have none). What a file cannot hold is refused first, located the same way: a missing
value, an id that is not a string or integer, an empty id or one with whitespace (a file would
split it), a topic starting with ``#`` (a comment line) or with a byte-order mark (dropped from
a file's start). Numeric scores are taken as the doubles they are: no decimal round trip.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, cast

import numpy as np

from divaeval.errors import DataError, DivaevalError, UsageError, clip, shown, warn
from divaeval.io._forms import (
    ADHOC_SUBTOPIC,
    INTENT_ALIASES,
    INTENT_POSITIONS,
    TOPIC_TYPE_ALIASES,
    TOPIC_TYPE_POSITIONS,
    Columns,
    as_array,
    frame_columns,
    is_frame,
    is_missing,
    is_single_run_dict,
    kind_of,
    qrels_columns,
    run_columns,
    tag_of,
)
from divaeval.io._text import LineMap
from divaeval.io._tokens import BadNumber, Fields, number_field
from divaeval.io._words import words_of
from divaeval.io.intents import Intents, intents_of, read_topic_types
from divaeval.io.qrels import Qrels, qrels_of
from divaeval.io.runs import SCORE_FIELD, TAG_FIELD, Run, read_run, run_of

#: (patterns compiled at first use: in-memory inputs and their messages only)
_NOT_IN_A_TOKEN = r"[ \t\n\r\v\f\x00]"
#: texts are checked joined by _SEPARATOR: an empty text shows as separators side by side or at
#: an end (a separator inside a text only sends the check to the exact, slower path)
_SEPARATOR = "\x01"
_AT_LINE = r"\bat line (\d+)\b"
_LINE_PREFIX = r"^(.*?):(\d+): "


@dataclass(eq=False, repr=False)
class Origin:
    """Where the rows of one in-memory input came from, to name a row in a message."""

    name: str  # the input's name in messages: ``run 'bm25'``, ``qrels``
    ids: dict[str, np.ndarray]  # field -> the rows' values (what describes a row)
    labels: Sequence | None  # row labels (frame index, item number); None for dicts

    def describe(self, row: int) -> str:
        """``topic 3, docno d7 (row 12)``."""
        parts = [f"{field} {clip(str(values[row]))}" for field, values in self.ids.items()]
        label = f" (row {self.labels[row]})" if self.labels is not None else ""
        return ", ".join(parts) + label

    def refer(self, row: int) -> str:
        """A short reference to ``row`` inside a message: ``row 12``, else its description."""
        return f"row {self.labels[row]}" if self.labels is not None else self.describe(row)

    def fail(self, row: int, message: str) -> DataError:
        return DataError(message, file=f"{self.name}: {self.describe(row)}")


def _is_path(data: object) -> bool:
    return isinstance(data, (str, os.PathLike))


class MemoryInputs:
    """Turns the Python API's run and qrels arguments into file paths (read later, as the CLI
    reads them) or :class:`~divaeval.io.Run` / :class:`~divaeval.io.Qrels` objects, and
    remembers where every in-memory row came from, to relocate messages about it."""

    def __init__(self) -> None:
        self.origins: dict[str, Origin] = {}
        self.named: dict[str, Run] = {}  # the runs named here (in memory, or a dict's files)
        self._converted: dict[int, tuple[object, Run]] = {}  # id(data) -> (data, run)

    # -- runs ---------------------------------------------------------------------------------

    def runs(self, runs: object) -> list[str | Run]:
        """Several runs, or one: a path, in-memory data, a list of those, or a dict name ->
        run. Unnamed in-memory runs are named by their tag column, else ``run1``, ``run2``, …
        by position."""
        if isinstance(runs, Mapping) and runs and not is_single_run_dict(runs):
            return [self.run(data, name=_name(name)) for name, data in runs.items()]
        if _is_path(runs) or is_frame(runs) or isinstance(runs, Mapping):
            items: list = [runs]
        elif isinstance(runs, Iterable):
            items = list(runs)
            if items and isinstance(items[0], tuple):  # one run of records
                items = [items]
        else:
            raise UsageError(f"runs: expected a run or a list or dict of runs, got {kind_of(runs)}")
        if not items:
            raise UsageError("runs: no run given")
        converted = [self.run(data, default=f"run{i}") for i, data in enumerate(items, start=1)]
        self._rename_shared(converted)
        return converted

    def run(self, data: object, *, name: str | None = None, default: str = "run1") -> str | Run:
        """One run: a path stays a path (named by its tag when read) unless ``name`` is given;
        in-memory data becomes a :class:`~divaeval.io.Run` named ``name``, else by its tag
        column, else ``default``."""
        if _is_path(data):
            path = os.fspath(cast(str, data))
            if name is None:
                return path
            run = read_run(path)
            run.name = run.tag = name
            self.named[name] = run
            return run
        seen = self._converted.get(id(data))
        if seen is not None and seen[0] is data and (name is None or seen[1].name == name):
            return seen[1]
        columns = run_columns(data, name or default)
        tag = tag_of(columns, name or default)
        name = name or tag or default
        run = self._read_run(columns, name)
        self._converted[id(data)] = (data, run)
        self.named[name] = run
        return run

    def baseline(self, baseline: object) -> str | Run | None:
        """The ``baseline=`` run: the name of an in-memory run among ``runs`` means that run;
        a path, or in-memory data (the very object given among the runs is that run)."""
        if baseline is None:
            return None
        if isinstance(baseline, str) and baseline in self.named:
            return self.named[baseline]
        return self.run(baseline, default="baseline")

    def _rename_shared(self, runs: list[str | Run]) -> None:
        names = [run.name for run in runs if isinstance(run, Run)]
        shared = {n for n in names if names.count(n) > 1}
        if not shared:
            return
        for position, run in enumerate(runs, start=1):
            if isinstance(run, Run) and run.name in shared:
                run.name = run.tag = f"run{position}"
                self.named[run.name] = run
        warn(f"runs share the name(s) {', '.join(sorted(shared))}; named run1, run2, … instead")

    def _read_run(self, columns: Columns, name: str) -> Run:
        source = f"run {name!r}"
        fields = columns.fields
        n = len(fields["topic"])
        if n == 0:
            raise DataError("the run has no rows", file=source)
        given = Origin(source, _id_fields(fields), columns.labels)
        topic = _id_texts(fields["topic"], "topic", given)
        docno = _id_texts(fields["docno"], "docno", given)
        origin = Origin(source, {"topic": topic, "docno": docno}, columns.labels)
        _check_topics(topic, origin)
        scores, score_texts = _scores(fields["score"], origin)
        if fields.get("rank") is not None:
            rank = _token_texts(fields["rank"], "rank", origin)
        else:
            rank = _decimal(_positions_within(topic))
        if scores is not None:  # numbers, taken as they are
            bad: list[BadNumber] = []
            first_score = "0"
        else:
            scores, bad = number_field(_words(score_texts))
            first_score = score_texts[0]
        self.origins[source] = origin
        rows = Fields(
            row_count=np.full(n, 6, dtype=np.int32),
            columns={0: _words(topic), 2: _words(docno), 3: _words(rank)},
            first_row={SCORE_FIELD: first_score, TAG_FIELD: "run"},
            lines=LineMap.empty(1),  # row i is "line" i + 1 (relocate names the row)
            numbers={SCORE_FIELD: scores},
            bad_numbers={SCORE_FIELD: bad},
        )
        try:
            run = run_of(source, rows)
        except DivaevalError as error:
            raise self.relocate(error) from None
        run.name = run.tag = name
        return run

    # -- qrels --------------------------------------------------------------------------------

    def qrels(self, qrels: object) -> str | Qrels:
        """A qrels path stays a path; in-memory qrels become a :class:`~divaeval.io.Qrels`."""
        if _is_path(qrels):
            return os.fspath(cast(str, qrels))
        source = "qrels"
        columns = qrels_columns(qrels, source)
        fields = columns.fields
        n = len(fields["topic"])
        if n == 0:
            raise DataError("the qrels have no judgments", file=source)
        given = Origin(source, _id_fields(fields), columns.labels)
        ids = {"topic": _id_texts(fields["topic"], "topic", given)}
        adhoc = fields.get("subtopic") is None
        if not adhoc:
            ids["subtopic"] = _id_texts(fields["subtopic"], "subtopic", given)
        ids["docno"] = _id_texts(fields["docno"], "docno", given)
        origin = Origin(source, ids, columns.labels)
        _check_topics(ids["topic"], origin)
        subtopic = [ADHOC_SUBTOPIC] * n if adhoc else ids["subtopic"]
        grades = _token_texts(fields["grade"], "grade", origin)
        rows = _typed_rows([ids["topic"], subtopic, ids["docno"], grades], fields, origin)
        self.origins[source] = origin
        try:
            return qrels_of(source, rows)
        except DivaevalError as error:
            raise self.relocate(error) from None

    # -- intents and topic types ----------------------------------------------------------------

    def intents(self, intents: object) -> str | Intents:
        """A path stays a path; in-memory intent probabilities (a DataFrame ``topic, subtopic,
        probability[, type]``, or ``{topic: {subtopic: probability}}``) become
        :class:`~divaeval.io.intents.Intents`, checked as the file's lines would be."""
        if _is_path(intents):
            return os.fspath(cast(str, intents))
        source = "intents"
        fields, ids, origin = _subtopic_table(
            intents, "intents", source, "probability", INTENT_ALIASES, INTENT_POSITIONS
        )
        probabilities = _token_texts(fields["probability"], "probability", origin)
        rows = _typed_rows([ids["topic"], ids["subtopic"], probabilities], fields, origin)
        self.origins[source] = origin
        try:
            return intents_of(source, rows)
        except DivaevalError as error:
            raise self.relocate(error) from None

    def topic_types(self, types: object) -> Any:
        """A path stays a path; in-memory subtopic types (a DataFrame ``topic, subtopic,
        type``, or ``{topic: {subtopic: type}}``, types ``inf``/``nav``) become the table
        :func:`~divaeval.io.intents.read_topic_types` gives, read as topics XML would be."""
        if _is_path(types):
            return os.fspath(cast(str, types))
        source = "topic types"
        fields, ids, origin = _subtopic_table(
            types, "topics", source, "type", TOPIC_TYPE_ALIASES, TOPIC_TYPE_POSITIONS
        )
        kinds = _types(fields["type"], origin)
        # one <topic> per row and line, so that the XML's line numbers are the rows
        rows = (
            f"<topic number={_attribute(topic)}><subtopic number={_attribute(subtopic)}"
            + (f" type={_attribute(kind)}" if kind else "")
            + "/></topic>"
            for topic, subtopic, kind in zip(ids["topic"], ids["subtopic"], kinds, strict=True)
        )
        self.origins[source] = origin
        try:
            return read_topic_types(
                source, text=_encode("<topics>" + "\n".join(rows) + "</topics>\n")
            )
        except DivaevalError as error:
            raise self.relocate(error) from None

    # -- messages -----------------------------------------------------------------------------

    def relocate(self, error: DivaevalError) -> DivaevalError:
        """``error`` (changed in place) located by topic, docno and row instead of by line
        when it is about an in-memory input; other errors are returned unchanged."""
        origin = self.origins.get(error.file) if error.file is not None else None
        if origin is None or error.line is None:
            return error
        error.file = f"{origin.name}: {origin.describe(error.line - 1)}"
        error.line = None
        error.message = self._refer(origin, error.message)
        error.args = (error.message,)
        return error

    def relocate_message(self, message: str) -> str:
        """A warning's text (``NAME:LINE: …``) relocated as :meth:`relocate` does."""
        match = re.match(_LINE_PREFIX, message)
        if match is None or match.group(1) not in self.origins:
            return message
        origin = self.origins[match.group(1)]
        rest = self._refer(origin, message[match.end() :])
        return f"{origin.name}: {origin.describe(int(match.group(2)) - 1)}: {rest}"

    @staticmethod
    def _refer(origin: Origin, message: str) -> str:
        return re.sub(_AT_LINE, lambda m: f"at {origin.refer(int(m.group(1)) - 1)}", message)


def _name(name: object) -> str:
    if isinstance(name, bool) or not isinstance(name, (str, Integral)):
        raise UsageError(f"runs: a run's name must be a string, got {name!r}")
    text = str(name)
    if not text:
        raise UsageError("runs: a run's name is empty")
    return text


# -- values -----------------------------------------------------------------------------------


def _subtopic_table(
    data: object,
    option: str,
    source: str,
    value: str,
    aliases: Mapping[str, tuple[str, ...]],
    positions: Mapping[str, int],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], Origin]:
    """The fields of an in-memory table of one ``value`` per subtopic (the intents'
    probabilities, the topics' subtopic types): a DataFrame ``topic, subtopic, value[, ...]``
    or ``{topic: {subtopic: value}}``, with at least one row; and the topic and subtopic ids
    as texts, and the origin naming its rows by them. ``option`` names the argument in the
    usage error of any other kind of ``data``."""
    if is_frame(data):
        columns = frame_columns(data, aliases, positions, ("topic", "subtopic", value), source)
    elif isinstance(data, Mapping):
        given_fields: dict[str, list] = {"topic": [], "subtopic": [], value: []}
        for topic, values in data.items():
            if not isinstance(values, Mapping):
                raise DataError(
                    f"expected {{topic: {{subtopic: {value}}}}}, but topic "
                    f"{clip(str(topic))} maps to a {kind_of(values)}",
                    file=source,
                )
            given_fields["topic"].extend([topic] * len(values))
            given_fields["subtopic"].extend(values.keys())
            given_fields[value].extend(values.values())
        columns = Columns(given_fields, None)
    else:
        raise UsageError(f"{option}: expected a path, DataFrame or dict, got {kind_of(data)}")
    fields: dict[str, np.ndarray] = {f: as_array(v) for f, v in columns.fields.items()}
    if len(fields["topic"]) == 0:
        raise DataError(f"the {source} have no rows", file=source)
    given = Origin(source, _id_fields(fields), columns.labels)
    ids = {f: _id_texts(fields[f], f, given) for f in ("topic", "subtopic")}
    return fields, ids, Origin(source, ids, columns.labels)


def _typed_rows(columns: list[Any], fields: dict[str, np.ndarray], origin: Origin) -> Fields:
    """The texts of an in-memory table's ``columns`` as the lines of its file, each ended by
    its subtopic type when ``fields`` have one (a line without a type has one field fewer),
    so that the file's reader checks them; row i is "line" i + 1 (relocate names the row)."""
    n = len(columns[0])
    types = _types(fields["type"], origin) if fields.get("type") is not None else [""] * n
    width = len(columns) + 1
    return Fields(
        row_count=np.where(np.array(types, dtype=object) != "", width, width - 1).astype(np.int32),
        columns={j: _words(texts) for j, texts in enumerate((*columns, types))},
        first_row={},
        lines=LineMap.empty(1),
    )


def _id_fields(fields: dict) -> dict[str, np.ndarray]:
    """The id columns as given, to name a row before its ids are checked."""
    return {f: fields[f] for f in ("topic", "subtopic", "docno") if fields.get(f) is not None}


def _id_texts(array: np.ndarray, field: str, origin: Origin) -> np.ndarray:
    """Ids as text (an object array of ``str``): strings as they are, integers in decimal."""
    kind = array.dtype.kind
    if kind in "iu":
        texts = _decimal(array)
    elif kind == "U":
        texts = array.astype(object)
    elif kind == "O":
        types = set(map(type, array))
        if types <= {str, int}:  # (None, NaN and pandas' NA are not)
            texts = array if types == {str} else np.array(list(map(str, array)), dtype=object)
        else:
            missing = is_missing(array)
            if missing.any():
                row = int(np.argmax(missing))
                raise origin.fail(row, f"{field} is missing")
            texts = np.empty(len(array), dtype=object)
            for row, value in enumerate(array):
                if isinstance(value, str):
                    texts[row] = value
                elif isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)):
                    texts[row] = str(int(value))
                else:
                    raise origin.fail(row, _not_an_id(field, value))
    else:  # floats, booleans, dates: never ids (151.0 would not match the qrels' 151)
        missing = is_missing(array) if kind == "f" else np.zeros(len(array), dtype=bool)
        if missing.any():
            row = int(np.argmax(missing))
            raise origin.fail(row, f"{field} is missing")
        raise origin.fail(0, _not_an_id(field, array[0]))
    _check_tokens(texts, field, origin)
    return texts


def _not_an_id(field: str, value: object) -> str:
    return f"{field} {clip(repr(value))} is a {kind_of(value)}: ids are strings or integers"


def _check_tokens(texts: np.ndarray, field: str, origin: Origin) -> None:
    """Every text is one token of a file: not empty, no whitespace or NUL (one scan of the
    joined texts; the row is looked for only when something is wrong)."""
    joined = _SEPARATOR.join(texts)
    empty = (
        not joined
        or _SEPARATOR * 2 in joined
        or joined.startswith(_SEPARATOR)
        or joined.endswith(_SEPARATOR)
    )
    if not empty and not re.search(_NOT_IN_A_TOKEN, joined):
        return
    for row, text in enumerate(texts):
        if not text:
            raise origin.fail(row, f"{field} is empty")
        if re.search(_NOT_IN_A_TOKEN, text):
            raise origin.fail(
                row,
                f"{field} {shown(text)} contains whitespace (ids are single tokens, as in files)",
            )


def _check_topics(topics: np.ndarray, origin: Origin) -> None:
    """A topic starting with ``#`` would make a comment line of a file, one starting with a
    byte-order mark would lose it (the readers drop a leading one)."""
    bad = ("#", "\ufeff")
    if any(topic.startswith(bad) for topic in set(topics)):
        row = next(i for i, topic in enumerate(topics) if topic.startswith(bad))
        why = "'#' (a comment line in files)" if topics[row][0] == "#" else "a byte-order mark"
        raise origin.fail(row, f"topic {shown(topics[row])} starts with {why}")


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def _token_texts(array: np.ndarray, field: str, origin: Origin) -> np.ndarray:
    """Numbers (ranks, grades) as the text a file would hold, text as it is; the reader judges
    them as it judges a file's (``grade '2.5' is not an integer``)."""
    kind = array.dtype.kind
    if kind in "iub":
        return _decimal(array)
    if kind == "f":
        return np.array([_float_text(value) for value in array.tolist()], dtype=object)
    texts = np.empty(len(array), dtype=object)
    missing = is_missing(array) if kind == "O" else np.zeros(len(array), dtype=bool)
    for row, value in enumerate(array):
        if missing[row]:
            raise origin.fail(row, f"{field} is missing")
        if isinstance(value, str):
            texts[row] = value
        elif isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)):
            texts[row] = str(int(value))
        elif _is_number(value):
            texts[row] = _float_text(float(cast(float, value)))
        else:
            texts[row] = str(value)
    _check_tokens(texts, field, origin)
    return texts


def _float_text(value: float) -> str:
    """A float rank or grade as a file would hold it: ``2`` for 2.0 (the reader takes
    integral decimals as integers, so the first non-integer is the one it names)."""
    return str(int(value)) if value.is_integer() else repr(value)


def _scores(array: np.ndarray, origin: Origin) -> tuple[np.ndarray | None, np.ndarray]:
    """(scores, None) of numbers, taken as float64 as they are; (None, their texts) of text,
    which the reader parses as a file's."""
    if array.dtype.kind == "O":
        types = set(map(type, array))
        if types <= {float, int} or all(map(_is_number, array)):
            array = np.array(array.tolist(), dtype=np.float64)
    if array.dtype.kind not in "iuf":
        return None, _token_texts(array, "score", origin)
    scores = array.astype(np.float64)
    finite = np.isfinite(scores)
    if not finite.all():
        row = int(np.argmax(~finite))
        raise origin.fail(row, f"score {str(scores[row])!r} is not a finite number")
    return scores, np.zeros(0, dtype=object)


def _types(array: np.ndarray, origin: Origin) -> list[str]:
    """Intent types (``inf``/``nav``, checked by the reader), ``""`` where none is given: the
    line then has 4 columns."""
    missing = is_missing(array) if array.dtype.kind in "Of" else np.zeros(len(array), dtype=bool)
    texts = ["" if gone else str(value) for value, gone in zip(array, missing, strict=True)]
    given = np.array([text for text in texts if text], dtype=object)
    if len(given):
        _check_tokens(given, "type", origin)
    return texts


def _positions_within(topics: np.ndarray) -> np.ndarray:
    """1, 2, … within each topic, in the given order (the rank column a run lacks)."""
    _, codes = np.unique(topics.astype(str), return_inverse=True)
    codes = codes.reshape(-1)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    positions = np.empty(len(codes), dtype=np.int64)
    positions[order] = np.arange(len(codes)) - starts + 1
    return positions


def _decimal(integers: np.ndarray) -> np.ndarray:
    """Integers (or booleans) as decimal text, an object array: each distinct value formatted
    once (ranks, grades and topics repeat)."""
    distinct, inverse = np.unique(integers, return_inverse=True)
    texts = np.array(list(map(str, distinct.tolist())), dtype=object)
    return texts[inverse.reshape(-1)]


def _words(texts) -> np.ndarray:
    """The word matrix of texts (ids, ranks, grades, types: single tokens, checked)."""
    return words_of(texts if isinstance(texts, list) else texts.tolist())


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


#: what an XML attribute value in double quotes cannot hold as it is (xml.sax.saxutils'
#: quoteattr would do, but its module imports urllib.request, ssl and email: 15 ms of start-up)
_ATTRIBUTE_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\n": "&#10;",
        "\r": "&#13;",
        "\t": "&#9;",
    }
)


def _attribute(text: str) -> str:
    """``text`` as a double-quoted XML attribute value."""
    return '"' + text.translate(_ATTRIBUTE_ESCAPES) + '"'
