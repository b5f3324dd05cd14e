"""Lexicographic preferences (divaeval.stats.preferences, ``divaeval prefer``) against pref_eval's
oracle values (oracles README §7, §9.5, §9.8, §9.9) and hand-worked examples
(lexicographic.md §8)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from support import FIXTURES, TREC2012, TREC2012_BASELINES, examples

from divaeval.errors import DataError, UsageError
from divaeval.stats.preferences import (
    compare_vectors,
    pair_table,
    parse_preference_measures,
    preferences,
    ranking_table,
)

SMALL = FIXTURES / "small"
T2012 = TREC2012
INDRI = TREC2012_BASELINES

SMALL_CASES = [
    ("ref_ex/lexi_pairs.tsv", ["ref_ex/runA", "ref_ex/runB", "ref_ex/runC"], "ref_ex/div.qrels", 1),
    (
        "ref_ex/lexi_adhoc_pairs.tsv",
        ["ref_ex/runX", "ref_ex/runY", "ref_ex/runZ"],
        "ref_ex/adhoc.qrels",
        1,
    ),
    (
        "ref_ex/lexi_adhoc_b2_pairs.tsv",
        ["ref_ex/runX", "ref_ex/runY", "ref_ex/runZ"],
        "ref_ex/adhoc.qrels",
        2,
    ),
    (
        "ndeval_ex/lexi_pairs.tsv",
        ["ndeval_ex/runA.txt", "ndeval_ex/runB.txt"],
        "ndeval_ex/qrels.div.txt",
        1,
    ),
    ("edge/lexi_pairs.tsv", ["edge/edge_run1.txt", "edge/edge_run2.txt"], "edge/edge.qrels", 1),
]


def _agreement(oracle: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """Join oracle and divaeval rows on (run_a, run_b, topic, measure); every row must match."""
    frame = frame.assign(topic=frame["topic"].astype(str))
    merged = oracle.merge(
        frame, on=["run_a", "run_b", "topic", "measure"], how="outer", indicator=True
    )
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"]
    return merged


def _check_oracle(merged: pd.DataFrame) -> None:
    expected = merged["value_x"].astype(float).to_numpy()
    got = merged["value_y"].astype(float).to_numpy()
    sign_rows = merged["measure"].isin(["lexirecall", "lexiprecision"]) & (merged["topic"] != "all")
    # per-topic signs: exact; rrlexiprecision and `all` rows: 1e-12 (oracles README §10)
    assert np.array_equal(expected[sign_rows], got[sign_rows])
    assert np.all(np.abs(expected - got) <= 1e-12)


@pytest.mark.parametrize("compat", [None, "pref_eval"])
@pytest.mark.parametrize(("oracle", "runs", "qrels", "level"), SMALL_CASES)
def test_small_oracles(oracle, runs, qrels, level, compat):
    prefs = preferences(
        [str(SMALL / r) for r in runs],
        str(SMALL / qrels),
        rel_level=level,
        run_names="file",
        compat=compat,
    )
    expected = pd.read_csv(SMALL / oracle, sep="\t", dtype={"topic": str})
    merged = _agreement(expected, prefs.long_frame())
    _check_oracle(merged)
    if compat == "pref_eval":  # pref_eval's own arithmetic, bit for bit
        assert (merged["value_x"].astype(float) == merged["value_y"].astype(float)).all()


@pytest.fixture(scope="module")
def trec2012_oracle() -> pd.DataFrame:
    return pd.read_csv(
        FIXTURES / "trec2012-lexi" / "lexi_pairs.tsv.gz", sep="\t", dtype={"topic": str}
    )


def _trec2012(compat):
    return preferences(
        [str(T2012 / f"{name}.txt.gz") for name in INDRI],
        str(T2012 / "qrels-for-ndeval.txt.gz"),
        run_names="file",
        compat=compat,
    )


def test_trec2012_oracle_all_28_pairs_as_pref_eval(trec2012_oracle):
    merged = _agreement(trec2012_oracle, _trec2012("pref_eval").long_frame())
    assert len(merged) == 28 * 50 * 3 + 28 * 3
    _check_oracle(merged)
    # pref_eval's arithmetic (1/x − 1/y; Σ v/T in qrels order) is reproduced bit for bit
    assert (merged["value_x"].astype(float) == merged["value_y"].astype(float)).all()


def test_trec2012_exact_by_default(trec2012_oracle):
    """Default: every value is the exact rational rounded once: per topic (y − x)/(x·y) for
    rrlexiprecision, the mean (wins − losses)/T for the sign measures and Σ fractions / T for
    rrlexiprecision. They agree with pref_eval's to 1e-12 and differ in the last bits where
    pref_eval's sums round along the way."""
    prefs = _trec2012(None)
    merged = _agreement(trec2012_oracle, prefs.long_frame())
    _check_oracle(merged)
    vectors, runs = prefs.vectors, prefs.runs
    topics = len(prefs.topics)
    exact_means = 0
    for row in merged.itertuples():
        a, b = runs.index(row.run_a), runs.index(row.run_b)
        values = [
            _exact(vectors.ranks[a, t], vectors.ranks[b, t], row.measure) for t in range(topics)
        ]
        if row.topic == "all":
            expected = float(sum(values, Fraction(0)) / topics)
            exact_means += float(row.value_x) == expected
        else:
            expected = float(values[list(prefs.topics).index(row.topic)])
        assert float(row.value_y) == expected, row
    assert exact_means < 28 * 3  # pref_eval's sums are not all exact: the cases differ


