"""Timing whole commands for ``make bench``: medians of repeated runs, side by side.

Each run of a command is launched from its own small Python process, which reports the
command's wall time and its peak RSS (``RUSAGE_CHILDREN``: the largest resident set of the
command or of any process it waited for), so one command's memory never leaks into another's.
For a command that works in several processes (``--jobs N``) that is the largest single
process; ``measure(..., tree=True)`` also samples the summed proportional set size (PSS: a
page shared by n processes counts 1/n in each) of the command's whole process tree every 20 ms
(psutil, /proc/PID/smaps_rollup; a sample can miss a short peak).
Commands compared with each other run interleaved (A, B, A, B, ...) so that a busy machine
slows them alike; the reported value is the median of the runs, of time and of peak memory
each.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field

_LAUNCHER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "t = time.perf_counter() - t\n"
    "sys.stderr.buffer.write(p.stderr)\n"
    "print(t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, 0)\n"
)

_TREE_LAUNCHER = (
    "import resource, subprocess, sys, tempfile, time, psutil\n"
    "def tree_pss(proc):\n"
    "    total = 0\n"
    "    for member in [proc, *proc.children(recursive=True)]:\n"
    "        try:\n"
    "            total += member.memory_full_info().pss\n"
    "        except psutil.Error:\n"
    "            pass\n"
    "    return total\n"
    "err = tempfile.TemporaryFile()\n"
    "t = time.perf_counter()\n"
    "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=err)\n"
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
    "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(t, rss, p.returncode, peak // 1024)\n"
)


@dataclass
class Measurement:
    """The runs of one command: wall seconds and peak RSS (MiB) of each; medians."""

    seconds: list[float] = field(default_factory=list)
    peak_mib: list[float] = field(default_factory=list)
    tree_mib: list[float] = field(default_factory=list)  # PSS summed over processes, sampled

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_mib(self) -> float:
        return statistics.median(self.peak_mib)

    @property
    def median_tree_mib(self) -> float | None:
        return statistics.median(self.tree_mib) if self.tree_mib else None

    def as_json(self) -> dict:
        found = {
            "seconds": round(self.median_seconds, 3),
            "peak_mib": round(self.median_mib, 1),
            "runs": len(self.seconds),
            "all_seconds": [round(s, 3) for s in self.seconds],
        }
        if self.tree_mib:
            found["process_tree_peak_mib"] = round(statistics.median(self.tree_mib), 1)
        return found


def run_once(command: list[str], into: Measurement, tree: bool = False) -> None:
    """Run ``command`` once (stdout discarded) and add its time and peak RSS (and, with
    ``tree``, the sampled peak of its process tree's summed PSS) to ``into``; a failing
    command stops the benchmark with its stderr."""
    launcher = _TREE_LAUNCHER if tree else _LAUNCHER
    proc = subprocess.run(
        [sys.executable, "-c", launcher, *command], capture_output=True, text=True
    )
    seconds, rss_kib, code, tree_kib = proc.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{proc.stderr}")
    into.seconds.append(float(seconds))
    into.peak_mib.append(int(rss_kib) / 1024)
    if tree:
        into.tree_mib.append(int(tree_kib) / 1024)


def measure(
    commands: dict[str, list[str]], repeat: int, tree: bool = False
) -> dict[str, Measurement]:
    """Each command run ``repeat`` times, the commands interleaved; ``tree``: also sample the
    summed PSS of each command's process tree (needs psutil)."""
    found = {key: Measurement() for key in commands}
    for _ in range(repeat):
        for key, command in commands.items():
            run_once(command, found[key], tree)
    return found


class Report:
    """Printed lines and the results dictionary written to ``results.json``."""

    def __init__(self, out: str, repeat: int) -> None:
        self.out = out
        self.repeat = repeat
        self.results: dict[str, dict] = {}

    def heading(self, text: str) -> None:
        print(f"\n{text}", flush=True)

    def note(self, text: str) -> None:
        print(f"  note: {text}", flush=True)
        self.results.setdefault("notes", {"notes": []})["notes"].append(text)

    def add(self, key: str, found: Measurement, show_memory: bool = True, **extra) -> None:
        self.results[key] = {**found.as_json(), **extra}
        memory = f" {found.median_mib:8.1f} MiB" if show_memory else ""
        if show_memory and found.median_tree_mib is not None:
            memory += f" (all processes, PSS: {found.median_tree_mib:.0f} MiB)"
        print(f"{key:<62} {found.median_seconds:8.3f} s{memory}", flush=True)

    def time(
        self, key: str, command: list[str], repeat: int | None = None, tree: bool = False, **extra
    ) -> None:
        """Median time and peak memory of one command, alone (``tree``: also the summed PSS
        of its processes, for a command that starts workers)."""
        found = measure({key: command}, repeat or self.repeat, tree=tree)[key]
        self.add(key, found, command=" ".join(command), **extra)

    def ratio(self, key: str, value: float, target: float | None, what: str) -> None:
        """A ratio (``what``, e.g. 'divaeval / C ndeval, time') against its target
        (at most ``target``)."""
        entry: dict = {"ratio": round(value, 3), "what": what}
        verdict = ""
        if target is not None:
            entry.update(target=target, met=value <= target)
            verdict = f"  (target <= {target:g}: {'met' if value <= target else 'NOT met'})"
        self.results[key] = entry
        print(f"  -> {what:<57} {value:8.2f}{verdict}", flush=True)

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
        interleaved; medians; the ratios divaeval / reference of time (and of peak memory)
        against their targets."""
        (our_key, our_command), (ref_key, ref_command) = ours, reference
        found = measure({our_key: our_command, ref_key: ref_command}, repeat or self.repeat)
        for key, command in ((our_key, our_command), (ref_key, ref_command)):
            self.add(key, found[key], command=" ".join(command))
        self.ratio(
            f"ratio {name}: time",
            found[our_key].median_seconds / found[ref_key].median_seconds,
            time_target,
            f"divaeval / {label}, time",
        )
        if memory_target is not None:
            self.ratio(
                f"ratio {name}: peak memory",
                found[our_key].median_mib / found[ref_key].median_mib,
                memory_target,
                f"divaeval / {label}, peak memory",
            )
        return found

    def write(self) -> None:
        self.results["settings"] = {"repeat": self.repeat, "statistic": "median"}
        with open(os.path.join(self.out, "results.json"), "w") as handle:
            json.dump(self.results, handle, indent=1)
