"""Ties of recall measures on truncated rankings with pessimistic imputation (Diaz, Ekstrand &
Mitra, TORS 2025, §2.2 and §5.1, Figure 6).

A system retrieves the top ``depth`` (ñ) of a ranking of ``n`` items, ``m`` of them relevant.
The relevant items it does not retrieve are imputed **pessimistically** (§2.2): they take the
last positions of the complete ranking, n − u + 1, …, n for u unretrieved items, below the
n − ñ − u unretrieved non-relevant ones. A ranking then matters only through the positions
p_1 < … < p_m of its relevant items after imputation. Two rankings drawn uniformly at random
tie under a measure when the measure gives both the same value; Figure 6 plots the fraction of
tied pairs against ñ for n = 250,000 and 25 requests with m ~ U(5, 50).

Exact tie probabilities (fractions of Python ints). Let S be the retrieved relevant positions
(S ⊆ {1…ñ}, |S| = r): Pr(S) = C(n − ñ, m − r) / C(n, m).

- lexirecall: the imputed vectors are equal iff S = S′:
  Σ_r C(ñ, r)·Pr(S)², the complete-ranking 1/C(n, m) (Theorem D.1) when ñ = n;
- TSE (any exposure; it reads p_m only): both miss a relevant item (p_m = p′_m = n) or both
  retrieve all m with the same last position: (1 − C(ñ, m)/C(n, m))² + Σ_{i=m..ñ} C(i−1, m−1)²
  / C(n, m)² (Theorem D.2 when ñ = n);
- R@k: the relevant items among the top k of the imputed ranking, a of S within the first
  min(k, ñ) positions plus the imputed ones that reach position k, max(0, k − (n − u));
  Pr(a, r) = C(k′, a)·C(ñ − k′, r − a)·C(n − ñ, m − r) / C(n, m) with k′ = min(k, ñ), and the
  tie probability is Σ_v Pr(R@k = v)² (Theorem D.3 when ñ = n);
- R-precision: R@m (Theorem D.4).

Any other measure (AP, nDCG) is estimated by Monte Carlo from the imputed positions, with the
paper's recall-level forms (§2.3.1, Eq. 1): AP = (1/m)·Σ_i i/p_i and nDCG = Σ_i 1/log2(p_i + 1)
÷ Σ_{i≤m} 1/log2(i + 1), which equal divaeval's ``AP`` and ``nDCG`` on the complete imputed
ranking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import UsageError
from divaeval.meta.ties import tie_tse

if TYPE_CHECKING:
    import pandas as pd

#: Figure 6's setting: n = 250,000 items, 25 requests, m ~ U{5, …, 50}.
FIGURE6_N = 250_000
FIGURE6_REQUESTS = 25
FIGURE6_M = (5, 50)
DEFAULT_SEED = 42
DEFAULT_SAMPLES = 1000
#: The measures with exact tie probabilities, and the Monte Carlo ones.
EXACT_MEASURES = ("TSE", "R@1000", "RP", "LR")
SAMPLED_MEASURES = ("AP", "nDCG")


def _check(n: int, m: int, depth: int) -> None:
    if n < 1 or m < 1 or m > n:
        raise UsageError(f"ties: need 1 <= m <= n, got n={n}, m={m}")
    if depth < 0 or depth > n:
        raise UsageError(f"ties: the depth must be between 0 and n = {n}, not {depth}")


def _retrieved_set_probability(n: int, m: int, depth: int, r: int) -> Fraction:
    """Pr(S) of one particular set S of r retrieved relevant positions."""
    return Fraction(math.comb(n - depth, m - r), math.comb(n, m))


def tie_lexirecall_at_depth(n: int, m: int, depth: int) -> Fraction:
    """Pr(π =_LR π′) after truncation at ``depth`` and pessimistic imputation:
    Σ_r C(ñ, r)·(C(n − ñ, m − r)/C(n, m))²."""
    _check(n, m, depth)
    return sum(
        (
            math.comb(depth, r) * _retrieved_set_probability(n, m, depth, r) ** 2
            for r in range(min(m, depth) + 1)
        ),
        Fraction(0),
    )


def tie_tse_at_depth(n: int, m: int, depth: int) -> Fraction:
    """Pr(π =_TSE π′) after truncation and imputation: both rankings miss a relevant item (the
    last one is imputed at n), or both retrieve all m with the same last position."""
    _check(n, m, depth)
    complete = Fraction(math.comb(depth, m), math.comb(n, m))  # Pr(all m retrieved)
    if complete == 0:
        return Fraction(1)
    # Σ_{i=m..ñ} C(i−1, m−1)² / C(n, m)² = Pr(equal last position | n = ñ)·Pr(all retrieved)²,
    # in m terms (Theorem D.2's sum, as meta.ties computes it)
    return (1 - complete) ** 2 + tie_tse(depth, m) * complete**2


def recall_at_depth_distribution(n: int, m: int, k: int, depth: int) -> dict[int, Fraction]:
    """Pr(R@k·m = v): the number of relevant items among the top k of the imputed ranking."""
    _check(n, m, depth)
    if k < 0:
        raise UsageError(f"ties: the cutoff k must be >= 0, not {k}")
    k = min(k, n)
    head = min(k, depth)  # retrieved positions that count for R@k
    total = math.comb(n, m)
    out: dict[int, Fraction] = {}
    for r in range(min(m, depth) + 1):  # retrieved relevant items
        rest = math.comb(n - depth, m - r)
        if rest == 0:
            continue
        imputed = max(0, k - (n - (m - r)))  # imputed items that reach the top k
        for a in range(min(r, head) + 1):  # of them within the first min(k, ñ) positions
            ways = math.comb(head, a) * math.comb(depth - head, r - a) * rest
            if ways:
                value = a + imputed
                out[value] = out.get(value, Fraction(0)) + Fraction(ways, total)
    return out


def tie_recall_at_depth(n: int, m: int, k: int, depth: int) -> Fraction:
    """Pr(π =_{R@k} π′) after truncation and imputation: Σ_v Pr(R@k = v)²."""
    return sum((p * p for p in recall_at_depth_distribution(n, m, k, depth).values()), Fraction(0))


def tie_rprecision_at_depth(n: int, m: int, depth: int) -> Fraction:
    """Pr(π =_RP π′) after truncation and imputation: R@m's."""
    return tie_recall_at_depth(n, m, m, depth)


