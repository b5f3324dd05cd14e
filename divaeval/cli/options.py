"""Options shared by the commands, defined once so that the commands cannot drift apart: the
settings (generated from :class:`divaeval.settings.Settings`: how runs are judged, averaged, and
where the work runs), which measures, the inputs of the analyses (RUN... QRELS or --scores), the
output (format, precision, file, signature) and resampling (test, B, seed, alpha, correction)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import click

from divaeval.cli.output import TableOutput, resolve_format
from divaeval.cli.paths import INPUT, OUTPUT
from divaeval.errors import UsageError
from divaeval.report import TABLE_FORMATS
from divaeval.settings import JUDGING, WORKERS, Settings, default_of, option_of

MAX_RESAMPLES = (
    1_000_000  # = divaeval.stats.significance.MAX_RESAMPLES (not imported: --help stays fast)
)

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


# ---------------------------------------------------------------------------------------------
# the settings


#: the variables that set how many threads numpy's BLAS (OpenBLAS, MKL, OpenMP builds) starts
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class JobsType(click.ParamType):
    """``--jobs``: a number of processes (0: one per usable core) or ``auto``."""

    name = "jobs"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "auto":
            return value
        try:
            number = int(value)
        except ValueError:
            number = -1
        if number < 0:
            self.fail(
                f"{value!r} is not a number of processes (0, 1, 2, ...) or 'auto'", param, ctx
            )
        return number


def _one_blas_thread_per_process(ctx: click.Context, param: click.Parameter, jobs):
    """With ``-j N`` (N ≠ 1, or ``auto``) every process is one core's worth of work: its BLAS
    gets one thread (unless the variables are set), or N processes of a multithreaded BLAS
    would oversubscribe the cores (as Dask does for its workers). Read when numpy loads, which
    the command line does only after its options are parsed."""
    if jobs != 1:
        for name in BLAS_THREAD_VARIABLES:
            os.environ.setdefault(name, "1")
    return jobs


def _click_option(
    name: str, help: str | None, default: Any, choices: Sequence[str] | None = None
) -> Decorator:
    """The click option of the setting ``name``, from its :class:`~divaeval.settings.Option`
    (values are checked by :meth:`Settings.from_command_line`, beyond click's types)."""
    option = option_of(name)
    if default is None:
        default = default_of(name) if option.cli_default is None else option.cli_default
    settings: dict[str, Any] = {
        "default": default,
        "help": help or option.help,
        "show_default": option.show_default,
        "envvar": option.envvar,
    }
    if option.metavar:
        settings["metavar"] = option.metavar
    if option.kind == "flag":
        settings["is_flag"] = True
    elif option.kind == "choice":
        settings["type"] = click.Choice(choices or option.cli_choices or option.choices)
    elif option.kind == "int":
        settings["type"] = click.IntRange(min=option.minimum) if option.minimum else int
    elif option.kind == "jobs":
        settings.update(type=JobsType(), callback=_one_blas_thread_per_process)
    elif option.kind == "input":  # a file read: never an output too (divaeval.cli.paths)
        settings["type"] = INPUT
    else:
        settings["type"] = str
    return click.option(*option.flags, name, **settings)


def settings_options(
    *names: str,
    help: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    choices: Mapping[str, Sequence[str]] | None = None,
) -> Decorator:
    """Decorate a click command with the options of the settings ``names`` (keyword arguments
    named as the fields, for :meth:`Settings.from_command_line`); ``help``, ``defaults`` and
    ``choices`` give a command's own words, defaults and choices for some of them."""

    def decorate(command):
        for name in reversed(names):
            command = _click_option(
                name,
                (help or {}).get(name),
                (defaults or {}).get(name),
                (choices or {}).get(name),
            )(command)
        return command

    return decorate


def settings_from(values: Mapping[str, Any], **fixed: Any) -> Settings:
    """The settings of a command's parsed options (:func:`settings_options`)."""
    return Settings.from_command_line(values, **fixed)


def runs_and_qrels(files: Sequence[str], at_least: int = 1) -> tuple[list[str], str]:
    """(run files, qrels file) of ``RUN... QRELS`` (the qrels last)."""
    if len(files) < at_least + 1:
        runs = "one RUN" if at_least == 1 else "two RUNs"
        raise UsageError(f"need at least {runs} and the QRELS file (qrels last)")
    return list(files[:-1]), files[-1]


def analysis_inputs(
    files: Sequence[str], score_files: Sequence[str], options: Mapping[str, Any]
) -> dict[str, Any]:
    """The inputs of an analysis of runs, as keyword arguments of its API function: ``runs``
    and ``qrels`` (``RUN... QRELS``), or the ``--scores`` files (which no judging option
    applies to; ``--jobs`` and ``--scheduler`` still run the analysis); and the ``settings``
    of the command's parsed settings ``options`` (:func:`settings_options`)."""
    settings = settings_from(options)
    if score_files:
        if files:
            raise UsageError("give either RUN... QRELS or --scores FILE, not both")
        given = settings.given([name for name in JUDGING if name not in WORKERS])
        if given:
            raise UsageError(f"{given[0]} applies to RUN... QRELS, not to --scores")
        return {"scores": list(score_files), "settings": settings}
    if not files:
        raise UsageError("give RUN... QRELS (qrels last) or --scores FILE")
    runs, qrels = runs_and_qrels(files)
    return {"runs": runs, "qrels": qrels, "settings": settings}


def complete_measure(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of ``-m``: the registry's names, aliases, other tools' names and
    presets that start with what was typed (case-insensitive)."""
    from divaeval.metrics.registry import all_forms, all_specs, presets

    names = {name for spec in all_specs() for name in (spec.name, *spec.aliases)}
    names |= {form.name for form in all_forms()} | set(presets())
    typed = incomplete.lower()
    return sorted(name for name in names if name.lower().startswith(typed))


def measure_option(default: str = "ndeval, ndeval's 21 columns") -> Decorator:
    """``-m``: the same in every command that scores runs; ``default`` says what the command
    takes without it (written out: the analyses' defaults are not imported for ``--help``)."""
    return click.option(
        "-m",
        "--measure",
        "measures",
        multiple=True,
        metavar="MEASURE",
        shell_complete=complete_measure,
        help="NAME[(p=v,...)][@k,...] or a preset; repeatable (see 'divaeval metrics') "
        f"[default: {default}]",
    )


def baseline_option(help: str) -> Decorator:
    return click.option("--baseline", type=INPUT, default=None, metavar="FILE", help=help)


def risk_alpha_option(help: str) -> Decorator:
    """``--risk-alpha A``: kept as typed (ndeval prints it so in its run label); checked by
    :func:`divaeval.risk_measures.check_risk_alpha`."""
    return click.option("--risk-alpha", type=str, default=None, metavar="A", help=help)


def scores_option() -> Decorator:
    """``--scores FILE``: a score table instead of runs and qrels (the meta commands)."""
    return click.option(
        "--scores",
        "score_files",
        type=INPUT,
        multiple=True,
        metavar="FILE",
        help="read per-topic scores instead of RUN... QRELS: lines 'run topic measure value' "
        "(whitespace, tab or comma separated) or trec_eval -q output; -m then names the "
        "file's measures (default: all); repeatable",
    )


# ---------------------------------------------------------------------------------------------
# output


def table_format_option(default: str | None = None) -> Decorator:
    """``-f`` for analysis tables; ``default=None`` = by ``-o FILE``'s extension, else a rich
    table on a terminal, else csv (:func:`divaeval.cli.output.resolve_format`)."""
    return click.option(
        "-f",
        "--format",
        "output_format",
        type=click.Choice(TABLE_FORMATS),
        default=default,
        show_default=default is not None,
        help="output format"
        + (
            ""
            if default
            else "  [default: -o FILE's extension (.csv .tsv .jsonl .json .tex .md .html), "
            "else table on a terminal, else csv]"
        ),
    )


def precision_option(default: int | None = None) -> Decorator:
    return click.option(
        "--precision",
        type=click.IntRange(0, 17),
        default=default,
        show_default=default is not None,
        help="decimals printed" + (" (default: the format's own)" if default is None else ""),
    )


def output_file_option() -> Decorator:
    return click.option(
        "-o",
        "--output",
        type=OUTPUT,
        default=None,
        metavar="FILE",
        help="write to FILE, not stdout",
    )


def plot_option(what: str) -> Decorator:
    """``--plot FILE.png|svg|pdf``: also draw ``what`` to FILE (the command checks it with
    :func:`divaeval.api.results.check_plot` before any work)."""
    return click.option(
        "--plot",
        type=OUTPUT,
        default=None,
        metavar="FILE.png|svg|pdf",
        help=f"also draw {what} to FILE, in the format of its suffix (needs matplotlib: "
        "pip install 'divaeval[plot]')",
    )


def signature_option() -> Decorator:
    return click.option("--signature", is_flag=True, help="print the settings signature on stderr")


def output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``-f`` (by -o's extension, else table on a terminal, else csv), ``--precision`` (the
    format's own by default), ``-o`` and ``--signature`` of the analysis commands, passed to
    the command as one :class:`~divaeval.cli.output.TableOutput`, ``out``."""

    @functools.wraps(command)  # (and its options so far: click's __click_params__)
    def with_output(
        *args: Any,
        output_format: str | None,
        precision: int | None,
        output: str | None,
        signature: bool,
        **kwargs: Any,
    ) -> Any:
        out = TableOutput(resolve_format(output_format, output), output, precision, signature)
        return command(*args, out=out, **kwargs)

    decorated: Callable[..., Any] = with_output
    for option in (signature_option(), output_file_option(), precision_option()):
        decorated = option(decorated)
    return table_format_option()(decorated)


# ---------------------------------------------------------------------------------------------
# significance and resampling


def alpha_option(
    help: str = "significance level", name: str = "significance", default: float | None = 0.05
) -> Decorator:
    """``--alpha A``, 0 < A < 1 (``default=None``: the command says its default in ``help``)."""
    return click.option(
        "--alpha",
        name,
        type=click.FloatRange(0, 1, min_open=True, max_open=True),
        default=default,
        show_default=default is not None,
        help=help,
    )


def seed_option(help: str = "random seed (default 42; always reported)") -> Decorator:
    return click.option("--seed", type=int, default=None, help=help)


def samples_option(
    help: str,
    name: str = "samples",
    *,
    minimum: int = 1,
    default: int | None = None,
    aliases: tuple[str, ...] = (),
) -> Decorator:
    """``-B N``: how many resamples (or samples) an analysis draws, at most
    :data:`MAX_RESAMPLES`."""
    return click.option(
        "-B",
        "--samples",
        *aliases,
        name,
        type=click.IntRange(minimum, MAX_RESAMPLES),
        default=default,
        show_default=default is not None,
        help=help,
    )


def correction_option(default: str | None, help: str) -> Decorator:
    return click.option(
        "--correction",
        type=click.Choice(["holm", "bh", "bonferroni", "none"]),
        default=default,
        show_default=default is not None,
        help=help,
    )


def resampling_options(default_test: str, tests: tuple[str, ...]) -> Decorator:
    """``--test``, ``-B``, ``--seed`` and ``--alpha`` of the resampling analyses, passed to the
    command as ``resampling``: the keyword arguments ``test``, ``samples``, ``seed`` and
    ``alpha`` of its API function."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)  # (and its options so far: click's __click_params__)
        def with_resampling(
            *args: Any,
            test: str,
            B: int | None,
            seed: int | None,
            significance: float,
            **kwargs: Any,
        ) -> Any:
            resampling = {"test": test, "samples": B, "seed": seed, "alpha": significance}
            return command(*args, resampling=resampling, **kwargs)

        decorated: Callable[..., Any] = with_resampling
        for option in (
            alpha_option(),
            seed_option(),
            samples_option("resamples (default: the test's own)", "B"),
        ):
            decorated = option(decorated)
        return click.option(
            "--test",
            type=click.Choice(tests),
            default=default_test,
            show_default=True,
            help="significance test",
        )(decorated)

    return decorate
