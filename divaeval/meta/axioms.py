"""Axiomatic analysis: the ten formal constraints of Amigó, Spina and Carrillo-de-Albornoz
(SIGIR 2018, §3, Eqs. 1–10) as executable checks over any measure of the registry.

Each constraint is a generator of *cases*: a single-topic qrels (documents with a grade per
aspect, intent weights) and two rankings a and b of at most ``max_length`` documents, where the
constraint requires Q(a) > Q(b) (Sat: Q(a) >= Q(b)). Cases are scored through the normal
machinery: every case of a constraint is one topic of one in-memory qrels file, the a and b
rankings are two runs, judged once (:func:`divaeval.judged.judge_texts`) and scored by every
measure at once, so no metric code is duplicated here.

The paper's real-valued relevance r(d, t) ∈ [0, 1] is divaeval's grade after the measure's own
grade mapping. Where the paper assumes *relevance contribution* (r ≪ 1), each aspect has an
unranked *anchor* document of grade ``top_grade`` (default 10) and the ranked documents have
grades 1–3: r = (2^g − 1)/2^10 ≤ 0.007 under the exponential mappings (RBU, ERR), g/10 ≤ 0.3
under the linear ones, and binary measures see plain relevance. A topic-level scale, such as an
ideal ranking, is the same for a and b, so normalisation never decides a comparison.

Quantifiers (each check states its search space):

- universal constraints (Pri, Deep, Conf, AspDiv, Red, MRed, AspRel): every enumerated small
  case and ``random_cases`` seeded random cases must satisfy the comparison;
- CloseTh (∃ m): for every setting (the relevant grade), some m ≤ max_length/2;
- DeepTh ("n large enough"): for every setting, every n from some n0 up to max_length/2 (read
  literally, n = 1 would be a Priority swap that every Pri-satisfying measure passes);
- Sat (∃ r_max): some grade r_max ≤ top_grade works for every case.

A measure with a cutoff k is checked on rankings of at most k documents for the universal
constraints (a constraint about documents below the cutoff is about documents the measure does
not see); DeepTh and CloseTh always search the full ``max_length``, since documents pushed below
the cutoff are exactly how a cutoff measure satisfies DeepTh.

Readings where the equations leave something open (docs/axioms.md discusses each):

- Deep, DeepTh and CloseTh compare rankings of equal length, as the paper's proofs do: the
  first ranking of DeepTh/CloseTh, "d_1^rel, …", is padded with non-relevant documents.
- AspDiv and AspRel: the documents after position i are not relevant to the aspects the
  replacement touches (AspDiv: to any aspect), as in the paper's proofs, which compare position
  i alone.
- AspRel: the .txt extraction of Eq. 10 reads w(t) < w(t′) ⇒ Q(d_{d_i↔d′_i}) > Q(d) (d_i is
  relevant to t, d′_i to t′), the only reading consistent with the prose; the PDF extraction
  prints ">".
- Red and MRed need a non-empty d (with d empty both appended rankings are symmetric); their
  collections include ones where every aspect has the same relevant documents, so that
  per-aspect normalisation cannot decide the comparison.
- Cases are scored in batches of equal largest grade, so that file-level scales (the largest
  grade of the qrels file) are each case's own: a counterexample run alone scores the same.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import UsageError

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
#: Intent weights are integers out of this total (divisible by 1..6, so balanced weights exist).
WEIGHT_TOTAL = 120
#: Two scores differ when |Q(a) − Q(b)| exceeds TOLERANCE·max(|Q(a)|, |Q(b)|) and
#: ABSOLUTE_TOLERANCE: far above the rounding of a sum of 20 terms (~1e-16 relative), far
#: below the smallest effect of the cases (second order in r = 2^−top_grade, e.g. MRed).
TOLERANCE = 1e-13
ABSOLUTE_TOLERANCE = 1e-15
LOW_GRADES = (1, 2, 3)
DEFAULT_SEED = 42
DEFAULT_RANDOM_CASES = 400
DEFAULT_MAX_LENGTH = 20
DEFAULT_TOP_GRADE = 10
MAX_TOP_GRADE = 16
MAX_ASPECTS = 4


@dataclass(frozen=True)
class Case:
    """One comparison. Documents are ``d1``…``dN`` with ``grades[j][s]`` their grade for
    aspect ``s + 1``; ``a`` and ``b`` list 0-based document indices in ranking order;
    ``weights`` are intent weights out of :data:`WEIGHT_TOTAL`; ``anchor`` > 0 adds, per aspect,
    an unranked document ``a<s>`` of that grade. ``group``/``candidate``: the setting and the
    witness tried, for the existential constraints."""

    grades: tuple[tuple[int, ...], ...]
    weights: tuple[int, ...]
    a: tuple[int, ...]
    b: tuple[int, ...]
    anchor: int = 0
    note: str = ""
    group: int = 0
    candidate: int = 0

    @property
    def n_aspects(self) -> int:
        return len(self.weights)

    @property
    def size(self) -> int:
        return len(self.a) + len(self.b)


@dataclass(frozen=True)
class Space:
    """The search space shared by the checks (see the module docstring)."""

    max_length: int = DEFAULT_MAX_LENGTH
    random_cases: int = DEFAULT_RANDOM_CASES
    top_grade: int = DEFAULT_TOP_GRADE
    seed: int = DEFAULT_SEED

    def __post_init__(self):
        if self.max_length < 2:
            raise UsageError(f"axioms: max_length must be >= 2, not {self.max_length}")
        if self.random_cases < 0:
            raise UsageError(f"axioms: random_cases must be >= 0, not {self.random_cases}")
        if not max(LOW_GRADES) < self.top_grade <= MAX_TOP_GRADE:
            raise UsageError(
                f"axioms: top_grade must be in {max(LOW_GRADES) + 1}…{MAX_TOP_GRADE} (above the "
                f"low grades; r = 2^−top_grade must stay above the comparison tolerance), not "
                f"{self.top_grade}"
            )


# --- case generators ---------------------------------------------------------------------------


def _weights(rng: np.random.Generator, m: int) -> tuple[int, ...]:
    """Random positive integer weights summing to WEIGHT_TOTAL."""
    cuts = np.sort(rng.choice(np.arange(1, WEIGHT_TOTAL), size=m - 1, replace=False))
    return tuple(int(w) for w in np.diff(np.r_[0, cuts, WEIGHT_TOTAL]))


def _balanced(m: int) -> tuple[int, ...]:
    return (WEIGHT_TOTAL // m,) * m


def _swap(order: Sequence[int], i: int, j: int) -> tuple[int, ...]:
    out = list(order)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def _single(grades: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple((int(g),) for g in grades)


def _priority(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 1: r(d_{i+k}) > r(d_i) ⇒ Q(d_{i↔i+k}) > Q(d)."""
    G = space.top_grade
    cases: list[Case] = []
    for length in range(2, min(4, cap) + 1):
        for seq in itertools.product(range(3), repeat=length):
            for i, j in itertools.combinations(range(length), 2):
                if seq[j] > seq[i]:
                    order = tuple(range(length))
                    cases.append(
                        Case(
                            _single(seq),
                            (WEIGHT_TOTAL,),
                            _swap(order, i, j),
                            order,
                            G,
                            f"swap positions {i + 1} and {j + 1}",
                        )
                    )
    for _ in range(space.random_cases if cap >= 2 else 0):
        length = int(rng.integers(2, cap + 1))
        drawn = [int(g) for g in rng.integers(0, 4, size=length)]
        i, j = sorted(int(x) for x in rng.choice(length, size=2, replace=False))
        drawn[i], drawn[j] = sorted(int(x) for x in rng.choice(4, size=2, replace=False))
        extra = [int(g) for g in rng.integers(1, 4, size=int(rng.integers(0, 3)))]  # unranked
        order = tuple(range(length))
        cases.append(
            Case(
                _single([*drawn, *extra]),
                (WEIGHT_TOTAL,),
                _swap(order, i, j),
                order,
                G,
                f"swap positions {i + 1} and {j + 1}",
            )
        )
    return cases


