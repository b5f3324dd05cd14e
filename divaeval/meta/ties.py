"""Tie probabilities of recall measures (Diaz, Ekstrand & Mitra, TORS 2025, §5.3, Appendix D)
and the worst-case comparison of their Table 2.

Two rankings π, π′ are drawn uniformly from the permutations of ``n`` items of which ``m`` are
relevant (complete rankings, binary relevance). A ranking matters only through the positions
p_1 < … < p_m of its relevant items, a uniform m-subset of 1…n.

Analytic probabilities (Theorems D.1–D.4), exact (:class:`fractions.Fraction` of Python ints):

- TSE (any exposure): Pr(p_m = p′_m) = C(n,m)^−2 · Σ_{i=m..n} C(i−1, m−1)²
- R@k: Pr(Rel(p,k) = Rel(p′,k)) = C(n,m)^−2 · Σ_{i=0..m} C(k,i)² C(n−k, m−i)²
- R-precision: R@m
- lexirecall: Pr(p = p′) = 1/C(n,m)

Monte Carlo estimates (seeded) work for any registered measure: pairs of random position sets
become judged rankings of n documents (one topic with m relevant documents) scored through the
normal metric machinery, so the cost is O(samples · n) per measure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from divaeval.errors import UsageError
from divaeval.judged import JudgedRankings, judge_texts
from divaeval.meta.axioms import tolerance
from divaeval.metrics import Measure, compute_measures, parse_measure
from divaeval.settings import Settings

#: Judged-ranking cells (documents × rankings) scored at once.
CELL_BUDGET = 1 << 22
DEFAULT_SEED = 42
DEFAULT_SAMPLES = 1000
#: Table 2's relevant-set sizes: m ~ U{5, …, 50}.
TABLE2_M = (5, 50)


def _check(n: int, m: int) -> None:
    if n < 1 or m < 1 or m > n:
        raise UsageError(f"ties: need 1 <= m <= n, got n={n}, m={m}")


def tie_tse(n: int, m: int) -> Fraction:
    """Pr(π =_TSE π′) = C(n,m)^−2 Σ_{i=m}^{n} C(i−1,m−1)² (Theorem D.2): the last relevant
    positions coincide.

    The sum has n − m + 1 terms; it is computed in m terms, exactly: with r = m − 1,
    C(x,r)² = Σ_k C(x, 2r−k)·C(2r−k, r)·C(r, k) (pairs of r-subsets of an x-set by the size
    2r − k of their union) and Σ_{x<n} C(x, s) = C(n, s+1) (hockey stick), so
    Σ_{i=m}^{n} C(i−1, r)² = Σ_{k=0}^{r} C(2r−k, r)·C(r, k)·C(n, 2r−k+1)."""
    _check(n, m)
    r = m - 1
    total = sum(
        math.comb(2 * r - k, r) * math.comb(r, k) * math.comb(n, 2 * r - k + 1)
        for k in range(r + 1)
    )
    return Fraction(total, math.comb(n, m) ** 2)


def tie_recall_at(n: int, m: int, k: int) -> Fraction:
    """Pr(π =_{R@k} π′) = C(n,m)^−2 Σ_{i=0}^{m} C(k,i)² C(n−k,m−i)² (Theorem D.3)."""
    _check(n, m)
    if k < 0:
        raise UsageError(f"ties: the cutoff k must be >= 0, not {k}")
    k = min(k, n)
    total = sum((math.comb(k, i) * math.comb(n - k, m - i)) ** 2 for i in range(m + 1))
    return Fraction(total, math.comb(n, m) ** 2)


def tie_rprecision(n: int, m: int) -> Fraction:
    """Pr(π =_RP π′) = R@m's (Theorem D.4)."""
    return tie_recall_at(n, m, m)


def tie_lexirecall(n: int, m: int) -> Fraction:
    """Pr(π =_LR π′) = m!(n−m)!/n! = 1/C(n,m) (Theorem D.1): only equal position sets tie."""
    _check(n, m)
    return Fraction(1, math.comb(n, m))


