"""THE public Python API: every command of the CLI as a function returning a result object; the
command line is a thin layer over it (it parses its options, calls the function here and prints
what it returns).

One signature style throughout: the inputs first (``runs, qrels`` for the analyses of runs;
``qrels`` alone for the collection analyses; the measures alone for the generated cases), then
``measures`` (``-m`` strings: one string is one measure specification, or a list; the command's
default when empty or None), then the command's own keyword options, then the settings
(:class:`~divaeval.settings.Settings`): as keywords named as the command line's long options
(``--rel-level`` is ``rel_level``, ``-c/--complete`` is ``complete``), checked against the
settings each function takes (an unknown keyword is a :class:`~divaeval.errors.UsageError`
naming it and the valid ones), and/or as ``settings=`` (keywords win).

**Results.** Every function returns a :class:`Result`: ``result.frame`` is the table the
command prints (a pandas DataFrame), ``result.signature`` the command's settings signature,
plus the fields of the analysis (the comparisons, the preferences, the per-topic values, ...).

**Inputs.** ``runs`` is one run or several: a list, or a dict name -> run. A run is a file
path or in-memory data: a pandas DataFrame with the file's columns (``topic, Q0, docno, rank,
score, tag``; ``query_id``/``q_id``, ``doc_id`` also accepted; ``Q0``, ``rank``, ``tag``
optional), a pytrec_eval-style dict ``{topic: {docno: score}}``, or ir_measures' records
(``ScoredDoc(query_id, doc_id, score)``). ``qrels`` is a path, a DataFrame (``topic, subtopic,
docno, grade[, type]`` or ad hoc ``topic, docno, grade``; ir_measures' ``relevance`` and
``iteration``), a dict ``{topic: {docno: grade}}`` or ``{topic: {subtopic: {docno: grade}}}``,
or ir_measures' ``Qrel`` records. In-memory data goes through the file readers' checks
(:mod:`divaeval.io.memory`) and gives exactly the files' numbers; an error names the row,
``run 'bm25': topic 3, docno d7 (row 12): score 'nan' is not a finite number``.

**Warnings** arrive as :class:`~divaeval.errors.DivaevalWarning` through Python's
:mod:`warnings` module (``warnings.simplefilter("ignore", divaeval.DivaevalWarning)`` silences
them); errors are :class:`~divaeval.errors.DivaevalError` (``DataError``, ``UsageError``).

This module is imported by the main job (``divaeval RUN... QRELS``), whose start-up stays free
of pandas and scipy: the analyses import their packages (:mod:`divaeval.stats`,
:mod:`divaeval.meta`, :mod:`divaeval.collection`) when they are called.
"""

from __future__ import annotations

import fnmatch
import operator
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from html import escape as html_escape
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from divaeval import __version__
from divaeval.atomic import written_whole
from divaeval.errors import DivaevalError, UsageError, library_warnings
from divaeval.evaluation import (
    DEFAULT_MEASURES,
    Evaluation,
    check_stdin,
    closing_workers,
    index_qrels,
    load_inputs,
    open_runs,
    risk_settings,
    run_evaluation,
    same_file,
    score_evaluation,
)
from divaeval.io import Intents, Qrels, Run
from divaeval.io import read_intents as read_intents_file
from divaeval.io import read_qrels as read_qrels_file
from divaeval.io import read_run as read_run_file
from divaeval.io import read_topic_types as read_topic_types_file
from divaeval.io.memory import MemoryInputs
from divaeval.judged import judge_run
from divaeval.metrics import Measure, all_specs
from divaeval.metrics import parse_measures as parse_measure_texts
from divaeval.metrics.dialects import measures_signature
from divaeval.metrics.grid import parse_grid
from divaeval.metrics.registry import all_forms, presets
from divaeval.metrics.spec import format_value
from divaeval.risk_measures import RISK_MEASURES, check_risk_alpha, risk_frame
from divaeval.scores import score_matrix as scores_score_matrix
from divaeval.settings import AVERAGING, COMPARING, JUDGING, WORKERS, Settings

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.parallel import Workers
    from divaeval.plots.figure import Figure

__all__ = [
    "Evaluator",
    "agreement",
    "axioms",
    "report_page",
    "collection_table",
    "compare",
    "correlation",
    "degradation",
    "discriminative_power",
    "evaluate",
    "intuitiveness",
    "list_metrics",
    "parse_measures",
    "prefer",
    "read_intents",
    "read_qrels",
    "read_run",
    "read_topic_types",
    "risk",
    "score_matrix",
    "sensitivity",
    "ties",
    "unanimity",
]

#: the settings :func:`evaluate` takes
EVALUATING = (*JUDGING, "complete", *AVERAGING)
#: the settings of :func:`prefer` (pref_eval's own)
PREFERRING = ("rel_level", "depth", "order", "dedupe")
#: the settings of :func:`sensitivity`
SAMPLING = ("rel_level", "intents", "topics", *AVERAGING, *WORKERS)
#: the settings of :func:`collection_table`
COLLECTING = ("rel_level", "topics", "dd_exponent")


# ---------------------------------------------------------------------------------------------
# results


@dataclass(eq=False)
class Result:
    """What every function of the API returns: :attr:`frame`, the table the command line
    prints, and :attr:`signature`, the settings it was computed with (the command line's
    ``--signature``); subclasses add the fields of their analysis."""

    signature: str

    @property
    def frame(self) -> pd.DataFrame:
        raise NotImplementedError  # pragma: no cover

    @property
    def display(self) -> pd.DataFrame:
        """The table shown in Jupyter and in a terminal (default: :attr:`frame`)."""
        return self.frame

    def __repr__(self) -> str:
        return f"{type(self).__name__} ({self.signature})\n{self.display!r}"

    def _repr_html_(self) -> str:
        return f"<p><code>{html_escape(self.signature)}</code></p>{self.display._repr_html_()}"

    def __rich__(self) -> Any:
        """A rich table (``rich.print(result)`` in a terminal)."""
        from rich.table import Table  # rich: only when a result is printed with it

        frame = self.display.reset_index() if self.display.index.name else self.display
        table = Table(title=type(self).__name__, caption=self.signature)
        for column in frame.columns:
            table.add_column(str(column))
        for row in frame.itertuples(index=False):
            table.add_row(*(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row))
        return table

    def figure(self) -> Figure:
        """The result's figure as plain data (:class:`divaeval.plots.figure.Figure`: its
        panels and, in ``data``, the numbers it draws)."""
        raise UsageError(f"{type(self).__name__} has no figure")

    def plot(self, path: str | os.PathLike | None = None) -> Any:
        """The result's figure drawn with matplotlib (the ``plot`` extra): a matplotlib Figure
        to show in a notebook, or, with ``path``, written to that PNG, SVG or PDF file (its
        suffix chooses; the old file stays whole on failure) and None."""
        from divaeval.plots import draw  # matplotlib: only when a figure is asked for

        if path is None:
            draw.pyplot()  # a missing extra is a usage error before any work
            return draw.draw(self.figure())
        draw.check_plot_file(path)
        draw.save(self.figure(), path)
        return None


@dataclass(eq=False, repr=False)
class TableResult(Result):
    """An analysis whose result is one table; ``picture`` builds its figure, where it has one
    (what the figure needs besides the table is bound in it)."""

    table: pd.DataFrame
    picture: Callable[[], Figure] | None = None

    @property
    def frame(self) -> pd.DataFrame:
        return self.table

    def figure(self) -> Figure:
        if self.picture is None:
            return super().figure()
        return self.picture()


