"""The vectorised novelty kernels against literal, one-document-at-a-time versions of the same
definitions (reference/ndeval.md §6.3), bit for bit.

The fast :class:`~divaeval.metrics.novelty.GreedyIdeal` works on relevance *patterns* (the
documents of a topic with the same relevance and gain on every subtopic) and drops topics whose
pool is used up; the reference below is ndeval's loop as written: at each step, every document
not yet placed, its gain Σ_s v_s·w_s summed in ascending s, the first maximum in pool order
(docno descending), then w_s ← w_s·(1 − α) for the chosen document's subtopics.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from divaeval.metrics.novelty import TIE_TOLERANCE, GreedyIdeal

SETTINGS = settings(max_examples=150, deadline=None)


def literal_greedy(relevant, alpha: float, values, length: int) -> np.ndarray:
    """ndeval's greedy ideal gains g*(1..length) for ``relevant[T, P, S]``, one topic and one
    document at a time, in Python floats (IEEE doubles, as numpy's)."""
    n_topics, pool, width = relevant.shape
    out = np.zeros((n_topics, length))
    for t in range(n_topics):
        weight = [1.0] * width
        placed = [not relevant[t, p].any() for p in range(pool)]  # never useful
        for step in range(length):
            gains = []
            for p in range(pool):
                gain = 0.0
                for s in range(width):
                    v = float(values[t, p, s]) if values is not None else 1.0
                    gain = gain + (v * weight[s] if relevant[t, p, s] else 0.0 * weight[s])
                gains.append(None if placed[p] else gain)
            candidates = [g for g in gains if g is not None]
            if not candidates:
                break
            top = max(candidates)
            if values is None:
                pick = next(p for p, g in enumerate(gains) if g is not None and g == top)
            else:
                floor = top - TIE_TOLERANCE * abs(top)
                pick = next(p for p, g in enumerate(gains) if g is not None and g >= floor)
            best = gains[pick]
            out[t, step] = max(best, 0.0)
            placed[pick] = True
            if best > 0:
                for s in range(width):
                    if relevant[t, pick, s]:
                        weight[s] = weight[s] * (1.0 - alpha)
    return out


@st.composite
def pools(draw):
    n_topics = draw(st.integers(1, 12))
    pool = draw(st.integers(1, 9))
    width = draw(st.integers(1, 5))
    density = draw(st.sampled_from([0.15, 0.4, 0.8]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    relevant = rng.random((n_topics, pool, width)) < density
    values = None
    if draw(st.booleans()):  # generalised gains: few distinct values, so that ties happen
        values = draw(
            arrays(np.float64, relevant.shape, elements=st.sampled_from([0.0, 0.25, 0.5, 1 / 3]))
        )
    alpha = draw(st.sampled_from([0.0, 0.5, 0.25, 0.9, 1.0]))
    lengths = draw(st.lists(st.integers(0, pool + 3), min_size=1, max_size=3))
    return relevant, alpha, values, lengths


@SETTINGS
@given(pools())
def test_greedy_ideal_is_ndeval_loop(case):
    relevant, alpha, values, lengths = case
    greedy = GreedyIdeal(relevant, alpha, values)
    for length in lengths:  # resumed: later calls continue the same ranking
        expected = literal_greedy(relevant, alpha, values, length)
        assert np.array_equal(greedy.gains(length), expected)


def test_greedy_ties_go_to_the_first_document_of_the_pool():
    # One topic, two subtopics, pool d3 d2 d1 d0 (docno descending): d3 {1}, d2 {2}, d1 {1,2},
    # d0 {1,2}. Step 1: d1 and d0 both gain 2, d1 comes first. Step 2 (alpha = 0.5, w = .5, .5):
    # d3 .5, d2 .5, d0 1 -> d0. Step 3 (w = .25, .25): d3 and d2 tie at .25 -> d3, then d2
    # gains .25 (w_2 = .25; w_1 = .125 does not concern it).
    relevant = np.array([[[1, 0], [0, 1], [1, 1], [1, 1]]], dtype=bool)
    assert GreedyIdeal(relevant, 0.5).gains(5).tolist() == [[2.0, 1.0, 0.25, 0.25, 0.0]]
