"""Golbus, Aslam & Clarke's intent-aware cascade #-measures (Information Retrieval 16(4), 2013,
§6, Eq. 10): alpha#-nDCG-IA, alpha#-ERR-IA and
alpha#-RBP-IA.

For a topic with aspects A (subtopics with a document of grade >= ``-l``), binary relevance
rel(d, t), c(i, t) = earlier documents relevant to t, and a rank discount D (DCG: 1/log2(i+1),
ERR: 1/i, RBP: β^{i−1}; Table 4, whose printed 1/β^{i−1} is a typo):

- S_t@k = Σ_{i≤k} rel(d_i, t)·(1 − α)^{c(i,t)}·D(i), the cascade sum of aspect t alone;
- I_t@k = Σ_{j≤min(k, R_t)} (1 − α)^{j−1}·D(j), its ideal (all R_t relevant documents first);
- α-X_t@k = S_t@k / I_t@k;
- **α#-X-IA@k = λ·S-recall@k + (1 − λ)·avg_t(α-X_t@k)** (Eq. 10).

Subtopic averages ``avg`` (§6.3):

- ``micro`` (default; Eq. 10): Σ_{t∈A} w(t)·α-X_t@k with the intent weights (uniform 1/M
  without an intent file, the paper's "all subtopics considered equally");
- ``geom``: the weighted geometric mean exp(Σ w(t)·log max(α-X_t, ε) / Σ w(t)), ε = 1e-5
  (trec_eval's gm_map floor; the paper does not say how zeros are handled);
- ``smr``: Σ_t smr_t·α-X_t@k with the subtopic miss rates of Eq. 3–4 (exponent ξ, the exact
  minimum cover; :mod:`divaeval.collection`). Parameter ``smr``: ``eq3`` (default) is Eq. 3 as
  printed, the miss probability of ξ documents drawn with replacement, (1 − R_t/R_T)^ξ, which
  reproduces the paper's Table 3; ``exact`` is the probability the paper approximates, ξ
  documents drawn without replacement, C(R_T − R_t, ξ)/C(R_T, ξ), the reading that reproduces
  Table 10's SMR block (docs/reproducing.md);
- ``cascade``: no per-aspect normalisation: the intent-weighted cascade gain
  Σ_t w(t)·rel(d_i, t)·(1 − α)^{c(i,t)} (Eq. 7) with discount D, divided by the same sum over a
  greedy ideal list (largest marginal gain first, ties to the largest docno). For DCG and
  uniform weights this is ndeval's alpha-nDCG.

Special cases: λ = 1 gives S-recall (ndeval's strec); λ = α = 0 with ``micro`` and uniform
weights gives binary nDCG-IA; ``cascade`` with λ = 0 gives α-nDCG. A topic without relevant
documents scores 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from divaeval.metrics.common import depth_for, rank_discount, repeated_powers, safe_divide
from divaeval.metrics.novelty import GreedyIdeal, novelty_gains, shared_ideal
from divaeval.metrics.registry import register
from divaeval.metrics.spec import MetricSpec, Param, in_unit_interval

if TYPE_CHECKING:
    from divaeval.collection import Sampling

FAMILY = "alpha-sharp"
SOURCE = "Golbus, Aslam & Clarke, Inf. Retr. 16(4) 2013, §6 Eq. 10"
AVERAGES = ("micro", "geom", "smr", "cascade")
#: the miss probability behind the smr weights: Eq. 3 as printed, or exact (``smr=``)
SMR_RULES = ("eq3", "exact")
_SMR_SAMPLING: dict[str, Sampling] = {"eq3": "with_replacement", "exact": "without_replacement"}
#: floor of every geometric mean (trec_eval's MIN_GEO_MEAN, as gm_map)
GEOMETRIC_FLOOR = 1e-5


def _index(k: int | None, length: int) -> int:
    return length if k is None else min(k, length)


def _aspect_weights(material) -> tuple[np.ndarray, np.ndarray]:
    """(A [T, S] bool, w [T, S] intent weights restricted to A) of a topic material."""
    aspects = material.relevant_subtopic & material.subtopic_valid
    return aspects, np.where(aspects, material.intent_weight, 0.0)


def _aspects(jr) -> tuple[np.ndarray, np.ndarray]:
    """(A [T, S] bool, w [T, S] intent weights restricted to A)."""
    return _aspect_weights(jr.material)


def _cached(jr, key: tuple, build):
    """``build()`` once per judged run (the measures of a grid share it)."""
    value = jr.cache.get(key)
    if value is None:
        value = jr.cache[key] = build()
    return value


def _relevant(jr, length: int) -> np.ndarray:
    """[T, K, S] binary relevance (grade >= -l) of the first ``length`` ranks."""
    return _cached(
        jr, ("alpha-sharp-relevant", length), lambda: jr.padded_to(length) >= jr.material.rel_level
    )


def s_recall(jr, cutoffs) -> np.ndarray:
    """S-recall@k [T, C]: aspects covered in the top k / aspects (Golbus Eq. 5)."""

    def build():
        length = max(depth_for(cutoffs, jr), 1)
        covered = np.maximum.accumulate(_relevant(jr, length), axis=1).sum(axis=2)
        n_aspects = _aspects(jr)[0].sum(axis=1).astype(np.float64)
        columns = [_index(k, length) - 1 for k in cutoffs]
        return safe_divide(covered[:, columns].astype(np.float64), n_aspects[:, None])

    return _cached(jr, ("alpha-sharp-recall", cutoffs), build)


def per_aspect_scores(jr, kind, alpha, beta, cutoffs) -> np.ndarray:
    """α-X_t@k [T, C, S] (zero outside the aspects)."""
    length = max(depth_for(cutoffs, jr), 1)
    counts = jr.material.relevant_count  # R_t
    ideal_length = max(length, int(counts.max(initial=0)))
    decay = repeated_powers(1.0 - alpha, ideal_length + 1)

    def novelty():  # (1 − α)^{c(i,t)} where d_i is relevant to t, shared by every discount
        relevant = _relevant(jr, length)
        earlier = np.cumsum(relevant, axis=1, dtype=np.int32) - relevant
        return np.where(relevant, decay[earlier], 0.0)

    factors = _cached(jr, ("alpha-sharp-novelty", alpha, length), novelty)
    disc = rank_discount(kind, ideal_length, beta)
    running = np.cumsum(factors * disc[None, :length, None], axis=1)
    ideal_running = np.cumsum(decay[:ideal_length] * disc)
    aspects, _ = _aspects(jr)
    scores = np.zeros((jr.n_topics, len(cutoffs), factors.shape[2]))
    for column, k in enumerate(cutoffs):
        run_sum = running[:, _index(k, length) - 1, :]
        ideal_depth = counts if k is None else np.minimum(counts, k)
        ideal_sum = np.where(ideal_depth > 0, ideal_running[np.maximum(ideal_depth, 1) - 1], 0.0)
        scores[:, column, :] = np.where(aspects, safe_divide(run_sum, ideal_sum), 0.0)
    return scores


def smr_weights(material, rule: str = "eq3") -> np.ndarray:
    """[T, S] subtopic miss rates smr_t = smr_t^ξ (Golbus Eq. 3–4, exact minimum cover ξ;
    ``rule`` eq3 or exact, see the module docstring), from the topic's relevant documents;
    computed once on the root material (they depend on the qrels alone) and cached there."""
    root, rows = material.root()
    key = ("golbus-smr", material.rel_level, rule)
    if key not in root.cache:
        root.cache[key] = _smr_table(root, _SMR_SAMPLING[rule])
    table = root.cache[key]
    return table if rows is None else table[rows]


def _smr_table(material, sampling: Sampling) -> np.ndarray:
    """[T, S] smr_t of every topic of ``material`` (see :func:`smr_weights`)."""
    # lazily: the collection analysis runs on pandas, which the main job never imports
    import pandas as pd

    from divaeval.collection import subtopic_table

    level = material.rel_level
    topic, doc, column = np.nonzero(
        (material.pool_grades >= level) & material.subtopic_valid[:, None, :]
    )
    topics = np.asarray(material.topics).astype(str)
    frame = pd.DataFrame(
        {
            "topic": topics[topic],
            "subtopic": material.subtopics[topic, column].astype(str),
            "docno": doc.astype(str),
            "grade": material.pool_grades[topic, doc, column].astype(np.int64),
        }
    )
    out = np.zeros(material.subtopics.shape)
    if len(frame):
        table = subtopic_table(frame, rel_level=level, sampling=sampling)
        lookup = pd.Series(
            table["smr"].to_numpy(),
            index=pd.MultiIndex.from_arrays([table["topic"].astype(str), table["subtopic"]]),
        )
        cells = pd.MultiIndex.from_arrays(
            [np.repeat(topics, out.shape[1]), material.subtopics.ravel().astype(str)]
        )
        out = np.nan_to_num(lookup.reindex(cells).to_numpy(dtype=np.float64)).reshape(out.shape)
    return out


def _uniform(weights: np.ndarray, aspects: np.ndarray) -> bool:
    """Every topic's weights are equal over its aspects."""
    n = aspects.sum(axis=1, keepdims=True)
    expected = np.where(aspects, 1.0 / np.maximum(n, 1), 0.0)
    return bool(np.allclose(weights, expected, rtol=0, atol=1e-12))