@dataclass(eq=False, repr=False)
class EvaluationResult(Result):
    """The runs scored on the measures (:func:`evaluate`), in the shapes users expect:

    - :attr:`per_topic` (also :attr:`frame`): the tidy table run, topic, measure, value of
      the per-topic values only;
    - :attr:`means`: run, measure, value, each run's mean over its topics (by the settings'
      ``mean``; a measure with its own aggregate, such as trec_eval's counts, keeps it);
    - :attr:`wide`: runs × measures of the means;
    - :meth:`to_dict` ``{topic: {measure: value}}`` (pytrec_eval's shape) and
      :meth:`aggregate` ``{measure: mean}`` (ir_measures' ``calc_aggregate``), per run;
    - :meth:`table`: the long table as the command line's ``-q`` prints it (the means as
      topic ``all``);
    - :attr:`evaluation`: the structured result the report writers print
      (:class:`~divaeval.evaluation.Evaluation`)."""

    evaluation: Evaluation

    @property
    def settings(self) -> Settings:
        return self.evaluation.settings

    @property
    def runs(self) -> list[str]:
        """The runs' names, in the order given."""
        return [run.name for run in self.evaluation.runs]

    @property
    def measures(self) -> list[str]:
        """The measures' names, in the order given (presets expanded)."""
        return [measure.name for measure in self.evaluation.measures]

    @cached_property
    def per_topic(self) -> pd.DataFrame:
        return self.evaluation.table(summary=False)

    @property
    def frame(self) -> pd.DataFrame:
        return self.per_topic

    @property
    def display(self) -> pd.DataFrame:
        return self.wide

    @cached_property
    def means(self) -> pd.DataFrame:
        return self.evaluation.table(per_topic=False).drop(columns="topic")

    @cached_property
    def wide(self) -> pd.DataFrame:
        wide = self.means.pivot(index="run", columns="measure", values="value")
        wide = wide.reindex(index=self.runs, columns=self.measures)
        wide.columns.name = None
        return wide

    def table(self, *, per_topic: bool = True, summary: bool = True) -> pd.DataFrame:
        """The long table: per-topic rows (``per_topic``) and the means (``summary``, topic
        ``all``), as the command line prints them."""
        return self.evaluation.table(per_topic=per_topic, summary=summary)

    def latex(self, *, precision: int = 4) -> str:
        """Runs × measures in LaTeX, each run's mean with superscripts for the runs it beats
        significantly (paired t-tests, Holm's correction; ``divaeval -f latex``)."""
        from divaeval.stats.tables import evaluation_latex  # scipy: for this format only

        return evaluation_latex(
            self.evaluation, mean=self.settings.mean, precision=precision, signature=self.signature
        )

    def figure(self) -> Figure:
        """The runs × topics heat map of every measure, and each measure's curve over its
        cutoffs where it has several (``alpha-nDCG@5,10,20``)."""
        from divaeval.plots.cutoffs import cutoff_curves, cutoff_families
        from divaeval.plots.figure import combined
        from divaeval.plots.heatmap import topic_heatmap

        table = self.table()
        curves = cutoff_curves(table)
        families = cutoff_families(self.measures).values()
        inner = {name for cuts in families for _, name in cuts[:-1]}  # the largest k is shown
        mapped = [name for name in self.measures if name not in inner]
        return combined([topic_heatmap(table, mapped), *([curves] if curves else [])])

    def _run(self, run: str | None) -> Any:
        """The scores of the run named ``run`` (None: the only run)."""
        runs = self.evaluation.runs
        if run is None:
            if len(runs) != 1:
                raise UsageError(f"run: name one of the {len(runs)} runs ({', '.join(self.runs)})")
            return runs[0]
        for scores in runs:
            if scores.name == run:
                return scores
        raise UsageError(f"run: no run is named {run!r} (the runs: {', '.join(self.runs)})")

    def to_dict(self, run: str | None = None) -> dict[str, dict[str, float]]:
        """``{topic: {measure: value}}`` of ``run`` (None: the only run), as pytrec_eval's
        ``RelevanceEvaluator.evaluate`` gives it."""
        scores = self._run(run)
        columns = {m.name: scores.values[m].tolist() for m in self.evaluation.measures}
        return {
            str(topic): {name: values[i] for name, values in columns.items()}
            for i, topic in enumerate(scores.topics)
        }

    def aggregate(self, run: str | None = None) -> dict[str, float]:
        """``{measure: mean}`` of ``run`` (None: the only run), as ir_measures'
        ``calc_aggregate`` gives it."""
        scores = self._run(run)
        return {m.name: float(v) for m, v in self.evaluation.means(scores).items()}


@dataclass(eq=False, repr=False)
class ComparisonResult(Result):
    """Every pair of runs compared on each measure (:func:`compare`): :attr:`comparisons`
    (measure -> :class:`~divaeval.stats.Comparison`), :attr:`pairs` (the pairs of every
    measure, :attr:`frame`) and :attr:`run_table` (per measure and run: its mean and the runs
    it significantly beats)."""

    comparisons: dict[str, Any]
    run_names: list[str]
    #: measure -> the signature of its comparison
    signatures: dict[str, str]
    #: the per-topic scores compared: measure -> [runs, topics], and the topics
    tables: dict[str, Any] | None = None
    topics: list[str] | None = None

    def figure(self) -> Figure:
        """Every pair's per-topic differences, sorted (the mean of a panel is its ``diff``)."""
        from divaeval.plots.differences import between_pairs
        from divaeval.plots.figure import long_from_tables

        if self.tables is None or self.topics is None:
            return super().figure()
        return between_pairs(long_from_tables(self.run_names, self.topics, self.tables))

    @cached_property
    def pairs(self) -> pd.DataFrame:
        import pandas as pd  # pandas: built when asked for

        frames = []
        for name, comparison in self.comparisons.items():
            part = comparison.pairs.copy()
            part.insert(0, "measure", name)
            frames.append(part)
        return pd.concat(frames, ignore_index=True)

    @cached_property
    def run_table(self) -> pd.DataFrame:
        import pandas as pd  # pandas: built when asked for

        frames = []
        for name, comparison in self.comparisons.items():
            part = comparison.runs.copy()
            part.insert(0, "measure", name)
            frames.append(part)
        return pd.concat(frames, ignore_index=True)

    @property
    def frame(self) -> pd.DataFrame:
        return self.pairs

    @property
    def display(self) -> pd.DataFrame:
        """Runs × measures: each mean, and after ▲ the runs it beats significantly."""
        table = self.run_table
        marked = [
            f"{mean:.4f}" + (f" ▲ {', '.join(beats)}" if beats else "")
            for mean, beats in zip(table["mean"], table["beats"], strict=True)
        ]
        wide = table.assign(mean=marked).pivot(index="run", columns="measure", values="mean")
        wide = wide.reindex(index=self.run_names, columns=list(self.comparisons))
        wide.columns.name = None
        return wide

    def latex(self, *, runs: bool = True, pairs: bool = True, precision: int = 4) -> str:
        """LaTeX: one runs × measures table of the means with superscripts for the runs each
        beats significantly (``runs``), then each measure's pairs (``pairs``)."""
        from divaeval.stats import comparison_to_latex  # the main job imports api
        from divaeval.stats.tables import comparisons_latex

        texts = []
        if runs:
            texts.append(
                comparisons_latex(
                    self.run_names,
                    self.comparisons,
                    precision=precision,
                    note="superscripts: significantly better than the runs with those numbers "
                    "(the test and correction of the signature)",
                    signature=self.signature,
                )
            )
        if pairs:
            texts += [
                comparison_to_latex(comparison, table="pairs", precision=precision, metric=name)
                for name, comparison in self.comparisons.items()
            ]
        return "\n".join(texts)


@dataclass(eq=False, repr=False)
class PreferenceResult(Result):
    """Lexicographic preferences between every pair of runs (:func:`prefer`):
    :attr:`preferences` (:class:`~divaeval.stats.preferences.Preferences`), the per-topic
    preferences and their means (:meth:`values`, :attr:`frame`), the sign test of every pair
    (:attr:`pairs`) and the rank aggregations of the runs (:attr:`ranking`)."""

    preferences: Any
    correction: str
    alpha: float
    methods: list[str]

    def values(self, *, per_topic: bool = True, summary: bool = True) -> pd.DataFrame:
        """The preference of every pair on every topic (+1: run_a preferred) and its mean
        (topic ``all``)."""
        return self.preferences.long_frame(per_topic=per_topic, summary=summary)

    @property
    def frame(self) -> pd.DataFrame:
        return self.values()

    def figure(self) -> Figure:
        """Every pair's per-topic preferences, sorted, one panel per pair and measure."""
        from divaeval.plots.differences import preferences

        return preferences(self.values())

    @cached_property
    def pairs(self) -> pd.DataFrame:
        from divaeval.stats.preferences import pair_table  # scipy: the main job imports api

        return pair_table(self.preferences, correction=self.correction, alpha=self.alpha)

    @cached_property
    def ranking(self) -> pd.DataFrame:
        from divaeval.stats.preferences import ranking_table  # the main job imports api

        return ranking_table(self.preferences, self.methods)


@dataclass(eq=False, repr=False)
class DiscriminativePowerResult(TableResult):
    """:func:`discriminative_power`: :attr:`power` holds every metric's ASL curve;
    :attr:`overlap` the run pairs each pair of metrics finds significant (Sakai 2012,
    Table 4)."""

    power: Any = None

    @cached_property
    def overlap(self) -> pd.DataFrame:
        """Per pair of metrics: the run pairs significant under the first only, under both and
        under the second only (``cell`` as Sakai's Table 4 prints it, ``only/both/only``)."""
        from divaeval.meta.overlap import overlap_frame, power_overlap  # pandas: see above

        return overlap_frame(power_overlap(self.power))

    def figure(self) -> Figure:
        """The ASL curves (Sakai 2012, Figs. 7-9)."""
        from divaeval.plots.asl import asl_curves

        return asl_curves(self.power.asl_curves(), self.power.alpha)


@dataclass(eq=False, repr=False)
class SensitivityResult(Result):
    """:func:`sensitivity`: :attr:`sensitivity` (per measure and topic, and the grid's maxima
    with a grid), shown as :meth:`table`, :meth:`wide` or :meth:`grid`."""

    sensitivity: Any

    def table(self, *, per_topic: bool = True) -> pd.DataFrame:
        """One row per measure and topic (``per_topic``) and its topic average (topic
        ``all``), with the number of samples and the seed."""
        frame = self.sensitivity.frame(per_topic=per_topic)
        frame.insert(frame.columns.get_loc("samples") + 1, "seed", self.sensitivity.seed)
        return frame

    def wide(self, *, per_topic: bool = True) -> pd.DataFrame:
        """Topics × measures (trec_eval's layout)."""
        return self.sensitivity.wide_frame(per_topic=per_topic)

    def grid(self, *, all_points: bool = False) -> pd.DataFrame:
        """With a grid: each measure's largest topic average and its argmax, or
        (``all_points``) the topic average at every grid point."""
        frame = self.sensitivity.grid_frame(all_points=all_points)
        if all_points:
            frame.insert(1, "samples", self.sensitivity.samples)
            frame.insert(2, "seed", self.sensitivity.seed)
        return frame

    @property
    def frame(self) -> pd.DataFrame:
        if self.sensitivity.grid_maxima is not None:
            return self.grid()
        return self.table()

    def figure(self) -> Figure:
        """Measures × topics, each cell the measure's dss on the topic."""
        from divaeval.plots.sensitivity import sensitivity_grid

        return sensitivity_grid(self.table(per_topic=True))


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


