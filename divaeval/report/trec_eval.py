"""trec_eval's text layout: ``%-22s\\t%s\\t%6.4f`` lines (measure, topic or ``all``, value).

Per-topic blocks (``-q``) come first, topics in divaeval's topic order (numeric when every id is
an integer), measures in the registry's fixed order; then the summary block with ``runid`` and
``num_q`` lines. Several runs print one block after another.
"""

from __future__ import annotations

from typing import TextIO


def _line(name: str, topic: str, value: float, precision: int) -> str:
    return f"{name:<22}\t{topic}\t{value:{precision + 2}.{precision}f}\n"


def write(evaluation, out: TextIO, options) -> None:
    precision = 4 if options.precision is None else options.precision
    measures = evaluation.measures
    for run in evaluation.runs:
        lines: list[str] = []
        if options.per_topic:
            columns = [run.values[m].tolist() for m in measures]
            names = [m.name for m in measures]
            for i, topic in enumerate(run.topics.tolist()):
                for name, column in zip(names, columns, strict=True):
                    lines.append(_line(name, topic, column[i], precision))
        if options.summary:
            lines.append(f"{'runid':<22}\tall\t{run.name}\n")
            lines.append(f"{'num_q':<22}\tall\t{len(run.topics)}\n")
            averaged = evaluation.means(run, options.mean)
            lines.extend(_line(m.name, "all", averaged[m], precision) for m in measures)
        out.write("".join(lines))
