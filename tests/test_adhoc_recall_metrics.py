"""Hand-worked examples and properties of the ad hoc (P, RR, AP, ndcg_cut, ERR, RBP,
RBP-resid, adhoc-Q) and recall-level (R, Rprec, TSE, metric-LR) metrics."""

from __future__ import annotations

import math
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.errors import UsageError
from divaeval.io import read_qrels, read_run
from divaeval.judged import QrelsIndex, judge_run
from divaeval.metrics import compute_measures, parse_measures
from divaeval.metrics.families.recall import metric_lexirecall_exact
from divaeval.settings import Settings

REF = Path(__file__).parent / "fixtures" / "small" / "ref_ex"


def scores(qrels, run, measures, **kw):
    index = QrelsIndex(read_qrels(str(qrels)), rel_level=kw.get("rel_level", 1))
    jr = judge_run(read_run(str(run)), index, Settings(**kw))
    parsed = parse_measures(list(measures))
    values = compute_measures(jr, parsed)
    return {
        m.name: dict(zip(map(str, jr.topics), map(float, values[m]), strict=True)) for m in parsed
    }


def write(directory: Path, qrels_lines: list[str], ranking: dict[str, list[str]]):
    qrels = directory / "q.txt"
    run = directory / "r.txt"
    qrels.write_text("".join(line + "\n" for line in qrels_lines))
    run.write_text(
        "".join(
            f"{t} Q0 {d} {i} {100 - i} r\n"
            for t, docs in ranking.items()
            for i, d in enumerate(docs, start=1)
        )
    )
    return qrels, run


# ---------------------------------------------------------------------------------------------
# hand-worked examples (reference/other-metrics.md §6, §7, §12, §13)


def test_err_worked_values():
    """runX topic 101 grades 3, 0, 2, 1; G = 3: R = 7/8, 0, 3/8, 1/8 →
    0.875 + (1/3)·0.375·0.125 + (1/4)·0.125·0.125·0.625 = 0.8930664062; G = 4: 0.4797973633.
    runY (2, 3, 0, 0, 1): 0.6503906250 / 0.3709472656; topic 102 (1, 1): 0.1796875 /
    0.091796875. G defaults to the largest grade of the qrels file (3)."""
    x = scores(REF / "adhoc.qrels", REF / "runX", ["ERR(G=0)", "ERR"])
    assert x["ERR(G=0)@20"]["101"] == pytest.approx(0.8930664062, abs=1e-10)
    assert x["ERR@20"]["101"] == pytest.approx(0.4797973633, abs=1e-10)  # G = 4 (gdeval)
    assert x["ERR(G=0)@20"]["102"] == pytest.approx(0.1796875, abs=1e-12)
    assert x["ERR@20"]["102"] == pytest.approx(0.091796875, abs=1e-12)
    y = scores(REF / "adhoc.qrels", REF / "runY", ["ERR(G=0)@20", "ERR(G=4)@20"])
    assert y["ERR(G=0)@20"]["101"] == pytest.approx(0.6503906250, abs=1e-10)
    assert y["ERR@20"]["101"] == pytest.approx(0.3709472656, abs=1e-10)


def test_rbp_and_residual_worked_values():
    """runX topic 101 (a1 3, n1 unjudged, a3 2, a2 1), p = 0.9.
    graded RBP = 0.1·(1 + 0.81·2/3 + 0.729·1/3) = 0.1783; binary = 0.1·(1 + 0.81 + 0.729) =
    0.2539. Residual = 0.1·0.9 (n1 at rank 2) + 0.9⁴ = 0.7461 under both rules; topic 102
    (b1, b2 judged): Moffat 0.9² = 0.81, trec_eval 0. runZ 101: 0.1 + 0.9³ = 0.829."""
    x = scores(
        REF / "adhoc.qrels",
        REF / "runX",
        [
            "RBP(p=0.9,gain=graded)",
            "RBP(p=0.9)",
            "RBP-resid(p=0.9)",
            "RBP-resid(p=0.9,rule=trec_eval)",
            "RBP-resid(p=0.9)@1",
        ],
    )
    assert x["RBP(p=0.9,gain=graded)"]["101"] == pytest.approx(0.1783, abs=1e-12)
    assert x["RBP(p=0.9)"]["101"] == pytest.approx(0.2539, abs=1e-12)
    assert x["RBP-resid(p=0.9)"]["101"] == pytest.approx(0.7461, abs=1e-12)
    assert x["RBP-resid(p=0.9)"]["102"] == pytest.approx(0.81, abs=1e-12)
    assert x["RBP-resid(p=0.9,rule=trec_eval)"]["102"] == 0.0
    # @1: a1 judged, residual = p^1 = 0.9
    assert x["RBP-resid(p=0.9)@1"]["101"] == pytest.approx(0.9, abs=1e-12)
    z = scores(REF / "adhoc.qrels", REF / "runZ", ["RBP-resid(p=0.9)"])
    assert z["RBP-resid(p=0.9)"]["101"] == pytest.approx(0.829, abs=1e-12)
    compat = scores(REF / "adhoc.qrels", REF / "runX", ["RBP-resid(p=0.9)"], compat="trec_eval")
    assert compat["RBP-resid(p=0.9)"]["102"] == 0.0


