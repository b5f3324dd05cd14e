"""Workers in processes of this machine (:class:`LocalProcesses`): forked children fed by pipes
where the platform can fork (:class:`_ForkPool`), else a
:class:`~concurrent.futures.ProcessPoolExecutor` (:class:`_ExecutorPool`); one interface, the
second where the first cannot be (Windows, or another start method)."""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import struct
from collections import deque
from collections.abc import Callable
from typing import Any

from divaeval.errors import DivaevalError
from divaeval.heap import release_free_memory
from divaeval.parallel.tasks import Locality, Task, collecting, in_order, outcome_of

_NOTHING = object()

#: the ``shared`` object of this worker process (set once by the pool's initializer)
_WORKER_SHARED: Any = None


def _install_shared(shared: Any) -> None:
    global _WORKER_SHARED
    _WORKER_SHARED = shared


def _call_with_worker_shared(task: Task, item: Any) -> tuple[Any, list[str]]:
    return collecting(task, _WORKER_SHARED, item)


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
            release_free_memory()  # (each worker would start with the heap freed so far)
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
            yield from in_order(
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
        import selectors  # -j N only: not on the main job's start-up at -j 1

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
                    yield outcome_of(lambda: _unpack(ok, outcome), issued)  # noqa: B023
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
                reply: tuple[bool, Any] = (True, collecting(task, shared, item))
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
