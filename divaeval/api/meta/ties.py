"""``divaeval meta ties``: tie probabilities of random rankings (Diaz, Ekstrand & Mitra §5.3,
§2.2, Table 2 and Figure 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from divaeval import __version__
from divaeval.api._common import _flag, _integer, _integers, _library_call, _measures
from divaeval.api.results import TableResult
from divaeval.errors import UsageError
from divaeval.meta.depth_ties import DEFAULT_SAMPLES as DEPTH_SAMPLES
from divaeval.meta.depth_ties import depth_ties_frame, figure6
from divaeval.meta.ties import DEFAULT_SAMPLES, DEFAULT_SEED, ties_frame, worst_case_frame


@dataclass(eq=False, repr=False)
class TiesResult(TableResult):
    """:func:`ties`: the probabilities, and what they are (:attr:`title`)."""

    title: str = ""


def ties(
    n: int | Sequence[int],
    m: int | Sequence[int] = (),
    *,
    cutoff: int = 1000,
    measures: str | Sequence[str] | None = (),
    samples: int | None = None,
    seed: int | None = None,
    worst_case: bool = False,
    depth: int | Sequence[int] = (),
    requests: int = 25,
) -> TiesResult:
    """Tie probabilities of two random complete rankings of ``n`` items with ``m`` relevant
    (``divaeval meta ties``; Diaz, Ekstrand & Mitra §5.3): exact for TSE, R@k (``cutoff``),
    R-precision and lexirecall, Monte Carlo for ``measures``; ``worst_case=True`` gives their
    Table 2 (m drawn from U(5, 50)). With ``depth``, the rankings are cut at each depth and
    the relevant items they miss imputed at the bottom (§2.2): exact for TSE, R@k, RP and
    lexirecall, Monte Carlo (``samples`` pairs) for those and AP and nDCG; without ``m``, their
    Figure 6: the average over ``requests`` requests with m drawn from U(5, 50).

    >>> divaeval.ties(100, 10, cutoff=10).frame[["n", "m", "R@10", "RP"]].round(4)
         n   m   R@10     RP
    0  100  10  0.319  0.319
    >>> divaeval.ties(1000, 5, depth=[1000, 100]).frame[["depth", "TSE", "LR"]].round(4)
       depth     TSE     LR
    0   1000  0.0028  0.000
    1    100  1.0000  0.349
    """

    sizes_n = _integers(n, "n", 1)
    sizes_m = _integers(m, "m", 1)
    depths = _integers(depth, "depth", 0)
    _integer(cutoff, "cutoff", 0)
    _integer(samples, "samples", 1, none=True)
    _integer(seed, "seed", 0, none=True)
    _flag(worst_case, "worst_case")
    _integer(requests, "requests", 1)
    chosen = _measures(measures)
    seed = DEFAULT_SEED if seed is None else seed
    with _library_call():
        if depths:
            return _depth_ties(
                sizes_n, sizes_m, depths, cutoff, chosen, samples, seed, worst_case, requests
            )
        if worst_case:
            if sizes_m:
                raise UsageError("ties: worst_case draws m ~ U(5, 50); do not give m")
            samples = 10_000 if samples is None else samples
            frame = worst_case_frame(sizes_n, measures=chosen, samples=samples, seed=seed)
            signature = f"worst-case|m~U(5,50)|samples={samples}|seed={seed}"
            title = "agreement with the worst case (Diaz et al. Table 2)"
        else:
            if not sizes_m:
                raise UsageError("ties: give m (the number of relevant items)")
            samples = DEFAULT_SAMPLES if samples is None else samples
            frame = ties_frame(
                sizes_n, sizes_m, k=cutoff, measures=chosen, samples=samples, seed=seed
            )
            signature = f"k={cutoff}" + (f"|samples={samples}|seed={seed}" if chosen else "")
            title = "probability of a tie (exact; Monte Carlo for -m measures)"
    return TiesResult(f"divaeval {__version__}|meta ties|{signature}", frame, title=title)


def _depth_ties(
    sizes_n: list[int],
    sizes_m: list[int],
    depths: list[int],
    cutoff: int,
    measures: list[str],
    samples: int | None,
    seed: int,
    worst_case: bool,
    requests: int,
) -> TiesResult:
    """:func:`ties` of rankings cut at ``depths`` (Diaz et al. §2.2 and Figure 6)."""

    if worst_case:
        raise UsageError("ties: depth and worst_case do not go together")
    if measures:
        raise UsageError(
            "ties: with depth the Monte Carlo measures are TSE, R@k, RP, AP, nDCG and "
            "lexirecall, from the imputed positions; do not give measures"
        )
    samples = DEPTH_SAMPLES if samples is None else samples
    if sizes_m:
        frame = depth_ties_frame(sizes_n, sizes_m, depths, k=cutoff, samples=samples, seed=seed)
        title = "probability of a tie at each depth, unretrieved items imputed at the bottom"
        signature = f"k={cutoff}|imputation=pessimistic|samples={samples}|seed={seed}"
    else:
        frames = [
            figure6(depths, n=size, requests=requests, k=cutoff, samples=samples, seed=seed).frame()
            for size in sizes_n
        ]
        frame = pd.concat(frames, ignore_index=True)
        title = "ties against depth, m ~ U(5, 50) per request (Diaz et al. Figure 6)"
        signature = (
            f"k={cutoff}|imputation=pessimistic|requests={requests}|m~U(5,50)|"
            f"samples={samples}|seed={seed}"
        )
    return TiesResult(f"divaeval {__version__}|meta ties|{signature}", frame, title=title)
