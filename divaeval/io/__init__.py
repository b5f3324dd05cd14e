"""Parsing and validation of runs, qrels, intent files and topic files."""

from divaeval.io.intents import Intents, parse_topic_types, read_intents, read_topic_types
from divaeval.io.qrels import Qrels, read_qrels
from divaeval.io.runs import Run, parse_ranks, read_run

__all__ = [
    "Intents",
    "Qrels",
    "Run",
    "parse_ranks",
    "parse_topic_types",
    "read_intents",
    "read_qrels",
    "read_run",
    "read_topic_types",
]