def _deepness(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 2: r(d_i) = r(d_j) < r(d_{i+1}) = r(d_{j+1}), i < j ⇒ Q(d_{i↔i+1}) > Q(d_{j↔j+1})."""
    G = space.top_grade

    def case(seq, i, j):
        order = tuple(range(len(seq)))
        return Case(
            _single(seq),
            (WEIGHT_TOTAL,),
            _swap(order, i, i + 1),
            _swap(order, j, j + 1),
            G,
            f"swap {i + 1}↔{i + 2} against {j + 1}↔{j + 2}",
        )

    cases: list[Case] = []
    for length in range(4, min(5, cap) + 1):
        for seq in itertools.product(range(3), repeat=length):
            for i in range(length - 1):
                for j in range(i + 2, length - 1):
                    if seq[i] == seq[j] < seq[i + 1] == seq[j + 1]:
                        cases.append(case(seq, i, j))
    for _ in range(space.random_cases if cap >= 4 else 0):
        length = int(rng.integers(4, cap + 1))
        drawn = [int(g) for g in rng.integers(0, 4, size=length)]
        i = int(rng.integers(0, length - 3))
        j = int(rng.integers(i + 2, length - 1))
        low, high = sorted(int(x) for x in rng.choice(4, size=2, replace=False))
        drawn[i] = drawn[j] = low
        drawn[i + 1] = drawn[j + 1] = high
        cases.append(case(drawn, i, j))
    return cases


def _threshold_settings(space: Space, close: bool) -> list[Case]:
    """Eqs. 3–4 under binary relevance: one relevant grade g per setting (the group), n (or
    m) = 1 … max_length/2 (the candidate); the first ranking is padded to the same length."""
    G = space.top_grade
    half = space.max_length // 2
    cases: list[Case] = []
    for group, g in enumerate(LOW_GRADES):
        grades = _single([g] * half + [0] * (2 * half - 1))
        rel = list(range(half))
        non = list(range(half, 3 * half - 1))
        for n in range(1, half + 1):
            top = (rel[0], *non[: 2 * n - 1])
            late = (*non[:n], *rel[:n])
            a, b = (late, top) if close else (top, late)
            what = "m" if close else "n"
            cases.append(
                Case(
                    grades,
                    (WEIGHT_TOTAL,),
                    a,
                    b,
                    G,
                    f"relevant grade {g}, {what} = {n}",
                    group=group,
                    candidate=n,
                )
            )
    return cases


def _deepness_threshold(space, rng, cap):
    """Eq. 3: ∃n. Q(d^rel_1, …) > Q(d^¬rel_1 … d^¬rel_n, d^rel_1 … d^rel_n)."""
    return _threshold_settings(space, close=False)


def _closeness_threshold(space, rng, cap):
    """Eq. 4: ∃m. Q(d^rel_1, …) < Q(d^¬rel_1 … d^¬rel_m, d^rel_1 … d^rel_m)."""
    return _threshold_settings(space, close=True)


def _confidence(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 5: Q(d) > Q(d, d^¬rel)."""
    G = space.top_grade
    cases: list[Case] = []

    def case(seq):
        order = tuple(range(len(seq)))
        grades = _single([*seq, 0])
        return Case(
            grades,
            (WEIGHT_TOTAL,),
            order,
            (*order, len(seq)),
            G,
            f"append a non-relevant document at position {len(seq) + 1}",
        )

    for length in range(0, min(3, cap - 1) + 1):
        for seq in itertools.product(range(3), repeat=length):
            cases.append(case(seq))
    for _ in range(space.random_cases if cap >= 2 else 0):
        cases.append(case(rng.integers(0, 4, size=int(rng.integers(0, cap)))))
    return cases


def _aspect_diversity(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 6: ∀t. r(d′_i, t) > r(d_i, t) ⇒ Q(d_{d_i↔d′_i}) > Q(d) (r ≪ 1; documents after i
    not relevant)."""
    G = space.top_grade

    def case(prefix, before, after, tail, weights):
        docs = [*prefix, before, after, *tail]
        n = len(prefix)
        rest = tuple(range(n + 2, len(docs)))
        return Case(
            tuple(docs),
            weights,
            (*range(n), n + 1, *rest),
            (*range(n + 1), *rest),
            G,
            f"replace d{n + 1} at position {n + 1} by d{n + 2}",
        )

    cases: list[Case] = []
    # enumerated: 1–2 aspects, grades 0–2, at most one document before and one after
    for m, weights in ((1, (WEIGHT_TOTAL,)), (2, _balanced(2)), (2, (40, 80))):
        vectors = list(itertools.product(range(3), repeat=m))
        prefixes = [(), *((v,) for v in vectors)]
        for before, prefix, tail in itertools.product(vectors, prefixes, [(), ((0,) * m,)]):
            if len(prefix) + 1 + len(tail) > cap or max(before) > 1:
                continue
            for after in itertools.product(*(range(g + 1, 3) for g in before)):
                cases.append(case(prefix, before, after, tail, weights))
    for _ in range(space.random_cases):
        m = int(rng.integers(1, MAX_ASPECTS + 1))
        length = int(rng.integers(1, cap + 1))
        i = int(rng.integers(0, length))
        above = [tuple(int(g) for g in rng.integers(0, 4, size=m)) for _ in range(i)]
        lower = tuple(int(g) for g in rng.integers(0, 3, size=m))
        higher = tuple(int(rng.integers(g + 1, 4)) for g in lower)
        below = [(0,) * m] * (length - i - 1)
        cases.append(case(above, lower, higher, below, _weights(rng, m)))
    return cases


def _redundancy(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 7 (binary, balanced, no overlap): |{d_i: r(d_i,t) = r_c}| > |{d_i: r(d_i,t′) = r_c}|
    ⇒ Q(d, d′) > Q(d, d)."""

    def case(aspects, m, t, t2, g, balanced):
        # document j of the prefix is relevant to aspect aspects[j] (0 = none); then d (t),
        # d′ (t′) and unranked relevant documents: one per aspect, or (balanced) as many as
        # make every aspect's number of relevant documents equal
        def doc(aspect):
            return tuple(g if s == aspect else 0 for s in range(1, m + 1))

        docs = [doc(a) for a in aspects]
        n = len(docs)
        docs.extend([doc(t), doc(t2)])
        counts = [list(aspects).count(u) + (u in (t, t2)) for u in range(1, m + 1)]
        for u in range(1, m + 1):
            extra = max(counts) + 1 - counts[u - 1] if balanced else 1
            docs.extend([doc(u)] * extra)
        prefix = tuple(range(n))
        return Case(
            tuple(docs),
            _balanced(m),
            (*prefix, n + 1),
            (*prefix, n),
            0,
            f"append d{n + 2} (aspect {t2}) rather than d{n + 1} (aspect {t}); relevant grade {g}",
        )

    cases: list[Case] = []
    m = 2
    for length in range(1, min(3, cap - 1) + 1):
        for aspects in itertools.product(range(m + 1), repeat=length):
            for t, t2 in itertools.permutations(range(1, m + 1), 2):
                if aspects.count(t) > aspects.count(t2):
                    cases.extend(case(aspects, m, t, t2, 1, balanced) for balanced in (1, 0))
    for _ in range(space.random_cases if cap >= 2 else 0):
        m = int(rng.integers(2, MAX_ASPECTS + 1))
        length = int(rng.integers(1, cap))
        drawn = [int(a) for a in rng.integers(0, m + 1, size=length)]
        t, t2 = (int(x) for x in rng.choice(np.arange(1, m + 1), size=2, replace=False))
        if drawn.count(t) <= drawn.count(t2):
            drawn[int(rng.integers(0, length))] = t
            if drawn.count(t) <= drawn.count(t2):
                continue
        cases.append(case(drawn, m, t, t2, int(rng.choice(LOW_GRADES)), bool(rng.integers(0, 2))))
    return cases


def _monotonic_redundancy(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 8 (two balanced aspects, r ≪ 1): ∀d_i ∈ d. r(d_i,t) > r(d_i,t′) ⇒ Q(d,d′) > Q(d,d)."""
    G = space.top_grade

    def case(pairs, t, g, balanced):
        # pairs: (grade for t, grade for t′) of each prefix document; balanced: an unranked
        # mirror document (grades swapped) per prefix document, so both aspects have the same
        # grades in the qrels
        def doc(gt, gt2):
            return (gt, gt2) if t == 1 else (gt2, gt)

        docs = [doc(gt, gt2) for gt, gt2 in pairs]
        n = len(docs)
        docs.extend([doc(g, 0), doc(0, g)])
        if balanced:
            docs.extend(doc(gt2, gt) for gt, gt2 in pairs)
        prefix = tuple(range(n))
        return Case(
            tuple(docs),
            _balanced(2),
            (*prefix, n + 1),
            (*prefix, n),
            G,
            f"append d{n + 2} (aspect {3 - t}) rather than d{n + 1} (aspect {t})",
        )

    ordered = [(a, b) for a in range(3) for b in range(3) if a > b]
    cases: list[Case] = []
    for length in range(1, min(2, cap - 1) + 1):
        for pairs in itertools.product(ordered, repeat=length):
            for t in (1, 2):
                for g in (1, 2):
                    cases.extend(case(pairs, t, g, balanced) for balanced in (1, 0))
    for _ in range(space.random_cases if cap >= 2 else 0):
        length = int(rng.integers(1, cap))
        tops = [int(x) for x in rng.integers(1, 4, size=length)]
        drawn = [(top, int(rng.integers(0, top))) for top in tops]
        t, g = int(rng.integers(1, 3)), int(rng.choice(LOW_GRADES))
        cases.append(case(drawn, t, g, bool(rng.integers(0, 2))))
    return cases


def _saturation(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 9 (no overlap): ∃ r_max. r(d_n,t) = r_max ∧ r(d_{n+1},t) > 0 ⇒ Q(d) ≥ Q(d, d_{n+1});
    each setting (group) is tried with every grade 1 … top_grade as r_max (candidate)."""
    G = space.top_grade

    def settings():
        yield 1, (WEIGHT_TOTAL,), [], 1, 1
        yield 1, (WEIGHT_TOTAL,), [], 1, G
        yield 2, _balanced(2), [(0, 1)], 1, 1
        for _ in range(max(space.random_cases // 4, 1) if cap >= 2 else 0):
            m = int(rng.integers(1, MAX_ASPECTS + 1))
            n = int(rng.integers(1, cap))
            prefix = []
            for _ in range(n - 1):
                doc = [0] * m
                aspect = int(rng.integers(0, m + 1))
                if aspect:
                    doc[aspect - 1] = int(rng.integers(1, G + 1))
                prefix.append(tuple(doc))
            t = int(rng.integers(1, m + 1))
            yield m, _weights(rng, m), prefix, t, int(rng.integers(1, G + 1))

    cases: list[Case] = []
    for group, (m, weights, prefix, t, next_grade) in enumerate(settings()):
        if len(prefix) + 2 > cap:
            continue
        for r_max in range(1, G + 1):
            dn = tuple(r_max if s == t else 0 for s in range(1, m + 1))
            nxt = tuple(next_grade if s == t else 0 for s in range(1, m + 1))
            docs = (*prefix, dn, nxt)
            order = tuple(range(len(prefix) + 1))
            cases.append(
                Case(
                    docs,
                    weights,
                    order,
                    (*order, len(order)),
                    G,
                    f"r_max: d{len(order)} has grade {r_max} for aspect {t}; append "
                    f"d{len(order) + 1} (grade {next_grade}, aspect {t})",
                    group=group,
                    candidate=r_max,
                )
            )
    return cases


def _aspect_relevance(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 10 (no overlap): d_i relevant to t, d′_i to t′ with the same grade, neither aspect
    seen before (nor after) position i: w(t) < w(t′) ⇒ Q(d_{d_i↔d′_i}) > Q(d)."""
    G = space.top_grade

    def case(m, weights, t, t2, g, before, after):
        # before/after: aspects (0 = none; never t or t2) of the documents around position i
        def doc(aspect, grade):
            return tuple(grade if s == aspect else 0 for s in range(1, m + 1))

        docs = [doc(a, g) for a in before]
        n = len(docs)
        docs.extend([doc(t, g), doc(t2, g)])
        docs.extend(doc(a, g) for a in after)
        rest = tuple(range(n + 2, len(docs)))
        return Case(
            tuple(docs),
            weights,
            (*range(n), n + 1, *rest),
            (*range(n + 1), *rest),
            G,
            f"replace d{n + 1} (aspect {t}, weight {weights[t - 1]}/{WEIGHT_TOTAL}) by "
            f"d{n + 2} (aspect {t2}, weight {weights[t2 - 1]}/{WEIGHT_TOTAL}), grade {g}",
        )

    cases: list[Case] = []
    pairs: tuple[tuple[int, ...], ...] = ((40, 80), (80, 40), (59, 61))
    for weights in pairs:
        t, t2 = (1, 2) if weights[0] < weights[1] else (2, 1)
        for g in (1, 2, G):
            for before, after in (((), ()), ((0,), ()), ((), (0,)), ((0,), (0, 0))):
                if len(before) + 1 + len(after) <= cap:
                    cases.append(case(2, weights, t, t2, g, before, after))
    for _ in range(space.random_cases):
        m = int(rng.integers(2, MAX_ASPECTS + 1))
        weights = _weights(rng, m)
        t, t2 = (int(x) for x in rng.choice(np.arange(1, m + 1), size=2, replace=False))
        if weights[t - 1] == weights[t2 - 1]:
            continue
        if weights[t - 1] > weights[t2 - 1]:
            t, t2 = t2, t
        others = [0, *(s for s in range(1, m + 1) if s not in (t, t2))]
        length = int(rng.integers(1, cap + 1))
        i = int(rng.integers(0, length))
        above = [int(rng.choice(others)) for _ in range(i)]
        below = [int(rng.choice(others)) for _ in range(length - i - 1)]
        cases.append(case(m, weights, t, t2, int(rng.integers(1, G + 1)), above, below))
    return cases


# --- the constraints -------------------------------------------------------------------------


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
            generate=_priority,
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
            generate=_deepness,
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
            generate=_deepness_threshold,
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
            generate=_closeness_threshold,
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
            generate=_confidence,
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
            generate=_aspect_diversity,
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
            generate=_redundancy,
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
            generate=_monotonic_redundancy,
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
            generate=_saturation,
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
            generate=_aspect_relevance,
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


# --- scoring a batch of cases ------------------------------------------------------------------


def _doc(j: int) -> str:
    return f"d{j + 1}"


def _run_text(pairs: list[tuple[str, str]], tag: str) -> str:
    """TREC run text of ``(topic, docno)`` pairs; when every ranking is empty, one line of a
    topic absent from the qrels (a run file cannot be empty; such a topic is left out)."""
    from divaeval.judged import trec_run_text

    return trec_run_text(pairs or [(_NO_TOPIC, _NO_TOPIC)], tag=tag)


_NO_TOPIC = "none"


def case_qrels_lines(case: Case, topic: str) -> list[str]:
    """TREC qrels lines of a case: every positive grade, grade 0 on aspect 1 for documents
    relevant to nothing, and the anchors."""
    lines = []
    for j, grades in enumerate(case.grades):
        positive = [(s, g) for s, g in enumerate(grades, start=1) if g > 0]
        for s, g in positive or [(1, 0)]:
            lines.append(f"{topic} {s} {_doc(j)} {g}")
    if case.anchor:
        lines.extend(f"{topic} {s} a{s} {case.anchor}" for s in range(1, case.n_aspects + 1))
    return lines


def case_intent_lines(case: Case, topic: str) -> list[str]:
    return [f"{topic} {s} {repr(w / WEIGHT_TOTAL)}" for s, w in enumerate(case.weights, start=1)]


def case_max_grade(case: Case) -> int:
    return max([case.anchor, *(g for grades in case.grades for g in grades)])


def score_cases(cases: Sequence[Case], measures: Sequence) -> dict:
    """Measure -> (scores of the a rankings, scores of the b rankings), each ``[len(cases)]``.

    Cases with the same largest grade share one in-memory qrels/intents text (a topic per
    case) and two runs, judged once and scored by every measure; the partition keeps
    file-level scales (the largest grade of the qrels, e.g. ERR's G) equal to the case's own,
    so that every case, run alone, scores the same."""
    from divaeval.judged import judge_texts
    from divaeval.metrics import compute_measures
    from divaeval.settings import Settings

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
            _run_text(
                [
                    (str(number), _doc(j))
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


def tolerance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The difference below which two scores count as equal (see :data:`TOLERANCE`)."""
    return np.maximum(TOLERANCE * np.maximum(np.abs(a), np.abs(b)), ABSOLUTE_TOLERANCE)


def _holds(a: np.ndarray, b: np.ndarray, strict: bool) -> np.ndarray:
    """Q(a) > Q(b) (strict) or Q(a) >= Q(b), within :func:`tolerance`; False on NaN."""
    return (a - b > tolerance(a, b)) if strict else (b - a <= tolerance(a, b))


# --- results -------------------------------------------------------------------------------------


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

    def rescore(self, measure) -> tuple[float, float]:
        """(Q(a), Q(b)) of ``measure`` computed afresh from this counterexample alone (as
        ``divaeval RUN QRELS --intents I --order file -c -m MEASURE`` would)."""
        from divaeval.judged import judge_texts
        from divaeval.metrics import Measure, compute_measures, parse_measure
        from divaeval.settings import Settings

        (measure,) = [measure] if isinstance(measure, Measure) else parse_measure(measure)
        runs = [
            _run_text([("q", doc) for doc in ranking], tag)
            for tag, ranking in (("a", self.ranking_a), ("b", self.ranking_b))
        ]
        judged = judge_texts(
            "\n".join(self.qrels) + "\n",
            runs,
            intents="\n".join(self.intents) + "\n",
            settings=Settings(order="file", complete=True),
        )
        a, b = (float(compute_measures(jr, [measure])[measure][0]) for jr in judged)
        return a, b

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


def _counterexample(case: Case, a: float, b: float, strict: bool, note: str) -> Counterexample:
    return Counterexample(
        qrels=tuple(case_qrels_lines(case, "q")),
        intents=tuple(case_intent_lines(case, "q")),
        ranking_a=tuple(_doc(j) for j in case.a),
        ranking_b=tuple(_doc(j) for j in case.b),
        score_a=float(a),
        score_b=float(b),
        expected="Q(a) > Q(b)" if strict else "Q(a) >= Q(b)",
        note=note,
    )


def _margin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Q(a) − Q(b) relative to the larger score (to pick the closest failed candidate)."""
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), ABSOLUTE_TOLERANCE)
    return np.nan_to_num((a - b) / scale, nan=-np.inf)


def judge_constraint(
    spec: Constraint,
    cases: Sequence[Case],
    a: np.ndarray,
    b: np.ndarray,
    space_text: str,
    measure: str,
) -> AxiomResult:
    """Apply the constraint's quantifier to the scores of its cases."""
    ok = _holds(a, b, spec.strict)
    size = np.array([c.size for c in cases])
    group = np.array([c.group for c in cases])
    candidate = np.array([c.candidate for c in cases])

    def result(satisfied, witness=None, index=None, note=""):
        example = None
        if index is not None:
            case = cases[index]
            example = _counterexample(
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
                closest = int(rows[np.argmax(_margin(a[rows], b[rows]))])
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


@dataclass
class AxiomReport:
    """Verdicts of measures × constraints (rows in measure order, columns in Table 1 order)."""

    measures: list[str]
    constraints: list[str]
    results: list[AxiomResult]
    space: Space
    seconds: float = 0.0
    _index: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self._index = {(r.measure, r.constraint): r for r in self.results}

    def result(self, measure: str, key: str) -> AxiomResult:
        return self._index[(measure, key)]

    def row(self, measure: str) -> str:
        """The measure's verdicts as ●/○ in constraint order."""
        return "".join("●" if self.result(measure, k).satisfied else "○" for k in self.constraints)

    def matrix(self):
        """pandas DataFrame: measures × constraints, 1 = satisfied, 0 = not."""
        import pandas as pd

        return pd.DataFrame(
            [[self.result(m, k).value for k in self.constraints] for m in self.measures],
            index=pd.Index(self.measures, name="measure"),
            columns=list(self.constraints),
        )

    def frame(self, *, flat: bool = False):
        """Long table: measure, constraint, value (1/0), comparisons, witness, counterexample
        (a dict, or its JSON text when ``flat``; None when satisfied) and the search space."""
        import json

        import pandas as pd

        rows = []
        for r in self.results:
            example: dict | str | None = r.counterexample.as_dict() if r.counterexample else None
            if flat:
                example = "" if example is None else json.dumps(example, ensure_ascii=False)
            rows.append(
                {
                    "measure": r.measure,
                    "constraint": r.constraint,
                    "value": r.value,
                    "comparisons": r.comparisons,
                    "witness": ("" if flat else None) if r.witness is None else r.witness,
                    "counterexample": example,
                    "space": r.space,
                }
            )
        return pd.DataFrame(rows)

    def verdict_frame(self, *, symbols: bool = True, paper: bool = False):
        """measure × constraint: ●/○ (or 1/0). ``paper``: for the rows of the paper's Table 1,
        the paper's metric, its verdicts and the constraints where divaeval differs."""
        import pandas as pd

        published = {}
        if paper:
            published = {name: (p, cells) for p, name, cells, _ in paper_table1(self)}
        rows = []
        for m in self.measures:
            row: dict = {"measure": m}
            for k in self.constraints:
                value = self.result(m, k).value
                row[k] = ("●" if value else "○") if symbols else value
            if paper:
                paper_name, cells = published.get(m, ("", ""))
                theirs = "".join(cells[CONSTRAINTS.index(k)] for k in self.constraints if cells)
                row["paper"] = paper_name
                row["published"] = theirs
                row["differs"] = " ".join(
                    k
                    for k, x, y in zip(self.constraints, theirs, self.row(m), strict=False)
                    if x != y
                )
            rows.append(row)
        return pd.DataFrame(rows)

    def counterexample_frame(self):
        """One row per unsatisfied (measure, constraint): both rankings, both scores, the
        qrels and intents of topic q, and what the case is."""
        import pandas as pd

        rows = []
        for r in self.results:
            c = r.counterexample
            if c is None:
                continue
            rows.append(
                {
                    "measure": r.measure,
                    "constraint": r.constraint,
                    "a": " ".join(c.ranking_a) or "(empty)",
                    "b": " ".join(c.ranking_b) or "(empty)",
                    "Q(a)": c.score_a,
                    "Q(b)": c.score_b,
                    "grades (aspect: doc=grade)": c.grades_text(),
                    "weights": " ".join(
                        f"{line.split()[1]}:{float(line.split()[2]):.3g}" for line in c.intents
                    ),
                    "note": c.note,
                }
            )
        return pd.DataFrame(rows)

    def space_frame(self):
        """The search space of each constraint (one row per distinct space: a cutoff caps the
        ranking length of the universal constraints)."""
        import pandas as pd

        seen: dict[tuple[str, str], int] = {}
        for r in self.results:
            seen.setdefault((r.constraint, r.space), r.comparisons)
        return pd.DataFrame(
            [
                {"constraint": k, "equation": constraint(k).equation, "space": space}
                for (k, space) in seen
            ]
        )

    def signature(self) -> str:
        s = self.space
        return (
            f"axioms|seed={s.seed}|random={s.random_cases}|length<={s.max_length}"
            f"|top_grade={s.top_grade}|tol={TOLERANCE:g}+{ABSOLUTE_TOLERANCE:g}"
        )


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
    import time

    from divaeval.metrics import Measure, parse_measure

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


# --- the paper's Table 1 -------------------------------------------------------------------------

#: Amigó et al. 2018, Table 1: paper row name -> (divaeval measure, verdicts in CONSTRAINTS
#: order). Decoded from the PDF text, where ● is lost and ○ is printed "#": the cells are the
#: single-space-separated tokens after the metric name (an empty token is ●); a row that ends
#: in ● carries one trailing space, dropped. The measures follow the paper's formulas: graded
#: r where the paper's formula is graded, the --intents weights where it has w(t), @10 for @k.
PAPER_TABLE1: dict[str, tuple[str, str]] = {
    "P@k": ("P@10", "○○●●○○○○○○"),
    "RR": ("RR", "○○●○○○○○○○"),
    "AP": ("AP", "○○○●○○○○○○"),
    "nDCG@k": ("nDCG@10", "●●○●○○○○○○"),
    "ERR@k": ("ERR@10", "●●●○○○○○○○"),
    "RBP": ("RBP(gain=graded)", "●●●●○○○○○○"),
    "P-IA@k": ("P-IA(weights=intents)@10", "○○●●○○○○○●"),
    "RR-IA@k": ("RR-IA@10", "○○●○○○○○●●"),
    "AP-IA": ("MAP-IA(weights=intents)", "●●○●○○○○○●"),
    "nDCG-IA@k": ("nDCG-IA@10", "●●○●○●○○○●"),
    "ERR-IA@k": ("ERR-IA-textbook@10", "●●●○○●●●●●"),
    "RBP-IA": ("RBP-IA(gain=graded)", "●●●●○●○○○●"),
    "S-Recall@k": ("strec@10", "○○●○○○○○●○"),
    "S-RR@100%": ("S-RR", "○○●○○○○○●○"),
    "NRBP": ("NRBP-RBU", "●●●●○●●○○○"),
    "D#-Measure@k": ("D#-nDCG@10", "●●○●○●○○○●"),
    "α-nDCG@k": ("alpha-nDCG(gain=graded)@10", "●●●●○●●○○○"),
    "EU": ("EU", "●●●●●●●○○●"),
    "CT@k": ("CT-RBU@10", "●●●○○●●○●●"),
    "RBU@k": ("RBU@10", "●●●●●●●●●●"),
}


def paper_table1(report: AxiomReport) -> list[tuple[str, str, str, str]]:
    """(paper metric, divaeval measure, paper's row over all ten constraints, divaeval's row
    over ``report``'s constraints) for the paper's rows that ``report`` checked."""
    from divaeval.metrics import parse_measure

    out = []
    for paper_name, (text, cells) in PAPER_TABLE1.items():
        (measure,) = parse_measure(text)
        if measure.name in report.measures:
            out.append((paper_name, measure.name, cells, report.row(measure.name)))
    return out


def table1_rows(report: AxiomReport) -> list[tuple[str, str, str, str]]:
    """:func:`paper_table1` restricted to the constraints ``report`` checked."""
    picks = [CONSTRAINTS.index(k) for k in report.constraints]
    return [
        (paper, name, "".join(cells[i] for i in picks), mine)
        for paper, name, cells, mine in paper_table1(report)
    ]


__all__ = [
    "CONSTRAINTS",
    "PAPER_TABLE1",
    "AxiomReport",
    "AxiomResult",
    "Case",
    "Constraint",
    "Counterexample",
    "Space",
    "check_axioms",
    "constraint",
    "paper_table1",
    "score_cases",
]
