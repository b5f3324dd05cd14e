"""The NTCIR diversity family: I-rec, D-, D#-, DIN-, DIN#-nDCG and -Q, P+Q, P+Q#, EfP, and the
single-intent bases Q, P+, nERR and jk-nDCG (NTCIREVAL's nDCG@l), as NTCIREVAL 190111 computes
them.

Definitions follow Sakai, *Evaluation with Informational and Navigational Intents* (WWW 2012,
"the paper") and NTCIREVAL 190111 ("the tool"):

- **Gains**. The per-intent gain g_i(d) is the grade (NTCIREVAL's Lk = k) by default,
  ``gain=exp`` gives 2^g − 1 and ``gains=1:1,2:3,3:7`` an explicit map (the paper's §2.1
  values). Negative grades (the Web Track's −2) and 0 give 0. A document is relevant to intent
  i iff g_i(d) > 0 (NTCIREVAL's L1+).
- **Global gain** GG(d) = Σ_i P(i|q)·g_i(d) (paper Eq. 6) with the intent probabilities of the
  topic material (``--intents``, else uniform over the subtopics with a relevant document).
  The **ideal list** holds every document with GG > 0 sorted by GG descending; R is its length
  (the tool). Rank r of a system list is relevant iff its gain G(r) > 0.
- **Cut-off first**: every value at cutoff l uses only the top l. No cutoff means the
  whole ranking (then Q is NTCIREVAL's ``Q-measure``, divided by R).
- **D-nDCG@l** = Σ_{r≤l} GG(r)/log(r+1) ÷ Σ_{r≤l} GG*(r)/log(r+1) (NTCIREVAL's ``MSnDCG@l``
  line, paper Eq. 1 on global gains). **D-Q@l** = Σ_{relevant r≤l} BR(r) / min(l, R), with the
  blended ratio BR(r) = (β·CG(r) + count(r)) / (β·CG*(r) + r) (paper Eqs. 2–3, ``Q@l``).
- **I-rec@l** = intents covered by the top l / intents with at least one relevant document
  (the tool). Every subtopic with a relevant document counts, also one the intent file
  forgot (as NTCIREVAL does); I-rec equals ndeval's strec for the default gains and ``-l 1``.
- **D#-X@l** = γ·I-rec@l + (1 − γ)·D-X@l (paper Eq. 7, γ = 0.5).
- **DIN gains** (paper Eq. 8): a navigational intent credits only the first
  retrieved document relevant to it; DIN-nDCG and DIN-Q use the D ideal list (Eqs. 9–11), so
  their maximum can be below 1. DIN#-X = γ·I-rec + (1 − γ)·DIN-X.
- **P+Q@l** = Σ_i P(i|q)·v_i over the intents with a relevant document (paper Eq. 12): v_i = Q@l
  for an informational intent and P+ for a navigational one, both on the per-intent gains
  against the intent's own ideal list. **P+** (paper Eq. 4) = mean BR over the relevant ranks ≤
  rp, rp = the first rank holding the largest gain of the truncated list; gains are compared
  with a relative tolerance of 1e-9, so 0.3·3 equals 0.9. P+Q# = γ·I-rec + (1 − γ)·P+Q.
- **Single-intent bases** on the global gains and the D ideal (the ``.Dnev`` lines of
  ``gcompute``; with one intent of probability 1 they are the ad hoc metrics): ``Q``, ``P+``,
  ``nERR`` (ERR with stop probability G(r)/(gmax + 1), normalised by the ideal list's ERR) and
  ``jk-nDCG`` (NTCIREVAL's ``nDCG@l``), the Järvelin–Kekäläinen form (no discount for r ≤ b,
  else 1/log_b r; *not* D-nDCG, nor trec_eval's nDCG).
- **EfP@l** (paper §4.2): share of the top l that is effectively relevant to some
  intent (relevant to an informational intent, or the first relevant document of a
  navigational one); divided by l (by the list length without a cutoff). No reference tool
  computes it; the paper's Figure 1 example is 3/5 = 0.6 (its text says 0.8).

Deliberate differences from NTCIREVAL 190111 (native mode):

- Values are computed from unrounded gains; NTCIREVAL writes GG with 6 significant digits and
  system gains with 4 decimals, and forms D#, DIN#, P+Q, P+Q# (and its means) from printed
  4-decimal values, so it agrees with the exact values to about 1.5e-4. With ``--compat
  ntcireval`` every value of this family is NTCIREVAL's printed value: gains rounded as it
  writes them, composites from 4-decimal components, and each value rounded to 4 decimals as
  C's ``%.4f`` does (the arithmetic mean of those values is then NEV2mean's mean over the same
  topics).
- Duplicate documents in a run are rejected or dropped by the run reader (``--dedupe``);
  NTCIREVAL credits every copy (D-nDCG above 1).
- A topic without relevant documents scores 0 in every metric, consistently (NTCIREVAL stops
  with an error and prints only D#/DIN# lines of 0.0000); duplicate qrels lines are rejected
  by the reader (NTCIREVAL counts them twice); an intent with relevant documents but no
  probability gets weight 0 with a warning (NTCIREVAL corrupts its derived files and scores D
  as 0).
- Topics are evaluated as the other families do (``-c`` adds qrels topics missing from the
  run, as NTCIREVAL scores them 0); NTCIREVAL's means divide by the topics of the probability
  file.
- Grades are read from any integer scale (NTCIREVAL ignores labels above L9). ``-l`` does not
  change relevance here (NTCIREVAL has no threshold: relevant = gain > 0); without
  ``--intents`` it decides which subtopics share the uniform probability.
"""

