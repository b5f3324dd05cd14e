"""The intent-aware family M-IA = Σ_t w(t)·M_t (Agrawal, Gollapudi, Halverson, Ieong, WSDM 2009;
Sakai; Golbus et al. 2013).

One wrapper (:func:`divaeval.metrics.per_aspect.intent_aware`) applied to per-aspect base
metrics; the relevance mapping of each base is documented in :mod:`divaeval.metrics.per_aspect`.
ndeval's ``P-IA`` and ``MAP-IA`` (alias ``AP-IA``) are the same wrapper's P and AP with uniform
weights; they live in the ndeval family and take ``weights=intents`` too. ndeval's ``ERR-IA``
(binary, novelty-biased, divided by an ideal-ideal value) keeps its name; the textbook
intent-aware ERR is ``ERR-IA-textbook`` here.
"""

from __future__ import annotations

from divaeval.metrics.gains import SCALE_MAX, mapping_param
from divaeval.metrics.per_aspect import (
    expected_reciprocal_rank,
    intent_aware,
    ndcg,
    q_measure,
    rank_biased_precision,
    reciprocal_rank,
    weights_param,
)
from divaeval.metrics.registry import family_registrar
from divaeval.metrics.spec import Param, in_open_unit_interval, non_negative

FAMILY = "intent-aware"
AGRAWAL = "Agrawal et al. WSDM 2009 (M-IA)"
WEIGHTS = weights_param("intents")
_WEIGHT_NOTE = (
    " Sum over the subtopics with a document of grade >= -l; weights=intents (default) uses "
    "the --intents probabilities as given, not renormalised (uniform 1/S without an intent "
    "file); with one subtopic of weight 1 the value is the base metric's."
)


def _wrap(base):
    def compute(jr, params, cutoffs):
        return intent_aware(jr, base, params, cutoffs)

    compute.__doc__ = f"Σ_t w(t)·M_t with M = {base.__name__} per aspect."
    return compute


_add = family_registrar(FAMILY, reference=AGRAWAL)


def _spec(name, base, summary, *, params=(), notes="", **fields):
    """An -IA metric: the base metric per intent, weighted (one wrapper for every base)."""
    return _add(
        name, _wrap(base), summary, (*params, WEIGHTS), notes=notes + _WEIGHT_NOTE, **fields
    )


_spec(
    "RR-IA",
    reciprocal_rank,
    "intent-aware reciprocal rank: Σ_t w(t)/(rank of the first document relevant to t)",
    aliases=("rr-ia", "mrr-ia"),
    notes="Binary: grade >= -l. @k ignores documents below k.",
)
_spec(
    "nDCG-IA",
    ndcg,
    "intent-aware nDCG: Σ_t w(t)·nDCG_t@k, linear gain, 1/log2(r+1), ideal per subtopic",
    params=(
        Param(
            "gain",
            str,
            "linear",
            "linear = the grade (trec_eval ndcg_cut, NTCIREVAL MSnDCG); exp = 2^g − 1 (gdeval)",
            choices=("linear", "exp"),
        ),
    ),
    aliases=("ndcg-ia",),
    cutoff="required",
    defaults=(5, 10, 20),
    notes="Per subtopic: trec_eval's ndcg_cut on the subtopic's grades (-l ignored, gain = "
    "grade if > 0; ideal = the subtopic's positive grades, descending). = NTCIREVAL's "
    "IA-MSnDCG@l at full precision (NTCIREVAL sums 4-decimal per-intent values).",
)
_spec(
    "ERR-IA-textbook",
    expected_reciprocal_rank,
    "intent-aware textbook ERR: Σ_t w(t)·ERR_t@k, stop probability (2^g−1)/2^G, unnormalised",
    params=(mapping_param("scale"), SCALE_MAX),
    aliases=("terr-ia", "err-ia-chapelle", "chapelle-err-ia"),
    cutoff="required",
    defaults=(20,),
    reference="Chapelle et al. CIKM 2009 (ERR), Agrawal et al. WSDM 2009 weighting",
    notes="Not ndeval's ERR-IA (binary, novelty α, divided by an ideal-ideal value), which keeps "
    "that name. ERR_t = Σ_{r≤k} (1/r)·R_r·Π_{s<r}(1 − R_s) on the subtopic's grades; G defaults "
    "to the largest grade in the qrels file; rel=aspect uses the RBU reference's per-subtopic "
    "(2^g−1)/2^gmax(t) instead. The RBU paper's claim RBU(p=1, e=0) = ERR-IA does not hold "
    "(p = 1 removes the 1/r discount).",
)
_spec(
    "RBP-IA",
    rank_biased_precision,
    "intent-aware rank-biased precision: Σ_t w(t)·(1 − p)·Σ_r p^{r−1}·v_t(d_r)",
    params=(
        Param("p", float, 0.8, "persistence p", in_open_unit_interval),
        Param(
            "gain",
            str,
            "binary",
            "binary (grade >= -l) or graded (grade / the subtopic's largest grade)",
            choices=("binary", "graded"),
        ),
    ),
    aliases=("rbp-ia",),
    reference="Moffat & Zobel TOIS 2008 (RBP); Agrawal et al. WSDM 2009 weighting",
    notes="Whole ranking unless @k. Default p = 0.8 (RBU paper, Golbus et al.).",
)
_spec(
    "Q-IA",
    q_measure,
    "intent-aware Q-measure: Σ_t w(t)·Q_t, blended ratio with the subtopic's ideal list",
    params=(Param("beta", float, 1.0, "blended-ratio β", non_negative),),
    aliases=("q-measure-ia",),
    reference="Sakai (Q-measure; NTCIREVAL Q@l) with M-IA weighting",
    notes="Per subtopic: gain = grade, relevant iff grade > 0 (-l ignored, as NTCIREVAL); "
    "Q@l divides by min(l, R_t), the whole-ranking Q by R_t. With only informational intents "
    "it equals NTCIREVAL's P+Q@l at full precision.",
)
