"""The NTCIR diversity family (divaeval.metrics.families.ntcir) against hand-worked examples,
NTCIREVAL 190111's values (tests/fixtures, see ORACLES-README.md §5, §8, §9.3, §9.7–9.9) and
properties.

Oracle inputs are read the way a user would: the TREC qrels and topics XML directly (grade
g > 0 → gain g, 0 and −2 → 0, intents = subtopics with a relevant document, uniform
probabilities, types from the XML), and NTCIREVAL's own Dqrels + DINprob for ``ntcir_ex``.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import FIXTURES, TREC2012, TREC2012_RUNS, examples

from divaeval.errors import UsageError
from divaeval.io import read_intents, read_qrels, read_run, read_topic_types
from divaeval.judged import QrelsIndex, judge_run
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings

SMALL = FIXTURES / "small"


def _index(qrels, intents=None, topics=None) -> QrelsIndex:
    return QrelsIndex(
        read_qrels(str(qrels)),
        intents=read_intents(str(intents)) if intents else None,
        topic_types=read_topic_types(str(topics)) if topics else None,
    )


def scores(index, run, measures, *, order="score", compat=None, complete=True) -> dict:
    """{(topic, measure name): value} for one run."""
    jr = judge_run(
        read_run(str(run)), index, Settings(order=order, compat=compat, complete=complete)
    )
    parsed = parse_measures(measures)
    values = compute_measures(jr, parsed)
    return {(str(t), m.name): float(values[m][i]) for m in parsed for i, t in enumerate(jr.topics)}


def _write(directory: str, name: str, lines: list[str]) -> str:
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# reference/ntcireval.md §10: RUNA on example.Dqrels / example.DINprob, cutoff 5


@pytest.fixture(scope="module")
def example() -> dict:
    d = SMALL / "ntcir_ex"
    index = _index(d / "example.Dqrels", intents=d / "example.DINprob")
    measures = ["ntcir@5", "EfP@5", "P+@5", "nERR@5", "jk-nDCG@5", "Q"]
    return scores(index, d / "RUNA", measures, order="file")


DISC = [1.0, 0.6309297535714574, 0.5, 0.43067655807339306, 0.38685280723454163]  # 1/log2(r+1)


def test_example_topic_0101(example):
    v = {m: example[("0101", m)] for _, m in example if _ == "0101"}
    # GG: d5 = .5·3 = 1.5, d1 = .5·2 + .3·1 = 1.3, d3 = .3·3 = .9, d7 = .3·2 = .6, d2 = .5·1 = .5,
    # d4 = .2·2 = .4; ideal [1.5, 1.3, .9, .6, .5, .4], R = 6.
    # Top 5: d1 d3 d8 (unjudged) d4 d6 (L0) -> gains [1.3, .9, 0, .4, 0].
    dcg = 1.3 * DISC[0] + 0.9 * DISC[1] + 0.4 * DISC[3]  # 2.0401074014
    idcg = 1.5 + 1.3 * DISC[1] + 0.9 * DISC[2] + 0.6 * DISC[3] + 0.5 * DISC[4]  # 3.2220410181
    assert v["D-nDCG@5"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert v["D-nDCG@5"] == pytest.approx(0.6331723866892409, abs=1e-12)
    # I-rec@5: d1 covers intents 1, 2; d3 covers 2; d4 covers 3 -> 3/3.
    assert v["I-rec@5"] == 1.0
    # D#-nDCG@5 = .5·1 + .5·0.6331723867
    assert v["D#-nDCG@5"] == pytest.approx(0.5 + 0.5 * dcg / idcg, abs=1e-12)
    # D-Q@5: relevant ranks 1, 2, 4; CG = 1.3, 2.2, 2.6; CG* = 1.5, 2.8, 4.3; count 1, 2, 3:
    # BR = 2.3/2.5, 4.2/4.8, 5.6/8.3 -> sum / min(5, 6).
    d_q = (2.3 / 2.5 + 4.2 / 4.8 + 5.6 / 8.3) / 5
    assert v["D-Q@5"] == pytest.approx(d_q, abs=1e-12)  # 0.4939397590
    assert v["D#-Q@5"] == pytest.approx(0.5 + 0.5 * d_q, abs=1e-12)
    # DIN: d1 = .5·2 (inf) + .3·1 (nav 2, first) = 1.3; d3 only nav 2, already seen -> 0;
    # d4 = .4. Gains [1.3, 0, 0, .4, 0] against the same ideal.
    assert v["DIN-nDCG@5"] == pytest.approx((1.3 + 0.4 * DISC[3]) / idcg, abs=1e-12)
    # DIN-Q@5: relevant ranks 1 and 4: BR(1) = 2.3/2.5, BR(4) = (1.7 + 2)/(4.3 + 4).
    din_q = (2.3 / 2.5 + 3.7 / 8.3) / 5  # 0.2731566265
    assert v["DIN-Q@5"] == pytest.approx(din_q, abs=1e-12)
    assert v["DIN#-Q@5"] == pytest.approx(0.5 + 0.5 * din_q, abs=1e-12)
    # P+Q@5: i1 (inf .5) ideal [3, 2, 1]: only d1 (2) at rank 1: BR = 3/4; Q = .75/3 = .25.
    # i2 (nav .3) ideal [3, 2, 1], gains [1, 3, 0, 0, 0]: rp = 2; BR(1) = 2/4, BR(2) = 6/7;
    # P+ = (.5 + 6/7)/2. i3 (inf .2) ideal [2]: d4 (2) at rank 4: BR = 3/6; Q = .5/1.
    p_plus_q = 0.5 * 0.25 + 0.3 * (0.5 + 6 / 7) / 2 + 0.2 * 0.5
    assert v["P+Q@5"] == pytest.approx(p_plus_q, abs=1e-12)  # 0.4285714286
    assert v["P+Q#@5"] == pytest.approx(0.5 + 0.5 * p_plus_q, abs=1e-12)
    # EfP@5: d1 effective, d3 (nav 2 satisfied) not, d8 no, d4 effective, d6 no -> 2/5.
    assert v["EfP@5"] == pytest.approx(0.4)
    # gcompute lines of the .Dnev file (spec §10.2): P-plus = BR(1) (rp = 1: 1.3 is the
    # largest system gain); nERR with π = G/2.5: ERR = .52 + .36·.48/2 + .16·.48·.64/4.
    assert v["P+@5"] == pytest.approx(0.92, abs=1e-12)
    assert v["nERR@5"] == pytest.approx(0.8382, abs=5e-5)
    # J-K nDCG@5 (b = 2): (1.3 + .9 + .4/2) / (1.5 + 1.3 + .9/log2 3 + .6/2 + .5/log2 5)
    jk = (1.3 + 0.9 + 0.4 / 2) / (1.5 + 1.3 + 0.9 / math.log2(3) + 0.6 / 2 + 0.5 / math.log2(5))
    assert v["jk-nDCG@5"] == pytest.approx(jk, abs=1e-12)  # 0.6181


def test_example_topic_0102(example):
    v = {m: example[("0102", m)] for _, m in example if _ == "0102"}
    # GG: e1 = .6·3 = 1.8, e2 = .6·1 + .3·2 = 1.2, e5 = .3·3 = .9, e4 = .1·4 = .4,
    # e3 = .3·1 = .3; ideal [1.8, 1.2, .9, .4, .3]. Top 5: e2 1.2, e1 1.8, e6 0, e3 .3, e9 0.
    dcg = 1.2 + 1.8 * DISC[1] + 0.3 * DISC[3]  # 2.4648765239
    idcg = 1.8 + 1.2 * DISC[1] + 0.9 * DISC[2] + 0.4 * DISC[3] + 0.3 * DISC[4]  # 3.2954421697
    assert v["D-nDCG@5"] == pytest.approx(dcg / idcg, abs=1e-12)  # 0.7479653403
    # I-rec@5: intent 3's only document e4 is at rank 6 -> 2/3.
    assert v["I-rec@5"] == pytest.approx(2 / 3, abs=1e-15)
    assert v["D#-nDCG@5"] == pytest.approx(0.5 * 2 / 3 + 0.5 * dcg / idcg, abs=1e-12)
    # D-Q@5: BR(1) = 2.2/2.8, BR(2) = 5.0/5.0, BR(4) = 6.3/8.3 -> / 5.
    assert v["D-Q@5"] == pytest.approx((2.2 / 2.8 + 1 + 6.3 / 8.3) / 5, abs=1e-12)
    # DIN: e1 is relevant only to nav intent 1, which e2 already satisfied -> 0.
    assert v["DIN-nDCG@5"] == pytest.approx((1.2 + 0.3 * DISC[3]) / idcg, abs=1e-12)
    assert v["DIN-Q@5"] == pytest.approx((2.2 / 2.8 + 3.5 / 8.3) / 5, abs=1e-12)
    # P+Q@5: i1 (nav .6) ideal [3, 1], gains [1, 3]: rp = 2, BR = 2/4, 6/6 -> P+ = .75;
    # i2 (inf .3) ideal [3, 2, 1], gains [2, 0, 0, 1, 0]: BR(1) = 3/4, BR(4) = 5/10 ->
    # Q = 1.25/3; i3 (inf .1): nothing retrieved -> 0.
    assert v["P+Q@5"] == pytest.approx(0.6 * 0.75 + 0.3 * 1.25 / 3, abs=1e-12)  # 0.575
    assert v["P+Q#@5"] == pytest.approx(0.5 * 2 / 3 + 0.5 * 0.575, abs=1e-12)
    assert v["EfP@5"] == pytest.approx(0.4)


# ---------------------------------------------------------------------------------------------
# Sakai WWW 2012, Figure 1: one informational intent i and one navigational intent j


def _figure1(directory: str, j_at_rank2: str = "1") -> tuple[QrelsIndex, str]:
    """rank 1: L1 for i; rank 2: L3 for i and L<j_at_rank2> for j; rank 3: non-relevant;
    rank 4: L3 for j; rank 5: L1 for i. P(i) = P(j) = .5."""
    qrels = _write(
        directory,
        "fig1.qrels",
        [
            "1 i d1 1 inf",
            "1 i d2 3 inf",
            f"1 j d2 {j_at_rank2} nav",
            "1 i d3 0 inf",
            "1 j d4 3 nav",
            "1 i d5 1 inf",
        ],
    )
    run = _write(directory, "fig1.run", [f"1 Q0 d{r} {r} {10 - r} fig1" for r in range(1, 6)])
    return QrelsIndex(read_qrels(qrels)), run


def test_sakai_figure1_din_and_pplusq(tmp_path):
    index, run = _figure1(str(tmp_path))
    v = scores(index, run, ["ntcir@5", "EfP@5"])
    v = {m: value for (_, m), value in v.items()}
    # GG: d1 = .5·1 = .5, d2 = .5·3 + .5·1 = 2, d3 = 0, d4 = .5·3 = 1.5, d5 = .5;
    # ideal [2, 1.5, .5, .5], R = 4. System gains [.5, 2, 0, 1.5, .5].
    idcg = 2 + 1.5 * DISC[1] + 0.5 * DISC[2] + 0.5 * DISC[3]
    assert v["D-nDCG@5"] == pytest.approx(
        (0.5 + 2 * DISC[1] + 1.5 * DISC[3] + 0.5 * DISC[4]) / idcg, abs=1e-12
    )  # 0.7624573250
    # DIN: rank 4 is relevant only to j, which rank 2 already satisfied -> gains
    # [.5, 2, 0, 0, .5].
    assert v["DIN-nDCG@5"] == pytest.approx((0.5 + 2 * DISC[1] + 0.5 * DISC[4]) / idcg, abs=1e-12)
    # DIN-Q@5: relevant ranks 1, 2, 5; CG = .5, 2.5, 3; CG* = 2, 3.5, 4.5; count 1, 2, 3:
    # BR = 1.5/3, 4.5/5.5, 6/9.5 -> / min(5, 4).
    assert v["DIN-Q@5"] == pytest.approx((0.5 + 4.5 / 5.5 + 6 / 9.5) / 4, abs=1e-12)
    # D-Q@5 for comparison: ranks 1, 2, 4, 5: BR(4) = (4 + 3)/(4.5 + 4), BR(5) = 8.5/9.5.
    assert v["D-Q@5"] == pytest.approx((0.5 + 4.5 / 5.5 + 7 / 8.5 + 8.5 / 9.5) / 4, abs=1e-12)
    # P+Q: i (inf): gains [1, 3, 0, 0, 1], ideal [3, 1, 1]: BR(1) = 2/4, BR(2) = 6/6,
    # BR(5) = 8/10 -> Q_i = 2.3/3. j (nav): gains [0, 1, 0, 3, 0], ideal [3, 1]: the largest
    # gain L3 is first at rank 4 -> rp = 4 (not 2); BR(2) = 2/6, BR(4) = 6/8 ->
    # P+_j = (1/3 + 3/4)/2, the same as Q_j here (the paper's remark).
    q_i = (0.5 + 1 + 0.8) / 3
    p_j = (1 / 3 + 0.75) / 2
    assert v["P+Q@5"] == pytest.approx(0.5 * q_i + 0.5 * p_j, abs=1e-12)  # 0.6541666667
    assert v["I-rec@5"] == 1.0
    # EfP: ranks 1, 2, 5 effectively relevant; rank 4 is a redundant nav document -> 3/5
    # (the paper's text says "3/5 = 0.8"; 3/5 is 0.6).
    assert v["EfP@5"] == pytest.approx(0.6)


def test_sakai_figure1_variant_pplus_below_q(tmp_path):
    # "if the document at rank 2 was L3 relevant for j, then the document at rank 4 would be
    # ignored and P+Q would be less than Q-IA": j's gains [0, 3, 0, 3, 0], ideal [3, 3];
    # rp = 2: P+_j = BR(2) = (3 + 1)/(6 + 2) = .5 < Q_j = (.5 + BR(4) = 8/10)/2 = .65.
    index, run = _figure1(str(tmp_path), j_at_rank2="3")
    v = scores(index, run, ["P+Q@5"])
    q_i = (0.5 + 1 + 0.8) / 3  # unchanged: i's gains and ideal are the same
    assert v[("1", "P+Q@5")] == pytest.approx(0.5 * q_i + 0.5 * 0.5, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# NTCIREVAL oracles


def _oracle(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def _compare(index, runs: dict, directory: Path, cutoffs: str, order: str) -> dict:
    """Checks native values against ntcireval_full (1e-9) and ntcireval_printed (1.5e-4), and
    --compat ntcireval against the printed strings exactly. Returns counts and max diffs."""
    suffix = ".gz" if (directory / "ntcireval_full.tsv.gz").exists() else ""
    full = _oracle(directory / f"ntcireval_full.tsv{suffix}")
    printed = _oracle(directory / f"ntcireval_printed.tsv{suffix}")
    stats = {"n": 0, "full": 0.0, "printed": 0.0}
    for name, run in runs.items():
        native = scores(index, run, [f"ntcir@{cutoffs}"], order=order)
        compat = scores(index, run, [f"ntcir@{cutoffs}"], order=order, compat="ntcireval")
        want_full = full[full["run"] == name]
        want_printed = printed[printed["run"] == name]
        assert len(want_full) and len(want_full) == len(want_printed)
        for row in want_full.itertuples():
            got = native[(row.topic, row.measure)]
            diff = abs(got - float(row.value))
            assert diff <= 1e-9, (name, row.topic, row.measure, got, row.value)
            stats["full"] = max(stats["full"], diff)
            stats["n"] += 1
        for row in want_printed.itertuples():
            key = (row.topic, row.measure)
            diff = abs(native[key] - float(row.value))
            assert diff <= 1.5e-4, (name, *key, native[key], row.value)
            stats["printed"] = max(stats["printed"], diff)
            assert f"{compat[key]:.4f}" == row.value, (name, *key, compat[key], row.value)
    return stats


def test_oracle_ntcir_ex_native_files():
    d = SMALL / "ntcir_ex"
    index = _index(d / "example.Dqrels", intents=d / "example.DINprob")
    stats = _compare(index, {"RUNA": d / "RUNA"}, d, "5,10", "file")
    assert stats["n"] == 44


@pytest.mark.parametrize(
    ("case", "qrels", "runs", "native"),
    [
        ("ndeval_ex", "qrels.div.txt", {"runA": "runA.txt", "runB": "runB.txt"}, "qrels.div"),
        ("ref_ex", "div.qrels", {r: r for r in ("runA", "runB", "runC")}, "div"),
        ("edge", "edge.qrels", {r: f"{r}.txt" for r in ("edge_run1", "edge_run2")}, "edge"),
    ],
)
def test_oracle_small_cases(case, qrels, runs, native):
    d = SMALL / case
    paths = {name: d / file for name, file in runs.items()}
    # the TREC files read directly (conversion rules of ORACLES-README §8) ...
    trec = _index(d / qrels, topics=d / "topics.xml")
    assert _compare(trec, paths, d, "5,10", "score")["n"] > 0
    # ... and the converted NTCIREVAL files
    ntcir = _index(d / f"{native}.Dqrels", intents=d / f"{native}.DINprob")
    assert _compare(ntcir, paths, d, "5,10", "score")["n"] > 0


def test_oracle_trec2012():
    index = _index(TREC2012 / "qrels.diversity.txt.gz", topics=TREC2012 / "full-topics.xml")
    runs = dict(TREC2012_RUNS)
    stats = _compare(index, runs, FIXTURES / "trec2012-ntcir", "10,20", "score")
    assert stats["n"] == 9 * 50 * 22
    assert stats["printed"] > 5e-5  # the oracle really carries NTCIREVAL's rounding


def test_irec_equals_strec_on_trec2012():
    index = _index(TREC2012 / "qrels.diversity.txt.gz", topics=TREC2012 / "full-topics.xml")
    v = scores(index, TREC2012 / "ql-cata.txt.gz", ["I-rec@5,20", "strec@5,20"])
    for (topic, name), value in v.items():
        if name.startswith("I-rec"):
            assert value == v[(topic, name.replace("I-rec", "strec"))]


# ---------------------------------------------------------------------------------------------
# gains, parameters, names


def test_gain_mappings_and_parser():
    d = SMALL / "ntcir_ex"
    index = _index(d / "example.Dqrels", intents=d / "example.DINprob")
    run = d / "RUNA"
    exp = scores(index, run, ["D-nDCG(gain=exp)@5", "P+Q(gain=exp)@5"], order="file")
    mapped = scores(
        index,
        run,
        ["D-nDCG(gains=1:1,2:3,3:7,4:15)@5", "P+Q(gains=1:1;2:3;3:7;4:15)@5"],
        order="file",
    )
    assert list(exp.values()) == pytest.approx(list(mapped.values()), abs=1e-15)
    # 0101 with exp gains: GG d5 = .5·7 = 3.5, d1 = .5·3 + .3·1 = 1.8, d3 = .3·7 = 2.1,
    # d7 = .3·3 = .9, d2 = .5, d4 = .2·3 = .6 -> ideal [3.5, 2.1, 1.8, .9, .6, .5]
    dcg = 1.8 + 2.1 * DISC[1] + 0.6 * DISC[3]
    idcg = 3.5 + 2.1 * DISC[1] + 1.8 * DISC[2] + 0.9 * DISC[3] + 0.6 * DISC[4]
    assert exp[("0101", "D-nDCG(gain=exp)@5")] == pytest.approx(dcg / idcg, abs=1e-12)
    with pytest.raises(UsageError, match="grade 4"):
        scores(index, run, ["D-nDCG(gains=1:1,2:3,3:7)@5"], order="file")
    with pytest.raises(UsageError):
        parse_measures(["D-nDCG(gain=exp,gains=1:1)@5"])  # parses; fails when computed
        scores(index, run, ["D-nDCG(gain=exp,gains=1:1)@5"], order="file")
    for text in ("D-nDCG(gains=1:1,2:3,3:7)@10", "D#-Q(beta=2,gamma=0.3)@5", "P+Q#(gain=exp)@10"):
        parsed = parse_measures([text])
        assert [m.name for m in parsed] == [text]


def test_names_aliases_and_preset():
    expected = {
        "dsharp-ndcg": "D#-nDCG",
        "d#ndcg": "D#-nDCG",
        "msndcg": "D-nDCG",
        "pplusq": "P+Q",
        "pplusq#": "P+Q#",
        "dinsharp-q": "DIN#-Q",
        "irec": "I-rec",
        "q-measure": "Q",
        "p-plus": "P+",
    }
    for alias, name in expected.items():
        assert parse_measures([alias + "@10"])[0].spec.name == name
    preset = [m.name for m in parse_measures(["ntcir@10,20"])]
    assert len(preset) == 22
    assert preset[:3] == ["I-rec@10", "I-rec@20", "D-nDCG@10"]
    assert parse_measures(["I-rec@10"])[0].spec is not parse_measures(["strec@10"])[0].spec


def test_compat_combines_printed_values():
    # spec §8: P+Q# of 0102 = .5·0.6667 + .5·0.5750 = 0.62085 -> printed 0.6208
    d = SMALL / "ntcir_ex"
    index = _index(d / "example.Dqrels", intents=d / "example.DINprob")
    v = scores(index, d / "RUNA", ["P+Q#@5"], order="file", compat="ntcireval")
    assert f"{v[('0102', 'P+Q#@5')]:.4f}" == "0.6208"


# ---------------------------------------------------------------------------------------------
# properties


@st.composite
def topics(draw, max_intents: int = 4, one_inf_intent: bool = False):
    """A qrels topic (intents × pool documents with grades in {−2, 0, 1, 2, 3}, random types)
    and a run over pool and unjudged documents."""
    n_intents = 1 if one_inf_intent else draw(st.integers(1, max_intents))
    n_docs = draw(st.integers(1, 8))
    grades = draw(
        st.lists(
            st.lists(st.sampled_from([-2, 0, 0, 1, 2, 3]), min_size=n_docs, max_size=n_docs),
            min_size=n_intents,
            max_size=n_intents,
        )
    )
    nav = (
        [False] * n_intents
        if one_inf_intent
        else draw(st.lists(st.booleans(), min_size=n_intents, max_size=n_intents))
    )
    docs = [f"d{i}" for i in range(n_docs)] + ["u1", "u2"]
    run = draw(st.permutations(docs))[: draw(st.integers(0, len(docs)))]
    return grades, nav, run


def _topic_files(directory: str, grades, nav, run) -> tuple[QrelsIndex, str]:
    lines = [
        f"1 {s + 1} d{i} {g} {'nav' if nav[s] else 'inf'}"
        for s, row in enumerate(grades)
        for i, g in enumerate(row)
    ]
    qrels = _write(directory, "q.qrels", lines)
    run_lines = [f"1 Q0 {doc} {r + 1} {100 - r} R" for r, doc in enumerate(run)] or ["2 Q0 x 1 1 R"]
    run_path = _write(directory, "r.run", run_lines)
    return QrelsIndex(read_qrels(qrels)), run_path


def _evaluate_topic(topic, measures):
    with tempfile.TemporaryDirectory() as directory:
        index, run = _topic_files(directory, *topic)
        return {m: v for (_, m), v in scores(index, run, measures).items()}


CUTS = "1,2,3,5,10"


@settings(max_examples=examples(24), deadline=None)
@given(topics())
def test_property_bounds_and_din_below_d(topic):
    v = _evaluate_topic(topic, [f"ntcir@{CUTS}", f"EfP@{CUTS}"])
    for k in CUTS.split(","):
        assert -1e-12 <= v[f"D-nDCG@{k}"] <= 1 + 1e-12
        assert -1e-12 <= v[f"D-Q@{k}"] <= 1 + 1e-12
        assert v[f"DIN-nDCG@{k}"] <= v[f"D-nDCG@{k}"] + 1e-12
        assert v[f"DIN-Q@{k}"] <= v[f"D-Q@{k}"] + 1e-12
        assert 0 <= v[f"P+Q@{k}"] <= 1 + 1e-12
        assert 0 <= v[f"EfP@{k}"] <= 1
    recall = [v[f"I-rec@{k}"] for k in CUTS.split(",")]
    assert recall == sorted(recall)  # I-rec is monotone in k
    assert all(0 <= r <= 1 for r in recall)


def _reference_ndcg(grades: list[int], run: list[str], k: int) -> float:
    """Sakai's Eq. 1 for one intent, written out per document."""
    gain = {f"d{i}": max(g, 0) for i, g in enumerate(grades)}
    system = [gain.get(doc, 0) for doc in run[:k]]
    ideal = sorted((g for g in gain.values() if g > 0), reverse=True)[:k]
    dcg = sum(g / math.log2(r + 2) for r, g in enumerate(system))
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


