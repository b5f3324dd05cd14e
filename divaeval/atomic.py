"""Atomic replacement of an output file: :func:`replacing` writes through a temporary file in
the target's directory, flushed to disk and renamed over the target, so that the target is
always either the old file or the whole new one: after a full disk, an error, SIGINT, SIGTERM
or SIGHUP, and with two processes writing the same file. Every file divaeval writes (``-o``,
figures) goes through it. (Standard library and :mod:`divaeval.errors` only: any layer may
use it.)"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from divaeval.errors import DataError, DivaevalError


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while an output was being written (the temporary file is
    removed on the way out; the command line exits with 128 + the signal's number)."""

    def __init__(self, signal_number: int):
        super().__init__(signal_number)
        self.signal_number = signal_number


#: signals whose default action ends the process: while an output is written, each raises
#: :class:`Terminated` instead, so that the temporary file is removed (SIGINT raises
#: KeyboardInterrupt already)
_ENDING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _terminate(signal_number: int, frame: Any) -> None:
    raise Terminated(signal_number)


@contextmanager
def _signals_raise() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` where their action is
    the default (a handler someone installed is left alone; only the main thread can)."""
    installed = []
    if threading.current_thread() is threading.main_thread():
        for number in _ENDING_SIGNALS:
            if signal.getsignal(number) == signal.SIG_DFL:
                signal.signal(number, _terminate)
                installed.append(number)
    try:
        yield
    finally:
        for number in installed:
            signal.signal(number, signal.SIG_DFL)


def _umask() -> int:
    """The process's umask (Linux: read, not set; elsewhere set and set back)."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii") as status,
    ):
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable (where the file system allows it)."""
    with contextlib.suppress(OSError, AttributeError):
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


#: paths that name a process's open descriptors, not files (``/dev/stdout`` is
#: ``/proc/self/fd/1``). (Patterns a command may not need are compiled at first use, by
#: ``re``'s cache: each costs 0.05-0.2 ms of start-up.)
_DESCRIPTOR = r"/dev/(?:std(?:in|out|err)|fd/\d+)|/proc/(?:self|\d+)/fd/\d+"


def descriptor_of(target: str) -> int | None:
    """The descriptor of this process that ``target`` names (``/dev/stdout`` 1, ``/dev/fd/3``
    3, ``/proc/self/fd/4`` 4), or None. Writing to it (a duplicate, not the path opened
    again, which Linux makes a new file description) writes where the shell's redirection
    is: after what it wrote, never over it."""
    path = os.path.abspath(target)
    if not re.fullmatch(_DESCRIPTOR, path):
        return None
    name = os.path.basename(path)
    if name.isdigit():
        owner = path.split("/")[2]
        return (
            int(name) if path.startswith("/dev/") or owner in ("self", str(os.getpid())) else None
        )
    return {"stdin": 0, "stdout": 1, "stderr": 2}[name]


def in_place(target: str) -> bool:
    """Whether ``target`` is written where it is, not replaced: it exists and is not a regular
    file (``/dev/null``, a pipe), or it names an open descriptor (``/dev/stdout``,
    ``/dev/fd/N``), which may stand for a file the shell opened (``> log``, ``>> log``) and
    keeps writing to: that one is appended to, never replaced or truncated."""
    if re.fullmatch(_DESCRIPTOR, os.path.abspath(target)):
        return True
    try:
        return not stat.S_ISREG(os.stat(target).st_mode)
    except (OSError, ValueError):
        return False


@contextmanager
def replacing(target: str) -> Iterator[str]:
    """A path to write the new contents of ``target`` to, in the same directory and with the
    same suffix (``.png`` stays ``.png``); when the block ends normally it is flushed to disk
    (fsync) and renamed over ``target``, atomically: a reader sees the old file or the new one,
    never a part. On any error or signal the temporary file is removed and ``target`` is left
    as it was. The new file keeps the mode (and, where allowed, the owner) of the file it
    replaces; a new file gets the mode the umask gives. A symbolic link is followed (the link
    stays, the file it names is replaced). A target that exists and is not a regular file
    (``/dev/null``, a pipe), or that names an open descriptor (``/dev/stdout``,
    ``/dev/fd/3``: whatever file it is open on, which the shell keeps writing to), is written
    in place (:func:`in_place`): it cannot be replaced."""
    if in_place(target):
        yield target
        return
    final = os.path.realpath(target)
    try:
        existing: os.stat_result | None = os.stat(final)
    except FileNotFoundError:
        existing = None
    directory, name = os.path.split(final)
    stem, suffix = os.path.splitext(name)
    with _signals_raise():
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{stem}.", suffix=f".divaeval-tmp{suffix}", dir=directory
        )
        try:
            os.close(descriptor)
            yield temporary
            with open(temporary, "rb") as written:
                os.fsync(written.fileno())
            if existing is not None:
                os.chmod(temporary, stat.S_IMODE(existing.st_mode))
                if (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):
                        os.chown(temporary, existing.st_uid, existing.st_gid)
            else:
                os.chmod(temporary, 0o666 & ~_umask())
            os.replace(temporary, final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    _sync_directory(directory)


@contextmanager
def written_whole(target: str) -> Iterator[str]:
    """:func:`replacing` for a writer of divaeval's: a failure to write is a one-line data
    error (exit 1) naming ``target`` and the reason, never the temporary file."""
    try:
        with replacing(target) as temporary:
            try:
                yield temporary
            except DivaevalError as error:  # (a writer naming the temporary file)
                if error.file == temporary:
                    error.file = target
                raise
    except OSError as error:
        raise DataError(f"cannot write output: {error.strerror or error}", file=target) from None
