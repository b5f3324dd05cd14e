"""Score tables and their run pairs: the checks every test makes of its input, the order of
the run pairs, the per-topic differences of a pair, and the comparison tolerance.

A **score table** is a float array ``[n_runs, n_topics]`` (rows = runs, columns = topics in the
same order for every run); one run pair is two per-topic vectors ``x`` and ``y``. Run pairs are
unordered and enumerated in command-line order, ``(0, 1), (0, 2), …, (1, 2), …`` (a before b):
:func:`run_pair_indices`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.scores import check_score_magnitude

RELATIVE_TOLERANCE = 1e-9
"""τ = RELATIVE_TOLERANCE · max(1, |v_obs|): sums of the same numbers in another order differ
in their last bits, not by more."""


def tolerance(observed: float | np.ndarray) -> float | np.ndarray:
    """Comparison tolerance τ = 1e-9·max(1, |v_obs|) of a resampled statistic with the observed
    one."""
    return RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(observed))


def check_score_table(
    scores: np.ndarray | Sequence[Sequence[float]],
    runs: Sequence[str] | None = None,
    *,
    min_runs: int = 1,
    min_topics: int = 1,
    name: str = "scores",
) -> np.ndarray:
    """Validate a ``[n_runs, n_topics]`` score table and return it as a float64 array.

    Raises :class:`DataError` for a wrong shape, too few runs/topics, non-finite values or
    values beyond ±:data:`~divaeval.scores.MAX_SCORE`, and :class:`UsageError` for run names
    that do not match the rows or repeat.
    """
    try:
        table = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name}: not a numeric score table ({exc})") from None
    if table.ndim != 2:
        raise DataError(f"{name}: expected a [n_runs, n_topics] table, got shape {table.shape}")
    n_runs, n_topics = table.shape
    if runs is not None:
        if len(runs) != n_runs:
            raise UsageError(f"{name}: {len(runs)} run names for {n_runs} rows of scores")
        if len(set(runs)) != len(runs):
            duplicates = sorted({r for r in runs if list(runs).count(r) > 1})
            raise UsageError(f"{name}: duplicate run names: {', '.join(duplicates)}")
    if n_runs < min_runs:
        raise DataError(f"{name}: need at least {min_runs} runs, got {n_runs}")
    if n_topics < min_topics:
        raise DataError(f"{name}: need at least {min_topics} topics, got {n_topics}")
    if not np.all(np.isfinite(table)):
        raise DataError(f"{name}: scores contain NaN or infinite values")
    check_score_magnitude(table, name)
    return table


def check_pair(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, min_topics: int):
    x_arr = np.asarray(x, dtype=np.float64)
    y_arr = np.asarray(y, dtype=np.float64)
    if x_arr.ndim != 1 or x_arr.shape != y_arr.shape:
        raise DataError(
            f"paired test: x and y must be 1-D with the same length, got {x_arr.shape} "
            f"and {y_arr.shape}"
        )
    return check_score_table(np.vstack([x_arr, y_arr]), min_runs=2, min_topics=min_topics)


def check_alpha(alpha: float) -> float:
    if not (isinstance(alpha, (int, float, np.floating)) and 0.0 < float(alpha) < 1.0):
        raise UsageError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    return float(alpha)


def run_pair_indices(n_runs: int) -> np.ndarray:
    """Unordered run pairs ``[n_pairs, 2]`` in command-line order (a before b)."""
    first, second = np.triu_indices(n_runs, k=1)
    return np.column_stack([first, second]).astype(np.intp)


def pair_differences(table: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(z, scale) for every pair: z = X[a] − X[b], shape ``[n_pairs, n_topics]``, and the
    largest |score| of the two runs, what :func:`~divaeval.scores.equal_within_tolerance`
    compares the differences by."""
    magnitude = np.abs(table).max(axis=1)
    scale = np.maximum(magnitude[pairs[:, 0]], magnitude[pairs[:, 1]])
    return table[pairs[:, 0]] - table[pairs[:, 1]], scale
