"""The in-memory forms of runs and qrels that the Python API accepts (pandas frames, dicts,
ir_measures' records, tuples), each reduced to columns of values by field (:class:`Columns`),
with the row labels that messages name; :mod:`divaeval.io.memory` turns those into checked
runs and qrels."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.io.qrels import QRELS_COLUMNS
from divaeval.io.runs import RUN_COLUMNS

#: Column names accepted for each field (compared case-insensitively), in order of preference.
RUN_ALIASES = {
    "topic": ("topic", "query_id", "q_id", "qid"),
    "docno": ("docno", "doc_id", "docid"),
    "rank": ("rank",),
    "score": ("score",),
    "tag": ("tag", "run_id", "run"),
}
QRELS_ALIASES = {
    "topic": ("topic", "query_id", "q_id", "qid"),
    "subtopic": ("subtopic", "iteration"),
    "docno": ("docno", "doc_id", "docid"),
    "grade": ("grade", "relevance", "rel", "label", "score"),
    "type": ("type",),
}
#: Fields of a frame without column names, by position (the files' columns).
RUN_POSITIONS = {"topic": 0, "docno": 2, "rank": 3, "score": 4, "tag": 5}
QRELS_POSITIONS = {"topic": 0, "subtopic": 1, "docno": 2, "grade": 3, "type": 4}
INTENT_ALIASES = {
    "topic": ("topic", "query_id", "q_id", "qid"),
    "subtopic": ("subtopic", "iteration", "intent"),
    "probability": ("probability", "prob", "weight"),
    "type": ("type",),
}
INTENT_POSITIONS = {"topic": 0, "subtopic": 1, "probability": 2, "type": 3}
TOPIC_TYPE_ALIASES = {
    "topic": ("topic", "query_id", "q_id", "qid"),
    "subtopic": ("subtopic", "iteration", "intent"),
    "type": ("type",),
}
TOPIC_TYPE_POSITIONS = {"topic": 0, "subtopic": 1, "type": 2}
#: ir_measures' record fields (ScoredDoc, Qrel) and the plain tuples' positions.
RUN_RECORD = {"topic": ("query_id", 0), "docno": ("doc_id", 1), "score": ("score", 2)}
QRELS_RECORD = {
    "topic": ("query_id", 0),
    "docno": ("doc_id", 1),
    "grade": ("relevance", 2),
    "subtopic": ("iteration", 3),
}
ADHOC_SUBTOPIC = "0"


@dataclass(eq=False, repr=False)
class Columns:
    """One input reduced to columns (field -> values) and row labels."""

    fields: dict[str, Any]
    labels: Any  # Sequence of row labels, or None


def is_frame(data: object) -> bool:
    return type(data).__name__ == "DataFrame" and type(data).__module__.startswith("pandas")


def first_value(mapping: Mapping) -> Any:
    return next(iter(mapping.values()))


def kind_of(data: object) -> str:
    return type(data).__name__


def is_single_run_dict(runs: Mapping) -> bool:
    """``{topic: {docno: score}}`` (one run), not ``{name: run}``: the values are dicts whose
    values are scores, not runs (dicts, frames, records or paths)."""
    for value in runs.values():
        if not isinstance(value, Mapping):
            return False
        if value:
            inner = first_value(value)
            return not (
                isinstance(inner, (Mapping, list, tuple, str, os.PathLike)) or is_frame(inner)
            )
    return True


def run_columns(data: object, name: str) -> Columns:
    where = f"run {name!r}"
    if is_frame(data):
        columns = frame_columns(
            data, RUN_ALIASES, RUN_POSITIONS, ("topic", "docno", "score"), where
        )
    elif isinstance(data, Mapping):
        topics: list = []
        docnos: list = []
        scores: list = []
        for topic, documents in data.items():
            if not isinstance(documents, Mapping):
                raise DataError(
                    f"expected {{topic: {{docno: score}}}}, but topic {topic} maps to a "
                    f"{kind_of(documents)}",
                    file=where,
                )
            topics.extend([topic] * len(documents))
            docnos.extend(documents.keys())
            scores.extend(documents.values())
        columns = Columns({"topic": topics, "docno": docnos, "score": scores}, None)
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
        columns = record_columns(list(data), RUN_RECORD, (), where)
    else:
        raise UsageError(f"{where}: expected a DataFrame, dict or records, got {kind_of(data)}")
    columns.fields = {field: as_array(values) for field, values in columns.fields.items()}
    return columns


def qrels_columns(data: object, where: str) -> Columns:
    if is_frame(data):
        columns = frame_columns(
            data, QRELS_ALIASES, QRELS_POSITIONS, ("topic", "docno", "grade"), where
        )
    elif isinstance(data, Mapping):
        fields: dict[str, list] = {"topic": [], "subtopic": [], "docno": [], "grade": []}
        for topic, judged in data.items():
            if not isinstance(judged, Mapping):
                raise DataError(
                    "expected {topic: {docno: grade}} or {topic: {subtopic: {docno: grade}}}, "
                    f"but topic {topic} maps to a {kind_of(judged)}",
                    file=where,
                )
            nested = [isinstance(v, Mapping) for v in judged.values()]
            if any(nested) and not all(nested):
                raise DataError(
                    f"topic {topic} mixes subtopics ({{subtopic: {{docno: grade}}}}) with "
                    "documents ({docno: grade})",
                    file=where,
                )
            groups = judged.items() if any(nested) else [(ADHOC_SUBTOPIC, judged)]
            for subtopic, documents in groups:
                fields["topic"].extend([topic] * len(documents))
                fields["subtopic"].extend([subtopic] * len(documents))
                fields["docno"].extend(documents.keys())
                fields["grade"].extend(documents.values())
        columns = Columns(dict(fields), None)
    elif isinstance(data, Iterable) and not isinstance(data, (str, bytes)):
        columns = record_columns(list(data), QRELS_RECORD, ("subtopic",), where)
    else:
        raise UsageError(f"qrels: expected a path, DataFrame, dict or records, got {kind_of(data)}")
    columns.fields = {field: as_array(values) for field, values in columns.fields.items()}
    return columns


def frame_columns(frame, aliases, positions, required, where: str) -> Columns:
    columns = list(frame.columns)
    found: dict[str, Any] = {}
    if columns and all(isinstance(c, Integral) and not isinstance(c, bool) for c in columns):
        if sorted(columns) != list(range(len(columns))):
            raise DataError(f"columns without names must be 0, 1, 2, …; got {columns}", file=where)
        need = max(positions[f] for f in required) + 1
        if len(columns) < need:
            layout = (
                RUN_COLUMNS
                if "score" in positions
                else QRELS_COLUMNS
                if "grade" in positions
                else " ".join(positions)
            )
            raise DataError(
                f"a frame without column names is read as the file ({layout}): expected "
                f"{need} columns or more, found {len(columns)}",
                file=where,
            )
        for field, position in positions.items():
            if position < len(columns):
                found[field] = frame[position]
    else:
        by_name: dict[str, list] = {}
        for column in columns:
            by_name.setdefault(str(column).lower(), []).append(column)
        for field, names in aliases.items():
            hits = [c for name in names for c in by_name.get(name, [])]
            if field == "grade" and len(hits) > 1:  # ranx's "score" only when nothing else
                hits = [c for c in hits if str(c).lower() != "score"]
            if len(hits) > 1:
                raise DataError(
                    f"columns {', '.join(map(repr, hits))} all name the {field}; keep one",
                    file=where,
                )
            if hits:
                found[field] = frame[hits[0]]
        missing = [f for f in required if f not in found]
        if missing:
            wanted = "; ".join(f"{f}: {' or '.join(aliases[f])}" for f in missing)
            raise DataError(
                f"no column for the {', '.join(missing)} ({wanted}); the columns are "
                f"{', '.join(map(str, columns)) or 'none'}",
                file=where,
            )
    return Columns(found, frame.index)


def record_columns(records: list, layout: dict, optional: tuple[str, ...], where: str):
    """Columns of ir_measures' namedtuples (by field name) or plain tuples (by position)."""
    needed = [attribute for field, (attribute, _) in layout.items() if field not in optional]
    if not records:
        return Columns({field: [] for field in layout if field not in optional}, [])
    first = records[0]
    if not isinstance(first, tuple):
        raise UsageError(f"{where}: expected records such as ir_measures', got {kind_of(first)}")
    kinds = {type(record) for record in records}
    if len(kinds) > 1:
        names = ", ".join(sorted(kind.__name__ for kind in kinds))
        raise DataError(f"records of different kinds ({names}); give one kind", file=where)
    lengths = {len(record) for record in records}
    if len(lengths) > 1:
        raise DataError(f"records of different lengths ({sorted(lengths)})", file=where)
    values = list(zip(*records, strict=True))
    named = getattr(first, "_fields", None)
    fields: dict[str, Any] = {}
    for field, (attribute, position) in layout.items():
        if named is not None and attribute in named:
            fields[field] = values[named.index(attribute)]
        elif named is None and position < len(first):
            fields[field] = values[position]
        elif field not in optional:
            what = (
                f"{kind_of(first)} records have the fields {', '.join(named)}"
                if named
                else (f"tuples of {len(first)} values")
            )
            raise DataError(f"expected ({', '.join(needed)}); {what}", file=where)
    return Columns(fields, range(len(records)))


