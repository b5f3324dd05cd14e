"""Novelty-biased (cascade) gains and the greedy ideal ranking, shared by every family that
discounts redundancy: ndeval's alpha-nDCG/ERR-IA/NRBP, their weighted/graded generalisation
(Clarke et al. 2011), and Golbus et al.'s alpha#-IA cascade average.

- :func:`novelty_gains`: g(r) = Σ_i v(d_r, i)·(1 − α)^{c_i(r)} with c_i(r) the earlier documents
  relevant to i (Clarke et al. 2008; Golbus et al. 2013, Eq. 6–7), summed over subtopics in
  ascending order as ndeval does.
- :class:`GreedyIdeal`: ndeval's greedy ideal ranking (reference/ndeval.md §6.3), resumable: it
  computes only as many ranks as a caller asks for and continues from there when a later
  caller needs more.
- :func:`shared_ideal`: the greedy ideal of a topic set is built once on the qrels' own topics
  (the root material) and shared by every run, topic subset and resampled copy taken from it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from divaeval.metrics.common import repeated_powers

#: Weighted gain sums equal up to this relative difference are ties (rounding of Σ w_i·...).
TIE_TOLERANCE = 1e-12


def novelty_gains(
    relevant: np.ndarray, alpha: float, values: np.ndarray | None = None
) -> np.ndarray:
    """g(r) = Σ_i v(d_r, i)·(1 − α)^{c_i(r)} for ``relevant[T, K, S]`` (bool).

    ``values[T, K, S]``: the weighted/graded gain v = w_i·g(d, i) of the generalised form;
    None = ndeval's binary, unweighted v = rel. The decay (1 − α)^c is the repeated product, as
    ndeval's ``w *= 1 − α``."""
    n_topics, length, width = relevant.shape
    earlier = np.cumsum(relevant, axis=1, dtype=np.int32) - relevant
    decay = repeated_powers(1.0 - alpha, length + 1)
    gains = np.zeros((n_topics, length))
    for s in range(width):
        term = np.where(relevant[:, :, s], decay[earlier[:, :, s]], 0.0)
        gains += term if values is None else term * values[:, :, s]
    return gains


class GreedyIdeal:
    """ndeval's greedy ideal ranking over each topic's judged documents, built step by step.

    ``pool_relevant[T, P, S]``: the judged documents of each topic ordered by docno descending,
    so that the first maximum is the largest docno (ndeval's tie-break). Each step takes the
    largest marginal gain Σ_i v_i·w_i and decays w_i ← w_i·(1 − α) for the subtopics the chosen
    document is relevant to. ``pool_values[T, P, S]``: generalised gains v (None = binary);
    with them, sums equal up to :data:`TIE_TOLERANCE` (relative) are ties.
    """

    def __init__(
        self, pool_relevant: np.ndarray, alpha: float, pool_values: np.ndarray | None = None
    ):
        self.relevant = pool_relevant
        self.decay = 1.0 - alpha
        n_topics, _, width = pool_relevant.shape
        # One contiguous [T, P] plane per subtopic (v, or 1.0/0.0 for binary relevance): the
        # marginal gain is Σ_s plane_s·w_s, summed in ascending s as ndeval does (0·w adds an
        # exact 0, so the sums and their ties are those of ndeval's loop).
        planes = pool_relevant if pool_values is None else np.where(pool_relevant, pool_values, 0.0)
        self.planes = [
            np.ascontiguousarray(planes[:, :, s], dtype=np.float64) for s in range(width)
        ]
        self.exact_ties = pool_values is None
        available = pool_relevant.any(axis=2)
        self.max_steps = int(available.sum(axis=1).max(initial=0))
        self.penalty = np.where(available, 0.0, -np.inf)  # -inf: placed or never useful
        self.weight = np.ones((n_topics, width))
        self.done = np.zeros((n_topics, 0))

    def gains(self, length: int) -> np.ndarray:
        """g*(1..length), extending the ranking if needed (zeros past the relevant pool)."""
        if self.done.shape[1] < min(length, self.max_steps):
            self._extend(min(length, self.max_steps))
        n_topics = self.relevant.shape[0]
        if self.done.shape[1] >= length:
            return self.done[:, :length]
        return np.concatenate(
            [self.done, np.zeros((n_topics, length - self.done.shape[1]))], axis=1
        )

    def _extend(self, length: int) -> None:
        n_topics, pool, width = self.relevant.shape
        rows = np.arange(n_topics)
        new = np.zeros((n_topics, length - self.done.shape[1]))
        for step in range(new.shape[1]):
            gain = self.planes[0] * self.weight[:, :1]
            for s in range(1, width):
                gain += self.planes[s] * self.weight[:, s : s + 1]
            gain += self.penalty
            if self.exact_ties:
                pick = np.argmax(gain, axis=1)
            else:
                top = gain.max(axis=1)
                pick = np.argmax(gain >= (top - TIE_TOLERANCE * np.abs(top))[:, None], axis=1)
            best = gain[rows, pick]
            new[:, step] = np.maximum(best, 0.0)
            self.penalty[rows, pick] = -np.inf
            hit = self.relevant[rows, pick] & (best > 0)[:, None]
            self.weight = np.where(hit, self.weight * self.decay, self.weight)
        self.done = np.concatenate([self.done, new], axis=1)


def shared_ideal(
    material, key: tuple, build: Callable[[object], GreedyIdeal], length: int
) -> np.ndarray:
    """Ideal gains [T, length] for ``material``'s topics, built once on its root material.

    ``build(root)`` makes the :class:`GreedyIdeal` from the root's pool; it may use only
    per-topic fields of the material it is given, so that rows of the root are valid for every
    material taken from it."""
    root, rows = material.root()
    state = root.cache.get(key)
    if state is None:
        state = build(root)
        root.cache[key] = state
    gains = state.gains(length)
    return gains if rows is None else gains[rows]