def analytic_ties(n: int, m: int, k: int = 1000) -> dict[str, Fraction]:
    """The four analytic tie probabilities, keyed TSE, R@k, RP, LR."""
    return {
        "TSE": tie_tse(n, m),
        f"R@{k}": tie_recall_at(n, m, k),
        "RP": tie_rprecision(n, m),
        "LR": tie_lexirecall(n, m),
    }


def last_position_distribution(n: int, m: int) -> list[Fraction]:
    """Pr(p_m = i) for i = m … n (sums to 1: the hockey-stick identity)."""
    _check(n, m)
    total = math.comb(n, m)
    return [Fraction(math.comb(i - 1, m - 1), total) for i in range(m, n + 1)]


def recall_count_distribution(n: int, m: int, k: int) -> list[Fraction]:
    """Pr(Rel(p, k) = i) for i = 0 … m (hypergeometric; sums to 1: Vandermonde)."""
    _check(n, m)
    k = min(k, n)
    total = math.comb(n, m)
    return [Fraction(math.comb(k, i) * math.comb(n - k, m - i), total) for i in range(m + 1)]


# --- Monte Carlo through the metric machinery ---------------------------------------------------


def _parse(measures: Sequence):
    out = []
    for item in measures:
        for measure in [item] if isinstance(item, Measure) else parse_measure(item):
            if measure not in out:
                out.append(measure)
    if not out:
        raise UsageError("ties: no measure given")
    return out


def _materials(sizes: Sequence[int]):
    """Judged-rankings material of one topic per relevant-set size m (topic ``m``, relevant
    documents ``r1``…``rm``, grade 1), and the settings to judge with."""
    sizes = sorted(set(sizes))
    qrels = "".join(f"{m} 0 r{j} 1\n" for m in sizes for j in range(1, m + 1))
    settings = Settings(order="file", complete=True)
    (jr,) = judge_texts(qrels, [f"{sizes[0]} Q0 r1 1 1 tie\n"], settings=settings)
    row_of = {int(t): row for row, t in enumerate(jr.topics)}
    return jr.material, row_of, settings


