"""Options shared by the commands, defined once so that the commands cannot drift apart:
how runs are judged (evaluate, compare, meta), which measures, the output (format, precision,
file, signature) and resampling (test, B, seed, alpha, correction)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

import click

from divaeval.cli.paths import INPUT, OUTPUT

MAX_RESAMPLES = (
    1_000_000  # = divaeval.stats.significance.MAX_RESAMPLES (not imported: --help stays fast)
)

if TYPE_CHECKING:
    from divaeval.judged import Order
    from divaeval.parallel import Workers

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

_ORDER_HELP = (
    "ranking order: score = trec_eval's (score desc, ties by docno desc; also pytrec_eval, "
    "gdeval); score-docno-asc = ties by docno asc (pyndeval, ir_measures' Judged/Compat/RR@k); "
    "score-file = ties in file order (ir_measures' cwl_eval measures); rank = the rank column "
    "(ndeval's default); file = file order (NTCIREVAL, RBU) "
    "[default: score; rank with --compat ndeval]"
)


def rel_level_option(help: str) -> Decorator:
    """``-l/--rel-level``: the minimum grade that counts as relevant, >= 1 in every command
    (:func:`divaeval.errors.check_rel_level` gives the reason)."""

    def check(ctx: click.Context, param: click.Parameter, value: int) -> int:
        from divaeval.errors import check_rel_level

        return check_rel_level(value)

    return click.option(
        "-l", "--rel-level", type=int, default=1, show_default=True, help=help, callback=check
    )


def depth_option(help: str = "keep the first N documents per topic after ordering") -> Decorator:
    return click.option("-M", "--depth", type=click.IntRange(min=1), default=None, help=help)


def dedupe_option(help: str = "a docno repeated in a topic: error, or keep the first copy"):
    return click.option(
        "--dedupe",
        type=click.Choice(["error", "first"]),
        default="error",
        show_default=True,
        help=help,
    )


#: = divaeval.judged.ORDERS (spelled out: the CLI does not import numpy to build its options)
ORDER_CHOICES = ("score", "score-docno-asc", "score-file", "rank", "file")


def order_option(default: str | None = None, help: str = _ORDER_HELP) -> Decorator:
    return click.option(
        "--order",
        type=click.Choice(ORDER_CHOICES),
        default=default,
        show_default=default is not None,
        help=help,
    )


def mean_option(help: str) -> Decorator:
    """``--mean``: the topic average (arith, geom, dd), as in every command that averages."""
    return click.option(
        "--mean",
        type=click.Choice(["arith", "geom", "dd"]),
        default="arith",
        show_default=True,
        help=help,
    )


def dd_exponent_option() -> Decorator:
    """``--dd-exponent``: the exponent of Golbus's Eq. 1 wherever diversity-difficulty weights
    are used (``--mean dd``, ``collection``)."""
    return click.option(
        "--dd-exponent",
        type=click.Choice(["xi", "xi+1"]),
        default=None,
        help="exponent of Golbus's Eq. 1 in the dd weights: xi (Eq. 1 and the text) or xi+1 "
        "(reproduces Golbus Tables 1, 2 and 10's DD block)  [default: xi]",
    )


def check_dd_exponent(mean: str, dd_exponent: str | None) -> str:
    """The dd exponent to use: ``--dd-exponent`` only means something with ``--mean dd``."""
    from divaeval.errors import UsageError

    if dd_exponent is not None and mean != "dd":
        raise UsageError(f"--dd-exponent applies to --mean dd, not --mean {mean}")
    return dd_exponent or "xi"


def intents_option() -> Decorator:
    return click.option(
        "--intents",
        type=INPUT,
        default=None,
        metavar="FILE",
        help="intent probabilities: topic subtopic probability [inf|nav]",
    )


def topics_option() -> Decorator:
    return click.option(
        "--topics",
        "topics_file",
        type=INPUT,
        default=None,
        metavar="FILE",
        help="TREC Web Track topics XML (subtopic types inf/nav)",
    )


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


#: ``-j/--jobs`` and ``--scheduler``: where the work runs (:mod:`divaeval.parallel`), for the
#: main job and the resampling analyses alike
_WORKERS_OPTIONS = (
    click.option(
        "-j",
        "--jobs",
        type=JobsType(),
        default="auto",
        show_default=True,
        envvar="DIVAEVAL_JOBS",
        metavar="N|auto",
        callback=_one_blas_thread_per_process,
        help="work in N processes (0: one per usable core; 1: only this one; each with one "
        "BLAS thread); auto: one per usable core (at most 8) once the runs hold 4 MiB of "
        "text, else this one; the results are the same  [env: DIVAEVAL_JOBS]",
    ),
    click.option(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        envvar="DIVAEVAL_SCHEDULER",
        help="work on the Dask cluster at ADDRESS (tcp://HOST:PORT), or 'local[:N]' for N "
        "local worker processes; needs divaeval[dask]; the results are the same  "
        "[env: DIVAEVAL_SCHEDULER]",
    ),
)


def workers_options(command):
    """Decorate a click command with ``-j/--jobs`` and ``--scheduler`` (keyword arguments
    ``jobs`` and ``scheduler``); the judging options include them."""
    for option in reversed(_WORKERS_OPTIONS):
        command = option(command)
    return command


@contextmanager
def workers_from(
    jobs, scheduler: str | None, runs: Sequence[str] = (), chunk_size: str | None = None
) -> Iterator[Workers]:
    """The workers of ``--jobs`` and ``--scheduler`` for one command (the evaluation and the
    analyses share them: a Dask cluster is connected to, or a local one started, once), closed
    at the end; ``--jobs auto`` decides by the ``runs`` files (and ``--chunk-size``)."""
    from divaeval.parallel import workers_for
    from divaeval.streaming import planned_work

    work = planned_work(runs, parse_size(chunk_size)) if jobs == "auto" and runs else None
    workers = workers_for(jobs, scheduler, work=work)
    try:
        yield workers
    finally:
        workers.close()


_JUDGING_OPTIONS = (
    depth_option(),
    rel_level_option("minimum grade that binary measures count as relevant"),
    order_option(),
    dedupe_option(),
    click.option(
        "--compat",
        type=click.Choice(["ndeval", "ntcireval"]),
        default=None,
        help="reproduce the named tool's quirks (documented per metric)",
    ),
    intents_option(),
    topics_option(),
    click.option(
        "--normalize-intents",
        is_flag=True,
        help="rescale intent probabilities that do not sum to 1",
    ),
    click.option(
        "--chunk-size",
        default=None,
        metavar="SIZE",
        help="read runs in blocks of whole topics of about SIZE of text (K, M, G suffixes); "
        "peak memory follows it, not the run  [default: 8M]",
    ),
    *_WORKERS_OPTIONS,
)

JUDGING_KEYS = (
    "depth",
    "rel_level",
    "order",
    "dedupe",
    "compat",
    "intents",
    "topics_file",
    "normalize_intents",
    "chunk_size",
    "jobs",
    "scheduler",
)


def parse_size(text: str | None, option: str = "--chunk-size") -> int | None:
    """Bytes of a size such as ``64M``, ``512K``, ``1G`` or ``100000`` (None stays None)."""
    from divaeval.errors import UsageError

    if text is None:
        return None
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    body = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = body[-1:] if body[-1:] in units else ""
    try:
        value = float(body[: len(body) - len(unit)])
    except ValueError:
        value = -1.0
    size = int(value * units[unit]) if value == value and value < float("inf") else -1
    if size < 1:
        raise UsageError(f"{option} must be a positive size such as 64M, not {text!r}")
    return size


def judging_options(command):
    """Decorate a click command with the shared judging options (keyword arguments named in
    :data:`JUDGING_KEYS`, handed on to :func:`evaluation_from` as ``**judging``)."""
    for option in reversed(_JUDGING_OPTIONS):
        command = option(command)
    return command


def measure_option() -> Decorator:
    """``-m``: the same in every command that scores runs; default ndeval's 21 columns."""
    return click.option(
        "-m",
        "--measure",
        "measures",
        multiple=True,
        metavar="MEASURE",
        help="NAME[(p=v,...)][@k,...] or a preset; repeatable (see 'divaeval metrics') "
        "[default: ndeval, ndeval's 21 columns]",
    )


