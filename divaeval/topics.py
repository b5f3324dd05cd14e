"""Topic identifiers: strings, ordered numerically when every id is an integer."""

from __future__ import annotations

from collections.abc import Iterable


def _is_integer(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit() and body.isascii()


def sort_topics(topics: Iterable[str]) -> list[str]:
    """Sort topic ids numerically when all are integers (``2`` before ``10``), else as strings.

    Numeric ties between spellings (``0101`` and ``101``) fall back to string order, so the
    result is a total order and deterministic.
    """
    ids = [str(t) for t in topics]
    if ids and all(_is_integer(t) for t in ids):
        return sorted(ids, key=lambda t: (int(t), t))
    return sorted(ids)
