"""``divaeval report``: the self-contained HTML page of runs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from divaeval import __version__
from divaeval.api._common import (
    _in_memory,
    _library_call,
    _measures,
    _risk_alpha,
    _settings,
    _with_baseline,
    _workers,
)
from divaeval.api.comparison import Testing
from divaeval.api.readers import parse_measures
from divaeval.api.results import Result
from divaeval.atomic import written_whole
from divaeval.errors import UsageError
from divaeval.evaluation import Evaluation, load_inputs, open_runs, score_evaluation
from divaeval.io.memory import MemoryInputs
from divaeval.judged import judge_run
from divaeval.plots.coverage import coverage_of_rankings
from divaeval.plots.differences import against_baseline
from divaeval.plots.figure import Figure, combined
from divaeval.plots.heatmap import topic_heatmap
from divaeval.plots.report import curve_measures, report_html, verdict
from divaeval.risk_measures import check_risk_alpha
from divaeval.settings import JUDGING, Settings
from divaeval.stats import Comparison
from divaeval.stats.effects import mean_t_cis


@dataclass(eq=False, repr=False)
class ReportResult(Result):
    """:func:`report_page`: :attr:`html`, the self-contained page; :attr:`means` (also
    :attr:`frame`), the means table it shows (run, measure, mean, ci_low and ci_high of its
    t interval, p_adjusted and significant: the test against the baseline);
    :attr:`evaluation`, every run scored on every topic (the measures and the cutoff curves'
    measures); :attr:`baseline`, the baseline's name."""

    html: str
    means: pd.DataFrame
    evaluation: Evaluation
    baseline: str
    measures: list[str]
    risk_alpha: float | None = None
    #: the page's first sentence: the best run on the main measure, and its wins and losses
    #: against the baseline
    verdict: str = ""

    @property
    def frame(self) -> pd.DataFrame:
        return self.means

    def figure(self) -> Figure:
        """The page's first figures: the per-topic differences against the baseline and the
        runs × topics heat map of the main measure."""

        table = self.evaluation.table(summary=False)
        return combined(
            [
                against_baseline(
                    table, self.baseline, measures=self.measures, risk_alpha=self.risk_alpha
                ),
                topic_heatmap(table, self.measures[:1]),
            ]
        )

    def write(self, path: str | os.PathLike) -> None:
        """Write the page to ``path``, whole or not at all (the old file stays on failure)."""
        with (
            written_whole(os.fspath(path)) as temporary,
            open(temporary, "w", encoding="utf-8") as out,
        ):
            out.write(self.html)


#: the measures of the report when none are given: the TREC Web Track's diversity measures
REPORT_MEASURES = ("alpha-nDCG@20", "ERR-IA@20")


def report_page(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    baseline: Any = None,
    risk_alpha: float | str | None = None,
    test: str = "ttest",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    correction: str | None = None,
    title: str = "divaeval report",
    settings: Settings | None = None,
    **options: Any,
) -> ReportResult:
    """The report page (``divaeval report``; named ``report_page`` because
    :mod:`divaeval.report` is the package of the table writers): one self-contained HTML
    file (:attr:`~ReportResult.html`; :meth:`~ReportResult.write`) with the means table
    (confidence intervals, and ``test`` against the ``baseline`` with ``correction`` as in
    :func:`compare`), the per-topic differences against the baseline (losses also times
    1 + ``risk_alpha`` when given), the runs × topics heat map of the first measure, each
    run's subtopic coverage of any topic, the alpha-nDCG@k and S-recall@k curves (k = 1..20)
    and the subtopics reached by type. ``baseline`` is a run or a path (default: the first
    run); the measures default to alpha-nDCG@20 and ERR-IA@20. Every run is scored on every
    qrels topic; the options are the judging settings.

    >>> result = divaeval.report_page(["sample_data/run.txt", "sample_data/run2.txt",
    ...                           "sample_data/run3.txt"], "sample_data/qrels.txt")
    >>> result.means[["run", "measure", "mean", "p_adjusted"]].round(4)
           run        measure    mean  p_adjusted
    0  ql-cata  alpha-nDCG@20  0.2996         NaN
    1  rm-cata  alpha-nDCG@20  0.3026      0.8447
    2     dssa  alpha-nDCG@20  0.4596      0.2375
    3  ql-cata      ERR-IA@20  0.2562         NaN
    4  rm-cata      ERR-IA@20  0.2626      0.6761
    5     dssa      ERR-IA@20  0.3795      0.3128
    """

    testing = Testing(test, samples, seed, alpha, correction)
    if not isinstance(title, str):
        raise UsageError(f"title: expected a text, got {title!r}")
    chosen = [m.name for m in parse_measures(_measures(measures) or list(REPORT_MEASURES))]
    settings = _settings(settings, options, JUDGING, complete=True)
    risk = None if risk_alpha is None else check_risk_alpha(_risk_alpha(risk_alpha))[0]
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        scored = _scored(inputs, runs, qrels, baseline, chosen, settings, testing)
    means = _means_table(scored, chosen, alpha)
    signature = (
        f"divaeval {__version__}|report|baseline={scored.base}|"
        f"{next(iter(scored.comparisons.values())).signature}|{settings.signature()}|"
        f"measures={','.join(chosen)}"
    )
    table, base = scored.evaluation.table(), scored.base
    html = _page(table, scored, means, chosen, signature=signature, risk_alpha=risk, title=title)
    return ReportResult(
        signature,
        html,
        means,
        scored.evaluation,
        base,
        chosen,
        risk,
        verdict(table, chosen[0], base),
    )