def _exact(x, y, measure) -> Fraction:
    """The preference of x over y as a fraction, from the definitions (lexicographic.md §4)."""
    differ = [i for i in range(len(x)) if x[i] != y[i]]
    if not differ:
        return Fraction(0)
    i = differ[-1] if measure == "lexirecall" else differ[0]
    if measure != "rrlexiprecision":
        return Fraction(1 if x[i] < y[i] else -1)
    reciprocal = [Fraction(0) if math.isinf(v) else Fraction(1, int(v)) for v in (x[i], y[i])]
    return reciprocal[0] - reciprocal[1]


def test_sample_data_means_are_exact_and_pref_eval_sums_are_kept():
    """The issue's case: ql-cata against rm-cata on sample_data's 10 topics, lexiprecision
    5 wins, 5 losses: (5 − 5)/10 = 0 exactly; pref_eval adds ten ±0.1 in qrels order and
    gets −2.7755575615628914e-17. lexirecall ql-cata vs dssa 9 wins, 1 loss: 8/10 = 0.8
    (pref_eval: 0.7999999999999999)."""
    runs = [f"sample_data/{name}" for name in ("run.txt", "run2.txt", "run3.txt")]
    exact = preferences(runs, "sample_data/qrels.txt")
    as_pref_eval = preferences(runs, "sample_data/qrels.txt", compat="pref_eval")
    assert exact.mean("lexiprecision")[0, 1] == 0.0
    assert as_pref_eval.mean("lexiprecision")[0, 1] == -2.7755575615628914e-17
    assert exact.mean("lexirecall")[0, 2] == 0.8
    assert as_pref_eval.mean("lexirecall")[0, 2] == 0.7999999999999999
    # the exact means are antisymmetric with no −0.0
    for measure in exact.measures:
        means = exact.mean(measure)
        assert np.array_equal(means, -means.T)
        assert not np.signbit(means[means == 0]).any()