from __future__ import annotations

import numpy as np

from divaeval.metrics.common import at_cutoffs, printf_round, rank_discount, safe_divide
from divaeval.metrics.gain_lists import (
    discounted_ratio,
    jk_ndcg,
    ms_ndcg,
    n_err,
    p_plus,
    q_measure,
)
from divaeval.metrics.ntcir_gains import (
    gain_key,
    ntcireval_compat,
    pad_ranks,
    parse_gain_map,
    tables,
)
from divaeval.metrics.registry import family_registrar, register_preset
from divaeval.metrics.spec import Param, in_unit_interval, non_negative

FAMILY = "ntcir"
SOURCE = "NTCIREVAL 190111; Sakai, Evaluation with Informational and Navigational Intents, WWW 2012"
DEFAULT_CUTOFFS = (10,)


def _check_gain_map(text: str) -> str | None:
    if text == "":
        return None
    try:
        parse_gain_map(text)
    except ValueError as exc:
        return str(exc)
    return None


GAIN = Param(
    "gain",
    str,
    "linear",
    "grade-to-gain mapping: linear (gain = grade, NTCIREVAL's default) or exp (2^g − 1)",
    choices=("linear", "exp"),
)
GAINS = Param(
    "gains",
    str,
    "",
    "explicit grade:gain map, e.g. 1:1,2:3,3:7 (';' also separates); overrides gain",
    _check_gain_map,
)
BETA = Param(
    "beta", float, 1.0, "blended-ratio β (user persistence; 0 gives AP-like values)", non_negative
)
GAMMA = Param("gamma", float, 0.5, "weight γ of I-rec in the # combination", in_unit_interval)
LOGB = Param(
    "logb",
    float,
    2.0,
    "log base b of Järvelin–Kekäläinen nDCG",
    lambda b: None if b > 1 else "must be > 1",
)
RBP_BETA = Param(
    "beta",
    float,
    0.8,
    "RBP persistence β of the discount β^{r−1} (Golbus et al.)",
    in_unit_interval,
)
GAIN_PARAMS = (GAIN, GAINS)


# ---------------------------------------------------------------------------------------------
# the family's metrics


def _finish(jr, values: np.ndarray) -> np.ndarray:
    """NTCIREVAL prints 4 decimals: in compat mode, round like ``%.4f``."""
    return printf_round(values, 4) if ntcireval_compat(jr) else values.copy()


def _memo(compute):
    """Cache a base value on the judged run (per gain mapping, β and cutoffs), so that X and
    X# (and I-rec, which every # metric uses) are computed once per run."""

    def cached(jr, params, cutoffs):
        key = ("ntcir", compute.__name__, gain_key(params), params.get("beta"), cutoffs)
        if key not in jr.cache:
            jr.cache[key] = compute(jr, params, cutoffs)
        return jr.cache[key]

    cached.__name__ = compute.__name__
    cached.__doc__ = compute.__doc__
    return cached


