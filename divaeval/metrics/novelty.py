"""Novelty-biased (cascade) gains and the greedy ideal ranking, shared by every family that
discounts redundancy: ndeval's alpha-nDCG/ERR-IA/NRBP, their weighted/graded generalisation
(Clarke et al. 2011), and Golbus et al.'s alpha#-IA cascade average.

- :func:`novelty_gains`: g(r) = Σ_i v(d_r, i)·(1 − α)^{c_i(r)} with c_i(r) the earlier documents
  relevant to i (Clarke et al. 2008; Golbus et al. 2013, Eq. 6–7), summed over subtopics in
  ascending order as ndeval does.
- :class:`GreedyIdeal`: ndeval's greedy ideal ranking (ndeval 4.5), resumable: it
  computes only as many ranks as a caller asks for and continues from there when a later
  caller needs more.
- :func:`shared_ideal`: the greedy ideal of a topic set is built once on the qrels' own topics
  (the root material) and shared by every run, topic subset and resampled copy taken from it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from divaeval import native
from divaeval.io._words import sort_keys
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
    decay = repeated_powers(1.0 - alpha, length + 1)
    gains = np.zeros((n_topics, length))
    if native.kernels is not None and relevant.dtype == bool:  # the same sums, topic by topic
        if values is not None:
            values = np.ascontiguousarray(values, dtype=np.float64)
        relevant_bytes = np.ascontiguousarray(relevant).view(np.uint8)
        native.kernels.novelty_gains(relevant_bytes, values, decay, gains, n_topics, length, width)
        return gains
    earlier = np.cumsum(relevant, axis=1, dtype=np.int32) - relevant
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

    Where the compiled loops are built (:mod:`divaeval.native`), the steps run topic by topic
    in ``greedy_extend`` (binary gains: their patterns found by ``greedy_patterns`` too), with
    the same operations in the same order: the same gains, bit for bit.
    """

    def __init__(
        self, pool_relevant: np.ndarray, alpha: float, pool_values: np.ndarray | None = None
    ):
        self.decay = 1.0 - alpha
        self.exact_ties = pool_values is None
        n_topics, pool, width = pool_relevant.shape
        self.n_topics, self.pool = n_topics, pool
        self.relevant = np.ascontiguousarray(pool_relevant, dtype=bool).reshape(
            n_topics * pool, width
        )
        self.length = 0  # ranks built so far: the first columns of ``built``
        self.built = np.zeros((n_topics, 0))
        self.buffers: tuple = ()
        self.rbp_lengths: dict[float, int] = {}  # β -> rbp_length(β)
        #: the compiled loop (divaeval.native), which takes the arrays topic by topic
        self.kernel = native.kernels if width else None
        if self.kernel is not None and pool_values is None and width <= 62:
            self._compiled_patterns()
            return
        planes = pool_relevant if pool_values is None else np.where(pool_relevant, pool_values, 0.0)
        planes = np.ascontiguousarray(planes).reshape(n_topics * pool, width)
        # a code per document, equal for documents of a topic with the same relevance (and
        # gains) on every subtopic; 0: relevant to none, never useful
        code, bound = _relevance_codes(pool_relevant)
        available = code != 0
        self.remaining = available.sum(axis=1)  # unplaced documents of each working topic
        self.max_steps = int(self.remaining.max(initial=0))
        doc = np.flatnonzero(available)  # flat [T, P]: topic-major, pool order
        code = code.reshape(-1)[doc].astype(np.int64)
        if pool_values is not None:
            values = planes[doc]
            code = _row_codes([values[:, s] for s in range(width)], code, bound)
        if (int(code.max(initial=0)) + 1) * max(n_topics, 1) >= 1 << 62:
            code = np.unique(code, return_inverse=True)[1].reshape(-1)
        # documents grouped by (topic, pattern), in pool order within a pattern
        topic = doc // max(pool, 1)
        key = topic * (int(code.max(initial=0)) + 1) + code  # (>= 0: as uint64, the same)
        order = sort_keys(key.view(np.uint64), stable=True)[0]  # (400,000 docs: 6.1 -> 2.3 ms)
        doc, topic, code = doc[order], topic[order], code[order]
        same = (topic[1:] == topic[:-1]) & (code[1:] == code[:-1])
        #: flat [T, P]: the next document of the same pattern in pool order (``pool``: none)
        self.successor = np.full(n_topics * pool, pool, dtype=np.int64)
        linked = np.flatnonzero(same)
        self.successor[doc[linked]] = doc[linked + 1] - topic[linked + 1] * pool
        group = np.cumsum(np.r_[True, ~same]) - 1 if len(topic) else np.zeros(0, np.int64)
        starts = np.flatnonzero(np.r_[True, ~same])[: len(topic)]
        group_topic = topic[starts]
        new_topic = np.r_[True, group_topic[1:] != group_topic[:-1]][: len(starts)]
        first_group = np.maximum.accumulate(np.where(new_topic, np.arange(len(starts)), 0))
        column = np.arange(len(starts)) - first_group
        n_patterns = int(column.max(initial=-1)) + 1
        #: flat [T, P]: the pattern (row of the working arrays) of each document
        self.pattern = np.zeros(n_topics * pool, dtype=np.int64)
        self.pattern[doc] = column[group]
        # Working arrays, patterns x topics (topics along the contiguous axis, so that the
        # maximum over patterns is a fast elementwise reduction): the pool position of each
        # pattern's next unplaced document (``pool``: none left; -inf penalty), and one
        # [U, T] plane per subtopic: the marginal gain is Σ_s plane_s·w_s, summed in ascending
        # s as ndeval does (0·w adds an exact 0, so the sums and their ties are those of
        # ndeval's loop over documents).
        first = planes[doc[starts]].astype(np.float64)  # [patterns, S]: v of each pattern
        self.active = np.arange(n_topics)  # topics still in the working arrays
        if self.kernel is not None:
            self.next = np.full((n_topics, n_patterns), pool, dtype=np.int64)
            self.next[group_topic, column] = doc[starts] - group_topic * pool
            self.topic_planes = np.zeros((n_topics, n_patterns, width))
            self.topic_planes[group_topic, column] = first
            self.weight = np.ones((n_topics, width))
            self.remaining = self.remaining.astype(np.int64)
        else:
            cell = column * n_topics + group_topic  # flat [U, T] cell of each pattern
            self.next = np.full((n_patterns, n_topics), pool, dtype=_position_type(pool))
            self.next.put(cell, doc[starts] - group_topic * pool)
            self.penalty = np.where(self.next < pool, 0.0, -np.inf)
            self.planes = []
            for s in range(width):
                plane = np.zeros((n_patterns, n_topics))
                plane.put(cell, first[:, s])
                self.planes.append(plane)
            self.weight = np.ones((width, n_topics))

    def _compiled_patterns(self) -> None:
        """The compiled loop's arrays for binary gains, their patterns found by a compiled
        pass over each topic's pool (``divaeval/_native.c``, ``greedy_patterns``): numbered
        in order of first appearance, not of their codes, which the greedy steps do not
        depend on (the largest gain, and the first document among the tied).

        A topic has at most min(P, 2^S − 1) patterns: the working arrays take that bound (no
        larger than the pool's ``successor``), and the patterns are found in one pass. A
        pattern's gains are not stored: greedy_extend reads them from the relevance of its
        next document."""
        assert self.kernel is not None
        n_topics, pool, width = self.n_topics, self.pool, self.relevant.shape[1]
        relevant = self.relevant.view(np.uint8)
        counts = np.zeros(n_topics, dtype=np.int64)
        n_patterns = min(pool, (1 << width) - 1)
        self.successor = np.full(n_topics * pool, pool, dtype=np.int64)
        self.next = np.full((n_topics, n_patterns), pool, dtype=np.int64)
        self.topic_planes = np.zeros((0, 0, 0))  # none: binary, from the relevance
        self.remaining = np.zeros(n_topics, dtype=np.int64)
        if n_patterns:
            self.kernel.greedy_patterns(
                relevant, n_topics, pool, width, n_patterns, counts, self.successor,
                self.next, self.remaining,
            )  # fmt: skip
        self.max_steps = int(self.remaining.max(initial=0))
        self.weight = np.ones((n_topics, width))

    def gains(self, length: int) -> np.ndarray:
        """g*(1..length), extending the ranking if needed (zeros past the relevant pool)."""
        if self.length < min(length, self.max_steps):
            self._extend(min(length, self.max_steps))
        if length <= self.length:
            return self.built[:, :length]
        return np.concatenate(
            [self.built[:, : self.length], np.zeros((self.n_topics, length - self.length))],
            axis=1,
        )

    def rbp_length(self, beta: float) -> int:
        """A length L of the ideal ranking whose running sum Σ_{r≤L} β^{r−1}·g*(r), summed in
        rank order as ``np.cumsum`` does, already equals the whole ranking's, bit for bit.

        The greedy gains never grow (weights only decay, the pool only shrinks; within
        :data:`TIE_TOLERANCE` with generalised gains), so past L every term is at most
        g*(L)·β^L, doubled here for the tolerance: once that is below half a unit in the
        last place of the sum, adding it changes nothing. The ranking is extended one rank at
        a time until that holds for every topic or the pools are used up."""
        if beta in self.rbp_lengths:  # still enough: the sum cannot change past it
            return self.rbp_lengths[beta]
        powers = repeated_powers(beta, self.max_steps + 1)
        length = min(self.length, self.max_steps)
        if self.kernel is not None:  # the whole ranking in one compiled call, cheaper than
            steps = self.max_steps  # resuming it rank by rank, and the same L found in one
            if length < steps:  # compiled pass (rbp_settled_length) over it
                whole = self.gains(steps)
                length = self.kernel.rbp_settled_length(whole, powers, max(length, 1))
            self.rbp_lengths[beta] = length
            return length
        if length:
            total = np.cumsum(self.gains(length) * powers[:length], axis=1)[:, -1]
        else:
            total = np.zeros(self.n_topics)
        while length < self.max_steps:
            if length:
                bound = 2.0 * (self.built[:, length - 1] * powers[length])
                if np.all(bound < np.spacing(total) / 2):
                    break
            self.gains(length + 1)
            total = total + self.built[:, length] * powers[length]  # rank by rank, as cumsum
            length += 1
        self.rbp_lengths[beta] = length
        return length

    def _keep(self, live: np.ndarray) -> None:
        """Keep only the working topics ``live`` (those whose pool is not used up)."""
        self.active = self.active[live]
        self.planes = [plane[:, live] for plane in self.planes]
        self.next, self.penalty = self.next[:, live], self.penalty[:, live]
        self.weight, self.remaining = self.weight[:, live], self.remaining[live]

    def _extend(self, length: int) -> None:
        if length > self.built.shape[1]:  # room for the new ranks, grown geometrically
            room = min(max(length, 2 * self.built.shape[1]), self.max_steps)
            grown = np.zeros((self.n_topics, room))
            grown[:, : self.length] = self.built[:, : self.length]
            self.built = grown
        if self.kernel is not None:
            self._extend_compiled(length)
            return
        new = self.built
        for step in range(self.length, length):
            self.length = step + 1
            if len(self.active) == 0:
                continue
            if not self.buffers or self.buffers[0].shape != self.next.shape:
                # reused [U, T] buffers: large temporaries would be mapped afresh every time
                shape = self.next.shape
                self.buffers = (np.empty(shape), np.empty(shape), np.empty(shape, dtype=bool))
                self.buffers += (np.empty_like(self.next),)
            gain, term, tied, candidates = self.buffers
            np.multiply(self.planes[0], self.weight[0], out=gain)
            for s in range(1, len(self.planes)):
                gain += np.multiply(self.planes[s], self.weight[s], out=term)
            gain += self.penalty
            top = gain.max(axis=0)
            floor = top if self.exact_ties else top - TIE_TOLERANCE * np.abs(top)
            np.greater_equal(gain, floor, out=tied)
            # among the tied patterns, the document that comes first in pool order: the
            # smallest next - (pool + 1) (negative only where tied)
            np.multiply(tied, self.next.dtype.type(-(self.pool + 1)), out=candidates)
            candidates += self.next
            first = candidates.min(axis=0).astype(np.int64) + (self.pool + 1)
            placed = np.flatnonzero(first < self.pool)
            topic = self.active[placed]
            doc = topic * self.pool + first[placed]  # flat [T, P] index of the chosen document
            cell = self.pattern.take(doc) * len(first) + placed  # flat [U, T] working cell
            best = top[placed] if self.exact_ties else gain.take(cell)
            new[topic, step] = np.maximum(best, 0.0)
            following = self.successor.take(doc)  # pool position
            self.next.put(cell, following)
            self.penalty.put(cell, np.where(following < self.pool, 0.0, -np.inf))
            hit = (self.relevant.take(doc, axis=0) & (best > 0)[:, None]).T  # [S, placed]
            weight = self.weight[:, placed]
            self.weight[:, placed] = np.where(hit, weight * self.decay, weight)
            self.remaining[placed] -= 1
            live = self.remaining > 0
            if np.count_nonzero(live) < 0.75 * len(live):
                self._keep(np.flatnonzero(live))

    def _extend_compiled(self, length: int) -> None:
        """:meth:`_extend`'s steps in the compiled loop (``divaeval/_native.c``), a topic at a
        time: the same operations in the same order, so the same numbers bit for bit."""
        assert self.kernel is not None
        (n_topics, n_patterns), width = self.next.shape, self.relevant.shape[1]
        self.kernel.greedy_extend(
            self.next, self.topic_planes, self.weight, self.remaining, self.built,
            self.relevant.view(np.uint8), self.successor,
            n_topics, n_patterns, width, self.pool, self.built.shape[1], self.length, length,
            self.decay, self.exact_ties,
        )  # fmt: skip
        self.length = length