def cascade_average(jr, kind, alpha, beta, cutoffs) -> np.ndarray:
    """Intent-weighted cascade gain (Eq. 7), discounted, ÷ the same over the greedy ideal."""
    level = jr.material.rel_level
    length = max(depth_for(cutoffs, jr), 1)
    if any(k is None for k in cutoffs):
        length = max(length, int(jr.material.pool_size.max(initial=0)))
    relevant = jr.padded_to(length) >= level
    aspects, weights = _aspects(jr)
    uniform = _uniform(weights, aspects)  # the 1/M factor cancels: ndeval's exact, unweighted path
    values = None if uniform else relevant * weights[:, None, :]
    gains = novelty_gains(relevant, alpha, values)

    def build(root):
        pool_relevant = root.pool_grades >= level
        if uniform:
            return GreedyIdeal(pool_relevant, alpha)
        _, root_weights = _aspect_weights(root)
        return GreedyIdeal(pool_relevant, alpha, pool_relevant * root_weights[:, None, :])

    key = ("golbus-cascade-ideal", alpha, level, uniform)
    ideal = shared_ideal(jr.material, key, build, length)
    disc = rank_discount(kind, length, beta)[None, :]
    run_sum = np.cumsum(gains * disc, axis=1)
    ideal_sum = np.cumsum(ideal * disc, axis=1)
    out = np.zeros((jr.n_topics, len(cutoffs)))
    for column, k in enumerate(cutoffs):
        index = _index(k, length)
        out[:, column] = safe_divide(run_sum[:, index - 1], ideal_sum[:, index - 1])
    return out


