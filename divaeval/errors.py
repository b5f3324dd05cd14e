"""Errors and warnings shared by every part of divaeval.

Every user-facing failure is a :class:`DivaevalError`. The CLI prints it as one line,
``divaeval: FILE:LINE: message`` (or ``divaeval: message`` when no file is involved), and exits
with :attr:`DivaevalError.exit_code`: 2 for usage errors (bad option, unknown measure, bad
parameter), 1 for bad data (malformed or inconsistent input files).

Warnings go through :func:`warn`, which writes ``divaeval: warning: ...`` to stderr (never
stdout) unless a caller installed a different sink; the library functions of :mod:`divaeval`
issue them as Python warnings (:class:`DivaevalWarning`, :func:`library_warnings`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

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

    def __reduce__(self):
        # keep file, line (and what else is set on it, such as the warnings its task gave)
        # when the error crosses a process boundary (--jobs, --scheduler)
        return (self.__class__, (self.message,), dict(self.__dict__))

    def location(self) -> str:
        if self.file is None:
            return ""
        if self.line is None:
            return f"{self.file}: "
        return f"{self.file}:{self.line}: "

    def __str__(self) -> str:
        return printable(f"{self.location()}{self.message}")


class DataError(DivaevalError):
    """Malformed or inconsistent input data (exit code 1)."""

    exit_code = EXIT_DATA


class UsageError(DivaevalError):
    """Bad command-line usage: unknown measure, bad parameter or option (exit code 2)."""

    exit_code = EXIT_USAGE


def check_rel_level(rel_level: object) -> int:
    """The relevance level ``-l``: an integer >= 1, the same rule in every command and API
    call. Grade 0 means judged not relevant and negative grades (TREC's -2) spam, so a level
    below 1 would count them relevant; it is a usage error (trec_eval's ``-l 0`` is not
    supported)."""
    if isinstance(rel_level, bool) or not isinstance(rel_level, int):
        try:
            import numpy as np

            if isinstance(rel_level, np.integer):
                return check_rel_level(int(rel_level))
        except ImportError:  # pragma: no cover
            pass
        raise UsageError(f"relevance level -l must be an integer, got {rel_level!r}")
    if rel_level < 1:
        raise UsageError(
            f"relevance level -l must be >= 1, got {rel_level} (grade 0 means judged not "
            "relevant and negative grades spam: they are never relevant)"
        )
    return rel_level


_activity: list[str] = []
_failed_activity: list[str] = []


@contextmanager
def activity(what: str) -> Iterator[None]:
    """Name what divaeval is doing (e.g. ``reading the run run.txt``), so that running out of
    memory, which cannot otherwise say which input caused it, can be reported with it."""
    _activity.append(what)
    try:
        yield
    except MemoryError:
        if not _failed_activity:  # the innermost activity names the cause
            _failed_activity.append(what)
        raise
    finally:
        _activity.pop()


StatusSink = Callable[[str | None], None]

#: where :func:`status` shows a slow step (the command line's: a line on a terminal's stderr)
_status_sink: StatusSink | None = None


@contextmanager
def status(what: str) -> Iterator[None]:
    """Name a slow step while it runs (starting a local Dask cluster takes seconds), so that the
    command line can show it on a terminal (:func:`set_status_sink`); else nothing is shown."""
    sink = _status_sink
    if sink is not None:
        sink(what)
    try:
        yield
    finally:
        if sink is not None:
            sink(None)


def set_status_sink(sink: StatusSink | None) -> StatusSink | None:
    """Install the sink of :func:`status` (called with the step, then with None when it
    ends); returns the previous one."""
    global _status_sink
    previous = _status_sink
    _status_sink = sink
    return previous


def failed_activity() -> str:
    """`` while <activity>`` for the activity a MemoryError went through (then forgotten), or
    ``""``."""
    if not _failed_activity:
        return ""
    return f" while {_failed_activity.pop()}"


#: longest piece of input text echoed in a message (tokens can be megabytes long)
SHOWN_CHARS = 40


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` as quoted in a message: ``repr``, cut to ``limit`` characters with an ellipsis
    and the full length when longer (a 10 MB token must not become a 10 MB message); bytes
    that are not UTF-8 (read as surrogates) show as ``\\xNN``."""
    if len(text) <= limit:
        return _bytes_shown(repr(text))
    return f"{_bytes_shown(repr(text[:limit] + '…'))} ({len(text)} characters)"


def clip(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` unquoted (an id inside a message), cut like :func:`shown`; bytes that are not
    UTF-8 show as ``\\xNN`` (a message must be printable)."""
    return printable(text if len(text) <= limit else text[:limit] + "…")


#: a word (no whitespace) longer than this in a message is an echoed token: it is cut
LONG_WORD = 200
_LONG_WORD = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def printable(message: str) -> str:
    """``message`` as it can be printed: bytes that are not UTF-8 (read as surrogates) as
    ``\\xNN``, and any word longer than :data:`LONG_WORD` characters cut as :func:`clip` does
    (a safety net under every message: ids are whitespace-free, so a 10 MB docno named by
    any message stays a short line)."""
    message = _LONG_WORD.sub(
        lambda m: f"{m.group()[:SHOWN_CHARS]}… ({len(m.group())} characters)", message
    )
    return message.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _bytes_shown(quoted: str) -> str:
    """In a ``repr``: the surrogate escape of an undecodable byte (``\\udcNN``) as ``\\xNN``."""
    return re.sub(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])", r"\1\\x\2", quoted)


#: exponents of Golbus et al.'s Eq. 1 (the dd topic weights): xi (the paper's text) or xi+1
#: (its Tables 1, 2 and 10)
DD_EXPONENTS = ("xi", "xi+1")


def check_dd_exponent(value: str) -> str:
    """The exponent of Eq. 1, ``xi`` or ``xi+1``; anything else is a usage error. (Here, not
    in :mod:`divaeval.collection`, so that checking it does not import pandas.)"""
    if value not in DD_EXPONENTS:
        raise UsageError(f"dd_exponent must be one of {', '.join(DD_EXPONENTS)}, got {value!r}")
    return value


WarningSink = Callable[[str], None]


class DivaevalWarning(UserWarning):
    """A divaeval warning, as the library functions of :mod:`divaeval` report it: through
    Python's :mod:`warnings` module, so ``warnings.filterwarnings`` and
    ``warnings.catch_warnings`` apply (the command line prints ``divaeval: warning: ...``)."""


def _stderr_sink(message: str) -> None:
    print(f"divaeval: warning: {message}", file=sys.stderr)


#: the installed sink; None = none installed, and :func:`warn` prints on stderr
_sink: WarningSink | None = None


def warn(message: str, *, file: str | None = None, line: int | None = None) -> None:
    """Report something suspicious that does not stop the evaluation."""
    where = ""
    if file is not None:
        where = f"{file}:{line}: " if line is not None else f"{file}: "
    (_sink or _stderr_sink)(printable(f"{where}{message}"))


def set_warning_sink(sink: WarningSink | None) -> WarningSink | None:
    """Install a warning sink (``None`` restores stderr); returns the previous one."""
    global _sink
    previous = _sink
    _sink = sink
    return previous


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _python_warning(message: str) -> None:
    """Issue ``message`` as a :class:`DivaevalWarning` attributed to the first caller outside
    divaeval (a notebook cell, a script line)."""
    import warnings

    frame: FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, DivaevalWarning, stacklevel=level)


@contextmanager
def library_warnings(relocate: Callable[[str], str] | None = None) -> Iterator[None]:
    """While the block runs, warnings go through Python's :mod:`warnings` module as
    :class:`DivaevalWarning` (what the library functions of :mod:`divaeval` do), unless a sink
    is installed (a test's ``collected_warnings``, an application's own), which keeps them.
    The command line installs none and never runs this, so it keeps printing on stderr.
    ``relocate`` rewrites each message first (in-memory inputs are named by row, not line)."""
    previous = _sink
    target = previous or _python_warning

    def sink(message: str) -> None:
        target(relocate(message) if relocate is not None else message)

    set_warning_sink(sink)
    try:
        yield
    finally:
        set_warning_sink(previous)


@contextmanager
def warnings_on_stderr() -> Iterator[None]:
    """While the block runs, warnings are printed on stderr (``divaeval: warning: ...``)
    unless a sink is installed: the command line's, around the library functions it calls
    (which would otherwise issue them as Python warnings)."""
    previous = set_warning_sink(None)
    set_warning_sink(previous or _stderr_sink)
    try:
        yield
    finally:
        set_warning_sink(previous)