def test_q_measure_worked_values():
    """runX topic 101: gains 3, 0, 2, 1; ideal 3, 2, 1 (R = 3).
    BR(1) = (3+1)/(3+1) = 1, BR(3) = (5+2)/(6+3) = 7/9, BR(4) = (6+3)/(6+4) = 0.9;
    Q@5 = (1 + 7/9 + 0.9)/min(5, 3) = 0.8925926; Q@2 = 1/min(2, 3) = 0.5."""
    x = scores(REF / "adhoc.qrels", REF / "runX", ["adhoc-Q@2,5", "adhoc-Q"])
    assert x["adhoc-Q@5"]["101"] == pytest.approx((1 + 7 / 9 + 0.9) / 3, abs=1e-12)
    assert x["adhoc-Q@2"]["101"] == pytest.approx(0.5, abs=1e-12)
    assert x["adhoc-Q"]["102"] == pytest.approx(1.0)


def test_adhoc_q_equals_ntcir_q_on_adhoc_qrels():
    """With one intent the NTCIR family's Q (global gains) is the ad hoc Q."""
    for run in ("runX", "runY", "runZ"):
        values = scores(REF / "adhoc.qrels", REF / run, ["adhoc-Q@3,5", "Q@3,5"])
        for k in (3, 5):
            for topic, value in values[f"adhoc-Q@{k}"].items():
                assert value == pytest.approx(values[f"Q@{k}"][topic], abs=1e-12)


def test_diversity_qrels_use_largest_grade():
    """div.qrels topic 1 per-document grades: d1 1, d2 2, d3 1, d4 1, d5 1, d7 2 (d6, d8 0).
    runA d1 d2 d3 d9 d4 d5 d7: relevant at 1, 2, 3, 5, 6, 7 of 6 →
    AP = (1 + 1 + 1 + 4/5 + 5/6 + 6/7)/6 = 0.9150794; P@5 = 4/5; nDCG@3 =
    (1 + 2/log2 3 + 1/2)/(2 + 2/log2 3 + 1/2)."""
    v = scores(REF / "div.qrels", REF / "runA", ["AP", "P@5", "nDCG@3"])
    assert v["AP"]["1"] == pytest.approx((3 + 0.8 + 5 / 6 + 6 / 7) / 6, abs=1e-12)
    assert v["P@5"]["1"] == pytest.approx(0.8)
    log3 = math.log2(3)
    assert v["nDCG@3"]["1"] == pytest.approx((1.5 + 2 / log3) / (2.5 + 2 / log3), abs=1e-12)


def test_recall_level_worked_values():
    """other-metrics.md §12 table (div.qrels topic 1 collapsed: m = 6).
    runA p = 1,2,3,5,6,7: R@5 = 4/6, RP = 5/6, TSE_ap = 1/7, TSE_ndcg(n=20) = 1/log2 8 = 1/3,
    metric LR(n = 20, ε = 1/2) = 0.652444. runB p = 1,2,3,4,5,(20): R@5 = 5/6, TSE_ap 0.05
    (n = 20) or 0 (n unknown), TSE_ndcg = 1/log2 21 = 0.227670, LR = 0.034997. runC
    p = 2,3,(17..20): R@5 = 2/6, LR = 0.002442."""
    measures = ["R@5", "Rprec", "TSE-ap(n=20)", "TSE", "TSE-ndcg(n=20)", "metric-LR(n=20)"]
    a = scores(REF / "div.qrels", REF / "runA", measures)
    b = scores(REF / "div.qrels", REF / "runB", measures)
    c = scores(REF / "div.qrels", REF / "runC", measures)
    assert a["R@5"]["1"] == pytest.approx(4 / 6)
    assert b["R@5"]["1"] == pytest.approx(5 / 6)
    assert c["R@5"]["1"] == pytest.approx(2 / 6)
    assert a["Rprec"]["1"] == pytest.approx(5 / 6) and b["Rprec"]["1"] == pytest.approx(5 / 6)
    assert c["Rprec"]["1"] == pytest.approx(2 / 6)
    assert a["TSE-ap(n=20)"]["1"] == pytest.approx(1 / 7)
    assert a["TSE-ap"]["1"] == pytest.approx(1 / 7)
    assert b["TSE-ap(n=20)"]["1"] == pytest.approx(0.05) and b["TSE-ap"]["1"] == 0.0
    assert c["TSE-ap(n=20)"]["1"] == pytest.approx(0.05)
    assert a["TSE-ndcg(n=20)"]["1"] == pytest.approx(1 / 3)
    assert b["TSE-ndcg(n=20)"]["1"] == pytest.approx(0.227670, abs=1e-6)
    assert a["metric-LR(n=20)"]["1"] == pytest.approx(0.652444, abs=1e-6)
    assert b["metric-LR(n=20)"]["1"] == pytest.approx(0.034997, abs=1e-6)
    assert c["metric-LR(n=20)"]["1"] == pytest.approx(0.002442, abs=1e-6)


