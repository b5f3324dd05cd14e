"""``divaeval meta correlation``: rank correlation of the system rankings of every pair of
measures."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import (
    _choice,
    _library_call,
    _measures,
    _settings,
    _workers,
)
from divaeval.api._tables import _analysed_tables, _inputs_signature
from divaeval.api.results import TableResult
from divaeval.meta import rank_correlation_matrix, rank_correlations
from divaeval.plots.correlation import tau_scatter
from divaeval.settings import JUDGING, Settings

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


def correlation(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    matrix: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Rank correlation of the system rankings of every pair of measures (``divaeval meta
    correlation``): Kendall's tau-b and tau-a, tau_ap both ways and its symmetric mean; or,
    with ``matrix`` (tau_b, tau_a, tau_ap, tau_ap_sym), one coefficient as a measure x measure
    matrix.

    >>> frame = divaeval.correlation(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"]).frame
    >>> frame[["metric_a", "metric_b", "tau_b", "tau_ap_sym"]]
            metric_a   metric_b  tau_b  tau_ap_sym
    0  alpha-nDCG@20  ERR-IA@20    1.0         1.0
    1  alpha-nDCG@20    P-IA@20    1.0         1.0
    2      ERR-IA@20    P-IA@20    1.0         1.0
    """

    _choice(matrix, "matrix", ("tau_b", "tau_a", "tau_ap", "tau_ap_sym"), none=True)
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
    pairs = rank_correlations(tables, names)
    if matrix:
        frame = rank_correlation_matrix(tables, names, matrix).reset_index(names="metric")
    else:
        frame = pairs
    signature = (
        f"divaeval {__version__}|meta correlation|runs={len(names)}|"
        f"{_inputs_signature(settings, scores)}"
    )
    return TableResult(signature, frame, partial(_tau_figure, names, tables, pairs))


def _tau_figure(runs: list[str], tables: dict, pairs: pd.DataFrame) -> Figure:

    return tau_scatter(runs, tables, pairs)
