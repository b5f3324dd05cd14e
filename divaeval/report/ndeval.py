"""ndeval's CSV: ``runid,topic,<measures>`` header, one row per run topic, an ``amean`` row.

Byte for byte as ndeval 4.5 prints its 21 default columns (``-m ndeval``): values ``%.6f``,
NaN as ``-nan``, run topics missing from the qrels as rows of zeros that are not in the mean,
qrels topics missing from the run not printed (with ``-c`` they still count as 0 in the mean).
"""

from __future__ import annotations

from typing import TextIO

import numpy as np

from divaeval.report.numbers import fixed_rows
from divaeval.topics import sort_topics


def _rows(matrix: np.ndarray, precision: int) -> list[str]:
    """Each row of ``matrix`` as ndeval prints it: ``%.6f`` values joined by commas, NaN as
    ``-nan`` (glibc's printf of ndeval's NaNs)."""
    rows = fixed_rows(matrix, precision)
    if np.isnan(matrix).any():
        rows = [row.replace("nan", "-nan") for row in rows]
    return rows


def write(evaluation, out: TextIO, options) -> None:
    precision = 6 if options.precision is None else options.precision
    measures = evaluation.measures
    out.write("runid,topic," + ",".join(m.name for m in measures) + "\n")
    zero_row = _rows(np.zeros((1, len(measures))), precision)[0]
    for run in evaluation.runs:
        lines = []
        if options.per_topic or options.format == "ndeval":
            missing = set(run.missing_topics)
            topics = run.topics.tolist()
            matrix = np.zeros((len(topics), len(measures)))
            for column, measure in enumerate(measures):
                matrix[:, column] = run.values[measure]
            rows = dict(zip(topics, _rows(matrix, precision), strict=True))
            printed = [t for t in topics if t not in missing] + run.run_only_topics
            lines = [
                f"{run.name},{topic},{rows.get(topic, zero_row)}\n"
                for topic in sort_topics(printed)
            ]
        if options.summary:
            averaged = evaluation.means(run, options.mean)
            mean_row = np.array([[averaged[m] for m in measures]], dtype=np.float64)
            lines.append(f"{run.name},amean,{_rows(mean_row, precision)[0]}\n")
        out.write("".join(lines))
