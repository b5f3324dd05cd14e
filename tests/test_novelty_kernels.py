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
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from support import examples

from divaeval.metrics.novelty import TIE_TOLERANCE, GreedyIdeal

SETTINGS = settings(max_examples=examples(60), deadline=None)


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


@st.composite
def ranked_collections(draw):
    """(qrels {(topic, subtopic, docno): grade}, run {topic: [docno, ...]} in ranking order):
    long rankings, mostly unjudged, so that the whole-run measures skip many ranks."""
    qrels: dict[tuple[str, str, str], int] = {}
    run: dict[str, list[str]] = {}
    for t in range(draw(st.integers(1, 4))):
        topic = str(t + 1)
        pool = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
        for s in range(1, draw(st.integers(1, 4)) + 1):
            for doc in pool:
                grade = draw(st.sampled_from([None, None, None, -2, 0, 1, 1, 2]))
                if grade is not None:
                    qrels[(topic, str(s), doc)] = grade
        unjudged = [f"u{i}" for i in range(draw(st.integers(0, 40)))]
        ranking = draw(st.permutations(pool + unjudged))
        run[topic] = ranking[: draw(st.integers(1, len(ranking)))]
    if not qrels:
        qrels[("1", "1", "d0")] = 1
    return qrels, run


def _powers(base: float, n: int) -> list[float]:
    """[1, base, base·base, ...] by repeated multiplication, as ndeval's ``w *= base``."""
    out = [1.0]
    for _ in range(n):
        out.append(out[-1] * base)
    return out


def literal_whole_run(qrels, ranking, topic, alpha, beta, level, cutoff):
    """(NRBP, nNRBP, MAP-IA) of one topic at ``cutoff`` (None: whole run), rank by rank over
    every rank in ndeval's order of operations (reference/ndeval.md §6.6)."""
    subtopics = sorted({s for (t, s, _) in qrels if t == topic}, key=int)
    grade = {(s, d): g for (t, s, d), g in qrels.items() if t == topic}
    relevant_docs = [sum(g >= level for (s2, _), g in grade.items() if s2 == s) for s in subtopics]
    n_subtopics = sum(1 for r in relevant_docs if r)
    decay = _powers(1.0 - alpha, len(ranking) + 1)
    weights = _powers(beta, len(ranking) + 200)
    factor = 1.0 - (1.0 - alpha) * beta
    scale = factor / n_subtopics if n_subtopics else 0.0

    def rbp(rows):  # Σ_r β^{r−1}·g(r), g(r) = Σ_s rel·(1 − α)^{c_s}
        seen = [0] * len(subtopics)
        total = 0.0
        for r, row in enumerate(rows):
            gain = 0.0
            for j, is_relevant in enumerate(row):
                gain = gain + (decay[seen[j]] if is_relevant else 0.0)
                seen[j] += is_relevant
            total = total + gain * weights[r]
        return total

    ranked = ranking if cutoff is None else ranking[:cutoff]
    rows = [[grade.get((s, d), 0) >= level for s in subtopics] for d in ranked]
    nrbp = rbp(rows) * scale
    pool = sorted(
        {d for (s, d), g in grade.items() if g >= level}, key=lambda d: d.encode(), reverse=True
    )
    pool_rows = np.array([[[grade.get((s, d), 0) >= level for s in subtopics] for d in pool]])
    if len(pool):
        ideal = literal_greedy(pool_rows, alpha, None, len(pool) if cutoff is None else cutoff)
        total = 0.0
        for r, gain in enumerate(ideal[0].tolist()):
            total = total + gain * weights[r]
        ideal_value = total * scale
    else:
        ideal_value = 0.0
    n_nrbp = nrbp / ideal_value if ideal_value else 0.0
    summed = 0.0
    for j in range(len(subtopics)):
        hits, total = 0, 0.0
        for r, row in enumerate(rows):
            hits += row[j]
            total = total + (hits / (r + 1) if row[j] else 0.0)
        summed = summed + (total / relevant_docs[j] if relevant_docs[j] else 0.0)
    map_ia = summed / n_subtopics if n_subtopics else 0.0
    return nrbp, n_nrbp, map_ia


