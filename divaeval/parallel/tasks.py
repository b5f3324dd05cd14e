"""Tasks and the workers that run them: the :class:`Workers` protocol, :class:`InProcess` (a
plain loop), and what every kind of worker shares: a task's warnings collected where it runs
and told here, in item order, each distinct message once per map (:func:`collecting`,
:func:`outcome`); results taken in item order with at most ``ahead`` tasks in flight
(:func:`in_order`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, Protocol, TypeVar

from divaeval.errors import DivaevalError, set_warning_sink, warn

Item = TypeVar("Item")
Result = TypeVar("Result")
Task = Callable[[Any, Item], Result]
Locality = Literal["in process", "this machine", "other machines"]

SCHEDULER_VARIABLE = "DIVAEVAL_SCHEDULER"


class Workers(Protocol):
    """Runs tasks; see the module docstring."""

    #: how many tasks can run at the same time
    size: int

    def map(
        self,
        task: Task,
        items: Iterable[Item],
        shared: Any = None,
        *,
        ahead: int | None = None,
        prepare: Callable[[Any], None] | None = None,
    ) -> Iterator[Result]: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...

    #: where tasks run: in this process, in other processes of this machine (they open the
    #: files this process opens), or on other machines
    locality: Locality


def collecting(task: Task, shared: Any, item: Any) -> tuple[Any, list[str]]:
    """Run ``task`` with divaeval's warnings collected, not printed: (result, warnings)."""
    messages: list[str] = []
    previous = set_warning_sink(messages.append)
    try:
        return task(shared, item), messages
    except DivaevalError as error:
        error.__dict__["task_warnings"] = messages  # told before the error (outcome)
        raise
    finally:
        set_warning_sink(previous)


def outcome_of(wait: Callable[[], tuple[Any, list[str]]], issued: set[str]) -> Any:
    """The result of one task (``wait()``: its (result, warnings)), its warnings issued
    (:func:`reissue`); a task's error is raised after the warnings it gave before it."""
    try:
        result, messages = wait()
    except DivaevalError as error:
        reissue(error.__dict__.pop("task_warnings", []), issued)
        raise
    reissue(messages, issued)
    return result


def reissue(messages: list[str], issued: set[str]) -> None:
    """Issue the warnings of one task, except those an earlier task of the same map issued
    (the blocks of a streamed run would repeat a warning about the qrels once each)."""
    for message in messages:
        if message not in issued:
            issued.add(message)
            warn(message)


class InProcess:
    """Tasks run one after another in this process."""

    size = 1
    locality: Locality = "in process"

    def map(self, task, items, shared=None, *, ahead=None, prepare=None):
        issued: set[str] = set()  # (prepare: the first task's own caching is as good here)
        for item in items:
            yield outcome_of(lambda: collecting(task, shared, item), issued)  # noqa: B023

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "in process"


def in_order(
    submit: Callable[[Any], Any],
    wait: Callable[[Any], Any],
    cancel,
    items,
    ahead,
    issued: set[str] | None = None,
):
    """Submit items with at most ``ahead`` pending; yield results in item order (``issued``:
    the warnings already told in this map)."""
    pending: deque = deque()
    issued = set() if issued is None else issued
    try:
        for item in items:
            pending.append(submit(item))
            if len(pending) >= ahead:
                yield outcome_of(lambda: wait(pending.popleft()), issued)
        while pending:
            yield outcome_of(lambda: wait(pending.popleft()), issued)
    finally:
        for future in pending:
            cancel(future)