@dataclass(eq=False, repr=False)
class MetricsResult(Result):
    """The metrics (:func:`list_metrics`): :attr:`specs` (one
    :class:`~divaeval.metrics.spec.MetricSpec` each, in the registry's order), :attr:`forms`
    (metric -> the other tools' names for its forms), and whether the pattern named one metric
    exactly (:attr:`named`); :attr:`records` and :attr:`frame` one row per metric."""

    specs: list[Any]
    forms: dict[str, list[str]]
    named: bool = False
    #: preset -> (its measures, what it is)
    presets: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    #: (name, definition, source) of the risk measures (``divaeval risk``)
    risk_measures: tuple = RISK_MEASURES

    @staticmethod
    def defaults(spec: Any) -> dict[str, str]:
        """The metric's parameters and their defaults as ``-m`` writes them."""
        return {param.name: format_value(param.default) for param in spec.params}

    @property
    def records(self) -> list[dict[str, Any]]:
        return [
            {
                "name": spec.name,
                "family": spec.family,
                "aliases": list(spec.aliases),
                "params": {p.name: p.default for p in spec.params},
                "cutoff": spec.cutoff,
                "default_cutoffs": list(spec.default_cutoffs),
                "summary": spec.summary,
                "reference": spec.reference,
                "notes": spec.notes,
                "aggregate": spec.aggregate,
                "trec_eval": spec.trec_eval,
                "ir_measures": spec.ir_measures,
                "other_names": self.forms.get(spec.name, []),
            }
            for spec in self.specs
        ]

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd  # pandas: `divaeval metrics` prints the records without it

        return pd.DataFrame(self.records)


@dataclass(eq=False, repr=False)
class TiesResult(TableResult):
    """:func:`ties`: the probabilities, and what they are (:attr:`title`)."""

    title: str = ""


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
        from divaeval.plots.differences import against_baseline
        from divaeval.plots.figure import combined
        from divaeval.plots.heatmap import topic_heatmap

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


def check_plot(path: str | os.PathLike | None) -> None:
    """Before any work: a figure file ``path`` (None: none asked for) has a suffix that names
    its format (.png, .svg, .pdf) and the ``plot`` extra (matplotlib) is installed."""
    if path is not None:
        from divaeval.plots.draw import check_plot_file  # matplotlib: only for a figure

        check_plot_file(path)


# ---------------------------------------------------------------------------------------------
# shared machinery


@contextmanager
def _library_call() -> Iterator[MemoryInputs]:
    """The frame of every public function: in-memory inputs, warnings as Python warnings,
    errors about in-memory rows located by row."""
    inputs = MemoryInputs()
    with library_warnings(inputs.relocate_message):
        try:
            yield inputs
        except DivaevalError as error:
            inputs.relocate(error)
            raise


def _measures(measures: object, name: str = "measures") -> list[str]:
    """``-m`` strings: one string is one measure specification; a list of them; None or
    empty: none given (the command's default). An ir_measures measure object
    (``ir_measures.nDCG@10``, ``divaeval.ir_measures.measure("RBU@20")``) stands for the
    string it prints as."""
    if measures is None:
        return []
    if isinstance(measures, str) or _measure_object(measures):
        return [_measure_text(measures, name)]
    if isinstance(measures, (list, tuple)):
        return [_measure_text(item, name) for item in measures]
    raise UsageError(
        f"{name}: expected a measure string or a list of them, got {type(measures).__name__}"
    )


def _measure_object(value: object) -> bool:
    """An ir_measures measure (its class comes from ir_measures, or is divaeval's own)."""
    return hasattr(value, "divaeval_spec") or (
        type(value).__module__.split(".")[0] == "ir_measures" and hasattr(value, "NAME")
    )


def _measure_text(value: object, name: str) -> str:
    if isinstance(value, str):
        return value
    if hasattr(value, "divaeval_spec"):
        return str(value.divaeval_spec)
    if _measure_object(value):
        return str(value)  # ir_measures' own spelling, which divaeval reads as ir_measures does
    raise UsageError(f"{name}: expected measure strings, got {type(value).__name__} ({value!r})")


def _settings(
    settings: Settings | None, options: dict[str, Any], accepted: Sequence[str], **fixed: Any
) -> Settings:
    return Settings.of(settings, options, accepted, **fixed)


def _in_memory(inputs: MemoryInputs, settings: Settings) -> Settings:
    """The settings with intents and topic types given in memory read (files stay paths, read
    by the pipeline)."""
    changes: dict[str, Any] = {}
    if settings.intents is not None and not isinstance(settings.intents, (str, Intents)):
        changes["intents"] = inputs.intents(settings.intents)
    if settings.topics is not None and not isinstance(settings.topics, str):
        changes["topics"] = inputs.topic_types(settings.topics)
    return replace(settings, **changes) if changes else settings


def _workers(settings: Settings, runs: Any = ()) -> Any:
    """The workers of the settings for an analysis (scoring and resampling share them)."""
    given = [runs] if isinstance(runs, str) else runs
    return closing_workers(settings, given if isinstance(given, (list, tuple)) else ())


def _with_baseline(runs: list, baseline: Any) -> tuple[list, int | None]:
    """(runs, position of the baseline among them): the baseline is added after the runs
    unless it is one of them (the same object or the same file), so ZRisk counts it once."""
    if baseline is None:
        return runs, None
    for position, run in enumerate(runs):
        same_path = isinstance(run, str) and isinstance(baseline, str)
        if run is baseline or (same_path and (run == baseline or same_file(run, baseline))):
            return runs, position
    return [*runs, baseline], len(runs)


def _score_tables(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    settings: Settings,
    workers: Workers | None = None,
) -> tuple[list[str], dict, list[str]]:
    """(run names, measure name -> scores[n_runs, n_topics], topics) over every qrels topic (a
    topic a run lacks scores 0, as with ``complete``): what the analyses of runs start from."""
    settings = _in_memory(inputs, settings)
    result = run_evaluation(
        inputs.runs(runs), inputs.qrels(qrels), measures, settings, workers=workers
    )
    names, tables = result.score_tables()
    topics = [str(topic) for topic in result.runs[0].topics] if result.runs else []
    return names, tables, topics


def _analysed_tables(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    scores: Any,
    settings: Settings,
    options: dict[str, Any],
    workers: Workers | None = None,
) -> tuple[list[str], dict, list[str]]:
    """The score tables of an analysis and their topics: scored from ``runs`` and ``qrels``,
    or read from the score files ``scores`` (names of measures as the files write them)."""
    if scores is None:
        if runs is None or qrels is None:
            raise UsageError("give runs and qrels, or scores")
        return _score_tables(inputs, runs, qrels, measures, settings, workers)
    from divaeval.meta.scores import read_score_table  # pandas: the main job imports api

    if runs is not None or qrels is not None:
        raise UsageError("give either runs and qrels or scores, not both")
    judging = [name for name in options if name not in WORKERS]
    if judging:
        raise UsageError(f"{judging[0]} applies to runs and qrels, not to scores")
    if isinstance(scores, (str, os.PathLike)) or hasattr(scores, "columns"):
        scores = [scores]
    if not isinstance(scores, (list, tuple)):
        raise UsageError(
            f"scores: expected score files or DataFrames (run, topic, measure, value), got "
            f"{type(scores).__name__}"
        )
    sources = []
    for source in scores:
        if isinstance(source, (str, os.PathLike)):
            sources.append(os.fspath(source))
        elif hasattr(source, "columns"):
            sources.append(source)
        else:
            raise UsageError(f"scores: expected a file or a DataFrame, got {type(source).__name__}")
    table = read_score_table(sources, measures)
    return table.runs, table.tables, [str(topic) for topic in table.topics]


# ---------------------------------------------------------------------------------------------
# the arguments, checked (a wrong one is a usage error naming it: issue 22)


def _integer(
    value: object, name: str, minimum: int | None = None, maximum: int | None = None,
    *, none: bool = False,
) -> Any:  # fmt: skip
    """``value`` as an int within [minimum, maximum] (or None when ``none``)."""
    if value is None and none:
        return None
    number = None
    if not isinstance(value, bool):
        try:
            number = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            number = None
    low = minimum is None or (number is not None and number >= minimum)
    high = maximum is None or (number is not None and number <= maximum)
    if number is None or not (low and high):
        bounds = (
            f" >= {minimum}" if maximum is None and minimum is not None
            else f" in [{minimum}, {maximum}]" if maximum is not None else ""
        )  # fmt: skip
        raise UsageError(
            f"{name}: expected an integer{bounds}{' or None' if none else ''}, got {value!r}"
        )
    return number


def _integers(value: object, name: str, minimum: int) -> list[int]:
    """One integer or a list of them (maybe empty), each >= ``minimum``."""
    if isinstance(value, (list, tuple)):
        return [_integer(item, name, minimum) for item in value]
    return [_integer(value, name, minimum)]


