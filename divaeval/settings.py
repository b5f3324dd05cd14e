"""THE settings object: every option that changes how runs are judged, scored and averaged, and
where the work runs, in one frozen dataclass, :class:`Settings`.

Each field's metadata (an :class:`Option`) declares its command-line flags, help, choices and
default, so that a new option is one field here:

- the command line generates its shared options from it
  (:func:`divaeval.cli.options.settings_options`) and builds the settings of a command with
  :meth:`Settings.from_command_line`;
- the Python API takes them as keyword arguments, checked against the fields
  (:meth:`Settings.merged`: an unknown keyword is a usage error naming it and the valid ones);
- :meth:`Settings.signature` is the one place the settings part of a signature is written;
- the workers receive it (it travels with every block of topics that is scored).

Light on purpose: no numpy, no click (``divaeval --help`` builds its options from it).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, Literal, NamedTuple

from divaeval.errors import DD_EXPONENTS, UsageError

Order = Literal["score", "score-docno-asc", "score-file", "rank", "file"]
Dedupe = Literal["error", "first"]
#: a number of processes, 0 (one per usable core), "auto", or None (1)
Jobs = int | str | None

#: ranking orders (``--order``) and the tools that use them (see :class:`Settings`)
ORDERS: tuple[str, ...] = ("score", "score-docno-asc", "score-file", "rank", "file")
DEDUPES: tuple[str, ...] = ("error", "first")
#: the reference tools whose quirks ``--compat`` reproduces when runs are scored
SCORING_COMPATS: tuple[str, ...] = ("ndeval", "ntcireval", "trec_eval")
#: ... and when runs are compared by lexicographic preferences (``divaeval prefer``)
PREFERENCE_COMPATS: tuple[str, ...] = ("pref_eval",)
#: every tool ``--compat`` names (each command offers those of its own work)
COMPATS: tuple[str, ...] = tuple(sorted(SCORING_COMPATS + PREFERENCE_COMPATS))
#: the settings a signature names by default (:meth:`Settings.signature`): how runs are judged
SIGNED: tuple[str, ...] = (
    "order", "rel_level", "depth", "complete", "dedupe", "compat", "intents", "topics",
)  # fmt: skip
#: topic means (``--mean``): arithmetic, geometric (trec_eval's gm_map), 1 − difficulty weighted
MEANS: tuple[str, ...] = ("arith", "geom", "dd")

_ORDER_HELP = (
    "ranking order: score = trec_eval's (score desc, ties by docno desc; also pytrec_eval, "
    "gdeval); score-docno-asc = ties by docno asc (pyndeval, ir_measures' Judged/Compat/RR@k); "
    "score-file = ties in file order (ir_measures' cwl_eval measures); rank = the rank column "
    "(ndeval's default); file = file order (NTCIREVAL, RBU) "
    "[default: score; rank with --compat ndeval]"
)

Kind = Literal["int", "choice", "flag", "input", "text", "size", "jobs"]


def default_order(compat: str | None) -> Order:
    """The ranking order when none is given: ndeval's (the rank column) under
    ``compat="ndeval"``, else trec_eval's (the score)."""
    return "rank" if compat == "ndeval" else "score"