def baseline_option(help: str) -> Decorator:
    return click.option("--baseline", type=INPUT, default=None, metavar="FILE", help=help)


def risk_alpha_option(help: str) -> Decorator:
    """``--risk-alpha A``: kept as typed (ndeval prints it so in its run label); checked by
    :func:`divaeval.risk_measures.check_risk_alpha`."""
    return click.option("--risk-alpha", type=str, default=None, metavar="A", help=help)


def evaluation_from(
    files,
    measures,
    judging: dict,
    *,
    complete: bool,
    baseline: str | None = None,
    risk_alpha: str | None = None,
    dd_exponent: str = "xi",
    workers: Workers | None = None,
):
    """Run the evaluation the judging options describe (the qrels file is the last file),
    relative to ``baseline`` when one is given (``--baseline``, ``--risk-alpha``), with
    ``dd_exponent`` for ``--mean dd``; on ``workers`` when given (else those of ``--jobs`` and
    ``--scheduler``, for this evaluation only)."""
    from divaeval.errors import UsageError
    from divaeval.evaluation import run_evaluation
    from divaeval.judged import EvalSettings, default_order

    if len(files) < 2:
        raise UsageError("need at least one RUN and the QRELS file (qrels last)")
    settings = EvalSettings(
        order=cast("Order", judging["order"]) or default_order(judging["compat"]),
        depth=judging["depth"],
        rel_level=judging["rel_level"],
        complete=complete,
        dedupe=judging["dedupe"],
        compat=judging["compat"],
        normalize_intents=judging["normalize_intents"],
    )
    return run_evaluation(
        list(files[:-1]),
        files[-1],
        measures,
        intents=judging["intents"],
        topics=judging["topics_file"],
        settings=settings,
        baseline=baseline,
        risk_alpha=risk_alpha,
        dd_exponent=dd_exponent,
        jobs=judging["jobs"],
        scheduler=judging["scheduler"],
        chunk_bytes=parse_size(judging["chunk_size"]),
        workers=workers,
    )


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


