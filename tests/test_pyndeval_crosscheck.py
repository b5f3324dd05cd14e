"""Randomised cross-check of the ndeval family against pyndeval 0.0.8 (ndeval 4.5's C code).

150 seeded random topics per case (score ties, unjudged and zero-judged documents, negative
grades, subtopic 0, topics without any relevant document, run-only and qrels-only topics) are
written to one qrels and one run file and evaluated by divaeval. pyndeval orders by score
descending with ties by docno *ascending*, so it is fed score = −position in the order divaeval
must use (computed here independently: score desc + docno desc, or the rank column).

Every measure pyndeval supports for k <= 20 is compared at 1e-9. Two ndeval quirks are
compared only with ``compat="ndeval"``: ERR-IA@1/alpha-DCG@1 are unnormalised, and nNRBP is NaN
for a topic with no relevant document (natively divaeval normalises @1 and gives 0).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import divaeval

pyndeval = pytest.importorskip("pyndeval")

KS = range(1, 21)
CUTOFF_METRICS = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")
MEASURES = [f"{m}@{k}" for m in CUTOFF_METRICS for k in KS] + ["NRBP", "nNRBP", "MAP-IA"]
N_TOPICS = 150
TOL = 1e-9


# divaeval's warnings are collected, not printed (conftest.py)
pytestmark = pytest.mark.usefixtures("collected_warnings")


def generate(seed: int, n_topics: int = N_TOPICS):
    """Random qrels lines (topic, subtopic, docno, grade) and run lines
    (topic, docno, rank, score)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(n_topics):
        topic = str(100 + t)
        kind = rng.random()
        n_sub = int(rng.integers(1, 6))
        subtopics = [str(s) for s in rng.choice(8, size=n_sub, replace=False)]  # may hold 0
        # docnos whose byte order differs from their numeric order ("d10" < "d9")
        pool = [f"d{n}" for n in rng.choice(60, size=int(rng.integers(1, 30)), replace=False)]
        no_relevant = kind < 0.06  # S = 0: every judgment <= 0
        for doc in pool:
            judged_for = [s for s in subtopics if rng.random() < 0.45] or [subtopics[0]]
            for sub in judged_for:
                grade = int(rng.choice([-2, 0, 0, 1, 1, 1, 2, 3]))
                qrels.append((topic, sub, doc, min(grade, 0) if no_relevant else grade))
        if 0.06 <= kind < 0.09:
            continue  # a qrels topic the run lacks
        unjudged = [f"u{n}" for n in rng.choice(40, size=int(rng.integers(0, 8)), replace=False)]
        candidates = pool + unjudged
        length = int(rng.integers(1, min(len(candidates), 25) + 1))
        docs = list(rng.choice(candidates, size=length, replace=False))
        scores = rng.integers(0, 6, size=length).astype(float) / 2  # many ties
        ranks = rng.permutation(length) * int(rng.integers(1, 3)) + int(rng.integers(0, 2))
        for doc, rank, score in zip(docs, ranks, scores, strict=True):
            run.append((topic, str(doc), int(rank), float(score)))
    # run-only topics (not in the qrels)
    run.append(("999", "d1", 1, 1.0))
    run.append(("999", "d2", 2, 0.5))
    return qrels, run


def expected_order(run, order: str) -> dict[str, list[str]]:
    """topic -> docnos in divaeval's order, computed independently of divaeval."""
    by_topic: dict[str, list] = {}
    for topic, doc, rank, score in run:
        by_topic.setdefault(topic, []).append((doc, rank, score))
    out = {}
    for topic, rows in by_topic.items():
        if order == "score":
            # score descending, ties by docno descending (byte order): sort ascending on
            # (score, docno) and reverse
            rows = sorted(rows, key=lambda row: (row[2], row[0].encode()), reverse=True)
        else:
            rows = sorted(rows, key=lambda row: row[1])
        out[topic] = [row[0] for row in rows]
    return out


def write_inputs(tmp_path, qrels, run):
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels))
    run_path = tmp_path / "run.txt"
    run_path.write_text("".join(f"{t} Q0 {d} {r} {s!r} cross\n" for t, d, r, s in run))
    return qrels_path, run_path


def pyndeval_values(qrels, ordered, *, alpha, beta, rel_level=1, depth=None):
    """pyndeval on score = −position, so that its own tie rule never applies."""
    run = [
        (topic, doc, -float(position))
        for topic, docs in ordered.items()
        for position, doc in enumerate(docs[:depth] if depth else docs)
    ]
    evaluator = pyndeval.RelevanceEvaluator(
        qrels, MEASURES, relevance_level=rel_level, alpha=alpha, beta=beta
    )
    return evaluator.evaluate(run)


def divaeval_values(qrels_path, run_path, *, alpha, beta, **settings):
    measures = [f"{m}(alpha={alpha})@{','.join(map(str, KS))}" for m in CUTOFF_METRICS[:4]]
    measures += [f"{m}@{','.join(map(str, KS))}" for m in CUTOFF_METRICS[4:]]
    measures += [f"NRBP(alpha={alpha},beta={beta})", f"nNRBP(alpha={alpha},beta={beta})", "MAP-IA"]
    settings.setdefault("order", "score")  # pyndeval's; compat="ndeval" alone means "rank"
    table = divaeval.evaluate([str(run_path)], str(qrels_path), measures, **settings).per_topic
    out: dict[str, dict[str, float]] = {}
    for _, topic, measure, value in table.itertuples(index=False, name=None):
        base = re.sub(r"\(.*\)", "", measure)  # ERR-IA(alpha=0.3)@5 -> ERR-IA@5
        out.setdefault(str(topic), {})[base] = float(value)
    return out


