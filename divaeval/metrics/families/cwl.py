"""Measures ir_measures offers beyond trec_eval: the C/W/L measures of cwl_eval (INST, INSQ,
NERR8–NERR11, SDCG) and Clarke et al.'s compatibility (Compat).

**C/W/L** (Moffat et al.; Azzopardi, Thomas & Moffat, SIGIR 2019; cwl_eval 1.0 as ir_measures
calls it). A measure is its continuation probabilities C_i; the weight of rank i is
W_i = Π_{j<i} C_j ÷ Σ_{i'≤D} Π_{j<i'} C_j, and the value is the expected utility Σ_i W_i·g_i,
over D = 1000 ranks (cwl_eval's max_n: longer rankings are cut, shorter ones padded with gain
0). Gains: g = (clip(max(grade, 0), min_rel, max_rel) − min_rel)/(max_rel − min_rel), 0 for an
unjudged document; ``max_rel`` must be given (as in ir_measures). With rank i from 1:

- INST(T): C_i = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{j≤i} g_j (Moffat et al.
  ADCS 2015);
- INSQ(T): C_i = ((i + 2T − 1)/(i + 2T))²;
- NERR8@k: C_i = 1 − g_i for i < k, else 0; NERR9@k: C_i = (i/(i + 1))·(1 − g_i) for i < k;
  NERR10(p): C_i = p·(1 − g_i); NERR11(T): C_i = ((i + 2T − 1)/(i + 2T))²·(1 − g_i)
  (Azzopardi et al., ICTIR 2021, Eqs. 8–11);
- SDCG@k: C_i = log2(i + 1)/log2(i + 2) for i < k, else 0: DCG@k with weights 1/log2(i + 1)
  scaled to sum to 1.

ir_measures hands cwl_eval the run sorted by score with ties in file order: ``--order
score-file`` reproduces it on tied runs.

**Compat** (Clarke, Vtyurina & Smucker, TOIS 2021; ir_measures' compat provider): the
rank-biased overlap RBO(p) of the ranking with the ideal ranking, RBO = Σ_{d<D} p^d·|A_{d+1} ∩
B_{d+1}|/(d + 1) ÷ Σ_{d<D} p^d over D = max(n, ideal length) (A_d, B_d the first d documents),
divided by RBO(ideal, ideal) when ``normalize``. The ideal ranking holds every document with a
positive grade, by grade descending, then the run's score descending (an unretrieved document
scores 0), then qrels file order; the ranking breaks score ties by docno ascending (``--order
score-docno-asc`` reproduces ir_measures on tied runs).

Per-document grades on diversity qrels are the largest grade over the subtopics (ir_measures
takes the last qrels line of the document).
"""

from __future__ import annotations

import numpy as np

from divaeval.errors import UsageError
from divaeval.metrics.common import rank_sum, repeated_powers
from divaeval.metrics.registry import family_registrar
from divaeval.metrics.relevance import doc_grades, judged_mask
from divaeval.metrics.spec import Param, in_unit_interval, non_negative

FAMILY = "cwl"
CWL_SOURCE = "cwl_eval 1.0 via ir_measures 0.4 (Azzopardi, Thomas & Moffat SIGIR 2019)"
#: cwl_eval's max_n: the ranks every C/W/L measure is computed over
CWL_DEPTH = 1000


def cwl_gains(jr, params) -> np.ndarray:
    """[T, D] gains scaled into [0, 1] by min_rel/max_rel, over D = 1000 ranks."""
    low, high = float(params["min_rel"]), float(params["max_rel"])
    if high <= low:
        raise UsageError(f"max_rel={params['max_rel']} must be above min_rel={params['min_rel']}")
    grade = np.maximum(doc_grades(jr, CWL_DEPTH), 0).astype(np.float64)
    scaled = (np.clip(grade, low, high) - low) / (high - low)
    return np.where(judged_mask(jr, CWL_DEPTH), scaled, 0.0)


