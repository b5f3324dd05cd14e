"""The intent-aware family M-IA = Σ_t w(t)·M_t (other-metrics.md §10): hand-worked values, an
independent per-document reference implementation of every base metric, and the one-intent
limit (M-IA = M, against the ad hoc family)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import FIXTURES, by_topic, examples, judge_files, judge_text, measure_values

from divaeval.errors import UsageError
from divaeval.metrics import get_spec, parse_measures

TOL = 1e-12
REF = FIXTURES / "small" / "ref_ex"
NTCIR = FIXTURES / "small" / "ntcir_ex"


pytestmark = pytest.mark.usefixtures("collected_warnings")


def ref_run_a():
    return judge_files(REF / "div.qrels", REF / "runA", complete=True)


def test_err_ia_textbook_hand_worked():
    # other-metrics.md §6.2, runA topic 1 (d1 d2 d3 d9 d4 d5 d7), G = 2 (largest grade in the
    # qrels file), R = (2^g − 1)/4, w = 1/3:
    #   aspect 1: d1 (g1) @1, d2 (g2) @2, d5 (g1) @6: 0.25 + ½·0.75·0.75 + ⅙·0.25·(0.75·0.25)
    #             = 0.25 + 0.28125 + 0.0078125 = 0.5390625
    #   aspect 2: d2 (g1) @2, d3 (g1) @3: ½·0.25 + ⅓·0.25·0.75 = 0.1875
    #   aspect 3: d4 (g1) @5, d7 (g2) @7: ⅕·0.25 + (1/7)·0.75·0.75 = 0.1303571
    #   ERR-IA = (0.5390625 + 0.1875 + 0.1303571)/3 = 0.2856399
    jr = ref_run_a()
    values = measure_values(jr, ["ERR-IA-textbook@20", "ERR-IA-textbook(rel=aspect)@20"])
    topic1 = (0.5390625 + 0.1875 + (0.25 / 5 + 0.75 * 0.75 / 7)) / 3
    assert by_topic(jr, values["ERR-IA-textbook@20"])["1"] == pytest.approx(topic1, abs=TOL)
    assert topic1 == pytest.approx(0.2856399, abs=1e-7)
    # With the RBU tool's per-aspect probabilities (2^g − 1)/2^gmax(t): 0.3342510 (§6.2).
    got = by_topic(jr, values["ERR-IA-textbook(rel=aspect)@20"])["1"]
    assert got == pytest.approx(0.3342510, abs=1e-7)
    # ndeval's ERR-IA keeps its name and its (different) definition.
    assert get_spec("ERR-IA").family == "ndeval"
    assert get_spec("terr-ia").name == "ERR-IA-textbook"


def test_ndcg_rr_rbp_ia_hand_worked():
    jr = ref_run_a()
    values = measure_values(jr, ["nDCG-IA@5", "RR-IA", "RBP-IA"])
    # nDCG-IA@5, topic 2 (e1 e3 e2): aspect 1 (e1, e2 grade 1): DCG = 1 + 1/log2 4 = 1.5,
    # IDCG = 1 + 1/log2 3 = 1.6309298 → 0.9197208; aspect 2 (e3): DCG = 1/log2 3 = 0.6309298,
    # IDCG = 1 → 0.6309298; mean = 0.7753253.
    expected = (1.5 / (1 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2
    assert by_topic(jr, values["nDCG-IA@5"])["2"] == pytest.approx(expected, abs=TOL)
    # RR-IA, topic 1: first relevant ranks 1 (d1), 2 (d2), 5 (d4): (1 + ½ + ⅕)/3 = 0.5666667.
    assert by_topic(jr, values["RR-IA"])["1"] == pytest.approx(1.7 / 3, abs=TOL)
    # RBP-IA (p = 0.8, binary), topic 2: aspect 1: 0.2·(1 + 0.8²) = 0.328; aspect 2: 0.2·0.8 =
    # 0.16; mean 0.244.
    assert by_topic(jr, values["RBP-IA"])["2"] == pytest.approx(0.244, abs=TOL)


def ntcir_run():
    return judge_files(
        NTCIR / "example.Dqrels", NTCIR / "RUNA", intents=NTCIR / "example.DINprob", order="file"
    )


def test_weighted_hand_worked_on_ntcireval_example():
    # ntcireval.md §10: intents 0101: 0.5, 0.3, 0.2; 0102: 0.6, 0.3, 0.1. Run 0101: d1 d3 d8 d4
    # d6 | d2 d5; 0102: e2 e1 e6 e3 e9 | e4.
    jr = ntcir_run()
    values = measure_values(
        jr, ["Q-IA@5", "P-IA(weights=intents)@5", "AP-IA(weights=intents)", "P-IA@5"]
    )
    q = by_topic(jr, values["Q-IA@5"])
    # 0101: i1 ideal [3,2,1], d1 (gain 2) @1: BR = 3/4 → Q@5 = 0.75/3 = 0.25; i2 ideal [3,2,1],
    # gains [1,3,…]: BR(1) = 2/4, BR(2) = 6/7 → (0.5 + 0.857143)/3 = 0.452381; i3 ideal [2],
    # d4 (2) @4: BR = 3/6 → 0.5. Q-IA = 0.5·0.25 + 0.3·0.452381 + 0.2·0.5 = 0.3607143.
    assert q["0101"] == pytest.approx(0.125 + 0.3 * (0.5 + 6 / 7) / 3 + 0.1, abs=TOL)
    # 0102: i1 ideal [3,1], gains [1,3]: (2/4 + 6/6)/2 = 0.75; i2: 1.25/3 (§10.3); i3: 0.
    # With only informational intents this is P+Q; here i1 is nav (P+ = 0.75 too) → 0.575.
    assert q["0102"] == pytest.approx(0.575, abs=TOL)
    # P-IA(weights=intents)@5, 0101: i1 {d1} 1/5, i2 {d1, d3} 2/5, i3 {d4} 1/5:
    # 0.5·0.2 + 0.3·0.4 + 0.2·0.2 = 0.26 (ndeval's uniform P-IA: (1 + 2 + 1)/(5·3) = 0.2667).
    assert by_topic(jr, values["P-IA(weights=intents)@5"])["0101"] == pytest.approx(0.26)
    assert by_topic(jr, values["P-IA@5"])["0101"] == pytest.approx(4 / 15, abs=TOL)
    # AP-IA (= MAP-IA) with intents, 0101 whole run: i1 (R 3: d1 @1, d2 @6, d5 @7):
    # (1 + 2/6 + 3/7)/3 = 0.587302; i2 (R 3: d1 @1, d3 @2): 2/3; i3 (R 1: d4 @4): 1/4.
    # 0.5·0.587302 + 0.3·0.666667 + 0.2·0.25 = 0.543651.
    expected = 0.5 * (1 + 2 / 6 + 3 / 7) / 3 + 0.3 * 2 / 3 + 0.2 * 0.25
    assert by_topic(jr, values["AP-IA(weights=intents)"])["0101"] == pytest.approx(expected)


def test_names_and_round_trip():
    assert get_spec("AP-IA").name == "MAP-IA"
    for text in [
        "P-IA(weights=intents)@5",
        "MAP-IA(weights=intents)",
        "nDCG-IA(gain=exp)@10",
        "ERR-IA-textbook(rel=aspect,G=4)@20",
        "RBP-IA(p=0.95,gain=graded)",
        "Q-IA(beta=2)@10",
        "RR-IA(weights=uniform)@3",
    ]:
        for measure in parse_measures([text]):
            assert parse_measures([measure.name]) == [measure]
    with pytest.raises(UsageError):
        parse_measures(["nDCG-IA(weights=nav)@5"])


def test_uniform_and_intents_agree_without_intent_file():
    jr = ref_run_a()
    names = ["P-IA@5", "P-IA(weights=intents)@5", "MAP-IA", "MAP-IA(weights=intents)"]
    values = measure_values(jr, names)
    for uniform, weighted in [names[:2], names[2:]]:
        assert values[uniform] == pytest.approx(values[weighted], abs=1e-15)


# --- an independent per-document implementation of every base metric --------------------------


def naive_base(metric: str, grades: list[int], ideal: list[int], k: int | None, scale: int):
    """Metric ``metric`` of one aspect: ``grades`` by rank, ``ideal`` = the aspect's positive
    grades (descending). Straight from the definitions in other-metrics.md / ntcireval.md."""
    n = len(grades) if k is None else min(k, len(grades))
    top = grades[:n]
    rel = [g >= 1 for g in top]
    if metric == "P":
        return sum(rel) / (len(grades) if k is None else k) if (k or grades) else 0.0
    if metric == "RR":
        return next((1 / (i + 1) for i, r in enumerate(rel) if r), 0.0)
    if metric == "AP":
        hits, total = 0, 0.0
        for i, r in enumerate(rel):
            if r:
                hits += 1
                total += hits / (i + 1)
        return total / len(ideal) if ideal else 0.0
    if metric == "nDCG":
        dcg = sum(max(g, 0) / math.log2(i + 2) for i, g in enumerate(top))
        cut = ideal if k is None else ideal[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(cut))
        return dcg / idcg if idcg else 0.0
    if metric == "ERR":
        total, survive = 0.0, 1.0
        for i, g in enumerate(top):
            r = (2 ** min(max(g, 0), scale) - 1) / 2**scale
            total += survive * r / (i + 1)
            survive *= 1 - r
        return total
    if metric == "RBP":
        return sum(0.2 * 0.8**i for i, r in enumerate(rel) if r)
    if metric == "Q":
        total, cg, count, cg_ideal = 0.0, 0, 0, 0
        for i, g in enumerate(top):
            g = max(g, 0)
            cg += g
            cg_ideal += ideal[i] if i < len(ideal) else 0
            if g > 0:
                count += 1
                total += (cg + count) / (cg_ideal + i + 1)
        denominator = len(ideal) if k is None else min(k, len(ideal))
        return total / denominator if denominator else 0.0
    raise AssertionError(metric)


IA_NAMES = {
    "P": "P-IA(weights=intents)",
    "RR": "RR-IA",
    "AP": "MAP-IA(weights=intents)",
    "nDCG": "nDCG-IA",
    "ERR": "ERR-IA-textbook",
    "RBP": "RBP-IA",
    "Q": "Q-IA",
}


@st.composite
def weighted_cases(draw):
    n_sub = draw(st.integers(1, 4))
    grades = {}
    lines = []
    for d in range(7):
        for s in range(1, n_sub + 1):
            grade = draw(st.integers(0, 3))
            if grade or draw(st.booleans()):
                grades[(f"d{d}", s)] = grade
                lines.append(f"1 {s} d{d} {grade}")
    grades[("d0", 1)] = max(grades.get(("d0", 1), 0), 1)
    lines = [ln for ln in lines if not ln.startswith("1 1 d0 ")] + [f"1 1 d0 {grades['d0', 1]}"]
    docs = [f"d{d}" for d in range(7)] + ["u1", "u2"]
    ranking = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=9, unique=True))
    probs = [draw(st.floats(0.05, 1.0)) for _ in range(n_sub)]
    intents = "".join(f"1 {s} {p!r}\n" for s, p in enumerate(probs, start=1))
    return n_sub, grades, "\n".join(lines) + "\n", ranking, probs, intents


@settings(max_examples=examples(24), deadline=None)
@given(weighted_cases(), st.sampled_from([None, 1, 3, 5]))
def test_wrapper_matches_independent_implementation(case, k):
    n_sub, grades, qrels, ranking, probs, intents = case
    jr = judge_text(qrels, [("1", d) for d in ranking], intents=intents)
    scale = max(grades.values())
    measures = {}
    for base, name in IA_NAMES.items():
        cutoff_needed = get_spec(name.split("(")[0]).cutoff == "required"
        if k is None and cutoff_needed:
            continue
        measures[base] = name + ("" if k is None else f"@{k}")
    values = measure_values(jr, list(measures.values()))
    for base, name in measures.items():
        expected = 0.0
        for s in range(1, n_sub + 1):
            aspect = sorted((g for (d, t), g in grades.items() if t == s and g > 0), reverse=True)
            if not aspect:
                continue  # not in A: no relevant document
            run = [grades.get((d, s), 0) for d in ranking]
            expected += probs[s - 1] * naive_base(base, run, aspect, k, scale)
        assert values[name][0] == pytest.approx(expected, rel=1e-12, abs=1e-12), name


@settings(max_examples=examples(16), deadline=None)
@given(weighted_cases(), st.sampled_from([1, 3, 5, 10]))
def test_one_intent_equals_the_ad_hoc_base_metric(case, k):
    """With one intent of weight 1, every M-IA is its base metric M; the bases here are the ad
    hoc family's (trec_eval semantics) on the same qrels read as ad hoc qrels."""
    pairs = {
        "P-IA(weights=intents)": "P",
        "RR-IA": "RR",
        "MAP-IA(weights=intents)": "AP",
        "nDCG-IA": "nDCG",
        "ERR-IA-textbook": "ERR(G=0)",
        "RBP-IA": "RBP",
        "Q-IA": "adhoc-Q",
    }
    _, grades, _, ranking, _, _ = case
    adhoc = "".join(f"1 0 {d} {g}\n" for (d, s), g in grades.items() if s == 1)
    jr = judge_text(adhoc, [("1", d) for d in ranking])
    names = [f"{m}@{k}" for pair in pairs.items() for m in pair]
    values = measure_values(jr, names)
    for ia, base in pairs.items():
        assert values[f"{ia}@{k}"][0] == pytest.approx(values[f"{base}@{k}"][0], abs=1e-12), ia


def test_intent_weight_without_relevant_document_is_reported(collected_warnings):
    # Subtopic 2 has only a grade-0 line but an intent probability of 0.4: it is left out of
    # the sum (so the maximum is 0.6) and reported once.
    jr = judge_text("1 1 a 1\n1 2 b 0\n", "1 a\n1 b\n", intents="1 1 0.6\n1 2 0.4\n")
    values = measure_values(jr, ["RR-IA", "RBP-IA"])
    assert values["RR-IA"][0] == pytest.approx(0.6, abs=TOL)
    assert sum("intent probabilities belong to subtopics" in w for w in collected_warnings) == 1
