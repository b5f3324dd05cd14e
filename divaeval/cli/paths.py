"""The files a command reads and writes, as click parameter types, and the atomic replacement
of an output file.

:class:`InputPath` marks a parameter as a file divaeval reads (runs, qrels, ``--topics``,
``--intents``, ``--baseline``, ``--scores``), :class:`OutputPath` one it writes (``-o``,
``--plot``). Each value is recorded in the command's context as it is parsed, and checked
against the values of the other kind already recorded, so that in every command, whatever the
order of the arguments, an output that is an input (the same file by its device and inode:
directly, through a symbolic link or a hard link) is a usage error naming both, before any work
is done. Both complete as file names in the shell.

:func:`replacing` writes an output through a temporary file in the target's directory,
flushed to disk and renamed over the target, so that the target is always either the old
file or the whole new one: after a full disk, an error, SIGINT, SIGTERM or SIGHUP, and with
two processes writing the same file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click
from click.shell_completion import CompletionItem

from divaeval.errors import UsageError

#: ``ctx.meta`` key (the dictionary every context of one command line shares): the paths
#: recorded so far, ``(kind, option, path)`` with kind "input" or "output"
_RECORDED = "divaeval.paths"


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while an output was being written (the temporary file is
    removed on the way out; the command line exits with 128 + the signal's number)."""

    def __init__(self, signal_number: int):
        super().__init__(signal_number)
        self.signal_number = signal_number


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the regular file at ``path`` (through symbolic links), or None:
    only a regular file can be overwritten and lost (not /dev/null, a pipe or a terminal)."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _option(param: click.Parameter | None) -> str:
    """How the user names ``param``: ``-o``, ``--topics``; an argument by its metavar."""
    if isinstance(param, click.Option):
        return min(param.opts, key=len) if param.opts else param.name or "option"
    return "input" if param is None else (param.metavar or param.name or "input").lower()


def _record(ctx: click.Context | None, kind: str, path: str, param: click.Parameter | None):
    """Record ``path`` and refuse it when it is the same file as a path of the other kind (or,
    for an output, as another output)."""
    if ctx is None or ctx.resilient_parsing or path == "-":
        return
    recorded: list[tuple[str, str, str]] = ctx.meta.setdefault(_RECORDED, [])
    option = _option(param)
    here = _identity(path)
    for other_kind, other_option, other_path in recorded:
        if kind == "input" and other_kind == "input":
            continue
        there = _identity(other_path)
        same = here is not None and here == there
        if not same and kind == other_kind == "output":  # two outputs not yet written
            same = os.path.realpath(path) == os.path.realpath(other_path)
        if not same:
            continue
        if kind == other_kind:
            raise UsageError(
                f"{other_option} {other_path} and {option} {path} are the same file: "
                "give each output its own file"
            )
        if kind == "output":
            output, output_option, read, read_option = path, option, other_path, other_option
        else:
            output, output_option, read, read_option = other_path, other_option, path, option
        raise UsageError(
            f"{output_option} {output} is {_described_input(read_option)} {read} (the same "
            "file): divaeval never writes over an input; choose another output file"
        )
    recorded.append((kind, option, path))


def _described_input(option: str) -> str:
    return "the input" if not option.startswith("-") else f"the {option} file"


class InputPath(click.ParamType):
    """A file divaeval reads (``-`` is stdin): recorded for the output check; completed as a
    file name."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        _record(ctx, "input", value, param)
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str):
        return [CompletionItem(incomplete, type="file")]


class OutputPath(click.ParamType):
    """A file divaeval writes: refused when it is one of the command's inputs (or another of
    its outputs); completed as a file name."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        _record(ctx, "output", value, param)
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str):
        return [CompletionItem(incomplete, type="file")]


INPUT = InputPath()
OUTPUT = OutputPath()


# ---------------------------------------------------------------------------------------------
# atomic replacement

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


@contextmanager
def replacing(target: str) -> Iterator[str]:
    """A path to write the new contents of ``target`` to, in the same directory and with the
    same suffix (``.png`` stays ``.png``); when the block ends normally it is flushed to disk
    (fsync) and renamed over ``target``, atomically: a reader sees the old file or the new one,
    never a part. On any error or signal the temporary file is removed and ``target`` is left
    as it was. The new file keeps the mode (and, where allowed, the owner) of the file it
    replaces; a new file gets the mode the umask gives. A symbolic link is followed (the link
    stays, the file it names is replaced). A target that exists and is not a regular file
    (``/dev/null``, a pipe) is written in place: it cannot be replaced."""
    final = os.path.realpath(target)
    try:
        existing: os.stat_result | None = os.stat(final)
    except FileNotFoundError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        yield target
        return
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
