"""Cascade and utility metrics: EU, Cube Test (CT, ACT, CT-RBU), NRBP-RBU, S-RR, and the
weighted/graded parameters of the ndeval family's cascade metrics (other-metrics.md §2–5, 13).

Inputs of the worked values: other-metrics.md §13 = tests/fixtures/small/ref_ex (div.qrels,
runA/runB/runC). Topic 1 per-aspect probabilities (2^g − 1)/2^gmax: aspect 1 d1 0.25, d2 0.75,
d5 0.25; aspect 2 d2 0.5, d3 0.5; aspect 3 d4 0.25, d7 0.75; w = 1/3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import FIXTURES, by_topic, examples, judge_files, judge_text, measure_values

from divaeval.errors import UsageError
from divaeval.metrics import get_spec, parse_measures

TOL = 1e-12
REF = FIXTURES / "small" / "ref_ex"


pytestmark = pytest.mark.usefixtures("collected_warnings")


def topic1(run: str, measures: list[str]) -> dict[str, float]:
    jr = judge_files(REF / "div.qrels", REF / run, complete=True)
    return {name: by_topic(jr, v)["1"] for name, v in measure_values(jr, measures).items()}


def test_eu_hand_worked():
    # §13: runA gains Σ_t w·r·(1 − α)^c (α = 0.5): d1 0.25/3 = 0.083333; d2 (0.75·0.5 + 0.5)/3 =
    # 0.291667; d3 0.5·0.5/3 = 0.083333; d9 0; d4 0.25/3 = 0.083333; d5 0.25·0.25/3 = 0.020833;
    # d7 0.75·0.5/3 = 0.125. Discounts 1/(1 + log2 i) = 1, 0.5, 0.386853, 0.333333, 0.301030,
    # 0.278943, 0.262650. EU = Σ disc·(g − 0.05) = 0.171992 (natural log: 0.198782).
    gains = [1 / 12, 0.875 / 3, 1 / 12, 0, 1 / 12, 0.0625 / 3, 0.125]
    expected = sum((g - 0.05) / (1 + math.log2(i)) for i, g in enumerate(gains, start=1))
    got = topic1("runA", ["EU", "EU(log=e)"])
    assert got["EU"] == pytest.approx(expected, abs=TOL)
    assert got["EU"] == pytest.approx(0.171992, abs=1e-6)
    assert got["EU(log=e)"] == pytest.approx(0.198782, abs=1e-6)
    assert topic1("runB", ["EU"])["EU"] == pytest.approx(0.402081, abs=1e-6)
    assert topic1("runB", ["EU(log=e)"])["EU(log=e)"] == pytest.approx(0.409577, abs=1e-6)
    assert topic1("runC", ["EU"])["EU"] == pytest.approx(0.043489, abs=1e-6)


def test_ct_rbu_hand_worked():
    # §3.4: runA gains with f_Sat (H = 1): d5 gets 0 (aspect 1's earlier raw relevance 0.25 +
    # 0.75 = 1.0 >= H); CT_RBU = 0.083333 + 0.291667/2 + 0.083333/3 + 0.083333/5 + 0.125/7.
    expected = 1 / 12 + 0.875 / 6 + 1 / 36 + 1 / 60 + 0.125 / 7
    assert topic1("runA", ["CT-RBU"])["CT-RBU"] == pytest.approx(expected, abs=TOL)
    assert expected == pytest.approx(0.291468, abs=1e-6)
    # runB (d2 d4 d3 d1 d7 d6): 0.416667, 0.083333/2, 0.083333/3, 0.041667/4, 0.125/5, 0.
    assert topic1("runB", ["CT-RBU"])["CT-RBU"] == pytest.approx(0.521528, abs=1e-6)
    # Without saturation (H huge) d5 counts: + 0.25·0.25/3/6.
    got = topic1("runA", ["CT-RBU(H=100)"])["CT-RBU(H=100)"]
    assert got == pytest.approx(expected + 0.0625 / 18, abs=TOL)


def test_cube_test_hand_worked():
    # §3.4, Luo's form: γ = 0.5, H = 1, θ = 1/3, rel = g/2 (G = 2). runA gains: d1 1/6;
    # d2 0.5·(1/3)·1 + (1/3)·0.5 = 1/3; d3 0.5·(1/3)·0.5 = 1/12; d9 0; d4 1/6; d5 0 (aspect 1's
    # raw sum 0.5 + 1 >= 1); d7 0.5·(1/3)·1 = 1/6. Cumulative 1/6, 1/2, 7/12, 7/12, 3/4, 3/4, 11/12.
    cutoffs = "@1,2,3,4,5,7,10"
    got = topic1("runA", ["CT" + cutoffs, "ACT@5,7,10", "CT(time=fixed)@10", "ACT(time=fixed)@10"])
    cumulative = [1 / 6, 1 / 2, 7 / 12, 7 / 12, 3 / 4, 3 / 4, 11 / 12]
    for k in (1, 2, 3, 4, 5, 7):
        assert got[f"CT@{k}"] == pytest.approx(cumulative[k - 1] / k, abs=TOL)
    assert got["CT@5"] == pytest.approx(0.15, abs=TOL)
    assert got["CT@10"] == pytest.approx(11 / 12 / 7, abs=TOL)  # only 7 documents returned
    speeds = [c / t for t, c in enumerate(cumulative, start=1)]
    assert got["ACT@5"] == pytest.approx(sum(speeds[:5]) / 5, abs=TOL)  # 0.181389
    assert got["ACT@5"] == pytest.approx(0.181389, abs=1e-6)
    assert got["ACT@10"] == pytest.approx(sum(speeds) / 7, abs=TOL)  # 0.166128
    # Fixed time: CT@10 = (11/12)/10; ACT@10 = (Σ_{t≤7} speed_t + (11/12)(1/8 + 1/9 + 1/10))/10.
    assert got["CT(time=fixed)@10"] == pytest.approx(11 / 120, abs=TOL)
    tail = 11 / 12 * (1 / 8 + 1 / 9 + 1 / 10)
    assert got["ACT(time=fixed)@10"] == pytest.approx((sum(speeds) + tail) / 10, abs=TOL)
    assert got["ACT(time=fixed)@10"] == pytest.approx(0.147100, abs=1e-6)
    run_b = topic1("runB", ["CT@5", "ACT@5"])
    assert run_b["CT@5"] == pytest.approx(0.183333, abs=1e-6)
    assert run_b["ACT@5"] == pytest.approx(0.290833, abs=1e-6)


def test_nrbp_rbu_hand_worked():
    # §5.1: NRBP_RBU = Σ_i p^{i−1} Σ_t r(d_i,t)(1 − α)^{c(i,t)} (no weights, no normaliser).
    # runA topic 1, α = 0.5, p = 0.8, per-aspect probabilities: per-rank gains (×1, not /3)
    # 0.25, 0.875, 0.25, 0, 0.25, 0.0625, 0.375 → 0.25 + 0.7 + 0.16 + 0.1024 + 0.02048 +
    # 0.098304 = 1.331184. Binary, p = β = 0.5: NRBP·S/(1 − 0.5·0.5) = 0.48828125·3/0.75.
    got = topic1("runA", ["NRBP-RBU", "NRBP-RBU(p=0.5,rel=binary)", "NRBP"])
    assert got["NRBP-RBU"] == pytest.approx(1.331184, abs=TOL)
    assert got["NRBP-RBU(p=0.5,rel=binary)"] == pytest.approx(1.953125, abs=TOL)
    assert got["NRBP"] == pytest.approx(0.48828125, abs=TOL)


def test_s_rr_hand_worked():
    # §4: runA S-recall@1..5 = 1/3, 2/3, 2/3, 2/3, 1 → S-RR@100% = 1/5; runB covers all three
    # aspects at rank 2 (d2, d4) → 1/2; runC never covers aspect 3 → 0. Coverage 0.6 needs
    # ⌈0.6·3⌉ = 2 aspects: runA has 2 at rank 2 → 1/2 (0.6667 would need ⌈2.0001⌉ = 3).
    assert topic1("runA", ["S-RR"])["S-RR"] == 0.2
    assert topic1("runB", ["S-RR"])["S-RR"] == 0.5
    assert topic1("runC", ["S-RR"])["S-RR"] == 0.0
    assert topic1("runA", ["S-RR(coverage=0.6)"])["S-RR(coverage=0.6)"] == 0.5
    assert topic1("runA", ["S-RR(coverage=0.6667)"])["S-RR(coverage=0.6667)"] == 0.2
    assert topic1("runA", ["S-RR@4"])["S-RR@4"] == 0.0  # full coverage only at rank 5
    assert get_spec("S-RR100").name == "S-RR"


def test_weighted_and_graded_alpha_ndcg_hand_worked():
    # Subtopics s1 (w 0.8), s2 (w 0.2); a ∈ s1 (grade 2), b ∈ s2 (grade 1), c ∈ s1, s2 (grade
    # 1 each). Run b a, α = 0.5, @2.
    qrels = "1 1 a 2\n1 2 b 1\n1 1 c 1\n1 2 c 1\n"
    jr = judge_text(qrels, "1 b\n1 a\n", intents="1 1 0.8\n1 2 0.2\n")
    names = ["alpha-nDCG(weights=intents)@2", "alpha-nDCG(gain=graded)@2", "alpha-nDCG@2"]
    got = {n: v[0] for n, v in measure_values(jr, names).items()}
    log3 = math.log2(3)
    # weights=intents: run gains b 0.2, a 0.8 → DCG = 0.2 + 0.8/log2 3. Greedy ideal: c (0.8 +
    # 0.2 = 1), then a (0.8·0.5 = 0.4 > b 0.2·0.5) → IDCG = 1 + 0.4/log2 3.
    assert got[names[0]] == pytest.approx((0.2 + 0.8 / log3) / (1 + 0.4 / log3), abs=TOL)
    # gain=graded (v = g/G, G = 2, w = 1): run b 0.5, a 1.0 → 0.5 + 1/log2 3. Ideal: a (1.0)
    # and c (0.5 + 0.5) tie → the larger docno c; then a 1.0·0.5 = 0.5 > b 0.25 → 1 + 0.5/log2 3.
    assert got[names[1]] == pytest.approx((0.5 + 1 / log3) / (1 + 0.5 / log3), abs=TOL)
    # ndeval (binary, unweighted): run 1 + 1/log2 3; ideal c (2), then a or b (both subtopics
    # already seen once: 1·0.5) → (1 + 1/log2 3)/(2 + 0.5/log2 3) = 0.7043638.
    assert got[names[2]] == pytest.approx((1 + 1 / log3) / (2 + 0.5 / log3), abs=TOL)


def test_names_round_trip_and_errors():
    for text in [
        "EU(alpha=0.25,e=0.001,log=e)@20",
        "CT-RBU(H=2)@10",
        "CT(gamma=0.3,time=fixed)@10",
        "ACT(G=4)@10",
        "NRBP-RBU(p=0.9)",
        "S-RR(coverage=0.5)",
        "alpha-nDCG(weights=intents,gain=graded)@20",
        "NRBP(alpha=0.3,weights=intents)",
        "nERR-IA(gain=graded)@5",
    ]:
        for measure in parse_measures([text]):
            assert parse_measures([measure.name]) == [measure]
    assert [m.name for m in parse_measures(["alpha-nDCG(weights=uniform,gain=binary)@5"])] == [
        "alpha-nDCG@5"
    ]
    with pytest.raises(UsageError):
        parse_measures(["EU(log=3)"])
    with pytest.raises(UsageError):
        parse_measures(["S-RR(coverage=0)"])


# --- properties ------------------------------------------------------------------------------


@st.composite
def binary_cases(draw):
    n_sub = draw(st.integers(1, 4))
    lines = ["1 1 d0 1"]
    for d in range(1, 8):
        for s in range(1, n_sub + 1):
            if draw(st.booleans()):
                lines.append(f"1 {s} d{d} {draw(st.integers(0, 1))}")
    docs = [f"d{d}" for d in range(8)] + ["u1", "u2"]
    ranking = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True))
    return "\n".join(lines) + "\n", [("1", d) for d in ranking]


@settings(max_examples=examples(16), deadline=None)
@given(binary_cases(), st.floats(0.0, 0.9), st.floats(0.1, 0.9))
def test_generalised_cascade_defaults_reduce_to_ndeval(case, alpha, beta):
    """Binary grades, no intent file: weights=intents (1/S) and gain=graded (g/1) give ndeval's
    values — the 1/S factor cancels in every normalised form (other-metrics.md §5.2)."""
    jr = judge_text(*case)
    for base in ["alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA"]:
        plain = f"{base}(alpha={alpha})@3,5,10"
        mixed = f"{base}(alpha={alpha},weights=intents,gain=graded)@3,5,10"
        a, b = measure_values(jr, [plain]), measure_values(jr, [mixed])
        for (_, x), (_, y) in zip(sorted(a.items()), sorted(b.items()), strict=True):
            assert x == pytest.approx(y, abs=1e-12)
    for base in ["NRBP", "nNRBP"]:
        a = measure_values(jr, [f"{base}(alpha={alpha},beta={beta})"])
        b = measure_values(jr, [f"{base}(alpha={alpha},beta={beta},weights=intents)"])
        assert next(iter(a.values())) == pytest.approx(next(iter(b.values())), abs=1e-12)


@settings(max_examples=examples(16), deadline=None)
@given(binary_cases(), st.floats(0.0, 0.9), st.floats(0.1, 0.9), st.floats(0.0, 0.3))
def test_cascade_properties(case, alpha, p, e):
    qrels, ranking = case
    jr = judge_text(qrels, ranking)
    n = len(ranking)
    names = [
        f"EU(alpha={alpha},e={e})",
        f"EU(alpha={alpha},e=0)",
        f"CT-RBU(alpha={alpha},rel=linear)@1",
        f"CT(gamma={1 - alpha},rel=linear)@1",
        f"NRBP-RBU(alpha={alpha},p={p},rel=binary)",
        f"NRBP(alpha={alpha},beta={p})",
        "S-RR",
        "strec@1,2,3,4,5,6,7,8,9,10",
    ]
    v = {k: x[0] for k, x in measure_values(jr, names).items()}
    # The effort is linear: EU(e) − EU(0) = −e·Σ_{i≤n} 1/(1 + log2 i).
    cost = sum(1 / (1 + math.log2(i)) for i in range(1, n + 1))
    assert v[names[0]] - v[names[1]] == pytest.approx(-e * cost, abs=1e-12)
    # The RBU-paper CT equals Luo's CT at k = 1 (other-metrics.md §3.3).
    assert v[names[2]] == pytest.approx(v[names[3]], abs=1e-12)
    # NRBP-RBU (binary, p = β) = NRBP·S/(1 − (1 − α)β) (§5.1).
    s = jr.material.n_relevant_subtopics[0]
    assert v[names[4]] == pytest.approx(v[names[5]] * s / (1 - (1 - alpha) * p), abs=1e-9)
    # S-RR = 1/(first k with S-recall@k = 1), 0 if never.
    full = [k for k in range(1, 11) if v[f"strec@{k}"] == 1.0]
    assert v["S-RR"] == (1 / full[0] if full else 0.0)


@settings(max_examples=examples(10), deadline=None)
@given(binary_cases(), st.sampled_from([1, 3, 5, 10]))
def test_weighted_alpha_ndcg_equals_golbus_cascade_average(case, k):
    """alpha-nDCG(weights=intents) is Golbus et al.'s cascade subtopic average with λ = 0
    (other-metrics.md §11.3: "for DCG this is α-nDCG with intent weights")."""
    qrels, ranking = case
    n_sub = len({line.split()[1] for line in qrels.splitlines()})
    intents = "".join(f"1 {s} {0.1 * s}\n" for s in range(1, n_sub + 1))
    jr = judge_text(qrels, ranking, intents=intents)
    a = f"alpha-nDCG(alpha=0.3,weights=intents)@{k}"
    b = f"alpha#-nDCG-IA(lambda=0,avg=cascade)@{k}"
    values = measure_values(jr, [a, b])
    assert values[a][0] == pytest.approx(values[b][0], abs=1e-12)
    assert np.isfinite(values[a][0])


def test_every_measure_scores_a_run_with_no_evaluated_document():
    """A run none of whose topics is in the qrels, evaluated with -c: every ranking is empty
    (depth 0). S-RR and RR-IA took np.argmax over an empty rank axis and crashed."""
    from divaeval.judged import judge_texts
    from divaeval.metrics import all_specs, compute_measures, parse_measure
    from divaeval.settings import Settings

    (jr,) = judge_texts(
        "q 1 d1 1\nq 2 d2 3\n",
        ["other Q0 x 1 0 run\n"],
        intents="q 1 0.5\nq 2 0.5\n",
        settings=Settings(complete=True),
    )
    assert jr.depth == 0
    checked = 0
    for spec in all_specs():
        text = spec.name + ("(n=100)" if spec.param("n") is not None else "")
        text += "@10" if spec.cutoff == "required" else ""
        try:
            measures = parse_measure(text)
        except UsageError:  # a metric that needs another parameter (as -m all leaves it out)
            continue
        checked += 1
        for measure in measures:
            values = compute_measures(jr, [measure])[measure]
            assert values.shape == (1,) and np.isfinite(values).all(), measure.name
    assert checked > 50
    for text in ("S-RR", "RR-IA", "RR", "alpha-nDCG@5", "RBU"):
        (measure,) = parse_measure(text)
        assert compute_measures(jr, [measure])[measure][0] == 0.0, text
