"""Hand-worked values and properties of the trec_eval and ir_measures measures added for
issue 10 (the oracle comparisons are in test_ir_measures_names.py and
test_trec_eval_outputs.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples, judge_text, measure_values

from divaeval.errors import UsageError
from divaeval.metrics import parse_measures

LOG2 = math.log2

# one topic: a=2, b=1, c=1 relevant; n1, n2 judged non-relevant; p = -1 (pooled, unjudged)
QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 1\n1 0 n1 0\n1 0 n2 0\n1 0 p -1\n"
RUN = "1 n1\n1 a\n1 x\n1 p\n1 b\n1 n2\n"  # ranks: n1 a x p b n2 (c not retrieved)


def values(measures, run=RUN, qrels=QRELS, **settings):
    jr = judge_text(qrels, run, **settings)
    return {k: float(v[0]) for k, v in measure_values(jr, measures).items()}


def test_counts_and_set_measures_by_hand():
    v = values(
        [
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "num_nonrel_judged_ret",
            "set_P",
            "set_recall",
            "set_map",
            "set_F",
            "set_relative_P",
            "utility",
        ]
    )
    # n = 6, R = 3, hits = 2 (a, b), judged non-relevant retrieved = n1, n2
    assert (v["num_ret"], v["num_rel"], v["num_rel_ret"]) == (6, 3, 2)
    assert v["num_nonrel_judged_ret"] == 2
    assert v["set_P"] == pytest.approx(2 / 6)
    assert v["set_recall"] == pytest.approx(2 / 3)
    assert v["set_map"] == pytest.approx(4 / 18)  # hits² / (n·R)
    assert v["set_F"] == pytest.approx(2 * (1 / 3) * (2 / 3) / (2 / 3 + 1 / 3))
    assert v["set_relative_P"] == pytest.approx(2 / 3)  # hits / min(n, R)
    assert v["utility"] == 2 - 4  # 1·rel_ret − 1·nonrel_ret


def test_bpref_and_infap_by_hand():
    v = values(["bpref", "infAP", "AP"])
    # bpref: R = 3, N = 2 judged non-relevant, min(R, N) = 2; a has 1 (n1) above, b has 1
    # (n1; x is unjudged, p pooled-unjudged): (1 − 1/2) + (1 − 1/2) = 1, / R = 1/3
    assert v["bpref"] == pytest.approx(1 / 3)
    # infAP: a at k=2: above = {n1} pooled 1, rel 0, nonrel 1:
    #   1/2 + (1/2)·(1/1)·(ε/(1 + 2ε)); b at k=5: above n1 a x p: pooled 3 (n1, a, p),
    #   rel 1, nonrel 1: 1/5 + (4/5)·(3/4)·((1 + ε)/(2 + 2ε)) = 1/5 + 0.3
    eps = 1e-5
    a_term = 0.5 + 0.5 * (eps / (1 + 2 * eps))
    b_term = 0.2 + 0.8 * (3 / 4) * ((1 + eps) / (2 + 2 * eps))
    assert v["infAP"] == pytest.approx((a_term + b_term) / 3, abs=1e-12)
    assert v["AP"] == pytest.approx((1 / 2 + 2 / 5) / 3)


def test_interpolated_precision_by_hand():
    v = values(["IPrec@0.3", "iprec_at_recall_0.30", "IPrec@0.7", "11pt_avg..5,.7"])
    # precision at the relevant ranks: a 1/2, b 2/5; R = 3
    # 0.3: v9 ⌊0.9 + 0.9⌋ = 1 relevant -> max(1/2, 2/5); v10 round(0.9) = 1 -> 1/2
    assert v["IPrec@0.3"] == v["iprec_at_recall_0.30"] == 0.5
    # 0.7 (v9): 0.7·3 + 0.9 is 2.9999999999999996 in binary, so ⌊·⌋ = 2 relevant (as in
    # trec_eval 9's C) -> 2/5
    assert v["IPrec@0.7"] == pytest.approx(0.4)
    # 11pt_avg (v10) at 0.5 (round(1.5) = 2 -> 2/5) and 0.7 (2/5)
    assert v["11pt_avg..5,.7"] == pytest.approx(0.4)


def test_gain_measures_by_hand():
    v = values(["binG", "G", "success.1,2", "Rprec_mult.1.0", "relative_P.2", "unj.2,6"])
    # binG: a has 1 non-relevant above, b has 3 (n1, x, p): (1/log2 3 + 1/log2 5) / 3
    assert v["binG"] == pytest.approx((1 / LOG2(3) + 1 / LOG2(5)) / 3)
    # G: ideal gains 2, 1, 1 then 1s: I = 2, 3, 4, 5, 6; C (with self) = 0, 2, 2, 2, 3
    # a at 2: 2/log2(2 + 3 − 2); b at 5: 1/log2(2 + 6 − 3); total gain 4
    assert v["G"] == pytest.approx((2 / LOG2(3) + 1 / LOG2(5)) / 4)
    assert (v["success_1"], v["success_2"]) == (0.0, 1.0)
    assert v["Rprec_mult.1.0"] == pytest.approx(1 / 3)  # P@3
    assert v["relative_P.2"] == 0.5
    assert v["unj_2"] == 0.0 and v["unj_6"] == pytest.approx(2 / 6)  # x and p


def test_judged_and_compat_by_hand():
    v = values(["Judged@3", "Judged", "Compat(normalize=False)", "Compat"])
    assert v["Judged@3"] == pytest.approx(2 / 3)  # n1, a judged; x not
    assert v["Judged"] == pytest.approx(5 / 6)  # p's line counts as judged
    # ideal a, b, c (grade, then run score: b above c); RBO over D = 6 with p = 0.95:
    # overlaps at depths 1..6 of (n1 a x p b n2) with (a b c): 0, 1, 1, 1, 2, 2
    p = 0.95
    overlap = [0, 1, 1, 1, 2, 2]
    weights = [p**d for d in range(6)]
    raw = sum(w * o / (d + 1) for d, (w, o) in enumerate(zip(weights, overlap, strict=True))) / sum(
        weights
    )
    best = [1, 2, 3, 3, 3, 3]
    ideal = sum(w * o / (d + 1) for d, (w, o) in enumerate(zip(weights, best, strict=True))) / sum(
        weights
    )
    assert v["Compat(normalize=False)"] == pytest.approx(raw, abs=1e-12)
    assert v["Compat"] == pytest.approx(raw / ideal, abs=1e-12)


def test_cwl_measures_by_hand():
    # binary gains (max_rel 1): ranks n1 a x p b n2: g = 0 1 0 0 1 0 (then 0 to rank 1000)
    v = values(["NERR8(max_rel=1)@3", "SDCG(max_rel=1)@2", "NERR10(max_rel=1,p=0.5)"])
    # NERR8@3: C = 1, 0 (1 − g), then 0: W ∝ 1, 1, 0 -> W = 1/2, 1/2 -> EU = 1/2
    assert v["NERR8(max_rel=1)@3"] == pytest.approx(0.5)
    # SDCG@2: weights 1, 1/log2 3 normalised; gain at rank 2
    assert v["SDCG(max_rel=1)@2"] == pytest.approx((1 / LOG2(3)) / (1 + 1 / LOG2(3)))
    # NERR10(p=0.5): C = 0.5, 0, ...: W ∝ 1, 0.5 -> gain at rank 2: 0.5 / 1.5
    assert v["NERR10(max_rel=1,p=0.5)"] == pytest.approx(1 / 3)


def test_summaries_sum_counts_and_take_geometric_means():
    from divaeval.scores import summary_of

    measures = parse_measures(["num_ret", "gm_map", "AP"])
    topic_values = np.array([0.5, 0.0, 0.2])
    assert summary_of(topic_values, measures[0], "arith", None) == pytest.approx(0.7)
    geometric = math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.2)) / 3)
    assert summary_of(topic_values, measures[1], "arith", None) == pytest.approx(geometric)
    assert summary_of(topic_values, measures[2], "arith", None) == pytest.approx(0.7 / 3)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=0, max_size=8),
    st.integers(0, 50),
    st.sampled_from(["arith", "geom"]),
    st.sampled_from([None, 5]),
    st.booleans(),
)
def test_means_of_a_run_are_each_measures_summary(
    special, n_random, how, denominator, integer_counts
):
    """means() sums the run's measures together (one stacked topic_sums): the same doubles as
    summary_of gives each alone, with counts summed (int64 ones too), gm_map geometric, and
    a risk run's denominator."""
    from divaeval.scores import RunScores, means, summary_of

    measures = parse_measures(["num_ret", "gm_map", "AP", "P.10", "num_rel"])
    rng = np.random.default_rng(n_random)
    values = special + rng.random(n_random).tolist()  # (random doubles: sums with rounding)
    n = len(values)
    columns = [np.array(values), np.abs(np.array(values)), rng.random(n), np.array(values[::-1]),
               np.arange(n) if integer_counts else rng.integers(0, 9, n).astype(float)]  # fmt: skip
    run = RunScores(name="r", path="r", topics=np.array([str(t) for t in range(n)]),
                    values=dict(zip(measures, columns, strict=True)),
                    denominator=denominator)  # fmt: skip
    if denominator is not None and how != "arith":
        return  # (refused: risk values take the arithmetic mean only)
    with np.errstate(all="ignore"):
        together = means(run, measures, how)
        alone = [summary_of(column, m, how, None, denominator)
                 for m, column in zip(measures, columns, strict=True)]  # fmt: skip
    assert [np.float64(together[m]).tobytes() for m in measures] == [
        np.float64(value).tobytes() for value in alone
    ]


