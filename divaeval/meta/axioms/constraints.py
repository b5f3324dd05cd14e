"""The ten formal constraints (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018, §3, Eqs.
1–10) and how a verdict is reached: :class:`Constraint` (equation, statement, quantifier, the
cases it is checked on), the comparison of two scores within :data:`TOLERANCE`, and
:func:`judge_constraint`, which applies a constraint's quantifier to the scores of its cases and
keeps a counterexample when it fails.

Quantifiers: ``forall`` (Pri, Deep, Conf, AspDiv, Red, MRed, AspRel): every case; ``exists``
(CloseTh): per setting, some candidate m; ``eventually`` (DeepTh, "n large enough"): per setting,
every n from some n0 up to the largest searched; ``exists-forall`` (Sat): one r_max grade for
every case.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.errors import UsageError
from divaeval.meta.axioms.cases import (
    Case,
    Space,
    aspect_diversity_cases,
    aspect_relevance_cases,
    case_intent_lines,
    case_qrels_lines,
    closeness_threshold_cases,
    confidence_cases,
    deepness_cases,
    deepness_threshold_cases,
    doc_name,
    monotonic_redundancy_cases,
    priority_cases,
    redundancy_cases,
    saturation_cases,
)

#: The constraints, in the order of the paper's Table 1.
CONSTRAINTS: tuple[str, ...] = (
    "Pri",
    "Deep",
    "DeepTh",
    "CloseTh",
    "Conf",
    "AspDiv",
    "Red",
    "MRed",
    "Sat",
    "AspRel",
)


#: Two scores differ when |Q(a) − Q(b)| exceeds TOLERANCE·max(|Q(a)|, |Q(b)|) and
#: ABSOLUTE_TOLERANCE: far above the rounding of a sum of 20 terms (~1e-16 relative), far
#: below the smallest effect of the cases (second order in r = 2^−top_grade, e.g. MRed).
TOLERANCE = 1e-13


ABSOLUTE_TOLERANCE = 1e-15


@dataclass(frozen=True)
class Constraint:
    """One formal constraint: its equation, the cases it is checked on and its quantifier
    (``forall``: every case; ``exists``: per setting, some candidate; ``eventually``: per
    setting, every candidate from some point on; ``exists-forall``: one candidate for every
    case)."""

    key: str
    name: str
    equation: int
    side: str  # relevance | diversity
    statement: str
    quantifier: str
    generate: Callable[[Space, np.random.Generator, int], list[Case]]
    conditions: str
    grades: str  # low | binary-low | binary | full: the grades of the cases (space_text)
    strict: bool = True
    uses_cutoff: bool = True  # rankings capped at the measure's cutoff

    def space_text(self, space: Space, cap: int, n_cases: int) -> str:
        """What the check searched, in words."""
        G = space.top_grade
        grades = {
            "low": f"ranked grades 0–3 under an unranked anchor of grade {G} per aspect (r ≪ 1)",
            "binary-low": f"one relevant grade g ∈ {{1, 2, 3}} per setting under an unranked "
            f"anchor of grade {G} (r ≪ 1)",
            "binary": "one relevant grade g ∈ {1, 2, 3} per case, no anchor",
            "full": f"grades 1–{G} with an unranked anchor of grade {G} per aspect",
        }[self.grades]
        half = space.max_length // 2
        seeded = f"seed {space.seed}"
        scope = {
            "forall": f"enumerated small cases and {space.random_cases} random ones "
            f"({seeded}), rankings of at most {cap} documents",
            "exists": f"some m in 1…{half}, for each setting",
            "eventually": f"every n from some n0 up to {half} (n large enough), for each setting",
            "exists-forall": f"some r_max grade in 1…{G} for all of 3 + {space.random_cases // 4} "
            f"settings ({seeded}), rankings of at most {cap} documents",
        }[self.quantifier]
        return f"{self.conditions}; {grades}; {scope}; {n_cases} comparisons"


_CONSTRAINTS: dict[str, Constraint] = {
    c.key: c
    for c in (
        Constraint(
            key="Pri",
            name="Priority",
            equation=1,
            side="relevance",
            statement="r(d_{i+k}) > r(d_i) ⇒ Q(d_{i↔i+k}) > Q(d)",
            quantifier="forall",
            generate=priority_cases,
            conditions="single aspect; swaps i < j with r(d_j) > r(d_i)",
            grades="low",
        ),
        Constraint(
            key="Deep",
            name="Deepness",
            equation=2,
            side="relevance",
            statement="r(d_i) = r(d_j) < r(d_{i+1}) = r(d_{j+1}), i < j ⇒ "
            "Q(d_{i↔i+1}) > Q(d_{j↔j+1})",
            quantifier="forall",
            generate=deepness_cases,
            conditions="single aspect; two equal adjacent pairs, i + 2 <= j",
            grades="low",
        ),
        Constraint(
            key="DeepTh",
            name="Deepness threshold",
            equation=3,
            side="relevance",
            statement="∃n. Q(d^rel_1, …) > Q(d^¬rel_1…d^¬rel_n, d^rel_1…d^rel_n)",
            quantifier="eventually",
            generate=deepness_threshold_cases,
            conditions="single aspect, binary relevance, both rankings 2n long, as many "
            "relevant documents judged as the largest n",
            grades="binary-low",
            uses_cutoff=False,
        ),
        Constraint(
            key="CloseTh",
            name="Closeness threshold",
            equation=4,
            side="relevance",
            statement="∃m. Q(d^rel_1, …) < Q(d^¬rel_1…d^¬rel_m, d^rel_1…d^rel_m)",
            quantifier="exists",
            generate=closeness_threshold_cases,
            conditions="single aspect, binary relevance, both rankings 2m long",
            grades="binary-low",
            uses_cutoff=False,
        ),
        Constraint(
            key="Conf",
            name="Confidence",
            equation=5,
            side="relevance",
            statement="Q(d) > Q(d, d^¬rel)",
            quantifier="forall",
            generate=confidence_cases,
            conditions="single aspect; a judged non-relevant document appended (d may be empty)",
            grades="low",
        ),
        Constraint(
            key="AspDiv",
            name="Query aspect diversity",
            equation=6,
            side="diversity",
            statement="∀t. r(d′_i, t) > r(d_i, t) ⇒ Q(d_{d_i↔d′_i}) > Q(d)",
            quantifier="forall",
            generate=aspect_diversity_cases,
            conditions="1–4 aspects, random weights, overlap allowed; nothing relevant after "
            "position i",
            grades="low",
        ),
        Constraint(
            key="Red",
            name="Redundancy",
            equation=7,
            side="diversity",
            statement="|{d_i: r(d_i,t) = r_c}| > |{d_i: r(d_i,t′) = r_c}| ⇒ Q(d, d′) > Q(d, d)",
            quantifier="forall",
            generate=redundancy_cases,
            conditions="2–4 balanced aspects, no overlap, d non-empty; collections with equal "
            "numbers of relevant documents per aspect, and others",
            grades="binary",
        ),
        Constraint(
            key="MRed",
            name="Monotonic redundancy",
            equation=8,
            side="diversity",
            statement="∀d_i ∈ d. r(d_i,t) > r(d_i,t′) ⇒ Q(d, d′) > Q(d, d)",
            quantifier="forall",
            generate=monotonic_redundancy_cases,
            conditions="two balanced aspects, d non-empty; collections with the same grades "
            "for both aspects (a mirrored unranked document per ranked one), and others",
            grades="low",
        ),
        Constraint(
            key="Sat",
            name="Aspect relevance saturation",
            equation=9,
            side="diversity",
            statement="∃r_max. r(d_n,t) = r_max ∧ r(d_{n+1},t) > 0 ⇒ Q(d) ≥ Q(d, d_{n+1})",
            quantifier="exists-forall",
            generate=saturation_cases,
            conditions="1–4 aspects, random weights, no overlap",
            grades="full",
            strict=False,
        ),
        Constraint(
            key="AspRel",
            name="Aspect relevance",
            equation=10,
            side="diversity",
            statement="w(t) < w(t′) ⇒ Q(d_{d_i↔d′_i}) > Q(d)",
            quantifier="forall",
            generate=aspect_relevance_cases,
            conditions="2–4 aspects, random distinct weights, no overlap; t and t′ unseen "
            "before and after position i",
            grades="full",
        ),
    )
}


def constraint(key: str) -> Constraint:
    for name, spec in _CONSTRAINTS.items():
        if name.lower() == key.strip().lower():
            return spec
    raise UsageError(f"unknown constraint {key!r} (choose from {', '.join(CONSTRAINTS)})")


def tolerance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The difference below which two scores count as equal (see :data:`TOLERANCE`)."""
    return np.maximum(TOLERANCE * np.maximum(np.abs(a), np.abs(b)), ABSOLUTE_TOLERANCE)


