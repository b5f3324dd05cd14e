"""Judged rankings: a run joined with the qrels, as dense per-topic matrices.

This is the hinge of the data flow (io → judged rankings → metrics). Everything a metric needs
is here, aligned on one topic axis, so that every metric is a vectorised function over whole
runs. Where things live:

- :mod:`.material`: :class:`TopicMaterial`, the qrels side of a set of topics (subtopics,
  relevant counts, intent weights and types, the ideal material);
- :mod:`.rankings`: :class:`JudgedRankings`, the run side: grades by topic, rank and subtopic;
- :mod:`.index`: :class:`QrelsIndex`, the qrels prepared once for joining any number of runs,
  built from :mod:`.pools` (what the qrels say of each topic) and :mod:`.intents` (intent
  weights and types);
- :mod:`.judge`: :func:`judge_run`, the join: ordering, depth truncation and duplicate handling.
"""

from divaeval.judged.index import MATERIALS_KEPT, QrelsIndex
from divaeval.judged.judge import (
    judge_run,
    judge_texts,
    run_only_topics,
    topics_matched_as_numbers,
    trec_run_text,
)
from divaeval.judged.material import TopicMaterial
from divaeval.judged.rankings import JudgedRankings

__all__ = [
    "MATERIALS_KEPT",
    "JudgedRankings",
    "QrelsIndex",
    "TopicMaterial",
    "judge_run",
    "judge_texts",
    "run_only_topics",
    "topics_matched_as_numbers",
    "trec_run_text",
]
