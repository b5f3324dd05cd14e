"""Workers of a Dask cluster (:class:`Cluster`): a ``dask.distributed`` client of a scheduler,
or of a local cluster on the loopback interface; Dask is imported only when one is asked for
(the optional extra ``divaeval[dask]``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy

from divaeval import __version__
from divaeval.errors import DivaevalError, UsageError, status, warn
from divaeval.parallel.tasks import Locality, collecting, in_order

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
            in_order(
                lambda item: client.submit(collecting, task, remote, item, pure=False),
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
