"""Where work runs: in this process, in local worker processes, or on a Dask cluster.

Every parallel part of divaeval (topic chunks of a run, runs, resampling replicates) hands its
work to a :class:`Workers` object as *tasks*: a module-level function ``task(shared, item)`` and
a sequence of items. :meth:`Workers.map` yields the results **in item order**, whatever order
they finish in, so a parallel result is assembled exactly as the serial one (and is identical
to it: each task computes the same numbers wherever it runs). ``shared`` is sent to each worker
once (the qrels index, a score table), not with every task.

- ``jobs=1`` and no scheduler: :class:`InProcess`, a plain loop (the default; nothing extra is
  imported: the other two kinds load when first used).
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

Where things live: :mod:`.tasks` (the protocol, :class:`InProcess`, what every kind of worker
shares), :mod:`.local` (:class:`LocalProcesses`), :mod:`.cluster` (:class:`Cluster`), and here
the choice of workers for ``--jobs`` and ``--scheduler`` (:func:`workers_for`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from divaeval.errors import UsageError
from divaeval.parallel.tasks import InProcess, Locality, Task, Workers

if TYPE_CHECKING:
    from divaeval.parallel.cluster import Cluster
    from divaeval.parallel.local import LocalProcesses

__all__ = [
    "Cluster",
    "InProcess",
    "LocalProcesses",
    "Locality",
    "Task",
    "Workers",
    "auto_jobs",
    "check_jobs",
    "usable_cores",
    "workers_for",
]

SCHEDULER_VARIABLE = "DIVAEVAL_SCHEDULER"

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
        from divaeval.parallel.cluster import Cluster

        return Cluster(scheduler)
    jobs = check_jobs(jobs)
    if jobs == "auto":
        size = auto_jobs(work)
    elif jobs is None:
        size = 1
    else:
        assert isinstance(jobs, int)
        size = jobs or usable_cores()
    if size == 1:
        return InProcess()
    from divaeval.parallel.local import LocalProcesses

    return LocalProcesses(size)


def __getattr__(name: str) -> Any:
    """:class:`Cluster` and :class:`LocalProcesses`, loaded when first named: a run in this
    process (``-j 1``, the main job's usual case) needs neither."""
    if name == "Cluster":
        from divaeval.parallel.cluster import Cluster

        return Cluster
    if name == "LocalProcesses":
        from divaeval.parallel.local import LocalProcesses

        return LocalProcesses
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
