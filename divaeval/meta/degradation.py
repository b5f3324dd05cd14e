"""Label degradation (Diaz, Ekstrand & Mitra, TORS 2025, §6.2.4, Figures 12–13): how metrics
behave when relevance labels go missing.

For each fraction f and each of ``samples`` seeded samples:

1. per topic with m relevant documents (largest grade over its subtopics ≥ ``rel_level``),
   remove ``round(f·m)`` of them (half up), at most m − 1, so one relevant document is always
   kept (§6.2.4: "leaving at least one relevant item per query"). A removed document keeps its
   qrels lines with grade 0: it is no longer relevant to any subtopic.
2. the documents to remove are drawn without replacement, either **uniformly** or
   **popular**: with probability proportional to the number of runs whose ranking of the topic
   contains the document (the paper's "number of rankings in S̃_n the item appears in"); a
   document no run retrieved has weight 0 and is drawn (uniformly) only once every retrieved
   one is gone.
3. every metric compares every pair of runs on every topic under the degraded labels
   (:func:`divaeval.meta.agreement.score_signs`; lexirecall by its own preferences), and
   reports
   - the **fraction of ties** (Figure 12) over the unordered run pairs × topics, and
   - the **preference agreement** with the complete labels (Figure 13): of the comparisons
     the degraded labels decide, the fraction the complete labels decide the same way
     (:func:`divaeval.meta.agreement.sign_agreement`).

Both are averaged over the samples (the paper: ten) and reported with their standard
deviation. Sampling: the sample s of fraction f draws from ``numpy.random.default_rng([seed,
s, round(f·10⁶)])`` (PCG64), topics in divaeval's sorted order, so a fraction's samples do not
depend on the other fractions asked for.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import UsageError
from divaeval.io import Qrels
from divaeval.judged import QrelsIndex
from divaeval.meta.agreement import (
    LEXIRECALL,
    judged_tables,
    score_signs,
    sign_agreement,
    tie_fraction,
)
from divaeval.meta.scenarios import index_builder, regraded_qrels
from divaeval.settings import Settings
from divaeval.topics import sort_topics

if TYPE_CHECKING:
    import pandas as pd


SAMPLINGS = ("uniform", "popular")
DEFAULT_SAMPLES = 10  # the paper's "average over ten samples"
DEFAULT_SEED = 42
DEFAULT_FRACTIONS = (0.1, 0.3, 0.5, 0.7, 0.9)

#: removed documents per topic: topic -> docnos
Removal = Mapping[str, frozenset[str]]
#: the comparisons of every measure under a removal (None: the complete labels)
SignsOf = Callable[[Removal | None], dict[str, np.ndarray]]


def removal_count(m: int, fraction: float) -> int:
    """How many of a topic's m relevant documents a fraction removes: round(f·m), half up,
    at most m − 1."""
    if not 0.0 <= fraction <= 1.0:
        raise UsageError(f"a degradation fraction must be between 0 and 1, not {fraction}")
    if m < 1:
        return 0
    return min(m - 1, math.floor(fraction * m + 0.5))


def choose_removed(
    items: Sequence[str],
    count: int,
    rng: np.random.Generator,
    weights: Sequence[float] | None = None,
) -> frozenset[str]:
    """``count`` of ``items`` drawn without replacement: uniformly, or with probability
    proportional to ``weights`` (items of weight 0 only after every weighted one, uniformly)."""
    if count <= 0:
        return frozenset()
    if count > len(items):
        raise UsageError(f"cannot remove {count} of {len(items)} documents")
    if weights is None:
        picked = rng.choice(len(items), size=count, replace=False)
        return frozenset(items[int(i)] for i in picked)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(items),) or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise UsageError("popularity weights must be one finite non-negative number per item")
    positive = np.flatnonzero(w > 0)
    take = min(count, len(positive))
    chosen = []
    if take:
        p = w[positive] / w[positive].sum()
        chosen = [
            int(positive[i]) for i in rng.choice(len(positive), size=take, replace=False, p=p)
        ]
    if count > take:
        rest = np.flatnonzero(w == 0)
        chosen += [int(rest[i]) for i in rng.choice(len(rest), size=count - take, replace=False)]
    return frozenset(items[i] for i in chosen)


def sample_removal(
    relevant: Mapping[str, Sequence[str]],
    fraction: float,
    rng: np.random.Generator,
    popularity: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, frozenset[str]]:
    """One degradation: per topic (in the mapping's order) the relevant documents removed;
    ``popularity`` (topic -> docno -> runs retrieving it) switches to popular sampling."""
    out = {}
    for topic, docs in relevant.items():
        weights = None
        if popularity is not None:
            counts = popularity.get(topic, {})
            weights = [float(counts.get(doc, 0)) for doc in docs]
        out[topic] = choose_removed(list(docs), removal_count(len(docs), fraction), rng, weights)
    return out


@dataclass(frozen=True)
class DegradationCell:
    """One fraction × measure: ties and agreement averaged over the samples (with their
    standard deviations, divisor n − 1; NaN for one sample)."""

    fraction: float
    measure: str
    ties: float
    ties_sd: float
    agreement: float
    agreement_sd: float


@dataclass(frozen=True)
class LabelDegradation:
    """:func:`label_degradation`'s result: ``cells`` in fraction × measure order, and each
    measure's fraction of ties with the complete labels (``complete_ties``)."""

    fractions: list[float]
    measures: list[str]
    sampling: str
    samples: int
    seed: int
    complete_ties: dict[str, float]
    cells: list[DegradationCell]

    @property
    def signature(self) -> str:
        return (
            f"degradation|sampling={self.sampling}|samples={self.samples}|seed={self.seed}|"
            f"rng=PCG64|fractions={','.join(f'{f:g}' for f in self.fractions)}"
        )

    def frame(self) -> pd.DataFrame:
        """One row per fraction and measure: fraction, measure, ties, ties_sd, agreement,
        agreement_sd, then sampling, samples and seed; fraction 0 rows are the complete
        labels."""
        import pandas as pd

        rows = [(0.0, m, self.complete_ties[m], 0.0, 1.0, 0.0) for m in self.measures]
        rows += [
            (c.fraction, c.measure, c.ties, c.ties_sd, c.agreement, c.agreement_sd)
            for c in self.cells
        ]
        frame = pd.DataFrame(
            rows,
            columns=["fraction", "measure", "ties", "ties_sd", "agreement", "agreement_sd"],
        )
        return frame.assign(sampling=self.sampling, samples=self.samples, seed=self.seed)


def _mean_sd(values: list[float]) -> tuple[float, float]:
    array = np.asarray(values, dtype=np.float64)
    kept = array[~np.isnan(array)]
    if not len(kept):
        return math.nan, math.nan
    return float(kept.mean()), float(kept.std(ddof=1)) if len(kept) > 1 else math.nan


def label_degradation(
    signs_of: SignsOf,
    relevant: Mapping[str, Sequence[str]],
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    *,
    sampling: str = "uniform",
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    popularity: Mapping[str, Mapping[str, int]] | None = None,
) -> LabelDegradation:
    """Figures 12–13 (module docstring). ``signs_of(removal)`` returns every measure's
    ``[R, R, T]`` comparisons with the documents of ``removal`` no longer relevant (``None``:
    the complete labels); ``relevant`` maps each topic to its relevant documents;
    ``popularity`` is needed for ``sampling="popular"``."""
    if sampling not in SAMPLINGS:
        raise UsageError(f"unknown sampling {sampling!r} (choose from {', '.join(SAMPLINGS)})")
    if sampling == "popular" and popularity is None:
        raise UsageError("popular sampling needs the runs' documents (popularity)")
    if samples < 1:
        raise UsageError(f"--samples must be at least 1 (got {samples})")
    chosen = sorted({float(f) for f in fractions})
    if not chosen:
        raise UsageError("give at least one degradation fraction")
    for fraction in chosen:
        removal_count(1, fraction)  # checks the range
    complete = signs_of(None)
    measures = list(complete)
    cells = []
    for fraction in chosen:
        ties: dict[str, list[float]] = {m: [] for m in measures}
        agreement: dict[str, list[float]] = {m: [] for m in measures}
        for sample in range(samples):
            rng = np.random.default_rng([int(seed), sample, round(fraction * 1_000_000)])
            removal = sample_removal(
                relevant, fraction, rng, popularity if sampling == "popular" else None
            )
            degraded = signs_of(removal)
            for m in measures:
                ties[m].append(tie_fraction(degraded[m]))
                agreement[m].append(sign_agreement(degraded[m], complete[m]))
        for m in measures:
            cells.append(DegradationCell(fraction, m, *_mean_sd(ties[m]), *_mean_sd(agreement[m])))
    return LabelDegradation(
        fractions=chosen,
        measures=measures,
        sampling=sampling,
        samples=samples,
        seed=int(seed),
        complete_ties={m: tie_fraction(complete[m]) for m in measures},
        cells=cells,
    )


# --- the comparisons of real runs under degraded qrels ------------------------------------------


def relevant_documents(qrels: Qrels, rel_level: int = 1) -> dict[str, list[str]]:
    """Topic -> its relevant docnos (largest grade over the subtopics ≥ ``rel_level``), topics
    in divaeval's sorted order, documents in docno order; topics without one are left out."""
    frame = qrels.frame
    best = frame.groupby(["topic", "docno"], sort=False)["grade"].max()
    chosen = best[best >= rel_level].reset_index()
    by_topic = {
        str(topic): sorted(group["docno"].astype(str)) for topic, group in chosen.groupby("topic")
    }
    return {topic: by_topic[topic] for topic in sort_topics(list(by_topic))}


def run_popularity(runs: Sequence) -> dict[str, dict[str, int]]:
    """Topic -> docno -> the number of runs whose file ranks the document for the topic."""
    counts: dict[str, dict[str, int]] = {}
    for run in runs:
        frame = run.frame[["topic", "docno"]].drop_duplicates()
        for topic, group in frame.groupby("topic", sort=False):
            into = counts.setdefault(str(topic), {})
            for doc in group["docno"].astype(str):
                into[doc] = into.get(doc, 0) + 1
    return counts


def degraded_qrels(qrels: Qrels, removal: Removal) -> Qrels:
    """The qrels with every positive grade of a removed (topic, docno) set to 0 (read back
    through the qrels reader, as a file of the same name)."""
    frame = qrels.frame
    removed = {(topic, doc) for topic, docs in removal.items() for doc in docs}
    grade = frame["grade"].to_numpy().copy()
    if removed:
        keys = zip(frame["topic"].astype(str), frame["docno"].astype(str), strict=True)
        hit = np.fromiter(((t, d) in removed for t, d in keys), dtype=bool, count=len(frame))
        grade[hit] = np.minimum(grade[hit], 0)
    return regraded_qrels(qrels, grade)


def judged_signs(
    runs: Sequence,
    index: QrelsIndex,
    measures: Sequence[str],
    settings: Settings,
    *,
    rel_level: int = 1,
) -> dict[str, np.ndarray]:
    """Every measure's ``[R, R, T]`` comparisons of the runs on the qrels topics with a
    relevant document (:func:`divaeval.meta.agreement.judged_tables`), and lexirecall's."""
    tables, lexirecall = judged_tables(runs, index, measures, settings, rel_level=rel_level)
    out = {name: score_signs(table) for name, table in tables.items()}
    out[LEXIRECALL] = lexirecall
    return out


def runs_label_degradation(
    runs: Sequence,
    qrels: Qrels,
    measures: Sequence[str],
    settings: Settings,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    *,
    sampling: str = "uniform",
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    rel_level: int = 1,
) -> LabelDegradation:
    """:func:`label_degradation` of read runs on read qrels: ``measures`` (``-m`` strings) and
    lexirecall, judged with ``settings`` (order, depth, dedupe, intents, topic types) on every
    qrels topic."""
    if len(runs) < 2:
        raise UsageError("label degradation compares runs: give at least two")
    build = index_builder(dataclasses.replace(settings, rel_level=rel_level))

    def signs_of(removal: Removal | None) -> dict[str, np.ndarray]:
        labels = qrels if removal is None else degraded_qrels(qrels, removal)
        return judged_signs(runs, build(labels), measures, settings, rel_level=rel_level)

    return label_degradation(
        signs_of,
        relevant_documents(qrels, rel_level),
        fractions,
        sampling=sampling,
        samples=samples,
        seed=seed,
        popularity=run_popularity(runs) if sampling == "popular" else None,
    )
