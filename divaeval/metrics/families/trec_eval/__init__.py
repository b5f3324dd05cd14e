"""The trec_eval family: trec_eval's other measures (counts, bpref, infAP, interpolated
precision, the set measures, success, R-multiples, utility, the experimental gain measures
ndcg_rel, Rndcg, G and binG, and the fraction of unjudged documents; plus ir_measures' Judged@k
and NumQ), registered here; what each computes is :mod:`.measures`.

They follow trec_eval 10.0 (``trec_eval -h -m MEASURE`` describes each; the values are checked
against pytrec-eval-terrier and against the trec_eval repository's own test outputs in
``tests/test_trec_eval_outputs.py``). Relevance is trec_eval's (see
:mod:`divaeval.metrics.families.adhoc`): relevant = judged with grade >= ``rel`` (default
``-l``); judged non-relevant = judged with 0 <= grade < ``rel``; a negative grade is trec_eval's
"in the pool but unjudged". Per-document grades on diversity qrels are the largest grade over
the subtopics.

Notation per topic: n = documents retrieved, R = num_rel, N = judged non-relevant documents,
hits@i = relevant documents at ranks <= i.
"""

from __future__ import annotations

from divaeval.metrics.dialects import TREC_ORDER
from divaeval.metrics.families.adhoc import (
    JUDGED_ONLY,
    REL,
    TREC_PARAMS,
    TREC_SOURCE,
    average_precision,
)
from divaeval.metrics.families.trec_eval.measures import (
    R_MULTIPLES,
    RECALL_LEVELS,
    SUCCESS_CUTOFFS,
    UNJ_CUTOFFS,
    bpref,
    check_levels,
    check_weights,
    gain_g,
    inf_ap,
    iprec,
    judged_at,
    ndcg_rel,
    num_nonrel_judged_ret,
    num_q,
    num_rel_measure,
    num_rel_ret,
    num_ret,
    point_average,
    rndcg,
    rprec_mult,
    set_f,
    set_map,
    success,
    unjudged,
    utility,
)
from divaeval.metrics.registry import family_registrar, register_form, register_preset
from divaeval.metrics.spec import Param, in_unit_interval, non_negative

FAMILY = "trec_eval"


# --------------------------------------------------------------------------------------------
# registration

_spec = family_registrar(FAMILY, reference=TREC_SOURCE, params=TREC_PARAMS, cutoff="none")
_COUNT = "Summary: the sum over topics (trec_eval, ir_measures), never a mean."
_GAINS = Param(
    "gains",
    str,
    "",
    "grade-to-gain map (1=3,2=9 or {1:3,2:9}); unnamed grades keep their value",
)
ROUNDING = Param(
    "rounding",
    str,
    "v9",
    "recall level → relevant documents: v10 = round(p·R) (trec_eval 10), v9 = ⌊p·R + 0.9⌋ "
    "(trec_eval 9, pytrec_eval)",
    choices=("v10", "v9"),
)

