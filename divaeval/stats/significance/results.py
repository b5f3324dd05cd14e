"""The results of the significance tests: one run pair's (:class:`TTestResult`,
:class:`BootstrapTestResult`, :class:`RandomizationTestResult`, :class:`SignTestResult`) and
every pair's of a score table (:class:`PairwiseTests`, :class:`TukeyHSDResult`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TTestResult:
    """Paired t-test of one run pair."""

    statistic: float
    p_value: float
    df: int
    mean_difference: float
    degenerate: bool  # all differences equal within the tolerance (s = 0): no evidence, p = 1


@dataclass(frozen=True)
class BootstrapTestResult:
    """Sakai's paired bootstrap test of one run pair (Fig. 2) with its Δ estimate (Fig. 3)."""

    statistic: float  # t(z)
    p_value: float  # ASL = count / B
    count: int
    B: int | None  # None for the exact enumeration
    seed: int | None
    alpha: float
    required_delta: float  # |w̄*| of the ⌈αB⌉-th largest |t(w*)| (Fig. 3)
    degenerate: bool


@dataclass(frozen=True)
class RandomizationTestResult:
    """Two-sided paired randomisation (sign-flip) test of one run pair."""

    statistic: float  # Σ z_t
    p_value: float
    count: int  # resampled |Σ s_t z_t| ≥ |Σ z_t| (the exact count includes the observed vector)
    B: int | None  # None when exact
    seed: int | None
    exact: bool


@dataclass(frozen=True)
class SignTestResult:
    """Two-sided sign (binomial) test of per-topic preferences."""

    wins: int
    losses: int
    ties: int
    p_value: float


@dataclass(frozen=True)
class PairwiseTests:
    """One test applied to every run pair of a score table (pairs in command-line order).

    ``p_values`` are the raw (uncorrected) p-values / ASLs; for Tukey HSD they are already
    family-wise. ``required_delta`` is Sakai's Δ estimate (Fig. 3 for the bootstrap: max over
    pairs; Fig. 5 for Tukey HSD: min over significant pairs, ``None`` when none is significant);
    ``None`` for the other tests.
    """

    test: str
    pairs: np.ndarray  # [n_pairs, 2] run indices
    statistics: np.ndarray  # t, Σz or the mean difference (HSD)
    p_values: np.ndarray
    B: int | None
    seed: int | None
    alpha: float
    required_delta: float | None = None
    pair_deltas: np.ndarray | None = None  # bootstrap: per-pair Δ of Fig. 3
    counts: np.ndarray | None = None
    comparison: str | None = None  # Tukey HSD: ">" or ">="
    exact: bool = False


@dataclass(frozen=True)
class TukeyHSDResult(PairwiseTests):
    """Randomised Tukey HSD (Fig. 4) over all runs; also the sorted permutation ranges."""

    means: np.ndarray | None = None
    ranges: np.ndarray | None = None  # max − min of the permuted column means, one per resample