def _component(jr, values: np.ndarray) -> np.ndarray:
    """A value entering a combination: NTCIREVAL combines the printed 4-decimal values."""
    return printf_round(values, 4) if ntcireval_compat(jr) else values


@_memo
def _i_rec(jr, params, cutoffs) -> np.ndarray:
    t = tables(jr, params, cutoffs)
    covered = np.maximum.accumulate(t.relevant, axis=1).sum(axis=2).astype(np.float64)
    intents = t.ideal.has_relevant.sum(axis=1).astype(np.float64)
    return safe_divide(at_cutoffs(covered, cutoffs), intents[:, None])


@_memo
def _d_ndcg(jr, params, cutoffs) -> np.ndarray:
    """D-nDCG@l: MSnDCG on global gains (paper Eqs. 1, 6)."""
    t = tables(jr, params, cutoffs)
    return ms_ndcg(t.global_gains, t.ideal_gains, cutoffs)


@_memo
def _d_err(jr, params, cutoffs) -> np.ndarray:
    """D-ERR@l: global gains discounted by 1/r (Golbus Table 4's ERR discount) ÷ the same
    over the global ideal list."""
    t = tables(jr, params, cutoffs)
    return discounted_ratio(t.global_gains, t.ideal_gains, rank_discount("err", t.length), cutoffs)


@_memo
def _d_rbp(jr, params, cutoffs) -> np.ndarray:
    """D-RBP@l: global gains discounted by β^{r−1} (Golbus Table 4's RBP discount) ÷ the same
    over the global ideal list."""
    t = tables(jr, params, cutoffs)
    discount = rank_discount("rbp", t.length, params["beta"])
    return discounted_ratio(t.global_gains, t.ideal_gains, discount, cutoffs)


@_memo
def _din_ndcg(jr, params, cutoffs) -> np.ndarray:
    """DIN-nDCG@l: MSnDCG on DIN gains against the D ideal (paper Eqs. 8, 9)."""
    t = tables(jr, params, cutoffs)
    return ms_ndcg(t.din_gains, t.ideal_gains, cutoffs)


@_memo
def _d_q(jr, params, cutoffs) -> np.ndarray:
    """D-Q@l: Q@l on global gains (paper Eqs. 2, 3, 6)."""
    t = tables(jr, params, cutoffs)
    return q_measure(t.global_gains, t.ideal_gains, t.ideal.count, params["beta"], cutoffs)


@_memo
def _din_q(jr, params, cutoffs) -> np.ndarray:
    """DIN-Q@l: Q@l on DIN gains against the D ideal (paper Eqs. 10, 11)."""
    t = tables(jr, params, cutoffs)
    return q_measure(t.din_gains, t.ideal_gains, t.ideal.count, params["beta"], cutoffs)


@_memo
def _p_plus_q(jr, params, cutoffs) -> np.ndarray:
    """Σ_i P(i|q)·(Q_i@l if informational else P+_i) over intents with relevant documents,
    all intents at once as rows of (topic, intent) pairs."""
    t = tables(jr, params, cutoffs)
    n_topics, length, width = t.intent.shape
    gains = t.intent.transpose(0, 2, 1).reshape(n_topics * width, length)
    ideal = pad_ranks(t.ideal.intent_gains, length).transpose(0, 2, 1).reshape(n_topics * width, -1)
    count = t.ideal.intent_count.reshape(-1)
    beta = params["beta"]
    q_values = q_measure(gains, ideal, count, beta, cutoffs)
    p_values = p_plus(gains, ideal, beta, cutoffs)
    nav = jr.material.intent_nav.reshape(-1)[:, None]
    per_intent = np.where(nav, p_values, q_values).reshape(n_topics, width, len(cutoffs))
    per_intent = _component(jr, per_intent)
    weight = np.where(t.ideal.has_relevant, jr.material.intent_weight, 0.0)
    total = np.zeros((n_topics, len(cutoffs)))
    for s in range(width):
        total += weight[:, s, None] * per_intent[:, s, :]
    return total