def _probability(value: object, name: str) -> float:
    """A number strictly between 0 and 1 (a significance level)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise UsageError(f"{name}: expected a number between 0 and 1, got {value!r}")
    if not 0.0 < float(value) < 1.0:
        raise UsageError(f"{name}: expected a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _fractions(value: object, name: str = "fractions") -> list[float]:
    """One number in [0, 1] or a list of them."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for item in items:
        number = isinstance(item, (int, float, np.floating)) and not isinstance(item, bool)
        if not number or not 0.0 <= float(item) <= 1.0:  # type: ignore[arg-type]
            raise UsageError(f"{name}: expected numbers between 0 and 1, got {item!r}")
    return [float(item) for item in items]  # type: ignore[arg-type]


def _choice(value: object, name: str, choices: Sequence[str], *, none: bool = False) -> Any:
    if value is None and none:
        return None
    if not isinstance(value, str) or value not in choices:
        raise UsageError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{name}: expected True or False, got {value!r}")
    return value


def _function(value: object, name: str) -> Any:
    if value is not None and not callable(value):
        raise UsageError(f"{name}: expected a function or None, got {type(value).__name__}")
    return value


def _risk_alpha(value: object, name: str = "risk_alpha") -> Any:
    """A number or its text (ndeval prints it as given); checked by ``check_risk_alpha``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, np.floating)):
        raise UsageError(f"{name}: expected a number >= 0 or its text, got {value!r}")
    return value


def _path(value: object, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str) and path:
            return path
    raise UsageError(f"{name}: expected a file path, got {value!r}")


def _resampling(test: object, samples: object, seed: object, alpha: object) -> None:
    """The resampling options: ``test`` is checked by the test's own function."""
    if not isinstance(test, str):
        raise UsageError(f"test: expected the name of a test, got {test!r}")
    _integer(samples, "samples", 1, none=True)
    _integer(seed, "seed", 0, none=True)
    _probability(alpha, "alpha")


# ---------------------------------------------------------------------------------------------
# the inputs, read and checked


def _no_bytes(value: object, name: str) -> None:
    """A path given as bytes is refused by name (iterated, it would look like integers)."""
    if isinstance(value, (bytes, bytearray)):
        raise UsageError(f"{name}: a path is a str (or os.PathLike), got {type(value).__name__}")


def read_run(source: Any) -> Run:
    """A run, checked as the command line checks run files: a path (``-`` is stdin; gzipped
    files too) or in-memory data (a DataFrame, a ``{topic: {docno: score}}`` dict, ir_measures'
    records; see :mod:`divaeval.api`).

    >>> run = divaeval.read_run("sample_data/run.txt")
    >>> run.tag, len(run.topics)
    ('ql-cata', 10)
    """
    _no_bytes(source, "run")
    with _library_call() as inputs:
        run = inputs.run(source)
        return read_run_file(run) if isinstance(run, str) else run


def read_qrels(source: Any) -> Qrels:
    """Qrels, checked as the command line checks qrels files: a path or in-memory data (a
    DataFrame ``topic, subtopic, docno, grade[, type]``, a dict, ir_measures' ``Qrel``
    records).

    >>> qrels = divaeval.read_qrels({"1": {"a": {"d1": 1}, "b": {"d2": 2}}})
    >>> qrels.frame[["topic", "subtopic", "docno", "grade"]]
      topic subtopic docno  grade
    0     1        a    d1      1
    1     1        b    d2      2
    """
    _no_bytes(source, "qrels")
    with _library_call() as inputs:
        qrels = inputs.qrels(source)
        return read_qrels_file(qrels) if isinstance(qrels, str) else qrels


def read_intents(source: Any) -> Intents:
    """Intent probabilities (``--intents``), checked as the files are: a path (lines
    ``topic subtopic probability [inf|nav]``), a DataFrame ``topic, subtopic, probability[,
    type]`` or a dict ``{topic: {subtopic: probability}}``.

    >>> intents = divaeval.read_intents({"1": {"a": 0.7, "b": 0.3}})
    >>> intents.frame[["topic", "subtopic", "probability"]]
      topic subtopic  probability
    0     1        a          0.7
    1     1        b          0.3
    """
    _no_bytes(source, "intents")
    with _library_call() as inputs:
        intents = inputs.intents(source)
        return read_intents_file(intents) if isinstance(intents, str) else intents


def read_topic_types(source: Any) -> pd.DataFrame:
    """Subtopic types (``--topics``): a TREC Web Track topics XML path, a DataFrame ``topic,
    subtopic, type`` or a dict ``{topic: {subtopic: type}}`` (types ``inf``, ``nav``); the
    table topic, subtopic, type, line.

    >>> divaeval.read_topic_types({"1": {"a": "nav", "b": "inf"}})[["topic", "subtopic", "type"]]
      topic subtopic type
    0     1        a  nav
    1     1        b  inf
    """
    _no_bytes(source, "topics")
    with _library_call() as inputs:
        types = inputs.topic_types(source)
        return read_topic_types_file(types) if isinstance(types, str) else types


def parse_measures(measures: Any) -> list[Measure]:
    """The measures of ``-m`` specifications: one string is one specification (it may name
    several measures: ``alpha-nDCG@5,10``, a preset), or a list of them.

    >>> [m.name for m in divaeval.parse_measures("alpha-nDCG@5,10")]
    ['alpha-nDCG@5', 'alpha-nDCG@10']
    >>> [m.name for m in divaeval.parse_measures("RR")]
    ['RR']
    """
    chosen = _measures(measures)
    if not chosen:
        raise UsageError("measures: give at least one measure specification")
    return parse_measure_texts(chosen)


def score_matrix(table: Any, measure: Any) -> tuple[list[str], list[str], np.ndarray]:
    """(runs, topics, values[n_runs, n_topics]) of one measure of a long table (run, topic,
    measure, value, as :meth:`EvaluationResult.table` gives it; the ``all`` rows are left
    out), topics sorted.

    >>> table = divaeval.evaluate(["sample_data/run.txt", "sample_data/run2.txt"],
    ...                           "sample_data/qrels.txt", "P@5").table()
    >>> runs, topics, values = divaeval.score_matrix(table, "P@5")
    >>> runs, values.shape
    (['ql-cata', 'rm-cata'], (2, 10))
    """
    columns = getattr(table, "columns", None)
    if columns is None or not hasattr(table, "pivot_table"):
        raise UsageError(f"table: expected a DataFrame, got {type(table).__name__}")
    missing = [c for c in ("run", "topic", "measure", "value") if c not in list(columns)]
    if missing:
        raise UsageError(f"table: no column {', '.join(missing)} (run, topic, measure, value)")
    if not isinstance(measure, str):
        raise UsageError(f"measure: expected a measure name, got {type(measure).__name__}")
    return scores_score_matrix(table, measure)


# ---------------------------------------------------------------------------------------------
# the metrics


def _names_of(spec: Any, forms: list[str]) -> list[str]:
    return [spec.name, *spec.aliases, *forms]


def _matches(pattern: str, spec: Any, forms: list[str]) -> bool:
    """A glob (``*ndcg*``) or a case-insensitive substring of a name, alias, other tool's
    name or the family."""
    pattern = pattern.lower()
    texts = [text.lower() for text in (*_names_of(spec, forms), spec.family)]
    if any(ch in pattern for ch in "*?["):
        return any(fnmatch.fnmatchcase(text, pattern) for text in texts)
    return any(pattern in text for text in texts)


def list_metrics(pattern: str | None = None) -> MetricsResult:
    """The metrics (``divaeval metrics [PATTERN]``): every one, or those a glob (``*ndcg*``)
    or a case-insensitive substring of a name, alias, other tool's name or family matches; a
    pattern that names a metric exactly gives just that one (``named``).

    >>> [spec.name for spec in divaeval.list_metrics("*rbu*").specs]
    ['RBU', 'CT-RBU', 'NRBP-RBU']
    """
    if pattern is not None and not isinstance(pattern, str):
        raise UsageError(f"pattern: expected a string, got {type(pattern).__name__}")
    forms: dict[str, list[str]] = {}
    for form in all_forms():
        forms.setdefault(form.spec, []).append(form.name)
    specs = [s for s in all_specs() if not pattern or _matches(pattern, s, forms.get(s.name, []))]
    if not specs:
        raise UsageError(f"no metric matches {pattern!r} (see 'divaeval metrics')")
    named = []
    if pattern is not None:
        wanted = pattern.lower()
        named = [
            s
            for s in specs
            if wanted in (name.lower() for name in _names_of(s, forms.get(s.name, [])))
        ]
    signature = f"divaeval {__version__}|metrics|pattern={pattern or ''}"
    return MetricsResult(signature, named or specs, forms, bool(named), presets())


# ---------------------------------------------------------------------------------------------
# evaluation


