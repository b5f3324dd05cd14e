"""divaeval inside ir_measures (and so inside PyTerrier's ``pt.Experiment``): importing this
module registers a provider named ``divaeval`` with ir_measures.

- :func:`measure` turns any divaeval measure string into an ir_measures measure
  (``measure("RBU(p=0.9)@20")``, ``measure("D#-nDCG@10", intents=frame)``), with the judging
  settings it is computed under (``order``, ``rel_level``, ``intents``, ``topics``, ...: the
  options of :func:`divaeval.evaluate`). Such measures work in ``ir_measures.calc_aggregate``,
  ``iter_calc``, ``calc`` and ``evaluator`` on ir_measures' own data (``read_trec_qrels`` of a
  diversity qrels file, with the subtopic in ``iteration``; namedtuples, DataFrames, dicts):
  the provider is the last of ir_measures' default pipeline, which no other provider serves
  them from.
- ir_measures' own diversity measures (``alpha_nDCG``, ``ERR_IA``, ``NRBP``, ``nNRBP``,
  ``AP_IA``, ``P_IA``, ``StRecall``, ...) are computed by divaeval when asked for through
  ``ir_measures.providers.registry["divaeval"]`` (by default ir_measures keeps its pyndeval),
  with pyndeval's tie order (score, then docno ascending): the values are pyndeval's.

Per-topic values are divaeval's, to the last bit; a topic of the qrels the run lacks scores 0
(ir_measures' rule), so a mean is the command line's ``-c`` mean. A run's ties are ordered by
the ``order`` setting (default trec_eval's: score, then docno descending).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import ir_measures  # the library this module plugs divaeval into (pip install ir-measures)
from ir_measures import Metric, providers
from ir_measures.measures import Measure, ParamInfo

from divaeval.api.evaluator import EVALUATING, Evaluator
from divaeval.api.readers import parse_measures
from divaeval.errors import UsageError
from divaeval.settings import Settings

__all__ = ["DivaevalMeasure", "DivaevalProvider", "measure", "provider"]

#: ir_measures' diversity measures, which the divaeval provider computes when asked
DIVERSITY = ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA",
             "StRecall")  # fmt: skip


#: how ir_measures' own measures are computed here: pyndeval's tie order
PYNDEVAL_SETTINGS = Settings(order="score-docno-asc")


class DivaevalMeasure(Measure):
    """A divaeval measure as an ir_measures measure: its ``-m`` string (:attr:`divaeval_spec`)
    and the :class:`~divaeval.settings.Settings` it is computed under. It prints as
    ``divaeval:SPEC`` (so that it never equals an ir_measures measure of the same name)."""

    __name__ = "divaeval"
    NAME = "divaeval"
    SUPPORTED_PARAMS = {
        "spec": ParamInfo(dtype=str, required=True, desc="a divaeval measure specification"),
        "settings": ParamInfo(dtype=Settings, desc="the judging settings"),
    }
    DEFAULT = 0.0

    @property
    def divaeval_spec(self) -> str:
        return self.params["spec"]

    @property
    def settings(self) -> Settings:
        return self.params.get("settings") or Settings()

    def __matmul__(self, cutoff: Any) -> DivaevalMeasure:
        return measure(f"{self.divaeval_spec}@{cutoff}", settings=self.settings)

    def __repr__(self) -> str:
        settings = self.settings
        parts = [] if settings == Settings() else [settings.signature()]
        parts += [f"{name}@{id(value):x}" for name, value in _in_memory(settings)]
        return f"divaeval:{self.divaeval_spec}" + (f"[{'|'.join(parts)}]" if parts else "")


def _in_memory(settings: Settings) -> list[tuple[str, Any]]:
    """The settings given as data, not files (named in a measure's repr by identity)."""
    return [
        (name, value)
        for name in ("intents", "topics")
        if (value := getattr(settings, name)) is not None and not isinstance(value, str)
    ]


def measure(name: Any, *, settings: Settings | None = None, **options: Any) -> DivaevalMeasure:
    """An ir_measures measure for the divaeval measure string ``name`` (one measure:
    ``alpha-nDCG@20``, not a preset or several cutoffs), computed under ``settings`` and the
    keyword ``options`` (those of :func:`divaeval.evaluate`: ``order``, ``rel_level``,
    ``intents``, ``topics``, ...).

    >>> from divaeval.ir_measures import measure
    >>> measure("RBU(p=0.9)@20")
    divaeval:RBU(p=0.9)@20
    """
    if not isinstance(name, str):
        raise UsageError(f"name: expected a divaeval measure string, got {type(name).__name__}")
    parsed = parse_measures(name)
    if len(parsed) != 1:
        raise UsageError(f"name: {name!r} is {len(parsed)} measures; an ir_measures measure is one")
    chosen = Settings.of(settings, options, EVALUATING)
    return DivaevalMeasure(spec=name, settings=chosen)


def _spec_of(value: Measure) -> str:
    return value.divaeval_spec if isinstance(value, DivaevalMeasure) else str(value)


def _settings_of(value: Measure) -> Settings:
    """A divaeval measure's settings; ir_measures' own measures are ranked as its pyndeval
    provider ranks them (ties by docno ascending), so that their values are pyndeval's."""
    return value.settings if isinstance(value, DivaevalMeasure) else PYNDEVAL_SETTINGS


class DivaevalProvider(providers.Provider):
    """The ``divaeval`` provider of ir_measures: divaeval's measures
    (:func:`measure`), and ir_measures' diversity measures (:data:`DIVERSITY`) when asked for
    through ``ir_measures.providers.registry["divaeval"]``."""

    NAME = "divaeval"

    def supports(self, value: Measure) -> bool:
        if isinstance(value, DivaevalMeasure):
            return True
        if getattr(value, "NAME", None) not in DIVERSITY:
            return False
        try:
            return len(parse_measures(str(value))) == 1
        except UsageError:
            return False

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> DivaevalEvaluator:
        return DivaevalEvaluator(list(measures), qrels)

    def install_instructions(self) -> str:
        return "pip install divaeval"

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        return ["query_id", "doc_id", "relevance", "iteration"]


class DivaevalEvaluator(providers.Evaluator):
    """The qrels indexed once per group of measures sharing their settings
    (:class:`divaeval.Evaluator`), for any number of runs."""

    def __init__(self, measures: list[Measure], qrels: Any) -> None:
        qrels = _materialized(qrels)
        grouped: dict[Any, list[Measure]] = {}
        for value in measures:
            grouped.setdefault(_group_key(_settings_of(value)), []).append(value)
        self.groups = []
        topics: set[str] = set()
        for members in grouped.values():
            specs = [_spec_of(value) for value in members]
            evaluator = Evaluator(qrels, specs, settings=_settings_of(members[0]))
            parsed = [parse_measures(spec)[0] for spec in specs]
            self.groups.append((evaluator, list(zip(members, parsed, strict=True))))
            topics.update(str(topic) for topic in evaluator.index.topics)
        super().__init__(measures, topics)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        run = _materialized(run)
        for evaluator, pairs in self.groups:
            (scores,) = evaluator.evaluate(run).evaluation.runs
            topics = [str(topic) for topic in scores.topics]
            for value, parsed in pairs:
                for topic, number in zip(topics, scores.values[parsed].tolist(), strict=True):
                    yield Metric(query_id=topic, measure=value, value=number)


def _group_key(settings: Settings) -> tuple:
    """Measures share an evaluator when their settings are the same (data by identity)."""
    return (settings, *(id(value) for _, value in _in_memory(settings)))


def _materialized(data: Any) -> Any:
    """``data`` as something that can be read more than once (ir_measures' readers give
    generators)."""
    if isinstance(data, (str, Mapping, list, tuple)) or hasattr(data, "columns"):
        return data
    return list(data)


#: the provider, registered with ir_measures and last in its default pipeline
provider = providers.register(DivaevalProvider())
if provider not in ir_measures.DefaultPipeline.providers:
    ir_measures.DefaultPipeline.providers.append(provider)