def test_tse_rbp_and_linear_worked_values():
    """TSE_e = e(p_m) (Diaz et al. Eq. 3). runA topic 1: all m = 6 relevant documents are
    retrieved, the last at p_m = 7: TSE-rbp(γ=0.5) = (1 − 0.5)·0.5^6 = 0.0078125 and
    TSE-linear(n=20) = 1 − 7/20 = 0.65. runB misses one, imputed at p_m = n = 20:
    TSE-rbp(γ=0.8, n=20) = 0.2·0.8^19 and TSE-linear(n=20) = 1 − 20/20 = 0; without n the
    limit n → ∞ gives TSE-rbp = 0."""
    measures = ["TSE-rbp(gamma=0.5)", "TSE-rbp(n=20)", "TSE-rbp", "TSE-linear(n=20)"]
    a = scores(REF / "div.qrels", REF / "runA", measures)
    b = scores(REF / "div.qrels", REF / "runB", measures)
    assert a["TSE-rbp(gamma=0.5)"]["1"] == pytest.approx(0.0078125, abs=1e-15)
    assert a["TSE-linear(n=20)"]["1"] == pytest.approx(0.65, abs=1e-15)
    assert b["TSE-rbp(n=20)"]["1"] == pytest.approx(0.2 * 0.8**19, abs=1e-15)
    assert b["TSE-rbp"]["1"] == 0.0
    assert b["TSE-linear(n=20)"]["1"] == pytest.approx(0.0, abs=1e-15)


def test_metric_lexirecall_exact_example():
    """n = 10, m = 3, ε = 1/2: w = (4/529, 42/529, 21/23); p = (2, 3, 8): LR = 646/2645;
    (1, 2, 9): 171/1058; (5, 6, 8): 577/2645 — lexirecall's order (2,3,8) ≻ (5,6,8) ≻ (1,2,9).
    n = 10⁹: (1, 2, 1000) and (2, 3, 1000) differ exactly although their doubles tie."""
    half = Fraction(1, 2)
    assert metric_lexirecall_exact([2, 3, 8], 10, half) == Fraction(646, 2645)
    assert metric_lexirecall_exact([1, 2, 9], 10, half) == Fraction(171, 1058)
    assert metric_lexirecall_exact([5, 6, 8], 10, half) == Fraction(577, 2645)
    big_a = metric_lexirecall_exact([1, 2, 1000], 10**9, half)
    big_b = metric_lexirecall_exact([2, 3, 1000], 10**9, half)
    assert big_a > big_b
    assert float(big_a) == float(big_b)


def test_collection_size_errors():
    with pytest.raises(UsageError, match="collection size"):
        scores(REF / "div.qrels", REF / "runA", ["metric-LR"])
    with pytest.raises(UsageError, match="collection size"):
        scores(REF / "div.qrels", REF / "runA", ["TSE-linear"])
    with pytest.raises(UsageError, match="smaller"):
        scores(REF / "div.qrels", REF / "runA", ["TSE-ap(n=5)"])


def test_display_names_round_trip():
    texts = [
        "P@10",
        "RR",
        "AP@5",
        "nDCG@20",
        "ERR(G=4)@20",
        "RBP(p=0.95,gain=graded)",
        "RBP-resid(rule=trec_eval)",
        "adhoc-Q@10",
        "R@100",
        "Rprec",
        "TSE-rbp(gamma=0.5)",
        "metric-LR(n=1000,eps=1/3)",
        "recip_rank",
        "map",
    ]
    for text in texts:
        for measure in parse_measures([text]):
            again = parse_measures([measure.name])
            assert again == [measure]


