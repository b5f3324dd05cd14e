"""Long-form machine-readable output: csv, tsv, jsonl and json.

One record per (run, topic, measure) with fields run, topic, measure, value, params; ``topic``
is ``all`` for the mean over topics; per-topic records only with ``-q``. ``measure`` is the
name the measure was asked for by, ``params`` the measure with every parameter resolved
(:attr:`~divaeval.metrics.spec.Measure.resolved`, e.g. ``alpha-nDCG(alpha=0.5,...)@20``): a
stored result says how it was computed. jsonl writes one JSON
object per line; json writes one object holding the settings signature and the records.
NaN is written as ``NaN`` in csv/tsv and as ``null`` in JSON. Counts (num_ret, ...) are
integers, as trec_eval prints them (not with ``--baseline``: risk values are differences);
``--precision N`` gives N fixed decimals in csv/tsv (``0.300``) and rounds in JSON; zero is
never written ``-0.0``.
"""

from __future__ import annotations

import json
import math
from typing import TextIO

from divaeval.report.numbers import cell, unsigned_zero


def write(evaluation, out: TextIO, options) -> None:
    table = evaluation.table(
        per_topic=options.per_topic, summary=options.summary, mean=options.mean
    )
    counts = (
        {m.name for m in evaluation.measures if m.spec.integer} if not evaluation.risk else set()
    )
    values = (
        table["value"] if options.precision is None else table["value"].round(options.precision)
    )
    values = values + 0.0  # (-0.0 + 0.0 is 0.0)
    resolved = {m.name: m.resolved for m in evaluation.measures}
    table["params"] = table["measure"].map(resolved)
    if options.format in ("csv", "tsv"):
        if counts or options.precision is not None:
            decimals = options.precision
            table["value"] = [
                str(int(value)) if name in counts and value == value
                else cell(value, decimals) if decimals is not None
                else ("NaN" if value != value else repr(value))
                for name, value in zip(table["measure"], values.tolist(), strict=True)
            ]  # fmt: skip
        else:
            table["value"] = values
        sep = "," if options.format == "csv" else "\t"
        table.to_csv(out, sep=sep, index=False, lineterminator="\n", na_rep="NaN")
        return
    records = [
        {
            "run": run,
            "topic": topic,
            "measure": measure,
            "value": None
            if math.isnan(value)
            else int(value)
            if measure in counts
            else unsigned_zero(value),
            "params": params,
        }
        for run, topic, measure, value, params in zip(
            table["run"],
            table["topic"],
            table["measure"],
            values.tolist(),
            table["params"],
            strict=True,
        )
    ]
    if options.format == "jsonl":
        out.write("".join(json.dumps(record) + "\n" for record in records))
    else:
        json.dump({"signature": options.signature, "results": records}, out, indent=1)
        out.write("\n")
