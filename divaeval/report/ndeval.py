"""ndeval's CSV: ``runid,topic,<measures>`` header, one row per run topic, an ``amean`` row.

Byte for byte as ndeval 4.5 prints its 21 default columns (``-m ndeval``): values ``%.6f``,
NaN as ``-nan``, run topics missing from the qrels as rows of zeros that are not in the mean,
qrels topics missing from the run not printed (with ``-c`` they still count as 0 in the mean).
"""

from __future__ import annotations

from typing import TextIO

import numpy as np

from divaeval.topics import sort_topics


def _number(value: float, precision: int) -> str:
    if np.isnan(value):
        return "-nan"
    return f"{value:.{precision}f}"


def write(evaluation, out: TextIO, options) -> None:
    precision = 6 if options.precision is None else options.precision
    measures = evaluation.measures
    out.write("runid,topic," + ",".join(m.name for m in measures) + "\n")
    zero_row = ",".join(_number(0.0, precision) for _ in measures)
    for run in evaluation.runs:
        missing = set(run.missing_topics)
        position = {t: i for i, t in enumerate(run.topics.tolist())}
        if options.per_topic or options.format == "ndeval":
            printed = [t for t in position if t not in missing] + run.run_only_topics
            for topic in sort_topics(printed):
                if topic in position:
                    i = position[topic]
                    row = ",".join(_number(run.values[m][i], precision) for m in measures)
                else:
                    row = zero_row
                out.write(f"{run.name},{topic},{row}\n")
        if options.summary:
            averaged = evaluation.means(run, options.mean)
            out.write(
                f"{run.name},amean,"
                + ",".join(_number(averaged[m], precision) for m in measures)
                + "\n"
            )
