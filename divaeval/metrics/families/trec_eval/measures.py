"""What trec_eval's other measures compute, one function per measure (registered in
:mod:`divaeval.metrics.families.trec_eval`): counts, bpref and infAP, interpolated precision,
the set measures, success, R-multiples, utility, unjudged and judged shares, and the
experimental gain measures (ndcg_rel, Rndcg, G, binG).

Relevance is trec_eval's (see :mod:`divaeval.metrics.families.adhoc`): relevant = judged with
grade >= ``rel`` (default ``-l``); judged non-relevant = judged with 0 <= grade < ``rel``; a
negative grade is trec_eval's "in the pool but unjudged". Notation per topic: n = documents
retrieved, R = num_rel, N = judged non-relevant documents, hits@i = relevant documents at ranks
<= i.
"""

from __future__ import annotations

import numpy as np

from divaeval.metrics.common import at_cutoffs, depth_for, log2_discount, rank_sum, safe_divide
from divaeval.metrics.families.adhoc import gain_of_grades, ideal_gains
from divaeval.metrics.relevance import (
    doc_grades,
    hits,
    judged_mask,
    num_rel,
    ranking,
    relevance_level,
    trec_relevant,
)

#: trec_eval's default levels of iprec_at_recall and 11pt_avg, and of Rprec_mult
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)


def _length(jr, cutoffs=(None,)) -> int:
    return max(depth_for(cutoffs, jr), 1)


def _whole(value: np.ndarray, cutoffs) -> np.ndarray:
    """[T] → [T, C]: a whole-ranking value repeated for every requested cutoff."""
    return np.repeat(np.asarray(value, dtype=np.float64)[:, None], len(cutoffs), axis=1)


def _ranks(length: int) -> np.ndarray:
    return np.arange(1.0, length + 1.0)[None, :]


def _in_ranking(jr, length: int) -> np.ndarray:
    return np.arange(length)[None, :] < jr.length[:, None]


def judged_nonrelevant(jr, length: int, level: int) -> np.ndarray:
    """[T, K] bool: ranked documents judged with 0 <= grade < level."""
    grade = doc_grades(jr, length)
    return judged_mask(jr, length) & (grade >= 0) & (grade < level) & _in_ranking(jr, length)


def _setup(jr, params):
    jr = ranking(jr, params)
    level = relevance_level(jr, params)
    return jr, level, _length(jr)


# --------------------------------------------------------------------------------------------
# counts (summed over topics, as trec_eval and ir_measures do)


def num_ret(jr, params, cutoffs):
    """num_ret = n; with ``rel``: the relevant documents retrieved (ir_measures
    NumRet(rel=k) = num_rel_ret)."""
    jr = ranking(jr, params)
    if params.get("rel") is None:
        return _whole(jr.length, cutoffs)
    level = relevance_level(jr, params)
    return _whole(hits(jr, _length(jr), level)[:, -1], cutoffs)


def num_rel_measure(jr, params, cutoffs):
    """num_rel = R, the judged documents with grade >= rel (retrieved or not)."""
    return _whole(num_rel(jr, relevance_level(jr, params)), cutoffs)


def num_rel_ret(jr, params, cutoffs):
    """num_rel_ret = hits@n."""
    jr, level, length = _setup(jr, params)
    return _whole(hits(jr, length, level)[:, -1], cutoffs)


def num_nonrel_judged_ret(jr, params, cutoffs):
    """Retrieved documents judged non-relevant (0 <= grade < rel)."""
    jr, level, length = _setup(jr, params)
    return _whole(judged_nonrelevant(jr, length, level).sum(axis=1), cutoffs)


def num_q(jr, params, cutoffs):
    """1 per evaluated topic; the summary (a sum) is the number of topics (trec_eval num_q)."""
    return np.ones((jr.n_topics, len(cutoffs)))


# --------------------------------------------------------------------------------------------
# bpref and infAP


def bpref(jr, params, cutoffs):
    """bpref = (1/R)·Σ_{relevant retrieved r} (1 − min(n_r, R)/min(R, N)), n_r = judged
    non-relevant documents ranked above r (Buckley & Voorhees SIGIR 2004, trec_eval's form);
    a relevant document counts 1 when N = 0."""
    jr, level, length = _setup(jr, params)
    relevant = trec_relevant(jr, length, level)
    above = np.cumsum(judged_nonrelevant(jr, length, level), axis=1)
    big_r = num_rel(jr, level)
    n_nonrel = jr.material.judged_nonrelevant(level).astype(np.float64)
    bound = np.minimum(big_r, n_nonrel)[:, None]
    penalty = safe_divide(np.minimum(above, big_r[:, None]), np.broadcast_to(bound, above.shape))
    terms = np.where(relevant, 1.0 - penalty, 0.0)
    return _whole(safe_divide(rank_sum(terms), big_r), cutoffs)


