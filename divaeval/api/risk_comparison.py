"""``divaeval risk``: risk-sensitive comparison of runs against a baseline (URisk, TRisk,
ZRisk, GeoRisk)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import (
    _in_memory,
    _library_call,
    _measures,
    _risk_alpha,
    _settings,
    _with_baseline,
    _workers,
)
from divaeval.api.results import TableResult
from divaeval.evaluation import Evaluation, run_evaluation
from divaeval.metrics.dialects import measures_signature
from divaeval.plots.differences import against_baseline
from divaeval.risk_measures import check_risk_alpha, risk_frame
from divaeval.settings import JUDGING, Settings

if TYPE_CHECKING:
    from divaeval.plots.figure import Figure


def risk(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    baseline: Any = None,
    risk_alpha: float | str = 0,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Risk-sensitive comparison (``divaeval risk``): per measure and run the mean, URisk,
    TRisk, its p-value, wins and losses against ``baseline`` (left out without one), and
    ZRisk and GeoRisk against all the runs, at risk sensitivity ``risk_alpha``. The baseline's
    own row is left out (it is one of the runs of ZRisk and GeoRisk, counted once when it is
    also among ``runs``). Every run is scored on every qrels topic; the options are the
    judging settings (:data:`~divaeval.settings.JUDGING`).

    >>> frame = divaeval.risk(["sample_data/run2.txt", "sample_data/run3.txt"],
    ...                       "sample_data/qrels.txt", "alpha-nDCG@20",
    ...                       baseline="sample_data/run.txt", risk_alpha=1).frame
    >>> frame[["run", "URisk", "TRisk", "wins", "losses"]].round(4)
           run   URisk   TRisk  wins  losses
    0  rm-cata -0.0093 -0.4297     4       3
    1     dssa  0.1289  1.2433     8       2
    """

    _risk_alpha(risk_alpha)
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    alpha, alpha_text = check_risk_alpha(risk_alpha)
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        every, position = _with_baseline(inputs.runs(runs), inputs.baseline(baseline))
        with _workers(settings, every) as workers:
            result = run_evaluation(every, inputs.qrels(qrels), chosen, settings, workers=workers)
        frame = risk_frame(result, baseline=position, alpha=alpha)
        base_name = "none"
        if position is not None:
            base_name = result.runs[position].name
            frame = frame[frame["run"] != base_name].reset_index(drop=True)
        names = measures_signature(result.measures)
        signature = (
            f"divaeval {__version__}|risk|baseline={base_name}|risk_alpha={alpha_text}|"
            f"{settings.signature()}|measures={names}"
        )
        picture = None
        if position is not None:
            picture = partial(_risk_figure, result, base_name, alpha)
        return TableResult(signature, frame, picture)


def _risk_figure(evaluation: Evaluation, baseline: str, alpha: float) -> Figure:
    """Every run's per-topic differences against the baseline, losses also drawn times
    1 + α (their mean is the URisk ``risk`` prints)."""

    return against_baseline(evaluation.table(summary=False), baseline, risk_alpha=alpha)
