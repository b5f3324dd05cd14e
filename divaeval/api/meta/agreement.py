"""``divaeval meta agreement``: agreement of lexirecall with other measures (Diaz, Ekstrand
& Mitra, Figs. 8-10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from divaeval import __version__
from divaeval.api._common import _in_memory, _library_call, _measures, _settings
from divaeval.api.results import TableResult
from divaeval.evaluation import load_inputs
from divaeval.meta.agreement import DIAZ_MEASURES, runs_lexirecall_agreement
from divaeval.settings import COMPARING, Settings


def agreement(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Agreement of lexirecall with other measures (``divaeval meta agreement``; Diaz,
    Ekstrand & Mitra, Figs. 8-10): per measure, the share of the ranking comparisons it
    decides on which lexirecall prefers the same run (``sign_agreement``), Kendall's tau-b
    between its mean ordering of the runs and lexirecall's MC4 ordering (``tau``), and its
    share of tied comparisons (``ties``; lexirecall's own in the last row). Default measures:
    the paper's R@1000, Rprec, AP, nDCG, RR and nDCG@10.

    >>> frame = divaeval.agreement(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["AP", "RR"]).frame
    >>> frame[["measure", "sign_agreement", "tau", "ties"]].round(4)
          measure  sign_agreement     tau    ties
    0          AP          0.6333  0.3333  0.0000
    1          RR          0.2941 -1.0000  0.4333
    2  lexirecall          1.0000  1.0000  0.0000
    """

    chosen = _measures(measures) or list(DIAZ_MEASURES)
    settings = _settings(settings, options, COMPARING, complete=True)
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        read, index = load_inputs(inputs.runs(runs), inputs.qrels(qrels), settings)
        result = runs_lexirecall_agreement(
            read, index, chosen, settings, rel_level=settings.rel_level
        )
    signature = (
        f"divaeval {__version__}|meta agreement|{settings.signature()}|aggregate=mc4|"
        f"runs={len(read)}|topics={result.n_topics}"
    )
    return TableResult(signature, result.frame())