def _sharp(jr, params, cutoffs, base) -> np.ndarray:
    """X# = γ·I-rec + (1 − γ)·X (paper Eq. 7)."""
    gamma = params["gamma"]
    recall = _component(jr, _i_rec(jr, params, cutoffs))
    value = _component(jr, base(jr, params, cutoffs))
    return gamma * recall + (1.0 - gamma) * value


def _printed(base):
    """The metric X computed from a memoised base value (rounded as NTCIREVAL prints it under
    ``--compat ntcireval``)."""

    def compute(jr, params, cutoffs):
        return _finish(jr, base(jr, params, cutoffs))

    compute.__name__ = base.__name__.lstrip("_")
    compute.__doc__ = base.__doc__
    return compute


def _printed_sharp(base):
    """X# = γ·I-rec@l + (1 − γ)·X@l (paper Eq. 7) from X's memoised base value."""

    def compute(jr, params, cutoffs):
        return _finish(jr, _sharp(jr, params, cutoffs, base))

    compute.__name__ = base.__name__.lstrip("_") + "_sharp"
    compute.__doc__ = f"{base.__name__.lstrip('_')}#: γ·I-rec + (1 − γ)·X (paper Eq. 7)."
    return compute


def q(jr, params, cutoffs):
    """Q on global gains: Q@l, or Q-measure (÷ R) without a cutoff (paper Eq. 3)."""
    t = tables(jr, params, cutoffs)
    return _finish(
        jr, q_measure(t.global_gains, t.ideal_gains, t.ideal.count, params["beta"], cutoffs)
    )


def pplus(jr, params, cutoffs):
    """P+ on global gains, the list truncated at the cutoff (paper Eq. 4)."""
    t = tables(jr, params, cutoffs)
    return _finish(jr, p_plus(t.global_gains, t.ideal_gains, params["beta"], cutoffs))


def nerr(jr, params, cutoffs):
    """nERR@l on global gains, stop probability G(r)/(gmax + 1) (the tool's nERR)."""
    t = tables(jr, params, cutoffs)
    return _finish(jr, n_err(t.global_gains, t.ideal_gains, cutoffs))


def ndcg(jr, params, cutoffs):
    """NTCIREVAL's nDCG@l (Järvelin–Kekäläinen, log base b) on global gains."""
    t = tables(jr, params, cutoffs)
    return _finish(jr, jk_ndcg(t.global_gains, t.ideal_gains, params["logb"], cutoffs))


def efp(jr, params, cutoffs):
    """EfP@l: effectively relevant documents in the top l / l (paper §4.2)."""
    t = tables(jr, params, cutoffs)
    counted = ~jr.material.intent_nav[:, None, :] | t.first
    effective = (t.relevant & counted).any(axis=2)
    hits = at_cutoffs(np.cumsum(effective, axis=1).astype(np.float64), cutoffs)
    sizes = [
        jr.length.astype(np.float64) if k is None else np.full(jr.n_topics, float(k))
        for k in cutoffs
    ]
    return _finish(jr, safe_divide(hits, np.stack(sizes, axis=1)))


# ---------------------------------------------------------------------------------------------
# registration

_ROUNDING = (
    "NTCIREVAL rounds gains and combines 4-decimal values (differences up to ~1.5e-4); "
    "--compat ntcireval reproduces its printed values."
)
_SHARP = (
    " Combined from exact values (NTCIREVAL: from printed 4-decimal I-rec and base values); "
    "a topic without relevant documents is 0 as in every metric."
)
_DUPES = " NTCIREVAL credits duplicate run documents at every copy; divaeval never does."


_spec = family_registrar(FAMILY, reference=SOURCE, defaults=DEFAULT_CUTOFFS)


