"""``divaeval meta unanimity``: Metric Unanimity (Amigó et al. 2018, §6.1 and §6.3)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import (
    _in_memory,
    _integer,
    _library_call,
    _measures,
    _settings,
    _workers,
)
from divaeval.api._tables import _analysed_tables, _inputs_signature
from divaeval.api.results import TableResult
from divaeval.errors import UsageError
from divaeval.evaluation import load_inputs
from divaeval.meta import metric_unanimity_table
from divaeval.meta.scenarios import DEFAULT_SEED, parse_scenario, scenario_unanimity
from divaeval.plots.unanimity import unanimity_bars
from divaeval.settings import JUDGING, Settings

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


def unanimity(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    simulate: str | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Metric Unanimity (``divaeval meta unanimity``; Amigó et al. 2018, §6.1): per measure,
    the PMI (base 2) between its preferences over run pairs and the unanimous preferences of
    the other measures. ``simulate`` alters the runs and qrels at random first (§6.3, Table
    2): ``shorter`` (grades rand(0..r), intent weights rand(0..1), rankings cut to
    rand(0..|d|)), ``cutoff50`` (the same with rankings cut to rand(0..50)), or parts joined
    with ``+`` (``grades``, ``weights``, ``lengths=run``, ``lengths=N``); seeded by ``seed``.

    >>> frame = divaeval.unanimity(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"]).frame
    >>> frame[["metric", "mu", "pairs"]].round(4)
              metric      mu  pairs
    0  alpha-nDCG@20  0.8532     60
    1      ERR-IA@20  0.7630     60
    2        P-IA@20  0.8007     60
    """

    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    _integer(seed, "seed", 0, none=True)
    if simulate is not None:
        if not isinstance(simulate, str):
            raise UsageError(f"simulate: expected a scenario name, got {simulate!r}")
        return _simulated_unanimity(runs, qrels, chosen, scores, simulate, seed, settings)
    if seed is not None:
        raise UsageError("unanimity: seed applies to a simulated scenario (simulate)")
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
    signature = (
        f"divaeval {__version__}|meta unanimity|runs={len(names)}|pmi=log2|"
        f"{_inputs_signature(settings, scores)}"
    )
    frame = metric_unanimity_table(tables, names)
    return TableResult(signature, frame, partial(_unanimity_figure, frame))


def _unanimity_figure(frame: pd.DataFrame) -> Figure:

    return unanimity_bars(frame)


def _simulated_unanimity(
    runs: Any,
    qrels: Any,
    measures: list[str],
    scores: Any,
    simulate: str,
    seed: int | None,
    settings: Settings,
) -> TableResult:
    """:func:`unanimity` under a simulated scenario (Amigó et al. §6.3)."""

    scenario = parse_scenario(simulate)
    if scores is not None or runs is None or qrels is None:
        raise UsageError("unanimity: a simulated scenario alters runs and qrels; give both")
    seed = DEFAULT_SEED if seed is None else seed
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        read, index = load_inputs(inputs.runs(runs), inputs.qrels(qrels), settings)
        frame = scenario_unanimity(
            read, index.qrels, measures or ["ndeval"], settings, scenario, seed=seed
        )
    signature = (
        f"divaeval {__version__}|meta unanimity|runs={len(read)}|pmi=log2|"
        f"simulate={scenario.text}|seed={seed}|rng=PCG64|{settings.signature()}"
    )
    return TableResult(signature, frame)