@dataclass(frozen=True)
class _Scored:
    """The runs of the report scored: the evaluation, the runs' names and score tables
    (measure -> [runs, topics]), the baseline's name, each measure's comparisons and each
    run's subtopic coverage."""

    evaluation: Evaluation
    names: list[str]
    tables: dict[str, np.ndarray]
    base: str
    comparisons: dict[str, Comparison]
    coverages: dict[str, Any]


def _scored(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    baseline: Any,
    chosen: list[str],
    settings: Settings,
    testing: Testing,
) -> _Scored:
    """Every run (and the baseline) scored on every qrels topic, on the measures and the
    curves' measures; the measures' comparisons (t intervals); the runs' coverage maps."""
    every, position = _with_baseline(inputs.runs(runs), inputs.baseline(baseline))
    # checked and indexed, then read whole (once: coverage maps judge them again); the
    # scoring names them (by tag, or by file when tags are shared)
    _, index = load_inputs(every, inputs.qrels(qrels), settings, read_runs=False)
    opened = open_runs(every, read=True)
    if len(opened) < 2:
        raise UsageError("report needs at least two runs (or a run and --baseline)")
    with _workers(settings, every) as workers:
        evaluation = score_evaluation(
            opened, index, parse_measures(chosen + curve_measures()), settings, workers
        )
        names, tables = evaluation.score_tables()
        measured = {measure: tables[measure] for measure in chosen}
        comparisons = testing.compare(measured, names, workers, ci="t")
    typed = bool(settings.topics or settings.intents) or bool(index.qrels.type_code.any())
    coverages = {
        name: coverage_of_rankings(judge_run(run, index, settings), typed=typed, run=name)
        for name, run in zip(names, opened, strict=True)
    }
    base = names[0 if position is None else position]
    return _Scored(evaluation, names, tables, base, comparisons, coverages)


def _means_table(scored: _Scored, chosen: list[str], alpha: float) -> pd.DataFrame:
    """Per measure and run: the mean as printed, its t interval at 1 - ``alpha``, and the
    adjusted p-value and significance of its test against the baseline (NaN and False for
    the baseline itself)."""
    table = scored.evaluation.table()
    printed = table[table["topic"] == "all"].set_index(["run", "measure"])["value"]
    base, rows = scored.base, []
    for measure in chosen:
        low, high = mean_t_cis(scored.tables[measure], alpha)
        pairs = scored.comparisons[measure].pairs
        for i, name in enumerate(scored.names):
            against = pairs[
                ((pairs["run_a"] == name) & (pairs["run_b"] == base))
                | ((pairs["run_a"] == base) & (pairs["run_b"] == name))
            ]
            tested = name != base and len(against) == 1
            rows.append(
                {
                    "run": name,
                    "measure": measure,
                    "mean": float(printed[(name, measure)]),
                    "ci_low": float(low[i]),
                    "ci_high": float(high[i]),
                    "p_adjusted": float(against["p_adjusted"].iloc[0]) if tested else np.nan,
                    "significant": bool(against["significant"].iloc[0]) if tested else False,
                }
            )
    return pd.DataFrame(rows)


def _page(
    table: pd.DataFrame,
    scored: _Scored,
    means: pd.DataFrame,
    chosen: list[str],
    **page: Any,
) -> str:
    """The page's HTML (``page``: its signature, risk_alpha and title)."""
    names, base = scored.names, scored.base
    n_topics = scored.tables[chosen[0]].shape[1]
    intro = [
        f"{len(names)} runs × {n_topics} topics, measures {', '.join(chosen)}; baseline {base}.",
        f"Runs: {', '.join(names)}.",
    ]
    return report_html(
        table, scored.coverages, means, measures=chosen, baseline=base, intro=intro, **page
    )