def subtopic_average(
    jr, kind, alpha, beta, avg, cutoffs, smr: str = "eq3"
) -> tuple[np.ndarray, np.ndarray]:
    """(S-recall@k [T, C], the subtopic average of α-X_t@k [T, C]), cached on the judged run:
    λ only mixes them, so the measures of every λ (a ``meta sensitivity --grid``) share one
    computation per α."""
    key = ("alpha-sharp", kind, alpha, beta, avg, cutoffs, smr if avg == "smr" else None)
    cached = jr.cache.get(key)
    if cached is not None:
        return cached
    recall = s_recall(jr, cutoffs)
    if avg == "cascade":
        averaged = cascade_average(jr, kind, alpha, beta, cutoffs)
    else:
        scores = per_aspect_scores(jr, kind, alpha, beta, cutoffs)
        _, weights = _aspects(jr)
        if avg == "micro":
            averaged = (scores * weights[:, None, :]).sum(axis=2)
        elif avg == "smr":
            averaged = (scores * smr_weights(jr.material, smr)[:, None, :]).sum(axis=2)
        else:
            logs = np.log(np.maximum(scores, GEOMETRIC_FLOOR)) * weights[:, None, :]
            total = weights.sum(axis=1)[:, None]
            averaged = np.where(total > 0, np.exp(safe_divide(logs.sum(axis=2), total)), 0.0)
    jr.cache[key] = (recall, averaged)
    return recall, averaged


