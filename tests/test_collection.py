"""Tests of divaeval.collection: diversity difficulty and subtopic miss rate (Golbus et al. 2013).

Fixtures in tests/fixtures/golbus/ are unmodified lines of the NIST TREC Web Track qrels:

* wt2010-diversity.qrels.gz: all of 2010/10.diversity-qrels.final.txt (it has relevant lines
  only, 48 topics);
* wt2011-diversity-relevant.qrels.gz: the lines of 2011/qrels.diversity.txt with grade > 0 (all
  50 topics; Table 2 needs every topic, and non-relevant lines cannot change any value);
* wt2011-topics-125-143.qrels.gz: every line (grades -2..3) of topics 125 and 143 of
  2011/qrels.diversity.txt, to check that 0 and -2 lines are ignored.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.collection import (
    collection_table,
    difficulty_weights,
    diversity_difficulty,
    subtopic_table,
)
from divaeval.errors import DataError, UsageError
from divaeval.io.qrels import read_qrels as io_read_qrels

FIXTURES = Path(__file__).parent / "fixtures" / "golbus"


def read_qrels(path: Path) -> pd.DataFrame:
    """The fixture's qrels table through the project's reader (gzip detected by magic bytes)."""
    return io_read_qrels(str(path)).frame[["topic", "subtopic", "docno", "grade"]]


def qrels_from_text(text: str) -> pd.DataFrame:
    rows = [line.split() for line in text.strip().splitlines()]
    df = pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "grade"])
    return df.astype({"grade": "int64"})


pytestmark = pytest.mark.usefixtures("collected_warnings")


@pytest.fixture(scope="module")
def qrels2010() -> pd.DataFrame:
    return read_qrels(FIXTURES / "wt2010-diversity.qrels.gz")


@pytest.fixture(scope="module")
def qrels2011() -> pd.DataFrame:
    return read_qrels(FIXTURES / "wt2011-diversity-relevant.qrels.gz")


def row(table: pd.DataFrame, topic: str) -> pd.Series:
    return table.set_index("topic").loc[topic]


def min_cover_size(qrels: pd.DataFrame, **options) -> pd.Series:
    """xi per topic, as the collection table reports it."""
    return collection_table(qrels, **options).set_index("topic")["xi"]


# ---------------------------------------------------------------------------------------------
# hand-worked example (reference other-metrics.md §13 / §11.6)

SMALL = """
1 1 d1 1
1 1 d2 2
1 1 d5 1
1 2 d2 1
1 2 d3 1
1 2 d6 0
1 3 d4 1
1 3 d7 2
1 3 d8 0
2 1 e1 1
2 1 e2 1
2 2 e3 1
2 2 e1 0
"""


def test_hand_worked_example():
    table = collection_table(qrels_from_text(SMALL))
    t1, t2 = row(table, "1"), row(table, "2")
    # Topic 1. Relevant (grade >= 1): s1 {d1, d2, d5}, s2 {d2, d3}, s3 {d4, d7}; d6, d8 grade 0.
    # R_1 = 3, R_2 = 2, R_3 = 2; R_T = |{d1, d2, d3, d4, d5, d7}| = 6; M = 3.
    assert (t1.n_rel_docs, t1.n_subtopics, t1.subtopics, t1.subtopic_counts) == (
        6,
        3,
        "1,2,3",
        "3,2,2",
    )
    # xi: no document covers s1..s3; d2 (s1, s2) + d4 (s3) does -> xi = 2.
    assert t1.xi == 2
    # Eq. 1: d_mean = 1 - ((3/6)^2 + (4/6)^2 + (4/6)^2) / 3 = 1 - (1/4 + 4/9 + 4/9) / 3
    #              = 1 - (41/36) / 3 = 67/108 = 0.620370
    assert t1.d_max == 1.0
    assert t1.d_mean == pytest.approx(67 / 108, abs=1e-15)
    # Eq. 2: dd = 2 * 1 * (67/108) / (1 + 67/108) = 134/175 = 0.765714
    assert t1.dd == pytest.approx(134 / 175, abs=1e-15)
    # Eq. 3-4 at k = xi = 2: (1/4, 4/9, 4/9) / (41/36) = 9/41, 16/41, 16/41
    assert t1.smr == "0.2195,0.3902,0.3902"
    # Topic 2: s1 {e1, e2}, s2 {e3} (e1 is 0 for s2); R_T = 3; no document covers both -> xi = 2.
    # d_mean = 1 - ((1/3)^2 + (2/3)^2) / 2 = 1 - (5/9) / 2 = 13/18; dd = (26/18) / (31/18) = 26/31
    # smr = (1/9, 4/9) / (5/9) = 0.2, 0.8
    assert (t2.n_rel_docs, t2.xi, t2.subtopic_counts) == (3, 2, "2,1")
    assert t2.d_mean == pytest.approx(13 / 18, abs=1e-15)
    assert t2.dd == pytest.approx(26 / 31, abs=1e-15)
    assert t2.smr == "0.2000,0.8000"
    subs = subtopic_table(qrels_from_text(SMALL))
    assert subs.smr.tolist() == pytest.approx([9 / 41, 16 / 41, 16 / 41, 0.2, 0.8], abs=1e-15)
    # difficulty weights 1 - dd = 41/175, 5/31
    weights = difficulty_weights(table)
    assert weights.to_dict() == pytest.approx({"1": 41 / 175, "2": 5 / 31}, abs=1e-15)


def test_hand_worked_exponent_xi_plus_1():
    # golbus2013 setting: exponent xi + 1 = 3 for topic 1:
    # (1/2)^3 + (2/3)^3 + (2/3)^3 = 1/8 + 16/27 = (27 + 128)/216 = 155/216
    # d_mean = 1 - (155/216) / 3 = 1 - 155/648 = 493/648 = 0.760802
    # dd = 2 * 493/648 / (1 + 493/648) = 986/1141 = 0.864154; smr keeps exponent xi.
    table = collection_table(qrels_from_text(SMALL), dd_exponent="xi+1")
    t1 = row(table, "1")
    assert t1.d_mean == pytest.approx(493 / 648, abs=1e-15)
    assert t1.dd == pytest.approx(986 / 1141, abs=1e-15)
    assert t1.smr == "0.2195,0.3902,0.3902"
    assert table.attrs["settings"]["dd_exponent"] == "xi+1"


def test_hand_worked_without_replacement():
    # Topic 1, xi = 2 draws out of R_T = 6 without replacement: P(miss s) = C(6 - R_s, 2) / C(6, 2)
    # = C(3,2)/15, C(4,2)/15, C(4,2)/15 = 3/15, 6/15, 6/15 -> d_mean = 1 - (15/15)/3 = 2/3,
    # dd = (4/3) / (5/3) = 0.8; smr = 0.2, 0.4, 0.4.
    # Topic 2: C(1,2)/C(3,2) = 0, C(2,2)/C(3,2) = 1/3 -> d_mean = 1 - 1/6 = 5/6; smr = 0, 1.
    table = collection_table(qrels_from_text(SMALL), sampling="without_replacement")
    assert row(table, "1").d_mean == pytest.approx(2 / 3, abs=1e-15)
    assert row(table, "1").dd == pytest.approx(0.8, abs=1e-15)
    assert row(table, "1").smr == "0.2000,0.4000,0.4000"
    assert row(table, "2").d_mean == pytest.approx(5 / 6, abs=1e-15)
    assert row(table, "2").smr == "0.0000,1.0000"


def test_rel_level_and_topic_without_relevant_documents():
    # rel_level 2: topic 1 keeps s1 {d2} and s3 {d7} (s2 has no document with grade >= 2, so it
    # is not a subtopic); R_T = 2, xi = 2, d_mean = 1 - (1/4 + 1/4)/2 = 3/4, dd = 1.5/1.75 = 6/7.
    # Topic 2 has no relevant document: row kept, M = 0, xi = 0, NaN values.
    table = collection_table(qrels_from_text(SMALL), rel_level=2)
    t1, t2 = row(table, "1"), row(table, "2")
    assert (t1.subtopics, t1.subtopic_counts, t1.xi) == ("1,3", "1,1", 2)
    assert t1.dd == pytest.approx(6 / 7, abs=1e-15)
    assert (t2.n_rel_docs, t2.n_subtopics, t2.xi, t2.subtopics, t2.smr) == (0, 0, 0, "", "")
    assert math.isnan(t2.d_max) and math.isnan(t2.d_mean) and math.isnan(t2.dd)
    assert math.isnan(difficulty_weights(table)["2"])
    assert min_cover_size(qrels_from_text(SMALL), rel_level=2).to_dict() == {"1": 2, "2": 0}


def test_listed_subtopics_give_d_max_below_one():
    # Topic 1 with 4 listed subtopics (s4 has no relevant document): d_max = 3/4,
    # d_mean = 1 - (41/36 + 1) / 4 = 1 - 77/144 = 67/144; dd = 2 (3/4)(67/144) / (3/4 + 67/144)
    listed = {"1": ["1", "2", "3", "4"], "2": ["1", "2"]}
    table = collection_table(qrels_from_text(SMALL), listed_subtopics=listed)
    t1 = row(table, "1")
    assert t1.d_max == 0.75
    assert t1.d_mean == pytest.approx(67 / 144, abs=1e-15)
    d_mean = 67 / 144
    assert t1.dd == pytest.approx(2 * 0.75 * d_mean / (0.75 + d_mean), abs=1e-15)
    assert row(table, "2").d_max == 1.0
    with pytest.raises(DataError):
        collection_table(
            qrels_from_text(SMALL), listed_subtopics={"1": ["1", "2"], "2": ["1", "2"]}
        )
    with pytest.raises(DataError):
        collection_table(qrels_from_text(SMALL), listed_subtopics={"1": ["1", "2", "3"]})


def test_three_subtopics_of_three_two_two_documents():
    # s1 {a, b, c}, s2 {d, e}, s3 {f, a}: R_t = 3, 2, 2, R_T = 6, xi = 2 (a + d).
    # d_mean (Eq. 1, e = xi = 2) = 1 - (1/3)·((1 - 3/6)^2 + 2·(1 - 2/6)^2)
    #                            = 1 - (1/3)·(9/36 + 16/36 + 16/36) = 1 - 41/108 = 67/108;
    # dd (Eq. 2) = 2·1·(67/108) / (1 + 67/108) = 134/175;
    # smr at xi (Eq. 3-4) = (9, 16, 16)/36 normalised = 9/41, 16/41, 16/41.
    qrels = qrels_from_text("9 1 a 1\n9 1 b 1\n9 1 c 1\n9 2 d 1\n9 2 e 1\n9 3 f 1\n9 3 a 1")
    t = row(collection_table(qrels), "9")
    assert (t.n_rel_docs, t.xi) == (6, 2)
    assert t.d_mean == pytest.approx(67 / 108, abs=1e-15)
    assert t.dd == pytest.approx(134 / 175, abs=1e-15)
    assert diversity_difficulty(0.0, 0.0) == 0.0
    smr = subtopic_table(qrels).set_index("subtopic").smr
    assert smr.tolist() == pytest.approx([9 / 41, 16 / 41, 16 / 41], abs=1e-15)


def test_degenerate_smr_is_uniform_with_warning(collected_warnings):
    # Every relevant document covers both subtopics: (1 - 2/2)^k = 0 for both -> uniform 1/2.
    qrels = qrels_from_text("7 1 a 1\n7 2 a 1\n7 1 b 1\n7 2 b 1")
    table = collection_table(qrels)
    t = row(table, "7")
    assert (t.xi, t.d_mean, t.dd, t.smr) == (1, 1.0, 1.0, "0.5000,0.5000")
    assert any("topic(s) 7" in m for m in collected_warnings)


def test_sorting_numeric_and_string_topics():
    numeric = qrels_from_text("10 1 a 1\n9 1 b 1\n100 2 c 1\n100 10 d 1")
    table = collection_table(numeric)
    assert table.topic.tolist() == ["9", "10", "100"]
    assert row(table, "100").subtopics == "2,10"
    mixed = qrels_from_text("10 1 a 1\n9 1 b 1\nx1 1 c 1")
    assert collection_table(mixed).topic.tolist() == ["10", "9", "x1"]
    # subtopic ids in divaeval.topics.sort_topics order: "01" and "1" tie numerically -> string
    spellings = qrels_from_text("3 1 a 1\n3 01 b 1\n3 2 c 1")
    assert row(collection_table(spellings), "3").subtopics == "01,1,2"


def test_empty_qrels():
    empty = pd.DataFrame(
        {"topic": [], "subtopic": [], "docno": [], "grade": pd.Series([], dtype="int64")}
    )
    table = collection_table(empty)
    assert table.empty and list(table.columns)[0] == "topic"
    assert subtopic_table(empty).empty


def test_errors():
    qrels = qrels_from_text(SMALL)
    with pytest.raises(DataError):
        collection_table(qrels.drop(columns="grade"))
    with pytest.raises(DataError):
        collection_table(qrels.astype({"grade": float}))
    with pytest.raises(UsageError):
        collection_table(qrels, rel_level=0)
    with pytest.raises(UsageError):
        collection_table(qrels, dd_exponent="xi+2")
    with pytest.raises(UsageError):
        collection_table(qrels, cover="optimal")
    with pytest.raises(UsageError):
        collection_table(qrels, smr_rank=0)
    with pytest.raises(UsageError):
        difficulty_weights(pd.DataFrame({"topic": ["1"]}))


# ---------------------------------------------------------------------------------------------
# properties

ids = st.sampled_from(["1", "2", "3", "4", "5"])
docs = st.sampled_from([f"d{i}" for i in range(8)])
lines = st.lists(
    st.tuples(st.sampled_from(["1", "2"]), ids, docs, st.integers(min_value=-2, max_value=3)),
    min_size=1,
    max_size=40,
)


def as_qrels(rows: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["topic", "subtopic", "docno", "grade"])
    return df.astype({"grade": "int64"})


def brute_force_cover(qrels: pd.DataFrame, topic: str) -> int:
    rel = qrels[(qrels.topic == topic) & (qrels.grade >= 1)]
    subsets = rel.groupby("docno")["subtopic"].agg(frozenset).tolist()
    universe = frozenset(rel.subtopic)
    for size in range(1, len(subsets) + 1):
        for combo in itertools.combinations(subsets, size):
            if frozenset().union(*combo) == universe:
                return size
    return 0


@settings(max_examples=examples(16), deadline=None)
@given(
    lines,
    st.sampled_from(["xi", "xi+1"]),
    st.sampled_from(["with_replacement", "without_replacement"]),
)
def test_properties(rows, dd_exponent, sampling):
    qrels = as_qrels(rows)
    table = collection_table(qrels, dd_exponent=dd_exponent, sampling=sampling)
    greedy = collection_table(qrels, cover="greedy")
    subs = subtopic_table(qrels, sampling=sampling)
    for t, g in zip(table.itertuples(), greedy.itertuples(), strict=True):
        m = t.n_subtopics
        if m == 0:
            assert t.xi == 0 and math.isnan(t.dd)
            continue
        # xi: exact minimum cover, 1 <= xi <= min(M, R_T), never more than the greedy cover
        assert t.xi == brute_force_cover(qrels, t.topic)
        assert 1 <= t.xi <= min(m, t.n_rel_docs)
        assert t.xi <= g.xi <= m
        # the first draw covers >= 1 subtopic, so 1/M <= d_mean <= d_max = 1 and
        # 2/(M+1) <= dd <= 1
        assert t.d_max == 1.0
        assert 1 / m - 1e-12 <= t.d_mean <= 1.0 + 1e-12
        assert 2 / (m + 1) - 1e-12 <= t.dd <= 1.0 + 1e-12
        counts = [int(c) for c in t.subtopic_counts.split(",")]
        assert all(1 <= c <= t.n_rel_docs for c in counts) and sum(counts) >= t.n_rel_docs
        smr = subs[subs.topic == t.topic]
        assert smr.smr.sum() == pytest.approx(1.0)
        assert ((smr.smr >= 0) & (smr.smr <= 1)).all()
        # a subtopic with more relevant documents is never harder to cover
        ordered = smr.sort_values("n_rel")
        assert (np.diff(ordered.smr.to_numpy()) <= 1e-12).all()


@settings(max_examples=examples(10), deadline=None)
@given(lines, st.randoms(use_true_random=False))
def test_invariant_to_line_order_duplicates_and_irrelevant_lines(rows, rnd):
    qrels = as_qrels(rows)
    expected = collection_table(qrels)
    shuffled = rows + rows[: len(rows) // 2]  # duplicated lines
    rnd.shuffle(shuffled)
    got = collection_table(as_qrels(shuffled))
    pd.testing.assert_frame_equal(got, expected)
    # extra non-relevant lines for existing topics change nothing
    topics = sorted({r[0] for r in rows})
    extra = [(t, "9", "zz", g) for t in topics for g in (0, -2)]
    pd.testing.assert_frame_equal(collection_table(as_qrels(rows + extra)), expected)


# ---------------------------------------------------------------------------------------------
# Golbus, Aslam, Clarke (2013), Tables 1-3, from the TREC Web 2010/2011 qrels

# topic -> (R_T, R_t by decreasing size as printed, xi (minimum cover), published dd, dd with
#           exponent xi + 1 from the reference, §11.6)
TABLE1 = {
    "143": (25, [25, 21], 1, 0.994, 0.993559),
    "86": (82, [78, 62, 60], 1, 0.977, 0.977183),
    "125": (132, [110, 47, 13], 1, 0.735, 0.735467),
    "73": (156, [69, 52, 28, 19], 2, 0.730, 0.730267),
    "60": (313, [254, 47, 16, 11, 4, 4], 3, 0.481, 0.481027),
    "57": (261, [261, 14, 5, 2], 1, 0.449, 0.448896),
}


@pytest.fixture(scope="module")
def both_years(qrels2010, qrels2011) -> pd.DataFrame:
    return pd.concat([qrels2010, qrels2011], ignore_index=True)


def test_table1_counts_xi_and_dd(both_years):
    golbus = collection_table(both_years, dd_exponent="xi+1").set_index("topic")
    default = collection_table(both_years).set_index("topic")
    for topic, (r_total, counts, xi, published, reference) in TABLE1.items():
        t = golbus.loc[topic]
        assert t.n_rel_docs == r_total
        got_counts = sorted((int(c) for c in t.subtopic_counts.split(",")), reverse=True)
        assert got_counts == counts
        assert t.xi == xi
        assert t.dd == pytest.approx(reference, abs=5e-7)
        assert round(t.dd, 3) == published
        # Eq. 1 as written (exponent xi) does not reproduce Table 1
        assert round(default.loc[topic].dd, 3) != published
    assert round(default.loc["143"].dd, 3) == 0.958


def test_table1_topic_86_subtopic_ids():
    # topic 86 has subtopics 2, 3, 4 (no subtopic 1) with 62, 78, 60 relevant documents
    table = collection_table(read_qrels(FIXTURES / "wt2010-diversity.qrels.gz"))
    t = row(table, "86")
    assert (t.subtopics, t.subtopic_counts, t.smr) == ("2,3,4", "62,78,60", "0.4348,0.0870,0.4783")


def test_nonrelevant_and_spam_lines_are_ignored(qrels2011):
    full = read_qrels(FIXTURES / "wt2011-topics-125-143.qrels.gz")
    assert (full.grade <= 0).sum() > 1000 and (full.grade == -2).any()
    relevant_only = qrels2011[qrels2011.topic.isin(["125", "143"])]
    pd.testing.assert_frame_equal(
        collection_table(full, dd_exponent="xi+1"),
        collection_table(relevant_only, dd_exponent="xi+1"),
    )


def test_table2(qrels2010, qrels2011):
    t10 = collection_table(qrels2010, dd_exponent="xi+1")
    t11 = collection_table(qrels2011, dd_exponent="xi+1")
    assert (len(t10), len(t11)) == (48, 50)
    # minima and means reproduced (published 0.449 / 0.727 and 0.643 / 0.809)
    assert t10.dd.min() == pytest.approx(0.448896, abs=5e-7)
    assert t10.topic[t10.dd.idxmin()] == "57"
    assert t10.dd.mean() == pytest.approx(0.727400, abs=5e-7)
    assert t11.dd.min() == pytest.approx(0.643362, abs=5e-7)
    assert t11.topic[t11.dd.idxmin()] == "105"
    assert t11.dd.mean() == pytest.approx(0.808555, abs=5e-7)
    assert [round(v, 3) for v in (t10.dd.min(), t10.dd.mean(), t11.dd.min(), t11.dd.mean())] == [
        0.449,
        0.727,
        0.643,
        0.809,
    ]
    # maxima NOT reproduced as printed: published 0.994 (2010) and 0.977 (2011) are swapped
    assert round(t10.dd.max(), 3) == 0.977 and t10.topic[t10.dd.idxmax()] == "86"
    assert round(t11.dd.max(), 3) == 0.994 and t11.topic[t11.dd.idxmax()] == "143"


def test_table2_needs_minimum_cover(qrels2010):
    # greedy with ties to the largest docno gives topic 99 xi = 4 (minimum 3): 2010 mean 0.7285
    exact = min_cover_size(qrels2010)
    greedy = min_cover_size(qrels2010, cover="greedy")
    assert exact["99"] == 3 and greedy["99"] == 4
    assert (exact != greedy).sum() == 1
    assert (exact[["60", "68", "99"]] == [3, 2, 3]).all()
    mean = collection_table(qrels2010, dd_exponent="xi+1", cover="greedy").dd.mean()
    assert round(mean, 4) == 0.7285


# Table 3, subtopics in the printed order (decreasing R_t), columns: rank xi, 5, 10, 20
TABLE3 = {
    "60": (
        3,
        [
            [0.002, 0.000, 0.000, 0.000],
            [0.143, 0.113, 0.061, 0.016],
            [0.199, 0.196, 0.182, 0.144],
            [0.209, 0.213, 0.215, 0.202],
            [0.224, 0.239, 0.271, 0.319],
            [0.224, 0.239, 0.271, 0.319],
        ],
    ),
    "73": (
        2,
        [
            [0.141, 0.050, 0.007, 0.000],
            [0.202, 0.122, 0.040, 0.003],
            [0.306, 0.344, 0.321, 0.204],
            [0.351, 0.484, 0.632, 0.793],
        ],
    ),
    "86": (
        1,
        [
            [0.087, 0.000, 0.000, 0.000],
            [0.435, 0.383, 0.278, 0.129],
            [0.478, 0.617, 0.722, 0.871],
        ],
    ),
}


@pytest.mark.parametrize("topic", sorted(TABLE3))
def test_table3_smr(qrels2010, topic):
    xi, printed = TABLE3[topic]
    assert min_cover_size(qrels2010)[topic] == xi
    columns = []
    for rank in (None, 5, 10, 20):
        subs = subtopic_table(qrels2010, smr_rank=rank)
        subs = subs[subs.topic == topic].sort_values("n_rel", ascending=False, kind="stable")
        columns.append(subs.smr.round(3).tolist())
    assert np.array(columns).T.tolist() == printed


def test_topic_86_smr_at_xi_exactly(qrels2010):
    # R_T = 82, xi = 1: (82 - 78)/82, (82 - 62)/82, (82 - 60)/82 = 4/82, 20/82, 22/82; sum 46/82
    subs = subtopic_table(qrels2010)
    t86 = subs[subs.topic == "86"].set_index("n_rel").smr
    assert t86[78] == pytest.approx(4 / 46, abs=1e-15)
    assert t86[62] == pytest.approx(20 / 46, abs=1e-15)
    assert t86[60] == pytest.approx(22 / 46, abs=1e-15)
    assert [round(t86[c], 3) for c in (78, 62, 60)] == [0.087, 0.435, 0.478]


def test_greedy_tie_break_and_exact_cover():
    # subtopics 1-4; a {1,2}, b {3,4}, z {2,3}, y {1}, x {4}.
    # exact: a + b -> xi = 2.
    # greedy, ties to the largest docno: a, b, z all add 2 -> z; then {1, 4} left, a, b, x, y
    # all add 1 -> y; then {4}: b, x add 1 -> x. Greedy length 3.
    qrels = qrels_from_text(
        "5 1 a 1\n5 2 a 1\n5 3 b 1\n5 4 b 1\n5 2 z 1\n5 3 z 1\n5 1 y 1\n5 4 x 1"
    )
    assert min_cover_size(qrels)["5"] == 2
    assert min_cover_size(qrels, cover="greedy")["5"] == 3
    assert collection_table(qrels, cover="greedy").attrs["settings"]["cover"] == "greedy"


def test_exact_cover_limit():
    # 63 subtopics, one document each: exact cover is refused (int64 masks), greedy works.
    qrels = as_qrels([("1", str(s), f"d{s}", 1) for s in range(63)])
    with pytest.raises(UsageError, match="greedy"):
        min_cover_size(qrels)
    assert min_cover_size(qrels, cover="greedy")["1"] == 63


# ---------------------------------------------------------------------------------------------
# --dd-exponent wherever dd weights are used (--mean dd of evaluate and meta sensitivity)

REF_EX = Path(__file__).parent / "fixtures" / "small" / "ref_ex"


def test_mean_dd_uses_the_dd_exponent():
    """runA's strec@1 over the two topics of the small example, weighted by 1 − dd.

    Topic 1 (§11.6): dd = 0.765714 (exponent xi = 2), 0.864154 (xi + 1). Topic 2: R = (2, 1),
    R_T = 3, xi = 2: d_mean(xi) = 1 − ((1/3)² + (2/3)²)/2 = 13/18, dd = 2·(13/18)/(31/18) =
    26/31; d_mean(xi + 1) = 1 − ((1/3)³ + (2/3)³)/2 = 5/6, dd = 10/11.
    strec@1: topic 1 = 1/3 (d1 covers aspect 1 of 3), topic 2 = 1/2 (e1 covers subtopic 1).
    xi + 1: (0.135846·1/3 + (1/11)·1/2) / (0.135846 + 1/11) = 0.400152;
    xi: (0.234286·1/3 + (5/31)·1/2) / (0.234286 + 5/31) = 0.401289."""
    import divaeval

    files = [str(REF_EX / "runA"), str(REF_EX / "div.qrels")]
    d_mean = 1 - ((1 / 2) ** 3 + 2 * (2 / 3) ** 3) / 3  # topic 1, xi + 1 = 3 (§11.6)
    dd1 = 2 * d_mean / (1 + d_mean)
    w1, w2 = 1 - dd1, 1 / 11
    expected = {"xi+1": (w1 / 3 + w2 / 2) / (w1 + w2)}
    d_mean = 1 - ((1 / 2) ** 2 + 2 * (2 / 3) ** 2) / 3
    w1, w2 = 1 - 2 * d_mean / (1 + d_mean), 1 - 26 / 31
    expected["xi"] = (w1 / 3 + w2 / 2) / (w1 + w2)
    assert expected["xi+1"] == pytest.approx(0.400152, abs=1e-6)
    assert expected["xi"] == pytest.approx(0.401289, abs=1e-6)
    for exponent, value in expected.items():
        table = divaeval.evaluate(
            files[0], files[1], ["strec@1"], mean="dd", dd_exponent=exponent
        ).means
        assert table["value"].tolist() == [pytest.approx(value, abs=1e-12)]
    default = divaeval.evaluate(files[0], files[1], ["strec@1"], mean="dd").means
    assert default["value"].tolist() == [pytest.approx(expected["xi"], abs=1e-12)]


def test_cli_dd_exponent_in_evaluate_and_sensitivity(capsys):
    from support import run_cli

    files = [REF_EX / "runA", REF_EX / "div.qrels"]
    code, out, err = run_cli(
        capsys, *files, "-m", "strec@1", "--mean", "dd", "--dd-exponent", "xi+1", "--signature"
    )
    assert code == 0, err
    assert "mean=dd|dd_exponent=xi+1|" in err
    assert out.split()[-1] == "0.4002"
    code, out, err = run_cli(capsys, *files, "-m", "strec@1", "--dd-exponent", "xi+1")
    assert code == 2 and err == "divaeval: --dd-exponent applies to --mean dd, not --mean arith\n"
    sampled = {}
    for exponent in ("xi", "xi+1"):
        code, out, err = run_cli(
            capsys,
            *["meta", "sensitivity", REF_EX / "div.qrels", "-m", "strec@2", "-B", "50"],
            *["-f", "csv", "--mean", "dd", "--dd-exponent", exponent],
        )
        assert code == 0, err
        assert f"mean=dd|dd_exponent={exponent}|" in err
        sampled[exponent] = float(out.splitlines()[-1].split(",")[-1])
    assert sampled["xi"] != sampled["xi+1"]


# ---------------------------------------------------------------------------------------------
# collection --topics: the informational/navigational split (Sakai 2012, Table 1)


def test_intent_split_hand_worked(collected_warnings):
    """ref_ex topics.xml: topic 1 subtopics 1 inf, 2 nav, 3 inf with R_t = 3, 2, 2 → 2 inf
    (3 + 2 = 5 relevant judgments), 1 nav (2); topic 2: 1 nav (R = 2), 2 inf (R = 1)."""
    from divaeval.io import read_topic_types

    types = read_topic_types(str(REF_EX / "topics.xml"))
    table = collection_table(qrels_from_text(SMALL), topic_types=types).set_index("topic")
    assert table.loc["1", ["n_inf", "n_nav", "rel_inf", "rel_nav"]].tolist() == [2, 1, 5, 2]
    assert table.loc["2", ["n_inf", "n_nav", "rel_inf", "rel_nav"]].tolist() == [1, 1, 1, 2]
    assert table.loc["1", "subtopic_types"] == "inf,nav,inf"
    assert list(table.columns[:5]) == ["n_rel_docs", "n_subtopics", "n_inf", "n_nav", "subtopics"]
    plain = collection_table(qrels_from_text(SMALL)).set_index("topic")
    pd.testing.assert_frame_equal(table[plain.columns], plain)  # nothing else changes
    # a subtopic the file does not list counts as informational, with a warning
    partial = types[~((types.topic == "1") & (types.subtopic == "2"))]
    table = collection_table(qrels_from_text(SMALL), topic_types=partial).set_index("topic")
    assert table.loc["1", ["n_inf", "n_nav"]].tolist() == [3, 0]
    assert collected_warnings == [
        "1 subtopics with relevant documents are not in the topics file (e.g. topic 1 subtopic "
        "2); counted as informational"
    ]


def test_intent_split_agrees_with_the_metrics_reading():
    """TREC 2012: the per-topic split equals the navigational flags the metrics use (the
    QrelsIndex built with the same topics XML), over the subtopics with a relevant document."""
    from divaeval.io import read_qrels as read_qrels_file
    from divaeval.io import read_topic_types
    from divaeval.judged import QrelsIndex

    trec2012 = Path(__file__).parent / "fixtures" / "trec2012"
    types = read_topic_types(str(trec2012 / "full-topics.xml"))
    qrels = read_qrels_file(str(trec2012 / "qrels.diversity.txt.gz"))
    table = collection_table(qrels.frame, topic_types=types).set_index("topic")
    material = QrelsIndex(qrels, topic_types=types).material_all
    relevant = material.relevant_subtopic & material.subtopic_valid
    nav = (relevant & material.intent_nav).sum(axis=1)
    assert table.loc[list(material.topics), "n_nav"].tolist() == nav.tolist()
    assert table["n_inf"].add(table["n_nav"]).tolist() == table["n_subtopics"].tolist()
    assert table["rel_inf"].add(table["rel_nav"]).tolist() == [
        sum(int(c) for c in counts.split(",")) for counts in table["subtopic_counts"]
    ]
    assert table["n_nav"].sum() > 0 and table["n_inf"].sum() > table["n_nav"].sum()


def test_cli_collection_topics(capsys):
    from support import run_cli

    code, out, err = run_cli(
        capsys, "collection", REF_EX / "div.qrels", "--topics", REF_EX / "topics.xml", "-f", "csv"
    )
    assert code == 0, err
    header, first = out.splitlines()[:2]
    assert header.startswith("topic,n_rel_docs,n_subtopics,n_inf,n_nav,subtopics,")
    assert ',"inf,nav,inf",5,2,' in first
