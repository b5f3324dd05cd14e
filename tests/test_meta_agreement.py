"""Agreement of lexirecall with other metrics (Diaz, Ekstrand & Mitra, TORS 2025, Figures
8-10; divaeval.meta.agreement): a hand-worked example, properties of the sign tensors, and the
nine TREC 2012 runs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from support import examples

from divaeval.errors import DataError, UsageError
from divaeval.io import read_qrels, read_run
from divaeval.judged import QrelsIndex
from divaeval.meta.agreement import (
    lexirecall_agreement,
    mc4_positions,
    runs_lexirecall_agreement,
    score_signs,
    sign_agreement,
    tie_fraction,
)
from divaeval.settings import Settings

RUNS = ["A", "B", "C"]
#: metric M, runs A, B, C on topics t1, t2
SCORES = np.array([[0.5, 0.2], [0.3, 0.2], [0.3, 0.4]])


def tensor(upper: dict[tuple[int, int], list[float]], runs: int = 3) -> np.ndarray:
    """An antisymmetric [R, R, T] preference tensor from its a < b entries."""
    topics = len(next(iter(upper.values())))
    out = np.zeros((runs, runs, topics))
    for (a, b), values in upper.items():
        out[a, b] = values
        out[b, a] = [-v for v in values]
    return out


#: lexirecall: A over B and C over both, on both topics
LEXI = tensor({(0, 1): [1, 1], (0, 2): [-1, -1], (1, 2): [-1, -1]})


def test_hand_worked_example():
    # M's comparisons (a < b pairs, topics t1, t2):
    #   A-B: +1, 0   A-C: +1, -1   B-C: 0, -1   -> 2 ties of 6 = 1/3
    signs = score_signs(SCORES)
    assert signs[0, 1].tolist() == [1, 0] and signs[0, 2].tolist() == [1, -1]
    assert signs[1, 2].tolist() == [0, -1]
    assert tie_fraction(signs) == pytest.approx(1 / 3)
    # decided by M: A-B t1 (LR +1, agree), A-C t1 (LR -1, no), A-C t2 (agree), B-C t2 (agree)
    assert sign_agreement(signs, LEXI) == pytest.approx(3 / 4)
    # MC4 of lexirecall: C beats both on both topics, A beats B: C, A, B -> scores 3, 2, 1
    assert mc4_positions(LEXI, RUNS).tolist() == [2.0, 3 - 2.0, 3.0]
    # means A 0.35, B 0.25, C 0.35 against 2, 1, 3: A-B and B-C concordant, A-C tied in the
    # means: tau-b = 2 / sqrt((3 - 1)(3 - 0)) = 0.816497
    result = lexirecall_agreement({"M": SCORES}, LEXI, RUNS)
    (metric,) = result.metrics
    assert metric.tau == pytest.approx(2 / math.sqrt(6))
    assert (metric.sign_agreement, metric.ties, metric.comparisons) == (0.75, 1 / 3, 6)
    assert result.lexirecall_ties == 0.0
    frame = result.frame()
    assert frame["measure"].tolist() == ["M", "lexirecall"]
    assert frame.iloc[1]["ties"] == 0.0


def test_nothing_decided_is_nan():
    flat = np.zeros((3, 2))
    assert math.isnan(sign_agreement(score_signs(flat), LEXI))
    assert tie_fraction(score_signs(flat)) == 1.0


@settings(max_examples=examples(50), deadline=None)
@given(arrays(np.float64, (4, 3), elements=st.integers(0, 8).map(lambda v: v / 8)))
def test_a_metric_agrees_with_itself_and_signs_are_antisymmetric(table):
    signs = score_signs(table)
    assert np.array_equal(signs, -signs.transpose(1, 0, 2))
    assert np.all(np.diagonal(signs, axis1=0, axis2=1) == 0)
    if tie_fraction(signs) < 1:
        assert sign_agreement(signs, signs) == 1.0
        assert sign_agreement(signs, -signs) == 0.0
    # an increasing (here exact) transformation changes nothing
    assert np.array_equal(score_signs(table), score_signs(2 * table + 1))


def test_bad_inputs():
    with pytest.raises(UsageError, match="two runs"):
        lexirecall_agreement({"M": SCORES[:1]}, LEXI[:1, :1], ["A"])
    with pytest.raises(UsageError, match="one metric"):
        lexirecall_agreement({}, LEXI, RUNS)
    with pytest.raises(DataError, match="topics"):
        lexirecall_agreement({"M": SCORES[:, :1]}, LEXI, RUNS)
    with pytest.raises(DataError, match="runs × runs × topics"):
        tie_fraction(np.zeros((2, 3, 1)))


def test_real_runs_through_the_metric_machinery():
    # one topic, relevant d1 d2 d3; runs A (d1 d4 d2), B (d2 d5 d6), C (d3 d1 d7)
    #   P@3: A 2/3, B 1/3, C 2/3 -> A-B +1, A-C 0, B-C -1 (ties 1/3)
    #   lexirecall: A (1,3,inf), B (1,inf,inf), C (1,2,inf) -> +1, -1, -1 (no tie)
    #   agreement: A-B and B-C agree -> 2/2 = 1; MC4: C, A, B -> tau-b 2/sqrt(6)
    qrels = read_qrels("q.qrels", text="1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n1 0 d4 0\n")
    runs = []
    for name, docs in {"A": "d1 d4 d2", "B": "d2 d5 d6", "C": "d3 d1 d7"}.items():
        text = "".join(
            f"1 Q0 {d} {r} {10 - r} {name}\n" for r, d in enumerate(docs.split(), start=1)
        )
        runs.append(read_run(f"{name}.run", text=text))
    result = runs_lexirecall_agreement(runs, QrelsIndex(qrels), ["P@3"], Settings())
    (metric,) = result.metrics
    assert (metric.sign_agreement, metric.ties) == (1.0, pytest.approx(1 / 3))
    assert metric.tau == pytest.approx(2 / math.sqrt(6))
    assert result.lexirecall_ties == 0.0 and result.runs == ["A", "B", "C"]
    with pytest.raises(UsageError, match="two runs"):
        runs_lexirecall_agreement(runs[:1], QrelsIndex(qrels), ["P@3"], Settings())
