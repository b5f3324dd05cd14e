"""Report writers: one module per output format, one entry per format in :data:`FORMATS`.

A writer is ``write(evaluation, out, options)``: it prints an
:class:`~divaeval.evaluation.Evaluation` to the text stream ``out``. Adding a format is one module
with a ``write`` function plus one entry here.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple, TextIO

#: format name -> module under divaeval.report that defines ``write``.
FORMATS: dict[str, str] = {
    "trec_eval": "trec_eval",
    "ndeval": "ndeval",
    "ntcir": "ntcir",
    "csv": "longform",
    "tsv": "longform",
    "jsonl": "longform",
    "json": "longform",
    "table": "frames",
    "markdown": "frames",
    "html": "frames",
}


#: the formats of analysis tables (:mod:`divaeval.report.frames`), here so that naming them
#: (the -f choices) loads none of their writers
TABLE_FORMATS = ("trec_eval", "csv", "tsv", "jsonl", "json", "table", "latex", "markdown", "html")


class ReportOptions(NamedTuple):
    """What to print: per-topic rows, the summary, value precision, the topic mean, and the
    settings signature (embedded by formats with metadata, e.g. json)."""

    format: str = "trec_eval"
    per_topic: bool = False
    summary: bool = True
    precision: int | None = None
    mean: str = "arith"
    signature: str = ""


def write_report(evaluation, out: TextIO, options: ReportOptions) -> None:
    module = importlib.import_module(f"divaeval.report.{FORMATS[options.format]}")
    module.write(evaluation, out, options)
