"""``divaeval meta discriminative-power`` (Sakai 2012, Figs. 3, 5, 7-9 and Table 4)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import (
    _function,
    _library_call,
    _measures,
    _path,
    _resampling,
    _settings,
    _workers,
)
from divaeval.api._tables import _analysed_tables, _inputs_signature
from divaeval.api.results import TableResult, check_plot
from divaeval.meta import discriminative_power as power_of
from divaeval.meta.overlap import overlap_frame, power_overlap
from divaeval.plots.asl import asl_curves
from divaeval.settings import JUDGING, Settings
from divaeval.stats.significance import DEFAULT_SEED

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


@dataclass(eq=False, repr=False)
class DiscriminativePowerResult(TableResult):
    """:func:`discriminative_power`: :attr:`power` holds every metric's ASL curve;
    :attr:`overlap` the run pairs each pair of metrics finds significant (Sakai 2012,
    Table 4)."""

    power: Any = None

    @cached_property
    def overlap(self) -> pd.DataFrame:
        """Per pair of metrics: the run pairs significant under the first only, under both and
        under the second only (``cell`` as Sakai's Table 4 prints it, ``only/both/only``)."""

        return overlap_frame(power_overlap(self.power))

    def figure(self) -> Figure:
        """The ASL curves (Sakai 2012, Figs. 7-9)."""

        return asl_curves(self.power.asl_curves(), self.power.alpha)


def discriminative_power(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    test: str = "bootstrap",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    plot: str | os.PathLike | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> DiscriminativePowerResult:
    """Discriminative power (``divaeval meta discriminative-power``; Sakai 2012, Figs. 3 and
    5): per measure, the share of run pairs significant at ``alpha`` under ``test`` (bootstrap
    or tukey-hsd) and the estimated performance difference required; ``plot`` draws the ASL
    curves to an image file (needs matplotlib); ``progress(metric, done, total)`` follows the
    resampling. ``jobs`` processes or the Dask ``scheduler`` score the runs and resample (the
    same results).

    >>> frame = divaeval.discriminative_power(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "P-IA@20"], samples=200).frame
    >>> frame[["metric", "pairs", "significant", "required_delta"]].round(4)
              metric  pairs  significant  required_delta
    0  alpha-nDCG@20      3            0          0.1825
    1        P-IA@20      3            0          0.0583
    """

    _resampling(test, samples, seed, alpha)
    _path(plot, "plot")
    _function(progress, "progress")
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    check_plot(plot)  # before any computing
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
        power = power_of(
            tables,
            names,
            test=test,
            B=samples,
            seed=DEFAULT_SEED if seed is None else seed,
            alpha=alpha,
            progress=progress,
            workers=workers,
        )
    signature = (
        f"divaeval {__version__}|meta discriminative-power|"
        f"{_inputs_signature(settings, scores)}|{power.signature}"
    )
    result = DiscriminativePowerResult(signature, power.table(), power=power)
    if plot is not None:
        result.plot(plot)
    return result