class Evaluator:
    """Qrels indexed once, for any number of runs: ``Evaluator(qrels, measures, **options)``
    reads and indexes the qrels (with the settings' intents and topic types), then
    :meth:`evaluate` scores one run and :meth:`evaluate_many` several, reusing the index (as
    pytrec_eval's ``RelevanceEvaluator`` and ir_measures' ``evaluator`` do). The options are
    the settings of :data:`EVALUATING`; :func:`evaluate` is one evaluator used once.

    >>> evaluator = divaeval.Evaluator("sample_data/qrels.txt", ["alpha-nDCG@20", "P@10"])
    >>> evaluator.evaluate("sample_data/run.txt").aggregate()
    {'alpha-nDCG@20': 0.2996324809063672, 'P@10': 0.22999999999999998}
    >>> evaluator.evaluate_many(["sample_data/run2.txt", "sample_data/run3.txt"]).wide.round(4)
             alpha-nDCG@20  P@10
    run
    rm-cata         0.3026  0.25
    dssa            0.4596  0.51
    """

    def __init__(
        self,
        qrels: Any,
        measures: str | Sequence[str] | None = (),
        *,
        settings: Settings | None = None,
        **options: Any,
    ) -> None:
        chosen = _measures(measures)
        _no_bytes(qrels, "qrels")
        settings = _settings(settings, options, EVALUATING)
        with _library_call() as inputs:
            self._build(inputs, qrels, chosen, settings)

    @classmethod
    def _from(
        cls, inputs: MemoryInputs, qrels: Any, measures: list[str], settings: Settings
    ) -> Evaluator:
        evaluator = cls.__new__(cls)
        evaluator._build(inputs, qrels, measures, settings)
        return evaluator

    def _build(
        self, inputs: MemoryInputs, qrels: Any, measures: list[str], settings: Settings
    ) -> None:
        self.settings = _in_memory(inputs, settings)
        self.measures = parse_measure_texts(measures or list(DEFAULT_MEASURES))
        source = inputs.qrels(qrels)
        self._stdin = source == "-"
        self.index = index_qrels(source, self.settings)

    def evaluate(
        self, run: Any, *, baseline: Any = None, risk_alpha: float | str | None = None
    ) -> EvaluationResult:
        """One run scored on the measures (``baseline``: its risk values, as
        :func:`evaluate`)."""
        if isinstance(run, (list, tuple)) and not (run and isinstance(run[0], tuple)):
            raise UsageError("run: one run (evaluate_many takes several)")
        return self.evaluate_many(run, baseline=baseline, risk_alpha=risk_alpha)

    def evaluate_many(
        self, runs: Any, *, baseline: Any = None, risk_alpha: float | str | None = None
    ) -> EvaluationResult:
        """Several runs (a list, or a dict name -> run) scored on the measures, in one
        result."""
        _no_bytes(runs, "runs")
        if risk_alpha is not None:
            _risk_alpha(risk_alpha)
        with _library_call() as inputs:
            given = inputs.runs(runs)
            base = inputs.baseline(baseline)
            check_stdin(*given, base, "-" if self._stdin else None)
            return self._score(open_runs(given), base, risk_alpha)

    def _score(self, runs: list, baseline: Any, risk_alpha: float | str | None) -> Any:
        risk = risk_settings(baseline, risk_alpha)
        with closing_workers(self.settings, runs) as workers:
            result = score_evaluation(
                runs, self.index, self.measures, self.settings, workers, baseline, risk
            )
        result.check_mean()
        risk_part = f"|{result.risk.signature()}" if result.risk else ""
        signature = (
            f"divaeval {__version__}|{self.settings.signature()}{risk_part}|"
            f"{self.settings.mean_signature()}|measures={measures_signature(result.measures)}"
        )
        return EvaluationResult(signature, result)


