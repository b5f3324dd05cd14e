"""Where work runs: in this process, in local worker processes, or on a Dask cluster.

Every parallel part of divaeval (topic chunks of a run, runs, resampling replicates) hands its
work to a :class:`Workers` object as *tasks*: a module-level function ``task(shared, item)`` and
a sequence of items. :meth:`Workers.map` yields the results **in item order**, whatever order
they finish in, so a parallel result is assembled exactly as the serial one (and is identical
to it: each task computes the same numbers wherever it runs). ``shared`` is sent to each worker
once (the qrels index, a score table), not with every task.

- ``jobs=1`` and no scheduler: :class:`InProcess`, a plain loop (the default; nothing extra is
  imported).
- ``jobs=N``: :class:`LocalProcesses`, a :class:`concurrent.futures.ProcessPoolExecutor` of N
  processes (``fork`` where the platform has it, so workers start in milliseconds).
- ``scheduler=ADDRESS`` (or the environment variable ``DIVAEVAL_SCHEDULER``): :class:`Cluster`,
  a ``dask.distributed`` client of the scheduler at ADDRESS (``tcp://host:8786``), or of a
  :class:`~dask.distributed.LocalCluster` on the loopback interface for ``local`` or
  ``local:N`` (N worker processes). Dask is imported only then (the optional extra
  ``divaeval[dask]``).

At most ``ahead`` tasks are in flight (default: twice the workers), so a producer that reads a
large file lazily keeps memory bounded. Warnings a task issues are collected where it runs and
re-issued here, in item order and each distinct message once per map, so they reach the
user's terminal (or Python's warnings) from a
worker process or a remote machine alike. A task's :class:`~divaeval.errors.DivaevalError`
propagates with its file and line; the remaining tasks are cancelled.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, Protocol, TypeVar

from divaeval.errors import DivaevalError, UsageError, set_warning_sink, warn

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
        self, task: Task, items: Iterable[Item], shared: Any = None, *, ahead: int | None = None
    ) -> Iterator[Result]: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...

    #: where tasks run: in this process, in other processes of this machine (they open the
    #: files this process opens), or on other machines
    locality: Locality


def _collecting(task: Task, shared: Any, item: Any) -> tuple[Any, list[str]]:
    """Run ``task`` with divaeval's warnings collected, not printed: (result, warnings)."""
    messages: list[str] = []
    previous = set_warning_sink(messages.append)
    try:
        return task(shared, item), messages
    except DivaevalError as error:
        error.__dict__["task_warnings"] = messages  # told before the error (_outcome)
        raise
    finally:
        set_warning_sink(previous)


def _outcome(wait: Callable[[], tuple[Any, list[str]]], issued: set[str]) -> Any:
    """The result of one task (``wait()``: its (result, warnings)), its warnings issued
    (:func:`_reissue`); a task's error is raised after the warnings it gave before it."""
    try:
        result, messages = wait()
    except DivaevalError as error:
        _reissue(error.__dict__.pop("task_warnings", []), issued)
        raise
    _reissue(messages, issued)
    return result


def _reissue(messages: list[str], issued: set[str]) -> None:
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

    def map(self, task, items, shared=None, *, ahead=None):
        issued: set[str] = set()
        for item in items:
            yield _outcome(lambda: _collecting(task, shared, item), issued)  # noqa: B023

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "in process"


_NOTHING = object()

#: the ``shared`` object of this worker process (set once by the pool's initializer)
_WORKER_SHARED: Any = None


def _install_shared(shared: Any) -> None:
    global _WORKER_SHARED
    _WORKER_SHARED = shared


def _call_with_worker_shared(task: Task, item: Any) -> tuple[Any, list[str]]:
    return _collecting(task, _WORKER_SHARED, item)