def expected_utility(continuation: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Σ_i W_i·g_i with W_i ∝ Π_{j<i} C_j (the C/W/L framework's expected utility per item)."""
    reach = np.concatenate(
        [np.ones((len(gains), 1)), np.cumprod(continuation[:, :-1], axis=1)], axis=1
    )
    first = 1.0 / reach.sum(axis=1, keepdims=True)
    return ((reach * first) * gains).sum(axis=1)


def _ranks() -> np.ndarray:
    return np.arange(1.0, CWL_DEPTH + 1.0)[None, :]


def _before_cutoff(k: int) -> np.ndarray:
    return np.arange(1, CWL_DEPTH + 1)[None, :] < k


def _cwl(make_continuation):
    """A compute function from ``make_continuation(gains, params, k)`` → C [T, D]."""

    def compute(jr, params, cutoffs):
        gains = cwl_gains(jr, params)
        columns = [expected_utility(make_continuation(gains, params, k), gains) for k in cutoffs]
        return np.stack(columns, axis=1)

    return compute


def _inst(gains, params, k):
    target = params["T"]
    remaining = target - np.cumsum(gains, axis=1)
    i = _ranks()
    return ((i + target + remaining - 1.0) / (i + target + remaining)) ** 2.0


def _insq_factor(target: float) -> np.ndarray:
    i = _ranks()
    return ((i + 2.0 * target - 1.0) / (i + 2.0 * target)) ** 2.0


def _insq(gains, params, k):
    return np.broadcast_to(_insq_factor(params["T"]), gains.shape)


def _nerr8(gains, params, k):
    return np.where(_before_cutoff(k), 1.0 - gains, 0.0)


def _nerr9(gains, params, k):
    i = _ranks()
    return np.where(_before_cutoff(k), (i / (i + 1.0)) * (1.0 - gains), 0.0)


def _nerr10(gains, params, k):
    return params["p"] * (1.0 - gains)


def _nerr11(gains, params, k):
    return _insq_factor(params["T"]) * (1.0 - gains)


def _sdcg(gains, params, k):
    i = np.arange(1, CWL_DEPTH + 1)
    ratio = np.array([np.log2(r + 1.0) / np.log2(r + 2.0) for r in i.tolist()])
    return np.broadcast_to(np.where(i < k, ratio, 0.0)[None, :], gains.shape)


# --------------------------------------------------------------------------------------------
# Compat


def _rbo_sums(overlap: np.ndarray, depth: np.ndarray, p: float) -> np.ndarray:
    """Σ_{d<D} p^d·overlap[d]/(d + 1) ÷ Σ_{d<D} p^d per topic (D = ``depth``)."""
    length = overlap.shape[1]
    weights = repeated_powers(p, length)[None, :]
    position = np.arange(length)[None, :]
    inside = position < depth[:, None]
    score = rank_sum(np.where(inside, weights * overlap / (position + 1.0), 0.0))
    norm = rank_sum(np.where(inside, weights, 0.0))
    return np.divide(score, norm, out=np.zeros_like(score), where=norm > 0)


def compat(jr, params, cutoffs):
    """Compat = RBO(ranking, ideal) [÷ RBO(ideal, ideal)] (see the module docstring)."""
    material = jr.material
    n_topics = jr.n_topics
    pool_grade = material.pool_grades.max(axis=2).astype(np.int64)
    pool_rows, pool_lines = material.pool_positions()
    in_pool = pool_rows >= 0
    ideal_size = in_pool.sum(axis=1)
    # the run rank and score of each pool document
    width = int(max(pool_rows.max(initial=-1), jr.doc_rows.max(initial=-1))) + 1
    rank_of_row = np.full(max(width, 1), -1, dtype=np.int64)
    ranked = jr.doc_rows >= 0
    rank_of_row[jr.doc_rows[ranked]] = np.nonzero(ranked)[1]
    pool_rank = np.where(in_pool, rank_of_row[np.maximum(pool_rows, 0)], -1)
    retrieved = pool_rank >= 0
    score = np.where(
        retrieved,
        np.take_along_axis(jr.scores, np.maximum(pool_rank, 0), axis=1) if jr.depth else 0.0,
        0.0,
    )
    topic = np.repeat(np.arange(n_topics), pool_rows.shape[1])
    order = (
        np.lexsort(
            (
                pool_lines.ravel(),
                -score.ravel(),
                -np.where(in_pool, pool_grade, np.iinfo(np.int64).min // 2).ravel(),
                topic,
            )
        ).reshape(pool_rows.shape)
        - (np.arange(n_topics) * pool_rows.shape[1])[:, None]
    )
    ideal_position = np.empty_like(order)
    np.put_along_axis(ideal_position, order, np.arange(pool_rows.shape[1])[None, :], axis=1)
    depth = np.maximum(jr.length, ideal_size)
    length = max(int(depth.max(initial=0)), 1)
    both = retrieved & in_pool
    meet = np.maximum(ideal_position, pool_rank)
    counts = np.zeros((n_topics, length + 1))
    rows, cols = np.nonzero(both)
    np.add.at(counts, (rows, np.minimum(meet[rows, cols], length)), 1.0)
    overlap = np.cumsum(counts[:, :length], axis=1)
    value = _rbo_sums(overlap, depth, params["p"])
    if params["normalize"]:
        best_overlap = np.minimum(np.arange(1, length + 1)[None, :], ideal_size[:, None])
        best = _rbo_sums(best_overlap.astype(np.float64), depth, params["p"])
        value = np.divide(value, best, out=value.copy(), where=best > 0)
    return np.repeat(value[:, None], len(cutoffs), axis=1)


# --------------------------------------------------------------------------------------------
# registration

_MAX_REL = Param(
    "max_rel",
    int,
    0,
    "grade scaled to gain 1 (required, as in ir_measures)",
    non_negative,
    required=True,
)
_MIN_REL = Param("min_rel", int, 0, "grade scaled to gain 0", non_negative)
_T = Param("T", float, 1.0, "total desired gain T", lambda t: None if t > 0 else "must be > 0")
_spec = family_registrar(FAMILY, reference=CWL_SOURCE, params=(_MAX_REL, _MIN_REL), cutoff="none")
_NOTE = "Ties: ir_measures orders by score with ties in file order (--order score-file)."

_spec(
    "INST",
    _cwl(_inst),
    "INST: C/W/L measure whose user stops once T units of gain are found",
    (_MAX_REL, _MIN_REL, _T),
    ir_measures="INST(max_rel=M), INST(T=3,max_rel=M)",
    notes=_NOTE,
)
_spec(
    "INSQ",
    _cwl(_insq),
    "INSQ: INST's gain-independent variant",
    (_MAX_REL, _MIN_REL, _T),
    ir_measures="INSQ(max_rel=M)",
    notes=_NOTE,
)
_spec(
    "NERR8",
    _cwl(_nerr8),
    "Not-ERR, Eq. 8 (Azzopardi et al. 2021): ERR-like C/W/L measure truncated at k",
    cutoff="required",
    defaults=(10,),
    ir_measures="NERR8(max_rel=M)@k",
    notes=_NOTE,
)
_spec(
    "NERR9",
    _cwl(_nerr9),
    "Not-ERR, Eq. 9: NERR8 with a rank discount i/(i + 1)",
    cutoff="required",
    defaults=(10,),
    ir_measures="NERR9(max_rel=M)@k",
    notes=_NOTE,
)
_spec(
    "NERR10",
    _cwl(_nerr10),
    "Not-ERR, Eq. 10: ERR-like continuation p·(1 − g) to full depth",
    (_MAX_REL, _MIN_REL, Param("p", float, 0.9, "persistence p", in_unit_interval)),
    ir_measures="NERR10(max_rel=M), NERR10(p=0.8,max_rel=M)",
    notes=_NOTE,
)
_spec(
    "NERR11",
    _cwl(_nerr11),
    "Not-ERR, Eq. 11: INSQ's continuation times (1 − g)",
    (_MAX_REL, _MIN_REL, _T),
    ir_measures="NERR11(max_rel=M)",
    notes=_NOTE,
)
_spec(
    "SDCG",
    _cwl(_sdcg),
    "scaled DCG@k: DCG with the weights 1/log2(i + 1) scaled to sum to 1 over the top k",
    cutoff="required",
    defaults=(10,),
    ir_measures="SDCG(max_rel=M)@k",
    notes=_NOTE,
)
_spec(
    "Compat",
    compat,
    "compatibility: rank-biased overlap with the ideal ranking (normalised)",
    (
        Param("p", float, 0.95, "RBO persistence p", in_unit_interval),
        Param("normalize", bool, True, "divide by the ideal ranking's own RBO"),
    ),
    aliases=("compatibility",),
    reference="Clarke, Vtyurina & Smucker TOIS 2021; ir_measures 0.4 (compat provider)",
    ir_measures="Compat, Compat(p=0.8), Compat(normalize=False)",
    notes="Ties: ir_measures breaks them by docno ascending (--order score-docno-asc).",
)
