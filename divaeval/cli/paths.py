"""The files a command reads and writes, as click parameter types.

:class:`InputPath` marks a parameter as a file divaeval reads (runs, qrels, ``--topics``,
``--intents``, ``--baseline``, ``--scores``), :class:`OutputPath` one it writes (``-o``,
``--plot``). Each value is recorded in the command's context as it is parsed, and checked
against the values of the other kind already recorded, so that in every command, whatever the
order of the arguments, an output that is an input (the same file by its device and inode:
directly, through a symbolic link or a hard link) is a usage error naming both, before any work
is done. Both complete as file names in the shell.
(The outputs are then written by :func:`divaeval.atomic.replacing`.)
"""

from __future__ import annotations

import os
import stat
from typing import Any

import click

from divaeval.errors import UsageError

#: ``ctx.meta`` key (the dictionary every context of one command line shares): the paths
#: recorded so far, ``(kind, option, path)`` with kind "input" or "output"
_RECORDED = "divaeval.paths"


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


def file_completion(incomplete: str) -> list:
    """Shell completion of a file name (the shell lists the files: click's "file" type)."""
    from click.shell_completion import CompletionItem  # completing only: not on start-up

    return [CompletionItem(incomplete, type="file")]


class InputPath(click.ParamType):
    """A file divaeval reads (``-`` is stdin): recorded for the output check; completed as a
    file name."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        _record(ctx, "input", value, param)
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str):
        return file_completion(incomplete)


class OutputPath(click.ParamType):
    """A file divaeval writes: refused when it is one of the command's inputs (or another of
    its outputs); completed as a file name."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None):
        _record(ctx, "output", value, param)
        return value

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str):
        return file_completion(incomplete)


INPUT = InputPath()
OUTPUT = OutputPath()