@settings(max_examples=examples(24), deadline=None)
@given(topics(one_inf_intent=True))
def test_property_one_informational_intent(topic):
    grades, _, run = topic
    v = _evaluate_topic(topic, [f"D-nDCG@{CUTS}", f"DIN-nDCG@{CUTS}", f"D-Q@{CUTS}", f"P+Q@{CUTS}"])
    for k in map(int, CUTS.split(",")):
        assert v[f"D-nDCG@{k}"] == pytest.approx(_reference_ndcg(grades[0], run, k), abs=1e-12)
        assert v[f"DIN-nDCG@{k}"] == v[f"D-nDCG@{k}"]
        assert v[f"P+Q@{k}"] == pytest.approx(v[f"D-Q@{k}"], abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Golbus et al. 2013's D-ERR, D-RBP and their # forms (Table 4 discounts on global gains)


def test_golbus_d_err_and_d_rbp_hand_worked():
    """RUNA topic 0101 (see test_example_topic_0101): top-5 global gains [1.3, .9, 0, .4, 0],
    ideal [1.5, 1.3, .9, .6, .5]; I-rec@5 = 1.
    D-ERR@5 (1/r): (1.3 + .9/2 + .4/4) / (1.5 + 1.3/2 + .9/3 + .6/4 + .5/5) = 1.85/2.7.
    D-RBP@5 (β^{r−1}, β = .8): (1.3 + .9·.8 + .4·.512) / (1.5 + 1.3·.8 + .9·.64 + .6·.512 +
    .5·.4096) = 2.2248/3.628; β = .5: (1.3 + .45 + .4·.125) / (1.5 + .65 + .225 + .075 +
    .03125) = 1.8/2.48125."""
    d = SMALL / "ntcir_ex"
    index = _index(d / "example.Dqrels", intents=d / "example.DINprob")
    measures = ["D-ERR@5", "D#-ERR@5", "D-RBP@5", "D#-RBP@5", "D-RBP(beta=0.5)@5"]
    measures += ["D#-RBP(beta=0.5,gamma=0.2)@5"]
    got = scores(index, d / "RUNA", measures, order="file")
    v = {m: got[("0101", m)] for m in (p.name for p in parse_measures(measures))}
    assert v["D-ERR@5"] == pytest.approx(1.85 / 2.7, abs=1e-12)  # 0.685185
    assert v["D#-ERR@5"] == pytest.approx(0.5 + 0.5 * 1.85 / 2.7, abs=1e-12)
    assert v["D-RBP@5"] == pytest.approx(2.2248 / 3.628, abs=1e-12)  # 0.613230
    assert v["D#-RBP@5"] == pytest.approx(0.5 + 0.5 * 2.2248 / 3.628, abs=1e-12)
    assert v["D-RBP(beta=0.5)@5"] == pytest.approx(1.8 / 2.48125, abs=1e-12)  # 0.725441
    assert v["D#-RBP(beta=0.5,gamma=0.2)@5"] == pytest.approx(0.2 + 0.8 * 1.8 / 2.48125, abs=1e-12)


def test_golbus_d_err_small_example():
    """other-metrics.md §13 runA topic 1, uniform w = 1/3, gain = grade: GG d1 = d3 = d4 = d5
    = 1/3, d2 = 1, d7 = 2/3. Top 5 d1 d2 d3 d9 d4: [1/3, 1, 1/3, 0, 1/3]; ideal d2 d7 then
    1/3s: [1, 2/3, 1/3, 1/3, 1/3]. D-ERR@5 = (1/3 + 1/2 + 1/9 + 1/15) / (1 + 1/3 + 1/9 + 1/12
    + 1/15) = (91/90)/(287/180) = 26/41; D#-ERR@5 = (1 + 26/41)/2 (S-recall@5 = 1)."""
    index = _index(SMALL / "ref_ex" / "div.qrels")
    got = scores(index, SMALL / "ref_ex" / "runA", ["D-ERR@5", "D#-ERR@5"])
    assert got[("1", "D-ERR@5")] == pytest.approx(26 / 41, abs=1e-12)
    assert got[("1", "D#-ERR@5")] == pytest.approx((1 + 26 / 41) / 2, abs=1e-12)
    assert got[("2", "D-ERR@5")] == 1.0  # e1 e3 e2: GG 1/2 each, any order is ideal


@settings(max_examples=examples(24), deadline=None)
@given(topics(), st.sampled_from([0.0, 0.3, 1.0]))
def test_property_golbus_d_measures(topic, gamma):
    """Bounds; γ = 1 gives I-rec, γ = 0 the D-measure; D-RBP with β = 1 (no discount) is the
    cumulated global gain over the ideal's; the ideal order scores 1 on every discount."""
    grades, nav, run = topic
    cuts = CUTS.split(",")
    names = [f"D-ERR@{CUTS}", f"D-RBP@{CUTS}", f"D-RBP(beta=1)@{CUTS}", f"I-rec@{CUTS}"]
    names += [f"D#-ERR(gamma={gamma})@{CUTS}", f"D#-RBP(gamma={gamma})@{CUTS}"]
    v = _evaluate_topic(topic, names)
    sharp = "" if gamma == 0.5 else f"(gamma={gamma:g})"
    for k in cuts:
        for base in ("D-ERR", "D-RBP"):
            d, combined = v[f"{base}@{k}"], v[f"{base.replace('-', '#-')}{sharp}@{k}"]
            assert -1e-12 <= d <= 1 + 1e-12
            assert combined == pytest.approx(gamma * v[f"I-rec@{k}"] + (1 - gamma) * d, abs=1e-12)
    weights = np.ones(len(grades)) / max(sum(any(g > 0 for g in row) for row in grades), 1)
    gain = {
        f"d{i}": sum(w * max(row[i], 0) for w, row in zip(weights, grades, strict=True))
        for i in range(len(grades[0]))
    }
    ideal = sorted((g for g in gain.values() if g > 0), reverse=True)
    for k in map(int, cuts):
        total = sum(gain.get(doc, 0.0) for doc in run[:k])
        best = sum(ideal[:k])
        expected = total / best if best > 0 else 0.0
        assert v[f"D-RBP(beta=1)@{k}"] == pytest.approx(expected, abs=1e-12)
    ideal_run = sorted((doc for doc in gain if gain[doc] > 0), key=lambda d: -gain[d])
    best = _evaluate_topic((grades, nav, ideal_run), [f"D-ERR@{CUTS}", f"D-RBP@{CUTS}"])
    if ideal_run:
        assert all(x == pytest.approx(1.0, abs=1e-12) for x in best.values())


def test_vectorised_over_topics_matches_one_topic_at_a_time():
    index = _index(TREC2012 / "qrels.diversity.txt.gz", topics=TREC2012 / "full-topics.xml")
    run = read_run(str(TREC2012 / "rm-catb.txt.gz"))
    jr = judge_run(run, index, Settings())
    measures = parse_measures(["ntcir@10", "EfP@10", "P+@10", "nERR@10", "jk-nDCG@10"])
    together = compute_measures(jr, measures)
    for i in (0, 17, 49):
        part = jr.material.take(np.array([i]))
        single = type(jr)(
            run_name=jr.run_name,
            material=part,
            grades=jr.grades[i : i + 1],
            judged=jr.judged[i : i + 1],
            length=jr.length[i : i + 1],
            in_run=jr.in_run[i : i + 1],
            settings=jr.settings,
        )
        alone = compute_measures(single, measures)
        for m in measures:
            assert alone[m][0] == pytest.approx(together[m][i], abs=1e-15)


# ---------------------------------------------------------------------------------------------
# --format ntcir


def test_ntcir_format_reproduces_ntcireval_output():
    import io

    from divaeval.evaluation import run_evaluation
    from divaeval.report import ReportOptions, write_report

    d = SMALL / "ntcir_ex"
    result = run_evaluation(
        [str(d / "RUNA")],
        str(d / "example.Dqrels"),
        ["ntcir@5"],
        settings=Settings(order="file", compat="ntcireval", intents=str(d / "example.DINprob")),
    )
    out = io.StringIO()
    write_report(result, out, ReportOptions(format="ntcir", per_topic=True))
    lines = out.getvalue().splitlines()
    # spec §7.1 spacing: "<Name>=" padded to 21 characters, then %.4f
    assert "0101 D#-nDCG@0005=        0.8166" in lines
    assert "0101 I-rec@0005=          1.0000" in lines
    assert "0102 PplusQ#@0005=        0.6208" in lines
    # NEV2mean's means from the printed values (spec §10.4): 0.8334, not 0.8333
    assert "RUNA I-rec@0005=          0.8334" in lines
    assert "RUNA DIN#-nDCG@0005=      0.6318" in lines
    assert len(lines) == 3 * 11


# ---------------------------------------------------------------------------------------------
# intents: reference/ntcireval.md §10.5 (topic 0201) and the warnings


def test_topic_0201_intent_without_relevant_documents(collected_warnings, tmp_path):

    d = str(tmp_path)
    # intent 3 (inf, .2) has no judged document at all; the file sums to 1.
    prob = _write(d, "x.DINprob", ["0201 1 0.5 nav", "0201 2 0.3 inf", "0201 3 0.2 inf"])
    qrels = _write(
        d,
        "x.Dqrels",
        ["0201 1 a1 L1", "0201 1 a2 L2", "0201 2 a2 L1", "0201 2 a3 L2", "0201 0 a4 L0"],
    )
    run = _write(d, "x.run", ["0201 Q0 a3 1 3 R", "0201 Q0 a1 2 2 R", "0201 Q0 a2 3 1 R"])
    index = QrelsIndex(read_qrels(qrels), intents=read_intents(prob))
    v = scores(index, run, ["ntcir@5"], order="file")
    compat = scores(index, run, ["P+Q@5"], order="file", compat="ntcireval")
    assert any("intent 3 of topic 0201" in m for m in collected_warnings)
    assert not any("sum to 1" in m for m in collected_warnings)  # the file's probabilities sum to 1
    v = {m: value for (_, m), value in v.items()}
    # GG: a2 = .5·2 + .3·1 = 1.3, a3 = .3·2 = .6, a1 = .5·1 = .5; run a3 a1 a2.
    dcg = 0.6 + 0.5 * DISC[1] + 1.3 * DISC[2]
    idcg = 1.3 + 0.6 * DISC[1] + 0.5 * DISC[2]
    assert v["D-nDCG@5"] == pytest.approx(dcg / idcg, abs=1e-12)  # 0.8117
    # DIN: a3 .6, a1 .5 (nav 1, first), a2 = 0 (nav 1 seen) + .3·1 -> .3
    assert v["DIN-nDCG@5"] == pytest.approx((0.6 + 0.5 * DISC[1] + 0.3 * DISC[2]) / idcg)
    assert v["I-rec@5"] == 1.0  # 2 of the 2 intents with relevant documents
    # P+Q: intent 1 (nav) gains [0, 1, 2], ideal [2, 1]: rp = 3, BR(2) = 2/5, BR(3) = 5/6;
    # intent 2 (inf) gains [2, 0, 1], ideal [2, 1]: Q = (1 + 5/6)/2; intent 3 skipped.
    p_1 = (2 / 5 + 5 / 6) / 2  # 0.6167
    q_2 = (1 + 5 / 6) / 2  # 0.9167
    assert v["P+Q@5"] == pytest.approx(0.5 * p_1 + 0.3 * q_2, abs=1e-12)  # 0.58333
    assert f"{compat[('0201', 'P+Q@5')]:.4f}" == "0.5834"  # NTCIREVAL: .5·.6167 + .3·.9167


def test_probabilities_not_summing_to_one(collected_warnings, tmp_path):

    d = str(tmp_path)
    qrels = _write(d, "q", ["1 1 a 1", "1 2 b 1"])
    prob = _write(d, "p", ["1 1 0.3", "1 2 0.3"])
    run = _write(d, "r", ["1 Q0 a 1 2 R", "1 Q0 b 2 1 R"])
    plain = scores(QrelsIndex(read_qrels(qrels), intents=read_intents(prob)), run, ["P+Q@2"])
    rescaled = scores(
        QrelsIndex(read_qrels(qrels), intents=read_intents(prob), normalize_intents=True),
        run,
        ["P+Q@2"],
    )
    assert sum("do not sum to 1" in m for m in collected_warnings) == 2
    # intent 1: a at rank 1, Q@2 = BR(1) = (1 + 1)/(1 + 1) = 1; intent 2: b at rank 2, ideal
    # [1]: BR(2) = (1 + 1)/(1 + 2), Q@2 = (2/3)/min(2, 1). As given: .3·1 + .3·2/3 = .5;
    # --normalize-intents: .5·1 + .5·2/3.
    assert plain[("1", "P+Q@2")] == pytest.approx(0.5, abs=1e-12)
    assert rescaled[("1", "P+Q@2")] == pytest.approx(0.5 + 1 / 3, abs=1e-12)


def test_ntcireval_labels_are_the_ntcir_familys():
    # -f ntcir relabels a measure by its name alone: every labelled name is the ntcir family's
    from divaeval.metrics import get_spec
    from divaeval.metrics.dialects import NTCIREVAL_LABELS

    assert {get_spec(name).family for name in NTCIREVAL_LABELS} == {"ntcir"}
