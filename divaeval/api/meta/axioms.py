"""``divaeval meta axioms``: the formal constraints of Amigó et al. (SIGIR 2018, Eqs. 1-10)
checked on measures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import _flag, _integer, _library_call, _measures
from divaeval.api.results import Result
from divaeval.errors import UsageError
from divaeval.meta.axioms import CONSTRAINTS, PAPER_TABLE1, check_axioms
from divaeval.meta.axioms import constraint as constraint_named

if TYPE_CHECKING:
    import pandas as pd


@dataclass(eq=False, repr=False)
class AxiomsResult(Result):
    """:func:`axioms`: :attr:`report` of every measure and constraint; :attr:`frame` one row
    per measure and constraint, :meth:`verdicts` the measure × constraint matrix,
    :attr:`counterexamples` and :attr:`spaces` (what each check searched)."""

    report: Any
    paper: bool = False

    @property
    def frame(self) -> pd.DataFrame:
        return self.report.frame()

    def verdicts(self, *, symbols: bool = True) -> pd.DataFrame:
        return self.report.verdict_frame(symbols=symbols, paper=self.paper)

    @property
    def counterexamples(self) -> pd.DataFrame:
        return self.report.counterexample_frame()

    @property
    def spaces(self) -> pd.DataFrame:
        return self.report.space_frame()


def axioms(
    measures: str | Sequence[str] | None = (),
    *,
    table1: bool = False,
    constraint: str | Sequence[str] = (),
    seed: int | None = None,
    cases: int = 400,
    max_length: int = 20,
    top_grade: int = 10,
) -> AxiomsResult:
    """The ten formal constraints of Amigó et al. (SIGIR 2018, Eqs. 1-10) checked on each
    measure (``divaeval meta axioms``): :attr:`~AxiomsResult.frame` one row per measure and
    constraint (value 1 satisfied, 0 not, with a counterexample); ``verdicts()`` the measure x
    constraint matrix; ``counterexamples``; ``spaces`` what each check searched. ``table1``
    adds the 20 metrics of the paper's Table 1.

    >>> divaeval.axioms(["P@10", "alpha-nDCG@10"], constraint=["Pri", "Conf", "Red"],
    ...                 cases=20).verdicts()
             measure Pri Conf Red
    0           P@10   ○    ○   ○
    1  alpha-nDCG@10   ○    ○   ●
    """

    _flag(table1, "table1")
    _integer(seed, "seed", 0, none=True)
    _integer(cases, "cases", 0)
    _integer(max_length, "max_length", 2)
    _integer(top_grade, "top_grade", 4, 16)
    chosen = _measures(measures) + ([text for text, _ in PAPER_TABLE1.values()] if table1 else [])
    if not chosen:
        raise UsageError("axioms: give measures or table1=True")
    with _library_call():
        keys = [constraint_named(k).key for k in _measures(constraint, "constraint")]
        report = check_axioms(
            chosen,
            keys or list(CONSTRAINTS),
            seed=42 if seed is None else seed,
            random_cases=cases,
            max_length=max_length,
            top_grade=top_grade,
        )
    return AxiomsResult(f"divaeval {__version__}|meta axioms|{report.signature()}", report, table1)
