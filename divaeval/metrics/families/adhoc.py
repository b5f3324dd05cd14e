"""Ad hoc metrics: P, RR, AP, ndcg_cut, R, Rprec, ERR, RBP, RBP-resid and Sakai's Q (one
intent).

Per-document relevance on diversity qrels is the **largest grade over the topic's subtopics**
(the rule of the RBU paper's experiments and of pref_eval);
ad hoc qrels (``topic 0 docno grade``) arrive as one subtopic column, so the grade is the
qrels value itself.

trec_eval semantics (trec_eval 10.0), exact on
ad hoc qrels (cross-checked against pytrec-eval-terrier in ``tests/test_adhoc_trec_eval.py``):

- a document is *relevant* iff it is judged and its grade is >= ``-l`` (default 1) and >= 0:
  unjudged documents and negative grades (TREC's -2 spam label) are never relevant;
- num_rel = judged documents of the topic with such a grade, retrieved or not
  (:meth:`TopicMaterial.relevant_documents`);
- P@k = hits@k / k (always divided by k); RR = 1/first relevant rank; AP = (1/num_rel)·Σ over
  relevant ranks i of hits@i / i (``@k``: trec_eval's map_cut_k); every one is 0 when
  num_rel = 0; R@k = hits@k / num_rel (trec_eval recall_k); Rprec = hits@num_rel / num_rel;
- ndcg_cut@k = DCG@k/IDCG@k with gain = the grade if > 0 (``-l`` is ignored, as trec_eval
  does), discount 1/log2(i + 1), ideal = every positively judged document sorted by grade
  descending, truncated at k.

Deviation on diversity qrels with ``-l 0`` or below: the run side takes the maximum over the
topic's subtopic columns, where a missing (document, subtopic) line reads as grade 0, while
num_rel takes the maximum over the document's own lines; the two differ only for a document
whose every line is negative but which lacks a line for some subtopic.
"""

from __future__ import annotations

import numpy as np

from divaeval.errors import UsageError
from divaeval.metrics.common import (
    at_cutoffs,
    depth_for,
    log2_discount,
    repeated_powers,
    safe_divide,
)
from divaeval.metrics.gain_lists import q_measure as blended_q_measure
from divaeval.metrics.registry import family_registrar, register_form
from divaeval.metrics.relevance import (
    doc_grades,
    hits,
    ideal_grades,
    judged_mask,
    num_rel,
    positive_gains,
    ranking,
    relevance_level,
    trec_relevant,
)
from divaeval.metrics.spec import Param, in_open_unit_interval, non_negative

FAMILY = "adhoc"
TREC_SOURCE = "trec_eval 10.0 (usnistgov/trec_eval)"
#: trec_eval's default cutoffs for P, recall and ndcg_cut
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def _length(jr, cutoffs) -> int:
    return max(depth_for(cutoffs, jr), 1)


def _ranks(length: int) -> np.ndarray:
    return np.arange(1.0, length + 1.0)[None, :]


def _cutoff_array(jr, cutoffs) -> np.ndarray:
    """[T, C] float: the cutoff of each column, the ranking's length for ``None``."""
    out = np.empty((jr.n_topics, len(cutoffs)))
    for column, k in enumerate(cutoffs):
        out[:, column] = jr.length if k is None else k
    return out


# --------------------------------------------------------------------------------------------
# trec_eval measures (every one takes ``rel`` and ``judged_only`` as ir_measures passes them on
# to pytrec_eval: ``relevance_level`` and ``judged_docs_only_flag``)


def precision(jr, params, cutoffs):
    """P@k = hits@k / k (trec_eval P_k); whole ranking: hits / retrieved (trec_eval set_P);
    ``relative``: hits@k / min(k, num_rel) (trec_eval relative_P, set_relative_P)."""
    jr = ranking(jr, params)
    length = _length(jr, cutoffs)
    level = relevance_level(jr, params)
    found = at_cutoffs(hits(jr, length, level), cutoffs)
    size = _cutoff_array(jr, cutoffs)
    if params.get("relative"):  # trec_eval relative_P / set_relative_P
        size = np.minimum(size, num_rel(jr, level)[:, None])
    return safe_divide(found, size)


