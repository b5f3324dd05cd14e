"""ir_measures' and pytrec_eval's measure strings mean in divaeval what they mean there.

Each ir_measures string is parsed by divaeval as it is and compared, topic by topic, with
ir_measures 0.4.3 on seeded random ad hoc qrels and runs (grades −2…4, coarse scores, so score
ties are frequent, unjudged documents, topics without relevant documents), under the tie rule
of the measure's default provider: trec_eval's (``--order score``) for pytrec_eval and gdeval,
docno ascending (``score-docno-asc``) for ir_measures' own Python measures (Judged, Compat,
RR@k) and pyndeval, file order among ties (``score-file``) for cwl_eval. The trec_eval names
are checked against pytrec_eval the same way (with -l and -J), plus hand-worked values and
hypothesis properties of the new measures."""

from __future__ import annotations

import logging
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from divaeval.io import read_qrels, read_run
from divaeval.judged import QrelsIndex, judge_run
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")
from test_adhoc_trec_eval import random_case, write_case  # noqa: E402

logging.getLogger("ir_measures").setLevel(logging.ERROR)

#: ir_measures strings by the tie rule of their default provider
BY_ORDER = {
    "score": [
        "nDCG@5",
        "nDCG",
        "NDCG@10",
        "nDCG(judged_only=True)@5",
        "nDCG(gains={0:1,1:2,2:5})@5",
        "P@5",
        "P(rel=2)@3",
        "P(judged_only=True)@5",
        "R@5",
        "AP",
        "AP@5",
        "MAP(rel=2)",
        "RR",
        "Rprec",
        "RPrec(rel=2)",
        "Bpref",
        "BPref(rel=2)",
        "infAP",
        "IPrec@0.3",
        "IPrec@0.0",
        "SetP",
        "SetP(relative=True)",
        "SetRelP",
        "SetR",
        "SetF",
        "SetF(beta=0.5)",
        "SetAP",
        "NumRet",
        "NumRet(rel=1)",
        "NumRelRet",
        "NumRel",
        "Success@3",
        "Success(rel=2)@5",
    ],
    "score-docno-asc": [
        "Judged@5",
        "Judged",
        "Compat",
        "Compat(p=0.8)",
        "Compat(normalize=False)",
        "RR@3",
    ],
    "score-file": [
        "INST(max_rel=4)",
        "INST(T=2.0,max_rel=3,min_rel=1)",
        "INSQ(max_rel=4)",
        "NERR8(max_rel=4)@5",
        "NERR9(max_rel=4)@5",
        "NERR10(max_rel=4)",
        "NERR10(p=0.5,max_rel=2)",
        "NERR11(max_rel=4)",
        "SDCG(max_rel=4)@5",
        "RBP(rel=2)",
        "RBP(p=0.5,rel=1)",
        "RBP(p=0.9,rel=3)",
    ],
}


def _ours(qrels_path, run_path, names, order="score", level=1):
    index = QrelsIndex(read_qrels(str(qrels_path)), rel_level=level)
    jr = judge_run(read_run(str(run_path)), index, Settings(order=order, rel_level=level))
    measures = {name: parse_measures([name])[0] for name in names}
    values = compute_measures(jr, list(measures.values()))
    return {
        str(topic): {name: float(values[m][i]) for name, m in measures.items()}
        for i, topic in enumerate(jr.topics)
    }


@pytest.mark.parametrize("order", sorted(BY_ORDER))
def test_ir_measures_strings_agree_with_ir_measures(tmp_path, order):
    names = BY_ORDER[order]
    parsed = [ir_measures.parse_measure(name) for name in names]
    rng = np.random.default_rng(101)
    compared = 0
    for case in range(25):
        qrels, run = random_case(rng)
        qrels_path, run_path = write_case(tmp_path, qrels, run)
        ours = _ours(qrels_path, run_path, names, order)
        q = [ir_measures.Qrel(t, d, g) for t, docs in qrels.items() for d, g in docs.items()]
        r = [ir_measures.ScoredDoc(t, d, s) for t, docs in run.items() for d, s in docs.items()]
        for name, measure in zip(names, parsed, strict=True):
            for result in measure.iter_calc(q, r):
                if result.query_id not in ours:
                    continue
                compared += 1
                assert math.isclose(ours[result.query_id][name], result.value, abs_tol=1e-9), (
                    f"case {case} topic {result.query_id} {name}: divaeval "
                    f"{ours[result.query_id][name]}, ir_measures {result.value}"
                )
    assert compared > 25 * len(names)


