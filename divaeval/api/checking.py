"""``divaeval check``: the TREC submission checker (:mod:`divaeval.io.check`), and its result
in the CI formats (:mod:`divaeval.ci`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO, cast

from divaeval import __version__
from divaeval.api._common import _flag, _integer, _no_bytes, _path
from divaeval.api.results import Result
from divaeval.atomic import written_whole
from divaeval.ci import Report, report_in
from divaeval.errors import UsageError
from divaeval.evaluation import same_file
from divaeval.io.check import CheckOptions, check_runs, fixed_run, read_topic_set

if TYPE_CHECKING:
    import pandas as pd


@dataclass(eq=False, repr=False)
class CheckResult(Result):
    """What :func:`check` found: :attr:`report` (one case per run and rule, with its
    findings), :attr:`frame` (one row per finding), :attr:`passed`, the command line's
    :attr:`exit_code` (0 or 4), and :meth:`write` in a CI format."""

    report: Report

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = [
            (case.suite, case.name, f.severity, f.file, f.line, f.topic, f.message)
            for case in self.report.cases
            for f in case.findings
        ]
        columns = ["run", "check", "severity", "file", "line", "topic", "message"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def passed(self) -> bool:
        return not self.report.failed

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    def write(self, fmt: str = "text", out: TextIO | None = None) -> str | None:
        """The report in ``fmt`` (text, jsonl, junit, github, markdown), written to ``out``,
        or returned as a string without one."""
        return report_in(self.report, fmt, out)


def check(
    runs: str | Sequence[str],
    *,
    qrels: str | None = None,
    topics: str | None = None,
    depth: int | None = None,
    docno: str | None = None,
    max_tag_length: int = 20,
    max_per_rule: int = 10,
    strict: bool = False,
    fix: str | None = None,
) -> CheckResult:
    """Check run files before they are submitted (``divaeval check``, the TREC submission
    checker, :mod:`divaeval.io.check`): every rule on every line, with the topic set of
    ``qrels`` or ``topics`` (a topics XML or query file), at most ``depth`` documents per topic
    and every docno matching ``docno`` (a regular expression) where given. ``strict``:
    warnings fail too. ``fix``: a file to write the one run normalised to (atomically, never
    over an input); the result then checks the written file, and its report lists the
    changes.

    >>> result = divaeval.check("sample_data/run2.txt", qrels="sample_data/qrels.txt")
    >>> result.passed, result.frame["check"].value_counts().to_dict()
    (True, {'ties': 5, 'order': 4})
    """
    _no_bytes(runs, "runs")
    given = [runs] if isinstance(runs, (str, os.PathLike)) else runs
    if not isinstance(given, (list, tuple)) or not given or None in given:
        raise UsageError(f"runs: expected a path or a list of paths, got {runs!r}")
    paths = [cast(str, _path(path, "runs")) for path in given]
    if docno is not None and not isinstance(docno, str):
        raise UsageError(f"docno: expected a regular expression (str) or None, got {docno!r}")
    options = CheckOptions(
        topics=read_topic_set(_path(qrels, "qrels"), _path(topics, "topics")),
        depth=_integer(depth, "depth", 1, none=True),
        docno=docno,
        max_tag_length=_integer(max_tag_length, "max_tag_length", 1),
        max_per_rule=_integer(max_per_rule, "max_per_rule", 0),
        strict=_flag(strict, "strict"),
    )
    signature = (
        f"divaeval {__version__}|check|topics={options.topics.source if options.topics else 'none'}"
        f"|depth={depth or 'any'}|docno={docno or 'any'}|max_tag_length={max_tag_length}"
        f"|strict={strict}"
    )
    if fix is None:
        return CheckResult(signature, check_runs(paths, options))
    if len(paths) != 1:
        raise UsageError(f"--fix normalises one run at a time (got {len(paths)})")
    fix = cast(str, _path(fix, "fix"))
    inputs = [*paths, *(p for p in (qrels, topics) if p is not None)]
    if any(same_file(fix, path) for path in inputs):
        raise UsageError(f"{fix} is an input: divaeval never writes over an input")
    fixed = fixed_run(paths[0], options)
    with written_whole(fix) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        handle.write(fixed.text)
    report = check_runs([fix], options)
    report.title = "divaeval check --fix"
    report.notes.extend(f"fixed: {change}" for change in fixed.changes)
    return CheckResult(signature + "|fix", report)
