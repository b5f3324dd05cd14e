"""Output names: a measure prints under the name the user asked for it by.

Three dialects, decided by how a ``-m`` argument is spelled (:func:`divaeval.metrics.parse`
sets :attr:`~divaeval.metrics.spec.Measure.label` and ``dialect``):

- **trec_eval**: trec_eval 10's names, exactly as trec_eval spells them (case matters), bare
  (``map``, ``P``, ``recip_rank``, ``official``), with parameters (``P.5,10``,
  ``iprec_at_recall.0.1``, ``utility.1,-1,0,0``) or as printed (``P_10``). A measure prints
  under trec_eval's printed name (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``,
  ``set_F_0.5``); when every measure of a request is trec_eval's, the ``trec_eval`` format also
  follows trec_eval's layout (:func:`trec_order`, :data:`TREC_SUMMARY_ONLY`).
- **ir_measures**: ir_measures' names, exactly as it spells them (``nDCG@10``, ``AP``,
  ``alpha_nDCG@20``, ``SetP``): a measure prints as ir_measures prints it (``MAP`` → ``AP``).
- **divaeval**: every other spelling; a measure prints under divaeval's display name.

trec_eval's printed names (its ``meas_init.c``): ``name_k`` for a cutoff, ``name_%3.2f`` for a
real-valued level, ``name_PARAMS`` (the parameter text as given) for a measure with one
parameter list, and ``name`` alone with the default parameters.
"""

from __future__ import annotations

from divaeval.metrics.spec import Form, Measure, format_value

TREC_EVAL = "trec_eval"
IR_MEASURES = "ir_measures"
DIVAEVAL = "divaeval"

#: trec_eval 10's measures in the order it prints them (its measures.c); a request of
#: trec_eval names prints in this order, whatever the order of the -m arguments
TREC_ORDER = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
)
_TREC_RANK = {name: position for position, name in enumerate(TREC_ORDER)}
#: trec_eval's nicknames (presets of trec_eval names)
TREC_NICKNAMES = ("official", "all_trec", "set")
#: trec_eval prints these in the summary only (their per-topic print is empty)
TREC_SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})
#: ``runid`` is no measure: it asks the trec_eval format for its ``runid all NAME`` line
RUNID = "runid"
#: trec_eval names whose divaeval metric has other defaults (trec_eval's rbp: p = 0.9 and the
#: graded gain; rbp_resid: p = 0.9 and trec_eval's rule); parameters as trec_eval's
#: ``name.p=0.95``
TREC_FORMS = {
    "rbp": Form("rbp", "RBP", (("p", 0.9), ("gain", "graded")), trec="assign"),
    "rbp_resid": Form("rbp_resid", "RBP-resid", (("p", 0.9), ("rule", "trec_eval")), trec="assign"),
}

#: ir_measures 0.4's measure names (case matters) -> how ir_measures prints the measure
IR_MEASURES_NAMES = {
    "AP": "AP",
    "MAP": "AP",
    "AP_IA": "AP_IA",
    "MAP_IA": "AP_IA",
    "BPref": "Bpref",
    "Bpref": "Bpref",
    "Compat": "Compat",
    "ERR": "ERR",
    "ERR_IA": "ERR_IA",
    "INSQ": "INSQ",
    "INST": "INST",
    "IPrec": "IPrec",
    "Judged": "Judged",
    "MRR": "RR",
    "NDCG": "nDCG",
    "NERR8": "NERR8",
    "NERR9": "NERR9",
    "NERR10": "NERR10",
    "NERR11": "NERR11",
    "NRBP": "NRBP",
    "NumQ": "NumQ",
    "NumRel": "NumRel",
    "NumRelRet": "NumRelRet",
    "NumRet": "NumRet",
    "P": "P",
    "P_IA": "P_IA",
    "Precision": "P",
    "R": "R",
    "RBP": "RBP",
    "RPrec": "Rprec",
    "RR": "RR",
    "Recall": "R",
    "Rprec": "Rprec",
    "SDCG": "SDCG",
    "SetAP": "SetAP",
    "SetF": "SetF",
    "SetP": "SetP",
    "SetR": "SetR",
    "SetRelP": "SetP(relative=True)",
    "StRecall": "StRecall",
    "Success": "Success",
    "alpha_DCG": "alpha_DCG",
    "alpha_nDCG": "alpha_nDCG",
    "infAP": "infAP",
    "nDCG": "nDCG",
    "nERR_IA": "nERR_IA",
    "nNRBP": "nNRBP",
}


