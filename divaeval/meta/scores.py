"""Score tables read from files (``divaeval meta ... --scores FILE``): the meta-evaluations of
runs × topics tables on scores computed elsewhere, e.g. the official TREC per-topic scores.

Two layouts are read, detected from a file's first line:

- the **long form** ``run topic measure value``, whitespace- or tab-separated, or
  comma-separated (what ``divaeval -f csv|tsv -q`` writes; a header line
  ``run topic measure value [params]`` is skipped, and so is the ``params`` column);
- **trec_eval -q output** ``measure topic value``: each run's per-topic lines are followed by
  its summary lines (topic ``all``), among them ``runid all NAME``, which names the run. A
  file may hold several runs' outputs one after the other.

Lines whose topic is ``all`` are summaries and are not read as topics. Every value must be a
finite number within ±1e100 (:data:`~divaeval.scores.MAX_SCORE`). Problems are reported as
``FILE:LINE``: a line of the wrong shape, a value that
is not a number, one (run, topic, measure) with two different values (the same value twice is
kept once, with a warning). A run that lacks a topic the other runs have for a measure scores
0 there (as the runs + qrels path does with ``-c``), with a warning; a run without any value of
a chosen measure is an error.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from divaeval.errors import DataError, UsageError, clip, shown, warn
from divaeval.io._text import read_source
from divaeval.metrics.spec import normalize_name
from divaeval.scores import MAX_SCORE
from divaeval.topics import sort_topics

LONG_HEADER = ("run", "topic", "measure", "value")
#: divaeval's own long form: the resolved measure (its parameters) in a fifth column
PARAMS_HEADER = (*LONG_HEADER, "params")
SUMMARY_TOPIC = "all"


@dataclass(frozen=True)
class ScoreTable:
    """Per-topic scores of runs: ``tables[measure]`` is ``[len(runs), len(topics)]``."""

    runs: list[str]
    topics: list[str]
    tables: dict[str, np.ndarray]


@dataclass
class _Cells:
    """(run, topic, measure) -> (value, file, line), in the order first read."""

    values: dict[tuple[str, str, str], tuple[float, str, int]]
    repeated: int = 0
    first_repeat: tuple[str, int] | None = None

    def add(self, run: str, topic: str, measure: str, value: float, name: str, line: int):
        key = (run, topic, measure)
        known = self.values.get(key)
        if known is None:
            self.values[key] = (value, name, line)
            return
        if known[0] != value:
            raise DataError(
                f"run {clip(run)} topic {clip(topic)} measure {clip(measure)} has two values: "
                f"{known[0]!r} ({known[1]}:{known[2]}) and {value!r}",
                file=name,
                line=line,
            )
        self.repeated += 1
        if self.first_repeat is None:
            self.first_repeat = (name, line)


def _number(text: str, name: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"value {shown(text)} is not a number", file=name, line=line) from None
    if not math.isfinite(value):
        raise DataError(f"value {shown(text)} is not a finite number", file=name, line=line)
    if abs(value) > MAX_SCORE:
        raise DataError(
            f"value {shown(text)} is beyond {MAX_SCORE:g}, the largest score the analyses take "
            "(their sums of squares would overflow)",
            file=name,
            line=line,
        )
    return value


def _lines(path: str) -> tuple[str, list[tuple[int, list[str]]]]:
    """(file name, [(line number, fields)]) of the non-blank, non-comment lines; fields split
    at commas for a comma-separated file, else at whitespace."""
    source = read_source(path, what="score")
    text = source.data.decode("utf-8", errors="surrogateescape")  # as the other readers
    rows: list[tuple[int, list[str]]] = []
    comma: bool | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if comma is None:
            comma = "," in stripped and len(stripped.split()) == 1
        fields = [f.strip() for f in _csv_fields(stripped)] if comma else stripped.split()
        rows.append((number, fields))
    return source.name, rows


def _csv_fields(line: str) -> list[str]:
    """The fields of a comma-separated line, quotes as CSV writes them (a params column
    ``"P(rel=2,judged_only=False)@10"`` holds commas)."""
    return next(csv.reader([line]))


def _read_long(name: str, rows, cells: _Cells) -> None:
    for number, fields in rows:
        if len(fields) != 4:
            raise DataError(
                f"expected 4 fields (run topic measure value), found {len(fields)}",
                file=name,
                line=number,
            )
        run, topic, measure, value = fields
        if topic == SUMMARY_TOPIC:
            continue
        cells.add(run, topic, measure, _number(value, name, number), name, number)


def _read_trec_eval(name: str, rows, cells: _Cells) -> None:
    """trec_eval -q blocks: per-topic lines, then the summary lines with ``runid all NAME``."""
    block: list[tuple[int, str, str, str]] = []
    run: str | None = None
    in_summary = False
    blocks: list[tuple[str | None, list[tuple[int, str, str, str]]]] = []
    for number, fields in rows:
        if len(fields) != 3:
            raise DataError(
                f"expected 3 fields (trec_eval -q: measure topic value), found {len(fields)}",
                file=name,
                line=number,
            )
        measure, topic, value = fields
        if topic == SUMMARY_TOPIC:
            in_summary = True
            if measure == "runid":
                if run is not None and run != value:
                    raise DataError(
                        f"a second runid ({clip(value)}) in the summary of run {clip(run)}",
                        file=name,
                        line=number,
                    )
                run = value
            continue
        if in_summary:  # the next run's per-topic lines
            blocks.append((run, block))
            block, run, in_summary = [], None, False
        block.append((number, measure, topic, value))
    if block or run is not None:
        blocks.append((run, block))
    for label, lines in blocks:
        if label is None:
            if len(blocks) > 1:
                first = lines[0][0] if lines else rows[0][0]
                raise DataError(
                    "trec_eval output without a 'runid all NAME' line for the run whose lines "
                    f"start here (file holds {len(blocks)} runs)",
                    file=name,
                    line=first,
                )
            label = _file_label(name)
            warn(f"no 'runid all NAME' line: the run is named {clip(label)}", file=name)
        for number, measure, topic, value in lines:
            cells.add(label, topic, measure, _number(value, name, number), name, number)


def _file_label(name: str) -> str:
    base = os.path.basename(name)
    for suffix in (".gz",):
        base = base.removesuffix(suffix)
    stem, _ = os.path.splitext(base)
    return stem or base


def _read_file(path: str, cells: _Cells) -> None:
    name, rows = _lines(path)
    if not rows:
        raise DataError("empty score file", file=name)
    first = tuple(field.lower() for field in rows[0][1])
    if first in (LONG_HEADER, PARAMS_HEADER):
        rows = [(n, f[:4] if len(f) == len(first) else f) for n, f in rows[1:]]
        width = 4
    else:
        width = len(first)
    if width == 5:  # divaeval's long form without its header: the params column is not read
        rows = [(n, f[:4] if len(f) == 5 else f) for n, f in rows]
        width = 4
    if width == 4:
        _read_long(name, rows, cells)
    elif width == 3:
        _read_trec_eval(name, rows, cells)
    else:
        raise DataError(
            f"expected run topic measure value [params] (4 or 5 fields) or trec_eval -q output "
            f"measure topic value (3 fields), found {width} fields",
            file=name,
            line=rows[0][0],
        )


def choose_measures(available: list[str], wanted: Sequence[str], names: str) -> list[str]:
    """The measures to analyse: every one in the files, or ``wanted`` matched exactly, else
    case-insensitively with ``-`` and ``_`` interchangeable."""
    if not wanted:
        return available
    loose = {normalize_name(m): m for m in available}
    chosen = []
    for text in wanted:
        match = text if text in available else loose.get(normalize_name(text))
        if match is None:
            listed = ", ".join(map(clip, available[:12])) + (" ..." if len(available) > 12 else "")
            raise UsageError(f"measure {clip(text)} is not in {names} (it has: {listed})")
        if match not in chosen:
            chosen.append(match)
    return chosen


def _read_frame(name: str, frame: Any, cells: _Cells) -> None:
    """A score table in memory: a DataFrame with the columns run, topic, measure, value (the
    long form divaeval writes; ``all`` rows, the means, are skipped); row i is "line" i + 1."""
    missing = [c for c in ("run", "topic", "measure", "value") if c not in frame.columns]
    if missing:
        raise DataError(
            f"no column {', '.join(missing)} (a score table has run, topic, measure, value); "
            f"the columns are {', '.join(map(str, frame.columns))}",
            file=name,
        )
    rows = frame[["run", "topic", "measure", "value"]].itertuples(index=False, name=None)
    for number, (run, topic, measure, value) in enumerate(rows, start=1):
        if str(topic) == "all":
            continue
        text = repr(float(value)) if isinstance(value, (int, float)) else str(value)
        cells.add(str(run), str(topic), str(measure), _number(text, name, number), name, number)


def read_score_table(sources: Sequence[Any], measures: Sequence[str] = ()) -> ScoreTable:
    """Read score files (see the module docstring), or score tables in memory (DataFrames
    run, topic, measure, value), into runs × topics tables of ``measures`` (names as the files
    write them; default every measure in the files). Topics are the union over runs and
    measures, sorted as everywhere in divaeval; runs keep their first order."""
    if not sources:
        raise UsageError("give at least one --scores FILE")
    cells = _Cells({})
    labels = []
    for source in sources:
        if isinstance(source, str):
            _read_file(source, cells)
            labels.append(source)
        else:
            labels.append("scores (DataFrame)")
            _read_frame(labels[-1], source, cells)
    names = ", ".join(labels)
    if cells.repeated and cells.first_repeat is not None:
        where, line = cells.first_repeat
        warn(
            f"{cells.repeated} repeated lines (same run, topic, measure and value) read once "
            f"(first at {where}:{line})"
        )
    if not cells.values:
        raise DataError(
            "no per-topic scores, only summary lines (topic 'all'; trec_eval writes per-topic "
            "lines with -q)",
            file=names,
        )
    runs = list(dict.fromkeys(run for run, _, _ in cells.values))
    available = list(dict.fromkeys(measure for _, _, measure in cells.values))
    chosen = choose_measures(available, measures, names)
    topics = sort_topics({topic for _, topic, measure in cells.values if measure in chosen})
    run_index = {run: i for i, run in enumerate(runs)}
    topic_index = {topic: j for j, topic in enumerate(topics)}
    tables = {m: np.full((len(runs), len(topics)), np.nan) for m in chosen}
    for (run, topic, measure), (value, _, _) in cells.values.items():
        if measure in tables:
            tables[measure][run_index[run], topic_index[topic]] = value
    for measure, table in tables.items():
        for i in np.flatnonzero(np.isnan(table).all(axis=1)):
            raise DataError(
                f"run {clip(runs[i])} has no values of measure {clip(measure)}", file=names
            )
    missing = np.stack([np.isnan(table) for table in tables.values()])  # [M, R, T]
    for i in np.flatnonzero(missing.any(axis=(0, 2))):
        m, j = (int(a[0]) for a in np.nonzero(missing[:, i, :]))
        warn(
            f"run {clip(runs[i])} lacks {int(missing[:, i, :].sum())} of its "
            f"{len(chosen) * len(topics)} (topic, measure) scores (e.g. topic {clip(topics[j])}, "
            f"{clip(chosen[m])}); they count as 0, as with -c",
            file=names,
        )
    for table in tables.values():
        table[np.isnan(table)] = 0.0
    return ScoreTable(runs=runs, topics=topics, tables=tables)