def reciprocal_rank(jr, params, cutoffs):
    """RR = 1 / rank of the first relevant document (trec_eval recip_rank); 0 if none."""
    jr = ranking(jr, params)
    length = _length(jr, cutoffs)
    level = relevance_level(jr, params)
    first = trec_relevant(jr, length, level) & (hits(jr, length, level) == 1)
    return at_cutoffs(np.cumsum(np.where(first, 1.0 / _ranks(length), 0.0), axis=1), cutoffs)


def average_precision(jr, params, cutoffs):
    """AP = (1/num_rel)·Σ_{relevant i} hits@i / i (trec_eval map; @k = map_cut_k)."""
    jr = ranking(jr, params)
    length = _length(jr, cutoffs)
    level = relevance_level(jr, params)
    terms = np.where(trec_relevant(jr, length, level), hits(jr, length, level) / _ranks(length), 0)
    return safe_divide(at_cutoffs(np.cumsum(terms, axis=1), cutoffs), num_rel(jr, level)[:, None])


def parse_gains(text: str) -> dict[int, float]:
    """A grade-to-gain map in any of the usual spellings: trec_eval's ``1=3,2=9,4=4.5``,
    ir_measures' ``{0:0,1:1,2:3}`` or NTCIREVAL's ``1:1,2:3`` → {grade: gain}."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    gains: dict[int, float] = {}
    for item in body.replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        grade_text, sep, gain_text = item.replace("=", ":").partition(":")
        if not sep:
            raise ValueError(f"{item!r} is not grade=gain")
        try:
            grade, gain = int(grade_text), float(gain_text)
        except ValueError:
            raise ValueError(f"{item!r} is not grade=gain (an integer and a number)") from None
        if not np.isfinite(gain):
            raise ValueError(f"gain {gain_text!r} is not finite")
        if grade in gains:
            raise ValueError(f"grade {grade} is mapped twice")
        gains[grade] = gain
    if not gains:
        raise ValueError("empty gain map")
    return gains


def _check_gains(text: str) -> str | None:
    if text == "":
        return None
    try:
        parse_gains(text)
    except ValueError as exc:
        return str(exc)
    return None


def gain_of_grades(grades: np.ndarray, params: dict) -> np.ndarray:
    """Gains of (per-document) grades under ``dcg``/``gains``: the grade if > 0 (trec_eval),
    2^g − 1 for ``dcg=exp-log2`` (gdeval), or the ``gains`` map (a grade it does not name
    keeps its own value, as in trec_eval); negative grades (judged non-relevant, TREC's −2)
    never gain."""
    grades = np.asarray(grades)
    if params.get("dcg") == "exp-log2":
        return np.where(grades > 0, np.exp2(np.maximum(grades, 0).astype(np.float64)) - 1.0, 0.0)
    if params.get("gains"):
        mapping = parse_gains(params["gains"])
        out = grades.astype(np.float64)
        for grade, gain in mapping.items():
            out = np.where(grades == grade, gain, out)
        return np.where(grades >= 0, out, 0.0)
    return np.maximum(grades, 0).astype(np.float64)


def ideal_gains(jr, length: int, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """([T, length] the ideal list's gains, descending, zero-padded; [T] its length): every
    judged document of the topic with a positive gain."""
    material = jr.material
    key = ("ideal-gains", params.get("dcg"), params.get("gains") or "")
    cached = material.cache.get(key)
    if cached is None:
        level_gain = gain_of_grades(material.grade_levels, params)
        order = np.argsort(-level_gain, kind="stable")
        order = order[level_gain[order] > 0]
        counts = material.level_counts[:, order]
        ends = np.cumsum(counts, axis=1)
        cached = (level_gain[order], ends)
        material.cache[key] = cached
    gains, ends = cached
    position = np.arange(length)[None, :]
    out = np.zeros((len(ends), length))
    start = np.zeros(len(ends), dtype=np.int64)
    for column, gain in enumerate(gains.tolist()):  # one pass per gain level
        end = ends[:, column]
        out[(position >= start[:, None]) & (position < end[:, None])] = gain
        start = end
    return out, (ends[:, -1] if ends.shape[1] else np.zeros(len(ends), dtype=np.int64))


def dcg_parts(jr, params, cutoffs) -> tuple[np.ndarray, np.ndarray]:
    """(DCG@k [T, C], ideal DCG@k [T, C]) with discount 1/log2(i + 1); the whole ranking
    (``None``) against the whole ideal list (trec_eval ndcg)."""
    custom = params.get("gains") or params.get("dcg") == "exp-log2"
    length = _length(jr, cutoffs)
    if any(k is None for k in cutoffs):
        if custom:
            size = int(ideal_gains(jr, 1, params)[1].max(initial=0))
        else:
            size = int(jr.material.pool_size.max(initial=0))
        length = max(length, size)
    discount = log2_discount(length)[None, :]
    if custom:
        gain = gain_of_grades(doc_grades(jr, length), params) * judged_mask(jr, length)
        ideal = ideal_gains(jr, length, params)[0]
    else:
        gain, ideal = positive_gains(jr, length), ideal_grades(jr, length)
    dcg = np.cumsum(gain * discount, axis=1)
    best = np.cumsum(ideal * discount, axis=1)
    ideal_cutoffs = tuple(length if k is None else k for k in cutoffs)
    return at_cutoffs(dcg, cutoffs), at_cutoffs(best, ideal_cutoffs)


def ndcg(jr, params, cutoffs):
    """nDCG@k = Σ_{i≤k} g_i/log2(i+1) ÷ the same over the ideal list (trec_eval ndcg_cut_k;
    whole ranking: trec_eval ndcg; ``dcg=exp-log2``: gdeval's 2^g − 1 gains)."""
    dcg, best = dcg_parts(ranking(jr, params), params, cutoffs)
    return safe_divide(dcg, best)


# --------------------------------------------------------------------------------------------
# ERR, RBP, Q


def _scale_maximum(jr, params) -> int:
    g = int(params["G"])
    return int(jr.material.qrels_max_grade) if g == 0 else g


def err(jr, params, cutoffs):
    """ERR@k = Σ_{r≤k} (1/r)·R_r·Π_{s<r}(1 − R_s), R = (2^g − 1)/2^G (Chapelle et al. 2009)."""
    length = _length(jr, cutoffs)
    scale = _scale_maximum(jr, params)
    if scale <= 0:
        return np.zeros((jr.n_topics, len(cutoffs)))
    grade = np.minimum(positive_gains(jr, length), scale)
    stop = (np.exp2(grade) - 1.0) / 2.0**scale
    survive = np.cumprod(1.0 - stop, axis=1)
    reach = np.concatenate([np.ones((jr.n_topics, 1)), survive[:, :-1]], axis=1)
    return at_cutoffs(np.cumsum(stop * reach / _ranks(length), axis=1), cutoffs)


def _rbp_gains(jr, params, length: int) -> np.ndarray:
    if params.get("rel") is not None:  # ir_measures' and cwl_eval's RBP(rel=k): binary at k
        if params["gain"] == "graded":
            raise UsageError(
                "RBP: rel= counts grade >= rel as relevant (binary gains); "
                "it does not go with gain=graded"
            )
        return trec_relevant(jr, length, relevance_level(jr, params)).astype(np.float64)
    if params["gain"] == "binary":
        return trec_relevant(jr, length).astype(np.float64)
    topic_max = jr.material.max_grade.max(axis=1, initial=0).astype(np.float64)
    return safe_divide(positive_gains(jr, length), topic_max[:, None])


def rbp(jr, params, cutoffs):
    """RBP = (1 − p)·Σ_i r_i·p^{i−1} (Moffat & Zobel 2008); binary r or grade / topic max."""
    length = _length(jr, cutoffs)
    p = params["p"]
    weights = (1.0 - p) * repeated_powers(p, length)[None, :]
    return at_cutoffs(np.cumsum(_rbp_gains(jr, params, length) * weights, axis=1), cutoffs)


def rbp_residual(jr, params, cutoffs):
    """res = (1 − p)·Σ_{i≤n, d_i unjudged} p^{i−1} + p^n (Moffat & Zobel 2008 §5), n = ranked
    documents (within k); ``rule=trec_eval``: 0 when no ranked document is unjudged."""
    length = _length(jr, cutoffs)
    p = params["p"]
    powers = repeated_powers(p, length + 1)
    in_ranking = np.arange(length)[None, :] < jr.length[:, None]
    unjudged = in_ranking & (~judged_mask(jr, length) | (doc_grades(jr, length) < 0))
    running = np.cumsum(np.where(unjudged, (1.0 - p) * powers[None, :length], 0.0), axis=1)
    seen = at_cutoffs(np.cumsum(unjudged, axis=1).astype(np.float64), cutoffs)
    depth = np.minimum(_cutoff_array(jr, cutoffs), jr.length[:, None]).astype(np.int64)
    value = at_cutoffs(running, cutoffs) + powers[depth]
    trec_rule = params["rule"] == "trec_eval" or jr.settings.compat == "trec_eval"
    return np.where(trec_rule & (seen == 0), 0.0, value)


def q_measure(jr, params, cutoffs):
    """Q@k = Σ_{relevant r ≤ k} BR(r) / min(k, R), BR(r) = (β·CG(r) + count(r)) /
    (β·CG*(r) + r) (Sakai, WWW 2012, Eqs. 2-3; NTCIREVAL's Q@l); whole list: / R. The
    arithmetic is the NTCIR family's, on per-document grades."""
    length = _length(jr, cutoffs)
    n_rel = (jr.material.pool_grades_any_order.max(axis=2) > 0).sum(axis=1)
    return blended_q_measure(
        positive_gains(jr, length), ideal_grades(jr, length), n_rel, params["beta"], cutoffs
    )


def recall_at(jr, params, cutoffs):
    """R@k = relevant documents in the top k / num_rel (trec_eval recall_k; whole ranking:
    set_recall)."""
    jr = ranking(jr, params)
    length = _length(jr, cutoffs)
    level = relevance_level(jr, params)
    found = at_cutoffs(hits(jr, length, level), cutoffs)
    return safe_divide(found, num_rel(jr, level)[:, None])


def r_precision(jr, params, cutoffs):
    """Rprec = relevant documents in the top num_rel / num_rel (trec_eval Rprec)."""
    jr = ranking(jr, params)
    level = relevance_level(jr, params)
    m = num_rel(jr, level).astype(np.int64)
    length = max(_length(jr, (None,)), int(m.max(initial=0)), 1)
    found = np.take_along_axis(hits(jr, length, level), np.maximum(m - 1, 0)[:, None], axis=1)
    value = safe_divide(found[:, 0], m.astype(np.float64))
    return np.repeat(value[:, None], len(cutoffs), axis=1)


# --------------------------------------------------------------------------------------------
# registration


_spec = family_registrar(FAMILY, reference="")


_DOC = "Per-document grade = max over subtopics."
#: ir_measures' rel= (pytrec_eval's relevance_level) and judged_only= (trec_eval -J)
REL = Param(
    "rel",
    int,
    None,
    "minimum grade counted relevant (ir_measures rel=, pytrec_eval relevance_level); default: -l",
)
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "drop unjudged documents from the ranking first (trec_eval -J, ir_measures judged_only=)",
)
TREC_PARAMS = (REL, JUDGED_ONLY)
_WHOLE = "@all is the whole ranking."

_spec(
    "P",
    precision,
    "precision at k (relevant documents in the top k, divided by k)",
    (REL, JUDGED_ONLY, Param("relative", bool, False, "divide by min(k, num_rel)")),
    reference=TREC_SOURCE,
    aliases=("precision", "P-trec"),
    defaults=TREC_CUTOFFS,
    trec_eval="P_k (-m P.k); P@all = set_P; relative_P_k, set_relative_P (relative=True)",
    ir_measures="P@k, P(rel=2)@k; SetP = P@all; SetP(relative=True), SetRelP",
    notes="= trec_eval P_k (always divided by k). -m P gives trec_eval's cutoffs 5 … 1000; "
    "P@all divides by the number retrieved (set_P). relative=True divides by min(k, num_rel) "
    "(trec_eval relative_P; @all: set_relative_P). " + _DOC,
)
_spec(
    "RR",
    reciprocal_rank,
    "reciprocal rank of the first relevant document",
    TREC_PARAMS,
    reference=TREC_SOURCE,
    aliases=("recip_rank", "reciprocal-rank", "MRR"),
    trec_eval="recip_rank",
    ir_measures="RR, MRR; RR@k (its msmarco provider: use --order score-docno-asc)",
    notes="= trec_eval recip_rank; @k ignores relevant documents below k (ir_measures RR@k, "
    "MS MARCO's MRR@10). " + _DOC,
)
_spec(
    "AP",
    average_precision,
    "average precision, divided by the number of relevant documents of the topic",
    TREC_PARAMS,
    reference=TREC_SOURCE,
    aliases=("map", "average-precision"),
    trec_eval="map; map_cut_k (-m map_cut.k = AP@k)",
    ir_measures="AP, MAP, AP@k",
    notes="= trec_eval map per topic (AP@k = map_cut_k). num_rel counts every judged document "
    "with grade >= -l, retrieved or not. " + _DOC,
)
_spec(
    "nDCG",
    ndcg,
    "nDCG: linear gain (the grade), 1/log2(i+1) discount (trec_eval, ir_measures)",
    (
        Param(
            "gains",
            str,
            "",
            "grade-to-gain map: 1=3,2=9 (trec_eval), {0:0,1:1,2:3} (ir_measures) or 1:3,2:9; "
            "unnamed grades keep their value",
            _check_gains,
        ),
        Param(
            "dcg",
            str,
            "log2",
            "log2 = gain g (trec_eval); exp-log2 = gain 2^g − 1 (gdeval, ir_measures' gdeval)",
            choices=("log2", "exp-log2"),
        ),
        JUDGED_ONLY,
    ),
    reference=TREC_SOURCE,
    aliases=("trec-nDCG", "ndcg-trec"),
    trec_params="param:gains",
    trec_eval="ndcg (whole ranking; ndcg.1=3,2=9: gains); ndcg_cut_k (-m ndcg_cut.k = nDCG@k)",
    ir_measures="nDCG, nDCG@k, NDCG@k, nDCG(gains={...})@k, nDCG(dcg=exp-log2)@k (gdeval), "
    "nDCG(judged_only=True)@k",
    notes="= trec_eval ndcg_cut_k / ndcg and ir_measures nDCG@k (not NTCIREVAL's "
    "Järvelin–Kekäläinen nDCG: that is jk-nDCG). -m nDCG is the whole ranking; -m ndcg_cut "
    "gives the cutoffs 5 … 1000. -l and rel do not apply: gain = the grade if > 0, ideal = "
    "every positively judged document, as in trec_eval. A gains map changes both the run's "
    "and the ideal gains (a grade it does not name keeps its value; the ideal list holds the "
    "judged documents with a positive gain). dcg=exp-log2 is gdeval's nDCG@k (gain 2^g − 1). "
    + _DOC,
)
_spec(
    "R",
    recall_at,
    "recall at k: relevant documents in the top k / all relevant documents",
    TREC_PARAMS,
    aliases=("recall", "R-trec"),
    defaults=TREC_CUTOFFS,
    reference=TREC_SOURCE,
    trec_eval="recall_k (-m recall.k); R@all = set_recall",
    ir_measures="R@k, Recall@k; SetR = R@all",
    notes="= trec_eval recall_k (-m R: cutoffs 5 … 1000; R@all = set_recall). " + _DOC,
)
_spec(
    "Rprec",
    r_precision,
    "R-precision: precision at rank num_rel",
    TREC_PARAMS,
    aliases=("R-precision", "RP"),
    reference=TREC_SOURCE,
    cutoff="none",
    trec_eval="Rprec",
    ir_measures="Rprec, RPrec",
    notes="= trec_eval Rprec (relevant among the top min(num_rel, retrieved), / num_rel). " + _DOC,
)
for _form, _target, _extra in (
    ("ndcg_cut", "nDCG", {"cutoffs": TREC_CUTOFFS, "trec": "cutoffs"}),
    ("map_cut", "AP", {"cutoffs": TREC_CUTOFFS, "trec": "cutoffs"}),
    ("set_P", "P", {"cutoffs": (None,)}),
    ("SetP", "P", {"cutoffs": (None,)}),
    ("relative_P", "P", {"params": {"relative": True}, "trec": "cutoffs"}),
    ("set_relative_P", "P", {"params": {"relative": True}, "cutoffs": (None,)}),
    ("SetRelP", "P", {"params": {"relative": True}, "cutoffs": (None,)}),
    ("set_recall", "R", {"cutoffs": (None,)}),
    ("SetR", "R", {"cutoffs": (None,)}),
):
    register_form(_form, _target, **_extra)
_spec(
    "ERR",
    err,
    "expected reciprocal rank, stop probability (2^g − 1)/2^G (textbook, unnormalised)",
    reference="Chapelle et al. CIKM 2009; gdeval (TREC Web Track)",
    params=(
        Param(
            "G",
            int,
            4,
            "scale maximum grade G; 4 = gdeval (ir_measures ERR@k); 0 = the largest grade in "
            "the qrels file",
            non_negative,
        ),
    ),
    aliases=("ERR-Chapelle",),
    defaults=(20,),
    ir_measures="ERR@k (its gdeval provider)",
    notes="G defaults to 4, gdeval's (the TREC Web Track's ERR@20, and what ir_measures' ERR@k "
    "computes); G=0 takes the largest grade anywhere in the qrels file (collection-wide). "
    "Grades above G are capped at G. gdeval leaves out topics without a positive judgment; "
    "divaeval scores them 0. Not ndeval's ERR-IA nor NTCIREVAL's nERR. " + _DOC,
)
_P = Param("p", float, 0.8, "persistence p", in_open_unit_interval)
_spec(
    "RBP",
    rbp,
    "rank-biased precision (1 − p)·Σ r_i·p^{i−1}",
    reference="Moffat & Zobel TOIS 2008",
    params=(
        _P,
        Param(
            "gain",
            str,
            "binary",
            "binary (grade >= -l) or graded (grade / the topic's largest grade)",
            choices=("binary", "graded"),
        ),
        REL,
    ),
    ir_measures="RBP(p=0.8), RBP(rel=k) (binary at k; ir_measures' RBP without rel is graded: "
    "RBP(gain=graded))",
    notes="Default p = 0.8 (trec_eval: 0.9). rel=k: binary gains, grade >= k (as -l k). "
    "gain=graded is trec_eval rbp's intended rule "
    "(grade / the topic's largest grade); trec_eval's own rbp reads uninitialised "
    "variables and is not an oracle. " + _DOC,
)
_spec(
    "RBP-resid",
    rbp_residual,
    "RBP residual: the most RBP could still gain from unjudged and unranked documents",
    reference="Moffat & Zobel TOIS 2008",
    params=(
        _P,
        Param(
            "rule",
            str,
            "moffat",
            "moffat (always adds p^n) or trec_eval (0 when no ranked document is unjudged)",
            choices=("moffat", "trec_eval"),
        ),
    ),
    aliases=("RBP-residual",),
    notes="Unjudged = no qrels line, or a negative grade. --compat trec_eval forces "
    "rule=trec_eval (trec_eval 10 rbp_resid).",
)
_spec(
    "adhoc-Q",
    q_measure,
    "Sakai's Q-measure on per-document grades (blended ratio, linear gain)",
    reference="Sakai (Q-measure); NTCIREVAL Q@l",
    params=(Param("beta", float, 1.0, "blended-ratio β", non_negative),),
    aliases=("Q-adhoc",),
    defaults=(None,),
    notes="Q@k divides by min(k, R); without @k by R (NTCIREVAL's Q-measure line). Gain = "
    "the grade if > 0; relevant = gain > 0 (-l ignored, as NTCIREVAL). Named adhoc-Q so as "
    "not to clash with the NTCIR family's Q. " + _DOC,
)
