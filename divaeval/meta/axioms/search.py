"""The search: :func:`check_axioms` checks measures against constraints, scoring every case
through the normal machinery (:func:`score_cases`): every case of a constraint is one topic of
one in-memory qrels file, the a and b rankings are two runs, judged once
(:func:`divaeval.judged.judge_texts`) and scored by every measure at once, so no metric code is
duplicated here.

A measure with a cutoff k is checked on rankings of at most k documents for the universal
constraints (a constraint about documents below the cutoff is about documents the measure does
not see); DeepTh and CloseTh always search the full ``max_length``, since documents pushed below
the cutoff are exactly how a cutoff measure satisfies DeepTh. Cases are scored in batches of
equal largest grade, so that file-level scales (the largest grade of the qrels file) are each
case's own: a counterexample run alone scores the same.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

import numpy as np

from divaeval.errors import UsageError
from divaeval.judged import judge_texts, trec_run_text
from divaeval.meta.axioms.cases import (
    DEFAULT_MAX_LENGTH,
    DEFAULT_RANDOM_CASES,
    DEFAULT_SEED,
    DEFAULT_TOP_GRADE,
    Case,
    Space,
    case_intent_lines,
    case_max_grade,
    case_qrels_lines,
    doc_name,
)
from divaeval.meta.axioms.constraints import (
    CONSTRAINTS,
    AxiomResult,
    constraint,
    judge_constraint,
)
from divaeval.meta.axioms.report import AxiomReport
from divaeval.metrics import Measure, compute_measures, parse_measure
from divaeval.settings import Settings

_NO_TOPIC = "none"


def run_text(pairs: list[tuple[str, str]], tag: str) -> str:
    """TREC run text of ``(topic, docno)`` pairs; when every ranking is empty, one line of a
    topic absent from the qrels (a run file cannot be empty; such a topic is left out)."""
    return trec_run_text(pairs or [(_NO_TOPIC, _NO_TOPIC)], tag=tag)


def score_cases(cases: Sequence[Case], measures: Sequence) -> dict:
    """Measure -> (scores of the a rankings, scores of the b rankings), each ``[len(cases)]``.

    Cases with the same largest grade share one in-memory qrels/intents text (a topic per
    case) and two runs, judged once and scored by every measure; the partition keeps
    file-level scales (the largest grade of the qrels, e.g. ERR's G) equal to the case's own,
    so that every case, run alone, scores the same."""
    out = {measure: (np.empty(len(cases)), np.empty(len(cases))) for measure in measures}
    top = np.array([case_max_grade(case) for case in cases])
    settings = Settings(order="file", complete=True)
    for grade in np.unique(top):
        rows = np.flatnonzero(top == grade)
        qrels: list[str] = []
        intents: list[str] = []
        for number, row in enumerate(rows.tolist(), start=1):
            qrels.extend(case_qrels_lines(cases[row], str(number)))
            intents.extend(case_intent_lines(cases[row], str(number)))
        runs = [
            run_text(
                [
                    (str(number), doc_name(j))
                    for number, row in enumerate(rows.tolist(), start=1)
                    for j in getattr(cases[row], side)
                ],
                side,
            )
            for side in ("a", "b")
        ]
        judged = judge_texts(
            "\n".join(qrels) + "\n",
            runs,
            intents="\n".join(intents) + "\n",
            settings=settings,
        )
        position = rows[np.array([int(t) for t in judged[0].topics]) - 1]
        for side, jr in enumerate(judged):
            values = compute_measures(jr, measures)
            for measure in measures:
                out[measure][side][position] = values[measure]
    return out


def check_axioms(
    measures: Sequence,
    constraints: Sequence[str] = CONSTRAINTS,
    *,
    seed: int = DEFAULT_SEED,
    random_cases: int = DEFAULT_RANDOM_CASES,
    max_length: int = DEFAULT_MAX_LENGTH,
    top_grade: int = DEFAULT_TOP_GRADE,
) -> AxiomReport:
    """Check ``measures`` (``-m`` strings or :class:`~divaeval.metrics.Measure` values) against
    ``constraints`` (keys of :data:`CONSTRAINTS`). Deterministic for a given seed."""
    started = time.perf_counter()
    space = Space(max_length, random_cases, top_grade, seed)
    parsed: list = []
    for item in measures:
        for measure in [item] if isinstance(item, Measure) else parse_measure(item):
            if measure not in parsed:
                parsed.append(measure)
    if not parsed:
        raise UsageError("axioms: no measure given")
    specs = [constraint(k) for k in constraints]

    def cap_of(measure) -> int:
        return max_length if measure.cutoff is None else min(max_length, measure.cutoff)

    results: list[AxiomResult] = []
    for spec in specs:
        index = CONSTRAINTS.index(spec.key)
        by_cap: dict[int, list] = {}
        for measure in parsed:
            cap = cap_of(measure) if spec.uses_cutoff else max_length
            by_cap.setdefault(cap, []).append(measure)
        for cap, group in by_cap.items():
            rng = np.random.default_rng([seed, index, cap])
            cases = spec.generate(space, rng, cap)
            text = spec.space_text(space, cap, len(cases))
            if not cases:
                results.extend(
                    AxiomResult(m.name, spec.key, True, 0, text + " (vacuous)") for m in group
                )
                continue
            scores = score_cases(cases, group)
            for measure in group:
                a, b = scores[measure]
                results.append(judge_constraint(spec, cases, a, b, text, measure.name))
    names = [m.name for m in parsed]
    order = {(m, k): i for i, (m, k) in enumerate(itertools.product(names, constraints))}
    results.sort(key=lambda r: order[(r.measure, r.constraint)])
    return AxiomReport(names, [s.key for s in specs], results, space, time.perf_counter() - started)