def random_positions(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """0-based positions of the m relevant items of a uniformly random ranking of n items."""
    return np.sort(rng.choice(n, size=m, replace=False))


def score_positions(measures, positions: Sequence[np.ndarray], n: int) -> dict:
    """Measure -> [len(positions)] scores of complete rankings of ``n`` documents whose
    relevant documents sit at ``positions`` (0-based; the set's size is the topic's m)."""
    material, row_of, settings = _materials([len(p) for p in positions])
    out = {measure: np.empty(len(positions)) for measure in measures}
    batch = max(1, CELL_BUDGET // n)
    for start in range(0, len(positions), batch):
        chunk = positions[start : start + batch]
        grades = np.zeros((len(chunk), n, 1), dtype=np.int16)
        for row, where in enumerate(chunk):
            grades[row, where, 0] = 1
        jr = JudgedRankings(
            run_name="tie",
            material=material.take(np.array([row_of[len(p)] for p in chunk])),
            grades=grades,
            judged=grades[:, :, 0] > 0,
            length=np.full(len(chunk), n, dtype=np.int64),
            in_run=np.ones(len(chunk), dtype=bool),
            settings=settings,
        )
        values = compute_measures(jr, measures)
        for measure in measures:
            out[measure][start : start + len(chunk)] = values[measure]
    return out


def _equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tied scores: equal within the axioms checker's tolerance."""
    return np.abs(a - b) <= tolerance(a, b)


@dataclass(frozen=True)
class TieEstimate:
    """A Monte Carlo tie fraction: ``ties`` of ``samples`` pairs."""

    measure: str
    ties: int
    samples: int

    @property
    def fraction(self) -> float:
        return self.ties / self.samples

    @property
    def standard_error(self) -> float:
        p = self.fraction
        return math.sqrt(p * (1.0 - p) / self.samples)


def monte_carlo_ties(
    measures: Sequence,
    n: int,
    m: int,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[TieEstimate]:
    """Fraction of ``samples`` random pairs of complete rankings (n items, m relevant) that
    each measure ties (equal within :func:`divaeval.meta.axioms.tolerance`)."""
    _check(n, m)
    if samples < 1:
        raise UsageError(f"ties: samples must be >= 1, not {samples}")
    parsed = _parse(measures)
    rng = np.random.default_rng(seed)
    positions = [random_positions(rng, n, m) for _ in range(2 * samples)]
    scores = score_positions(parsed, positions, n)
    return [
        TieEstimate(
            measure.name,
            int(_equal(scores[measure][0::2], scores[measure][1::2]).sum()),
            samples,
        )
        for measure in parsed
    ]


# --- Table 2: agreement with the worst case -----------------------------------------------------


@dataclass(frozen=True)
class WorstCaseComparison:
    """Table 2 for one corpus size: the fraction of pairs tied in the worst case (equal last
    relevant positions) and, per measure, the fraction of the untied pairs where the measure
    prefers the same ranking as the worst case (``random``: a fair coin)."""

    n: int
    samples: int
    seed: int
    tied: float
    agreement: dict[str, float]
    #: the expected tied fraction, exactly: the mean of Pr(π =_TSE π′) over m ~ U{m_range}
    tied_exact: float = math.nan


def worst_case_comparison(
    measures: Sequence,
    n: int,
    *,
    samples: int = 10_000,
    seed: int = DEFAULT_SEED,
    m_range: tuple[int, int] = TABLE2_M,
) -> WorstCaseComparison:
    """Diaz et al.'s Table 2: per pair, m ~ U{m_range} and two random complete rankings; the
    worst-off user prefers the ranking whose last relevant item is higher (TSE's order). A
    measure agrees on a pair when it strictly prefers the same ranking."""
    low, high = m_range
    if not 1 <= low <= high <= n:
        raise UsageError(f"ties: need 1 <= m_min <= m_max <= n, got {m_range} with n={n}")
    if samples < 1:
        raise UsageError(f"ties: samples must be >= 1, not {samples}")
    parsed = _parse(measures)
    rng = np.random.default_rng(seed)
    sizes = rng.integers(low, high + 1, size=samples)
    positions = []
    for m in sizes:
        positions.append(random_positions(rng, n, int(m)))
        positions.append(random_positions(rng, n, int(m)))
    coin = rng.integers(0, 2, size=samples) * 2 - 1
    worst = np.array([p[-1] for p in positions])
    wc = np.sign(worst[1::2] - worst[0::2])  # +1: the first ranking's worst case is better
    untied = wc != 0
    scores = score_positions(parsed, positions, n)
    agreement = {}
    for measure in parsed:
        a, b = scores[measure][0::2], scores[measure][1::2]
        sign = np.where(_equal(a, b), 0, np.sign(a - b))
        agreement[measure.name] = float((sign == wc)[untied].mean()) if untied.any() else math.nan
    agreement["random"] = float((coin == wc)[untied].mean()) if untied.any() else math.nan
    exact = sum(tie_tse(n, m) for m in range(low, high + 1)) / (high - low + 1)
    return WorstCaseComparison(
        n, samples, seed, float(1.0 - untied.mean()), agreement, float(exact)
    )


def table2_measures() -> list:
    """Table 2's measures: TSE (AP exposure; every exposure orders pairs alike), R@1000,
    R-precision, AP and nDCG over the whole ranking."""
    return _parse(["TSE-ap", "R@1000", "Rprec", "AP", "nDCG"])


def ties_frame(
    ns: Sequence[int],
    ms: Sequence[int],
    *,
    k: int = 1000,
    measures: Sequence = (),
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
):
    """One row per (n, m): the analytic tie probabilities (as floats) and, for ``measures``,
    Monte Carlo tie fractions with their standard errors, samples and seed."""
    rows = []
    for n in ns:
        for m in ms:
            row: dict = {"n": n, "m": m}
            row.update({name: float(p) for name, p in analytic_ties(n, m, k).items()})
            if measures:
                for estimate in monte_carlo_ties(measures, n, m, samples=samples, seed=seed):
                    row[f"{estimate.measure} (MC)"] = estimate.fraction
                    row[f"{estimate.measure} (MC) se"] = estimate.standard_error
                row["samples"] = samples
                row["seed"] = seed
            rows.append(row)
    return pd.DataFrame(rows)


def worst_case_frame(
    ns: Sequence[int],
    *,
    measures: Sequence = (),
    samples: int = 10_000,
    seed: int = DEFAULT_SEED,
    m_range: tuple[int, int] = TABLE2_M,
):
    """Table 2, one row per n: the tied fraction (sampled, and its exact expectation), the
    agreement of each measure and of a fair coin."""
    chosen = list(measures) or table2_measures()
    rows = []
    for n in ns:
        result = worst_case_comparison(chosen, n, samples=samples, seed=seed, m_range=m_range)
        rows.append(
            {
                "n": n,
                "samples": samples,
                "seed": seed,
                "tied": result.tied,
                "tied (exact)": result.tied_exact,
                **result.agreement,
            }
        )
    return pd.DataFrame(rows)


# --- the paper's tables -------------------------------------------------------------------------

#: Table 3 (m = 10) and Table 4 (n = 10^6) as printed: (n, m) -> (TSE, R@1000, RP, AP, LR).
PAPER_TABLE3: dict[int, tuple[str, ...]] = {
    10**3: ("0.005", "1.000", "0.825", "0.000", "0.000"),
    10**4: ("0.001", "0.313", "0.980", "0.000", "0.000"),
    10**5: ("0.000", "0.826", "0.998", "0.000", "0.000"),
    10**6: ("0.000", "0.980", "1.000", "0.000", "0.000"),
}
PAPER_TABLE4: dict[int, tuple[str, ...]] = {
    1: ("0.000", "0.998", "1.000", "0.000", "0.000"),
    5: ("0.000", "0.990", "1.000", "0.000", "0.000"),
    10: ("0.000", "0.981", "1.000", "0.000", "0.000"),
    25: ("0.000", "0.952", "0.999", "0.000", "0.000"),
    50: ("0.000", "0.907", "0.995", "0.000", "0.000"),
}
#: Table 2 as printed: n -> (tied, TSE, R@1000, RP, AP, NDCG, random).
PAPER_TABLE2: dict[int, tuple[str, ...]] = {
    10**3: ("0.012", "1.000", "0.000", "0.285", "0.541", "0.535", "0.492"),
    10**4: ("0.001", "1.000", "0.420", "0.077", "0.552", "0.549", "0.497"),
    10**5: ("0.000", "1.000", "0.179", "0.008", "0.554", "0.555", "0.498"),
    10**6: ("0.000", "1.000", "0.026", "0.001", "0.547", "0.554", "0.499"),
}


def printed(value: Fraction | float, digits: int = 3) -> str:
    """``value`` rounded half-up to ``digits`` decimals (exactly, for a Fraction)."""
    scaled = Fraction(value) * 10**digits
    whole = math.floor(scaled + Fraction(1, 2))
    return f"{whole / 10**digits:.{digits}f}"


__all__ = [
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "TieEstimate",
    "WorstCaseComparison",
    "analytic_ties",
    "last_position_distribution",
    "monte_carlo_ties",
    "printed",
    "recall_count_distribution",
    "score_positions",
    "table2_measures",
    "tie_lexirecall",
    "tie_recall_at",
    "tie_rprecision",
    "tie_tse",
    "ties_frame",
    "worst_case_comparison",
    "worst_case_frame",
]
