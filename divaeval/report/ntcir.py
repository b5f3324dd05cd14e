"""NTCIREVAL's text layout (``--format ntcir``), so that scripts written for its ``.Dnev`` /
``.DINnev`` files keep working (the per-topic files that NTCIREVAL 190111's ``D-NTCIR-eval``
and ``DIN-NTCIR-eval`` scripts write).

- Per-topic lines (``-q``) are ``<topic> <Name>=<spaces><value>``: ``<Name>=`` left-justified
  and padded to 21 characters, the value printed with 4 decimals (C ``%.4f``), cutoffs as ``@``
  plus 4 digits: ``0101 D#-nDCG@0010=         0.4376``. Topics in divaeval's topic order,
  measures in the registry's order, one topic after another as NTCIREVAL prints them.
- Names are divaeval's, which stay unambiguous in one stream (NTCIREVAL prints D-nDCG and
  DIN-nDCG both as ``MSnDCG@l``, in two files); P+Q and P+Q# are printed as NTCIREVAL names
  them, ``PplusQ`` and ``PplusQ#``, and P+ as ``P-plus``.
- The mean over topics (NTCIREVAL's ``NEV2mean``) follows as ``<run> <Name>=<spaces><mean>``
  lines. With ``--compat ntcireval`` the per-topic values are NTCIREVAL's 4-decimal values, so
  the mean is NEV2mean's (sum of printed values / number of topics) over the evaluated topics
  (NEV2mean divides by the topics of the probability file: use ``-c`` so that topics missing
  from the run count 0).
- Several runs: each run's block starts with a ``# run=<name>`` line (NTCIREVAL writes one
  file per run).
"""

from __future__ import annotations

from typing import TextIO

from divaeval.metrics.dialects import NTCIREVAL_LABELS
from divaeval.report.numbers import fixed

NAME_WIDTH = 21


def ntcir_name(measure) -> str:
    """``D#-nDCG@0010``: NTCIREVAL's spelling of a measure's display name."""
    spec = measure.spec
    base = measure.name
    if measure.cutoff is not None:
        base = base[: -len(f"@{measure.cutoff}")]
    if spec.name in NTCIREVAL_LABELS:  # (a name is one family's: these are ntcir's)
        base = NTCIREVAL_LABELS[spec.name] + base[len(spec.name) :]
    if measure.cutoff is not None:
        base += f"@{measure.cutoff:04d}"
    return base


def _line(key: str, name: str, value: float, precision: int) -> str:
    return f"{key} {name + '=':<{NAME_WIDTH}}{fixed(value, precision)}\n"


def write(evaluation, out: TextIO, options) -> None:
    precision = 4 if options.precision is None else options.precision
    measures = evaluation.measures
    names = [ntcir_name(m) for m in measures]
    several = len(evaluation.runs) > 1
    for run in evaluation.runs:
        lines: list[str] = []
        if several:
            lines.append(f"# run={run.name}\n")
        if options.per_topic:
            columns = [run.values[m].tolist() for m in measures]
            for i, topic in enumerate(run.topics.tolist()):
                for name, column in zip(names, columns, strict=True):
                    lines.append(_line(str(topic), name, column[i], precision))
        if options.summary:
            averaged = evaluation.means(run, options.mean)
            lines.extend(
                _line(run.name, name, averaged[m], precision)
                for name, m in zip(names, measures, strict=True)
            )
        out.write("".join(lines))