INFAP_EPSILON = 0.00001


def inf_ap(jr, params, cutoffs):
    """infAP (Yilmaz & Aslam CIKM 2006, trec_eval's form): (1/R)·Σ over relevant retrieved
    documents at rank k of E[prec@k] = 1/k + ((k − 1)/k)·(pool_{<k}/(k − 1))·(rel_{<k} + ε)/
    (rel_{<k} + nonrel_{<k} + 2ε), where pool_{<k} counts the documents above k that have a
    qrels line (judged or "pooled but unjudged", grade < 0), rel/nonrel the judged relevant and
    non-relevant ones above k, ε = 1e-5; the first term alone at k = 1."""
    jr, level, length = _setup(jr, params)
    relevant = trec_relevant(jr, length, level)
    pooled = judged_mask(jr, length) & _in_ranking(jr, length)
    nonrel = judged_nonrelevant(jr, length, level)

    def above(mask):
        running = np.cumsum(mask, axis=1).astype(np.float64)
        return np.concatenate([np.zeros((jr.n_topics, 1)), running[:, :-1]], axis=1)

    k = _ranks(length)
    pool_above, rel_above, nonrel_above = above(pooled), above(relevant), above(nonrel)
    ratio = (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
    expected = np.where(
        k > 1, 1.0 / k + ((k - 1.0) / k) * (pool_above / np.maximum(k - 1, 1)) * ratio, 1.0
    )
    terms = np.where(relevant, expected, 0.0)
    return _whole(safe_divide(rank_sum(terms), num_rel(jr, level)), cutoffs)


# --------------------------------------------------------------------------------------------
# interpolated precision


def required_relevant(recall: np.ndarray, big_r: np.ndarray, rounding: str) -> np.ndarray:
    """The number of relevant documents that reach recall level p: round(p·R) in trec_eval 10,
    ⌊p·R + 0.9⌋ in trec_eval 9 and pytrec_eval (trec_eval 10's "change uses of int truncation
    to round/floor")."""
    product = recall * big_r
    if rounding == "v9":
        return np.floor(product + 0.9)
    return np.floor(product + 0.5)


def interpolated_precision(jr, params, levels: np.ndarray) -> np.ndarray:
    """[T, L]: max over ranks at or below the required relevant document of the precision
    there (Int_Prec(rank X) = max Prec(rank Y) for Y >= X); 0 when R = 0 or the level is not
    reached."""
    jr, level, length = _setup(jr, params)
    relevant = trec_relevant(jr, length, level)
    running = hits(jr, length, level)
    precision = np.where(relevant, running / _ranks(length), 0.0)
    best_below = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]  # suffix max
    big_r = num_rel(jr, level)
    needed = required_relevant(levels[None, :], big_r[:, None], params["rounding"])
    needed = np.maximum(needed, 1).astype(np.int64)  # p = 0: from the first relevant document
    found = running[:, -1].astype(np.int64)
    # rank (0-based) of the needed-th relevant document
    position = np.argmax(running[:, :, None] >= needed[:, None, :], axis=1)
    value = np.take_along_axis(best_below, np.minimum(position, length - 1), axis=1)
    return np.where((needed <= found[:, None]) & (big_r[:, None] > 0), value, 0.0)


def iprec(jr, params, cutoffs):
    """iprec_at_recall_p: interpolated precision at recall level p."""
    value = interpolated_precision(jr, params, np.array([params["recall"]]))[:, 0]
    return _whole(value, cutoffs)


def _levels(text: str) -> np.ndarray:
    return np.array(sorted({float(part) for part in text.split(",") if part.strip()}))


def check_levels(text: str) -> str | None:
    try:
        levels = _levels(text)
    except ValueError:
        return "must be comma-separated numbers"
    if len(levels) == 0:
        return "needs at least one level"
    return None


def point_average(jr, params, cutoffs):
    """11pt_avg: the mean of the interpolated precision at the given recall levels (default
    0.0, 0.1, …, 1.0)."""
    levels = _levels(params["levels"])
    return _whole(interpolated_precision(jr, params, levels).mean(axis=1), cutoffs)


# --------------------------------------------------------------------------------------------
# set measures, success, R-multiples


def _set_counts(jr, params):
    jr, level, length = _setup(jr, params)
    found = hits(jr, length, level)[:, -1]
    return found, jr.length.astype(np.float64), num_rel(jr, level)


