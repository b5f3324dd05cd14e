"""Cascade and utility metrics of the RBU paper's analysis (Amigó et al. SIGIR 2018, §4.3):
EU, Cube Test (CT, ACT, CT-RBU), NRBP-RBU and S-RR.

All share the cascade gain of one ranked document,

  g_i = Σ_t w(t)·r(d_i, t)·(1 − α)^{c(i,t)}·[saturation]

with r from :mod:`divaeval.metrics.gains` (default: the RBU reference's per-aspect probability
(2^g − 1)/2^{g_max(t)}, so that EU, CT-RBU and RBU are computed on the same probabilities),
c(i, t) = the number of earlier documents with r > 0 for t, and w(t) the ``--intents``
probabilities (default 1/S over the subtopics with a relevant document). A cutoff ``@k``
evaluates the ranking cut at k.
"""

from __future__ import annotations

import math

import numpy as np

from divaeval.metrics.common import (
    at_cutoffs,
    depth_for,
    first_rank,
    repeated_powers,
    safe_divide,
)
from divaeval.metrics.gains import SCALE_MAX, mapping_param, relevance_probabilities
from divaeval.metrics.registry import family_registrar
from divaeval.metrics.spec import (
    Param,
    in_open_unit_interval,
    in_unit_interval,
    non_negative,
    positive,
)

FAMILY = "cascade"
RBU_PAPER = "Amigó et al. SIGIR 2018, §4.3"
#: raw relevance sums are compared with H with this tolerance (sums of r can differ from H in
#: their last bits)
SATURATION_TOLERANCE = 1e-12

ALPHA = Param(
    "alpha", float, 0.5, "redundancy α: weight (1−α)^c of the c-th repeat", in_unit_interval
)
HEIGHT = Param(
    "H",
    float,
    1.0,
    "saturation level: an aspect whose earlier raw relevance sum is >= H gains nothing",
    positive,
)


def cascade_gains(
    jr,
    params: dict,
    length: int,
    *,
    decay: float,
    saturation: float | None = None,
    weighted: bool = True,
) -> np.ndarray:
    """[T, K] g_i = Σ_t w(t)·r(d_i,t)·decay^{c(i,t)}·f_Sat(i,t) (module docstring).

    ``saturation`` H: f_Sat(i, t) = [Σ_{j<i} r(d_j, t) < H] (Luo et al. 2013, Eq. 8, raw
    relevance), None = no saturation. ``weighted=False``: w(t) = 1 (NRBP-RBU)."""
    prob = relevance_probabilities(jr, params, length)
    positive_prob = prob > 0
    earlier = np.cumsum(positive_prob, axis=1, dtype=np.int32) - positive_prob
    term = prob * repeated_powers(decay, length + 1)[earlier]
    if saturation is not None:
        prior = np.zeros_like(prob)
        prior[:, 1:] = np.cumsum(prob, axis=1)[:, :-1]
        term = np.where(prior < saturation - SATURATION_TOLERANCE, term, 0.0)
    if weighted:
        term = term * jr.material.intent_weight[:, None, :]
    return term.sum(axis=2)


def _ranked(jr, length: int) -> np.ndarray:
    return np.arange(length)[None, :] < jr.length[:, None]


# --- EU -------------------------------------------------------------------------------------

LOG_BASES = {"2": 2.0, "e": math.e, "10": 10.0}


def expected_utility(jr, params, cutoffs):
    """EU = Σ_i [1/(1 + log_b i)]·(g_i − e) (RBU paper §4.3, after Yang & Lad 2009)."""
    length = depth_for(cutoffs, jr)
    gains = cascade_gains(jr, params, length, decay=1.0 - params["alpha"])
    ranks = np.arange(1.0, length + 1.0)
    discount = 1.0 / (1.0 + np.log(ranks) / math.log(LOG_BASES[params["log"]]))
    per_rank = discount[None, :] * (gains - params["e"] * _ranked(jr, length))
    return at_cutoffs(np.cumsum(per_rank, axis=1), cutoffs)


# --- Cube Test ----------------------------------------------------------------------------


def ct_rbu(jr, params, cutoffs):
    """CT_RBU = Σ_i (1/i)·Σ_t w(t)·r(d_i,t)·(1−α)^{c(i,t)}·f_Sat(i,t) (RBU paper §4.3)."""
    length = depth_for(cutoffs, jr)
    gains = cascade_gains(jr, params, length, decay=1.0 - params["alpha"], saturation=params["H"])
    ranks = np.arange(1.0, length + 1.0)[None, :]
    return at_cutoffs(np.cumsum(gains / ranks, axis=1), cutoffs)


