"""Writing a command's output: to stdout or ``-o FILE`` (replaced atomically; a write error is
a one-line data error), in the format ``-f`` names or ``-o FILE``'s extension, and analysis
tables in every table format, with the settings signature on stderr for the machine formats
(csv, tsv, jsonl, trec_eval) and inside the output for the others."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, NamedTuple, TextIO

import click

from divaeval.atomic import descriptor_of, written_whole
from divaeval.errors import DataError, set_status_sink

MACHINE_FORMATS = ("csv", "tsv", "jsonl", "trec_eval")


def emit(writer: Callable[[TextIO], None], output: str | None) -> None:
    """Call ``writer`` on stdout, or on the file ``output``, which is replaced atomically
    (:func:`divaeval.atomic.written_whole`); ``/dev/stdout`` or ``/dev/fd/N`` is that open
    descriptor, written where the shell's redirection is. A closed or full stdout is a
    one-line data error (exit 1), like an unwritable ``-o`` file; a broken pipe (the reader
    went away) propagates as :class:`BrokenPipeError` and ends the run quietly."""
    if output is None:
        if sys.stdout is None:
            raise DataError("cannot write output: standard output is closed", file="<stdout>")
        _write_stream(writer, sys.stdout, "<stdout>")
        return
    descriptor = descriptor_of(output)
    if descriptor is not None:  # a duplicate: the path opened again would be a new offset
        try:
            stream = os.fdopen(os.dup(descriptor), "w", encoding="utf-8", newline="\n")
        except OSError as exc:
            raise DataError(f"cannot write output: {exc.strerror or exc}", file=output) from None
        with stream:
            _write_stream(writer, stream, output)
        return
    with (
        written_whole(output) as temporary,
        open(temporary, "w", encoding="utf-8", newline="\n") as handle,
    ):
        writer(handle)


def _write_stream(writer: Callable[[TextIO], None], stream: TextIO, name: str) -> None:
    """``writer`` on an open stream, flushed; a write error is a one-line data error."""
    try:
        writer(stream)
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise DataError(f"cannot write output: {exc.strerror or exc}", file=name) from None


def write_tables(
    sections: Sequence[tuple[str | None, Any, str]],
    fmt: str,
    output: str | None,
    *,
    precision: int | None,
    signature: str,
    show_signature: bool = False,
    resampled: bool = False,
) -> None:
    """Write several (title, frame, key column) tables to one stream (the formats for people
    separate them), or the single table of a machine format.

    The settings signature is part of the table, markdown, html, json and latex output. On
    stderr it is printed with ``--signature`` (``show_signature``), and always when the
    numbers come from resampling (``resampled``) and the format has no place for it (csv,
    tsv, jsonl, trec_eval), so that the seed used is always reported."""
    from divaeval.report.frames import write_frames  # pandas: an analysis's, not the main job's

    if signature and (show_signature or (resampled and fmt in MACHINE_FORMATS)):
        click.echo(f"divaeval: signature: {signature}", err=True)
    emit(
        partial(write_frames, sections, fmt=fmt, precision=precision, signature=signature),
        output,
    )


#: an output file's extension -> the format written when ``-f`` is not given
EXTENSION_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".json": "json",
    ".tex": "latex",
    ".md": "markdown",
    ".html": "html",
    ".htm": "html",
}


def resolve_format(
    fmt: str | None, output: str | None, *, default: str = "csv", terminal: str = "table"
) -> str:
    """The output format: ``-f`` when given; else, for ``-o FILE``, the one its extension
    names (:data:`EXTENSION_FORMATS`), or ``default``; on stdout, ``terminal`` when stdout is
    a terminal, else ``default``. Whether stdout is a terminal never changes what a file
    gets."""
    if fmt is not None:
        return fmt
    if output is not None:
        extension = os.path.splitext(output)[1].lower()
        return EXTENSION_FORMATS.get(extension, default)
    return terminal if sys.stdout is not None and sys.stdout.isatty() else default


@contextmanager
def status_on_terminal() -> Iterator[None]:
    """While the block runs, a slow step the library names (:func:`divaeval.errors.status`:
    starting a local Dask cluster) shows as one line on stderr, erased when the step ends;
    only when stderr is a terminal (never in pipes or CI logs)."""
    if sys.stderr is None or not sys.stderr.isatty():
        yield
        return

    def show(what: str | None) -> None:
        sys.stderr.write(f"\r\x1b[Kdivaeval: {what} …" if what else "\r\x1b[K")
        sys.stderr.flush()

    previous = set_status_sink(show)
    try:
        yield
    finally:
        set_status_sink(previous)


@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing a rich progress bar on stderr while the
    block runs, only when stderr is a terminal (never in pipes or CI logs); else ``None``."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(f"divaeval: {label}"), BarColumn(), TimeRemainingColumn())
    # drawn on each update, not by rich's refresh thread: worker processes are then forked
    # from a process of one thread (divaeval.parallel)
    console = Console(stderr=True)
    with Progress(*columns, console=console, transient=True, auto_refresh=False) as bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, refresh=True)

        yield advance


def write_text(text: str, out: TextIO) -> None:
    """Write ``text`` (for :func:`emit` with ``functools.partial``)."""
    out.write(text)


def keyed_frame(frame: Any, columns: list[str], name: str = "key") -> Any:
    """``frame`` (a DataFrame, or its columns: a dict) with ``columns`` joined by tabs into
    one leading key column, for the trec_eval layout: every line ``column<TAB>key
    fields...<TAB>value`` stands alone."""
    if isinstance(frame, dict):
        fields = zip(*(frame[column] for column in columns), strict=True)
        keys = ["\t".join(map(str, row)) for row in fields]
        return {name: keys, **{c: v for c, v in frame.items() if c not in columns}}
    keyed = frame.drop(columns=columns)
    keyed.insert(0, name, frame[columns].astype(str).agg("\t".join, axis=1))
    return keyed


class TableOutput(NamedTuple):
    """How an analysis command writes its tables: the format (``-f``, resolved by
    :func:`resolve_format`), ``--precision``, ``-o FILE`` (None: stdout) and ``--signature``;
    :func:`divaeval.cli.options.output_options` passes it to the command as ``out``."""

    format: str
    file: str | None
    precision: int | None
    show_signature: bool

    def tables(
        self,
        sections: Sequence[tuple[str | None, Any, str]],
        *,
        signature: str,
        resampled: bool = False,
    ) -> None:
        """Several (title, frame, key column) tables (:func:`write_tables`)."""
        write_tables(
            sections,
            self.format,
            self.file,
            precision=self.precision,
            signature=signature,
            show_signature=self.show_signature,
            resampled=resampled,
        )

    def table(
        self,
        frame: Any,
        *,
        key: str,
        signature: str,
        title: str | None = None,
        resampled: bool = False,
    ) -> None:
        """One table (:func:`write_tables`)."""
        self.tables([(title, frame, key)], signature=signature, resampled=resampled)

    def result(
        self,
        result: Any,
        *,
        key: str,
        title: str | None = None,
        resampled: bool = False,
        plot: str | None = None,
    ) -> None:
        """An analysis's result: drawn to ``plot`` first when asked (``--plot FILE``; a closed
        pipe then cannot lose the figure), then its table (``result.frame``) with its settings
        signature."""
        if plot:
            result.plot(plot)
        self.table(
            result.frame, key=key, signature=result.signature, title=title, resampled=resampled
        )
