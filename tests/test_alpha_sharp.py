"""Golbus et al.'s alpha#-IA measures (Eq. 10) with cascade/micro/geom/smr subtopic averages."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.io import read_intents, read_qrels, read_run
from divaeval.judged import QrelsIndex, judge_run
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings

REF = Path(__file__).parent / "fixtures" / "small" / "ref_ex"


def values(qrels, run, measures, intents=None):
    index = QrelsIndex(
        read_qrels(str(qrels)), intents=None if intents is None else read_intents(str(intents))
    )
    jr = judge_run(read_run(str(run)), index, Settings())
    parsed = parse_measures(list(measures))
    out = compute_measures(jr, parsed)
    return {m.name: dict(zip(map(str, jr.topics), map(float, out[m]), strict=True)) for m in parsed}


#: other-metrics.md §11.3: runA topic 1, α = 0.3, λ = 0.5, k = 5, w = 1/3
WORKED = {
    "ERR": {"cascade": 0.874522, "micro": 0.763905, "geom": 0.707806, "smr": 0.732809},
    "nDCG": {"cascade": 0.895338, "micro": 0.800584, "geom": 0.769197, "smr": 0.778937},
    "RBP": {"cascade": 0.913242, "micro": 0.815864, "geom": 0.779615, "smr": 0.798715},
}


@pytest.mark.parametrize("kind", sorted(WORKED))
def test_worked_values(kind):
    """Hand check ERR/micro: aspect 1 (R = 3; d1 at 1, d2 at 2): (1 + 0.7/2)/(1 + 0.7/2 +
    0.49/3) = 0.892070; aspect 2 (R = 2; d2 at 2, d3 at 3): (1/2 + 0.7/3)/(1 + 0.7/2) =
    0.543210; aspect 3 (d4 at 5): (1/5)/1.35 = 0.148148; mean 0.527810; S-recall@5 = 1;
    0.5·1 + 0.5·0.527810 = 0.763905. ERR/cascade: run gains (×3) 1, 1.7, 0.7, 0, 1 →
    Σ g/i = 0.761111; greedy ideal d2, d7, d5, d4, d3 (gains ×3 2, 1, 0.7, 0.7, 0.7) →
    1.016111; 0.5 + 0.5·0.749043 = 0.874522. smr weights 0.2195, 0.3902, 0.3902."""
    names = [f"alpha#-{kind}-IA(avg={avg})@5" for avg in WORKED[kind]]
    got = values(REF / "div.qrels", REF / "runA", names)
    for avg, expected in WORKED[kind].items():
        measure = parse_measures([f"alpha#-{kind}-IA(avg={avg})@5"])[0].name
        assert got[measure]["1"] == pytest.approx(expected, abs=5e-7), (kind, avg)
    # runB's top 5 (d2 d4 d3 d1 d7) is an ideal prefix: cascade = 1
    b = values(REF / "div.qrels", REF / "runB", [f"alpha#-{kind}-IA(avg=cascade)@5"])
    assert list(b.values())[0]["1"] == pytest.approx(1.0, abs=1e-12)


def test_smr_exact_weights_worked_example():
    """smr=exact: miss probabilities without replacement at ξ = 2 (d2 covers aspects 1 and 2,
    d4 aspect 3), R_T = 6, R_t = 3, 2, 2: C(3,2)/C(6,2) = 3/15 and C(4,2)/C(6,2) = 6/15
    twice, normalised 0.2, 0.4, 0.4 (Eq. 3 as printed: 0.25, 0.444, 0.444 → 0.2195, 0.3902,
    0.3902). ERR aspects 0.892070, 0.543210, 0.148148 (test_worked_values): 0.2·0.892070 +
    0.4·0.543210 + 0.4·0.148148 = 0.454957; 0.5·1 + 0.5·0.454957 = 0.727479."""
    name = "alpha#-ERR-IA(avg=smr,smr=exact)@5"
    got = values(REF / "div.qrels", REF / "runA", [name, "alpha#-ERR-IA(avg=smr)@5"])
    assert got[name]["1"] == pytest.approx(0.727479, abs=5e-7)
    assert got["alpha#-ERR-IA(avg=smr)@5"]["1"] == pytest.approx(0.732809, abs=5e-7)
    # topic 2: aspects with R_t = 2 and 1 of R_T = 3, ξ = 2 (e1 and e3): eq3 (1/3)², (2/3)²
    # -> 0.2, 0.8; exact C(1,2) = 0 and C(2,2)/C(3,2) = 1/3 -> 0, 1. Run e1 e3 e2: aspect 1
    # (1 + 0.7/3)/(1 + 0.7/2) = 0.913580, aspect 2 (1/2)/1 = 0.5, S-recall 1:
    # exact 0.5 + 0.5·0.5 = 0.75; eq3 0.5 + 0.5·(0.2·0.913580 + 0.8·0.5) = 0.791358
    assert got[name]["2"] == pytest.approx(0.75, abs=5e-7)
    assert got["alpha#-ERR-IA(avg=smr)@5"]["2"] == pytest.approx(0.791358, abs=5e-7)


def test_lambda_one_is_s_recall():
    for run in ("runA", "runB", "runC"):
        names = [
            f"alpha#-{k}-IA(lambda=1,avg={a})@1,3,5,20"
            for k in ("nDCG", "ERR", "RBP")
            for a in ("micro", "geom", "smr", "cascade")
        ]
        got = values(REF / "div.qrels", REF / run, [*names, "strec@1,3,5,20"])
        for name, per_topic in got.items():
            if name.startswith("strec"):
                continue
            k = name.rsplit("@", 1)[1]
            for topic, value in per_topic.items():
                assert value == pytest.approx(got[f"strec@{k}"][topic], abs=1e-15)


def test_cascade_lambda_zero_is_alpha_ndcg():
    """Cascade average, λ = 0, DCG discount, uniform weights: ndeval's alpha-nDCG."""
    for run in ("runA", "runB", "runC"):
        got = values(
            REF / "div.qrels",
            REF / run,
            ["alpha#-nDCG-IA(lambda=0,avg=cascade)@5,10,20", "alpha-nDCG(alpha=0.3)@5,10,20"],
        )
        for k in (5, 10, 20):
            ours = got[f"alpha#-nDCG-IA(lambda=0,avg=cascade)@{k}"]
            for topic, value in ours.items():
                assert value == pytest.approx(got[f"alpha-nDCG(alpha=0.3)@{k}"][topic], abs=1e-12)