# ---------------------------------------------------------------------------------------------
# properties


@st.composite
def cases(draw):
    n_docs = draw(st.integers(1, 12))
    grades = draw(st.lists(st.integers(-2, 3), min_size=n_docs, max_size=n_docs))
    n_sub = draw(st.integers(1, 3))
    sub_grades = [
        draw(st.lists(st.integers(0, 3), min_size=n_docs, max_size=n_docs)) for _ in range(n_sub)
    ]
    order = draw(st.permutations(list(range(n_docs)) + [f"u{i}" for i in range(4)]))
    length = draw(st.integers(1, len(order)))
    return grades, sub_grades, [str(d) for d in order[:length]]


MEASURES = [
    "P@1,3,5",
    "RR",
    "AP",
    "nDCG@1,3,5",
    "ERR@5",
    "RBP",
    "adhoc-Q@3",
    "adhoc-Q",
    "R@1,3,5",
    "Rprec",
    "TSE",
    "TSE-ndcg(n=50)",
    "metric-LR(n=50)",
]


def _evaluate(lines, ranking, measures=MEASURES, **kw):
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = write(Path(directory), lines, {"1": ranking})
        return scores(qrels, run, measures, **kw)


@settings(max_examples=examples(24), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_bounds_and_monotonicity(case):
    grades, _, ranking = case
    lines = [f"1 0 {d} {g}" for d, g in enumerate(grades)]
    values = _evaluate(lines, ranking)
    for name, per_topic in values.items():
        assert 0.0 <= per_topic["1"] <= 1.0 + 1e-12, name
    # recall at k never decreases with k; RR >= P@1
    assert values["R@1"]["1"] <= values["R@3"]["1"] <= values["R@5"]["1"]
    assert values["RR"]["1"] >= values["P@1"]["1"]
    # Rprec = P@R
    r = sum(g >= 1 for g in grades)
    if 1 <= r <= 5 and r in (1, 3, 5):
        assert values["Rprec"]["1"] == pytest.approx(values[f"P@{r}"]["1"])


@settings(max_examples=examples(16), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_unjudged_tail_invariance(case):
    """Appending unjudged documents changes neither AP, RR, ndcg_cut, R nor Q; RBP + its
    residual is an upper bound that never increases with more judged documents."""
    grades, _, ranking = case
    lines = [f"1 0 {d} {g}" for d, g in enumerate(grades)]
    base = _evaluate(lines, ranking)
    longer = _evaluate(lines, ranking + ["x1", "x2"])
    for name in ("AP", "RR", "nDCG@5", "R@5", "adhoc-Q@3", "P@5"):
        assert longer[name]["1"] == pytest.approx(base[name]["1"], abs=1e-12)
    both = _evaluate(lines, ranking, ["RBP(p=0.8)", "RBP-resid(p=0.8)"])
    assert both["RBP"]["1"] + both["RBP-resid"]["1"] <= 1.0 + 1e-12


@settings(max_examples=examples(16), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_diversity_equals_collapsed_adhoc(case):
    """Any metric on diversity qrels equals the same metric on ad hoc qrels holding each
    document's largest subtopic grade."""
    _, sub_grades, ranking = case
    lines = [f"1 {s} {d} {g}" for s, column in enumerate(sub_grades) for d, g in enumerate(column)]
    collapsed = [f"1 0 {d} {max(col[d] for col in sub_grades)}" for d in range(len(sub_grades[0]))]
    measures = [m for m in MEASURES if not m.startswith("ERR")] + ["ERR(G=3)@5"]
    div = _evaluate(lines, ranking, measures)
    adhoc = _evaluate(collapsed, ranking, measures)
    for name in div:
        assert div[name]["1"] == pytest.approx(adhoc[name]["1"], abs=1e-12), name


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=6, unique=True),
    st.lists(st.integers(1, 40), min_size=1, max_size=6, unique=True),
)
def test_metric_lexirecall_orders_like_lexirecall(a, b):
    """LR(p) > LR(p') iff p ≻ p' under lexirecall (compare from the bottom)."""
    m = min(len(a), len(b))
    p, q = sorted(a)[:m], sorted(b)[:m]
    exact_p = metric_lexirecall_exact(p, 50)
    exact_q = metric_lexirecall_exact(q, 50)
    diff = [i for i in range(m) if p[i] != q[i]]
    if not diff:
        assert exact_p == exact_q
    else:
        i = diff[-1]
        assert (exact_p > exact_q) == (p[i] < q[i])
