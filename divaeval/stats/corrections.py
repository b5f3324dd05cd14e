"""Multiple-comparison corrections of pairwise p-values: Bonferroni, Holm (1979) and
Benjamini–Hochberg (1995).

One family = all run pairs of one metric and one test (unless the caller passes another set).
p-values are sorted ascending with ties kept in input order (stable sort). A hypothesis is
rejected iff its **adjusted** p-value is < α (strict, as ASL < α in Sakai 2012).

Randomised Tukey HSD p-values are already family-wise and must not be corrected again.

Benjamini–Hochberg is scipy's ``false_discovery_control``; scipy has no Holm or Bonferroni
adjustment, so those two stay the short numpy functions below.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.errors import DataError, UsageError

CORRECTIONS = ("holm", "bh", "bonferroni", "none")


@dataclass(frozen=True)
class CorrectionResult:
    """Adjusted p-values and reject decisions (adjusted p < α), in input order."""

    method: str
    alpha: float
    p_values: np.ndarray
    adjusted: np.ndarray
    reject: np.ndarray


def check_correction_name(method: str) -> str:
    """Return ``method`` if it is a known correction, else raise :class:`UsageError`."""
    if method not in CORRECTIONS:
        raise UsageError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    return method


def _check_p_values(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    values = np.asarray(p_values, dtype=np.float64)
    if values.ndim != 1:
        raise DataError(f"p-values must be a 1-D array, got shape {values.shape}")
    if not np.all(np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise DataError("p-values must be finite numbers between 0 and 1")
    return values


def bonferroni(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """p̃_i = min(1, m·p_i)."""
    values = _check_p_values(p_values)
    return np.minimum(1.0, values.size * values)


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down: p̃_(j) = max_{i ≤ j} min(1, (m − i + 1)·p_(i))."""
    values = _check_p_values(p_values)
    m = values.size
    order = np.argsort(values, kind="stable")
    multipliers = m - np.arange(m)  # m − i + 1 for 1-based i
    stepped = np.maximum.accumulate(np.minimum(1.0, multipliers * values[order]))
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return adjusted


def benjamini_hochberg(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg step-up: p̃_(j) = min_{i ≥ j} min(1, m·p_(i)/i)
    (``scipy.stats.false_discovery_control`` with ``method="bh"``)."""
    values = _check_p_values(p_values)
    if values.size == 0:
        return values.copy()
    # lazily: scipy.stats takes 1-2 s to import, which only --correction bh needs
    from scipy.stats import false_discovery_control

    return np.asarray(false_discovery_control(values, method="bh"), dtype=np.float64)


def adjust_p_values(p_values: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values for ``method`` in holm | bh | bonferroni | none."""
    method = check_correction_name(method)
    if method == "holm":
        return holm(p_values)
    if method == "bh":
        return benjamini_hochberg(p_values)
    if method == "bonferroni":
        return bonferroni(p_values)
    return _check_p_values(p_values).copy()


def correct_p_values(
    p_values: Sequence[float] | np.ndarray, method: str = "holm", alpha: float = 0.05
) -> CorrectionResult:
    """Adjust p-values for multiple comparisons and decide rejection (adjusted p < α)."""
    if not (isinstance(alpha, (int, float, np.floating)) and 0.0 < float(alpha) < 1.0):
        raise UsageError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    values = _check_p_values(p_values)
    adjusted = adjust_p_values(values, method)
    return CorrectionResult(method, float(alpha), values, adjusted, adjusted < alpha)
