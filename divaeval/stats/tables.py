"""Publication tables: runs × measures in LaTeX with significance superscripts
(:func:`divaeval.report.latex.runs_by_measures`), from an evaluation (``divaeval -f latex``) or
from the comparisons of ``divaeval compare -f latex``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from divaeval.report.latex import runs_by_measures
from divaeval.stats.compare import compare_runs
from divaeval.stats.significance import DEFAULT_SEED

EVALUATION_TEST = "ttest"
EVALUATION_CORRECTION = "holm"
EVALUATION_ALPHA = 0.05


def comparisons_latex(
    runs: Sequence[str],
    comparisons: Mapping[str, object],
    *,
    precision: int = 4,
    note: str = "",
    signature: str = "",
) -> str:
    """One table for several measures from :class:`~divaeval.stats.compare.Comparison` values
    (measure name -> comparison of ``runs``): means and the runs each significantly beats."""
    means: dict[tuple[str, str], float] = {}
    beats: dict[tuple[str, str], list[str]] = {}
    for measure, comparison in comparisons.items():
        for row in comparison.runs.itertuples(index=False):  # type: ignore[attr-defined]
            means[(row.run, measure)] = float(row.mean)
            beats[(row.run, measure)] = list(row.beats)
    return runs_by_measures(
        runs, list(comparisons), means, beats, precision=precision, note=note, signature=signature
    )


def evaluation_latex(evaluation, *, mean: str = "arith", precision: int = 4, signature: str = ""):
    """``divaeval -f latex``: each run's mean (``--mean``) of each measure, the best in bold;
    superscripts from two-sided paired t-tests with Holm's correction at α = 0.05 over the
    topics that every run was evaluated on."""
    runs = [run.name for run in evaluation.runs]
    means = {}
    for run in evaluation.runs:
        averaged = evaluation.means(run, mean)
        for measure in evaluation.measures:
            means[(run.name, measure.name)] = float(averaged[measure])
    beats: dict[tuple[str, str], list[str]] = {}
    common = set(str(t) for t in evaluation.runs[0].topics)
    for run in evaluation.runs[1:]:
        common &= {str(t) for t in run.topics}
    note = ""
    if len(runs) > 1 and len(common) > 1:
        order = sorted(common)
        for measure in evaluation.measures:
            rows = []
            for run in evaluation.runs:
                position = {str(t): i for i, t in enumerate(run.topics)}
                rows.append(run.values[measure][[position[t] for t in order]])
            scores = np.vstack(rows)
            if not np.all(np.isfinite(scores)):
                continue
            comparison = compare_runs(
                scores,
                runs,
                test=EVALUATION_TEST,
                alpha=EVALUATION_ALPHA,
                correction=EVALUATION_CORRECTION,
                ci="t",
                seed=DEFAULT_SEED,
            )
            for row in comparison.runs.itertuples(index=False):
                beats[(row.run, measure.name)] = list(row.beats)
        note = (
            f"superscripts: significantly better than the runs with those numbers (two-sided "
            f"paired t-test, Holm-corrected, alpha = {EVALUATION_ALPHA}, over the "
            f"{len(common)} topics common to every run)"
        )
    return runs_by_measures(
        runs,
        [m.name for m in evaluation.measures],
        means,
        beats,
        precision=precision,
        note=note,
        signature=signature,
    )