_spec(
    "I-rec",
    _printed(_i_rec),
    "intent recall: share of the intents with relevant documents covered in the top l",
    GAIN_PARAMS,
    aliases=("irec", "i-recall", "intent-recall"),
    notes="Denominator: intents with at least one relevant document (also ones missing from "
    "--intents, as NTCIREVAL). Equals strec for default gains; a separate metric of the NTCIR "
    "family." + _ROUNDING,
)
#: The diversity measures X and their # forms (X# = γ·I-rec + (1 − γ)·X), one row each:
#: (X, memoised base, summary, X's parameters, X's aliases, X#'s aliases, X's notes, X#'s notes).
_DIVERSITY_PAIRS = (
    (
        "D-nDCG",
        _d_ndcg,
        "nDCG on global gains Σ_i P(i|q)·g_i against the global ideal list",
        GAIN_PARAMS,
        ("dndcg", "msndcg", "d-msndcg"),
        ("d#ndcg", "dsharp-ndcg", "dsharpndcg", "d-sharp-ndcg"),
        "NTCIREVAL prints it as MSnDCG@l (not its nDCG@l line). " + _ROUNDING + _DUPES,
        _ROUNDING + _SHARP + _DUPES,
    ),
    (
        "D-Q",
        _d_q,
        "Q@l (blended ratio, ÷ min(l, R)) on global gains",
        (*GAIN_PARAMS, BETA),
        ("dq", "d-q-measure"),
        ("d#q", "dsharp-q", "dsharpq", "d-sharp-q"),
        "NTCIREVAL prints it as Q@l in .Dnev. " + _ROUNDING + _DUPES,
        _ROUNDING + _SHARP + _DUPES,
    ),
    (
        "DIN-nDCG",
        _din_ndcg,
        "D-nDCG crediting a navigational intent only at its first relevant document",
        GAIN_PARAMS,
        ("dinndcg",),
        ("din#ndcg", "dinsharp-ndcg", "dinsharpndcg", "din-sharp-ndcg"),
        "The ideal list is D's, so the maximum can be below 1. NTCIREVAL prints it as "
        "MSnDCG@l in .DINnev. " + _ROUNDING,
        _ROUNDING + _SHARP,
    ),
    (
        "DIN-Q",
        _din_q,
        "D-Q crediting a navigational intent only at its first relevant document",
        (*GAIN_PARAMS, BETA),
        ("dinq",),
        ("din#q", "dinsharp-q", "dinsharpq", "din-sharp-q"),
        "The ideal list is D's. NTCIREVAL prints it as Q@l in .DINnev. " + _ROUNDING,
        _ROUNDING + _SHARP,
    ),
    (
        "P+Q",
        _p_plus_q,
        "Σ_i P(i|q)·(Q_i@l for informational, P+_i for navigational intents)",
        (*GAIN_PARAMS, BETA),
        ("pplusq", "p-plus-q"),
        ("pplusq#", "pplusqsharp", "pplusq-sharp", "p-plus-q-sharp"),
        "Intents without relevant documents are skipped, so the maximum is Σ of the other "
        "probabilities. NTCIREVAL prints it as PplusQ@l and sums 4-decimal per-intent values. "
        + _ROUNDING,
        "NTCIREVAL prints it as PplusQ#@l. " + _ROUNDING + _SHARP,
    ),
)


def _sharp_name(name: str) -> str:
    """D-nDCG → D#-nDCG, DIN-Q → DIN#-Q, P+Q → P+Q#."""
    return name + "#" if "-" not in name else name.replace("-", "#-", 1)


for (
    _name,
    _base,
    _summary,
    _params,
    _aliases,
    _sharp_aliases,
    _notes,
    _sharp_notes,
) in _DIVERSITY_PAIRS:
    _spec(_name, _printed(_base), _summary, _params, aliases=_aliases, notes=_notes)
    _spec(
        _sharp_name(_name),
        _printed_sharp(_base),
        f"γ·I-rec + (1 − γ)·{_name}",
        (*_params, GAMMA),
        aliases=_sharp_aliases,
        notes=_sharp_notes,
    )


