"""Table 1 of Amigó, Spina & Carrillo-de-Albornoz (SIGIR 2018): which constraints each metric
satisfies, as the paper prints it, and the divaeval measure of each row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from divaeval.metrics import parse_measure

if TYPE_CHECKING:
    from divaeval.meta.axioms.report import AxiomReport


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
    out = []
    for paper_name, (text, cells) in PAPER_TABLE1.items():
        (measure,) = parse_measure(text)
        if measure.name in report.measures:
            out.append((paper_name, measure.name, cells, report.row(measure.name)))
    return out
