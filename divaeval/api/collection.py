"""``divaeval collection``: the collection analysis of the judgments alone."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api._common import _choice, _integer, _library_call, _settings
from divaeval.api.results import TableResult
from divaeval.collection import collection_table as table_of
from divaeval.io import read_qrels as read_qrels_file
from divaeval.io import read_topic_types as read_topic_types_file
from divaeval.plots.difficulty import difficulty_bars
from divaeval.settings import Settings

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


#: the settings of :func:`collection_table`
COLLECTING = ("rel_level", "topics", "dd_exponent")


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

    return difficulty_bars(frame)