_spec(
    "NumRet",
    num_ret,
    "number of documents retrieved (with rel=k: relevant ones retrieved)",
    (REL, JUDGED_ONLY),
    aliases=("num_ret",),
    aggregate="sum",
    integer=True,
    trec_eval="num_ret",
    ir_measures="NumRet; NumRet(rel=k) = NumRelRet",
    notes="rel=k counts the retrieved documents with grade >= k (ir_measures NumRet(rel=k), "
    "trec_eval num_rel_ret at -l k). " + _COUNT,
)
_spec(
    "NumRel",
    num_rel_measure,
    "number of relevant documents of the topic (retrieved or not)",
    (REL,),
    aliases=("num_rel",),
    aggregate="sum",
    integer=True,
    trec_eval="num_rel",
    ir_measures="NumRel",
    notes=_COUNT,
)
_spec(
    "NumRelRet",
    num_rel_ret,
    "number of relevant documents retrieved",
    aliases=("num_rel_ret",),
    aggregate="sum",
    integer=True,
    trec_eval="num_rel_ret",
    ir_measures="NumRelRet, NumRet(rel=1)",
    notes=_COUNT,
)
_spec(
    "num_nonrel_judged_ret",
    num_nonrel_judged_ret,
    "number of retrieved documents judged non-relevant (0 <= grade < rel)",
    aggregate="sum",
    integer=True,
    trec_eval="num_nonrel_judged_ret",
    notes="Negative grades (trec_eval's pooled but unjudged) are not counted. " + _COUNT,
)
_spec(
    "NumQ",
    num_q,
    "number of topics evaluated (1 per topic)",
    (),
    aliases=("num_q",),
    aggregate="sum",
    integer=True,
    trec_eval="num_q",
    ir_measures="NumQ",
    notes=_COUNT,
)
_spec(
    "Bpref",
    bpref,
    "binary preference: share of relevant-over-judged-non-relevant preferences kept",
    (REL,),
    aliases=("bpref", "BPref"),
    trec_eval="bpref",
    ir_measures="Bpref, BPref",
    reference="Buckley & Voorhees SIGIR 2004; " + TREC_SOURCE,
    notes="Only judged documents count: unjudged ones and negative grades are ignored.",
)
_spec(
    "gm_bpref",
    bpref,
    "bpref per topic, summarised by the geometric mean (floor 1e-5)",
    (REL,),
    aggregate="geom",
    trec_eval="gm_bpref",
    notes="Per topic the value is bpref (trec_eval prints gm_bpref only in the summary).",
)
_spec(
    "infAP",
    inf_ap,
    "inferred AP: AP estimated from a sampled judgment pool",
    (REL,),
    aliases=("inf-ap", "infap"),
    trec_eval="infAP",
    ir_measures="infAP",
    reference="Yilmaz & Aslam CIKM 2006; " + TREC_SOURCE,
    notes="Documents with a negative grade are in the pool but unjudged (trec_eval's -1); "
    "documents without a qrels line are outside the pool. Equals AP when every retrieved "
    "document is judged.",
)
_spec(
    "gm_map",
    average_precision,
    "AP per topic, summarised by the geometric mean (floor 1e-5): trec_eval's gm_map",
    aggregate="geom",
    trec_eval="gm_map",
    notes="Per topic the value is AP (trec_eval prints gm_map only in the summary; pytrec_eval "
    "returns log(max(AP, 1e-5)) per topic). --mean geom applies the same mean to any measure.",
)
_spec(
    "IPrec",
    iprec,
    "interpolated precision at a recall level (the recall-precision graph)",
    (REL, JUDGED_ONLY, Param("recall", float, 0.0, "recall level", in_unit_interval), ROUNDING),
    level_param="recall",
    default_levels=RECALL_LEVELS,
    trec_eval="iprec_at_recall_p (-m iprec_at_recall.p = IPrec(rounding=v10)@p)",
    ir_measures="IPrec@p",
    notes="-m iprec_at_recall gives trec_eval's 11 levels 0.0 … 1.0. The number of relevant "
    "documents a level needs is ⌊p·R + 0.9⌋ in trec_eval 9 and pytrec_eval (rounding=v9, "
    "the default: ir_measures' IPrec) and round(p·R) in trec_eval 10 (rounding=v10, what "
    "the name iprec_at_recall gives).",
)
_spec(
    "11pt_avg",
    point_average,
    "interpolated precision averaged over recall levels (default the 11 points 0.0 … 1.0)",
    (
        REL,
        JUDGED_ONLY,
        Param("levels", str, ",".join(map(str, RECALL_LEVELS)), "recall levels", check_levels),
        Param("rounding", str, "v10", ROUNDING.help, choices=ROUNDING.choices),
    ),
    aliases=("11-pt-avg", "11pt-average"),
    trec_params="param:levels",
    trec_eval="11pt_avg (-m 11pt_avg.0.2,0.5,0.8: a 3-point average)",
    notes="Rounding as IPrec; the default is trec_eval 10's (rounding=v9: trec_eval 9, "
    "pytrec_eval).",
)
_spec(
    "SetAP",
    set_map,
    "set AP: num_rel_ret² / (num_ret·num_rel)",
    aliases=("set_map",),
    trec_eval="set_map",
    ir_measures="SetAP",
)
_spec(
    "SetF",
    set_f,
    "set F: (β + 1)·P·R / (R + β·P) on the retrieved set",
    (REL, JUDGED_ONLY, Param("beta", float, 1.0, "weight β of recall", non_negative)),
    aliases=("set_F",),
    trec_params="param:beta",
    trec_eval="set_F (-m set_F.β)",
    ir_measures="SetF, SetF(beta=β)",
    reference="van Rijsbergen 1979 (E measure); " + TREC_SOURCE,
)
_spec(
    "Success",
    success,
    "1 if a relevant document is in the top k, else 0",
    aliases=("success",),
    cutoff="optional",
    defaults=SUCCESS_CUTOFFS,
    trec_eval="success_k (-m success.k; default 1, 5, 10)",
    ir_measures="Success@k",
)
_spec(
    "Rprec_mult",
    rprec_mult,
    "precision at a multiple m of num_rel (rank ⌊m·R + 0.9⌋)",
    (REL, JUDGED_ONLY, Param("mult", float, 1.0, "multiple m of R", non_negative)),
    level_param="mult",
    default_levels=R_MULTIPLES,
    trec_eval="Rprec_mult_m (-m Rprec_mult.m; default 0.2, 0.4, …, 2.0)",
    notes="The rank is trec_eval's rounding of m·R (the same in trec_eval 9 and 10).",
)
_spec(
    "utility",
    utility,
    "set utility a·rel_ret + b·nonrel_ret + c·rel_nonret + d·nonrel_nonret",
    (
        REL,
        JUDGED_ONLY,
        Param("weights", str, "1,-1,0,0", "the coefficients a,b,c,d", check_weights),
        Param("N", int, 0, "collection size (trec_eval -N), for d", non_negative),
    ),
    trec_params="param:weights",
    trec_eval="utility (-m utility.a,b,c,d)",
    notes="nonrel_ret counts every retrieved non-relevant document, judged or not. Summary: the "
    "mean over topics (as trec_eval).",
)
_spec(
    "ndcg_rel",
    ndcg_rel,
    "nDCG averaged over the relevant documents (experimental, trec_eval)",
    (_GAINS, JUDGED_ONLY),
    trec_params="param:gains",
    trec_eval="ndcg_rel (-m ndcg_rel.1=3,2=9)",
)
_spec(
    "Rndcg",
    rndcg,
    "nDCG averaged at the R-level points (experimental, trec_eval)",
    (_GAINS, JUDGED_ONLY),
    trec_params="param:gains",
    trec_eval="Rndcg (-m Rndcg.1=3,2=9)",
)
_spec(
    "G",
    gain_g,
    "normalised gain: each gain discounted by the gain still missing above it",
    (_GAINS, JUDGED_ONLY),
    trec_params="param:gains",
    trec_eval="G (-m G.1=3,2=9)",
)
_spec(
    "binG",
    lambda jr, params, cutoffs: gain_g(jr, {**params, "binary": True}, cutoffs),
    "binary G: mean over the relevant documents of 1/log2(2 + non-relevant above)",
    (REL, JUDGED_ONLY),
    trec_eval="binG",
)
_spec(
    "unj",
    unjudged,
    "fraction of the top k that is unjudged (no qrels line, or a negative grade)",
    (JUDGED_ONLY,),
    aliases=("unjudged",),
    cutoff="optional",
    defaults=UNJ_CUTOFFS,
    trec_eval="unj_k (trec_eval 10; default 5, 10, 20)",
    notes="Divided by k even when fewer documents are retrieved; @all divides by n.",
)
_spec(
    "Judged",
    judged_at,
    "share of the top k with a qrels line (divided by min(k, n))",
    (),
    cutoff="optional",
    defaults=(None,),
    reference="ir_measures 0.4 (its judged provider)",
    ir_measures="Judged@k",
    notes="Any qrels line counts, negative grades included; divided by the number of "
    "documents in the top k (ir_measures). Contrast unj.",
)

register_form("iprec_at_recall", "IPrec", params={"rounding": "v10"}, trec="levels")

#: trec_eval's nicknames, its lists (measures.c) as they are: -m official (what it prints
#: without -m: the first twelve of its measures, in its order), all_trec (trec_eval 10) and
#: set; relstring (a string) is left out. runid is the trec_eval format's runid line (see
#: divaeval.metrics.dialects).
OFFICIAL = TREC_ORDER[: TREC_ORDER.index("P") + 1]
register_preset(
    "official",
    OFFICIAL,
    "trec_eval's default output (no -m): counts, map, gm_map, Rprec, bpref, recip_rank, "
    "iprec_at_recall, P",
)
register_preset(
    "all_trec",
    [
        *OFFICIAL,
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ],
    "trec_eval 10's all_trec (-m all_trec); relstring (a string) is left out",
)
register_preset(
    "set",
    [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ],
    "trec_eval's set measures",
)
