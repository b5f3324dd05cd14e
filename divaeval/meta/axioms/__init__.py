"""Axiomatic analysis: the ten formal constraints of Amigó, Spina and Carrillo-de-Albornoz
(SIGIR 2018, §3, Eqs. 1–10) as executable checks over any measure of the registry.

Where it lives: :mod:`.cases` (the cases and their generators, one per equation),
:mod:`.constraints` (the ten constraints, the score comparison and the verdict of a
constraint's quantifier), :mod:`.search` (:func:`check_axioms`: scoring the cases of every
constraint by every measure), :mod:`.report` (the verdicts' tables) and :mod:`.table1` (the
paper's Table 1). A new constraint is a generator in :mod:`.cases` and one :class:`Constraint`
in :mod:`.constraints`.

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

from divaeval.meta.axioms.cases import Case, Space
from divaeval.meta.axioms.constraints import (
    CONSTRAINTS,
    AxiomResult,
    Constraint,
    Counterexample,
    constraint,
    judge_constraint,
    tolerance,
)
from divaeval.meta.axioms.report import AxiomReport
from divaeval.meta.axioms.search import check_axioms, score_cases
from divaeval.meta.axioms.table1 import PAPER_TABLE1, paper_table1

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
    "judge_constraint",
    "paper_table1",
    "score_cases",
    "tolerance",
]
