"""``divaeval compare``: every pair of runs compared on each measure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from divaeval import __version__
from divaeval.api._common import (
    _choice,
    _library_call,
    _measures,
    _resampling,
    _settings,
    _workers,
)
from divaeval.api._tables import _analysed_tables, _inputs_signature
from divaeval.api.results import Result
from divaeval.errors import UsageError
from divaeval.parallel import Workers
from divaeval.settings import JUDGING, Settings
from divaeval.stats import CORRECTIONS, Comparison, compare_runs, comparison_to_latex
from divaeval.stats.significance import DEFAULT_SEED
from divaeval.stats.tables import comparisons_latex

if TYPE_CHECKING:
    # pandas lazily: csv, tsv, jsonl, json and trec_eval print the columns without it
    import pandas as pd

    from divaeval.plots.figure import Figure


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
        from divaeval.plots.differences import between_pairs  # pandas: only for a figure
        from divaeval.plots.figure import long_from_tables

        if self.tables is None or self.topics is None:
            return super().figure()
        return between_pairs(long_from_tables(self.run_names, self.topics, self.tables))

    @cached_property
    def pair_columns(self) -> dict[str, Any]:
        """The pairs of every measure as columns: measure, then
        :data:`~divaeval.stats.compare.PAIR_COLUMNS` (:attr:`pairs` without pandas)."""
        return _joined_columns(
            {name: comparison.pair_columns for name, comparison in self.comparisons.items()}
        )

    @cached_property
    def run_columns(self) -> dict[str, Any]:
        """The runs of every measure as columns: measure, run, mean, beats (lists of run
        names; :attr:`run_table` without pandas)."""
        return _joined_columns(
            {name: comparison.run_columns for name, comparison in self.comparisons.items()}
        )

    @cached_property
    def pairs(self) -> pd.DataFrame:
        return _joined_frames({name: c.pairs for name, c in self.comparisons.items()})

    @cached_property
    def run_table(self) -> pd.DataFrame:
        return _joined_frames({name: c.runs for name, c in self.comparisons.items()})

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


def _joined_frames(parts: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One table from each measure's (measure name -> table), with a leading ``measure``
    column naming each row's measure (:func:`_joined_columns` without pandas)."""
    import pandas as pd  # lazily: the machine formats print the columns

    frames = []
    for name, frame in parts.items():
        part = frame.copy()
        part.insert(0, "measure", name)
        frames.append(part)
    return pd.concat(frames, ignore_index=True)


def _joined_columns(parts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One table's columns from each measure's (measure name -> columns), with a leading
    ``measure`` column naming each row's measure."""
    sizes = {name: len(next(iter(part.values()))) for name, part in parts.items()}
    joined: dict[str, Any] = {"measure": [n for n, size in sizes.items() for _ in range(size)]}
    for column, values in next(iter(parts.values())).items():
        pieces = [part[column] for part in parts.values()]
        if isinstance(values, np.ndarray):
            joined[column] = np.concatenate(pieces)
        else:
            joined[column] = [value for piece in pieces for value in piece]
    return joined


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

    testing = Testing(test, samples, seed, alpha, correction)
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    with _library_call() as inputs, _workers(settings, runs) as workers:
        names, tables, topics = _analysed_tables(
            inputs, runs, qrels, chosen, scores, settings, options, workers
        )
        if len(names) < 2:
            raise UsageError("compare needs at least two runs")
        comparisons = testing.compare(tables, names, workers)
    judged = _inputs_signature(settings, scores)
    signatures = {
        name: f"divaeval {__version__}|compare|measure={name}|{judged}|{comparison.signature}"
        for name, comparison in comparisons.items()
    }
    return ComparisonResult(
        " ; ".join(signatures.values()), comparisons, names, signatures, tables, topics
    )


@dataclass(frozen=True)
class Testing:
    """The significance test of :func:`compare` and the report page, checked when made:
    ``test`` with ``samples`` resamples and ``seed`` (default 42), at level ``alpha``, with
    ``correction`` for multiple comparisons."""

    test: str
    samples: int | None
    seed: int | None
    alpha: float
    correction: str | None

    def __post_init__(self) -> None:
        _resampling(self.test, self.samples, self.seed, self.alpha)
        _choice(self.correction, "correction", CORRECTIONS, none=True)

    def compare(
        self,
        tables: dict[str, np.ndarray],
        names: list[str],
        workers: Workers | None,
        **extra: Any,
    ) -> dict[str, Comparison]:
        """Every pair of runs compared on each table (measure -> scores[n_runs, n_topics]);
        ``extra``: more options of :func:`~divaeval.stats.compare_runs` (``ci="t"``)."""
        seed = DEFAULT_SEED if self.seed is None else self.seed
        return {
            name: compare_runs(
                table,
                names,
                test=self.test,
                B=self.samples,
                seed=seed,
                alpha=self.alpha,
                correction=self.correction,
                workers=workers,
                **extra,
            )
            for name, table in tables.items()
        }