def test_hand_worked_ref_ex():
    """lexicographic.md §8.1. Topic 1: runA → (1, 2, 3, 5, 6, 7), runB → (1, 2, 3, 4, 5, ∞)
    (d5 unretrieved; d6 at rank 6 is judged 0).
    - lexirecall: runA retrieved 6 relevant docs, runB 5 → +1;
    - lexiprecision: first difference at index 4: 5 vs 4 → runB → −1;
    - rrlexiprecision: 1/5 − 1/4 = −0.05.
    Topic 2: runA (1, 2, 3), runB (1, 2, 4): +1, +1, 1/3 − 1/4 = 0.0833.
    Means over 2 topics: lexirecall (1 + 1)/2 = 1, lexiprecision (−1 + 1)/2 = 0,
    rrlexiprecision (−0.05 + 0.08333)/2 = 0.016667. runC lacks topic 2: all unretrieved."""
    prefs = preferences(
        [str(SMALL / "ref_ex" / r) for r in ("runA", "runB", "runC")],
        str(SMALL / "ref_ex" / "div.qrels"),
    )
    assert prefs.runs == ["runA", "runB", "runC"]
    assert list(prefs.topics) == ["1", "2"]
    lr, lp, rr = (prefs.tensors[m] for m in ("lexirecall", "lexiprecision", "rrlexiprecision"))
    assert lr[0, 1, 0] == 1 and lp[0, 1, 0] == -1
    assert rr[0, 1, 0] == -0.05  # exactly −1/20 rounded once (pref_eval: 1/5 − 1/4)
    assert lr[0, 1, 1] == 1 and lp[0, 1, 1] == 1
    assert rr[0, 1, 1] == 1 / 12  # 1/3 − 1/4 = 1/12
    assert prefs.mean("lexirecall")[0, 1] == 1.0
    assert prefs.mean("lexiprecision")[0, 1] == 0.0
    # (−1/20 + 1/12)/2 = 1/60 (pref_eval prints 0.016666666666666663)
    assert prefs.mean("rrlexiprecision")[0, 1] == 1 / 60
    # runC, topic 2: every relevant document unretrieved; runA's first is at rank 1 → 1/1 − 0
    assert rr[0, 2, 1] == 1.0 and lr[1, 2, 1] == 1
    vectors = prefs.vectors
    assert vectors.ranks[0, 0, :6].tolist() == [1, 2, 3, 5, 6, 7]
    assert vectors.ranks[1, 0, :6].tolist() == [1, 2, 3, 4, 5, math.inf]
    assert vectors.retrieved[:, 0].tolist() == [6, 5, 2]  # runC: d9 d1 d2 d10 → d1, d2


def test_hand_worked_adhoc_and_b2():
    """lexicographic.md §8.2: q101 X = (1, 3, 4), Y = (1, 2, 5): lexirecall X (4 < 5 at the
    bottom), lexiprecision Y (2 < 3 at index 2), rrlexiprecision 1/3 − 1/2 = −1/6. q102 ties;
    q103 has no relevant document and is dropped. runZ's score tie puts n3 first: (2, 3, ∞).
    With -b 2 (a1 = 3, a3 = 2 relevant): X = (1, 3), Y = (1, 2) → lexirecall −1; q102 dropped."""
    runs = [str(SMALL / "ref_ex" / r) for r in ("runX", "runY", "runZ")]
    qrels = str(SMALL / "ref_ex" / "adhoc.qrels")
    prefs = preferences(runs, qrels)
    assert list(prefs.topics) == ["101", "102"]
    assert prefs.tensors["lexirecall"][0, 1].tolist() == [1, 0]
    assert prefs.tensors["lexiprecision"][0, 1].tolist() == [-1, 0]
    assert prefs.tensors["rrlexiprecision"][0, 1, 0] == -1 / 6
    assert prefs.vectors.ranks[2, 0, :3].tolist() == [2, 3, math.inf]
    assert prefs.mean("lexirecall")[0, 1] == 0.5 and prefs.mean("lexiprecision")[0, 1] == -0.5
    b2 = preferences(runs, qrels, rel_level=2)
    assert list(b2.topics) == ["101"]
    assert b2.tensors["lexirecall"][0, 1].tolist() == [-1]


@pytest.mark.parametrize(
    ("x", "y", "lr", "lp", "rr"),
    [
        # more retrieved relevant documents wins lexirecall; first difference decides LP
        ([1, 2, 3, 5, 6, 7], [1, 2, 3, 4, 5, math.inf], 1, -1, -0.05),
        # same count: compare from the worst retrieved rank upward (8 < 9)
        ([2, 3, 8], [1, 3, 9], 1, -1, -0.5),
        # identical vectors, including both empty
        ([1, math.inf], [1, math.inf], 0, 0, 0.0),
        ([math.inf, math.inf], [math.inf, math.inf], 0, 0, 0.0),
        # nothing retrieved loses to anything; 1/∞ = 0
        ([4, math.inf], [math.inf, math.inf], 1, 1, 0.25),
    ],
)
def test_compare_vectors_hand_cases(x, y, lr, lp, rr):
    assert compare_vectors(np.array(x, float), np.array(y, float), "lexirecall") == lr
    assert compare_vectors(np.array(x, float), np.array(y, float), "lexiprecision") == lp
    assert compare_vectors(np.array(x, float), np.array(y, float), "rrlexiprecision") == rr