def test_alpha_zero_micro_is_binary_ndcg_ia():
    """λ = α = 0, micro, uniform weights: nDCG-IA with binary gains = (1/M)·Σ_t nDCG_t.
    runA topic 1 @5: aspect 1 relevant at 1, 2 of R = 3: (1 + 1/log2 3)/(1 + 1/log2 3 + 1/2);
    aspect 2 at 2, 3 of R = 2: (1/log2 3 + 1/2)/(1 + 1/log2 3); aspect 3 at 5 of R = 2:
    (1/log2 6)/(1 + 1/log2 3)."""
    got = values(REF / "div.qrels", REF / "runA", ["alpha#-nDCG-IA(alpha=0,lambda=0)@5"])
    d = 1 / np.log2(3)
    expected = ((1 + d) / (1.5 + d) + (d + 0.5) / (1 + d) + (1 / np.log2(6)) / (1 + d)) / 3
    assert list(got.values())[0]["1"] == pytest.approx(expected, abs=1e-12)


def test_intent_weights_micro():
    """With intent probabilities the micro average is Σ_t w(t)·α-X_t (Eq. 10)."""
    uniform = values(REF / "div.qrels", REF / "runA", ["alpha#-nDCG-IA(lambda=0)@5"])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "w.txt"
        path.write_text("1 1 0.5\n1 2 0.3\n1 3 0.2\n2 1 0.5\n2 2 0.5\n")
        weighted = values(
            REF / "div.qrels", REF / "runA", ["alpha#-nDCG-IA(lambda=0)@5"], intents=path
        )
        # per-aspect α-nDCG_t from the uniform run: check weights move the value
        assert list(weighted.values())[0]["1"] != pytest.approx(list(uniform.values())[0]["1"])
        cascade = values(
            REF / "div.qrels",
            REF / "runA",
            ["alpha#-nDCG-IA(lambda=0,avg=cascade)@20"],
            intents=path,
        )
        assert 0.0 < list(cascade.values())[0]["1"] <= 1.0


