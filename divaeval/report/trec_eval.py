"""trec_eval's text layout: ``%-22s\\t%s\\t%6.4f`` lines (measure, topic or ``all``, value).

Per-topic blocks (``-q``) come first, topics in divaeval's topic order (numeric when every id is
an integer), measures in the ``-m`` order; then the summary block with ``runid`` and ``num_q``
lines. Counts (num_ret, num_rel, …) print as integers, as trec_eval prints them, except as risk
values (``--baseline``: (1 + A)-scaled differences and their mean).

Measures asked for by trec_eval's names only (``-m official``, ``-m map -m P.10``) print
trec_eval 10's layout itself (:mod:`divaeval.metrics.dialects`): topics in byte order, the
measures in trec_eval's order (the parser's), gm_map, gm_bpref and num_q in the summary only,
and ``runid``/``num_q`` lines only where asked for (``-m official`` and ``-m all_trec`` ask).

One run prints exactly trec_eval's layout. Several runs print one block after another, and every
line then carries the run's name as a fourth column (``measure<TAB>topic<TAB>value<TAB>run``),
so each line can be read alone (``awk``, ``sort``, ``grep``) while columns 1-3 keep their
trec_eval meaning.
"""

from __future__ import annotations

from math import copysign
from typing import TextIO

import numpy as np

from divaeval import native
from divaeval.metrics.dialects import TREC_SUMMARY_ONLY, is_trec_request, trec_base
from divaeval.report.numbers import fixed, fixed_rows


def _line(name: str, topic: str, value: float, precision: int, integer: bool = False) -> str:
    if integer and value == value:  # trec_eval's %ld for counts (NaN stays a float)
        return f"{name:<22}\t{topic}\t{int(round(value))}\n"
    if -1.0 < value <= 0.0 and copysign(1.0, value) < 0.0:  # (may print as -0.0000)
        return f"{name:<22}\t{topic}\t{fixed(value, precision, precision + 2)}\n"
    return f"{name:<22}\t{topic}\t{value:{precision + 2}.{precision}f}\n"


def _byte_order(topics: list[str]) -> list[int]:
    """Positions of ``topics`` in trec_eval's order (``strcmp`` of the ids' bytes)."""
    keys = [topic.encode("utf-8", "surrogateescape") for topic in topics]
    return sorted(range(len(topics)), key=keys.__getitem__)


def _column_lines(
    name: str, topics: list[str], values: np.ndarray, precision: int, integer: bool, end: str
) -> list[str]:
    """The per-topic lines of one measure (``values`` in ``topics`` order, each line ending
    in ``end``): one f-string per value where every value prints as ``%6.4f`` does (the
    common case: no count, no value in (-1, 0] with its sign set), else :func:`_line`."""
    if integer or (np.signbit(values) & (values > -1.0)).any():
        return [_line(name, topic, value, precision, integer)[:-1] + end
                for topic, value in zip(topics, values.tolist(), strict=True)]  # fmt: skip
    head, width = f"{name:<22}\t", precision + 2
    if precision >= 1:  # (no padding then: "%.4f" of x >= 0 or x <= -1 is 6 characters or more)
        texts = fixed_rows(values[:, None], precision)
        return [f"{head}{topic}\t{text}{end}" for topic, text in zip(topics, texts, strict=True)]
    return [f"{head}{topic}\t{value:{width}.{precision}f}{end}"
            for topic, value in zip(topics, values.tolist(), strict=True)]  # fmt: skip


#: the most decimals the compiled writer prints (10^P·x is then within a double's exact range)
_COMPILED_DECIMALS = 15


def _compiled_block(
    columns: list[np.ndarray], heads: list[str], topics: list[str], integer: bytes,
    precision: int, end: str,
) -> str | None:  # fmt: skip
    """The per-topic lines of a run (``columns``: a measure's values in ``topics`` order;
    ``heads``: its padded name and tab; ``integer``: 1 for a count) written in one compiled
    pass (``trec_lines``): the text :func:`_column_lines` gives, topic by topic; None where
    it is not built, or a value or a name is left to Python's printf (a near half of an
    inexact product, a non-finite or huge value, a name that is not ASCII)."""
    if native.kernels is None or not 0 <= precision <= _COMPILED_DECIMALS or not topics:
        return None
    values = np.array(columns, dtype=np.float64)  # [measures, topics]
    return native.kernels.trec_lines(
        values, len(columns), len(topics), heads, topics, integer, precision, end
    )


def write(evaluation, out: TextIO, options) -> None:
    precision = 4 if options.precision is None else options.precision
    measures = evaluation.measures
    names = [m.name for m in measures]
    several = len(evaluation.runs) > 1
    counts = [m.spec.integer and evaluation.risk is None for m in measures]
    trec = is_trec_request(measures)
    shown = [not (trec and trec_base(name) in TREC_SUMMARY_ONLY) for name in names]
    per_topic = [m for m, show in zip(measures, shown, strict=True) if show]
    per_topic_names = [name for name, show in zip(names, shown, strict=True) if show]
    per_topic_counts = [count for count, show in zip(counts, shown, strict=True) if show]
    heads = [f"{name:<22}\t" for name in per_topic_names]
    integer = bytes(per_topic_counts)
    for run in evaluation.runs:
        end = f"\t{run.name}\n" if several else "\n"
        lines: list[str] = []
        if options.per_topic and per_topic:
            order = _byte_order(run.topics.tolist()) if trec else slice(None)
            topics = run.topics[order].tolist()
            columns = [run.values[m][order] for m in per_topic]
            block = _compiled_block(columns, heads, topics, integer, precision, end)
            if block is not None:
                lines.append(block)
            else:
                blocks = [
                    _column_lines(name, topics, values, precision, count, end)
                    for name, values, count in zip(per_topic_names, columns, per_topic_counts,
                                                   strict=True)
                ]  # fmt: skip
                lines.extend(line for lines_of in zip(*blocks, strict=True) for line in lines_of)
        if options.summary:
            summary: list[str] = []
            averaged = evaluation.means(run, options.mean)
            if not trec or any(m.runid for m in measures):
                summary.append(f"{'runid':<22}\tall\t{run.name}\n")
            if not trec:
                summary.append(f"{'num_q':<22}\tall\t{run.mean_count}\n")
            summary += [
                _line(name, "all", averaged[m], precision, count)
                for m, name, count in zip(measures, names, counts, strict=True)
            ]
            lines.extend(line[:-1] + end for line in summary)
        out.write("".join(lines))
