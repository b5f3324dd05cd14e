"""How every writer prints a number: fixed decimals with ``--precision`` (``0.300``, as
trec_eval prints), integers as integers, and zero as zero: never ``-0.0``, nor ``-0.0000`` for
a value that rounds to zero at the printed precision."""

from __future__ import annotations

import math
import re

import numpy as np

from divaeval import native

#: a printed number that is all zeros after its minus sign (``-0``, ``-0.000``), as a field
NEGATIVE_ZERO = r"(?<![\w.])-(0(?:\.0*)?)(?![\w.])"  # (compiled at first use)


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
    return re.sub(NEGATIVE_ZERO, r"\1", text) if "-0" in text else text


#: the most decimals :func:`fixed_rows` prints by integer arithmetic (10^p·x stays exact)
_VECTOR_DECIMALS = 9
#: scaled values below this are whole numbers of a double, read exactly as int64
_EXACT_SCALED = float(1 << 52)


def fixed_rows(matrix: np.ndarray, precision: int, separator: str = ",") -> list[str]:
    """Each row of a float ``matrix`` as C's ``%.Pf`` values joined by ``separator``: the
    text ``separator.join(["%.Pf" % v for v in row])`` gives, byte for byte (a NaN as
    ``nan``, ``-0.0`` and tiny negatives as ``-0.000``), at a fraction of its cost.

    Each value is rounded to n = rint(x·10^P) and written digit by digit with numpy, for all
    values at once (or by the compiled loop ``fixed_cells``, the same digits in one pass): n is
    the correctly rounded decimal (as printf's) wherever the product's rounding error cannot
    move it across a half, |x·10^P − n| < 1/2 − ulp; a row with any other value (a near-half,
    a non-finite or huge value) is printed by ``%``."""
    n_rows, n_columns = matrix.shape
    line = separator.join([f"%.{precision}f"] * n_columns)
    if not n_rows or not n_columns or not 1 <= precision <= _VECTOR_DECIMALS:
        return [line % tuple(row) for row in matrix.tolist()]
    values = np.ascontiguousarray(matrix, dtype=np.float64)
    if native.kernels is not None:  # the same digits, written in one pass
        fallback = np.empty(n_rows, dtype=bool)
        text = native.kernels.fixed_cells(
            values, n_rows, n_columns, precision, separator.encode(), fallback
        )
        rows = text.decode("ascii").split("\n")[:n_rows]
        for at in np.flatnonzero(fallback).tolist():
            rows[at] = line % tuple(values[at].tolist())
        return rows
    with np.errstate(over="ignore", invalid="ignore"):  # (huge and non-finite: printed by %)
        scaled = values * float(10**precision)
        rounded = np.rint(scaled)
        exact = (np.abs(scaled) < _EXACT_SCALED) & (
            np.abs(scaled - rounded) < 0.5 - np.spacing(np.abs(scaled))
        )
    plain = exact.all(axis=1)
    rounded[~exact] = 0.0  # (rows printed by %)
    number = np.abs(rounded).astype(np.uint64)
    whole, fraction = np.divmod(number, np.uint64(10**precision))
    n_digits = 1
    while n_digits < 20 and (whole >= np.uint64(10**n_digits)).any():
        n_digits += 1
    # a cell: sign, the whole digits right-aligned after spaces, the point, the decimals,
    # then the separator (a newline after a row's last cell); the spaces are dropped after
    width = 1 + n_digits + 1 + precision
    cells = np.full((n_rows, n_columns, width + 1), ord(" "), dtype=np.uint8)
    cells[:, :, width] = ord(separator)
    cells[:, -1, width] = ord("\n")
    cells[:, :, width - precision - 1] = ord(".")
    for k in range(precision):
        fraction, digit = np.divmod(fraction, np.uint64(10))
        cells[:, :, width - 1 - k] = digit + ord("0")
    sign_at = np.full(whole.shape, width - precision - 2, dtype=np.int64)
    for k in range(n_digits):
        shown = (whole > 0) | (k == 0)
        cells[:, :, width - precision - 2 - k] = np.where(
            shown, whole % np.uint64(10) + ord("0"), ord(" ")
        )
        sign_at -= shown
        whole //= np.uint64(10)
    negative = np.signbit(values) & exact
    row, column = np.nonzero(negative)
    cells[row, column, sign_at[row, column]] = ord("-")
    text = cells.tobytes().translate(None, b" ").decode("ascii")
    rows = text.split("\n")[:n_rows]
    for at in np.flatnonzero(~plain).tolist():
        rows[at] = line % tuple(values[at].tolist())
    return rows
