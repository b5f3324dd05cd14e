"""One LaTeX table of runs × measures, as papers print them (compare ranx): each cell the
run's mean, the best of each column in bold, and as superscripts the numbers of the runs it is
significantly better than (the test and correction are the caller's and are stated in a
comment under the table, with the settings signature)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from divaeval.report.numbers import fixed


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in a run or measure name."""
    out = []
    for ch in str(text):
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append(r"\textasciitilde{}")
        elif ch == "^":
            out.append(r"\textasciicircum{}")
        elif ch == "\\":
            out.append(r"\textbackslash{}")
        else:
            out.append(ch)
    return "".join(out)


def runs_by_measures(
    runs: Sequence[str],
    measures: Sequence[str],
    means: Mapping[tuple[str, str], float],
    beats: Mapping[tuple[str, str], Sequence[str]] | None = None,
    *,
    precision: int = 4,
    note: str = "",
    signature: str = "",
) -> str:
    """The ``tabular``: rows numbered runs, columns ``measures``; ``means[(run, measure)]``;
    ``beats[(run, measure)]`` the runs it is significantly better than on that measure."""
    number = {run: k for k, run in enumerate(runs, start=1)}
    best = {}
    for measure in measures:
        values = [means[(run, measure)] for run in runs if not math.isnan(means[(run, measure)])]
        best[measure] = max(values) if values else math.nan
    lines = [
        r"\begin{tabular}{rl" + "r" * len(measures) + "}",
        r"\toprule",
        r"\# & Run & " + " & ".join(latex_escape(m) for m in measures) + r" \\",
        r"\midrule",
    ]
    for run in runs:
        cells = [str(number[run]), latex_escape(run)]
        for measure in measures:
            value = means[(run, measure)]
            text = "NaN" if math.isnan(value) else fixed(value, precision)
            if not math.isnan(value) and fixed(value, precision) == fixed(best[measure], precision):
                text = rf"\textbf{{{text}}}"
            beaten = sorted(number[other] for other in (beats or {}).get((run, measure), ()))
            if beaten:
                text += "$^{" + ",".join(map(str, beaten)) + "}$"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if note:
        lines.append(f"% {note}")
    if signature:
        lines.append(f"% {signature}")
    return "\n".join(lines) + "\n"