def _position_type(pool: int) -> type:
    """The smallest integer type for pool positions and their negated offsets."""
    return np.int32 if pool < 1 << 30 else np.int64


def _relevance_codes(relevant: np.ndarray) -> tuple[np.ndarray, int]:
    """([T, P] codes, their bound): equal codes for documents with the same relevance on every
    subtopic, 0 for a document relevant to none. A bit per subtopic in the smallest unsigned
    type that holds them (a uint8 for up to 8 subtopics); else a mixed-radix code."""
    n_topics, pool, width = relevant.shape
    if width <= 62:
        kind = next(
            t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if np.iinfo(t).bits >= width
        )
        bits = np.zeros((n_topics, pool), dtype=kind)
        for s in range(width):
            bits |= relevant[:, :, s].astype(kind) << kind(s)
        return bits, 1 << width
    flat = relevant.reshape(n_topics * pool, width)
    code = _row_codes([flat[:, s] for s in range(width)], np.zeros(len(flat), np.int64), 1)
    return np.where(flat.any(axis=1), code + 1, 0).reshape(n_topics, pool), int(
        code.max(initial=0)
    ) + 2


def _row_codes(columns: list[np.ndarray], code: np.ndarray, bound: int) -> np.ndarray:
    """Codes extending ``code`` (values in [0, ``bound``)) with further columns: equal exactly
    where the codes and the rows of ``columns`` are equal bit for bit; a mixed-radix number of
    per-column codes, re-ranked before it could overflow."""
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


def shared_greedy(
    material, key: tuple, build: Callable[[object], GreedyIdeal]
) -> tuple[GreedyIdeal, np.ndarray | None]:
    """The :class:`GreedyIdeal` of ``material``'s root material (built once, then cached there)
    and ``material``'s rows in it (None: the root itself).

    ``build(root)`` makes the :class:`GreedyIdeal` from the root's pool; it may use only
    per-topic fields of the material it is given, so that rows of the root are valid for every
    material taken from it."""
    root, rows = material.root()
    state = root.cache.get(key)
    if state is None:
        state = build(root)
        root.cache[key] = state
    return state, rows


def shared_ideal(
    material, key: tuple, build: Callable[[object], GreedyIdeal], length: int
) -> np.ndarray:
    """Ideal gains [T, length] for ``material``'s topics (see :func:`shared_greedy`)."""
    state, rows = shared_greedy(material, key, build)
    gains = state.gains(length)
    return gains if rows is None else gains[rows]
