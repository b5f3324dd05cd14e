"""The verdicts of measures × constraints (:class:`AxiomReport`) and their tables: the
verdict matrix (●/○, beside the paper's Table 1 on request), the long table with witnesses and
counterexamples, the counterexamples and the search spaces."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from divaeval.meta.axioms.cases import Space
from divaeval.meta.axioms.constraints import (
    ABSOLUTE_TOLERANCE,
    CONSTRAINTS,
    TOLERANCE,
    AxiomResult,
    constraint,
)
from divaeval.meta.axioms.table1 import paper_table1


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
        return pd.DataFrame(
            [[self.result(m, k).value for k in self.constraints] for m in self.measures],
            index=pd.Index(self.measures, name="measure"),
            columns=list(self.constraints),
        )

    def frame(self, *, flat: bool = False):
        """Long table: measure, constraint, value (1/0), comparisons, witness, counterexample
        (a dict, or its JSON text when ``flat``; None when satisfied) and the search space."""
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
