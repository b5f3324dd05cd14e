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

    Documents of a topic with the same relevance (and gain) on every subtopic have the same
    marginal gain at every step, so each step works on these *patterns*, not on documents: the
    largest gain among the patterns, ties to the pattern whose next unplaced document comes
    first in pool order, which is that document. A topic has at most 2^S − 1 binary patterns
    however large its pool (8 on average on the TREC 2012 qrels, against 111 documents).
    Topics whose pool is used up leave the working arrays.
    """

    def __init__(
        self, pool_relevant: np.ndarray, alpha: float, pool_values: np.ndarray | None = None
    ):
        self.decay = 1.0 - alpha
        self.exact_ties = pool_values is None
        n_topics, pool, width = pool_relevant.shape
        self.n_topics = n_topics
        planes = pool_relevant if pool_values is None else np.where(pool_relevant, pool_values, 0.0)
        available = pool_relevant.any(axis=2)
        self.max_steps = int(available.sum(axis=1).max(initial=0))
        topic, position = np.nonzero(available)  # topic-major, positions ascending
        columns = [pool_relevant[topic, position, s] for s in range(width)]
        if pool_values is not None:
            columns += [planes[topic, position, s] for s in range(width)]
        code = _row_codes(columns, len(topic))
        if (int(code.max(initial=0)) + 1) * max(n_topics, 1) >= 1 << 62:
            code = np.unique(code, return_inverse=True)[1].reshape(-1)
        # documents grouped by (topic, pattern), in pool order within a pattern
        order = np.argsort(topic * (int(code.max(initial=0)) + 1) + code, kind="stable")
        topic, code, self.members = topic[order], code[order], position[order]
        starts = np.flatnonzero(np.r_[True, (np.diff(topic) != 0) | (np.diff(code) != 0)])
        starts = starts[: len(topic)]  # none without documents
        group_topic = topic[starts]
        first_group = np.searchsorted(group_topic, np.arange(n_topics))
        column = np.arange(len(starts)) - first_group[group_topic]
        n_patterns = int(column.max(initial=-1)) + 1
        ends = np.r_[starts[1:], len(topic)]
        #: [T, U] cursor into ``members`` (next unplaced document of the pattern) and its end
        self.head = np.zeros((n_topics, n_patterns), dtype=np.int64)
        self.end = np.zeros((n_topics, n_patterns), dtype=np.int64)
        self.head[group_topic, column] = starts
        self.end[group_topic, column] = ends
        #: [T, U] pool position of the pattern's next document (``pool``: none left)
        self.next = np.full((n_topics, n_patterns), pool, dtype=np.int64)
        self.next[group_topic, column] = self.members[starts]
        self.pool = pool
        first_doc = (group_topic, self.members[starts])
        self.relevant = np.zeros((n_topics, n_patterns, width), dtype=bool)
        self.relevant[group_topic, column] = pool_relevant[first_doc]
        values = np.zeros((n_topics, n_patterns, width))
        values[group_topic, column] = planes[first_doc]
        # one contiguous [T, U] plane per subtopic: the marginal gain is Σ_s plane_s·w_s,
        # summed in ascending s as ndeval does (0·w adds an exact 0, so the sums and their ties
        # are those of ndeval's loop over documents)
        self.planes = [np.ascontiguousarray(values[:, :, s]) for s in range(width)]
        self.penalty = np.where(self.next < pool, 0.0, -np.inf)  # -inf: used up or padding
        self.weight = np.ones((n_topics, width))
        self.active = np.arange(n_topics)  # topics still in the working arrays
        self.done = np.zeros((n_topics, 0))

    def gains(self, length: int) -> np.ndarray:
        """g*(1..length), extending the ranking if needed (zeros past the relevant pool)."""
        if self.done.shape[1] < min(length, self.max_steps):
            self._extend(min(length, self.max_steps))
        if self.done.shape[1] >= length:
            return self.done[:, :length]
        return np.concatenate(
            [self.done, np.zeros((self.n_topics, length - self.done.shape[1]))], axis=1
        )

    def _keep(self, rows: np.ndarray) -> None:
        """Keep only the working rows ``rows`` (topics whose pool is not used up)."""
        self.active = self.active[rows]
        self.planes = [plane[rows] for plane in self.planes]
        for name in ("head", "end", "next", "relevant", "penalty", "weight"):
            setattr(self, name, getattr(self, name)[rows])

    def _extend(self, length: int) -> None:
        new = np.zeros((self.n_topics, length - self.done.shape[1]))
        width = len(self.planes)
        for step in range(new.shape[1]):
            if len(self.active) == 0:
                break
            gain = self.planes[0] * self.weight[:, :1]
            for s in range(1, width):
                gain += self.planes[s] * self.weight[:, s : s + 1]
            gain += self.penalty
            top = gain.max(axis=1)
            tied = (
                gain == top[:, None]
                if self.exact_ties
                else (gain >= (top - TIE_TOLERANCE * np.abs(top))[:, None])
            )
            # among the tied patterns, the one whose next document comes first in pool order
            pick = np.argmin(np.where(tied, self.next, self.pool), axis=1)
            rows = np.arange(len(pick))
            best = gain[rows, pick]
            new[self.active, step] = np.maximum(best, 0.0)
            head = self.head[rows, pick] + 1
            left = head < self.end[rows, pick]
            self.head[rows, pick] = head
            self.next[rows, pick] = np.where(left, self.members[np.where(left, head, 0)], self.pool)
            self.penalty[rows, pick] = np.where(left, 0.0, -np.inf)
            hit = self.relevant[rows, pick] & (best > 0)[:, None]
            self.weight = np.where(hit, self.weight * self.decay, self.weight)
            live = self.penalty.max(axis=1) == 0.0
            if live.sum() < 0.75 * len(live):
                self._keep(np.flatnonzero(live))
        self.done = np.concatenate([self.done, new], axis=1)


def _row_codes(columns: list[np.ndarray], n_rows: int) -> np.ndarray:
    """[N] int64 codes, equal exactly where the rows (``columns[c][n]`` over c) are equal bit
    for bit: a mixed-radix number of per-column codes, re-ranked before it could overflow."""
    code = np.zeros(n_rows, dtype=np.int64)
    bound = 1
    for values in columns:
        if values.dtype == bool:
            digits, radix = values.astype(np.int64), 2
        else:
            distinct, digits = np.unique(values.view(np.int64), return_inverse=True)
            digits, radix = digits.reshape(-1), max(len(distinct), 1)
        if bound * radix >= 1 << 62:
            distinct, code = np.unique(code, return_inverse=True)
            code, bound = code.reshape(-1), max(len(distinct), 1)
        code = code * radix + digits
        bound *= radix
    return code


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