def _cube(jr, params, cutoffs, average: bool) -> np.ndarray:
    """CT@k = Gain(D_K)/Time(D_K) and ACT@k = (1/K)·Σ_{t≤K} Gain(D_t)/t (Luo et al. 2013,
    Eq. 11 and 13, linear time), K = min(k, n); ``time=fixed`` uses K = k."""
    length = depth_for(cutoffs, jr)
    gains = cascade_gains(jr, params, length, decay=params["gamma"], saturation=params["H"])
    out = np.zeros((jr.n_topics, len(cutoffs)))
    if length == 0:
        return out
    total = np.cumsum(gains, axis=1)
    speed = total / np.arange(1.0, length + 1.0)[None, :]
    running = np.cumsum(speed, axis=1) if average else total
    rows = np.arange(jr.n_topics)
    for column, k in enumerate(cutoffs):
        if k is None:
            depth = jr.length
        elif params["time"] == "fixed":
            depth = np.full(jr.n_topics, min(k, length))
        else:
            depth = np.minimum(jr.length, k)
        value = running[rows, np.maximum(depth - 1, 0)]
        out[:, column] = np.where(depth > 0, safe_divide(value, depth.astype(np.float64)), 0.0)
    return out


def cube_test(jr, params, cutoffs):
    """CT@k (Luo et al. 2013, Eq. 11, linear time)."""
    return _cube(jr, params, cutoffs, average=False)


def average_cube_test(jr, params, cutoffs):
    """ACT@k (Luo et al. 2013, Eq. 13, linear time)."""
    return _cube(jr, params, cutoffs, average=True)


# --- NRBP (RBU paper form) and S-RR ---------------------------------------------------------


def nrbp_rbu(jr, params, cutoffs):
    """NRBP_RBU = Σ_i p^{i−1}·Σ_t r(d_i,t)·(1−α)^{c(i,t)} (RBU paper §4.3: no normalising
    factor, no aspect weights, graded r)."""
    length = depth_for(cutoffs, jr)
    gains = cascade_gains(jr, params, length, decay=1.0 - params["alpha"], weighted=False)
    weights = repeated_powers(params["p"], length)
    return at_cutoffs(np.cumsum(gains * weights[None, :], axis=1), cutoffs)


def subtopic_rr(jr, params, cutoffs):
    """S-RR@r = 1/minRank(d, r): the inverse of the first rank at which ⌈r·M⌉ of the M
    subtopics with a relevant document are covered (Zhai et al. 2003); 0 if never."""
    length = depth_for(cutoffs, jr)
    relevant = jr.padded_to(length) >= jr.material.rel_level
    covered = np.maximum.accumulate(relevant, axis=1).sum(axis=2)
    n_aspects = jr.material.n_relevant_subtopics
    need = np.ceil(params["coverage"] * n_aspects - 1e-9).astype(np.int64)
    reached = (covered >= need[:, None]) & (n_aspects[:, None] > 0)
    first = first_rank(reached)
    found = first > 0
    out = np.zeros((jr.n_topics, len(cutoffs)))
    for column, k in enumerate(cutoffs):
        inside = found if k is None else found & (first <= k)
        out[:, column] = np.where(inside, 1.0 / np.maximum(first, 1), 0.0)
    return out


# --- registration -----------------------------------------------------------------------------


_spec = family_registrar(FAMILY, reference=RBU_PAPER)