def set_map(jr, params, cutoffs):
    """set_map = hits² / (n·R) (set precision × set recall)."""
    found, n, big_r = _set_counts(jr, params)
    return _whole(safe_divide(found * found, n * big_r), cutoffs)


def set_f(jr, params, cutoffs):
    """set_F = (β + 1)·P·R / (R + β·P) on the retrieved set (trec_eval's set_F.β, ir_measures
    SetF(beta=β): β itself, not β², weighs recall)."""
    found, n, big_r = _set_counts(jr, params)
    precision, recall = safe_divide(found, n), safe_divide(found, big_r)
    beta = params["beta"]
    return _whole(
        safe_divide((beta + 1.0) * precision * recall, recall + beta * precision), cutoffs
    )


def success(jr, params, cutoffs):
    """success@k = 1 if a relevant document is in the top k, else 0."""
    jr, level, _ = _setup(jr, params)
    length = _length(jr, cutoffs)
    return (at_cutoffs(hits(jr, length, level), cutoffs) > 0).astype(np.float64)


def rprec_mult(jr, params, cutoffs):
    """Rprec_mult_m = precision at rank ⌊m·R + 0.9⌋... see required_relevant: P@c with
    c = the trec_eval 9 rounding of m·R (unchanged in trec_eval 10); 0 when R = 0."""
    jr, level, length = _setup(jr, params)
    big_r = num_rel(jr, level)
    cutoff = required_relevant(np.float64(params["mult"]), big_r, "v9").astype(np.int64)
    longest = max(int(cutoff.max(initial=0)), length)
    running = hits(jr, longest, level) if longest > length else hits(jr, length, level)
    padded = np.concatenate([running, np.repeat(running[:, -1:], longest - running.shape[1], 1)], 1)
    found = np.take_along_axis(padded, np.maximum(cutoff - 1, 0)[:, None], axis=1)[:, 0]
    return _whole(safe_divide(found, cutoff.astype(np.float64)), cutoffs)


def utility(jr, params, cutoffs):
    """utility = a·rel_ret + b·nonrel_ret + c·rel_nonret + d·nonrel_nonret over the
    contingency table of the retrieved set; nonrel_nonret = N_coll − n − rel_nonret with the
    collection size N_coll (trec_eval -N, default 0)."""
    a, b, c, d = (float(part) for part in params["weights"].split(","))
    found, n, big_r = _set_counts(jr, params)
    rel_nonret = big_r - found
    nonrel_nonret = float(params["N"]) - n - rel_nonret
    return _whole(a * found + b * (n - found) + c * rel_nonret + d * nonrel_nonret, cutoffs)


def check_weights(text: str) -> str | None:
    parts = text.split(",")
    if len(parts) != 4:
        return "needs 4 comma-separated numbers a,b,c,d"
    try:
        [float(part) for part in parts]
    except ValueError:
        return "needs 4 comma-separated numbers a,b,c,d"
    return None


def unjudged(jr, params, cutoffs):
    """unj@k = unjudged documents in the top k / k (@all: / n); unjudged = no qrels line, or
    a negative grade (trec_eval's "in the pool but unjudged")."""
    jr = ranking(jr, params)
    length = _length(jr, cutoffs)
    unknown = ~judged_mask(jr, length) | (doc_grades(jr, length) < 0)
    missing = unknown & _in_ranking(jr, length)
    counts = at_cutoffs(np.cumsum(missing, axis=1).astype(np.float64), cutoffs)
    sizes = np.stack([jr.length if k is None else np.full(jr.n_topics, k) for k in cutoffs], 1)
    return safe_divide(counts, sizes.astype(np.float64))


def judged_at(jr, params, cutoffs):
    """Judged@k = documents with a qrels line among the top min(k, n) / min(k, n)
    (ir_measures' Judged; any grade counts as judged)."""
    length = _length(jr, cutoffs)
    present = judged_mask(jr, length) & _in_ranking(jr, length)
    counts = at_cutoffs(np.cumsum(present, axis=1).astype(np.float64), cutoffs)
    sizes = np.stack(
        [jr.length if k is None else np.minimum(jr.length, k) for k in cutoffs], axis=1
    ).astype(np.float64)
    return safe_divide(counts, sizes)


# --------------------------------------------------------------------------------------------
# experimental gain measures


def _gains(jr, params, length: int) -> np.ndarray:
    return gain_of_grades(doc_grades(jr, length), params) * judged_mask(jr, length)