def test_names_and_output_order():
    # trec_eval's names print as trec_eval prints them; P@5 is P_5, kept once under its first
    # name; trec_eval's names alone are put in trec_eval's order
    names = [m.name for m in parse_measures(["ndcg_cut_10", "map", "P.10,5", "set_P", "P@5"])]
    assert names == ["map", "P_5", "P_10", "ndcg_cut_10", "set_P"]
    mixed = [m.name for m in parse_measures(["ndcg_cut_10", "map", "AP@5", "P.10,5"])]
    assert mixed == ["ndcg_cut_10", "map", "AP@5", "P_5", "P_10"]  # -m order
    assert [m.name for m in parse_measures(["nDCG@20", "jk-nDCG@20"])] == ["nDCG@20", "jk-nDCG@20"]
    for text in ("P.", "P.-1", "P.5,5", "ndcg_cut.0", "IPrec@2", "INST", "Compat(p=2)"):
        with pytest.raises(UsageError):
            parse_measures([text])
    for measure in parse_measures(
        ["all_trec", "IPrec@0.25", "SetP(relative=True)", "Compat(p=0.5)"]
    ):
        assert parse_measures([measure.name]) == [measure], measure.name


# --------------------------------------------------------------------------------------------
# properties

GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])


@st.composite
def topics(draw):
    n_docs = draw(st.integers(1, 9))
    grades = draw(st.lists(GRADES, min_size=n_docs, max_size=n_docs))
    qrels = "".join(f"1 0 d{i} {g}\n" for i, g in enumerate(grades))
    pool = [f"d{i}" for i in range(n_docs)] + ["u1", "u2", "u3"]
    ranking = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
    return qrels, "".join(f"1 {d}\n" for d in ranking)


