"""Simulated scenarios of Amigó et al. 2018 §6.3 for metric unanimity
(divaeval.meta.scenarios): the three alterations by hand and as properties, the seeded
scenario scores and the unanimity table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from support import examples

from divaeval.errors import UsageError
from divaeval.io import read_qrels, read_run
from divaeval.judged import QrelsIndex, judge_run
from divaeval.meta.scenarios import (
    TABLE2_SCENARIOS,
    Scenario,
    parse_scenario,
    random_grades,
    random_lengths,
    random_weights,
    regraded_qrels,
    scenario_scores,
    scenario_unanimity,
    truncated,
)
from divaeval.meta.unanimity import metric_unanimity_table
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings

# topic 1: subtopics 1 (d1 grade 2, d2 grade 1) and 2 (d3 grade 1); topic 2: e1 (grade 3)
QRELS = "1 1 d1 2\n1 1 d2 1\n1 2 d3 1\n1 2 d4 0\n2 1 e1 3\n2 1 e9 -2\n"
RUNS = {"A": ["d1", "d4", "d2", "d3"], "B": ["d3", "d2"], "C": ["d4", "d1", "d3", "d2"]}


def runs():
    out = []
    for name, docs in RUNS.items():
        text = "".join(f"1 Q0 {d} {r} {10 - r} {name}\n" for r, d in enumerate(docs, start=1))
        out.append(read_run(f"{name}.run", text=text + f"2 Q0 e1 1 1 {name}\n"))
    return out


def test_parse_scenario():
    assert parse_scenario("official") == Scenario()
    assert parse_scenario("shorter") == Scenario(True, True, "run")
    assert parse_scenario("cutoff50") == Scenario(True, True, 50)
    assert parse_scenario("grades+lengths=7") == Scenario(grades=True, lengths=7)
    assert TABLE2_SCENARIOS["cutoff50"].text == "grades+weights+lengths=50"
    assert Scenario().text == "official"
    with pytest.raises(UsageError, match="unknown scenario part"):
        parse_scenario("grades+colour")
    with pytest.raises(UsageError, match="lengths=run or lengths=N"):
        parse_scenario("lengths=x")
    with pytest.raises(UsageError, match="cutoff >= 0"):
        Scenario(lengths=-1)


def test_hand_worked_alterations():
    # a generator whose draws are known: rng.integers(0, [3, 2, 4] ) etc. are checked against
    # the same generator drawn directly
    grades = np.array([2, 1, 0, -2, 3])
    drawn = np.random.default_rng(1).integers(0, np.array([2, 1, 0, 0, 3]) + 1)
    assert random_grades(grades, np.random.default_rng(1)).tolist() == [
        drawn[0],
        drawn[1],
        0,
        -2,
        drawn[4],
    ]
    # weights: topic 0 has subtopics 0 and 1, topic 1 subtopic 0: u/(u+v), v/(u+v), then 1
    valid = np.array([[True, True], [True, False]])
    u = np.random.default_rng(2).random(valid.shape)
    weights = random_weights(valid, np.random.default_rng(2))
    assert weights[0].tolist() == pytest.approx([u[0, 0] / u[0].sum(), u[0, 1] / u[0].sum()])
    assert weights[1].tolist() == [1.0, 0.0]
    # lengths 0..|d|, or min(|d|, 0..cutoff)
    lengths = np.array([4, 2, 0])
    assert random_lengths(lengths, np.random.default_rng(3)).tolist() == (
        np.random.default_rng(3).integers(0, lengths + 1).tolist()
    )
    cut = np.minimum(lengths, np.random.default_rng(3).integers(0, 51, size=3))
    assert random_lengths(lengths, np.random.default_rng(3), 50).tolist() == cut.tolist()


def test_truncated_rankings_score_as_shorter_runs():
    # run A cut to 2 on topic 1 (d1 d4) and 0 on topic 2: P@4 = 1/4 and 0;
    # the same as the run file holding only those documents
    index = QrelsIndex(read_qrels("q", text=QRELS))
    settings_ = Settings(complete=True)
    jr = judge_run(runs()[0], index, settings_)
    cut = truncated(jr, np.array([2, 0]))
    measures = parse_measures(["P@4", "nDCG@4", "alpha-nDCG@4"])
    short = read_run("A.run", text="1 Q0 d1 1 9 A\n1 Q0 d4 2 8 A\n")
    expected = compute_measures(judge_run(short, index, settings_), measures)
    got = compute_measures(cut, measures)
    for measure in measures:
        assert got[measure].tolist() == pytest.approx(expected[measure].tolist())
    assert got[measures[0]].tolist() == [0.25, 0.0]


def test_scenario_scores_follow_the_documented_draws():
    qrels = read_qrels("q.qrels", text=QRELS)
    measures = ["P@4", "nDCG@4", "alpha-nDCG@4"]
    official = scenario_scores(runs(), qrels, measures, Settings(), Scenario())
    # official = a plain evaluation with every topic (-c)
    index = QrelsIndex(qrels)
    for name in measures:
        rows = [
            compute_measures(judge_run(r, index, Settings(complete=True)), parse_measures([name]))
            for r in runs()
        ]
        assert official[name].tolist() == [list(next(iter(v.values()))) for v in rows]
    # grades + lengths, seed 9: regrade the six lines, then cut A, B, C's topics in turn
    rng = np.random.default_rng(9)
    regraded = regraded_qrels(qrels, random_grades(qrels.frame["grade"].to_numpy(), rng))
    index = QrelsIndex(regraded)
    expected = []
    for run in runs():
        jr = judge_run(run, index, Settings(complete=True))
        jr = truncated(jr, random_lengths(jr.length, rng))
        expected.append(
            compute_measures(jr, parse_measures(["nDCG@4"]))[parse_measures(["nDCG@4"])[0]]
        )
    got = scenario_scores(
        runs(), qrels, ["nDCG@4"], Settings(), Scenario(grades=True, lengths="run"), seed=9
    )
    np.testing.assert_allclose(got["nDCG@4"], np.stack(expected), rtol=0, atol=1e-12)


def test_scenario_unanimity_is_seeded_and_labelled():
    qrels = read_qrels("q.qrels", text=QRELS)
    measures = ["P@4", "nDCG@4", "alpha-nDCG@4", "ERR-IA(weights=intents)@4"]
    first = scenario_unanimity(
        runs(), qrels, measures, Settings(), TABLE2_SCENARIOS["shorter"], seed=4
    )
    again = scenario_unanimity(
        runs(), qrels, measures, Settings(), TABLE2_SCENARIOS["shorter"], seed=4
    )
    assert first.equals(again)
    assert set(first["scenario"]) == {"grades+weights+lengths=run"} and set(first["seed"]) == {4}
    official = scenario_unanimity(runs(), qrels, measures, Settings(), Scenario())
    tables = scenario_scores(runs(), qrels, measures, Settings(), Scenario())
    # drawn intent weights move the intent-aware metric on topic 1 (two subtopics) only
    weighted = scenario_scores(runs(), qrels, measures, Settings(), Scenario(weights=True))
    assert weighted["P@4"].tolist() == tables["P@4"].tolist()
    assert (
        weighted["ERR-IA(weights=intents)@4"][:, 1].tolist()
        == tables["ERR-IA(weights=intents)@4"][:, 1].tolist()
    )
    assert not np.allclose(
        weighted["ERR-IA(weights=intents)@4"][:, 0], tables["ERR-IA(weights=intents)@4"][:, 0]
    )
    plain = metric_unanimity_table(tables, ["A", "B", "C"])
    assert official["mu"].tolist() == pytest.approx(plain["mu"].tolist(), nan_ok=True)


@settings(max_examples=examples(40), deadline=None)
@given(
    arrays(np.int64, st.integers(1, 20), elements=st.integers(-2, 4)),
    st.integers(0, 2**32 - 1),
)
def test_alterations_stay_in_range(grades, seed):
    rng = np.random.default_rng(seed)
    new = random_grades(grades, rng)
    assert np.all((new >= 0) & (new <= np.maximum(grades, 0)) | ((grades <= 0) & (new == grades)))
    valid = rng.random((3, 4)) < 0.7
    weights = random_weights(valid, rng)
    assert np.all(weights[~valid] == 0)
    has = valid.any(axis=1)
    assert weights[has].sum(axis=1) == pytest.approx(np.ones(int(has.sum())))
    lengths = rng.integers(0, 30, size=5)
    for cutoff in (None, 3):
        cut = random_lengths(lengths, rng, cutoff)
        assert np.all((cut >= 0) & (cut <= lengths))
        if cutoff is not None:
            assert np.all(cut <= cutoff)
