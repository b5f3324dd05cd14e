"""What the public functions share: the frame of a library call (in-memory inputs, warnings,
errors located by row), the measures and settings they take, their workers, and their
arguments checked (a wrong one is a usage error naming it). Light: the main job imports it."""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np

from divaeval.errors import DivaevalError, UsageError, library_warnings
from divaeval.evaluation import closing_workers, same_file
from divaeval.io import Intents
from divaeval.io.memory import MemoryInputs
from divaeval.settings import SCORING_COMPATS, Settings


@contextmanager
def _library_call() -> Iterator[MemoryInputs]:
    """The frame of every public function: in-memory inputs, warnings as Python warnings,
    errors about in-memory rows located by row."""
    inputs = MemoryInputs()
    with library_warnings(inputs.relocate_message):
        try:
            yield inputs
        except DivaevalError as error:
            inputs.relocate(error)
            raise


def _measures(measures: object, name: str = "measures") -> list[str]:
    """``-m`` strings: one string is one measure specification; a list of them; None or
    empty: none given (the command's default). An ir_measures measure object
    (``ir_measures.nDCG@10``, ``divaeval.ir_measures.measure("RBU@20")``) stands for the
    string it prints as."""
    if measures is None:
        return []
    if isinstance(measures, str) or _measure_object(measures):
        return [_measure_text(measures, name)]
    if isinstance(measures, (list, tuple)):
        return [_measure_text(item, name) for item in measures]
    raise UsageError(
        f"{name}: expected a measure string or a list of them, got {type(measures).__name__}"
    )


def _measure_object(value: object) -> bool:
    """An ir_measures measure (its class comes from ir_measures, or is divaeval's own)."""
    return hasattr(value, "divaeval_spec") or (
        type(value).__module__.split(".")[0] == "ir_measures" and hasattr(value, "NAME")
    )


def _measure_text(value: object, name: str) -> str:
    if isinstance(value, str):
        return value
    if hasattr(value, "divaeval_spec"):
        return str(value.divaeval_spec)
    if _measure_object(value):
        return str(value)  # ir_measures' own spelling, which divaeval reads as ir_measures does
    raise UsageError(f"{name}: expected measure strings, got {type(value).__name__} ({value!r})")


def _settings(
    settings: Settings | None,
    options: dict[str, Any],
    accepted: Sequence[str],
    compats: Sequence[str] = SCORING_COMPATS,
    **fixed: Any,
) -> Settings:
    return Settings.of(settings, options, accepted, compats, **fixed)


def _in_memory(inputs: MemoryInputs, settings: Settings) -> Settings:
    """The settings with intents and topic types given in memory read (files stay paths, read
    by the pipeline)."""
    changes: dict[str, Any] = {}
    if settings.intents is not None and not isinstance(settings.intents, (str, Intents)):
        changes["intents"] = inputs.intents(settings.intents)
    if settings.topics is not None and not isinstance(settings.topics, str):
        changes["topics"] = inputs.topic_types(settings.topics)
    return replace(settings, **changes) if changes else settings


def _workers(settings: Settings, runs: Any = ()) -> Any:
    """The workers of the settings for an analysis (scoring and resampling share them)."""
    given = [runs] if isinstance(runs, str) else runs
    return closing_workers(settings, given if isinstance(given, (list, tuple)) else ())


def _with_baseline(runs: list, baseline: Any) -> tuple[list, int | None]:
    """(runs, position of the baseline among them): the baseline is added after the runs
    unless it is one of them (the same object or the same file), so ZRisk counts it once."""
    if baseline is None:
        return runs, None
    for position, run in enumerate(runs):
        same_path = isinstance(run, str) and isinstance(baseline, str)
        if run is baseline or (same_path and (run == baseline or same_file(run, baseline))):
            return runs, position
    return [*runs, baseline], len(runs)


def _integer(
    value: object, name: str, minimum: int | None = None, maximum: int | None = None,
    *, none: bool = False,
) -> Any:  # fmt: skip
    """``value`` as an int within [minimum, maximum] (or None when ``none``)."""
    if value is None and none:
        return None
    number = None
    if not isinstance(value, bool):
        try:
            number = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            number = None
    low = minimum is None or (number is not None and number >= minimum)
    high = maximum is None or (number is not None and number <= maximum)
    if number is None or not (low and high):
        bounds = (
            f" >= {minimum}" if maximum is None and minimum is not None
            else f" in [{minimum}, {maximum}]" if maximum is not None else ""
        )  # fmt: skip
        raise UsageError(
            f"{name}: expected an integer{bounds}{' or None' if none else ''}, got {value!r}"
        )
    return number


def _integers(value: object, name: str, minimum: int) -> list[int]:
    """One integer or a list of them (maybe empty), each >= ``minimum``."""
    if isinstance(value, (list, tuple)):
        return [_integer(item, name, minimum) for item in value]
    return [_integer(value, name, minimum)]


def _probability(value: object, name: str) -> float:
    """A number strictly between 0 and 1 (a significance level)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise UsageError(f"{name}: expected a number between 0 and 1, got {value!r}")
    if not 0.0 < float(value) < 1.0:
        raise UsageError(f"{name}: expected a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _fractions(value: object, name: str = "fractions") -> list[float]:
    """One number in [0, 1] or a list of them."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for item in items:
        number = isinstance(item, (int, float, np.floating)) and not isinstance(item, bool)
        if not number or not 0.0 <= float(item) <= 1.0:  # type: ignore[arg-type]
            raise UsageError(f"{name}: expected numbers between 0 and 1, got {item!r}")
    return [float(item) for item in items]  # type: ignore[arg-type]


def _choice(value: object, name: str, choices: Sequence[str], *, none: bool = False) -> Any:
    if value is None and none:
        return None
    if not isinstance(value, str) or value not in choices:
        raise UsageError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{name}: expected True or False, got {value!r}")
    return value


def _function(value: object, name: str) -> Any:
    if value is not None and not callable(value):
        raise UsageError(f"{name}: expected a function or None, got {type(value).__name__}")
    return value


def _risk_alpha(value: object, name: str = "risk_alpha") -> Any:
    """A number or its text (ndeval prints it as given); checked by ``check_risk_alpha``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, np.floating)):
        raise UsageError(f"{name}: expected a number >= 0 or its text, got {value!r}")
    return value


def _path(value: object, name: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str) and path:
            return path
    raise UsageError(f"{name}: expected a file path, got {value!r}")


def _resampling(test: object, samples: object, seed: object, alpha: object) -> None:
    """The resampling options: ``test`` is checked by the test's own function."""
    if not isinstance(test, str):
        raise UsageError(f"test: expected the name of a test, got {test!r}")
    _integer(samples, "samples", 1, none=True)
    _integer(seed, "seed", 0, none=True)
    _probability(alpha, "alpha")


def _no_bytes(value: object, name: str) -> None:
    """A path given as bytes is refused by name (iterated, it would look like integers)."""
    if isinstance(value, (bytes, bytearray)):
        raise UsageError(f"{name}: a path is a str (or os.PathLike), got {type(value).__name__}")