_UTILITY_REL = mapping_param("aspect")
_spec(
    "EU",
    expected_utility,
    "expected utility (RBU-paper form): Σ_i (g_i − e)/(1 + log_b i), cascade gain g_i",
    (
        ALPHA,
        Param("e", float, 0.05, "effort charged for every ranked document", non_negative),
        Param(
            "log",
            str,
            "2",
            "base b of the logarithm in 1/(1 + log_b i)",
            choices=tuple(LOG_BASES),
        ),
        _UTILITY_REL,
        SCALE_MAX,
    ),
    reference=RBU_PAPER + " (EU of Yang & Lad 2009 as rewritten there)",
    aliases=("expected-utility",),
    notes="Not Yang & Lad's multi-session, nugget-based EU (TREC DD), which needs passage "
    "judgments. The paper states no log base: default 2 (log=e gives another ranking of "
    "runs, not a rescaling). Defaults α=0.5, e=0.05 are divaeval's (the paper used α ∈ "
    "{0.1,…,0.75}, e ∈ {0,…,0.5}). Unnormalised, can be negative; whole ranking unless @k.",
)
_spec(
    "CT-RBU",
    ct_rbu,
    "Cube Test as written in the RBU paper: Σ_i (1/i)·g_i with saturation f_Sat",
    (ALPHA, HEIGHT, _UTILITY_REL, SCALE_MAX),
    reference=RBU_PAPER,
    aliases=("ct-amigo", "cube-test-rbu"),
    notes="f_Sat(i,t) = [Σ_{j<i} r(d_j,t) < H] (raw relevance of earlier documents, Luo et al. "
    "Eq. 8), compared with tolerance 1e-12; c(i,t) counts every earlier document with r > 0, "
    "saturated or not. The 1/i weighting never divides by the length, so this is not Luo's "
    "CT (see CT, ACT); it equals CT@1 only. No normalisation.",
)
_CUBE = (
    Param("gamma", float, 0.5, "novelty discount γ^(earlier relevant documents)", in_unit_interval),
    HEIGHT,
    mapping_param("linear"),
    SCALE_MAX,
    Param(
        "time",
        str,
        "linear",
        "linear: Time = documents returned (min(k, n)); fixed: Time = k",
        choices=("linear", "fixed"),
    ),
)
_CUBE_NOTE = (
    "Luo et al.'s water-filling gain on TREC qrels: θ_i = intent weights, rel = g/G (G = the "
    "largest grade in the qrels file), novelty γ^{#earlier relevant}, a column stops filling "
    "once its earlier raw relevance sum reaches H (no partial filling, tolerance 1e-12), linear "
    "time. None of the TREC DD scorers (which need passages, iterations or document lengths) "
    "is reproduced. An empty ranking scores 0; without @k the whole ranking is used."
)
_spec(
    "CT",
    cube_test,
    "Cube Test (Luo et al. 2013, Eq. 11): gain of the top K documents / K, K = min(k, n)",
    _CUBE,
    reference="Luo, Wing, Yang, Hearst CIKM 2013, Eq. 7–11",
    aliases=("cube-test",),
    notes=_CUBE_NOTE,
)
_spec(
    "ACT",
    average_cube_test,
    "Average Cube Test (Luo et al. 2013, Eq. 13): mean of CT@t over t = 1..K",
    _CUBE,
    reference="Luo, Wing, Yang, Hearst CIKM 2013, Eq. 13",
    aliases=("average-cube-test",),
    notes=_CUBE_NOTE,
)
_spec(
    "NRBP-RBU",
    nrbp_rbu,
    "NRBP as written in the RBU paper: Σ_i p^{i−1}·Σ_t r(d_i,t)·(1−α)^{c(i,t)}",
    (
        ALPHA,
        Param("p", float, 0.8, "patience p", in_open_unit_interval),
        _UTILITY_REL,
        SCALE_MAX,
    ),
    reference=RBU_PAPER,
    aliases=("nrbp-amigo",),
    notes="No normalising factor and no aspect weights, graded r; with rel=binary and p = β it "
    "is ndeval's NRBP × S/(1 − (1−α)β). ndeval's NRBP (Clarke et al. 2009) is NRBP.",
)
_spec(
    "S-RR",
    subtopic_rr,
    "S-RR@100%: 1/(first rank at which every subtopic has a relevant document), 0 if never",
    (
        Param(
            "coverage",
            float,
            1.0,
            "share r of subtopics to cover (S-RR@r); 1 = the paper's S-RR@100%",
            lambda v: None if 0.0 < v <= 1.0 else "must be in (0, 1]",
        ),
    ),
    reference="Zhai, Cohen, Lafferty SIGIR 2003; " + RBU_PAPER,
    aliases=("S-RR100", "srr", "subtopic-rr"),
    notes="The paper's S-RR@100% is S-RR (the default coverage=1); @k only looks at the top k. "
    "Subtopics = those with a document of grade >= -l (ndeval's S); coverage r needs ⌈r·S⌉ of "
    "them. Binary and unweighted. Topics with S = 0 score 0.",
)
