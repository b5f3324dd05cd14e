"""Long-form machine-readable output: csv, tsv, jsonl and json.

One record per (run, topic, measure) with fields run, topic, measure, value, params; ``topic``
is ``all`` for the mean over topics; per-topic records only with ``-q``. ``measure`` is the
name the measure was asked for by, ``params`` the measure with every parameter resolved
(:attr:`~divaeval.metrics.spec.Measure.resolved`, e.g. ``alpha-nDCG(alpha=0.5,...)@20``): a
stored result says how it was computed. jsonl writes one JSON
object per line; json writes one object holding the settings signature and the records.
NaN is written as ``NaN`` in csv/tsv and as ``null`` in JSON.
"""

from __future__ import annotations

import json
import math
from typing import TextIO


def write(evaluation, out: TextIO, options) -> None:
    table = evaluation.table(
        per_topic=options.per_topic, summary=options.summary, mean=options.mean
    )
    if options.precision is not None:
        table["value"] = table["value"].round(options.precision)
    resolved = {m.name: m.resolved for m in evaluation.measures}
    table["params"] = table["measure"].map(resolved)
    if options.format in ("csv", "tsv"):
        sep = "," if options.format == "csv" else "\t"
        table.to_csv(
            out, sep=sep, index=False, lineterminator="\n", na_rep="NaN", float_format=None
        )
        return
    records = [
        {
            "run": run,
            "topic": topic,
            "measure": measure,
            "value": None if isinstance(value, float) and math.isnan(value) else value,
            "params": params,
        }
        for run, topic, measure, value, params in table.itertuples(index=False, name=None)
    ]
    if options.format == "jsonl":
        out.write("".join(json.dumps(record) + "\n" for record in records))
    else:
        json.dump({"signature": options.signature, "results": records}, out, indent=1)
        out.write("\n")