def test_compare_vectors_as_pref_eval_subtracts_the_reciprocals():
    x, y = np.array([1, 2, 3, 5.0]), np.array([1, 2, 3, 4.0])
    assert compare_vectors(x, y, "rrlexiprecision") == -0.05
    assert compare_vectors(x, y, "rrlexiprecision", "pref_eval") == -0.04999999999999999


@st.composite
def relevance_vector(draw, m: int, depth: int = 30):
    retrieved = draw(st.integers(0, m))
    ranks = sorted(draw(st.sets(st.integers(1, depth), min_size=retrieved, max_size=retrieved)))
    return np.array(ranks + [math.inf] * (m - retrieved), dtype=float)


@st.composite
def vector_pair(draw):
    m = draw(st.integers(1, 8))
    return draw(relevance_vector(m)), draw(relevance_vector(m))


@settings(max_examples=examples(120), deadline=None)
@given(vector_pair())
def test_properties_antisymmetry_identity_recall(pair):
    x, y = pair
    for measure in ("lexirecall", "lexiprecision", "rrlexiprecision"):
        forward = compare_vectors(x, y, measure)
        assert compare_vectors(y, x, measure) == -forward  # swapping runs negates
        assert compare_vectors(x, x, measure) == 0  # a run against itself ties
    recall_x, recall_y = np.isfinite(x).sum(), np.isfinite(y).sum()
    if recall_x != recall_y:  # lexirecall refines recall
        assert compare_vectors(x, y, "lexirecall") == np.sign(recall_x - recall_y)
    if x[0] != y[0]:  # lexiprecision refines reciprocal rank
        rr_x = 0.0 if math.isinf(x[0]) else 1 / x[0]
        rr_y = 0.0 if math.isinf(y[0]) else 1 / y[0]
        assert compare_vectors(x, y, "lexiprecision") == np.sign(rr_x - rr_y)
    assert np.sign(compare_vectors(x, y, "rrlexiprecision")) == compare_vectors(
        x, y, "lexiprecision"
    )
    exact = _exact(x, y, "rrlexiprecision")  # the value is the fraction, rounded once
    assert compare_vectors(x, y, "rrlexiprecision") == float(exact)
    assert compare_vectors(x, y, "rrlexiprecision", "pref_eval") == pytest.approx(
        float(exact), abs=1e-15
    )


def test_tensor_antisymmetric_on_real_runs():
    prefs = preferences(
        [str(SMALL / "ref_ex" / r) for r in ("runA", "runB", "runC")],
        str(SMALL / "ref_ex" / "div.qrels"),
    )
    for tensor in prefs.tensors.values():
        assert np.array_equal(tensor, -tensor.transpose(1, 0, 2))
        assert not tensor[np.arange(3), np.arange(3)].any()


def test_duplicates_error_unless_dedupe_first():
    edge = SMALL / "edge"
    runs = [str(edge / "edge_run_dup.txt"), str(edge / "edge_run2.txt")]
    with pytest.raises(DataError, match="duplicate docno a1"):
        preferences(runs, str(edge / "edge.qrels"))
    prefs = preferences(runs, str(edge / "edge.qrels"), dedupe="first", run_names="file")
    # dup run topic 1 after dedupe: a1 (1), a2 (2) → (1, 2, ∞); edge_run2: a2 a1 a3 → (1, 2, 3)
    assert prefs.vectors.ranks[0, 0, :3].tolist() == [1, 2, math.inf]
    assert prefs.tensors["lexirecall"][0, 1, 0] == -1


def test_usage_errors():
    with pytest.raises(UsageError):
        parse_preference_measures(["lexi"])
    assert parse_preference_measures(["rrLP", "LR"]) == ["lexirecall", "rrlexiprecision"]
    with pytest.raises(UsageError):
        preferences([str(SMALL / "ref_ex" / "runA")], str(SMALL / "ref_ex" / "div.qrels"))
    runs = [str(SMALL / "ref_ex" / r) for r in ("runA", "runB")]
    with pytest.raises(UsageError, match="compat must be pref_eval or None, not 'ndeval'"):
        preferences(runs, str(SMALL / "ref_ex" / "div.qrels"), compat="ndeval")