def evaluate(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    baseline: Any = None,
    risk_alpha: float | str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> EvaluationResult:
    """Score runs on measures (``divaeval RUN... QRELS``; default: ndeval's 21 columns). The
    options are the settings of :data:`EVALUATING` (``complete``, ``mean``, ``order``, ...);
    ``jobs`` local processes (0: one per core; ``"auto"``: as many as pay off) or the Dask
    ``scheduler`` score the runs' blocks of topics, with the same values.

    ``baseline`` (a run, a path, or the name of one of ``runs``) turns every value into the
    run's risk value against it, as ``ndeval -baseline -riskAlpha`` (``risk_alpha``); runs are
    then labelled ``RUN (rel to. BASE; rs=1+a; a=A)``.

    >>> import divaeval
    >>> result = divaeval.evaluate("sample_data/run.txt", "sample_data/qrels.txt",
    ...                            ["alpha-nDCG@20", "ERR-IA@20"])
    >>> result.table(per_topic=False)
           run topic        measure     value
    0  ql-cata   all  alpha-nDCG@20  0.299632
    1  ql-cata   all      ERR-IA@20  0.256198

    In memory: topic 1 has subtopics a (d1) and b (d2, d3); the run ranks d1, d4, d2, so
    P@3 = 2/3 and strec@1 = 1/2 (a), strec@3 = 2/2.

    >>> qrels = {"1": {"a": {"d1": 1}, "b": {"d2": 1, "d3": 1}}}
    >>> run = {"1": {"d1": 3.0, "d4": 2.0, "d2": 1.0}}
    >>> divaeval.evaluate({"mine": run}, qrels, ["P@3", "strec@1", "strec@3"]).table(
    ...     per_topic=False)
        run topic  measure     value
    0  mine   all      P@3  0.666667
    1  mine   all  strec@1  0.500000
    2  mine   all  strec@3  1.000000
    """
    if risk_alpha is not None:
        _risk_alpha(risk_alpha)
    chosen = _measures(measures)
    _no_bytes(runs, "runs")
    _no_bytes(qrels, "qrels")
    settings = _settings(settings, options, EVALUATING)
    with _library_call() as inputs:
        given = inputs.runs(runs)
        base = inputs.baseline(baseline)
        check_stdin(*given, inputs.qrels(qrels), settings.intents, settings.topics, base)
        # the runs' starts are checked before the qrels are read: the qrels given first, as
        # trec_eval takes them, are reported as no run
        opened = open_runs(given)
        evaluator = Evaluator._from(inputs, qrels, chosen, settings)
        return evaluator._score(opened, base, risk_alpha)


def risk(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    baseline: Any = None,
    risk_alpha: float | str = 0,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Risk-sensitive comparison (``divaeval risk``): per measure and run the mean, URisk,
    TRisk, its p-value, wins and losses against ``baseline`` (left out without one), and
    ZRisk and GeoRisk against all the runs, at risk sensitivity ``risk_alpha``. The baseline's
    own row is left out (it is one of the runs of ZRisk and GeoRisk, counted once when it is
    also among ``runs``). Every run is scored on every qrels topic; the options are the
    judging settings (:data:`~divaeval.settings.JUDGING`).

    >>> frame = divaeval.risk(["sample_data/run2.txt", "sample_data/run3.txt"],
    ...                       "sample_data/qrels.txt", "alpha-nDCG@20",
    ...                       baseline="sample_data/run.txt", risk_alpha=1).frame
    >>> frame[["run", "URisk", "TRisk", "wins", "losses"]].round(4)
           run   URisk   TRisk  wins  losses
    0  rm-cata -0.0093 -0.4297     4       3
    1     dssa  0.1289  1.2433     8       2
    """

    _risk_alpha(risk_alpha)
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    alpha, alpha_text = check_risk_alpha(risk_alpha)
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        every, position = _with_baseline(inputs.runs(runs), inputs.baseline(baseline))
        with _workers(settings, every) as workers:
            result = run_evaluation(every, inputs.qrels(qrels), chosen, settings, workers=workers)
        frame = risk_frame(result, baseline=position, alpha=alpha)
        base_name = "none"
        if position is not None:
            base_name = result.runs[position].name
            frame = frame[frame["run"] != base_name].reset_index(drop=True)
        names = measures_signature(result.measures)
        signature = (
            f"divaeval {__version__}|risk|baseline={base_name}|risk_alpha={alpha_text}|"
            f"{settings.signature()}|measures={names}"
        )
        picture = None
        if position is not None:
            picture = partial(_risk_figure, result, base_name, alpha)
        return TableResult(signature, frame, picture)


def _risk_figure(evaluation: Evaluation, baseline: str, alpha: float) -> Figure:
    """Every run's per-topic differences against the baseline, losses also drawn times
    1 + α (their mean is the URisk ``risk`` prints)."""
    from divaeval.plots.differences import against_baseline

    return against_baseline(evaluation.table(summary=False), baseline, risk_alpha=alpha)


# ---------------------------------------------------------------------------------------------
# the report page

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
    from divaeval.plots.coverage import coverage_of_rankings
    from divaeval.plots.report import curve_measures, report_html, verdict
    from divaeval.stats import CORRECTIONS, compare_runs  # scipy: the main job imports api
    from divaeval.stats.effects import mean_t_cis
    from divaeval.stats.significance import DEFAULT_SEED

    _resampling(test, samples, seed, alpha)
    _choice(correction, "correction", CORRECTIONS, none=True)
    if not isinstance(title, str):
        raise UsageError(f"title: expected a text, got {title!r}")
    chosen = [m.name for m in parse_measures(_measures(measures) or list(REPORT_MEASURES))]
    settings = _settings(settings, options, JUDGING, complete=True)
    risk = None
    if risk_alpha is not None:
        risk = check_risk_alpha(_risk_alpha(risk_alpha))[0]
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
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
            base = names[0 if position is None else position]
            comparisons = {
                measure: compare_runs(
                    tables[measure],
                    names,
                    test=test,
                    B=samples,
                    seed=DEFAULT_SEED if seed is None else seed,
                    alpha=alpha,
                    correction=correction,
                    ci="t",
                    workers=workers,
                )
                for measure in chosen
            }
        typed = bool(settings.topics or settings.intents) or bool(index.qrels.type_code.any())
        coverages = {
            name: coverage_of_rankings(judge_run(run, index, settings), typed=typed, run=name)
            for name, run in zip(names, opened, strict=True)
        }
    import pandas as pd  # pandas: the main job imports api

    table = evaluation.table()
    printed = table[table["topic"] == "all"].set_index(["run", "measure"])["value"]
    rows = []
    for measure in chosen:
        low, high = mean_t_cis(tables[measure], alpha)
        pairs = comparisons[measure].pairs
        for i, name in enumerate(names):
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
    means = pd.DataFrame(rows)
    signature = (
        f"divaeval {__version__}|report|baseline={base}|"
        f"{next(iter(comparisons.values())).signature}|{settings.signature()}|"
        f"measures={','.join(chosen)}"
    )
    n_topics = tables[chosen[0]].shape[1]
    html = report_html(
        table,
        coverages,
        means,
        measures=chosen,
        baseline=base,
        signature=signature,
        intro=[
            f"{len(names)} runs × {n_topics} topics, measures {', '.join(chosen)}; "
            f"baseline {base}.",
            f"Runs: {', '.join(names)}.",
        ],
        risk_alpha=risk,
        title=title,
    )
    return ReportResult(
        signature, html, means, evaluation, base, chosen, risk, verdict(table, chosen[0], base)
    )


# ---------------------------------------------------------------------------------------------
# comparing runs


def compare(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    test: str = "ttest",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    correction: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> ComparisonResult:
    """Compare every pair of runs on each measure (``divaeval compare``): mean difference,
    effect size, confidence interval, p-value and significance after ``correction``; and per
    run the runs it significantly beats. ``test``: ttest, bootstrap, randomization or
    tukey-hsd (``samples`` resamples, ``seed``, default 42). ``scores`` (score files) replace
    runs and qrels. The options are the judging settings; ``jobs`` processes or the Dask
    ``scheduler`` score the runs and resample (the same results).

    >>> result = divaeval.compare(["sample_data/run.txt", "sample_data/run2.txt",
    ...                            "sample_data/run3.txt"], "sample_data/qrels.txt",
    ...                           "alpha-nDCG@20")
    >>> result.pairs[["run_a", "run_b", "diff", "p_value", "significant"]].round(4)
         run_a    run_b    diff  p_value  significant
    0  ql-cata  rm-cata -0.0029   0.8447        False
    1  ql-cata     dssa -0.1600   0.0792        False
    2  rm-cata     dssa -0.1571   0.1054        False
    """
    from divaeval.stats import CORRECTIONS, compare_runs  # scipy: the main job imports api
    from divaeval.stats.significance import DEFAULT_SEED

    _resampling(test, samples, seed, alpha)
    _choice(correction, "correction", CORRECTIONS, none=True)
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
        if len(names) < 2:
            raise UsageError("compare needs at least two runs")
        comparisons = {
            name: compare_runs(
                table,
                names,
                test=test,
                B=samples,
                seed=DEFAULT_SEED if seed is None else seed,
                alpha=alpha,
                correction=correction,
                workers=workers,
            )
            for name, table in tables.items()
        }
    signatures = {
        name: f"divaeval {__version__}|compare|measure={name}|{comparison.signature}"
        for name, comparison in comparisons.items()
    }
    return ComparisonResult(
        " ; ".join(signatures.values()), comparisons, names, signatures, tables, topics
    )


def prefer(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    aggregate: str | Sequence[str] = ("mc4", "borda"),
    correction: str = "holm",
    alpha: float = 0.05,
    run_names: str = "tag",
    settings: Settings | None = None,
    **options: Any,
) -> PreferenceResult:
    """Lexicographic preferences (``divaeval prefer``; pref_eval's lexirecall, lexiprecision,
    rrlexiprecision): :meth:`~PreferenceResult.values` the preference of every pair per topic
    (+1: run_a preferred) and its mean (topic ``all``); ``pairs`` wins, ties, losses and a
    sign test per pair; ``ranking`` the runs ranked by ``aggregate`` (mc4, borda). The
    options are pref_eval's: ``rel_level``, ``depth``, ``order``, ``dedupe``.

    >>> result = divaeval.prefer(["sample_data/run.txt", "sample_data/run2.txt"],
    ...                          "sample_data/qrels.txt", "lexirecall")
    >>> result.pairs[["run_a", "run_b", "wins", "ties", "losses", "p_value"]].round(4)
         run_a    run_b  wins  ties  losses  p_value
    0  ql-cata  rm-cata     4     0       6   0.7539
    """
    from divaeval.stats import CORRECTIONS  # the main job imports api
    from divaeval.stats.preferences import preferences

    _choice(correction, "correction", CORRECTIONS)
    _probability(alpha, "alpha")
    _choice(run_names, "run_names", ("tag", "file"))
    chosen = _measures(measures)
    methods = _measures(aggregate, "aggregate")
    settings = _settings(settings, options, PREFERRING, complete=True)
    with _library_call() as inputs:
        prefs = preferences(
            cast(Any, inputs.runs(runs)),
            cast(Any, inputs.qrels(qrels)),
            chosen,
            rel_level=settings.rel_level,
            depth=settings.depth,
            order=settings.ranking_order,
            dedupe=settings.dedupe,
            run_names=run_names,
        )
    signature = (
        f"divaeval {__version__}|prefer|{settings.signature()}|test=sign|"
        f"correction={correction}|alpha={alpha}|aggregate={','.join(methods)}|"
        f"measures={','.join(prefs.measures)}"
    )
    return PreferenceResult(signature, prefs, correction, alpha, methods)


# ---------------------------------------------------------------------------------------------
# meta-evaluation of metrics


def discriminative_power(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    test: str = "bootstrap",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    plot: str | os.PathLike | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> DiscriminativePowerResult:
    """Discriminative power (``divaeval meta discriminative-power``; Sakai 2012, Figs. 3 and
    5): per measure, the share of run pairs significant at ``alpha`` under ``test`` (bootstrap
    or tukey-hsd) and the estimated performance difference required; ``plot`` draws the ASL
    curves to an image file (needs matplotlib); ``progress(metric, done, total)`` follows the
    resampling. ``jobs`` processes or the Dask ``scheduler`` score the runs and resample (the
    same results).

    >>> frame = divaeval.discriminative_power(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "P-IA@20"], samples=200).frame
    >>> frame[["metric", "pairs", "significant", "required_delta"]].round(4)
              metric  pairs  significant  required_delta
    0  alpha-nDCG@20      3            0          0.1825
    1        P-IA@20      3            0          0.0583
    """
    # pandas and scipy: the main job imports api
    from divaeval.meta import discriminative_power as power_of
    from divaeval.stats.significance import DEFAULT_SEED

    _resampling(test, samples, seed, alpha)
    _path(plot, "plot")
    _function(progress, "progress")
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    check_plot(plot)  # before any computing
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
        power = power_of(
            tables,
            names,
            test=test,
            B=samples,
            seed=DEFAULT_SEED if seed is None else seed,
            alpha=alpha,
            progress=progress,
            workers=workers,
        )
    signature = f"divaeval {__version__}|meta discriminative-power|{power.signature}"
    result = DiscriminativePowerResult(signature, power.table(), power=power)
    if plot is not None:
        result.plot(plot)
    return result


def correlation(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    matrix: str | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Rank correlation of the system rankings of every pair of measures (``divaeval meta
    correlation``): Kendall's tau-b and tau-a, tau_ap both ways and its symmetric mean; or,
    with ``matrix`` (tau_b, tau_a, tau_ap, tau_ap_sym), one coefficient as a measure x measure
    matrix.

    >>> frame = divaeval.correlation(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"]).frame
    >>> frame[["metric_a", "metric_b", "tau_b", "tau_ap_sym"]]
            metric_a   metric_b  tau_b  tau_ap_sym
    0  alpha-nDCG@20  ERR-IA@20    1.0         1.0
    1  alpha-nDCG@20    P-IA@20    1.0         1.0
    2      ERR-IA@20    P-IA@20    1.0         1.0
    """
    from divaeval.meta import rank_correlation_matrix, rank_correlations  # pandas: see above

    _choice(matrix, "matrix", ("tau_b", "tau_a", "tau_ap", "tau_ap_sym"), none=True)
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
    pairs = rank_correlations(tables, names)
    if matrix:
        frame = rank_correlation_matrix(tables, names, matrix).reset_index(names="metric")
    else:
        frame = pairs
    signature = (
        f"divaeval {__version__}|meta correlation|runs={len(names)}|"
        f"topics={'qrels' if scores is None else 'scores'}"
    )
    return TableResult(signature, frame, partial(_tau_figure, names, tables, pairs))


def _tau_figure(runs: list[str], tables: dict, pairs: pd.DataFrame) -> Figure:
    from divaeval.plots.correlation import tau_scatter

    return tau_scatter(runs, tables, pairs)


def intuitiveness(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    gold: str | Sequence[str] | None = None,
    scores: Any = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Sakai's intuitiveness test (``divaeval meta intuitiveness``; Sakai 2012, Fig. 6): for
    every pair of measures, of the run pairs on which they disagree, how often each agrees
    with the ``gold`` measure(s) (one or two, e.g. ``["I-rec@10", "EfP@10"]``). With
    ``scores``, the measures are named as the files write them (default: every one but the
    gold ones).

    >>> frame = divaeval.intuitiveness(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@10", "D#-nDCG@10", "P-IA@10"],
    ...     gold="I-rec@10").frame
    >>> frame[["metric_1", "metric_2", "disagreements", "intuitiveness_1", "intuitiveness_2"]]
            metric_1    metric_2  disagreements  intuitiveness_1  intuitiveness_2
    0  alpha-nDCG@10  D#-nDCG@10              1              1.0              1.0
    1  alpha-nDCG@10     P-IA@10              0              NaN              NaN
    2     D#-nDCG@10     P-IA@10              1              1.0              1.0
    """
    from divaeval.meta import intuitiveness_table  # pandas: the main job imports api
    from divaeval.meta.scores import choose_measures

    golds = _measures(gold, "gold")
    if not golds:
        raise UsageError("intuitiveness: give gold, the gold-standard measure(s)")
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    with _library_call() as inputs, _workers(settings, runs) as workers:
        if scores is not None:  # names as the files write them
            names, tables, _ = _analysed_tables(
                inputs, runs, qrels, (), scores, settings, options, workers
            )
            gold_names = choose_measures(list(tables), golds, "the scores")
            others = [name for name in tables if name not in gold_names]
            compared = choose_measures(others, chosen, "the scores") if chosen else others
        else:
            gold_names = [m.name for m in parse_measure_texts(golds)]
            wanted = chosen or ["ndeval"]
            names, tables, _ = _analysed_tables(
                inputs, runs, qrels, wanted + golds, None, settings, options, workers
            )
            compared = [m.name for m in parse_measure_texts(wanted)]
    frame = intuitiveness_table(
        {name: tables[name] for name in compared},
        {name: tables[name] for name in gold_names},
        names,
    )
    signature = (
        f"divaeval {__version__}|meta intuitiveness|gold={'+'.join(gold_names)}|runs={len(names)}"
    )
    return TableResult(signature, frame)


def unanimity(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    scores: Any = None,
    simulate: str | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Metric Unanimity (``divaeval meta unanimity``; Amigó et al. 2018, §6.1): per measure,
    the PMI (base 2) between its preferences over run pairs and the unanimous preferences of
    the other measures. ``simulate`` alters the runs and qrels at random first (§6.3, Table
    2): ``shorter`` (grades rand(0..r), intent weights rand(0..1), rankings cut to
    rand(0..|d|)), ``cutoff50`` (the same with rankings cut to rand(0..50)), or parts joined
    with ``+`` (``grades``, ``weights``, ``lengths=run``, ``lengths=N``); seeded by ``seed``.

    >>> frame = divaeval.unanimity(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"]).frame
    >>> frame[["metric", "mu", "pairs"]].round(4)
              metric      mu  pairs
    0  alpha-nDCG@20  0.8532     60
    1      ERR-IA@20  0.7630     60
    2        P-IA@20  0.8007     60
    """
    from divaeval.meta import metric_unanimity_table  # pandas: the main job imports api

    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    _integer(seed, "seed", 0, none=True)
    if simulate is not None:
        if not isinstance(simulate, str):
            raise UsageError(f"simulate: expected a scenario name, got {simulate!r}")
        return _simulated_unanimity(runs, qrels, chosen, scores, simulate, seed, settings)
    if seed is not None:
        raise UsageError("unanimity: seed applies to a simulated scenario (simulate)")
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
    signature = f"divaeval {__version__}|meta unanimity|runs={len(names)}|pmi=log2"
    frame = metric_unanimity_table(tables, names)
    return TableResult(signature, frame, partial(_unanimity_figure, frame))


def _unanimity_figure(frame: pd.DataFrame) -> Figure:
    from divaeval.plots.unanimity import unanimity_bars

    return unanimity_bars(frame)


def _simulated_unanimity(
    runs: Any,
    qrels: Any,
    measures: list[str],
    scores: Any,
    simulate: str,
    seed: int | None,
    settings: Settings,
) -> TableResult:
    """:func:`unanimity` under a simulated scenario (Amigó et al. §6.3)."""
    from divaeval.meta.scenarios import DEFAULT_SEED, parse_scenario, scenario_unanimity

    scenario = parse_scenario(simulate)
    if scores is not None or runs is None or qrels is None:
        raise UsageError("unanimity: a simulated scenario alters runs and qrels; give both")
    seed = DEFAULT_SEED if seed is None else seed
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        read, index = load_inputs(inputs.runs(runs), inputs.qrels(qrels), settings)
        frame = scenario_unanimity(
            read, index.qrels, measures or ["ndeval"], settings, scenario, seed=seed
        )
    signature = (
        f"divaeval {__version__}|meta unanimity|runs={len(read)}|pmi=log2|"
        f"simulate={scenario.text}|seed={seed}|rng=PCG64|{settings.signature()}"
    )
    return TableResult(signature, frame)


def agreement(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Agreement of lexirecall with other measures (``divaeval meta agreement``; Diaz,
    Ekstrand & Mitra, Figs. 8-10): per measure, the share of the ranking comparisons it
    decides on which lexirecall prefers the same run (``sign_agreement``), Kendall's tau-b
    between its mean ordering of the runs and lexirecall's MC4 ordering (``tau``), and its
    share of tied comparisons (``ties``; lexirecall's own in the last row). Default measures:
    the paper's R@1000, Rprec, AP, nDCG, RR and nDCG@10.

    >>> frame = divaeval.agreement(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["AP", "RR"]).frame
    >>> frame[["measure", "sign_agreement", "tau", "ties"]].round(4)
          measure  sign_agreement     tau    ties
    0          AP          0.6333  0.3333  0.0000
    1          RR          0.2941 -1.0000  0.4333
    2  lexirecall          1.0000  1.0000  0.0000
    """
    from divaeval.meta.agreement import DIAZ_MEASURES, runs_lexirecall_agreement  # pandas

    chosen = _measures(measures) or list(DIAZ_MEASURES)
    settings = _settings(settings, options, COMPARING, complete=True)
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        read, index = load_inputs(inputs.runs(runs), inputs.qrels(qrels), settings)
        result = runs_lexirecall_agreement(
            read, index, chosen, settings, rel_level=settings.rel_level
        )
    signature = (
        f"divaeval {__version__}|meta agreement|{settings.signature()}|aggregate=mc4|"
        f"runs={len(read)}|topics={result.n_topics}"
    )
    return TableResult(signature, result.frame())


def degradation(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    fractions: float | Sequence[float] = (0.1, 0.3, 0.5, 0.7, 0.9),
    sampling: str = "uniform",
    samples: int | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Label degradation (``divaeval meta degradation``; Diaz, Ekstrand & Mitra §6.2.4, Figs.
    12-13): for each fraction, ``samples`` times (default 10, seeded), remove that share of
    every topic's relevant documents (keeping one; ``sampling`` uniform, or popular: weighted
    by the number of runs retrieving them), and report per measure and lexirecall the share
    of tied comparisons (``ties``) and the share of the comparisons the degraded labels decide
    that the complete labels decide alike (``agreement``), with their standard deviations.
    Default measures: the paper's R@1000, Rprec, AP, nDCG, RR and nDCG@10.

    >>> frame = divaeval.degradation(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["AP"], fractions=0.5, samples=3).frame
    >>> frame[["fraction", "measure", "ties", "agreement", "seed"]].round(4)
       fraction     measure  ties  agreement  seed
    0       0.0          AP   0.0     1.0000    42
    1       0.0  lexirecall   0.0     1.0000    42
    2       0.5          AP   0.0     0.8889    42
    3       0.5  lexirecall   0.0     0.8444    42
    """
    from divaeval.meta.agreement import DIAZ_MEASURES  # pandas: the main job imports api
    from divaeval.meta.degradation import (
        DEFAULT_SAMPLES,
        DEFAULT_SEED,
        SAMPLINGS,
        runs_label_degradation,
    )

    chosen = _measures(measures) or list(DIAZ_MEASURES)
    shares = _fractions(fractions)
    _choice(sampling, "sampling", SAMPLINGS)
    _integer(samples, "samples", 1, none=True)
    _integer(seed, "seed", 0, none=True)
    settings = _settings(settings, options, COMPARING, complete=True)
    with _library_call() as inputs:
        settings = _in_memory(inputs, settings)
        read, index = load_inputs(inputs.runs(runs), inputs.qrels(qrels), settings)
        result = runs_label_degradation(
            read,
            index.qrels,
            chosen,
            settings,
            shares,
            sampling=sampling,
            samples=DEFAULT_SAMPLES if samples is None else samples,
            seed=DEFAULT_SEED if seed is None else seed,
            rel_level=settings.rel_level,
        )
    signature = f"divaeval {__version__}|meta degradation|{settings.signature()}|{result.signature}"
    return TableResult(signature, result.frame())


def sensitivity(
    qrels: Any,
    measures: str | Sequence[str] | None,
    *,
    cutoff: int | Sequence[int] = (),
    samples: int = 1000,
    seed: int | None = None,
    grid: str | Sequence[str] = (),
    progress: Callable[[int, int], None] | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> SensitivityResult:
    """Document selection sensitivity (``divaeval meta sensitivity``; Golbus et al. 2013, §7,
    Eq. 11): per measure and topic, the coefficient of variation dss of the measure over
    ``samples`` random rankings of the topic's relevant documents, and its topic average
    (topic ``all``, by the settings' ``mean``). Measures without ``@k`` are evaluated at each
    ``cutoff`` (default 20). With ``grid`` (``"alpha=0:1:0.1,lambda=0:1:0.1"``), every
    measure at every point of the grid on the same rankings. ``jobs`` processes or the Dask
    ``scheduler`` draw and score the rankings (the same results).

    >>> result = divaeval.sensitivity("sample_data/qrels.txt", "alpha-nDCG@20", samples=50)
    >>> result.table(per_topic=False)[
    ...     ["measure", "topic", "relevant", "samples", "seed", "dss"]].round(4)
             measure topic  relevant  samples  seed     dss
    0  alpha-nDCG@20   all        10       50    42  0.1386
    """
    from divaeval.meta.sensitivity import DEFAULT_CUTOFF, selection_sensitivity  # pandas

    chosen = _measures(measures)
    cutoffs = _integers(cutoff, "cutoff", 1)
    _integer(samples, "samples", 2)
    _integer(seed, "seed", 0, none=True)
    _function(progress, "progress")
    settings = _settings(settings, options, SAMPLING)
    points = parse_grid(_measures(grid, "grid"))
    with _library_call() as inputs, _workers(settings) as workers:
        settings = _in_memory(inputs, settings)
        index = index_qrels(inputs.qrels(qrels), settings, warn_empty=False)
        result = selection_sensitivity(
            index,
            chosen,
            cutoffs=cutoffs or [DEFAULT_CUTOFF],
            samples=samples,
            seed=seed,
            mean=settings.mean,
            dd_exponent=settings.exponent,
            rel_level=settings.rel_level,
            grid=points,
            progress=progress,
            workers=workers,
        )
    return SensitivityResult(f"divaeval {__version__}|meta sensitivity|{result.signature}", result)


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
    # pandas: the main job imports api
    from divaeval.meta.axioms import CONSTRAINTS, PAPER_TABLE1, check_axioms
    from divaeval.meta.axioms import constraint as constraint_named

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


def ties(
    n: int | Sequence[int],
    m: int | Sequence[int] = (),
    *,
    cutoff: int = 1000,
    measures: str | Sequence[str] | None = (),
    samples: int | None = None,
    seed: int | None = None,
    worst_case: bool = False,
    depth: int | Sequence[int] = (),
    requests: int = 25,
) -> TiesResult:
    """Tie probabilities of two random complete rankings of ``n`` items with ``m`` relevant
    (``divaeval meta ties``; Diaz, Ekstrand & Mitra §5.3): exact for TSE, R@k (``cutoff``),
    R-precision and lexirecall, Monte Carlo for ``measures``; ``worst_case=True`` gives their
    Table 2 (m drawn from U(5, 50)). With ``depth``, the rankings are cut at each depth and
    the relevant items they miss imputed at the bottom (§2.2): exact for TSE, R@k, RP and
    lexirecall, Monte Carlo (``samples`` pairs) for those and AP and nDCG; without ``m``, their
    Figure 6: the average over ``requests`` requests with m drawn from U(5, 50).

    >>> divaeval.ties(100, 10, cutoff=10).frame[["n", "m", "R@10", "RP"]].round(4)
         n   m   R@10     RP
    0  100  10  0.319  0.319
    >>> divaeval.ties(1000, 5, depth=[1000, 100]).frame[["depth", "TSE", "LR"]].round(4)
       depth     TSE     LR
    0   1000  0.0028  0.000
    1    100  1.0000  0.349
    """
    # pandas: the main job imports api
    from divaeval.meta.ties import DEFAULT_SAMPLES, DEFAULT_SEED, ties_frame, worst_case_frame

    sizes_n = _integers(n, "n", 1)
    sizes_m = _integers(m, "m", 1)
    depths = _integers(depth, "depth", 0)
    _integer(cutoff, "cutoff", 0)
    _integer(samples, "samples", 1, none=True)
    _integer(seed, "seed", 0, none=True)
    _flag(worst_case, "worst_case")
    _integer(requests, "requests", 1)
    chosen = _measures(measures)
    seed = DEFAULT_SEED if seed is None else seed
    with _library_call():
        if depths:
            return _depth_ties(
                sizes_n, sizes_m, depths, cutoff, chosen, samples, seed, worst_case, requests
            )
        if worst_case:
            if sizes_m:
                raise UsageError("ties: worst_case draws m ~ U(5, 50); do not give m")
            samples = 10_000 if samples is None else samples
            frame = worst_case_frame(sizes_n, measures=chosen, samples=samples, seed=seed)
            signature = f"worst-case|m~U(5,50)|samples={samples}|seed={seed}"
            title = "agreement with the worst case (Diaz et al. Table 2)"
        else:
            if not sizes_m:
                raise UsageError("ties: give m (the number of relevant items)")
            samples = DEFAULT_SAMPLES if samples is None else samples
            frame = ties_frame(
                sizes_n, sizes_m, k=cutoff, measures=chosen, samples=samples, seed=seed
            )
            signature = f"k={cutoff}" + (f"|samples={samples}|seed={seed}" if chosen else "")
            title = "probability of a tie (exact; Monte Carlo for -m measures)"
    return TiesResult(f"divaeval {__version__}|meta ties|{signature}", frame, title=title)


def _depth_ties(
    sizes_n: list[int],
    sizes_m: list[int],
    depths: list[int],
    cutoff: int,
    measures: list[str],
    samples: int | None,
    seed: int,
    worst_case: bool,
    requests: int,
) -> TiesResult:
    """:func:`ties` of rankings cut at ``depths`` (Diaz et al. §2.2 and Figure 6)."""
    import pandas as pd  # the main job imports api

    from divaeval.meta.depth_ties import DEFAULT_SAMPLES, depth_ties_frame, figure6

    if worst_case:
        raise UsageError("ties: depth and worst_case do not go together")
    if measures:
        raise UsageError(
            "ties: with depth the Monte Carlo measures are TSE, R@k, RP, AP, nDCG and "
            "lexirecall, from the imputed positions; do not give measures"
        )
    samples = DEFAULT_SAMPLES if samples is None else samples
    if sizes_m:
        frame = depth_ties_frame(sizes_n, sizes_m, depths, k=cutoff, samples=samples, seed=seed)
        title = "probability of a tie at each depth, unretrieved items imputed at the bottom"
        signature = f"k={cutoff}|imputation=pessimistic|samples={samples}|seed={seed}"
    else:
        frames = [
            figure6(depths, n=size, requests=requests, k=cutoff, samples=samples, seed=seed).frame()
            for size in sizes_n
        ]
        frame = pd.concat(frames, ignore_index=True)
        title = "ties against depth, m ~ U(5, 50) per request (Diaz et al. Figure 6)"
        signature = (
            f"k={cutoff}|imputation=pessimistic|requests={requests}|m~U(5,50)|"
            f"samples={samples}|seed={seed}"
        )
    return TiesResult(f"divaeval {__version__}|meta ties|{signature}", frame, title=title)


# ---------------------------------------------------------------------------------------------
# the collection


def collection_table(
    qrels: Any,
    *,
    cover: str = "exact",
    smr_rank: int | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """The collection analysis of the judgments alone (``divaeval collection``; Golbus et al.
    2013): per topic the relevant documents, per-subtopic counts, the minimum cover xi, d_max,
    d_mean, diversity difficulty dd and the subtopic miss rate smr (at ``smr_rank``, default
    xi); with ``topics``, the subtopics split into informational and navigational. The options
    are ``rel_level``, ``topics`` and ``dd_exponent``. (Named ``collection_table`` because
    ``divaeval.collection`` is the package of these analyses.)

    >>> frame = divaeval.collection_table("sample_data/qrels.txt").frame
    >>> frame[["topic", "n_rel_docs", "n_subtopics", "xi", "dd"]].head(3).round(4)
      topic  n_rel_docs  n_subtopics  xi      dd
    0   151         152            5   1  0.8078
    1   152          65            4   1  0.6735
    2   153         155            4   3  0.6037
    """
    from divaeval.collection import collection_table as table_of  # pandas: see above

    _choice(cover, "cover", ("exact", "greedy"))
    _integer(smr_rank, "smr_rank", 1, none=True)
    settings = _settings(settings, options, COLLECTING, mean="dd")
    with _library_call() as inputs:
        source = inputs.qrels(qrels)
        judgments = read_qrels_file(source) if isinstance(source, str) else source
        types = inputs.topic_types(settings.topics) if settings.topics is not None else None
        if isinstance(types, str):
            types = read_topic_types_file(types)
        frame = table_of(
            judgments.frame,
            rel_level=settings.rel_level,
            cover=cover,  # type: ignore[arg-type]
            dd_exponent=settings.exponent,  # type: ignore[arg-type]
            smr_rank=smr_rank,
            topic_types=types,
        )
    signature = (
        f"divaeval {__version__}|collection|rel={settings.rel_level}|cover={cover}|"
        f"dd_exponent={settings.exponent}|smr_rank={smr_rank or 'xi'}"
        + ("|intent_types=topics" if types is not None else "")
    )
    return TableResult(signature, frame, partial(_difficulty_figure, frame))


def _difficulty_figure(frame: pd.DataFrame) -> Figure:
    from divaeval.plots.difficulty import difficulty_bars

    return difficulty_bars(frame)