def test_names_round_trip():
    for text in [
        "alpha#-nDCG-IA@20",
        "alpha#-ERR-IA(avg=smr)@5,10",
        "alpha#-RBP-IA(alpha=0.5,lambda=0.25,avg=geom,beta=0.9)@10",
        "a#-ndcg-ia",
    ]:
        for measure in parse_measures([text]):
            assert parse_measures([measure.name]) == [measure]


@st.composite
def diversity_cases(draw):
    n_docs = draw(st.integers(1, 10))
    n_sub = draw(st.integers(1, 4))
    grades = [
        draw(st.lists(st.integers(0, 2), min_size=n_docs, max_size=n_docs)) for _ in range(n_sub)
    ]
    order = draw(st.permutations(list(range(n_docs)) + ["u1", "u2"]))
    length = draw(st.integers(1, len(order)))
    return grades, [str(d) for d in order[:length]]


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diversity_cases(), st.sampled_from([0.0, 0.3, 0.7]), st.sampled_from([0.0, 0.5, 1.0]))
def test_bounds_and_mixture(case, alpha, lam):
    """Values lie in [0, 1]; the value is linear in λ between the λ = 0 value and S-recall;
    geom <= micro (weighted AM-GM, up to the 1e-5 floor)."""
    grades, ranking = case
    with tempfile.TemporaryDirectory() as directory:
        qrels = Path(directory) / "q"
        run = Path(directory) / "r"
        qrels.write_text(
            "".join(f"1 {s} {d} {g}\n" for s, col in enumerate(grades) for d, g in enumerate(col))
        )
        run.write_text("".join(f"1 Q0 {d} {i} {50 - i} r\n" for i, d in enumerate(ranking, 1)))
        try:
            read_qrels(str(qrels))
        except Exception:
            return
        names = []
        for kind in ("nDCG", "ERR", "RBP"):
            for avg in ("micro", "geom", "smr", "cascade"):
                names.append(f"alpha#-{kind}-IA(alpha={alpha},lambda={lam},avg={avg})@5")
                names.append(f"alpha#-{kind}-IA(alpha={alpha},lambda=0,avg={avg})@5")
        names.append("strec@5")
        got = values(qrels, run, names)
    if "1" not in got["strec@5"]:
        return
    recall = got["strec@5"]["1"]
    for kind in ("nDCG", "ERR", "RBP"):
        for avg in ("micro", "geom", "smr", "cascade"):
            full = got[
                parse_measures([f"alpha#-{kind}-IA(alpha={alpha},lambda={lam},avg={avg})@5"])[
                    0
                ].name
            ]["1"]
            zero = got[
                parse_measures([f"alpha#-{kind}-IA(alpha={alpha},lambda=0,avg={avg})@5"])[0].name
            ]["1"]
            assert -1e-12 <= full <= 1 + 1e-12
            assert full == pytest.approx(lam * recall + (1 - lam) * zero, abs=1e-12)
        micro = got[parse_measures([f"alpha#-{kind}-IA(alpha={alpha},lambda=0)@5"])[0].name]
        geom = got[parse_measures([f"alpha#-{kind}-IA(alpha={alpha},lambda=0,avg=geom)@5"])[0].name]
        assert geom["1"] <= micro["1"] + 1e-5
