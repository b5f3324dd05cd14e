"""How every writer prints a number: fixed decimals with ``--precision`` (``0.300``, as
trec_eval prints), integers as integers, and zero as zero: never ``-0.0``, nor ``-0.0000`` for
a value that rounds to zero at the printed precision."""

from __future__ import annotations

import math
import re

#: a printed number that is all zeros after its minus sign (``-0``, ``-0.000``), as a field
NEGATIVE_ZERO = re.compile(r"(?<![\w.])-(0(?:\.0*)?)(?![\w.])")


def fixed(value: float, precision: int, width: int = 0) -> str:
    """``value`` with ``precision`` decimals, right-aligned in ``width`` characters (C's
    ``%W.Pf``); a value that prints as zero prints unsigned."""
    text = f"{value:{width}.{precision}f}"
    if "-" in text and not text.strip(" -0."):
        return text.replace("-", "").rjust(width)
    return text


def unsigned_zero(value: float) -> float:
    """``value``, with the zero of negative sign made the zero (``-0.0 + 0.0 == 0.0``)."""
    return value + 0.0


def cell(value: object, precision: int) -> str:
    """A table cell: NaN as ``NaN``, a float with ``precision`` decimals (:func:`fixed`), an
    integer (or a bool, or a string) as it is."""
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else fixed(value, precision)
    if value is None:
        return "NaN"
    return str(value)


def without_negative_zeros(text: str) -> str:
    """``text`` (printed numbers, fixed decimals) with every ``-0.000`` field unsigned."""
    return NEGATIVE_ZERO.sub(r"\1", text) if "-0" in text else text
