"""Rank-Biased Utility (Amigó, Spina, Carrillo-de-Albornoz, SIGIR 2018, Eq. 11).

By default ``RBU`` reproduces the authors' reference implementation (jCarrilloDeAlbornoz/RBU
v0.1), which computes

  RBU = Σ_{i=1..n} (1 − p)·p^{i−1} · ( Σ_t w(t)·r(d_i, t)·Π_{j<i}(1 − r(d_j, t)) − e )

over every ranked document (unjudged ones included: each pays the effort e), with
r(d, t) = (2^g − 1)/2^{g_max(t)} (g_max(t) = the largest grade of aspect t in the topic) and the
aspect weights w(t) of ``--intents`` (default 1/S over the subtopics with a relevant document,
which is the weight of the authors' TREC → RBU conversion). ``RBU@k`` evaluates the
ranking cut at k (the effort then covers min(k, n) documents). No ideal normalisation: values can
be negative.

``form=paper`` is Eq. 11 itself, Σ_{i≤k} p^i·(…): RBU_paper = RBU_code · p/(1 − p) (×4 at
p = 0.8). ``rel`` selects another grade mapping (:mod:`divaeval.metrics.gains`).
"""

from __future__ import annotations

import numpy as np

from divaeval.metrics.common import at_cutoffs, depth_for, repeated_powers
from divaeval.metrics.gains import SCALE_MAX, mapping_param, relevance_probabilities
from divaeval.metrics.registry import register
from divaeval.metrics.spec import MetricSpec, Param, non_negative

FAMILY = "rbu"
REFERENCE = "Amigó, Spina & Carrillo-de-Albornoz SIGIR 2018, Eq. 11; the authors' RBU code v0.1"


def _p_range(value: float) -> str | None:
    return None if 0.0 < value <= 1.0 else "must be in (0, 1]"


P = Param("p", float, 0.8, "patience: probability of inspecting the next document", _p_range)
E = Param("e", float, 0.03, "effort charged for every ranked document", non_negative)
FORM = Param(
    "form",
    str,
    "code",
    "code = the reference implementation's (1−p)·p^(i−1) weights; paper = Eq. 11's p^i "
    "(paper = code · p/(1−p))",
    choices=("code", "paper"),
)


def rbu(jr, params, cutoffs):
    """RBU@k (module docstring): rank weights times (aspect-weighted ERR-style gain − e)."""
    p, e = params["p"], params["e"]
    length = depth_for(cutoffs, jr)
    prob = relevance_probabilities(jr, params, length)
    # term = w(t)·r(d_i,t)·Π_{j<i}(1 − r(d_j,t)), built in one buffer (allocation dominates)
    term = np.empty_like(prob)
    term[:, :1] = 1.0
    np.subtract(1.0, prob[:, :-1], out=term[:, 1:])
    np.multiply.accumulate(term, axis=1, out=term)
    term *= prob
    term *= jr.material.intent_weight[:, None, :]
    gain = term.sum(axis=2)  # [T, K]
    ranked = np.arange(length)[None, :] < jr.length[:, None]
    powers = repeated_powers(p, length + 1)
    discount = (1.0 - p) * powers[:-1] if params["form"] == "code" else powers[1:]
    per_rank = discount[None, :] * (gain - e * ranked)
    return at_cutoffs(np.cumsum(per_rank, axis=1), cutoffs)


register(
    MetricSpec(
        name="RBU",
        family=FAMILY,
        summary="rank-biased utility: RBP weights × (ERR-IA-style novelty gain − effort e)",
        reference=REFERENCE,
        compute=rbu,
        params=(P, E, FORM, mapping_param("aspect"), SCALE_MAX),
        aliases=("rank-biased-utility",),
        cutoff="optional",
        default_cutoffs=(None,),
        notes=(
            "Defaults p=0.8, e=0.03 are the reference class's defaults. form=code (default) is "
            "the reference implementation; form=paper is Eq. 11 (p^i), = code·p/(1−p). The whole "
            "ranking is used unless @k cuts it; gold topics missing from the run score 0 (with "
            "-c). Duplicate docnos: the reference keeps the first copy (use --dedupe first). "
            "Differences from the reference: an aspect whose documents are all graded 0 makes "
            "the reference print NaN (0/0 in r = (2^g−1)/2^gmax) when one of them is retrieved; "
            "divaeval gives such an aspect r = 0 (it contributes nothing), and by default such "
            "an aspect has weight 0 anyway. Aspect weights are the --intents probabilities "
            "used as given (not renormalised), default 1/S over subtopics with a document of "
            "grade >= -l; conflicting or duplicate gold lines, silently resolved by the "
            "reference, are errors when reading qrels."
        ),
    )
)
