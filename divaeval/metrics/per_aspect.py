"""Per-aspect base metrics and the one intent-aware wrapper M-IA (Agrawal et al. WSDM 2009).

**M-IA = Σ_{t∈A} w(t) · M_t** (Agrawal et al. 2009), where M_t is the base metric M computed on
the grades of aspect t alone (``grades[:, :, t]``) with the ideal list, R and normalisers of aspect
t, and A is the set of aspects with at least one document of grade >= ``rel_level`` (ndeval's S).
w(t) is ``uniform`` (1/|A|) or ``intents`` (the ``--intents`` probabilities, used as given: not
renormalised, so the maximum of M-IA is Σ_{t∈A} w(t), as NTCIREVAL's SUMp).

The wrapper flattens ``[T, K, S]`` into ``T·S`` independent one-aspect rankings
(:class:`AspectRows`), evaluates a base metric on all of them at once, and sums the weighted
values per topic. A base metric is a function ``(rows, params, cutoffs) -> [N, C]`` on
one-aspect rankings, so with one aspect of weight 1 every M-IA is its base metric M exactly.

Relevance mapping of each base metric (negative grades count as 0):

- P, RR, AP: binary, grade >= ``rel_level``; AP divides by R_t = #documents of t with grade >=
  ``rel_level`` (trec_eval's ``map``); P@k divides by k.
- nDCG: gain = grade (``gain=linear``, trec_eval's ``ndcg_cut``) or 2^g − 1 (``gain=exp``),
  discount 1/log2(r+1), ideal = the aspect's judged grades sorted descending.
- ERR: stop probability from :mod:`divaeval.metrics.gains` (default ``scale``: (2^g−1)/2^G,
  Chapelle et al. 2009), ERR@k = Σ_{r≤k} (1/r)·R_r·Π_{s<r}(1 − R_s); unnormalised.
- RBP: (1 − p)·Σ_r p^{r−1}·v_r, v binary (grade >= ``rel_level``) or ``gain=graded``: grade /
  the aspect's largest grade.
- Q: NTCIREVAL's Q-measure (Sakai): gain = grade, relevant iff grade > 0, blended ratio
  BR(r) = (β·CG(r) + count(r))/(β·CG*(r) + r); Q@l = Σ_{relevant r≤l} BR(r)/min(l, R_t), Q over
  the whole ranking divides by R_t (R_t = #documents of t with grade > 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from divaeval.errors import warn
from divaeval.metrics.common import (
    at_cutoffs,
    depth_for,
    first_rank,
    log2_discount,
    repeated_powers,
    safe_divide,
)
from divaeval.metrics.gains import grade_probability
from divaeval.metrics.spec import Param

WEIGHT_MODES: tuple[str, ...] = ("uniform", "intents")


def weights_param(default: str) -> Param:
    """The ``weights`` parameter of intent-aware metrics."""
    return Param(
        "weights",
        str,
        default,
        "aspect weights: uniform = 1/S over the subtopics with a relevant document; intents = "
        "the --intents probabilities as given (uniform when no intent file)",
        choices=WEIGHT_MODES,
    )


class AspectRows(NamedTuple):
    """``N`` one-aspect rankings (row n = topic n // S, aspect n % S for T·S rows)."""

    grades: np.ndarray  # [N, K] int: grade of the document at rank r for this aspect
    length: np.ndarray  # [N] int: ranked documents
    ideal: np.ndarray  # [N, P] int: the aspect's positive grades, descending (0-padded)
    relevant_count: np.ndarray  # [N] int: documents with grade >= rel_level
    positive_count: np.ndarray  # [N] int: documents with grade > 0
    rel_level: int
    scale: int  # G: the largest grade in the qrels file (scale/linear mappings)

    @property
    def depth(self) -> int:
        return self.grades.shape[1]


BaseMetric = Callable[[AspectRows, dict[str, Any], tuple[int | None, ...]], np.ndarray]


def _aspect_ideal(material) -> np.ndarray:
    """[T·S, P]: each aspect's positive grades sorted descending (cached per topic set)."""
    key = "aspect-ideal"
    if key not in material.cache:
        pool = np.maximum(material.pool_grades, 0)  # [T, P, S]
        ideal = -np.sort(-pool, axis=1)
        n_topics, size, width = ideal.shape
        material.cache[key] = np.ascontiguousarray(ideal.transpose(0, 2, 1)).reshape(
            n_topics * width, size
        )
    return material.cache[key]


def aspect_rows(jr, length: int) -> AspectRows:
    """The run's ``T·S`` one-aspect rankings over ``length`` ranks (cached per run)."""
    key = ("aspect-rows", length)
    if key not in jr.cache:
        material = jr.material
        grades = jr.padded_to(length)
        n_topics, _, width = grades.shape
        flat = np.ascontiguousarray(grades.transpose(0, 2, 1)).reshape(n_topics * width, length)
        ideal = _aspect_ideal(material)
        jr.cache[key] = AspectRows(
            grades=flat,
            length=np.repeat(jr.length, width),
            ideal=ideal,
            relevant_count=material.relevant_count.reshape(-1),
            positive_count=(ideal > 0).sum(axis=1),
            rel_level=material.rel_level,
            scale=int(material.qrels_max_grade),
        )
    return jr.cache[key]


def aspect_weights(jr, mode: str) -> np.ndarray:
    """[T, S] weights of M-IA: 1/|A| (``uniform``) or the intent probabilities (``intents``),
    0 outside A (aspects without a relevant document)."""
    material = jr.material
    relevant = material.relevant_subtopic
    if mode == "uniform":
        count = relevant.sum(axis=1, keepdims=True)
        return np.where(relevant, 1.0 / np.maximum(count, 1), 0.0)
    if mode == "intents":
        root = material.root()[0]  # a fact of the qrels: counted and told once, for all topics
        if not root.cache.get("warned-stray-intents"):
            root.cache["warned-stray-intents"] = True
            stray = (root.intent_weight > 0) & ~root.relevant_subtopic
            if stray.any():
                t, s = (int(i[0]) for i in np.nonzero(stray))
                warn(
                    f"{int(stray.sum())} intent probabilities belong to subtopics without a "
                    f"document of grade >= {root.rel_level} (e.g. topic {root.topics[t]} "
                    f"subtopic {root.subtopics[t, s]}); intent-aware metrics leave them out"
                )
        return np.where(relevant, material.intent_weight, 0.0)
    raise ValueError(f"unknown weights {mode!r}")


def intent_aware(
    jr, base: BaseMetric, params: dict[str, Any], cutoffs: tuple[int | None, ...]
) -> np.ndarray:
    """M-IA = Σ_t w(t)·M_t for the base metric ``base`` (module docstring); ``params['weights']``
    selects w. Returns ``[T, len(cutoffs)]``."""
    n_topics = jr.n_topics
    width = jr.grades.shape[2]
    rows = aspect_rows(jr, depth_for(cutoffs, jr))
    values = np.asarray(base(rows, params, cutoffs), dtype=np.float64)
    values = values.reshape(n_topics, width, len(cutoffs))
    weights = aspect_weights(jr, params.get("weights", "intents"))
    out = np.zeros((n_topics, len(cutoffs)))
    for s in range(width):  # aspects in ascending order, as ndeval sums them
        out += weights[:, s, None] * values[:, s, :]
    return out


# --- base metrics on one-aspect rankings -------------------------------------------------------


def _ranks(length: int) -> np.ndarray:
    return np.arange(1.0, length + 1.0)[None, :]


def precision(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """P@k = #(grade >= rel_level in the top k)/k (always divided by k; whole ranking: by n)."""
    hits = np.cumsum(rows.grades >= rows.rel_level, axis=1, dtype=np.int64).astype(np.float64)
    counts = at_cutoffs(hits, cutoffs)
    ks = np.array([np.nan if k is None else k for k in cutoffs])[None, :]
    ks = np.where(np.isnan(ks), rows.length[:, None], ks)
    return safe_divide(counts, ks)


def reciprocal_rank(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """RR@k = 1/(rank of the first document with grade >= rel_level), 0 if none in the top k."""
    first = first_rank(rows.grades >= rows.rel_level)
    found = first > 0
    out = np.zeros((len(first), len(cutoffs)))
    for column, k in enumerate(cutoffs):
        inside = found if k is None else found & (first <= k)
        out[:, column] = np.where(inside, 1.0 / np.maximum(first, 1), 0.0)
    return out


def average_precision(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """AP@k = (1/R_t)·Σ_{relevant r≤k} count(r)/r (trec_eval's map, divided by R_t)."""
    relevant = rows.grades >= rows.rel_level
    hits = np.cumsum(relevant, axis=1, dtype=np.int64)
    terms = np.where(relevant, hits / _ranks(rows.depth), 0.0)
    return safe_divide(
        at_cutoffs(np.cumsum(terms, axis=1), cutoffs),
        rows.relevant_count.astype(np.float64)[:, None],
    )


def _ndcg_gain(grades: np.ndarray, kind: str) -> np.ndarray:
    g = np.maximum(grades, 0).astype(np.float64)
    return np.exp2(g) - 1.0 if kind == "exp" else g


def ndcg(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """nDCG@k = Σ_{r≤k} gain(r)/log2(r+1) ÷ the same over the aspect's ideal list (0 if none)."""
    kind = params.get("gain", "linear")
    depth = rows.depth
    ideal_length = max(depth, rows.ideal.shape[1])
    discount = log2_discount(ideal_length)
    run = np.cumsum(_ndcg_gain(rows.grades, kind) * discount[None, :depth], axis=1)
    ideal_gain = _ndcg_gain(rows.ideal, kind)
    ideal = np.zeros((ideal_gain.shape[0], ideal_length))
    ideal[:, : ideal_gain.shape[1]] = ideal_gain
    ideal = np.cumsum(ideal * discount[None, :], axis=1)
    return safe_divide(at_cutoffs(run, cutoffs), at_cutoffs(ideal, cutoffs))


def stop_probabilities(rows: AspectRows, params) -> np.ndarray:
    """[N, K] per-rank relevance probabilities from the ``rel`` and ``G`` parameters."""
    scale = int(params.get("G", 0) or 0) or rows.scale
    return grade_probability(
        rows.grades,
        params.get("rel", "scale"),
        rel_level=rows.rel_level,
        scale=scale,
        aspect_max=rows.ideal[:, :1] if rows.ideal.shape[1] else 0,
    )


def expected_reciprocal_rank(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """ERR@k = Σ_{r≤k} (1/r)·R_r·Π_{s<r}(1 − R_s) (Chapelle et al. 2009, Eq. 4)."""
    prob = stop_probabilities(rows, params)
    survive = np.cumprod(1.0 - prob, axis=1)
    before = np.ones_like(prob)
    before[:, 1:] = survive[:, :-1]
    return at_cutoffs(np.cumsum(prob * before / _ranks(rows.depth), axis=1), cutoffs)


def rank_biased_precision(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """RBP = (1 − p)·Σ_r p^{r−1}·v_r (Moffat & Zobel 2008): v binary (grade >= rel_level) or
    ``gain=graded``: grade / the aspect's largest grade (trec_eval rbp's intended rule)."""
    p = params["p"]
    if params.get("gain", "binary") == "graded":
        top = rows.ideal[:, :1].astype(np.float64) if rows.ideal.shape[1] else 0.0
        value = safe_divide(np.maximum(rows.grades, 0).astype(np.float64), top)
    else:
        value = (rows.grades >= rows.rel_level).astype(np.float64)
    weights = (1.0 - p) * repeated_powers(p, rows.depth)
    return at_cutoffs(np.cumsum(value * weights[None, :], axis=1), cutoffs)


def q_measure(rows: AspectRows, params, cutoffs) -> np.ndarray:
    """Q@l = Σ_{relevant r≤l} BR(r)/min(l, R) (Sakai; NTCIREVAL), BR(r) = (β·CG(r) + count(r))
    / (β·CG*(r) + r); the whole-ranking Q-measure divides by R."""
    beta = params.get("beta", 1.0)
    depth = rows.depth
    gain = np.maximum(rows.grades, 0).astype(np.float64)
    relevant = gain > 0
    count = np.cumsum(relevant, axis=1, dtype=np.int64)
    ideal = np.zeros((gain.shape[0], depth))
    width = min(depth, rows.ideal.shape[1])
    ideal[:, :width] = rows.ideal[:, :width]
    blended = (beta * np.cumsum(gain, axis=1) + count) / (
        beta * np.cumsum(ideal, axis=1) + _ranks(depth)
    )
    totals = at_cutoffs(np.cumsum(np.where(relevant, blended, 0.0), axis=1), cutoffs)
    big_r = rows.positive_count.astype(np.float64)[:, None]
    ks = np.array([np.inf if k is None else k for k in cutoffs], dtype=np.float64)[None, :]
    return safe_divide(totals, np.minimum(ks, big_r))
