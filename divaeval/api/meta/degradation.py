"""``divaeval meta degradation``: label degradation (Diaz, Ekstrand & Mitra §6.2.4, Figs.
12-13)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from divaeval import __version__
from divaeval.api._common import (
    _choice,
    _fractions,
    _in_memory,
    _integer,
    _library_call,
    _measures,
    _settings,
)
from divaeval.api.results import TableResult
from divaeval.evaluation import load_inputs
from divaeval.meta.agreement import DIAZ_MEASURES
from divaeval.meta.degradation import (
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    SAMPLINGS,
    runs_label_degradation,
)
from divaeval.settings import COMPARING, Settings


def degradation(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    fractions: float | Sequence[float] = (0.1, 0.3, 0.5, 0.7, 0.9),
    sampling: str = "uniform",
    samples: int | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Label degradation (``divaeval meta degradation``; Diaz, Ekstrand & Mitra §6.2.4, Figs.
    12-13): for each fraction, ``samples`` times (default 10, seeded), remove that share of
    every topic's relevant documents (keeping one; ``sampling`` uniform, or popular: weighted
    by the number of runs retrieving them), and report per measure and lexirecall the share
    of tied comparisons (``ties``) and the share of the comparisons the degraded labels decide
    that the complete labels decide alike (``agreement``), with their standard deviations.
    Default measures: the paper's R@1000, Rprec, AP, nDCG, RR and nDCG@10.

    >>> frame = divaeval.degradation(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["AP"], fractions=0.5, samples=3).frame
    >>> frame[["fraction", "measure", "ties", "agreement", "seed"]].round(4)
       fraction     measure  ties  agreement  seed
    0       0.0          AP   0.0     1.0000    42
    1       0.0  lexirecall   0.0     1.0000    42
    2       0.5          AP   0.0     0.8889    42
    3       0.5  lexirecall   0.0     0.8444    42
    """

    chosen = _measures(measures) or list(DIAZ_MEASURES)
    shares = _fractions(fractions)
    _choice(sampling, "sampling", SAMPLINGS)
    _integer(samples, "samples", 1, none=True)
    _integer(seed, "seed", 0, none=True)
    settings = _settings(settings, options, COMPARING, complete=True)
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        read, index = load_inputs(inputs.runs(runs), inputs.qrels(qrels), settings)
        result = runs_label_degradation(
            read,
            index.qrels,
            chosen,
            settings,
            shares,
            sampling=sampling,
            samples=DEFAULT_SAMPLES if samples is None else samples,
            seed=DEFAULT_SEED if seed is None else seed,
            rel_level=settings.rel_level,
        )
    signature = f"divaeval {__version__}|meta degradation|{settings.signature()}|{result.signature}"
    return TableResult(signature, result.frame())