def holds(a: np.ndarray, b: np.ndarray, strict: bool) -> np.ndarray:
    """Q(a) > Q(b) (strict) or Q(a) >= Q(b), within :func:`tolerance`; False on NaN."""
    return (a - b > tolerance(a, b)) if strict else (b - a <= tolerance(a, b))


def margin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Q(a) − Q(b) relative to the larger score (to pick the closest failed candidate)."""
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), ABSOLUTE_TOLERANCE)
    return np.nan_to_num((a - b) / scale, nan=-np.inf)


@dataclass(frozen=True)
class Counterexample:
    """A case where the constraint fails: the qrels (topic ``q``), the intents, both rankings
    and both scores."""

    qrels: tuple[str, ...]
    intents: tuple[str, ...]
    ranking_a: tuple[str, ...]
    ranking_b: tuple[str, ...]
    score_a: float
    score_b: float
    expected: str
    note: str

    def grades_text(self) -> str:
        """The positive grades per aspect, ``1: d1=2 a1=10; 2: …`` (other documents: 0)."""
        by_aspect: dict[str, list[str]] = {}
        for line in self.qrels:
            _, aspect, doc, grade = line.split()
            if int(grade) > 0:
                by_aspect.setdefault(aspect, []).append(f"{doc}={grade}")
        return "; ".join(f"{a}: {' '.join(docs)}" for a, docs in by_aspect.items()) or "none"

    def as_dict(self) -> dict:
        return {
            "qrels": list(self.qrels),
            "intents": list(self.intents),
            "ranking_a": list(self.ranking_a),
            "ranking_b": list(self.ranking_b),
            "score_a": self.score_a,
            "score_b": self.score_b,
            "expected": self.expected,
            "note": self.note,
        }


@dataclass(frozen=True)
class AxiomResult:
    """The verdict of one measure on one constraint."""

    measure: str
    constraint: str
    satisfied: bool
    comparisons: int
    space: str
    witness: str | None = None
    counterexample: Counterexample | None = None

    @property
    def value(self) -> int:
        return int(self.satisfied)


def counterexample_of(case: Case, a: float, b: float, strict: bool, note: str) -> Counterexample:
    return Counterexample(
        qrels=tuple(case_qrels_lines(case, "q")),
        intents=tuple(case_intent_lines(case, "q")),
        ranking_a=tuple(doc_name(j) for j in case.a),
        ranking_b=tuple(doc_name(j) for j in case.b),
        score_a=float(a),
        score_b=float(b),
        expected="Q(a) > Q(b)" if strict else "Q(a) >= Q(b)",
        note=note,
    )


def judge_constraint(
    spec: Constraint,
    cases: Sequence[Case],
    a: np.ndarray,
    b: np.ndarray,
    space_text: str,
    measure: str,
) -> AxiomResult:
    """Apply the constraint's quantifier to the scores of its cases."""
    ok = holds(a, b, spec.strict)
    size = np.array([c.size for c in cases])
    group = np.array([c.group for c in cases])
    candidate = np.array([c.candidate for c in cases])

    def result(satisfied, witness=None, index=None, note=""):
        example = None
        if index is not None:
            case = cases[index]
            example = counterexample_of(
                case, a[index], b[index], spec.strict, "; ".join(p for p in (case.note, note) if p)
            )
        return AxiomResult(measure, spec.key, satisfied, len(cases), space_text, witness, example)

    if spec.quantifier == "forall":
        if ok.all():
            return result(True)
        bad = np.flatnonzero(~ok)
        return result(False, index=int(bad[np.lexsort((bad, size[bad]))[0]]))
    if spec.quantifier in ("exists", "eventually"):
        # per setting (group): some candidate holds (exists), or every candidate from some
        # n0 up to the largest tried holds (eventually: "n large enough")
        name = "m" if spec.key == "CloseTh" else "n"
        witnesses = []
        for g in np.unique(group):
            rows = np.flatnonzero(group == g)
            rows = rows[np.argsort(candidate[rows], kind="stable")]
            top = int(candidate[rows[-1]])
            if spec.quantifier == "exists":
                good = rows[ok[rows]]
                if len(good):
                    witnesses.append(int(candidate[good[0]]))
                    continue
                closest = int(rows[np.argmax(margin(a[rows], b[rows]))])
                return result(
                    False,
                    index=closest,
                    note=f"no {name} in 1…{top} satisfies it (shown: the closest)",
                )
            if not ok[rows[-1]]:
                return result(
                    False,
                    index=int(rows[-1]),
                    note=f"fails at {name} = {top}, the largest {name} searched",
                )
            failing = np.flatnonzero(~ok[rows])
            witnesses.append(int(candidate[rows[failing[-1] + 1]]) if len(failing) else 1)
        if spec.quantifier == "exists":
            return result(True, witness=f"{name} = {max(witnesses)} works for every setting")
        return result(True, witness=f"every {name} >= {max(witnesses)} works for every setting")
    # exists-forall
    candidates = np.unique(candidate)
    for c in candidates[::-1]:  # the largest r_max first
        rows = np.flatnonzero(candidate == c)
        if ok[rows].all():
            return result(True, witness=f"r_max = grade {int(c)}")
    rows = np.flatnonzero((candidate == candidates.max()) & ~ok)
    return result(
        False,
        index=int(rows[np.lexsort((rows, size[rows]))[0]]),
        note=f"no r_max grade in 1…{int(candidates.max())} works for every case "
        f"(shown: grade {int(candidates.max())})",
    )