def test_pairs_and_aggregation_ref_ex():
    """lexicographic.md §8.1: lexiprecision mc4 = borda = [runB, runA, runC] (A and B tie on
    Borda, run name descending puts runB first); lexirecall [runA, runB, runC]. Sign test:
    2 wins, 0 losses → p = 2·C(2,0)/2² = 0.5; Holm over 3 pairs → 1."""
    prefs = preferences(
        [str(SMALL / "ref_ex" / r) for r in ("runA", "runB", "runC")],
        str(SMALL / "ref_ex" / "div.qrels"),
    )
    ranking = ranking_table(prefs)
    for measure, expected in (
        ("lexiprecision", ["runB", "runA", "runC"]),
        ("lexirecall", ["runA", "runB", "runC"]),
    ):
        for method in ("mc4", "borda"):
            rows = ranking[(ranking["measure"] == measure) & (ranking["method"] == method)]
            assert rows.sort_values("rank")["run"].tolist() == expected
    pairs = pair_table(prefs, correction="holm")
    row = pairs[(pairs["measure"] == "lexirecall") & (pairs["run_a"] == "runA")].iloc[0]
    assert (row["wins"], row["ties"], row["losses"]) == (2, 0, 0)
    assert row["p_value"] == 0.5 and row["p_adjusted"] == 1.0
    tie = pairs[(pairs["measure"] == "lexiprecision") & (pairs["run_b"] == "runB")].iloc[0]
    assert (tie["wins"], tie["losses"], tie["mean"], tie["p_value"]) == (1, 1, 0.0, 1.0)


def test_cli_jsonl_keys_and_values():
    from divaeval.cli.prefer import prefer_command

    ref = SMALL / "ref_ex"
    result = CliRunner().invoke(
        prefer_command,
        [
            str(ref / "runA"),
            str(ref / "runB"),
            str(ref / "runC"),
            str(ref / "div.qrels"),
            "-q",
            "-f",
            "jsonl",
        ],
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert all(list(r) == ["run_a", "run_b", "topic", "measure", "value"] for r in records)
    assert len(records) == 3 * 2 * 3 + 3 * 3
    first = {(r["run_a"], r["run_b"], r["topic"], r["measure"]): r["value"] for r in records}
    assert first[("runA", "runB", "1", "lexirecall")] == 1
    assert first[("runA", "runB", "1", "rrlexiprecision")] == -0.05
    assert first[("runA", "runB", "all", "lexiprecision")] == 0.0
    assert first[("runA", "runB", "all", "rrlexiprecision")] == 1 / 60
    as_pref_eval = CliRunner().invoke(
        prefer_command,
        [str(ref / name) for name in ("runA", "runB", "runC", "div.qrels")]
        + ["-q", "-f", "jsonl", "--compat", "pref_eval"],
    )
    assert as_pref_eval.exit_code == 0, as_pref_eval.output
    assert '"topic": "1", "measure": "rrlexiprecision", "value": -0.04999999999999999}' in (
        as_pref_eval.stdout
    )
    assert '"topic": "all", "measure": "rrlexiprecision", "value": 0.016666666666666663}' in (
        as_pref_eval.stdout
    )
    # pairs are (earlier, later) in command-line order
    assert {(r["run_a"], r["run_b"]) for r in records} == {
        ("runA", "runB"),
        ("runA", "runC"),
        ("runB", "runC"),
    }


def test_cli_tables():
    from divaeval.cli.prefer import prefer_command

    ref = SMALL / "ref_ex"
    files = [str(ref / "runA"), str(ref / "runB"), str(ref / "runC"), str(ref / "div.qrels")]
    runner = CliRunner()
    pairs = runner.invoke(prefer_command, [*files, "-f", "csv", "--table", "pairs"])
    assert pairs.exit_code == 0 and pairs.stdout.startswith("measure,run_a,run_b,wins,ties")
    table = runner.invoke(prefer_command, [*files, "-f", "table", "-m", "LR"])
    assert table.exit_code == 0 and "mc4" in table.stdout and "borda" in table.stdout
    bad = runner.invoke(prefer_command, [*files, "-f", "csv", "--table", "all"])
    assert bad.exit_code != 0
    for tool in ("ndeval", "exact"):  # prefer reproduces pref_eval only
        wrong = runner.invoke(prefer_command, [*files, "--compat", tool])
        assert wrong.exit_code == 2 and "'pref_eval'" in wrong.output