def depth_ties(n: int, m: int, depth: int, k: int = 1000) -> dict[str, Fraction]:
    """The exact tie probabilities of TSE, R@k, RP and lexirecall at one depth."""
    return {
        "TSE": tie_tse_at_depth(n, m, depth),
        f"R@{k}": tie_recall_at_depth(n, m, k, depth),
        "RP": tie_rprecision_at_depth(n, m, depth),
        "LR": tie_lexirecall_at_depth(n, m, depth),
    }


# --- Monte Carlo from imputed positions ----------------------------------------------------------


def impute_positions(positions: np.ndarray, n: int, depth: int) -> np.ndarray:
    """Pessimistic imputation (§2.2) of sorted 1-based relevant positions ``[..., m]`` of
    complete rankings truncated at ``depth``: the u positions beyond the depth become
    n − u + 1, …, n (the order among them is kept)."""
    positions = np.asarray(positions, dtype=np.int64)
    missed = positions > depth
    unretrieved = missed.sum(axis=-1, keepdims=True)
    # the j-th missed item (0-based, in order) goes to n - u + 1 + j
    order = np.cumsum(missed, axis=-1) - 1
    return np.where(missed, n - unretrieved + 1 + order, positions)


def _ap(p: np.ndarray) -> np.ndarray:
    m = p.shape[-1]
    return (np.arange(1, m + 1) / p).sum(axis=-1) / m


def _ndcg(p: np.ndarray) -> np.ndarray:
    m = p.shape[-1]
    ideal = (1.0 / np.log2(np.arange(2, m + 2))).sum()
    return (1.0 / np.log2(p + 1.0)).sum(axis=-1) / ideal


def _tse(p: np.ndarray) -> np.ndarray:
    return -p[..., -1].astype(np.float64)  # a lower last position is better


