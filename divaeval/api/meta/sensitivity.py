"""``divaeval meta sensitivity``: document selection sensitivity of the qrels (Golbus et al.
2013, §7, Eq. 11)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import (
    _function,
    _in_memory,
    _integer,
    _integers,
    _library_call,
    _measures,
    _settings,
    _workers,
)
from divaeval.api.results import Result
from divaeval.evaluation import index_qrels
from divaeval.meta.sensitivity import DEFAULT_CUTOFF, selection_sensitivity
from divaeval.metrics.grid import parse_grid
from divaeval.plots.sensitivity import sensitivity_grid
from divaeval.settings import AVERAGING, WORKERS, Settings

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


#: the settings of :func:`sensitivity`
SAMPLING = ("rel_level", "intents", "topics", *AVERAGING, *WORKERS)


@dataclass(eq=False, repr=False)
class SensitivityResult(Result):
    """:func:`sensitivity`: :attr:`sensitivity` (per measure and topic, and the grid's maxima
    with a grid), shown as :meth:`table`, :meth:`wide` or :meth:`grid`."""

    sensitivity: Any

    def table(self, *, per_topic: bool = True) -> pd.DataFrame:
        """One row per measure and topic (``per_topic``) and its topic average (topic
        ``all``), with the number of samples and the seed."""
        frame = self.sensitivity.frame(per_topic=per_topic)
        frame.insert(frame.columns.get_loc("samples") + 1, "seed", self.sensitivity.seed)
        return frame

    def wide(self, *, per_topic: bool = True) -> pd.DataFrame:
        """Topics × measures (trec_eval's layout)."""
        return self.sensitivity.wide_frame(per_topic=per_topic)

    def grid(self, *, all_points: bool = False) -> pd.DataFrame:
        """With a grid: each measure's largest topic average and its argmax, or
        (``all_points``) the topic average at every grid point."""
        frame = self.sensitivity.grid_frame(all_points=all_points)
        if all_points:
            frame.insert(1, "samples", self.sensitivity.samples)
            frame.insert(2, "seed", self.sensitivity.seed)
        return frame

    @property
    def frame(self) -> pd.DataFrame:
        if self.sensitivity.grid_maxima is not None:
            return self.grid()
        return self.table()

    def figure(self) -> Figure:
        """Measures × topics, each cell the measure's dss on the topic."""

        return sensitivity_grid(self.table(per_topic=True))


def sensitivity(
    qrels: Any,
    measures: str | Sequence[str] | None,
    *,
    cutoff: int | Sequence[int] = (),
    samples: int = 1000,
    seed: int | None = None,
    grid: str | Sequence[str] = (),
    progress: Callable[[int, int], None] | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> SensitivityResult:
    """Document selection sensitivity (``divaeval meta sensitivity``; Golbus et al. 2013, §7,
    Eq. 11): per measure and topic, the coefficient of variation dss of the measure over
    ``samples`` random rankings of the topic's relevant documents, and its topic average
    (topic ``all``, by the settings' ``mean``). Measures without ``@k`` are evaluated at each
    ``cutoff`` (default 20). With ``grid`` (``"alpha=0:1:0.1,lambda=0:1:0.1"``), every
    measure at every point of the grid on the same rankings. ``jobs`` processes or the Dask
    ``scheduler`` draw and score the rankings (the same results).

    >>> result = divaeval.sensitivity("sample_data/qrels.txt", "alpha-nDCG@20", samples=50)
    >>> result.table(per_topic=False)[
    ...     ["measure", "topic", "relevant", "samples", "seed", "dss"]].round(4)
             measure topic  relevant  samples  seed     dss
    0  alpha-nDCG@20   all        10       50    42  0.1386
    """

    chosen = _measures(measures)
    cutoffs = _integers(cutoff, "cutoff", 1)
    _integer(samples, "samples", 2)
    _integer(seed, "seed", 0, none=True)
    _function(progress, "progress")
    settings = _settings(settings, options, SAMPLING)
    points = parse_grid(_measures(grid, "grid"))
    with _library_call() as inputs, _workers(settings) as workers:
        settings = _in_memory(inputs, settings)
        index = index_qrels(inputs.qrels(qrels), settings, warn_empty=False)
        result = selection_sensitivity(
            index,
            chosen,
            cutoffs=cutoffs or [DEFAULT_CUTOFF],
            samples=samples,
            seed=seed,
            mean=settings.mean,
            dd_exponent=settings.exponent,
            rel_level=settings.rel_level,
            grid=points,
            progress=progress,
            workers=workers,
        )
    signature = (
        f"divaeval {__version__}|meta sensitivity|{settings.signature(SAMPLING)}|"
        f"{settings.mean_signature()}|{result.signature}"
    )
    return SensitivityResult(signature, result)
