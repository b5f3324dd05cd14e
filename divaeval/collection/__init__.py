"""Analyses of a test collection's judgments, independent of any run (Golbus et al. 2013):
diversity difficulty, minimum covers and subtopic miss rates (:mod:`.difficulty`), and the
document selection sensitivity of metrics on the qrels (:mod:`.sensitivity`)."""

from divaeval.collection.difficulty import (
    collection_table,
    difficulty_weights,
    diversity_difficulty,
    relevant_judgments,
    subtopic_table,
)

__all__ = [
    "collection_table",
    "difficulty_weights",
    "diversity_difficulty",
    "relevant_judgments",
    "subtopic_table",
]
