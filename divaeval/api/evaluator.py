"""``divaeval RUN... QRELS`` (the main job): :func:`evaluate` and the :class:`Evaluator`,
qrels indexed once for many runs, and their :class:`EvaluationResult`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import (
    _in_memory,
    _library_call,
    _measures,
    _no_bytes,
    _risk_alpha,
    _settings,
)
from divaeval.api.results import Result
from divaeval.errors import UsageError
from divaeval.evaluation import (
    DEFAULT_MEASURES,
    Evaluation,
    check_stdin,
    closing_workers,
    index_qrels,
    open_runs,
    risk_settings,
    score_evaluation,
)
from divaeval.io.memory import MemoryInputs
from divaeval.metrics import parse_measures as parse_measure_texts
from divaeval.metrics.dialects import measures_signature
from divaeval.settings import AVERAGING, JUDGING, Settings

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


#: the settings :func:`evaluate` takes
EVALUATING = (*JUDGING, "complete", *AVERAGING)


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
        from divaeval.stats.tables import evaluation_latex  # scipy: for -f latex only

        return evaluation_latex(
            self.evaluation, mean=self.settings.mean, precision=precision, signature=self.signature
        )

    def figure(self) -> Figure:
        """The runs × topics heat map of every measure, and each measure's curve over its
        cutoffs where it has several (``alpha-nDCG@5,10,20``)."""
        # pandas: the figures' package; the main job (this module) draws none
        from divaeval.plots.cutoffs import cutoff_curves, cutoff_families
        from divaeval.plots.figure import combined
        from divaeval.plots.heatmap import topic_heatmap

        table = self.table()
        curves = cutoff_curves(table)
        families = cutoff_families(self.measures).values()
        inner = {name for cuts in families for _, name in cuts[:-1]}  # the largest k is shown
        mapped = [name for name in self.measures if name not in inner]
        risk = self.evaluation.risk  # with a baseline the values are differences against it
        heatmap = topic_heatmap(table, mapped, risk.baseline if risk else None)
        return combined([heatmap, *([curves] if curves else [])])

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
