"""Timing whole commands for ``make bench``: medians of repeated runs, side by side.

Each run of a command is launched from its own small Python process, which reports the
command's wall time and its peak RSS (``RUSAGE_CHILDREN``: the largest resident set of the
command or of any process it waited for), so one command's memory never leaks into another's.
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
    "print(t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)\n"
)


@dataclass
class Measurement:
    """The runs of one command: wall seconds and peak RSS (MiB) of each; medians."""

    seconds: list[float] = field(default_factory=list)
    peak_mib: list[float] = field(default_factory=list)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    @property
    def median_mib(self) -> float:
        return statistics.median(self.peak_mib)

    def as_json(self) -> dict:
        return {
            "seconds": round(self.median_seconds, 3),
            "peak_mib": round(self.median_mib, 1),
            "runs": len(self.seconds),
            "all_seconds": [round(s, 3) for s in self.seconds],
        }


def run_once(command: list[str], into: Measurement) -> None:
    """Run ``command`` once (stdout discarded) and add its time and peak RSS to ``into``;
    a failing command stops the benchmark with its stderr."""
    proc = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *command], capture_output=True, text=True
    )
    seconds, rss_kib, code = proc.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{proc.stderr}")
    into.seconds.append(float(seconds))
    into.peak_mib.append(int(rss_kib) / 1024)


def measure(commands: dict[str, list[str]], repeat: int) -> dict[str, Measurement]:
    """Each command run ``repeat`` times, the commands interleaved."""
    found = {key: Measurement() for key in commands}
    for _ in range(repeat):
        for key, command in commands.items():
            run_once(command, found[key])
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
        print(f"{key:<62} {found.median_seconds:8.3f} s{memory}", flush=True)

    def time(self, key: str, command: list[str], repeat: int | None = None, **extra) -> None:
        """Median time and peak memory of one command, alone."""
        found = measure({key: command}, repeat or self.repeat)[key]
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
