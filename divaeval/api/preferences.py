"""``divaeval prefer``: lexicographic preferences between every pair of runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from divaeval import __version__
from divaeval.api._common import _choice, _library_call, _measures, _probability, _settings
from divaeval.api.results import Result
from divaeval.plots.differences import preferences as preference_panels
from divaeval.settings import PREFERENCE_COMPATS, Settings
from divaeval.stats import CORRECTIONS
from divaeval.stats.preferences import pair_table, preferences, ranking_table

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


#: the settings of :func:`prefer` (pref_eval's own, and ``compat="pref_eval"``)
PREFERRING = ("rel_level", "depth", "order", "dedupe", "compat")


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

        return preference_panels(self.values())

    @cached_property
    def pairs(self) -> pd.DataFrame:

        return pair_table(self.preferences, correction=self.correction, alpha=self.alpha)

    @cached_property
    def ranking(self) -> pd.DataFrame:

        return ranking_table(self.preferences, self.methods)


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
    options are pref_eval's: ``rel_level``, ``depth``, ``order``, ``dedupe``; the values are
    exact, or with ``compat="pref_eval"`` pref_eval's own floating-point sums, bit for bit.

    >>> result = divaeval.prefer(["sample_data/run.txt", "sample_data/run2.txt"],
    ...                          "sample_data/qrels.txt", "lexirecall")
    >>> result.pairs[["run_a", "run_b", "wins", "ties", "losses", "p_value"]].round(4)
         run_a    run_b  wins  ties  losses  p_value
    0  ql-cata  rm-cata     4     0       6   0.7539
    """

    _choice(correction, "correction", CORRECTIONS)
    _probability(alpha, "alpha")
    _choice(run_names, "run_names", ("tag", "file"))
    chosen = _measures(measures)
    methods = _measures(aggregate, "aggregate")
    settings = _settings(settings, options, PREFERRING, PREFERENCE_COMPATS, complete=True)
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
            compat=settings.compat,
        )
    signature = (
        f"divaeval {__version__}|prefer|{settings.signature()}|test=sign|"
        f"correction={correction}|alpha={alpha}|aggregate={','.join(methods)}|"
        f"measures={','.join(prefs.measures)}"
    )
    return PreferenceResult(signature, prefs, correction, alpha, methods)