def test_gdeval_strings_agree_with_ir_measures(tmp_path):
    """ERR@k and nDCG(dcg=exp-log2)@k are gdeval's (G = 4, gain 2^g − 1)."""
    names = ["ERR@20", "ERR@5", 'nDCG(dcg="exp-log2")@10']
    parsed = [ir_measures.parse_measure(name) for name in names]
    rng = np.random.default_rng(7)
    compared = 0
    for _ in range(15):
        qrels, run = random_case(rng)
        # gdeval.pl reads numeric topic ids only
        qrels = {str(100 + int(t[1:])): docs for t, docs in qrels.items()}
        run = {str(100 + int(t[1:])): docs for t, docs in run.items() if t[1:].isdigit()}
        run = {t: docs for t, docs in run.items() if t in qrels}
        qrels_path, run_path = write_case(tmp_path, qrels, run)
        ours = _ours(qrels_path, run_path, names)
        q = [ir_measures.Qrel(t, d, g) for t, docs in qrels.items() for d, g in docs.items()]
        r = [ir_measures.ScoredDoc(t, d, s) for t, docs in run.items() for d, s in docs.items()]
        try:
            results = list(ir_measures.iter_calc(parsed, q, r))
        except (subprocess.CalledProcessError, RuntimeError):
            continue  # gdeval.pl refuses some inputs
        for result in results:
            name = names[parsed.index(result.measure)]
            if result.query_id not in ours:
                continue
            compared += 1
            # gdeval prints 5 decimals
            assert abs(ours[result.query_id][name] - result.value) <= 5.000001e-6, (
                name,
                result.query_id,
                ours[result.query_id][name],
                result.value,
            )
    if compared == 0:
        pytest.skip("gdeval (perl) unavailable")
    assert compared >= 60


#: divaeval/trec_eval names -> pytrec_eval measure (name of the returned value)
TREC_NAMES = {
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "bpref": "bpref",
    "infAP": "infAP",
    "set_P": "set_P",
    "set_recall": "set_recall",
    "set_map": "set_map",
    "set_F": "set_F",
    "set_relative_P": "set_relative_P",
    "relative_P.5": "relative_P_5",
    "success.1": "success_1",
    "success.10": "success_10",
    "success_5": "success_5",
    "Rprec_mult.0.6": "Rprec_mult_0.60",
    "Rprec_mult_1.40": "Rprec_mult_1.40",
    "IPrec@0.7": "iprec_at_recall_0.70",
    "11pt_avg(rounding=v9)": "11pt_avg",
    "utility": "utility",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
    "G": "G",
    "binG": "binG",
    "map_cut.5": "map_cut_5",
    "ndcg": "ndcg",
}


@pytest.mark.parametrize("level", [1, 2])
def test_trec_eval_names_agree_with_pytrec_eval(tmp_path, level):
    rng = np.random.default_rng(300 + level)
    names = list(TREC_NAMES)
    wanted = {
        *(v for v in TREC_NAMES.values() if not v[-1].isdigit()),
        *("iprec_at_recall", "Rprec_mult", "relative_P", "success", "map_cut"),
    }
    for case in range(60):
        qrels, run = random_case(rng)
        qrels_path, run_path = write_case(tmp_path, qrels, run)
        ours = _ours(qrels_path, run_path, names, level=level)
        theirs = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level).evaluate(run)
        for topic, values in theirs.items():
            for name in names:
                expected = values[TREC_NAMES[name]]
                assert math.isclose(ours[topic][name], expected, abs_tol=1e-9), (
                    f"case {case} -l {level} topic {topic} {name}: {ours[topic][name]} vs "
                    f"{expected}"
                )