def tag_of(columns: Columns, where: str) -> str | None:
    """The run's name from its tag column: its one value (several tags are several runs)."""
    tags = columns.fields.get("tag")
    if tags is None or len(tags) == 0:
        return None
    distinct = list(dict.fromkeys(tags.tolist()))
    if len(distinct) > 1:
        shown = ", ".join(map(str, distinct[:3])) + (", …" if len(distinct) > 3 else "")
        raise DataError(
            f"the tag column holds {len(distinct)} runs ({shown}); give one run per frame, "
            "e.g. dict(list(frame.groupby('tag')))",
            file=f"run {where!r}",
        )
    tag = distinct[0]
    return str(tag) if isinstance(tag, (str, Integral)) and str(tag) else None


def as_array(values) -> np.ndarray:
    """The values as a numpy array: pandas columns as theirs (extension types as objects, NA
    kept), other sequences as objects (numpy would turn ``["a", 1.5]`` into strings)."""
    if isinstance(values, np.ndarray):
        return values
    to_numpy = getattr(values, "to_numpy", None)
    if to_numpy is not None:
        return np.asarray(to_numpy())
    array = np.empty(len(values), dtype=object)
    array[:] = list(values)
    return array


def is_missing(array: np.ndarray) -> np.ndarray:
    import pandas as pd  # (not at the top: only in-memory inputs, frames mostly, need it)

    return np.asarray(pd.isna(array), dtype=bool)