def ndcg_at(jr, params, depth_needed: int):
    """(DCG running [T, K], ideal DCG running [T, K]) over K = max(depth_needed, n) ranks."""
    length = max(_length(jr), depth_needed, 1)
    discount = log2_discount(length)[None, :]
    dcg = np.cumsum(_gains(jr, params, length) * discount, axis=1)
    best = np.cumsum(ideal_gains(jr, length, params)[0] * discount, axis=1)
    return dcg, best


def ndcg_rel(jr, params, cutoffs):
    """ndcg_rel: nDCG averaged over the relevant documents (gain > 0): DCG@i/IDCG@i at the
    rank i of each retrieved one, and DCG@n / the whole ideal DCG for each one not retrieved
    (the trec_eval help's description; every value checked against pytrec_eval)."""
    jr = ranking(jr, params)
    n_ideal = ideal_gains(jr, 1, params)[1]
    dcg, best = ndcg_at(jr, params, int(n_ideal.max(initial=0)))
    length = dcg.shape[1]
    positive = (_gains(jr, params, length) > 0) & _in_ranking(jr, length)
    found = rank_sum(np.where(positive, safe_divide(dcg, best), 0.0))
    end = np.maximum(jr.length - 1, 0)[:, None]
    whole = np.take_along_axis(best, np.maximum(n_ideal - 1, 0)[:, None], 1)[:, 0]
    tail = safe_divide(np.take_along_axis(dcg, end, 1)[:, 0], whole)
    total = found + np.maximum(n_ideal - positive.sum(axis=1), 0) * tail
    return _whole(safe_divide(total, n_ideal.astype(np.float64)), cutoffs)


def rndcg(jr, params, cutoffs):
    """Rndcg: nDCG averaged at the R-level points, the cumulative numbers of judged documents
    at each positive gain level taken in decreasing gain order (3 documents of gain 2 and 5 of
    gain 1: nDCG@3 and nDCG@8), plus nDCG@n when n >= (judged positive documents) + 2 (the
    help's "final implied R-level change at num_retrieved", with trec_eval's bounds, found
    against pytrec_eval); nDCG@p beyond the ranking is DCG@n / IDCG@p; 0 when num_rel = 0 at
    ``-l``."""
    jr = ranking(jr, params)
    material = jr.material
    level_gain = gain_of_grades(material.grade_levels, params)
    order = np.argsort(-level_gain, kind="stable")
    order = order[level_gain[order] > 0]
    counts = material.level_counts[:, order]
    points = np.cumsum(counts, axis=1)
    present = counts > 0
    total = points[:, -1] if points.shape[1] else np.zeros(jr.n_topics, dtype=np.int64)
    final = jr.length >= total + 2
    points = np.concatenate([points, jr.length[:, None]], axis=1)
    present = np.concatenate([present, final[:, None]], axis=1)
    dcg, best = ndcg_at(jr, params, int(points.max(initial=0)))
    index = np.maximum(points - 1, 0)
    value = safe_divide(np.take_along_axis(dcg, index, 1), np.take_along_axis(best, index, 1))
    summed = np.where(present, value, 0.0).sum(axis=1)
    result = safe_divide(summed, present.sum(axis=1).astype(np.float64))
    # trec_eval scores 0 when the topic has no relevant document at -l (num_rel = 0)
    return _whole(np.where(num_rel(jr) > 0, result, 0.0), cutoffs)


def gain_g(jr, params, cutoffs):
    """G = (Σ_{gain_i > 0} gain_i / log2(2 + I(i) − C(i))) / (the topic's total positive
    gain), C(i) = the gain of the ranks <= i, I(i) = the same for the ideal list extended with
    gains of 1 (the help's "ideal_gain(i) − results_gain(i)"; the extension found against
    pytrec_eval). binG: binary gains, so I(i) − C(i) = the non-relevant documents above i."""
    jr = ranking(jr, params)
    length = _length(jr)
    if params.get("binary"):
        level = relevance_level(jr, params)
        gains = trec_relevant(jr, length, level).astype(np.float64)
        ideal = np.ones((jr.n_topics, length))
        total = num_rel(jr, level)
    else:
        gains = np.where(_in_ranking(jr, length), _gains(jr, params, length), 0.0)
        ideal, size = ideal_gains(jr, length, params)
        ideal = np.where(np.arange(length)[None, :] < size[:, None], ideal, 1.0)
        total = rank_sum(ideal_gains(jr, max(int(size.max(initial=0)), 1), params)[0])
    missing = np.cumsum(ideal, axis=1) - np.cumsum(gains, axis=1)
    terms = np.where(gains > 0, gains / np.log2(2.0 + np.maximum(missing, 0.0)), 0.0)
    return _whole(safe_divide(rank_sum(terms), total), cutoffs)