def _in_order(
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
                yield _outcome(lambda: wait(pending.popleft()), issued)
        while pending:
            yield _outcome(lambda: wait(pending.popleft()), issued)
    finally:
        for future in pending:
            cancel(future)


class LocalProcesses:
    """Tasks run in ``size`` worker processes of this machine."""

    locality: Locality = "this machine"

    def __init__(self, size: int):
        self.size = size
        self._pools: dict[int, Any] = {}

    def _pool(self, shared: Any):
        """The pool whose workers received ``shared`` once, at their start (a pool made for
        another shared object is shut down first: one pool of workers at a time)."""
        key = id(shared)
        if key not in self._pools:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.close()
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            pool = ProcessPoolExecutor(
                self.size, mp_context=context, initializer=_install_shared, initargs=(shared,)
            )
            self._pools[key] = (pool, shared)  # holding shared keeps its id unique
        return self._pools[key][0]

    def map(self, task, items, shared=None, *, ahead=None):
        if id(shared) not in self._pools:
            return self._warm_then_map(task, items, shared, ahead)
        return self._map_on_pool(task, items, shared, ahead, set())

    def _map_on_pool(self, task, items, shared, ahead, issued: set[str]):
        pool = self._pool(shared)
        return _in_order(
            lambda item: pool.submit(_call_with_worker_shared, task, item),
            lambda future: future.result(),
            lambda future: future.cancel(),
            items,
            ahead or 2 * self.size,
            issued,
        )

    def _warm_then_map(self, task, items, shared, ahead):
        """The first task runs here, before the workers are forked, so what it caches in
        ``shared`` (ideal rankings of the whole qrels) is inherited, not rebuilt by each."""
        items = iter(items)
        first = next(items, _NOTHING)
        if first is _NOTHING:
            return
        issued: set[str] = set()
        yield _outcome(lambda: _collecting(task, shared, first), issued)
        yield from self._map_on_pool(task, items, shared, ahead, issued)

    def close(self) -> None:
        for pool, _ in self._pools.values():
            pool.shutdown(wait=True, cancel_futures=True)
        self._pools.clear()

    def describe(self) -> str:
        return f"{self.size} local processes"


#: seconds to reach a Dask scheduler and hear it answer before giving up
CONNECT_TIMEOUT = 5.0


class Cluster:
    """Tasks run on the workers of a dask.distributed scheduler.

    The scheduler is first asked who it is (within :data:`CONNECT_TIMEOUT` seconds), so that a
    wrong address, a closed port or a server that is not a Dask scheduler (its dashboard port,
    say) is one line and exit 2, not a hang. The workers must run the same divaeval and numpy
    as this process (their results are this process's only then): a worker that cannot import
    divaeval is an error, other versions a warning. ``shared`` is scattered to every worker
    once per :meth:`map`; a worker or connection lost on the way is an error naming the
    cluster."""

    def __init__(self, address: str):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise UsageError("--scheduler needs Dask: pip install 'divaeval[dask]'") from None
        self.address = address
        self._cluster = None
        self.client = None
        local = address == "local" or address.startswith("local:")
        count = address.partition(":")[2] if local else ""
        n_workers = _positive(count, "local:N") if count else 2
        if not local:
            _identify_scheduler(address)
        try:
            if local:
                self._cluster = LocalCluster(
                    n_workers=n_workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    # no dashboard, and its HTTP server on a free port (not 8787, maybe taken)
                    dashboard_address=":0",
                    scheduler_kwargs={"dashboard": False},
                )
            connect_to = self._cluster if local else address
            self.client = Client(connect_to, timeout=CONNECT_TIMEOUT, set_as_default=False)
            self._check_workers()
        except DivaevalError:
            self.close()
            raise
        except Exception as exc:
            self.close()
            reason = f"{type(exc).__name__}: {_first_line(exc)}"
            raise UsageError(f"cannot use the Dask scheduler {address}: {reason}") from None
        workers = self.client.scheduler_info().get("workers", {})
        self.size = max(1, sum(w.get("nthreads", 1) for w in workers.values()))
        self.locality: Locality = "this machine" if local else "other machines"

    def _check_workers(self) -> None:
        """A worker that cannot import divaeval is an error; other versions of divaeval or
        numpy than here, a warning."""
        assert self.client is not None
        try:
            found = self.client.run(_versions)
        except (ImportError, AttributeError) as exc:
            raise UsageError(
                f"the Dask workers of {self.address} cannot run divaeval ({_first_line(exc)}): "
                "install the same divaeval on every worker"
            ) from None
        here = _versions()
        other = sorted({versions for versions in found.values() if versions != here})
        if other:
            warn(
                f"Dask workers run divaeval/numpy {', '.join('/'.join(v) for v in other)}, "
                f"this process {'/'.join(here)}: results may differ from in-process ones"
            )

    def map(self, task, items, shared=None, *, ahead=None):
        client = self.client
        assert client is not None
        # a list of one, so that a shared dict or tuple is scattered as one object
        remote = client.scatter([shared], broadcast=True, hash=False)[0]
        return _in_order(
            lambda item: client.submit(_collecting, task, remote, item, pure=False),
            self._result,
            lambda future: future.cancel(),
            items,
            ahead or 2 * self.size,
        )

    def _result(self, future):
        """The task's result; its own errors as they are, the cluster's as one line."""
        try:
            return future.result()
        except DivaevalError:
            raise
        except Exception as exc:
            origin = type(exc).__module__.split(".")[0]
            if origin in ("distributed", "dask", "tornado", "asyncio") or isinstance(
                exc, (OSError, TimeoutError)
            ):
                raise DivaevalError(
                    f"the Dask cluster {self.address} failed: {type(exc).__name__}: "
                    f"{_first_line(exc)}"
                ) from None
            raise

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def describe(self) -> str:
        return f"Dask scheduler {self.address} ({self.size} worker threads)"


def _versions() -> tuple[str, str]:
    """(divaeval, numpy) versions of the process this runs in."""
    import numpy

    from divaeval import __version__

    return __version__, numpy.__version__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _identify_scheduler(address: str) -> None:
    """Ask the scheduler at ``address`` who it is, within :data:`CONNECT_TIMEOUT` seconds (in
    a thread of its own, so that this works inside a running event loop too); a usage error if
    nothing answers as a Dask scheduler."""
    import asyncio
    import threading

    async def identify() -> dict:
        from distributed.core import rpc

        async with rpc(address, timeout=CONNECT_TIMEOUT) as scheduler:
            return await scheduler.identity()

    outcome: list = []
    limit = CONNECT_TIMEOUT + 1.0  # distributed's own timeout first: it names the cause

    def ask() -> None:
        try:
            outcome.append(asyncio.run(asyncio.wait_for(identify(), limit)))
        except BaseException as exc:  # reported below, in the calling thread
            outcome.append(exc)

    asker = threading.Thread(target=ask, name="divaeval-dask-probe", daemon=True)
    asker.start()
    asker.join(limit + 1.0)
    answer = outcome[0] if outcome else TimeoutError()
    if isinstance(answer, BaseException):
        if isinstance(answer, (asyncio.TimeoutError, TimeoutError)):
            reason = f"no answer within {limit:g} s"
        else:  # distributed's "Timed out trying to connect" names the cause in __cause__
            cause = answer.__cause__
            reason = _first_line(answer) + (f" ({_first_line(cause)})" if cause else "")
        raise UsageError(f"cannot reach the Dask scheduler {address}: {reason}")
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise UsageError(f"{address} is not a Dask scheduler (it answered {answer!r:.80})")


def _positive(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{what}: N must be a positive integer, not {text!r}")
    return value


def workers_for(jobs: int | None = 1, scheduler: str | None = None) -> Workers:
    """The workers for ``--jobs`` and ``--scheduler`` (falling back to ``DIVAEVAL_SCHEDULER``):
    a scheduler wins over ``jobs``; ``jobs`` 1 (or None) runs everything in process, 0 means
    one process per core."""
    scheduler = scheduler or os.environ.get(SCHEDULER_VARIABLE) or None
    if scheduler:
        return Cluster(scheduler)
    if jobs is None or jobs == 1:
        return InProcess()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise UsageError(f"--jobs must be a non-negative integer, not {jobs!r}")
    size = jobs or os.cpu_count() or 1
    return InProcess() if size == 1 else LocalProcesses(size)
