"""Where work runs: in this process, in local worker processes, or on a Dask cluster.

Every parallel part of divaeval (topic chunks of a run, runs, resampling replicates) hands its
work to a :class:`Workers` object as *tasks*: a module-level function ``task(shared, item)`` and
a sequence of items. :meth:`Workers.map` yields the results **in item order**, whatever order
they finish in, so a parallel result is assembled exactly as the serial one (and is identical
to it: each task computes the same numbers wherever it runs). ``shared`` is sent to each worker
once (the qrels index, a score table), not with every task.

- ``jobs=1`` and no scheduler: :class:`InProcess`, a plain loop (the default; nothing extra is
  imported).
- ``jobs=N``: :class:`LocalProcesses`, N forked worker processes fed by pipes (where the
  platform can fork: they start in a millisecond and inherit ``shared``), else a
  :class:`concurrent.futures.ProcessPoolExecutor` of N processes.
- ``scheduler=ADDRESS`` (or the environment variable ``DIVAEVAL_SCHEDULER``): :class:`Cluster`,
  a ``dask.distributed`` client of the scheduler at ADDRESS (``tcp://host:8786``), or of a
  :class:`~dask.distributed.LocalCluster` on the loopback interface for ``local`` or
  ``local:N`` (N worker processes). Dask is imported only then (the optional extra
  ``divaeval[dask]``).

``prepare(shared)``, when given, fills the caches in ``shared`` that every task would
otherwise build for itself (the ideal rankings of the whole qrels); it is called once, here,
before ``shared`` is forked or sent to workers, so they start with them.

At most ``ahead`` tasks are in flight (default: twice the workers), so a producer that reads a
large file lazily keeps memory bounded. Warnings a task issues are collected where it runs and
re-issued here, in item order and each distinct message once per map, so they reach the
user's terminal (or Python's warnings) from a
worker process or a remote machine alike. A task's :class:`~divaeval.errors.DivaevalError`
propagates with its file and line; the remaining tasks are cancelled.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import selectors
import signal
import struct
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal, Protocol, TypeVar

import numpy

from divaeval import __version__
from divaeval.errors import DivaevalError, UsageError, set_warning_sink, status, warn

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

    def map(self, task, items, shared=None, *, ahead=None, prepare=None):
        issued: set[str] = set()  # (prepare: the first task's own caching is as good here)
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
    """Tasks run in ``size`` worker processes of this machine.

    Where the platform can fork (Linux, macOS), the workers are forked children of this
    process (:class:`_ForkPool`): they start in a millisecond, inherit ``shared`` (and what
    ``prepare`` cached in it) without a copy, even metrics a notebook registered with local
    functions, and read their tasks from a pipe. The command line forks from a process of one
    thread; a library caller with other threads (a notebook kernel, Dask's offload thread)
    forks as ``multiprocessing`` long did on Linux (Python 3.12+ notes the risk in a
    DeprecationWarning: a lock another thread holds stays locked in the child; CPython
    re-initialises its own, such as the import lock). Elsewhere (Windows), or with another
    ``start_method`` (``spawn`` needs what ``shared`` holds to be picklable), a
    :class:`~concurrent.futures.ProcessPoolExecutor` of that method receives ``shared`` once
    per worker. A pool is kept while maps share their ``shared`` object."""

    locality: Locality = "this machine"

    def __init__(self, size: int, start_method: str | None = None):
        self.size = size
        self.start_method = start_method
        self._pool: _ForkPool | _ExecutorPool | None = None
        self._shared: Any = _NOTHING  # held, so that its id stays unique while the pool lives

    def map(self, task, items, shared=None, *, ahead=None, prepare=None):
        if self._pool is None or self._shared is not shared:
            self.close()
            if prepare is not None:
                prepare(shared)  # here, once: the workers inherit (or receive) its caches
            method = self.start_method or ("fork" if hasattr(os, "fork") else None)
            if method == "fork":
                self._pool = _ForkPool(self.size, shared)
            else:
                self._pool = _ExecutorPool(self.size, shared, method)
            self._shared = shared
        return self._pool.map(task, items, ahead or 2 * self.size, self._broken)

    def _broken(self) -> None:
        """A map ended early (an error, or its caller stopped): the workers may be busy with
        tasks no one waits for; they are stopped, and the next map starts new ones."""
        if self._pool is not None:
            self._pool.close(kill=True)
            self._pool = None
            self._shared = _NOTHING

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
            self._shared = _NOTHING

    def describe(self) -> str:
        return f"{self.size} local processes"


class _ExecutorPool:
    """:class:`LocalProcesses` on a :class:`~concurrent.futures.ProcessPoolExecutor`."""

    def __init__(self, size: int, shared: Any, start_method: str | None):
        # (not at the top: multiprocessing's import costs a third of numpy's, and the main
        # job, forking its workers, never needs it)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context(start_method)
        self.executor = ProcessPoolExecutor(
            size, mp_context=context, initializer=_install_shared, initargs=(shared,)
        )

    def map(self, task, items, ahead: int, broken: Callable[[], None]):
        completed = False
        try:
            yield from _in_order(
                lambda item: self.executor.submit(_call_with_worker_shared, task, item),
                lambda future: future.result(),
                lambda future: future.cancel(),
                items,
                ahead,
            )
            completed = True
        finally:
            if not completed:
                broken()

    def close(self, kill: bool = False) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


#: a message on a pipe of :class:`_ForkPool`: item number, payload length (then the payload)
_HEADER = struct.Struct("<qq")


class _ForkPool:
    """:class:`LocalProcesses` on forked children, each fed by a pipe of its own.

    Each child reads ``(task, item)`` messages from its task pipe, runs them one by one with
    ``shared`` (inherited at the fork) and writes ``(ok, outcome)`` messages to its result
    pipe; at the end of its task pipe it exits. This process writes tasks without blocking
    and reads results as they come (one ``select`` loop), so neither side can wait on the
    other with a full pipe, whatever the sizes of items and results. A child that dies (the
    kernel's out-of-memory killer, a signal) is an error naming how it died, not a hang."""

    def __init__(self, size: int, shared: Any):
        self.children: list[_Child] = []
        gc.freeze()  # the objects inherited are not scanned (and so not copied) by the children
        # Ctrl-C is this process's alone: the children ignore SIGINT (blocked across the fork,
        # so that none runs Python's handler before it ignores it), and this process stops them
        # when it stops (close(kill=True)). Were they to die of a Ctrl-C sent to the whole
        # process group, this process could see a worker gone before its own KeyboardInterrupt,
        # and report "a worker process ended unexpectedly" (exit 1) instead of "interrupted".
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            try:
                for _ in range(size):
                    self.children.append(_Child.forked(shared, self.children, mask))
            finally:
                gc.unfreeze()
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C meanwhile: now
        except OSError as exc:  # no more processes or memory for them (ulimit -u, cgroups)
            self.close(kill=True)
            raise DivaevalError(
                f"cannot start worker processes: {exc.strerror or exc} (try -j 1)"
            ) from None
        except BaseException:
            self.close(kill=True)
            raise

    def map(self, task, items, ahead: int, broken: Callable[[], None]):
        items = iter(items)
        per_child = max(1, -(-ahead // len(self.children)))
        selector = selectors.DefaultSelector()
        for child in self.children:
            child.reset()
            selector.register(child.result_pipe, selectors.EVENT_READ, child)
        writing: set[int] = set()  # task pipes waited on to take more

        def watch(child: _Child) -> None:
            """Wait for the child's task pipe only while there is more to write to it."""
            if child.unsent and child.task_pipe not in writing:
                selector.register(child.task_pipe, selectors.EVENT_WRITE, child)
                writing.add(child.task_pipe)
            elif not child.unsent and child.task_pipe in writing:
                selector.unregister(child.task_pipe)
                writing.discard(child.task_pipe)

        outcomes: dict[int, tuple[bool, Any]] = {}
        issued: set[str] = set()
        submitted = wanted = 0
        more = True
        completed = False
        try:
            while True:
                while more:  # keep each child's queue filled
                    child = min(self.children, key=lambda c: len(c.numbers))
                    if len(child.numbers) >= per_child:
                        break
                    item = next(items, _NOTHING)
                    if item is _NOTHING:
                        more = False
                        break
                    child.send(submitted, (task, item))
                    submitted += 1
                    watch(child)
                if wanted in outcomes:
                    ok, outcome = outcomes.pop(wanted)
                    wanted += 1
                    yield _outcome(lambda: _unpack(ok, outcome), issued)  # noqa: B023
                    continue
                if wanted == submitted and not more:
                    completed = True
                    return
                for key, events in selector.select():
                    child = key.data
                    if events & selectors.EVENT_WRITE:
                        child.flush()
                        watch(child)
                    if events & selectors.EVENT_READ:
                        for number, message in child.receive():
                            outcomes[number] = message
        finally:
            selector.close()
            if not completed:
                broken()

    def close(self, kill: bool = False) -> None:
        for child in self.children:
            if kill:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
            for fd in (child.task_pipe, child.result_pipe):
                with contextlib.suppress(OSError):
                    os.close(fd)
        for child in self.children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child.pid, 0)
        self.children = []


class _Child:
    """One forked worker as seen from here: its pipes, what is still to be written to it, and
    the item numbers it has been given and not yet answered."""

    def __init__(self, pid: int, task_pipe: int, result_pipe: int):
        self.pid = pid
        self.task_pipe = task_pipe
        self.result_pipe = result_pipe
        self.reset()

    @classmethod
    def forked(cls, shared: Any, siblings: list[_Child], mask: Any) -> _Child:
        """A new child serving tasks with ``shared`` (``siblings``: the children forked before,
        whose pipes it closes; ``mask``: the signal mask it restores once it ignores SIGINT)."""
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                os.close(task_write)
                os.close(result_read)
                for sibling in siblings:
                    os.close(sibling.task_pipe)
                    os.close(sibling.result_pipe)
                _serve(task_read, result_write, shared)
            finally:
                os._exit(0)  # neither this process's atexit handlers nor its buffers
        os.close(task_read)
        os.close(result_write)
        os.set_blocking(task_write, False)
        return cls(pid, task_write, result_read)

    def reset(self) -> None:
        self.numbers: deque[int] = deque()
        self.unsent: deque[memoryview] = deque()
        self.received = bytearray()

    def send(self, number: int, message: Any) -> None:
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self.unsent.append(memoryview(_HEADER.pack(number, len(payload))))
        self.unsent.append(memoryview(payload))
        self.numbers.append(number)
        self.flush()

    def flush(self) -> None:
        """Write what the task pipe takes now (never blocks)."""
        while self.unsent:
            try:
                written = os.write(self.task_pipe, self.unsent[0])
            except BlockingIOError:
                return
            except BrokenPipeError:  # the child is gone; reading its pipe tells how
                self.unsent.clear()
                return
            if written == len(self.unsent[0]):
                self.unsent.popleft()
            else:
                self.unsent[0] = self.unsent[0][written:]

    def receive(self) -> list[tuple[int, tuple[bool, Any]]]:
        """The whole results readable now: [(item number, (ok, outcome))]."""
        data = os.read(self.result_pipe, 1 << 20)
        if not data:
            raise DivaevalError(f"a worker process ended unexpectedly ({self._how_it_ended()})")
        self.received += data
        messages = []
        while len(self.received) >= _HEADER.size:
            number, length = _HEADER.unpack_from(self.received)
            end = _HEADER.size + length
            if len(self.received) < end:
                break
            messages.append((number, pickle.loads(memoryview(self.received)[_HEADER.size : end])))
            del self.received[:end]
            self.numbers.remove(number)
        return messages

    def _how_it_ended(self) -> str:
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "its status is unknown"
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = signal.Signals(number).name if number in signal.valid_signals() else number
            hint = " (out of memory? try fewer --jobs)" if number == signal.SIGKILL else ""
            return f"killed by signal {name}{hint}"
        return f"exit status {os.waitstatus_to_exitcode(status)}"


def _serve(task_pipe: int, result_pipe: int, shared: Any) -> None:
    """A forked worker's loop: run each task read from ``task_pipe`` with ``shared`` and write
    ``(ok, outcome)`` to ``result_pipe``; return at the end of the task pipe."""
    with os.fdopen(task_pipe, "rb") as tasks, os.fdopen(result_pipe, "wb") as results:
        while True:
            header = tasks.read(_HEADER.size)
            if len(header) < _HEADER.size:
                return
            number, length = _HEADER.unpack(header)
            task, item = pickle.loads(tasks.read(length))
            try:
                reply: tuple[bool, Any] = (True, _collecting(task, shared, item))
            except Exception as exc:  # noqa: BLE001 (raised where the caller waits)
                reply = (False, exc)
            try:
                payload = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 (a result or error that cannot cross)
                failure = RuntimeError(f"{type(exc).__name__}: {exc} (in a worker process)")
                payload = pickle.dumps((False, failure), protocol=pickle.HIGHEST_PROTOCOL)
            results.write(_HEADER.pack(number, len(payload)))
            results.write(payload)
            results.flush()


def _unpack(ok: bool, outcome: Any) -> tuple[Any, list[str]]:
    """A child's ``(ok, outcome)``: its (result, warnings), or its error raised."""
    if ok:
        return outcome
    raise outcome


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
            from dask.distributed import Client, LocalCluster  # (the optional Dask extra)
        except ImportError:
            raise UsageError("--scheduler needs Dask: pip install 'divaeval[dask]'") from None
        self.address = address
        self._cluster = None
        self.client = None
        local = address == "local" or address.startswith("local:")
        count = address.partition(":")[2] if local else ""
        n_workers = _positive(count, "local:N") if count else 2
        step = f"connecting to the Dask scheduler {address}"
        if local:
            step = f"starting a local Dask cluster of {n_workers} worker{'s' * (n_workers > 1)}"
        with status(step):  # (seconds, silent otherwise)
            self._start(address, local, n_workers, Client, LocalCluster)
        assert self.client is not None
        workers = self.client.scheduler_info().get("workers", {})
        self.size: int = max(1, sum(w.get("nthreads", 1) for w in workers.values()))
        self.locality: Locality = "this machine" if local else "other machines"

    def _start(self, address: str, local: bool, n_workers: int, Client, LocalCluster) -> None:
        """Start the local cluster or reach the scheduler, connect a client, check workers."""
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

    def map(self, task, items, shared=None, *, ahead=None, prepare=None):
        client = self.client
        assert client is not None
        if prepare is not None:
            prepare(shared)  # its caches travel with shared
        # a list of one, so that a shared dict or tuple is scattered as one object
        remote = client.scatter([shared], broadcast=True, hash=False)[0]
        return self._released(
            _in_order(
                lambda item: client.submit(_collecting, task, remote, item, pure=False),
                self._result,
                lambda future: future.cancel(),
                items,
                ahead or 2 * self.size,
            ),
            remote,
        )

    @staticmethod
    def _released(results: Iterator, remote) -> Iterator:
        """``results``, then ``remote`` (the scattered shared data) released on the workers,
        however the map ends (an error's traceback would hold it otherwise)."""
        try:
            yield from results
        finally:
            remote.cancel()

    def _result(self, future):
        """The task's result; its own errors as they are, the cluster's as one line."""
        try:
            return future.result()
        except DivaevalError:
            future.cancel()  # forgotten by the scheduler now, not when the error is let go
            raise
        except Exception as exc:
            future.cancel()
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
    return __version__, numpy.__version__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _identify_scheduler(address: str) -> None:
    """Ask the scheduler at ``address`` who it is, within :data:`CONNECT_TIMEOUT` seconds (in
    a thread of its own, so that this works inside a running event loop too); a usage error if
    nothing answers as a Dask scheduler."""
    import asyncio  # (Dask only: asyncio costs half of numpy's import time)

    async def identify() -> dict:
        from distributed.core import rpc  # (the optional Dask extra)

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


#: ``jobs="auto"`` (``--jobs auto``, the command line's default) starts worker processes only
#: for at least this much run text: below it, forking and preparing workers costs about what
#: they would save (measured on the TREC 2012 runs: README, Performance)
AUTO_MIN_BYTES = 4 << 20
#: the most worker processes ``auto`` starts (each holds a block of a run; more cores:
#: ``--jobs N``)
AUTO_MAX_JOBS = 8

Jobs = int | str | None  # a number of processes, 0 (one per usable core), "auto", or None (1)


def usable_cores() -> int:
    """The cores this process may use: those its CPU affinity allows (``taskset``, a batch
    system's cpuset), at most its cgroup's CPU quota (``docker --cpus``, a Kubernetes CPU
    limit), rounded down, and at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not on macOS or Windows)
        count = os.cpu_count() or 1
    quota = _cgroup_cpu_quota()
    if quota is not None:
        count = min(count, int(quota))
    return max(1, count)


#: where a cgroup's CPU quota is read (v2, then v1), as a container sees its own cgroup
CGROUP_CPU_MAX = "/sys/fs/cgroup/cpu.max"
CGROUP_V1_QUOTA = ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu/cpu.cfs_period_us")


def _cgroup_cpu_quota() -> float | None:
    """The CPU quota of this process's cgroup in cores (cgroup v2 ``cpu.max``: ``QUOTA
    PERIOD`` or ``max PERIOD``; v1 ``cpu.cfs_quota_us``, -1 for none), or None without one."""
    try:
        quota, period = _read_text(CGROUP_CPU_MAX).split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota_us, period_us = (int(_read_text(path)) for path in CGROUP_V1_QUOTA)
    except (OSError, ValueError):
        return None
    return None if quota_us <= 0 or period_us <= 0 else quota_us / period_us


def _read_text(path: str) -> str:
    with open(path) as stream:
        return stream.read()


def auto_jobs(work: tuple[int, int] | None) -> int:
    """The processes ``jobs="auto"`` uses for ``work`` = (bytes of run text, tasks): one per
    usable core, at most one per task and :data:`AUTO_MAX_JOBS`, and 1 (this process) for
    less than :data:`AUTO_MIN_BYTES` of text or unknown work."""
    if work is None:
        return 1
    text_bytes, tasks = work
    if text_bytes < AUTO_MIN_BYTES:
        return 1
    return max(1, min(usable_cores(), tasks, AUTO_MAX_JOBS))


def check_jobs(jobs: Jobs) -> Jobs:
    """``jobs`` if it is a valid ``--jobs`` value, else a usage error."""
    if jobs is None or jobs == "auto":
        return jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise UsageError(f"--jobs must be a non-negative integer or 'auto', not {jobs!r}")
    return jobs


def workers_for(
    jobs: Jobs = 1, scheduler: str | None = None, *, work: tuple[int, int] | None = None
) -> Workers:
    """The workers for ``--jobs`` and ``--scheduler`` (falling back to ``DIVAEVAL_SCHEDULER``):
    a scheduler wins over ``jobs``; ``jobs`` 1 (or None) runs everything in process, 0 means
    one process per usable core (:func:`usable_cores`), ``"auto"`` decides by ``work`` (bytes
    of run text, tasks; :func:`auto_jobs`)."""
    scheduler = scheduler or os.environ.get(SCHEDULER_VARIABLE) or None
    if scheduler:
        return Cluster(scheduler)
    jobs = check_jobs(jobs)
    if jobs == "auto":
        size = auto_jobs(work)
    elif jobs is None:
        size = 1
    else:
        assert isinstance(jobs, int)
        size = jobs or usable_cores()
    return InProcess() if size == 1 else LocalProcesses(size)