BOUNDED = [
    "bpref",
    "infAP",
    "IPrec@0.5",
    "11pt_avg",
    "SetF",
    "set_map",
    "Success@3",
    "relative_P.3",
    "Rprec_mult.1.5",
    "ndcg_rel",
    "Rndcg",
    "G",
    "binG",
    "unj@5",
    "Judged@5",
    "Compat",
    "INST(max_rel=3)",
    "INSQ(max_rel=3)",
    "NERR9(max_rel=3)@5",
    "NERR11(max_rel=3)",
    "SDCG(max_rel=3)@5",
    "nDCG(dcg=exp-log2)@5",
    "ERR@5",
]


@settings(max_examples=examples(24), deadline=None)
@given(topics())
def test_values_lie_in_the_unit_interval(case):
    qrels, run = case
    v = values(BOUNDED, run=run, qrels=qrels)
    for name, value in v.items():
        assert -1e-12 <= value <= 1 + 1e-12, (name, value)


@settings(max_examples=examples(24), deadline=None)
@given(topics())
def test_interpolated_precision_does_not_rise_with_recall(case):
    qrels, run = case
    levels = [m.name for m in parse_measures(["IPrec"])]
    v = values(levels, run=run, qrels=qrels)
    ordered = [v[name] for name in levels]
    assert all(a >= b - 1e-15 for a, b in zip(ordered, ordered[1:], strict=False))