def test_judged_only_agrees_with_trec_eval_minus_j(tmp_path):
    names = [
        "P(judged_only=True)@5",
        "AP(judged_only=True)",
        "nDCG(judged_only=True)@5",
        "Rprec(judged_only=True)",
        "RR(judged_only=True)",
        "NumRet(judged_only=True)",
    ]
    trec = ["P_5", "map", "ndcg_cut_5", "Rprec", "recip_rank", "num_ret"]
    rng = np.random.default_rng(44)
    for _ in range(40):
        qrels, run = random_case(rng)
        qrels_path, run_path = write_case(tmp_path, qrels, run)
        ours = _ours(qrels_path, run_path, names)
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels,
            {"P.5", "map", "ndcg_cut.5", "Rprec", "recip_rank", "num_ret"},
            judged_docs_only_flag=1,
        )
        for topic, values in evaluator.evaluate(run).items():
            for name, trec_name in zip(names, trec, strict=True):
                assert math.isclose(ours[topic][name], values[trec_name], abs_tol=1e-9), name


PYNDEVAL_NAMES = [
    "alpha_nDCG@20",
    "α_nDCG@10",
    "alpha_DCG@5",
    "ERR_IA@20",
    "nERR_IA@10",
    "NRBP",
    "nNRBP",
    "AP_IA",
    "MAP_IA",
    "P_IA@10",
    "StRecall@20",
    "alpha_nDCG(rel=2)@20",
    "ERR_IA(rel=2)@10",
    "NRBP(rel=2)",
    "AP_IA(rel=2)",
    "StRecall(rel=2)@10",
]


def test_pyndeval_strings_agree_with_ir_measures():
    """ir_measures' diversity measures (its pyndeval provider, ties by docno ascending) on the
    real TREC 2012 sample data."""
    pytest.importorskip("pyndeval")
    sample = Path(__file__).parent.parent / "sample_data"
    qrels_path, run_path = sample / "qrels.txt", sample / "run.txt"
    ours = _ours(qrels_path, run_path, PYNDEVAL_NAMES, order="score-docno-asc")
    q = list(ir_measures.read_trec_qrels(str(qrels_path)))
    r = list(ir_measures.read_trec_run(str(run_path)))
    compared = 0
    for name in PYNDEVAL_NAMES:
        for result in ir_measures.parse_measure(name).iter_calc(q, r):
            if result.query_id in ours:
                compared += 1
                assert math.isclose(ours[result.query_id][name], result.value, abs_tol=1e-9), (
                    name,
                    result.query_id,
                )
    assert compared >= 10 * len(PYNDEVAL_NAMES)


def test_rbp_rel_is_binary_at_that_grade(capsys):
    """RBP(rel=k) (ir_measures', cwl_eval's) = RBP with -l k; with gain=graded it is refused."""
    from support import SAMPLE_DATA, run_cli

    run, qrels = SAMPLE_DATA / "run.txt", SAMPLE_DATA / "qrels.txt"
    code, per_measure, _ = run_cli(capsys, run, qrels, "-m", "RBP(rel=2)", "-f", "csv")
    assert code == 0
    code, per_level, _ = run_cli(capsys, run, qrels, "-m", "RBP", "-l", "2", "-f", "csv")
    assert code == 0
    values = [line.split(",")[3] for line in per_measure.splitlines()[1:]]
    assert values == [line.split(",")[3] for line in per_level.splitlines()[1:]]
    code, out, err = run_cli(capsys, run, qrels, "-m", "RBP(rel=2,gain=graded)")
    assert code == 2 and out == ""
    assert err == (
        "divaeval: RBP: rel= counts grade >= rel as relevant (binary gains); it does not go "
        "with gain=graded\n"
    )
    code, _, err = run_cli(capsys, run, qrels, "-m", "RBP(rel=x)")
    assert code == 2 and "rel" in err
    # the pyndeval measures' rel= counts positive grades only, as ndeval's
    code, _, err = run_cli(capsys, run, qrels, "-m", "alpha-nDCG(rel=0)@20")
    assert code == 2
    assert err == (
        "divaeval: alpha-nDCG: parameter rel='0': must be at least 1 (ndeval's relevance is a "
        "positive grade)\n"
    )