def parse_size(value: object, label: str = "--chunk-size") -> int | None:
    """Bytes of a size such as ``64M``, ``512K``, ``1G``, ``100000`` or a positive int (None
    stays None); anything else is a usage error naming ``label``."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    elif isinstance(value, str):
        units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        body = value.strip().upper().removesuffix("B").removesuffix("I")
        unit = body[-1:] if body[-1:] in units else ""
        try:
            number = float(body[: len(body) - len(unit)])
        except ValueError:
            number = -1.0
        size = int(number * units[unit]) if number == number and number < float("inf") else -1
    else:
        size = -1
    if size < 1:
        raise UsageError(f"{label} must be a positive size such as 64M, not {value!r}")
    return size


class Option(NamedTuple):
    """How one setting is given: its command-line ``flags`` and ``help``, its ``kind`` (which
    makes its click type and its check), ``choices`` or ``minimum``, and, where the command
    line differs from the API, its ``cli_default`` and environment variable."""

    flags: tuple[str, ...]
    help: str
    kind: Kind
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    metavar: str | None = None
    cli_default: Any = None  # None: the field's default
    #: the choices a command offers unless it names its own (default: all of ``choices``)
    cli_choices: tuple[str, ...] = ()
    envvar: str | None = None
    show_default: bool = False
    #: how messages of the command line name it (default: the long flag)
    cli_label: str | None = None

    @property
    def long_flag(self) -> str:
        return next(flag for flag in self.flags if flag.startswith("--"))


def _option(default: Any, *, compare: bool = True, **option: Any) -> Any:
    """A field with its :class:`Option` (``compare=False``: data in memory, not compared)."""
    return field(default=default, compare=compare, metadata={"option": Option(**option)})


def _check_rel_level(value: object, label: str) -> int:
    """An integer >= 1: grade 0 means judged not relevant and negative grades (TREC's -2)
    spam, so a lower level would count them relevant (trec_eval's ``-l 0`` is not supported)."""
    number = _integer(value)
    if number is None:
        raise UsageError(f"relevance level {label} must be an integer, got {value!r}")
    if number < 1:
        raise UsageError(
            f"relevance level {label} must be >= 1, got {number} (grade 0 means judged not "
            "relevant and negative grades spam: they are never relevant)"
        )
    return number


def _integer(value: object) -> int | None:
    """``value`` as an int when it is an integer (a Python or numpy one, not a bool)."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def _kind_of(value: object) -> str:
    return type(value).__name__


def _check(name: str, value: object, label: str, default: object) -> object:
    """``value`` of the setting ``name`` checked (and normalized: a path to str, a size to
    bytes), or a usage error naming ``label``."""
    option: Option = _OPTIONS[name]
    if name == "rel_level":
        return _check_rel_level(value, label)
    if value is None and default is None:
        return None
    kind = option.kind
    if kind == "int":
        number = _integer(value)
        if number is None or (option.minimum is not None and number < option.minimum):
            raise UsageError(
                f"{label} must be an integer >= {option.minimum}"
                + (" or None" if default is None else "")
                + f", got {value!r}"
            )
        return number
    if kind == "choice":
        if not isinstance(value, str) or value not in option.choices:
            raise UsageError(f"{label} must be one of {', '.join(option.choices)}, got {value!r}")
        return value
    if kind == "flag":
        if not isinstance(value, bool):
            raise UsageError(f"{label} must be True or False, got {_kind_of(value)}")
        return value
    if kind == "input":  # a file, or the data in memory (read by divaeval.io.memory)
        if isinstance(value, (str, os.PathLike)):
            path = os.fspath(value)
            if isinstance(path, str):
                return path
        elif isinstance(value, Mapping) or hasattr(value, "columns") or hasattr(value, "frame"):
            return value
        raise UsageError(
            f"{label} must be a path (str), a DataFrame or a dict, got {_kind_of(value)}"
        )
    if kind == "text":
        if not isinstance(value, str):
            raise UsageError(f"{label} must be a string, got {_kind_of(value)}")
        return value
    if kind == "size":
        return parse_size(value, label)
    if kind == "jobs":
        number = _integer(value)
        if value == "auto" or (number is not None and number >= 0):
            return "auto" if value == "auto" else number
        raise UsageError(f"{label} must be a non-negative integer or 'auto', not {value!r}")
    raise AssertionError(kind)  # pragma: no cover


@dataclass(frozen=True)
class Settings:
    """Everything outside a measure's own parameters that changes the numbers, and where the
    work runs.

    ``order``: ``score`` = trec_eval's rule (score descending, ties by docno descending, as
    bytes; trec_eval, pytrec_eval, gdeval, pref_eval); ``score-docno-asc`` = score descending,
    ties by docno ascending (pyndeval and ir_measures' own Python measures: Judged, Compat,
    RR@k); ``score-file`` = score descending, ties in file order (a stable sort by score:
    ir_measures' cwl_eval measures); ``rank`` = the rank column ascending (ndeval's default);
    ``file`` = file order (NTCIREVAL, RBU, cwl_eval on its own); None = ``rank`` with
    ``compat="ndeval"``, else ``score`` (:attr:`ranking_order`). ``depth`` (``-M``) keeps the
    first ``depth`` documents after ordering. ``rel_level`` (``-l``) is the minimum grade that
    binary measures count as relevant. ``complete`` (``-c``) evaluates qrels topics missing
    from a run as empty rankings. ``dedupe``: ``error`` rejects a docno repeated within a
    topic; ``first`` keeps the highest-ranked copy. ``compat`` names a reference tool whose
    quirks are reproduced. ``intents`` and ``topics`` are the intent-probability file and the
    topics XML (subtopic types), or the same in memory (a DataFrame or a dict). ``mean`` is
    the topic average and ``dd_exponent`` the exponent of Golbus's Eq. 1 in its ``dd``
    weights. ``chunk_size`` is the bytes of run text read per block; ``jobs`` and
    ``scheduler`` say where the work runs
    (:func:`divaeval.parallel.workers_for`): the values are the same everywhere.
    """

    order: Order | None = _option(
        None, flags=("--order",), help=_ORDER_HELP, kind="choice", choices=ORDERS
    )
    depth: int | None = _option(
        None,
        flags=("-M", "--depth"),
        help="keep the first N documents per topic after ordering",
        kind="int",
        minimum=1,
        metavar="N",
    )
    rel_level: int = _option(
        1,
        flags=("-l", "--rel-level"),
        help="minimum grade that binary measures count as relevant",
        kind="int",  # >= 1: checked with its reason (click would say only "not in range")
        show_default=True,
        cli_label="-l",
    )
    complete: bool = _option(
        False,
        flags=("-c", "--complete"),
        help="average over all qrels topics; topics missing from a run count as 0",
        kind="flag",
    )
    dedupe: Dedupe = _option(
        "error",
        flags=("--dedupe",),
        help="a docno repeated in a topic: error, or keep the first copy",
        kind="choice",
        choices=DEDUPES,
        show_default=True,
    )
    compat: str | None = _option(
        None,
        flags=("--compat",),
        help="reproduce the named tool's quirks (documented per metric)",
        kind="choice",
        choices=COMPATS,
        cli_choices=SCORING_COMPATS,
    )
    normalize_intents: bool = _option(
        False,
        flags=("--normalize-intents",),
        help="rescale intent probabilities that do not sum to 1",
        kind="flag",
    )
    intents: str | None = _option(
        None,
        flags=("--intents",),
        help="intent probabilities: topic subtopic probability [inf|nav]",
        kind="input",
        metavar="FILE",
        compare=False,
    )
    topics: str | None = _option(
        None,
        flags=("--topics",),
        help="TREC Web Track topics XML (subtopic types inf/nav)",
        kind="input",
        metavar="FILE",
        compare=False,
    )
    mean: str = _option(
        "arith",
        flags=("--mean",),
        help="topic average: arithmetic, geometric (gm_map), or weighted by 1 - diversity "
        "difficulty",
        kind="choice",
        choices=MEANS,
        show_default=True,
    )
    dd_exponent: str | None = _option(
        None,
        flags=("--dd-exponent",),
        help="exponent of Golbus's Eq. 1 in the dd weights: xi (Eq. 1 and the text) or xi+1 "
        "(reproduces Golbus Tables 1, 2 and 10's DD block)  [default: xi]",
        kind="choice",
        choices=DD_EXPONENTS,
    )
    chunk_size: int | None = _option(
        None,
        flags=("--chunk-size",),
        help="read runs in blocks of whole topics of about SIZE of text (K, M, G suffixes); "
        "peak memory follows it, not the run  [default: 4M]",
        kind="size",
        metavar="SIZE",
    )
    jobs: Jobs = _option(
        1,
        flags=("-j", "--jobs"),
        help="work in N processes (0: one per usable core; 1: only this one; each with one "
        "BLAS thread); auto: one per usable core (at most 8) once the runs hold 4 MiB of "
        "text, else this one; the results are the same  [env: DIVAEVAL_JOBS]",
        kind="jobs",
        metavar="N|auto",
        cli_default="auto",
        envvar="DIVAEVAL_JOBS",
        show_default=True,
    )
    scheduler: str | None = _option(
        None,
        flags=("--scheduler",),
        help="work on the Dask cluster at ADDRESS (tcp://HOST:PORT), or 'local[:N]' for N "
        "local worker processes; needs divaeval[dask]; the results are the same  "
        "[env: DIVAEVAL_SCHEDULER]",
        kind="text",
        metavar="ADDRESS",
        envvar="DIVAEVAL_SCHEDULER",
    )

    def __post_init__(self) -> None:
        for name, value in _checked(vars(self), _keyword).items():
            object.__setattr__(self, name, value)  # normalized: a path as str, a size in bytes

    # -- making settings ------------------------------------------------------------------------

    @classmethod
    def from_command_line(cls, values: Mapping[str, Any], **fixed: Any) -> Settings:
        """The settings of a command's parsed options (keyed by field name), checked with the
        command line's names for them in messages (``--chunk-size``, ``-l``)."""
        return cls(**_checked({**values, **fixed}, _flag))

    def merged(
        self,
        options: Mapping[str, Any],
        accepted: Sequence[str],
        compats: Sequence[str] = SCORING_COMPATS,
        **fixed: Any,
    ) -> Settings:
        """These settings with ``options`` (an API function's keyword arguments) in place:
        an option not among ``accepted`` is a usage error naming it and the accepted ones, and
        so is a ``compat`` tool not among ``compats`` (the tools of the function's work);
        ``fixed`` values (what the function always uses, such as ``complete=True``) win."""
        unknown = [name for name in options if name not in accepted]
        if unknown:
            raise UsageError(
                f"unknown option {unknown[0]!r}; the options here are {', '.join(accepted)}"
            )
        merged = replace(self, **options, **fixed)
        if merged.compat is not None and merged.compat not in compats:
            raise UsageError(
                f"compat {merged.compat!r} does not apply here; the tools here are "
                f"{', '.join(compats)}"
            )
        return merged

    @classmethod
    def of(
        cls,
        settings: Settings | None,
        options: Mapping[str, Any],
        accepted: Sequence[str],
        compats: Sequence[str] = SCORING_COMPATS,
        **fixed: Any,
    ) -> Settings:
        """``settings`` (default: the defaults) with the keyword ``options`` of an API
        function in place (:meth:`merged`)."""
        if settings is None:
            settings = cls()
        elif not isinstance(settings, Settings):
            raise UsageError(f"settings must be a divaeval.Settings, got {_kind_of(settings)}")
        return settings.merged(options, accepted, compats, **fixed)

    # -- reading them ---------------------------------------------------------------------------

    @property
    def ranking_order(self) -> Order:
        """The ranking order in force: ``order``, else the default for ``compat``."""
        return self.order or default_order(self.compat)

    @property
    def exponent(self) -> str:
        """The exponent of Golbus's Eq. 1 in the ``dd`` weights (``xi`` unless given)."""
        return self.dd_exponent or "xi"

    def given(self, names: Sequence[str]) -> list[str]:
        """The command-line flags of those of ``names`` that differ from their defaults."""
        return [
            _OPTIONS[name].long_flag
            for name in names
            if not _same(getattr(self, name), _FIELDS[name].default)
        ]

    def signature(self, names: Sequence[str] = SIGNED) -> str:
        """The settings part of a signature, of those of ``names`` that a command takes (by
        default the judging ones): ``order=…|rel=…|depth=…|topic_set=…|dedupe=…``, then
        ``|compat=…``, ``|intents=FILE`` and ``|topic_types=FILE`` when given. ``topic_set``
        says which topics are evaluated: ``qrels`` (all of the qrels', ``-c``) or ``common``
        (those of both the run and the qrels); ``topic_types`` is the ``--topics`` file
        (its name, or ``memory``)."""
        parts = {
            "order": f"order={self.ranking_order}",
            "rel_level": f"rel={self.rel_level}",
            "depth": f"depth={self.depth or 'all'}",
            "complete": f"topic_set={'qrels' if self.complete else 'common'}",
            "dedupe": f"dedupe={self.dedupe}",
            "compat": f"compat={self.compat}" if self.compat else "",
            "intents": f"intents={_input_name(self.intents)}" if self.intents is not None else "",
            "topics": (
                f"topic_types={_input_name(self.topics)}" if self.topics is not None else ""
            ),
        }
        return "|".join(parts[name] for name in parts if name in names and parts[name])

    def mean_signature(self) -> str:
        """The averaging part of a signature: ``mean=…`` (``|dd_exponent=…`` with ``dd``)."""
        return f"mean={self.mean}" + (f"|dd_exponent={self.exponent}" if self.mean == "dd" else "")


_FIELDS: dict[str, Field] = {f.name: f for f in fields(Settings)}
_OPTIONS: dict[str, Option] = {name: f.metadata["option"] for name, f in _FIELDS.items()}

#: how runs are judged and where the work runs: the options of every command that scores runs
JUDGING: tuple[str, ...] = (
    "depth",
    "rel_level",
    "order",
    "dedupe",
    "compat",
    "intents",
    "topics",
    "normalize_intents",
    "chunk_size",
    "jobs",
    "scheduler",
)
#: where the work runs
WORKERS: tuple[str, ...] = ("jobs", "scheduler")
#: how runs are judged by the analyses that compare them ranking by ranking, in process
#: (``meta agreement``, ``meta degradation``)
COMPARING: tuple[str, ...] = tuple(name for name in JUDGING if name not in (*WORKERS, "chunk_size"))
#: how per-topic values are averaged
AVERAGING: tuple[str, ...] = ("mean", "dd_exponent")


def _input_name(value: object) -> str:
    """An input as a signature names it: a file by its name, data in memory as ``memory``."""
    return os.path.basename(value) if isinstance(value, str) else "memory"


def _same(value: Any, default: Any) -> bool:
    """Whether a setting is at its default (data in memory is never compared)."""
    return value is default if default is None else value == default


def option_of(name: str) -> Option:
    """The :class:`Option` of the setting ``name``."""
    return _OPTIONS[name]


def default_of(name: str) -> Any:
    """The API's default of the setting ``name``."""
    return _FIELDS[name].default


def _keyword(name: str) -> str:
    return name


def _flag(name: str) -> str:
    option = _OPTIONS[name]
    return option.cli_label or option.long_flag


def _checked(values: Mapping[str, Any], label: Callable[[str], str]) -> dict[str, Any]:
    """``values`` (field name -> value) checked one by one and together, messages naming
    each setting by ``label``; normalized (a path as str, a size in bytes)."""
    checked = {
        name: _check(name, value, label(name), _FIELDS[name].default)
        for name, value in values.items()
    }
    dd_exponent, mean = checked.get("dd_exponent"), checked.get("mean", "arith")
    if dd_exponent is not None and mean != "dd":
        raise UsageError(
            f"{label('dd_exponent')} applies to {label('mean')} dd, not {label('mean')} {mean}"
        )
    return checked
