"""The cases the formal constraints are checked on (Amigó, Spina & Carrillo-de-Albornoz,
SIGIR 2018, §3): :class:`Case` (a single-topic qrels with intent weights and two rankings a and
b), the search space :class:`Space`, one generator per constraint (Eqs. 1-10), and a case's
qrels and intent lines.

A generator returns every enumerated small case and ``space.random_cases`` seeded random ones
(universal constraints), or one case per (setting, candidate) for the existential ones. The
paper's real-valued relevance r(d, t) ∈ [0, 1] is divaeval's grade after the measure's own grade
mapping: where the paper assumes r ≪ 1, each aspect has an unranked *anchor* document of grade
``top_grade`` (default 10) and the ranked documents have grades 1–3.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.errors import UsageError

#: Intent weights are integers out of this total (divisible by 1..6, so balanced weights exist).
WEIGHT_TOTAL = 120


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


def priority_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def deepness_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def deepness_threshold_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 3: ∃n. Q(d^rel_1, …) > Q(d^¬rel_1 … d^¬rel_n, d^rel_1 … d^rel_n)."""
    return _threshold_settings(space, close=False)


def closeness_threshold_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
    """Eq. 4: ∃m. Q(d^rel_1, …) < Q(d^¬rel_1 … d^¬rel_m, d^rel_1 … d^rel_m)."""
    return _threshold_settings(space, close=True)


def confidence_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def aspect_diversity_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def redundancy_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def monotonic_redundancy_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def saturation_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def aspect_relevance_cases(space: Space, rng: np.random.Generator, cap: int) -> list[Case]:
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


def doc_name(j: int) -> str:
    return f"d{j + 1}"


def case_qrels_lines(case: Case, topic: str) -> list[str]:
    """TREC qrels lines of a case: every positive grade, grade 0 on aspect 1 for documents
    relevant to nothing, and the anchors."""
    lines = []
    for j, grades in enumerate(case.grades):
        positive = [(s, g) for s, g in enumerate(grades, start=1) if g > 0]
        for s, g in positive or [(1, 0)]:
            lines.append(f"{topic} {s} {doc_name(j)} {g}")
    if case.anchor:
        lines.extend(f"{topic} {s} a{s} {case.anchor}" for s in range(1, case.n_aspects + 1))
    return lines


def case_intent_lines(case: Case, topic: str) -> list[str]:
    return [f"{topic} {s} {repr(w / WEIGHT_TOTAL)}" for s, w in enumerate(case.weights, start=1)]


def case_max_grade(case: Case) -> int:
    return max([case.anchor, *(g for grades in case.grades for g in grades)])
