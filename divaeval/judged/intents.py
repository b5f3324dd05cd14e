"""Intent weights and types of the qrels' subtopics (:func:`intent_weights`).

Weights: an intent file's probabilities, else uniform over the subtopics with a relevant
document. Types, by precedence: the intent file's fourth column, the qrels' fifth, a topics XML
file, default ``inf``; a type that loses to a different one is reported
(:func:`resolve_types`). Intents are matched to the qrels' subtopics by their ids as text, so
ids with bytes that are not UTF-8 match as they do in the qrels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from divaeval.errors import clip, warn
from divaeval.io import Intents, Qrels
from divaeval.io._text import Source
from divaeval.judged.pools import SubtopicColumns

TYPE_NAMES = ("none", "inf", "nav")


class TypeSource(NamedTuple):
    """One file that types subtopics: its name, the [T * S] cells it types, their type codes
    (1 inf, 2 nav), and the line of its k-th entry."""

    name: str
    cells: np.ndarray
    kinds: np.ndarray
    line_of: Callable[[int], int | None]


def as_intents(types) -> Intents:
    """Subtopic types as :class:`~divaeval.io.Intents`: given so, or as the DataFrame of
    :func:`~divaeval.io.read_topic_types` (topic, subtopic, type, and maybe line)."""
    if isinstance(types, Intents):
        return types
    name = types.attrs.get("source", "the topic types")
    lines = types["line"].to_numpy(dtype=np.int64) if "line" in types else np.zeros(len(types))
    column = lambda key: types[key].to_numpy(dtype=object)  # noqa: E731
    return Intents(Source(name), column("topic"), column("subtopic"), column("type"), lines=lines)


class SubtopicCells:
    """The flat [T * S] cell of each (topic, subtopic) of the qrels."""

    def __init__(self, topics: np.ndarray, subtopics: np.ndarray):
        width = subtopics.shape[1]
        topic, column = np.nonzero(subtopics != "")
        self._cell = {
            (topics[t], subtopics[t, s]): t * width + s
            for t, s in zip(topic.tolist(), column.tolist(), strict=True)
        }

    def locate(self, intents: Intents) -> np.ndarray:
        """[K] int64: the cell of each entry of ``intents`` (-1: not a subtopic of the qrels)."""
        pairs = zip(intents.topic.tolist(), intents.subtopic.tolist(), strict=True)
        return np.array([self._cell.get(pair, -1) for pair in pairs], dtype=np.int64)


def _typed(intents: Intents, cells: SubtopicCells, located: bool = True) -> TypeSource:
    """The entries of ``intents`` that type a subtopic of the qrels (``located``: their lines
    are known)."""
    where = cells.locate(intents)
    kinds = intents.type
    rows = np.flatnonzero((where >= 0) & (kinds != ""))
    return TypeSource(
        intents.source.name,
        where[rows],
        np.where(kinds[rows] == "nav", 2, 1),
        lambda k: intents.line_of(int(rows[k])) if located else None,
    )


def intent_weights(
    topics: np.ndarray,
    columns: SubtopicColumns,
    relevant: np.ndarray,
    qrels: Qrels,
    topic_code: np.ndarray,
    *,
    intents: Intents | None,
    topic_types,
    normalize: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """(weights, navigational) [T, S] of the subtopics (``relevant``: [T, S], the subtopic has
    a relevant document; ``topic_code``: the sorted topic code of each qrels line); see the
    module docstring."""
    # (a dict of every qrels subtopic: built only for the files that name subtopics by id)
    given = intents is not None or topic_types is not None
    cells = SubtopicCells(topics, columns.subtopics) if given else None
    sources = []  # by precedence
    if intents is not None:
        assert cells is not None
        sources.append(_typed(intents, cells))
    rows = np.flatnonzero(qrels.type_code)
    sources.append(
        TypeSource(
            qrels.path,
            topic_code[rows] * columns.width + columns.column[rows],
            qrels.type_code[rows],
            lambda k: qrels.line_of(int(rows[k])),
        )
    )
    if topic_types is not None:
        assert cells is not None
        located = isinstance(topic_types, Intents) or "line" in topic_types
        sources.append(_typed(as_intents(topic_types), cells, located))
    nav = resolve_types(sources, topics, columns.subtopics) == 2
    n_rel = relevant.sum(axis=1, keepdims=True)
    uniform = np.where(relevant, 1.0 / np.maximum(n_rel, 1), 0.0)
    if intents is None or cells is None:
        return uniform, nav
    return _probabilities(intents, cells, topics, columns, relevant, uniform, normalize), nav


def _probabilities(
    intents: Intents,
    cells: SubtopicCells,
    topics: np.ndarray,
    columns: SubtopicColumns,
    relevant: np.ndarray,
    uniform: np.ndarray,
    normalize: bool,
) -> np.ndarray:
    """[T, S] weights from the intent file's probabilities, with a warning for each thing
    that does not fit the qrels."""
    assert intents.probability is not None  # (an intent file, not a topics file)
    name = intents.source.name
    where = cells.locate(intents)
    unknown = np.flatnonzero(where < 0)
    for row in unknown[:5].tolist():
        warn(
            f"intent {intents.subtopic[row]} of topic {intents.topic[row]} "
            "is not a subtopic in the qrels (no judged documents); it adds nothing",
            file=name,
            line=intents.line_of(row),
        )
    if len(unknown) > 5:
        warn(f"{len(unknown)} intents name unknown subtopics in all", file=name)
    n_topics, width = columns.subtopics.shape
    known = where >= 0
    weight = np.zeros(n_topics * width)
    weight[where[known]] = intents.probability[known]
    weight = weight.reshape(n_topics, width)
    listed = np.zeros((n_topics, width), dtype=bool)
    listed.reshape(-1)[where[known]] = True
    topics_with_intents: np.ndarray = np.asarray(listed.any(axis=1))
    missing = relevant & ~listed & topics_with_intents[:, None]
    for t, s in list(zip(*np.nonzero(missing), strict=True))[:5]:
        warn(
            f"topic {topics[t]} subtopic {columns.subtopics[t, s]} has relevant documents "
            "but no intent probability; weight 0",
            file=name,
        )
    no_intents = ~topics_with_intents & relevant.any(axis=1)
    if no_intents.any():
        warn(
            f"{int(no_intents.sum())} qrels topics have no intent probabilities "
            "(uniform weights used)",
            file=name,
        )
        weight[no_intents] = uniform[no_intents]
    # The sum is the file's: an intent without judgments (no relevant documents) keeps its
    # probability mass, as in NTCIREVAL (the topic's maximum is then below 1).
    code_of = {topic: code for code, topic in enumerate(topics.tolist())}
    row_topic = np.array([code_of.get(t, -1) for t in intents.topic.tolist()], dtype=np.int64)
    in_qrels = row_topic >= 0
    sums = np.zeros(n_topics)
    np.add.at(sums, row_topic[in_qrels], intents.probability[in_qrels])
    sums = np.where(no_intents, weight.sum(axis=1), sums)
    off = topics_with_intents & (np.abs(sums - 1.0) > 1e-6)
    if off.any():
        example = topics[int(np.flatnonzero(off)[0])]
        action = "renormalised" if normalize else "used as given (--normalize-intents rescales)"
        warn(
            f"intent probabilities of {int(off.sum())} topics do not sum to 1 "
            f"(e.g. topic {example}: {sums[off][0]:.6g}); {action}",
            file=name,
        )
        if normalize:
            weight[off] = weight[off] / np.where(sums[off] > 0, sums[off], 1)[:, None]
    return weight


def resolve_types(sources: list[TypeSource], topics: np.ndarray, subtopics: np.ndarray):
    """[T, S] subtopic types (0 none, 1 inf, 2 nav) from ``sources``, highest precedence
    first. The first source that types a subtopic wins; each other source that types it
    differently gets one warning (per winning source), with a count, an example and the
    winner. Each file is consistent within itself (the readers reject a subtopic typed twice
    differently)."""
    n_topics, width = subtopics.shape
    kind = np.zeros(n_topics * width, dtype=np.int8)
    winner = np.full(n_topics * width, -1, dtype=np.int64)
    for i, source in enumerate(sources):
        cells, kinds = source.cells, source.kinds
        differs = (winner[cells] >= 0) & (kind[cells] != kinds)
        # (np.unique of nothing is skipped: numpy 2.4's first np.unique imports numpy.ma, 15 ms)
        losers = sorted(set(winner[cells[differs]].tolist())) if differs.any() else []
        for j in losers:
            lost = np.flatnonzero(differs & (winner[cells] == j))
            k = int(lost[0])
            topic, column = divmod(int(cells[k]), width)
            count = len(np.unique(cells[lost]))
            won = sources[j].name
            warn(
                f"{count} subtopic type{'s differ' if count > 1 else ' differs'} from {won} "
                f"(e.g. topic {clip(topics[topic])} subtopic {clip(subtopics[topic, column])}: "
                f"{TYPE_NAMES[kinds[k]]} here, {TYPE_NAMES[kind[cells[k]]]} in {won}); "
                f"{won} wins (precedence: intent file, qrels, topics file)",
                file=source.name,
                line=source.line_of(k),
            )
        free = winner[cells] < 0
        kind[cells[free]] = kinds[free]
        winner[cells[free]] = i
    return kind.reshape(n_topics, width)
