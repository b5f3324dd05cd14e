"""Timing whole commands for ``make bench``: medians of repeated runs, side by side.

Each run of a command is launched from its own small Python process, which first pins itself
to the chosen CPUs (``os.sched_setaffinity``, where the platform has it; the command inherits
the affinity), then reports the command's wall time, its CPU time (user + system, of the
command and of every process it waited for: ``RUSAGE_CHILDREN``) and its peak RSS (the same
``RUSAGE_CHILDREN``: the largest resident set of the command or of any process it waited for),
so one command's time and memory never leak into another's.
For a command that works in several processes (``--jobs N``) that is the largest single
process; ``measure(..., tree=True)`` also samples the summed proportional set size (PSS: a
page shared by n processes counts 1/n in each) of the command's whole process tree every 20 ms
(psutil, /proc/PID/smaps_rollup; a sample can miss a short peak).
Commands compared with each other run interleaved (A, B, A, B, ...) so that a busy machine
slows them alike; the reported values are the medians of the runs (wall, CPU, peak memory),
with the range (min-max) of the times, and the 1-minute load average (``os.getloadavg``) before
the first and after the last run of the workload.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

_PIN = (  # argv[1]: the CPUs to run on, comma-separated ("": wherever the system puts it)
    "cpus = [int(c) for c in sys.argv[1].split(',') if c]\n"
    "if cpus and hasattr(os, 'sched_setaffinity'):\n"
    "    os.sched_setaffinity(0, cpus)\n"
)

_LAUNCHER = (
    "import os, resource, subprocess, sys, time\n" + _PIN + "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "t = time.perf_counter() - t\n"
    "sys.stderr.buffer.write(p.stderr)\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(t, u.ru_maxrss, p.returncode, 0, u.ru_utime + u.ru_stime)\n"
)

_TREE_LAUNCHER = (
    "import os, resource, subprocess, sys, tempfile, time, psutil\n"
    + _PIN
    + "def tree_pss(proc):\n"
    "    total = 0\n"
    "    for member in [proc, *proc.children(recursive=True)]:\n"
    "        try:\n"
    "            total += member.memory_full_info().pss\n"
    "        except psutil.Error:\n"
    "            pass\n"
    "    return total\n"
    "err = tempfile.TemporaryFile()\n"
    "t = time.perf_counter()\n"
    "p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err)\n"
    "watched, peak = psutil.Process(p.pid), 0\n"
    "while p.poll() is None:\n"
    "    try:\n"
    "        peak = max(peak, tree_pss(watched))\n"
    "    except psutil.Error:\n"
    "        pass\n"
    "    time.sleep(0.02)\n"
    "t = time.perf_counter() - t\n"
    "err.seek(0)\n"
    "sys.stderr.buffer.write(err.read())\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(t, u.ru_maxrss, p.returncode, peak // 1024, u.ru_utime + u.ru_stime)\n"
)


@dataclass
class Measurement:
    """The runs of one command: wall and CPU seconds and peak RSS (MiB) of each; medians and
    ranges; the load average around the workload it was measured in."""

    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)  # user + system
    peak_mib: list[float] = field(default_factory=list)
    tree_mib: list[float] = field(default_factory=list)  # PSS summed over processes, sampled
    load: tuple[float, float] | None = None  # 1-minute load average at start, at end

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_cpu_seconds(self) -> float:
        return statistics.median(self.cpu_seconds)

    @property
    def median_mib(self) -> float:
        return statistics.median(self.peak_mib)

    @property
    def median_tree_mib(self) -> float | None:
        return statistics.median(self.tree_mib) if self.tree_mib else None

    def as_json(self) -> dict:
        found = {
            "seconds": round(self.median_seconds, 3),
            "seconds_range": [round(min(self.seconds), 3), round(max(self.seconds), 3)],
            "cpu_seconds": round(self.median_cpu_seconds, 3),
            "cpu_seconds_range": [round(min(self.cpu_seconds), 3), round(max(self.cpu_seconds), 3)],
            "peak_mib": round(self.median_mib, 1),
            "runs": len(self.seconds),
            "all_seconds": [round(s, 3) for s in self.seconds],
            "all_cpu_seconds": [round(s, 3) for s in self.cpu_seconds],
        }
        if self.load is not None:
            found["load_average_start"], found["load_average_end"] = self.load
        if self.tree_mib:
            found["process_tree_peak_mib"] = round(statistics.median(self.tree_mib), 1)
        return found

    def summary(self, show_memory: bool = True) -> str:
        """One line: wall and CPU medians with their ranges, peak memory, load."""
        wall, cpu = self.seconds, self.cpu_seconds
        line = (
            f"wall {self.median_seconds:.3f} s ({min(wall):.3f}-{max(wall):.3f})  "
            f"CPU {self.median_cpu_seconds:.3f} s ({min(cpu):.3f}-{max(cpu):.3f})"
        )
        if show_memory:
            line += f"  peak {self.median_mib:.1f} MiB"
            if self.median_tree_mib is not None:
                line += f" (all processes, PSS: {self.median_tree_mib:.0f} MiB)"
        if self.load is not None:
            line += f"  load {self.load[0]:.2f} -> {self.load[1]:.2f}"
        return line


def jobs_of(command: list[str]) -> str:
    """The ``-j``/``--jobs`` a divaeval command runs with ("auto" when it names none), or
    "-" for another program."""
    for flag, value in itertools.pairwise([*command, ""]):
        if flag in ("-j", "--jobs"):
            return value
        if flag.startswith("--jobs="):
            return flag.removeprefix("--jobs=")
    if "divaeval" in command:  # python -m divaeval ...
        return "auto"
    return "-"


def run_once(
    command: list[str], into: Measurement, tree: bool = False, cpus: list[int] | None = None
) -> None:
    """Run ``command`` once (stdout discarded), on ``cpus`` (None: wherever the system puts
    it), and add its wall and CPU time and peak RSS (and, with ``tree``, the sampled peak of its
    process tree's summed PSS) to ``into``; a failing command stops the benchmark with its
    stderr."""
    launcher = _TREE_LAUNCHER if tree else _LAUNCHER
    pinned = ",".join(str(cpu) for cpu in cpus or [])
    proc = subprocess.run(
        [sys.executable, "-c", launcher, pinned, *command], capture_output=True, text=True
    )
    seconds, rss_kib, code, tree_kib, cpu_seconds = proc.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{proc.stderr}")
    into.seconds.append(float(seconds))
    into.cpu_seconds.append(float(cpu_seconds))
    into.peak_mib.append(int(rss_kib) / 1024)
    if tree:
        into.tree_mib.append(int(tree_kib) / 1024)


def pinnable() -> bool:
    """Whether a process can be pinned to CPUs here (``os.sched_setaffinity``)."""
    return hasattr(os, "sched_setaffinity")


def measure(
    commands: dict[str, list[str]],
    repeat: int,
    tree: bool = False,
    cpus: list[int] | None = None,
) -> dict[str, Measurement]:
    """Each command run ``repeat`` times, the commands interleaved, on ``cpus``; ``tree``:
    also sample the summed PSS of each command's process tree (needs psutil). Each
    measurement records the 1-minute load average before the first run and after the last."""
    found = {key: Measurement() for key in commands}
    load_start = os.getloadavg()[0]
    for _ in range(repeat):
        for key, command in commands.items():
            run_once(command, found[key], tree, cpus)
    load = (round(load_start, 2), round(os.getloadavg()[0], 2))
    for measurement in found.values():
        measurement.load = load
    return found


class Report:
    """Printed lines and the results dictionary written to ``results.json``; every command
    runs on ``cpus`` (None: wherever the system puts it)."""

    def __init__(self, out: str, repeat: int, cpus: list[int] | None = None) -> None:
        self.out = out
        self.repeat = repeat
        self.cpus = cpus
        self.results: dict[str, dict] = {}

    def heading(self, text: str) -> None:
        print(f"\n{text}", flush=True)

    def note(self, text: str) -> None:
        print(f"  note: {text}", flush=True)
        self.results.setdefault("notes", {"notes": []})["notes"].append(text)

    def measure(
        self, commands: dict[str, list[str]], repeat: int | None = None, tree: bool = False
    ) -> dict[str, Measurement]:
        """``measure`` on this report's CPUs, ``repeat`` (default: the report's) times."""
        return measure(commands, repeat or self.repeat, tree=tree, cpus=self.cpus)

    def add(
        self,
        key: str,
        found: Measurement,
        show_memory: bool = True,
        command: list[str] | None = None,
        **extra,
    ) -> None:
        """One measured command: its results entry and its two printed lines."""
        jobs = jobs_of(command) if command is not None else None
        entry = {**found.as_json(), **extra}
        if command is not None:
            entry.update(command=" ".join(command), jobs=jobs)
        self.results[key] = entry
        shown = "" if jobs in (None, "-") else f"  -j {jobs}"
        print(f"{key}\n    {found.summary(show_memory)}{shown}", flush=True)

    def time(
        self, key: str, command: list[str], repeat: int | None = None, tree: bool = False, **extra
    ) -> None:
        """Medians of one command, alone (``tree``: also the summed PSS of its processes, for
        a command that starts workers)."""
        found = self.measure({key: command}, repeat, tree=tree)[key]
        self.add(key, found, command=command, **extra)

    def ratio(self, key: str, value: float, target: float | None, what: str) -> None:
        """A ratio (``what``, e.g. 'divaeval / C ndeval, time') against its goal (at most
        ``target``), printed beside it."""
        entry: dict = {"ratio": round(value, 3), "what": what}
        verdict = ""
        if target is not None:
            entry.update(target=target, met=value <= target)
            verdict = f"  (goal <= {target:g}: {'met' if value <= target else 'NOT met'})"
        self.results[key] = entry
        print(f"  -> {what:<57} {value:8.3f}{verdict}", flush=True)

    def compare(
        self,
        name: str,
        ours: tuple[str, list[str]],
        reference: tuple[str, list[str]],
        time_target: float | None,
        memory_target: float | None = None,
        label: str = "reference",
        repeat: int | None = None,
    ) -> dict[str, Measurement]:
        """divaeval's command beside a reference command (named ``label`` in the ratios),
        interleaved; medians; the ratios divaeval / reference of wall time, of CPU time (both
        against ``time_target``) and of peak memory (against ``memory_target``)."""
        (our_key, our_command), (ref_key, ref_command) = ours, reference
        found = self.measure({our_key: our_command, ref_key: ref_command}, repeat)
        for key, command in ((our_key, our_command), (ref_key, ref_command)):
            self.add(key, found[key], command=command)
        mine, theirs = found[our_key], found[ref_key]
        self.ratio(
            f"ratio {name}: time",
            mine.median_seconds / theirs.median_seconds,
            time_target,
            f"divaeval / {label}, wall time",
        )
        self.ratio(
            f"ratio {name}: CPU time",
            mine.median_cpu_seconds / theirs.median_cpu_seconds,
            time_target,
            f"divaeval / {label}, CPU time (user + sys)",
        )
        if memory_target is not None:
            self.ratio(
                f"ratio {name}: peak memory",
                mine.median_mib / theirs.median_mib,
                memory_target,
                f"divaeval / {label}, peak memory",
            )
        return found

    def write(self) -> None:
        self.results["settings"] = {
            "repeat": self.repeat,
            "statistic": "median",
            "cpus": self.cpus if self.cpus is not None else "all (not pinned)",
        }
        path = os.path.join(self.out, "results.json")
        with open(path + ".partial", "w") as handle:  # renamed: never a half-written file
            json.dump(self.results, handle, indent=1)
        os.replace(path + ".partial", path)