def compare(ours, theirs, *, compat: bool) -> list:
    assert set(ours) == set(theirs), sorted(set(ours) ^ set(theirs))[:5]
    mismatches = []
    for topic, values in theirs.items():
        for measure, expected in values.items():
            got = ours[topic][measure]
            if not compat and measure in ("ERR-IA@1", "alpha-DCG@1"):
                continue  # ndeval's unnormalised @1: only in compat mode
            if not compat and math.isnan(expected):
                assert measure == "nNRBP"
                assert got == 0.0  # divaeval's native S = 0 value
                continue
            if math.isnan(expected) or math.isnan(got):
                ok = math.isnan(expected) and math.isnan(got)
            else:
                ok = abs(got - expected) <= TOL
            if not ok:
                mismatches.append((topic, measure, got, expected))
    return mismatches


@pytest.mark.parametrize(
    ("seed", "alpha", "beta", "order"),
    [
        (1, 0.5, 0.5, "score"),
        (2, 0.5, 0.5, "rank"),
        (3, 0.25, 0.75, "score"),
        (4, 0.3, 0.9, "rank"),
        (5, 0.9, 0.8, "score"),
        (6, 1.0, 0.0, "score"),
        (7, 0.0, 1.0, "rank"),
    ],
)
@pytest.mark.parametrize("compat", [False, True])
def test_random_cases_agree_with_pyndeval(tmp_path, seed, alpha, beta, order, compat):
    qrels, run = generate(seed)
    qrels_path, run_path = write_inputs(tmp_path, qrels, run)
    ordered = expected_order(run, order)
    theirs = pyndeval_values(qrels, ordered, alpha=alpha, beta=beta)
    ours = divaeval_values(
        qrels_path,
        run_path,
        alpha=alpha,
        beta=beta,
        order=order,
        compat="ndeval" if compat else None,
    )
    mismatches = compare(ours, theirs, compat=compat)
    assert not mismatches, mismatches[:10]
    # the generator really exercised the edge cases
    if not compat:
        assert any(math.isnan(v["nNRBP"]) for v in theirs.values())  # S = 0 topics
    assert "999" not in ours  # run-only topic: not evaluated


@pytest.mark.parametrize(("seed", "depth", "rel_level"), [(11, 3, 1), (12, None, 2), (13, 7, 2)])
def test_depth_and_relevance_level(tmp_path, seed, depth, rel_level):
    # -M truncates after ordering (pyndeval: the run cut to `depth`); -l raises the relevance
    # threshold (pyndeval's relevance_level)
    qrels, run = generate(seed, n_topics=150)
    qrels_path, run_path = write_inputs(tmp_path, qrels, run)
    ordered = expected_order(run, "score")
    theirs = pyndeval_values(qrels, ordered, alpha=0.5, beta=0.5, rel_level=rel_level, depth=depth)
    ours = divaeval_values(
        qrels_path, run_path, alpha=0.5, beta=0.5, depth=depth, rel_level=rel_level, compat="ndeval"
    )
    mismatches = compare(ours, theirs, compat=True)
    assert not mismatches, mismatches[:10]


def test_generated_data_has_ties_and_unjudged_documents():
    qrels, run = generate(1)
    judged = {(t, d) for t, _, d, _ in qrels}
    assert any((t, d) not in judged for t, d, _, _ in run)
    per_topic: dict[str, list[float]] = {}
    for t, _, _, s in run:
        per_topic.setdefault(t, []).append(s)
    assert sum(len(s) != len(set(s)) for s in per_topic.values()) > 100
    assert any(s == "0" for _, s, _, _ in qrels)
    assert any(g < 0 for *_, g in qrels) and any(g == 0 for *_, g in qrels)


@pytest.mark.parametrize(("seed", "rel"), [(14, 2), (15, 3)])
def test_rel_parameter_is_the_per_measure_relevance_level(tmp_path, seed, rel):
    # ir_measures' alpha_nDCG(rel=2)@20 etc. (pyndeval's relevance_level) as divaeval's
    # rel= on each measure, with -l left at 1
    qrels, run = generate(seed, n_topics=150)
    qrels_path, run_path = write_inputs(tmp_path, qrels, run)
    ordered = expected_order(run, "score")
    theirs = pyndeval_values(qrels, ordered, alpha=0.5, beta=0.5, rel_level=rel)
    with_rel = [f"{m}(rel={rel})@{','.join(map(str, KS))}" for m in CUTOFF_METRICS]
    with_rel += [f"NRBP(rel={rel})", f"nNRBP(rel={rel})", f"MAP-IA(rel={rel})"]
    table = divaeval.evaluate(
        [str(run_path)], str(qrels_path), with_rel, order="score", compat="ndeval"
    ).per_topic
    ours: dict[str, dict[str, float]] = {}
    for _, topic, measure, value in table.itertuples(index=False, name=None):
        ours.setdefault(str(topic), {})[re.sub(r"\(.*\)", "", measure)] = float(value)
    mismatches = compare(ours, theirs, compat=True)
    assert not mismatches, mismatches[:10]
