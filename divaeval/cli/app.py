"""The ``divaeval`` command group and its entry point: every user error becomes one line on
stderr, ``divaeval: FILE:LINE: message``, with exit code 2 for usage errors and 1 for bad data
(3 for a bug in divaeval); ``--debug`` shows the traceback instead."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import signal
import sys
import threading

import click

from divaeval import __version__
from divaeval.atomic import Terminated
from divaeval.cli.output import status_on_terminal
from divaeval.cli.paths import file_completion
from divaeval.errors import (
    EXIT_INTERNAL,
    EXIT_USAGE,
    DivaevalError,
    UsageError,
    failed_activity,
    warnings_on_stderr,
)
from divaeval.heap import reuse_freed_memory

#: subcommand -> (its module in divaeval.cli, the command in it). A command's module is
#: imported when the command runs or is listed (``--help``): the main job loads only its own.
COMMANDS = {
    "evaluate": ("evaluate", "evaluate_command"),
    "metrics": ("metrics", "metrics_command"),
    "compare": ("compare", "compare_command"),
    "risk": ("risk", "risk_command"),
    "prefer": ("prefer", "prefer_command"),
    "meta": ("meta", "meta_group"),
    "collection": ("collection", "collection_command"),
    "report": ("report", "report_command"),
    "check": ("check", "check_command"),
}


class DefaultCommandGroup(click.Group):
    """A group whose first argument, when it is not a subcommand, goes to ``evaluate``:
    ``divaeval run.txt qrels.txt`` = ``divaeval evaluate run.txt qrels.txt``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, name = COMMANDS[cmd_name]
        return getattr(importlib.import_module(f"divaeval.cli.{module}"), name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in COMMANDS and args[0] not in ("--help", "-h", "--version", "-V"):
            if not ctx.resilient_parsing:
                _check_not_a_mistyped_command(args[0])
            args = ["evaluate", *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("divaeval", "[OPTIONS] RUN... QRELS  |  divaeval COMMAND ...")

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The group's text, then the main job's most used options (from its own command)."""
        super().format_help_text(ctx, formatter)
        main_job = self.get_command(ctx, "evaluate")
        assert main_job is not None
        job_ctx = click.Context(main_job, info_name="evaluate", parent=ctx)
        records = []
        for param in main_job.params:
            record = param.get_help_record(job_ctx) if param.name in MAIN_JOB_OPTIONS else None
            if record is not None:
                records.append((record[0], _first_clause(record[1])))
        with formatter.section("Main job options (all of them: divaeval evaluate --help)"):
            formatter.write_dl(records)

    def shell_complete(self, ctx: click.Context, incomplete: str):
        """Subcommands, and file names: the main job's first argument is a run file."""
        return [*super().shell_complete(ctx, incomplete), *file_completion(incomplete)]


#: the main job's ten most used options, shown by ``divaeval --help``
MAIN_JOB_OPTIONS = (
    "measures",
    "per_topic",
    "no_summary",
    "complete",
    "depth",
    "rel_level",
    "order",
    "compat",
    "output_format",
    "output",
)


def _first_clause(help_text: str) -> str:
    """An option's help up to its first ``;`` or ``:`` (and without its ``[default: ...]``)."""
    for mark in ("  [", "; ", ": "):
        help_text = help_text.split(mark, 1)[0]
    return help_text.strip()


def _check_not_a_mistyped_command(first: str) -> None:
    """``divaeval compaer run.txt qrels.txt``: a first argument that is no file but close to a
    subcommand's name is a usage error saying so, not a run file that cannot be opened."""
    if first == "-" or first.startswith("-") or os.path.exists(first):
        return
    close = _close_matches(first, list(COMMANDS), n=1, cutoff=0.6)
    if close:
        raise UsageError(f"{first}: no such file; did you mean '{close[0]}'?")


def _close_matches(word: str, names: list[str], n: int, cutoff: float) -> list[str]:
    """difflib's close matches of ``word`` among ``names``."""
    import difflib  # a mistyped command or option only: not on the main job's start-up

    return difflib.get_close_matches(word, names, n=n, cutoff=cutoff)


def close_options(option: str, ctx: click.Context | None) -> list[str]:
    """The long options of ``ctx``'s command close to ``option`` (a mistyped ``--precison``,
    a prefix ``--base``): compared without their dashes, so that ``--bogus`` is close to
    nothing (click's own rule finds ``--jobs``: the dashes alone make half of a match)."""
    if ctx is None or not option.startswith("--"):
        return []
    names = sorted(
        {
            name[2:]
            for param in ctx.command.get_params(ctx)
            for name in (*param.opts, *param.secondary_opts)
            if name.startswith("--")
        }
    )
    typed = option[2:]
    prefixed = [name for name in names if len(typed) >= 3 and name.startswith(typed)]
    close = _close_matches(typed, names, n=3, cutoff=0.7)
    return [f"--{name}" for name in dict.fromkeys([*close, *prefixed])][:3]


@click.group(
    cls=DefaultCommandGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=False,
)
@click.version_option(__version__, "-V", "--version", prog_name="divaeval")
def cli() -> None:
    """Evaluate search-result diversification runs (ndeval, NTCIREVAL, RBU, lexicographic
    metrics, reproduced exactly) and compare runs and metrics.

    \b
    Main job:   divaeval RUN... QRELS -m MEASURE [-m MEASURE ...]
    Example:    divaeval run.txt qrels.txt -m rbu -m alpha-ndcg@5,10,20 -q
    Measures:   divaeval metrics
    """


COMPLETE_VAR = "_DIVAEVAL_COMPLETE"


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and return its exit code. User errors become one line on
    stderr (``divaeval: FILE:LINE: message``); a reader that goes away (``| head``) ends the
    run quietly with 0; output that cannot be written (closed or full stdout) is exit 1; a
    bug is exit 3 (``--debug`` shows the traceback)."""

    args = list(sys.argv[1:] if argv is None else argv)
    instruction = os.environ.get(COMPLETE_VAR)
    if instruction and argv is None:  # shell completion (click's protocol)
        from click.shell_completion import shell_complete  # completion only: not on start-up

        return shell_complete(cli, {}, "divaeval", COMPLETE_VAR, instruction)
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    # ids are bytes: one that is not UTF-8 (read as a surrogate escape) is written back as the
    # same bytes, whatever stdout's encoding rules
    with contextlib.suppress(AttributeError, ValueError):
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    try:
        # make_context + invoke rather than cli.main: click's main turns a broken pipe into
        # exit 1 before divaeval could see it.
        with (
            cli.make_context("divaeval", args) as ctx,
            warnings_on_stderr(),
            status_on_terminal(),
        ):
            cli.invoke(ctx)
        if sys.stdout is not None:
            sys.stdout.flush()  # a write error of buffered output is reported here
    except DivaevalError as exc:
        if debug:
            raise
        _flush_quietly()
        click.echo(f"divaeval: {exc}", err=True)
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message(), err=True)
        return EXIT_USAGE
    except click.ClickException as exc:
        if debug:
            raise
        if isinstance(exc, click.exceptions.NoSuchOption):
            exc.possibilities = close_options(exc.option_name, exc.ctx)
        click.echo(f"divaeval: {exc.format_message()}", err=True)
        return EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt, EOFError):
        click.echo("divaeval: interrupted", err=True)
        return 130
    except Terminated as exc:  # SIGTERM or SIGHUP while an output file was written
        click.echo(f"divaeval: terminated ({signal.Signals(exc.signal_number).name})", err=True)
        return 128 + exc.signal_number
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and let no later flush fail.
        _silence_stdout()
        return 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except MemoryError:
        if debug:
            raise
        click.echo(
            f"divaeval: out of memory{failed_activity()}: the input is too large for this "
            "machine (try fewer runs or measures, smaller cutoffs, or -M)",
            err=True,
        )
        return DivaevalError.exit_code
    except Exception as exc:  # a bug in divaeval, not a user error: still one line
        if debug:
            raise
        click.echo(
            f"divaeval: internal error: {type(exc).__name__}: {exc} "
            "(rerun with --debug for the traceback, and please report it)",
            err=True,
        )
        return EXIT_INTERNAL
    return 0


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _flush_quietly() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()


def run_program() -> None:
    """The program's run (:func:`divaeval.cli.entry_point`): the heap set to reuse freed
    blocks, the command line run, the process ended with its exit code."""
    reuse_freed_memory()
    exit_now(main())


def exit_now(code: int) -> None:
    """End the process with ``code``, skipping the interpreter's teardown (freeing every
    module and object: 25 ms with numpy loaded, 5 % of a small evaluation) once nothing is
    left to do: output flushed, ``atexit`` handlers run, no other thread alive. Otherwise (a
    thread still running, a stream that cannot be flushed, a profiler or debugger attached)
    the ordinary ``sys.exit``."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)  # Python's own exit reports what it can
    if threading.active_count() > 1 or sys.getprofile() or sys.gettrace():
        sys.exit(code)  # (a profiler or debugger reports when the interpreter ends)
    atexit._run_exitfuncs()
    os._exit(code)