def _recall(k: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda p: (p <= k).sum(axis=-1) / p.shape[-1]


def _rprecision(p: np.ndarray) -> np.ndarray:
    return (p <= p.shape[-1]).sum(axis=-1) / p.shape[-1]


def position_measures(k: int = 1000) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Measures of a ranking computed from its relevant positions ``[..., m]`` (values; ties
    are equal values, lexirecall compares the vectors themselves)."""
    return {
        "TSE": _tse,
        f"R@{k}": _recall(k),
        "RP": _rprecision,
        "AP": _ap,
        "nDCG": _ndcg,
    }


def random_positions(rng: np.random.Generator, n: int, m: int, count: int) -> np.ndarray:
    """``[count, m]`` sorted 1-based positions of the relevant items of ``count`` uniformly
    random rankings of n items."""
    out = np.empty((count, m), dtype=np.int64)
    for row in range(count):
        out[row] = np.sort(rng.choice(n, size=m, replace=False)) + 1
    return out


def sampled_depth_ties(
    n: int,
    m: int,
    depths: Sequence[int],
    *,
    k: int = 1000,
    samples: int = DEFAULT_SAMPLES,
    rng: np.random.Generator,
) -> dict[int, dict[str, float]]:
    """Monte Carlo tie fractions of every :func:`position_measures` measure and lexirecall
    (``LR``) over ``samples`` pairs of random rankings, each truncated at every depth (the same
    pairs for every depth)."""
    for depth in depths:
        _check(n, m, depth)
    if samples < 1:
        raise UsageError(f"ties: samples must be >= 1, not {samples}")
    first = random_positions(rng, n, m, samples)
    second = random_positions(rng, n, m, samples)
    measures = position_measures(k)
    out: dict[int, dict[str, float]] = {}
    for depth in depths:
        a, b = impute_positions(first, n, depth), impute_positions(second, n, depth)
        row = {name: float(np.mean(f(a) == f(b))) for name, f in measures.items()}
        row["LR"] = float(np.mean((a == b).all(axis=-1)))
        out[int(depth)] = row
    return out


@dataclass(frozen=True)
class Figure6:
    """Figure 6: per depth, the tie fraction of each measure averaged over the requests.

    ``exact[depth][measure]`` averages the exact probabilities over the requests' m;
    ``sampled[depth][measure]`` the Monte Carlo fractions (``samples`` pairs per request)."""

    n: int
    requests: int
    sizes: list[int]
    depths: list[int]
    samples: int
    seed: int
    k: int
    exact: dict[int, dict[str, float]]
    sampled: dict[int, dict[str, float]]

    def frame(self) -> pd.DataFrame:
        """One row per depth: n, depth, the exact columns, then ``<measure> (MC)`` columns,
        samples and seed."""
        import pandas as pd

        rows = []
        for depth in self.depths:
            row: dict = {"n": self.n, "depth": depth, "requests": self.requests}
            row.update(self.exact[depth])
            row.update({f"{name} (MC)": value for name, value in self.sampled[depth].items()})
            row["samples"] = self.samples
            row["seed"] = self.seed
            rows.append(row)
        return pd.DataFrame(rows)


def figure6(
    depths: Sequence[int],
    *,
    n: int = FIGURE6_N,
    requests: int = FIGURE6_REQUESTS,
    m_range: tuple[int, int] = FIGURE6_M,
    k: int = 1000,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> Figure6:
    """Diaz et al.'s Figure 6: ``requests`` requests with m ~ U{m_range} (seeded); for each,
    the exact tie probabilities of TSE, R@k, RP and lexirecall at every depth, and Monte Carlo
    tie fractions of those and of AP and nDCG over ``samples`` random pairs; each averaged over
    the requests."""
    low, high = m_range
    if not 1 <= low <= high <= n:
        raise UsageError(f"ties: need 1 <= m_min <= m_max <= n, got {m_range} with n={n}")
    if requests < 1:
        raise UsageError(f"ties: requests must be >= 1, not {requests}")
    depths = sorted({int(d) for d in depths}, reverse=True)
    if not depths:
        raise UsageError("ties: give at least one depth")
    rng = np.random.default_rng(seed)
    sizes = [int(m) for m in rng.integers(low, high + 1, size=requests)]
    exact_sum: dict[int, dict[str, Fraction]] = {d: {} for d in depths}
    sampled_sum: dict[int, dict[str, float]] = {d: {} for d in depths}
    for m in sizes:
        for depth in depths:
            for name, p in depth_ties(n, m, depth, k).items():
                exact_sum[depth][name] = exact_sum[depth].get(name, Fraction(0)) + p
        for depth, row in sampled_depth_ties(n, m, depths, k=k, samples=samples, rng=rng).items():
            for name, value in row.items():
                sampled_sum[depth][name] = sampled_sum[depth].get(name, 0.0) + value
    exact = {
        d: {name: float(p / requests) for name, p in row.items()} for d, row in exact_sum.items()
    }
    sampled = {d: {name: v / requests for name, v in row.items()} for d, row in sampled_sum.items()}
    return Figure6(n, requests, sizes, depths, samples, seed, k, exact, sampled)


def depth_ties_frame(
    ns: Sequence[int],
    ms: Sequence[int],
    depths: Sequence[int],
    *,
    k: int = 1000,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """One row per (n, m, depth): the exact tie probabilities of TSE, R@k, RP and lexirecall
    (as floats) and the Monte Carlo fractions of every :func:`position_measures` measure and
    lexirecall (``<measure> (MC)``, ``samples`` pairs per (n, m), the same pairs at every
    depth), samples and seed."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        for m in ms:
            chosen = list(depths) if depths else [n]
            sampled = sampled_depth_ties(n, m, chosen, k=k, samples=samples, rng=rng)
            for depth in chosen:
                row: dict = {"n": n, "m": m, "depth": depth}
                row.update({name: float(p) for name, p in depth_ties(n, m, depth, k).items()})
                row.update({f"{name} (MC)": value for name, value in sampled[depth].items()})
                row["samples"] = samples
                row["seed"] = seed
                rows.append(row)
    return pd.DataFrame(rows)


__all__ = [
    "Figure6",
    "depth_ties",
    "depth_ties_frame",
    "figure6",
    "impute_positions",
    "position_measures",
    "random_positions",
    "recall_at_depth_distribution",
    "sampled_depth_ties",
    "tie_lexirecall_at_depth",
    "tie_recall_at_depth",
    "tie_rprecision_at_depth",
    "tie_tse_at_depth",
]