def is_trec_name(name: str) -> bool:
    """``name`` is one of trec_eval's measure names or nicknames, spelled as trec_eval does."""
    return name in _TREC_RANK or name in TREC_NICKNAMES


def trec_label(base: str, kind: str | None, given: str | None, measure: Measure) -> str:
    """trec_eval's printed name of ``measure``, asked for as ``base[.given]``; ``kind`` is how
    trec_eval reads the parameters (:class:`~divaeval.metrics.spec.Form`)."""
    if kind == "cutoffs" and measure.cutoff is not None:
        return f"{base}_{measure.cutoff}"
    if kind == "levels":
        level = measure.spec.level_param
        return f"{base}_{measure.param_dict[level]:3.2f}" if level else base
    if kind is not None and kind != "cutoffs" and given is not None:
        return f"{base}_{given}"
    return base


def ir_label(name: str, given: set[str], measure: Measure) -> str:
    """How ir_measures prints ``measure``, asked for under its ir_measures ``name`` with the
    parameters ``given``: its canonical name (``MAP`` → ``AP``), the given parameters that
    differ from their defaults, then ``@cutoff`` (or ``@level``). Values are written as
    divaeval writes them (``dcg=exp-log2``, where ir_measures quotes a string)."""
    text = IR_MEASURES_NAMES[name]
    level = measure.spec.level_param
    shown = [
        f"{key}={format_value(value)}"
        for (key, value), param in zip(measure.params, measure.spec.params, strict=True)
        if key in given and key != level and value != param.default
    ]
    if shown:
        text = text[:-1] + "," if text.endswith(")") else text + "("
        text += ",".join(shown) + ")"
    if level is not None:
        return f"{text}@{format_value(measure.param_dict[level])}"
    if measure.cutoff is not None:
        return f"{text}@{measure.cutoff}"
    return text


def trec_base(label: str) -> str | None:
    """The trec_eval measure a trec_eval printed name belongs to (``P_10`` → ``P``,
    ``ndcg_cut_10`` → ``ndcg_cut``, ``set_F_0.5`` → ``set_F``), None if none."""
    if label in _TREC_RANK:
        return label
    prefixes = [name for name in TREC_ORDER if label.startswith(name + "_")]
    return max(prefixes, key=len) if prefixes else None


def trec_order(measures: list[Measure]) -> list[Measure]:
    """``measures`` in trec_eval's printing order when every one is asked for by a trec_eval
    name (a stable sort: the cutoffs of one measure keep their ascending order); else as
    given."""
    if not measures or any(m.dialect != TREC_EVAL for m in measures):
        return measures
    return sorted(measures, key=lambda m: _TREC_RANK[trec_base(m.name) or ""])


def is_trec_request(measures) -> bool:
    """Every measure is asked for by a trec_eval name: the trec_eval format then prints
    trec_eval's layout."""
    return bool(measures) and all(m.dialect == TREC_EVAL for m in measures)


def measures_signature(measures) -> str:
    """The measures of a settings signature: each resolved (every parameter bound), after its
    output name where that is not divaeval's (``map=AP(judged_only=False)@all``)."""
    return ",".join(m.resolved if m.label is None else f"{m.label}={m.resolved}" for m in measures)


#: NTCIREVAL's label for each metric of the ntcir family in its output files (``--format
#: ntcir`` prints these where NTCIREVAL's own label is unambiguous in a single stream).
NTCIREVAL_LABELS: dict[str, str] = {
    "I-rec": "I-rec",
    "D-nDCG": "D-nDCG",  # NTCIREVAL: MSnDCG@l in .Dnev
    "D#-nDCG": "D#-nDCG",
    "D-Q": "D-Q",  # NTCIREVAL: Q@l in .Dnev
    "D#-Q": "D#-Q",
    "DIN-nDCG": "DIN-nDCG",  # NTCIREVAL: MSnDCG@l in .DINnev
    "DIN#-nDCG": "DIN#-nDCG",
    "DIN-Q": "DIN-Q",  # NTCIREVAL: Q@l in .DINnev
    "DIN#-Q": "DIN#-Q",
    "P+Q": "PplusQ",
    "P+Q#": "PplusQ#",
    "Q": "Q",
    "P+": "P-plus",
    "nERR": "nERR",
    "jk-nDCG": "nDCG",
    "EfP": "EfP",
}
