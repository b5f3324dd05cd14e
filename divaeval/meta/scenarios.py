"""Simulated evaluation scenarios for metric unanimity (Amigó, Spina & Carrillo-de-Albornoz,
SIGIR 2018, §6.3, Table 2's simulated columns).

The official runs and qrels are altered at random, then Metric Unanimity
(:mod:`divaeval.meta.unanimity`) is computed as usual on the altered inputs:

- **grades** (§6.3 (1), "related to MRed"): every judgment's grade r > 0 becomes
  r′ = rand(0..r), an integer drawn uniformly from {0, …, r} (divaeval's grades are the qrels
  file's integers: the paper's "random value between zero and r" on that scale); grades ≤ 0
  stay;
- **weights** (§6.3 (2), "related to AspRel"): every subtopic of a topic gets w(t) =
  rand(0..1), uniform on [0, 1), normalised to sum 1 over the topic's subtopics: the intent
  probabilities (in place of an intent file) that the metrics using them read (``RBU``,
  ``alpha#-*``, ``*-IA(weights=intents)``, the D-measures);
- **lengths** (§6.3 (3), "related to Conf"): each run's ranking of each topic is cut to
  |d|′ = rand(0..|d|), uniform on {0, …, |d|} (``lengths="run"``), or to a random cutoff
  rand(0..50) (``lengths=50``, the third column: a ranking shorter than the cutoff stays
  whole).

Table 2's second column is grades + weights + lengths="run", its third grades + weights +
lengths=50. One generator, ``numpy.random.default_rng(seed)`` (PCG64), draws in a fixed
order: the grades (qrels lines in file order), the weights (topics sorted, subtopics in
column order), then the lengths (runs in the order given, topics in evaluation order).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from divaeval.errors import UsageError
from divaeval.io import Qrels, read_intents, read_qrels, read_topic_types
from divaeval.judged import JudgedRankings, QrelsIndex, judge_run
from divaeval.meta.unanimity import metric_unanimity_table
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings

if TYPE_CHECKING:
    import pandas as pd


#: Table 2's random cutoff of the third column: rand(0..50)
TABLE2_CUTOFF = 50
DEFAULT_SEED = 42


@dataclass(frozen=True)
class Scenario:
    """Which alterations apply: ``lengths`` is None (keep), ``"run"`` (rand(0..|d|)) or a
    cutoff c (rand(0..c))."""

    grades: bool = False
    weights: bool = False
    lengths: str | int | None = None

    def __post_init__(self) -> None:
        bad_cutoff = not isinstance(self.lengths, int) or self.lengths < 0
        if self.lengths is not None and self.lengths != "run" and bad_cutoff:
            raise UsageError(
                f"scenario lengths must be 'run' or a cutoff >= 0, not {self.lengths!r}"
            )

    @property
    def text(self) -> str:
        """``grades+weights+lengths=run``-style name (``official`` when nothing changes)."""
        parts = [name for name in ("grades", "weights") if getattr(self, name)]
        if self.lengths is not None:
            parts.append(f"lengths={self.lengths}")
        return "+".join(parts) or "official"


#: Amigó et al.'s Table 2: the official setting and the two simulated columns.
TABLE2_SCENARIOS = {
    "official": Scenario(),
    "shorter": Scenario(grades=True, weights=True, lengths="run"),
    "cutoff50": Scenario(grades=True, weights=True, lengths=TABLE2_CUTOFF),
}


def parse_scenario(text: str) -> Scenario:
    """A scenario from ``official``, ``shorter``, ``cutoff50`` (Table 2's columns) or a
    ``+``-joined list of ``grades``, ``weights``, ``lengths=run`` or ``lengths=N``."""
    key = text.strip().lower()
    if key in TABLE2_SCENARIOS:
        return TABLE2_SCENARIOS[key]
    grades = weights = False
    lengths: str | int | None = None
    for part in key.split("+"):
        part = part.strip()
        if part == "grades":
            grades = True
        elif part == "weights":
            weights = True
        elif part.startswith("lengths="):
            value = part.split("=", 1)[1]
            if value == "run":
                lengths = "run"
            elif value.isdigit():
                lengths = int(value)
            else:
                raise UsageError(f"scenario: lengths=run or lengths=N, not {part!r}")
        else:
            raise UsageError(
                f"unknown scenario part {part!r}: choose official, shorter, cutoff50, or join "
                "grades, weights, lengths=run, lengths=N with +"
            )
    return Scenario(grades, weights, lengths)


def random_grades(grades: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """r′ = rand(0..r) for every grade r > 0 (uniform integer in {0, …, r}); others kept."""
    grades = np.asarray(grades, dtype=np.int64)
    drawn = rng.integers(0, np.maximum(grades, 0) + 1)
    return np.where(grades > 0, drawn, grades)


def random_weights(valid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``[T, S]`` weights: rand(0..1) for every valid (topic, subtopic), normalised per topic
    (0 elsewhere; a topic whose draws are all 0 gets uniform weights)."""
    valid = np.asarray(valid, dtype=bool)
    drawn = np.where(valid, rng.random(valid.shape), 0.0)
    total = drawn.sum(axis=1, keepdims=True)
    uniform = valid / np.maximum(valid.sum(axis=1, keepdims=True), 1)
    return np.where(total > 0, drawn / np.where(total > 0, total, 1.0), uniform)


def random_lengths(
    lengths: np.ndarray, rng: np.random.Generator, cutoff: int | None = None
) -> np.ndarray:
    """|d|′ = rand(0..|d|) for every ranking length (``cutoff`` None), or min(|d|,
    rand(0..cutoff))."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if cutoff is None:
        return rng.integers(0, lengths + 1)
    return np.minimum(lengths, rng.integers(0, cutoff + 1, size=lengths.shape))


def truncated(jr: JudgedRankings, lengths: np.ndarray) -> JudgedRankings:
    """The judged rankings cut to ``lengths`` (one per topic, at most the current ones)."""
    lengths = np.minimum(np.asarray(lengths, dtype=np.int64), jr.length)
    inside = np.arange(jr.depth)[None, :] < lengths[:, None]
    return JudgedRankings(
        run_name=jr.run_name,
        material=jr.material,
        grades=np.where(inside[:, :, None], jr.grades, np.int16(0)).astype(np.int16),
        judged=jr.judged & inside,
        length=lengths,
        in_run=jr.in_run,
        settings=jr.settings,
        scores=None if jr.scores is None else np.where(inside, jr.scores, 0.0),
        doc_rows=None if jr.doc_rows is None else np.where(inside, jr.doc_rows, -1),
        topic_codes=jr.topic_codes,
    )


def _qrels_text(frame: pd.DataFrame, grades: np.ndarray) -> str:
    types = frame["type"].astype(str).to_numpy()
    return "".join(
        f"{t} {s} {d} {g}{' ' + y if y else ''}\n"
        for t, s, d, g, y in zip(
            frame["topic"], frame["subtopic"], frame["docno"], grades, types, strict=True
        )
    )


def regraded_qrels(qrels: Qrels, grades: np.ndarray) -> Qrels:
    """The qrels with new grades, one per line in file order (read back through the qrels
    reader, as a file of the same name)."""
    frame = qrels.frame
    if len(grades) != len(frame):
        raise UsageError(f"{len(grades)} grades for {len(frame)} qrels lines")
    return read_qrels(qrels.path, text=_qrels_text(frame, np.asarray(grades)))


def _intent_text(index, weights: np.ndarray) -> str:
    material = index.material_all
    lines = []
    for t, topic in enumerate(material.topics):
        for s in np.flatnonzero(material.subtopic_valid[t]):
            lines.append(f"{topic} {material.subtopics[t, s]} {float(weights[t, s])!r}\n")
    return "".join(lines)


def index_builder(settings: Settings) -> Callable[..., QrelsIndex]:
    """``build(qrels, intents=None)``: the qrels index of altered qrels with the settings'
    relevance level, intents, topic types and normalisation (files read once); ``intents``
    replaces the settings' intents."""
    given: Any = settings.intents  # a file, or intents already read (in-memory data)
    types: Any = settings.topics
    if isinstance(given, str):
        given = read_intents(given)
    if isinstance(types, str):
        types = read_topic_types(types)

    def build(qrels: Qrels, intents=None) -> QrelsIndex:
        return QrelsIndex(
            qrels,
            rel_level=settings.rel_level,
            intents=given if intents is None else intents,
            topic_types=types,
            normalize_intents=settings.normalize_intents,
        )

    return build


def scenario_scores(
    runs: Sequence,
    qrels: Qrels,
    measures: Sequence[str],
    settings: Settings,
    scenario: Scenario,
    *,
    seed: int = DEFAULT_SEED,
) -> dict[str, np.ndarray]:
    """Every measure's ``[R, T]`` score table of the (read) runs under the scenario, on every
    qrels topic (a topic a run lacks is its empty ranking, as ``-c``); judged with
    ``settings`` (order, depth, dedupe, relevance level, intents, topic types)."""
    rng = np.random.default_rng(int(seed))
    build = index_builder(settings)
    if scenario.grades:
        qrels = regraded_qrels(qrels, random_grades(qrels.frame["grade"].to_numpy(), rng))
    index = build(qrels)
    if scenario.weights:
        weights = random_weights(index.material_all.subtopic_valid, rng)
        index = build(qrels, read_intents("simulated-intents", text=_intent_text(index, weights)))
    complete = dataclasses.replace(settings, complete=True)
    parsed = parse_measures(list(measures))
    tables: dict[str, list[np.ndarray]] = {m.name: [] for m in parsed}
    for run in runs:
        jr = judge_run(run, index, complete)
        if scenario.lengths is not None:
            cutoff = None if scenario.lengths == "run" else int(scenario.lengths)
            jr = truncated(jr, random_lengths(jr.length, rng, cutoff))
        values = compute_measures(jr, parsed)
        for measure in parsed:
            tables[measure.name].append(np.asarray(values[measure], dtype=np.float64))
    return {name: np.stack(rows) for name, rows in tables.items()}


def scenario_unanimity(
    runs: Sequence,
    qrels: Qrels,
    measures: Sequence[str],
    settings: Settings,
    scenario: Scenario,
    *,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Metric Unanimity of every measure under the scenario: the columns of
    :func:`divaeval.meta.unanimity.metric_unanimity_table`, then scenario and seed."""
    tables = scenario_scores(runs, qrels, measures, settings, scenario, seed=seed)
    names = [run.name for run in runs]
    frame = metric_unanimity_table(tables, names)
    return frame.assign(scenario=scenario.text, seed=int(seed))