@settings(max_examples=examples(32), deadline=None)
@given(
    ranked_collections(),
    st.sampled_from([0.5, 0.25, 1.0, 0.0]),
    st.sampled_from([0.5, 0.8, 0.0, 1.0]),
    st.sampled_from([None, 1, 3, 17]),
)
def test_whole_run_measures_are_ndeval_loops(case, alpha, beta, cutoff):
    from divaeval.judged import judge_texts, trec_run_text
    from divaeval.metrics import compute_measures, parse_measures

    qrels, run = case
    qrels_text = "".join(f"{t} {s} {d} {g}\n" for (t, s, d), g in qrels.items())
    pairs = [(topic, doc) for topic, docs in run.items() for doc in docs]
    (jr,) = judge_texts(qrels_text, [trec_run_text(pairs)])
    at = "" if cutoff is None else f"@{cutoff}"
    names = [f"NRBP(alpha={alpha},beta={beta}){at}", f"nNRBP(alpha={alpha},beta={beta}){at}"]
    measures = parse_measures([*names, f"MAP-IA{at}"])
    values = compute_measures(jr, measures)
    for row, topic in enumerate(jr.topics.tolist()):
        expected = literal_whole_run(qrels, run[topic], topic, alpha, beta, 1, cutoff)
        got = tuple(float(values[m][row]) for m in measures)
        assert got == expected, (topic, got, expected)


@pytest.mark.parametrize("beta", [0.5, 0.8, 0.3, 0.0, 1.0])
@pytest.mark.parametrize("started", [0, 5])
@pytest.mark.parametrize("generalised", [False, True])
def test_rbp_length_gives_the_whole_ranking_sum(beta, started, generalised):
    # Pools of up to 300 documents: the β-discounted sum of the ideal gains stops changing
    # long before the pool ends (for β < 1); summed to rbp_length it is the whole sum, bit for
    # bit, however far the ranking was built before, with binary or generalised gains (whose
    # near-ties may pick a gain just below the largest).
    rng = np.random.default_rng(7)
    relevant = rng.random((6, 300, 4)) < rng.random((6, 1, 1)) * 0.6
    values = rng.choice([0.25, 0.5, 1 / 3, 1.0], size=relevant.shape) if generalised else None
    greedy = GreedyIdeal(relevant, 0.5, values)
    greedy.gains(started)
    length = greedy.rbp_length(beta)
    powers = np.cumprod(np.r_[1.0, np.full(greedy.max_steps, beta)])  # repeated products
    whole = np.cumsum(greedy.gains(greedy.max_steps) * powers[: greedy.max_steps], axis=1)
    short = np.cumsum(greedy.gains(length) * powers[:length], axis=1)
    assert np.array_equal(short[:, -1], whole[:, -1])
    if 0 < beta < 1:
        assert length < greedy.max_steps / 2
    assert greedy.rbp_length(beta) == length  # cached


def test_safe_divide_by_hand():
    # [[3, 1], [4, 0]] / [[2], [0]]: row 0 is 3/2 = 1.5 and 1/2 = 0.5; row 1 divides by 0 -> 0
    from divaeval.metrics.common import safe_divide

    got = safe_divide(np.array([[3, 1], [4, 0]]), np.array([[2], [0]]))
    assert got.dtype == np.float64 and got.tolist() == [[1.5, 0.5], [0.0, 0.0]]
    assert safe_divide(np.array([1.0, 2.0]), 0.0).tolist() == [0.0, 0.0]  # a scalar 0
    assert safe_divide(np.array([1.0, 2.0]), 4).tolist() == [0.25, 0.5]


@SETTINGS
@given(
    st.sampled_from(
        [((5, 3), (5, 1)), ((5, 3), (3,)), ((5, 1), (5, 3)), ((4,), ()), ((2, 3), (2, 3))]
    ),
    st.integers(0, 2**32 - 1),
)
def test_safe_divide_is_the_division_where_the_denominator_is_not_zero(shapes, seed):
    # broadcast as numpy's division is, the same bits, zeros where the denominator is 0
    from divaeval.metrics.common import safe_divide

    rng = np.random.default_rng(seed)
    numerator = rng.integers(-3, 4, shapes[0]) / rng.integers(1, 4, shapes[0])
    denominator = rng.integers(0, 3, shapes[1]).astype(np.float64)
    got = safe_divide(numerator, denominator)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(denominator != 0, numerator / denominator, 0.0)
    assert got.shape == expected.shape and np.array_equal(got, expected)
