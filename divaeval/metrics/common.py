"""Building blocks shared by metric families: discounts, cutoffs, running sums.

Running sums use ``np.cumsum`` (strictly sequential accumulation), so a value at cutoff k is
accumulated in the same order as the C reference tools do it; discounts use the C library's
``log`` through :func:`math.log`, as ndeval computes ``log(2)/log(r+1)``.
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache
from typing import Any

import numpy as np


@lru_cache(maxsize=64)
def _log2_discount(length: int) -> np.ndarray:
    table = np.array([math.log(2.0) / math.log(r + 1.0) for r in range(1, length + 1)])
    table.setflags(write=False)
    return table


def log2_discount(length: int) -> np.ndarray:
    """disc(r) = 1/log2(r+1) for r = 1..length, computed as ln 2 / ln(r+1)."""
    size = 1 << max(length - 1, 0).bit_length()  # cache by powers of two
    return _log2_discount(max(size, 1))[:length]


def repeated_powers(base: float, length: int) -> np.ndarray:
    """[1, base, base·base, ...] by repeated multiplication, as C loops compute ``w *= base``
    (not ``base**n``, which can differ in the last bit)."""
    factors = np.full(length, base, dtype=np.float64)
    if length:
        factors[0] = 1.0
    return np.multiply.accumulate(factors)


def rank_discount(kind: str, length: int, beta: float = 0.8) -> np.ndarray:
    """D(1..length) of Golbus et al. 2013 Table 4: ``dcg`` 1/log2(r+1), ``err`` 1/r, ``rbp``
    β^{r−1} (the table prints 1/β^{r−1}, which grows with r: a typo).
    Shared by the alpha#-IA and the D/D# measures."""
    if kind == "dcg":
        return log2_discount(length)
    if kind == "err":
        return 1.0 / np.arange(1.0, length + 1.0)
    if kind == "rbp":
        return repeated_powers(beta, length)
    raise AssertionError(f"unknown discount {kind!r}")


#: Arrays never get more ranks than max(the rankings' fill, this), however large a cutoff: a
#: cutoff beyond both only repeats the last values (see :func:`depth_for`).
RANK_CAP = 10_000


def rank_sum(values: np.ndarray) -> np.ndarray:
    """Sum over ranks (axis 1), added one rank after another, as the C tools add. numpy's
    ``sum`` adds pairwise, so its last bit depends on how far the arrays are padded past the
    longest ranking; this sum does not, so a topic scores the same bits whether it is judged
    alone, in a block of topics or with the whole run (:mod:`divaeval.streaming`)."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[:1] + values.shape[2:], dtype=np.result_type(values, 0.0))
    return np.cumsum(values, axis=1)[:, -1]


def depth_for(cutoffs: tuple[int | None, ...], jr: Any) -> int:
    """The number of ranks needed to evaluate ``cutoffs`` on the judged rankings ``jr``: the
    largest cutoff (at least the rankings' depth with a whole-ranking cutoff ``None``), but at
    most ``max(jr.fill, RANK_CAP)`` (:attr:`JudgedRankings.fill`: the most ranks a run or an
    ideal ranking occupies): up to that, every cutoff is
    evaluated exactly as given; above it (``-m P@1000000000``) the arrays stop at the cap,
    which changes nothing for measures whose running sums stop at the rankings' end and whose
    denominators take the cutoff itself (P, P-IA, EfP divide by k). Only series normalisers
    that keep growing with k (ndeval's ERR-IA and alpha-DCG ideal series) are then cut at the
    cap (exact while their terms beyond it are below double precision, e.g. alpha >= 0.004;
    otherwise a warning says so).
    """
    depth = jr.depth
    finite = [k for k in cutoffs if k is not None]
    if any(k is None for k in cutoffs):
        needed = max([depth, *finite])
    else:
        needed = max(finite, default=depth)
    return min(needed, max(jr.fill, depth, RANK_CAP))


def at_cutoffs(running: np.ndarray, cutoffs: tuple[int | None, ...]) -> np.ndarray:
    """Values of running sums ``running[T, K]`` at each cutoff (``None`` = the last rank).

    A cutoff beyond K takes the last value (nothing is ranked below K)."""
    n_topics, length = running.shape
    out = np.zeros((n_topics, len(cutoffs)))
    if length == 0:
        return out
    for column, k in enumerate(cutoffs):
        index = length if k is None else min(k, length)
        out[:, column] = running[:, index - 1]
    return out


def first_rank(mask: np.ndarray) -> np.ndarray:
    """[T] 1-based rank of the first True of each row of ``mask[T, K]``, 0 if none (also for
    K = 0, where ``np.argmax`` has nothing to look at)."""
    if mask.shape[1] == 0:
        return np.zeros(mask.shape[0], dtype=np.int64)
    return np.where(mask.any(axis=1), np.argmax(mask, axis=1) + 1, 0)


def safe_divide(numerator: np.ndarray, denominator: np.ndarray | float) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (broadcast as the division is;
    ``np.broadcast`` finds the shape without making views: 12 -> 3 us a call)."""
    denominator = np.asarray(denominator)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _per_distinct(values: np.ndarray, template: str) -> np.ndarray:
    """Apply the text round trip ``float(template % v)`` once per distinct value."""
    array = np.asarray(values, dtype=np.float64)
    distinct, inverse = np.unique(array, return_inverse=True)
    rounded = np.array([float(template % v) for v in distinct.tolist()], dtype=np.float64)
    return rounded[inverse].reshape(array.shape)


def printf_round(values: np.ndarray, decimals: int) -> np.ndarray:
    """``values`` printed with C's ``%.<decimals>f`` and read back: the exact decimal rounding
    of each binary value (ties, which only exact binary halves reach, to even), as reference
    tools that write or print 4-decimal values compute it. ``np.round`` scales first and can
    differ at a rounding boundary. Formats each distinct value once."""
    return _per_distinct(values, f"%.{decimals}f")


def round_significant(values: np.ndarray, digits: int) -> np.ndarray:
    """``values`` printed with C's ``%.<digits>g`` and read back (``digits`` significant
    digits), once per distinct value."""
    return _per_distinct(values, f"%.{digits}g")


def at_relevance_level(jr: Any, level: int | None) -> Any:
    """The judged rankings as ``-l level`` would judge them, for a measure's ``rel=`` (the
    per-measure form of ``-l``, ir_measures' ``rel`` of its pyndeval measures): the grades
    are the same, the material's relevant counts (which subtopics count, R_t) and its level
    are those of ``level``. ``None`` or the rankings' own level: the rankings themselves.
    The re-levelled material is built once on the root material (shared by topic subsets and
    resampled copies) and the rankings once per judged run."""
    if level is None or level == jr.material.rel_level:
        return jr
    key = ("at-relevance-level", int(level))
    if key not in jr.cache:
        root, rows = jr.material.root()
        if key not in root.cache:
            counts = (root.pool_grades_any_order >= level).sum(axis=1)
            root.cache[key] = dataclasses.replace(
                root,
                rel_level=int(level),
                relevant_count=counts.astype(root.relevant_count.dtype),
                cache={},
                origin=None,
            )
        material = root.cache[key] if rows is None else root.cache[key].take(rows)
        jr.cache[key] = dataclasses.replace(jr, material=material, cache={})
    return jr.cache[key]