def alpha_sharp(jr, params, cutoffs, kind: str) -> np.ndarray:
    """α#-X-IA@k = λ·S-recall@k + (1 − λ)·avg_t α-X_t@k (Golbus Eq. 10)."""
    alpha, lam, avg = params["alpha"], params["lambda"], params["avg"]
    beta = params.get("beta", 0.8)
    recall, averaged = subtopic_average(jr, kind, alpha, beta, avg, cutoffs, params["smr"])
    return lam * recall + (1.0 - lam) * averaged


_ALPHA = Param("alpha", float, 0.3, "novelty parameter α (redundancy penalty)", in_unit_interval)
_LAMBDA = Param("lambda", float, 0.5, "weight λ of S-recall in the mixture", in_unit_interval)
_AVG = Param(
    "avg",
    str,
    "micro",
    "subtopic average: micro (intent-weighted mean, Eq. 10), geom, smr or cascade",
    choices=AVERAGES,
)
_SMR = Param(
    "smr",
    str,
    "eq3",
    "smr weights (avg=smr): eq3 (Eq. 3, drawing with replacement; Table 3) or exact "
    "(without replacement; Table 10)",
    choices=SMR_RULES,
)
_BETA = Param("beta", float, 0.8, "RBP persistence β", in_unit_interval)

_NOTES = (
    "Binary relevance (grade >= -l), aspects = subtopics with a relevant document, intent "
    "weights from --intents else uniform. micro/geom use the intent weights (the paper's "
    "uniform case without an intent file); geom floors each α-X_t at 1e-5; smr uses Eq. 3–4 "
    "with the exact minimum cover ξ (smr=exact: without replacement); cascade builds one "
    "greedy ideal list (ties to the largest docno). Topic averages (--mean geom|dd) are "
    "applied over topics by the caller."
)


def _register(name: str, kind: str, summary: str, aliases: tuple[str, ...], extra=()) -> None:
    def compute(jr, params, cutoffs):
        return alpha_sharp(jr, params, cutoffs, kind)

    compute.__doc__ = f"{name}@k (Golbus et al. 2013 Eq. 10, {kind} discount)."
    register(
        MetricSpec(
            name=name,
            family=FAMILY,
            summary=summary,
            reference=SOURCE,
            compute=compute,
            params=(_ALPHA, _LAMBDA, _AVG, _SMR, *extra),
            aliases=aliases,
            cutoff="optional",
            default_cutoffs=(20,),
            notes=_NOTES,
        )
    )


_register(
    "alpha#-nDCG-IA",
    "dcg",
    "λ·S-recall + (1 − λ)·per-subtopic α-nDCG averaged over subtopics (discount 1/log2(i+1))",
    ("a#-ndcg-ia", "alpha-sharp-ndcg-ia"),
)
_register(
    "alpha#-ERR-IA",
    "err",
    "λ·S-recall + (1 − λ)·per-subtopic α-ERR averaged over subtopics (discount 1/i)",
    ("a#-err-ia", "alpha-sharp-err-ia"),
)
_register(
    "alpha#-RBP-IA",
    "rbp",
    "λ·S-recall + (1 − λ)·per-subtopic α-RBP averaged over subtopics (discount β^{i−1})",
    ("a#-rbp-ia", "alpha-sharp-rbp-ia"),
    extra=(_BETA,),
)