#: the judging options' values when not given (``--scores`` accepts no other)
_JUDGING_DEFAULTS = {
    "depth": ("--depth", None),
    "rel_level": ("--rel-level", 1),
    "order": ("--order", None),
    "dedupe": ("--dedupe", "error"),
    "compat": ("--compat", None),
    "intents": ("--intents", None),
    "topics_file": ("--topics", None),
    "normalize_intents": ("--normalize-intents", False),
    "chunk_size": ("--chunk-size", None),
}


def score_tables(
    files,
    measures,
    judging: dict,
    score_files: tuple[str, ...] = (),
    workers: Workers | None = None,
) -> tuple[list[str], dict]:
    """(run names, measure name -> scores[n_runs, n_topics]) over all qrels topics: a topic
    missing from a run scores 0 (as with ``-c``), so paired analyses compare like with like.
    With ``score_files`` (``--scores``) the tables are read from them instead
    (:func:`divaeval.meta.scores.read_score_table`). The runs are scored on ``workers`` when
    given (``--jobs`` and ``--scheduler`` also apply to ``--scores``: to the analysis)."""
    from divaeval.errors import UsageError
    from divaeval.scores import score_matrix

    if score_files:
        from divaeval.meta.scores import read_score_table

        if files:
            raise UsageError("give either RUN... QRELS or --scores FILE, not both")
        given = [name for key, (name, unset) in _JUDGING_DEFAULTS.items() if judging[key] != unset]
        if given:
            raise UsageError(f"{given[0]} applies to RUN... QRELS, not to --scores")
        table = read_score_table(score_files, measures)
        return table.runs, table.tables
    if not files:
        raise UsageError("give RUN... QRELS (qrels last) or --scores FILE")
    result = evaluation_from(files, measures, judging, complete=True, workers=workers)
    table = result.table(per_topic=True, summary=False)
    tables = {}
    runs: list[str] = []
    for measure in result.measures:
        runs, _, matrix = score_matrix(table, measure.name)
        tables[measure.name] = matrix
    return runs, tables


# ---------------------------------------------------------------------------------------------
# output


def table_format_option(default: str | None = None) -> Decorator:
    """``-f`` for analysis tables; ``default=None`` = a rich table on a terminal, else csv
    (resolved by :func:`resolve_format`)."""
    from divaeval.report.frames import TABLE_FORMATS

    return click.option(
        "-f",
        "--format",
        "output_format",
        type=click.Choice(TABLE_FORMATS),
        default=default,
        show_default=default is not None,
        help="output format" + ("" if default else " [default: table on a terminal, else csv]"),
    )


def resolve_format(fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    return "table" if sys.stdout.isatty() else "csv"


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


def signature_option() -> Decorator:
    return click.option("--signature", is_flag=True, help="print the settings signature on stderr")


def output_options(command):
    """``-f`` (table on a terminal, else csv), ``--precision`` (the format's own by default),
    ``-o`` and ``--signature`` of the analysis commands."""
    command = signature_option()(command)
    command = output_file_option()(command)
    command = precision_option(default=None)(command)
    return table_format_option()(command)


# ---------------------------------------------------------------------------------------------
# significance and resampling


def alpha_option(help: str = "significance level") -> Decorator:
    return click.option(
        "--alpha",
        "significance",
        type=click.FloatRange(0, 1, min_open=True, max_open=True),
        default=0.05,
        show_default=True,
        help=help,
    )


def seed_option() -> Decorator:
    return click.option(
        "--seed", type=int, default=None, help="random seed (default 42; always reported)"
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
    """``--test``, ``-B``, ``--seed`` and ``--alpha`` of the resampling analyses."""

    def decorate(command):
        command = alpha_option()(command)
        command = seed_option()(command)
        command = click.option(
            "-B",
            "--samples",
            "B",
            type=click.IntRange(1, MAX_RESAMPLES),
            default=None,
            help="resamples (default: the test's own)",
        )(command)
        return click.option(
            "--test",
            type=click.Choice(tests),
            default=default_test,
            show_default=True,
            help="significance test",
        )(command)

    return decorate
