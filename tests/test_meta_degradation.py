"""Label degradation (Diaz, Ekstrand & Mitra, TORS 2025, §6.2.4, Figures 12-13;
divaeval.meta.degradation): the removal rule, the weighted draw, a hand-worked example through
the metric machinery, and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.errors import UsageError
from divaeval.io import read_qrels, read_run
from divaeval.judged import QrelsIndex
from divaeval.meta.agreement import sign_agreement, tie_fraction
from divaeval.meta.degradation import (
    choose_removed,
    degraded_qrels,
    judged_signs,
    label_degradation,
    relevant_documents,
    removal_count,
    run_popularity,
    runs_label_degradation,
    sample_removal,
)
from divaeval.settings import Settings

# one topic, relevant d1 d2 d3 (d4 judged non-relevant), three runs of three documents
QRELS = "1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n1 0 d4 0\n"
RUNS = {
    "A": ["d1", "d4", "d2"],
    "B": ["d2", "d5", "d6"],
    "C": ["d3", "d1", "d7"],
}


def runs():
    out = []
    for name, docs in RUNS.items():
        text = "".join(f"1 Q0 {d} {r} {10 - r} {name}\n" for r, d in enumerate(docs, start=1))
        out.append(read_run(f"{name}.run", text=text))
    return out


def test_removal_count():
    # round(f·m) half up, at most m - 1
    assert removal_count(3, 0.5) == 2  # 1.5 -> 2
    assert removal_count(4, 0.1) == 0  # 0.4 -> 0
    assert removal_count(4, 1.0) == 3  # one kept
    assert removal_count(1, 0.9) == 0
    assert removal_count(10, 0.25) == 3  # 2.5 -> 3
    with pytest.raises(UsageError, match="between 0 and 1"):
        removal_count(3, 1.5)


def test_popular_draw_takes_retrieved_documents_first():
    rng = np.random.default_rng(0)
    for _ in range(20):
        chosen = choose_removed(["a", "b", "c", "d"], 2, rng, [0, 5, 0, 0])
        assert "b" in chosen and len(chosen) == 2
        assert choose_removed(["a", "b", "c"], 2, rng, [3, 1, 0]) == {"a", "b"}
    with pytest.raises(UsageError, match="weights"):
        choose_removed(["a", "b"], 1, rng, [1, -1])


# Hand-worked: P@3 and lexirecall of A, B, C with the complete labels and with each one of the
# three relevant documents removed (fraction 1/3 of m = 3 removes one).
#   complete: P@3 A 2/3, B 1/3, C 2/3 -> A-B +1, A-C 0, B-C -1; ties 1/3
#             LR vectors A (1,3,inf), B (1,inf,inf), C (1,2,inf) -> +1, -1, -1; ties 0
#   d1 gone: P@3 1/3, 1/3, 1/3 -> ties 1, agreement undefined
#            LR A (3,inf), B (1,inf), C (1,inf) -> -1, -1, 0: ties 1/3, agreement 1/2
#   d2 gone: P@3 1/3, 0, 2/3 -> +1, -1, -1: ties 0, agreement 2/3
#            LR A (1,inf), B (inf,inf), C (1,2) -> +1, -1, -1: ties 0, agreement 1
#   d3 gone: P@3 2/3, 1/3, 1/3 -> +1, +1, 0: ties 1/3, agreement 1/2
#            LR A (1,3), B (1,inf), C (2,inf) -> +1, +1, +1: ties 0, agreement 1/3
HAND = {
    "d1": {"P@3": (1.0, math.nan), "lexirecall": (1 / 3, 1 / 2)},
    "d2": {"P@3": (0.0, 2 / 3), "lexirecall": (0.0, 1.0)},
    "d3": {"P@3": (1 / 3, 1 / 2), "lexirecall": (0.0, 1 / 3)},
}


def test_hand_worked_comparisons_one_removal_at_a_time():
    qrels = read_qrels("q.qrels", text=QRELS)
    complete = judged_signs(runs(), QrelsIndex(qrels), ["P@3"], Settings())
    assert tie_fraction(complete["P@3"]) == pytest.approx(1 / 3)
    assert complete["lexirecall"][0, 1:, 0].tolist() == [1, -1]  # A over B, C over A
    for doc, expected in HAND.items():
        index = QrelsIndex(degraded_qrels(qrels, {"1": frozenset({doc})}))
        signs = judged_signs(runs(), index, ["P@3"], Settings())
        for measure, (ties, agreement) in expected.items():
            assert tie_fraction(signs[measure]) == pytest.approx(ties), (doc, measure)
            got = sign_agreement(signs[measure], complete[measure])
            assert got == pytest.approx(agreement, nan_ok=True), (doc, measure)


@pytest.mark.parametrize("sampling", ["uniform", "popular"])
def test_hand_worked_example(sampling):
    qrels = read_qrels("q.qrels", text=QRELS)
    result = runs_label_degradation(
        runs(), qrels, ["P@3"], Settings(), [1 / 3], sampling=sampling, samples=6, seed=5
    )
    assert result.complete_ties == {"P@3": pytest.approx(1 / 3), "lexirecall": 0.0}
    # the documents the six samples removed, drawn again by the documented generators
    popularity = run_popularity(runs()) if sampling == "popular" else None
    assert run_popularity(runs())["1"] == {
        "d1": 2,
        "d4": 1,
        "d2": 2,
        "d5": 1,
        "d6": 1,
        "d3": 1,
        "d7": 1,
    }
    removed = []
    for sample in range(6):
        rng = np.random.default_rng([5, sample, round(1 / 3 * 1_000_000)])
        (doc,) = sample_removal({"1": ["d1", "d2", "d3"]}, 1 / 3, rng, popularity)["1"]
        removed.append(doc)
    assert len(set(removed)) > 1  # the samples differ
    for cell in result.cells:
        ties = [HAND[doc][cell.measure][0] for doc in removed]
        agreement = [HAND[doc][cell.measure][1] for doc in removed]
        agreement = [a for a in agreement if not math.isnan(a)]
        assert cell.ties == pytest.approx(np.mean(ties))
        assert cell.ties_sd == pytest.approx(np.std(ties, ddof=1))
        assert cell.agreement == pytest.approx(
            np.mean(agreement) if agreement else math.nan, nan_ok=True
        )
    frame = result.frame()
    assert frame["fraction"].tolist() == [0.0, 0.0, 1 / 3, 1 / 3]
    assert (frame["seed"] == 5).all() and (frame["sampling"] == sampling).all()
    assert result.signature.startswith(f"degradation|sampling={sampling}|samples=6|seed=5")


def test_degraded_qrels_zero_the_removed_documents():
    qrels = read_qrels("q.qrels", text=QRELS + "2 1 d1 2\n2 2 d1 1\n2 1 d9 -2\n")
    assert relevant_documents(qrels) == {"1": ["d1", "d2", "d3"], "2": ["d1"]}
    degraded = degraded_qrels(qrels, {"1": frozenset({"d2"}), "2": frozenset({"d1", "d9"})})
    assert degraded.frame["grade"].tolist() == [1, 0, 1, 0, 0, 0, -2]


@settings(max_examples=examples(30), deadline=None)
@given(
    st.lists(st.integers(1, 12), min_size=1, max_size=5),
    st.floats(0, 1),
    st.integers(0, 2**32 - 1),
)
def test_a_removal_keeps_one_relevant_document_per_topic(sizes, fraction, seed):
    relevant = {str(t): [f"d{t}-{j}" for j in range(m)] for t, m in enumerate(sizes)}
    popularity = {
        topic: {doc: j % 3 for j, doc in enumerate(docs)} for topic, docs in relevant.items()
    }
    for weights in (None, popularity):
        removal = sample_removal(relevant, fraction, np.random.default_rng(seed), weights)
        for topic, docs in relevant.items():
            assert removal[topic] <= set(docs)
            assert len(removal[topic]) == removal_count(len(docs), fraction) < len(docs)


def test_fraction_zero_changes_nothing_and_bad_values():
    complete = {"M": np.array([[[0.0], [1.0]], [[-1.0], [0.0]]])}
    result = label_degradation(lambda removal: complete, {"1": ["a", "b"]}, [0.0], samples=2)
    (cell,) = result.cells
    assert (cell.ties, cell.agreement) == (0.0, 1.0)
    with pytest.raises(UsageError, match="sampling"):
        label_degradation(lambda r: complete, {"1": ["a"]}, [0.1], sampling="random")
    with pytest.raises(UsageError, match="popularity"):
        label_degradation(lambda r: complete, {"1": ["a"]}, [0.1], sampling="popular")
    with pytest.raises(UsageError, match="samples"):
        label_degradation(lambda r: complete, {"1": ["a"]}, [0.1], samples=0)
    with pytest.raises(UsageError, match="at least one"):
        label_degradation(lambda r: complete, {"1": ["a"]}, [])
    with pytest.raises(UsageError, match="between 0 and 1"):
        label_degradation(lambda r: complete, {"1": ["a"]}, [-0.1])
    with pytest.raises(UsageError, match="two"):
        runs_label_degradation(runs()[:1], read_qrels("q", text=QRELS), ["P@3"], Settings())