#: Golbus et al.'s D-measures with the other discounts of their Table 4 (§6.1 item 4, Table 9
#: and 10's D#-ERR and D#-RBP): the same global gains and global ideal list as D-nDCG.
_GOLBUS_SOURCE = "Golbus, Aslam & Clarke, Inf. Retr. 16(4) 2013, §6.1 and Table 4"
_GOLBUS_NOTES = (
    "Not in NTCIREVAL. The bare discount applied to global gains, as D-nDCG applies "
    "1/log2(r + 1): not ERR's cascade of stop probabilities (nor nERR) and not RBP's "
    "(1 − β) scaling, which the normalisation cancels."
)
_GOLBUS_PAIRS = (
    ("D-ERR", _d_err, "1/r", GAIN_PARAMS, ("derr",), ("d#err", "dsharp-err", "d-sharp-err")),
    (
        "D-RBP",
        _d_rbp,
        "β^{r−1}",
        (*GAIN_PARAMS, RBP_BETA),
        ("drbp",),
        ("d#rbp", "dsharp-rbp", "d-sharp-rbp"),
    ),
)
for _d_name, _d_base, _discount, _d_params, _d_aliases, _d_sharp_aliases in _GOLBUS_PAIRS:
    _spec(
        _d_name,
        _printed(_d_base),
        f"global gains discounted by {_discount} ÷ the same over the global ideal list",
        _d_params,
        aliases=_d_aliases,
        notes=_GOLBUS_NOTES + _DUPES,
        reference=_GOLBUS_SOURCE,
    )
    _spec(
        _sharp_name(_d_name),
        _printed_sharp(_d_base),
        f"γ·I-rec + (1 − γ)·{_d_name} (Golbus's λ = γ; I-rec = S-recall)",
        (*_d_params, GAMMA),
        aliases=_d_sharp_aliases,
        notes=_GOLBUS_NOTES + _SHARP + _DUPES,
        reference=_GOLBUS_SOURCE,
    )


_spec(
    "Q",
    q,
    "Q-measure on global gains: Σ_{relevant r} BR(r) ÷ min(l, R) (÷ R without a cutoff)",
    (*GAIN_PARAMS, BETA),
    aliases=("q-measure", "qmeasure"),
    defaults=(None,),
    notes="For one intent of probability 1 (ad hoc qrels) the ad hoc Q-measure/Q@l. " + _ROUNDING,
)
_spec(
    "P+",
    pplus,
    "P-plus on global gains: mean BR over relevant ranks up to the preferred rank",
    (*GAIN_PARAMS, BETA),
    aliases=("pplus", "p-plus"),
    defaults=(None,),
    notes="rp is taken in the list truncated at the cutoff; gains compared with relative "
    "tolerance 1e-9 (NTCIREVAL compares its 4-decimal gains). " + _ROUNDING,
)
_spec(
    "nERR",
    nerr,
    "ERR with stop probability G/(gmax + 1) on global gains, ÷ the ideal list's ERR",
    GAIN_PARAMS,
    aliases=("n-err",),
    notes="NTCIREVAL's nERR@l, not the 2^g ERR of Chapelle et al.; not nERR-IA. " + _ROUNDING,
)
_spec(
    "jk-nDCG",
    ndcg,
    "Järvelin–Kekäläinen nDCG (no discount up to rank b, then 1/log_b r) on global gains",
    (*GAIN_PARAMS, LOGB),
    aliases=("nDCG-ntcir", "ntcir-nDCG"),
    notes="NTCIREVAL's nDCG@l line (printed as nDCG@l by -f ntcir); not D-nDCG (MSnDCG), and "
    "not nDCG, which is trec_eval's and ir_measures' form (discount 1/log2(r + 1) from rank "
    "1). " + _ROUNDING,
)
_spec(
    "EfP",
    efp,
    "effective precision: share of the top l effectively relevant to some intent",
    GAIN_PARAMS,
    aliases=("effective-precision",),
    notes="Sakai WWW 2012 §4.2; no reference implementation (not in NTCIREVAL). A "
    "navigational intent counts only its first relevant document; divided by l (by the list "
    "length without a cutoff). The paper's Figure 1 gives 3/5 = 0.6 (its text says 0.8).",
)

register_preset(
    "ntcir",
    [
        "I-rec",
        "D-nDCG",
        "D#-nDCG",
        "D-Q",
        "D#-Q",
        "DIN-nDCG",
        "DIN#-nDCG",
        "DIN-Q",
        "DIN#-Q",
        "P+Q",
        "P+Q#",
    ],
    "NTCIREVAL's diversity output set (D/DIN-NTCIR-eval, PQeval), @10 unless given",
)