@settings(max_examples=examples(16), deadline=None)
@given(topics())
def test_the_ideal_ranking_scores_one(case):
    qrels, _ = case
    graded = [line.split() for line in qrels.splitlines()]
    best = sorted(
        (d for _, _, d, g in graded if int(g) > 0),
        key=lambda d: -int(dict((x[2], int(x[3])) for x in graded)[d]),
    )
    if not best:
        return
    run = "".join(f"1 {d}\n" for d in best)
    v = values(
        ["Compat", "nDCG", "G", "binG", "ndcg_rel", "bpref", "infAP", "SetP", "NERR8(max_rel=3)@1"],
        run=run,
        qrels=qrels,
    )
    for name in ("Compat", "nDCG", "G", "ndcg_rel", "bpref", "SetP"):
        assert v[name] == pytest.approx(1.0), name
    assert v["infAP"] == pytest.approx(1.0, abs=1e-4)  # 1 − O(ε), ε = 1e-5


def test_tie_orders_by_hand():
    """Scores 2, 1, 1, 1 for b, c, a, d (file order b c a d): trec_eval's rule ranks the
    tied ones d c a, ir_measures/pyndeval's a c d, a stable score sort c a d."""
    import tempfile
    from pathlib import Path

    from divaeval.io import read_qrels, read_run
    from divaeval.judged import QrelsIndex, judge_run
    from divaeval.settings import Settings

    with tempfile.TemporaryDirectory() as directory:
        qrels = Path(directory) / "q"
        qrels.write_text("1 0 a 1\n1 0 b 2\n1 0 c 3\n1 0 d 4\n")
        run = Path(directory) / "r"
        run.write_text("1 Q0 b 1 2 t\n1 Q0 c 2 1 t\n1 Q0 a 3 1 t\n1 Q0 d 4 1 t\n")
        index = QrelsIndex(read_qrels(str(qrels)))
        expected = {
            "score": [2, 4, 3, 1],
            "score-docno-asc": [2, 1, 3, 4],
            "score-file": [2, 3, 1, 4],
            "file": [2, 3, 1, 4],
            "rank": [2, 3, 1, 4],
        }
        for order, grades in expected.items():
            jr = judge_run(read_run(str(run)), index, Settings(order=order))
            assert jr.grades[0, :, 0].tolist() == grades, order


def test_cli_takes_trec_eval_command_lines(capsys):
    """trec_eval's -m spellings on the command line: counts print as integers, the output
    follows trec_eval's names and order, the summary of a count is its sum and --order takes
    the new rules."""
    from support import SAMPLE_DATA

    from divaeval.cli import main

    args = [
        SAMPLE_DATA / "run.txt",
        SAMPLE_DATA / "qrels.txt",
        "-q",
        "-m",
        "P.10",
        "-m",
        "num_ret",
        "-m",
        "map",
        "--order",
        "score-docno-asc",
    ]
    capsys.readouterr()
    assert main([str(a) for a in args]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    first_topic = [name.strip() for name, topic, _ in lines if topic == lines[0][1]]
    assert first_topic == ["num_ret", "map", "P_10"]
    per_topic = [
        int(value) for name, topic, value in lines if name.strip() == "num_ret" and topic != "all"
    ]
    summary = [
        value for name, topic, value in lines if name.strip() == "num_ret" and topic == "all"
    ]
    assert summary == [str(sum(per_topic))]


def test_ideal_pools_in_docno_order_only_when_asked():
    """nDCG, AP and RR read the pools' grades in any order and never build the docno order;
    the docno-descending pools, built when first read, hold the same grades: topic 1's pool
    is d9, d10, d1 (byte order descending: "d9" > "d10" > "d1"), grades 1, 3, 2."""
    qrels = "1 0 d10 3\n1 0 d1 2\n1 0 d9 1\n1 0 d5 0\n2 0 d5 1\n"
    jr = judge_text(qrels, "1 d5\n1 d9\n2 d5\n")
    values = measure_values(jr, ["ndcg_cut.10", "map", "recip_rank"])
    # topic 1: the relevant d9 at rank 2 of an ideal 3, 2, 1 (gains 3, 2, 1)
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert values["ndcg_cut.10"].tolist() == [pytest.approx(1 / math.log2(3) / ideal), 1.0]
    assert values["map"].tolist() == [pytest.approx(1 / 2 / 3), 1.0]
    assert values["recip_rank"].tolist() == [0.5, 1.0]
    root, _ = jr.material.root()
    assert root.pools is not None and root.pools._by_docno is None
    assert jr.material.pool_grades[:, :, 0].tolist() == [[1, 3, 2], [1, 0, 0]]
    assert root.pools._by_docno is not None
    for any_order, by_docno in zip(
        jr.material.pool_grades_any_order, jr.material.pool_grades, strict=True
    ):
        assert sorted(any_order.ravel()) == sorted(by_docno.ravel())
