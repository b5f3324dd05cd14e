"""Errors and warnings shared by every part of divaeval.

Every user-facing failure is a :class:`DivaevalError`. The CLI prints it as one line,
``divaeval: FILE:LINE: message`` (or ``divaeval: message`` when no file is involved), and exits
with :attr:`DivaevalError.exit_code`: 2 for usage errors (bad option, unknown measure, bad
parameter), 1 for bad data (malformed or inconsistent input files).

Warnings go through :func:`warn`, which writes ``divaeval: warning: ...`` to stderr (never
stdout) unless a caller installed a different sink (the Python API collects them).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

EXIT_DATA = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3  # a bug in divaeval itself


class DivaevalError(Exception):
    """A user error: bad input data (exit 1) or bad usage (exit 2)."""

    exit_code = EXIT_DATA

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def location(self) -> str:
        if self.file is None:
            return ""
        if self.line is None:
            return f"{self.file}: "
        return f"{self.file}:{self.line}: "

    def __str__(self) -> str:
        return f"{self.location()}{self.message}"


class DataError(DivaevalError):
    """Malformed or inconsistent input data (exit code 1)."""

    exit_code = EXIT_DATA


class UsageError(DivaevalError):
    """Bad command-line usage: unknown measure, bad parameter or option (exit code 2)."""

    exit_code = EXIT_USAGE


WarningSink = Callable[[str], None]


def _stderr_sink(message: str) -> None:
    print(f"divaeval: warning: {message}", file=sys.stderr)


_sink: WarningSink = _stderr_sink


def warn(message: str, *, file: str | None = None, line: int | None = None) -> None:
    """Report something suspicious that does not stop the evaluation."""
    where = ""
    if file is not None:
        where = f"{file}:{line}: " if line is not None else f"{file}: "
    _sink(f"{where}{message}")


def set_warning_sink(sink: WarningSink | None) -> WarningSink:
    """Install a warning sink (``None`` restores stderr); returns the previous one."""
    global _sink
    previous = _sink
    _sink = sink if sink is not None else _stderr_sink
    return previous
