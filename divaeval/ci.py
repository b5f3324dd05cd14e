"""Results of checks for CI: findings grouped into test cases, and their writers.

``divaeval check`` (rules on run files) and the quality gates of the main command
(``--fail-under``, ``--fail-if-worse``) both produce a :class:`Report`: one :class:`Case` per
run and rule (or gate), passed or failed, with its :class:`Finding` s (file, line, topic,
severity, message). One writer per format:

- ``text``: ``FILE:LINE: error: message`` (``FILE: topic T: ...`` where no line is at fault),
  then one summary line per run and one in all;
- ``jsonl``: one record per finding, then one per case (``kind``: ``finding``/``case``);
- ``junit``: JUnit XML, one ``<testsuite>`` per run, one ``<testcase>`` per rule or gate (a
  failed one holds a ``<failure>``; warnings that do not fail are in ``<system-out>``), as
  GitLab, Jenkins and GitHub's test reporters read it;
- ``github``: GitHub Actions workflow commands (``::error file=F,line=L,title=T::message``),
  shown on the file's lines in a pull request;
- ``markdown``: a summary and a table, for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

Standard library only.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO
from xml.etree import ElementTree

from divaeval.errors import UsageError, printable

ERROR = "error"
WARNING = "warning"
#: information that never fails a case (a gate that passed, with its numbers)
NOTE = "note"
#: the exit code of a check or gate that fails: the inputs could be read and judged, and they
#: fall short (1: could not read, 2: usage)
EXIT_FAILED = 4
CI_FORMATS = ("text", "jsonl", "junit", "github", "markdown")


@dataclass(frozen=True)
class Finding:
    """One problem: where (file, line, topic; each may be unknown), how bad, what."""

    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    topic: str | None = None

    def location(self) -> str:
        """``FILE:LINE: `` or ``FILE: topic T: `` or ``FILE: `` (empty without a file)."""
        if self.file is None:
            return "" if self.topic is None else f"topic {self.topic}: "
        if self.line is not None:
            return f"{self.file}:{self.line}: "
        if self.topic is not None:
            return f"{self.file}: topic {self.topic}: "
        return f"{self.file}: "

    def text(self) -> str:
        return printable(f"{self.location()}{self.severity}: {self.message}")


@dataclass
class Case:
    """One rule (or gate) on one run: ``suite`` names the run (its file), ``name`` the rule;
    ``description`` says what it checks; ``severity`` is that of its findings. It fails when
    it has an error, or a warning under ``strict``. ``omitted`` findings were counted but not
    listed (a cap per rule keeps a report of a broken file readable)."""

    suite: str
    name: str
    description: str
    findings: list[Finding] = field(default_factory=list)
    severity: str = ERROR
    omitted: int = 0

    def failed(self, strict: bool = False) -> bool:
        return any(
            severity == ERROR or (strict and severity == WARNING) for severity in self._severities()
        )

    def _severities(self) -> list[str]:
        return [f.severity for f in self.findings] + ([self.severity] if self.omitted else [])

    def count(self, severity: str) -> int:
        listed = sum(f.severity == severity for f in self.findings)
        return listed + (self.omitted if severity == self.severity else 0)

    def omitted_text(self) -> str | None:
        """The line that counts the findings not listed (None: none)."""
        if not self.omitted:
            return None
        return printable(
            f"{self.suite}: {self.severity}: {self.omitted} more finding(s) of rule "
            f"{self.name} not listed (--max-per-rule)"
        )


@dataclass
class Report:
    """Every case of one command, in order; ``title`` names the command (``divaeval check``),
    ``notes`` are lines for people (what a fix changed), printed by the text and markdown
    formats; ``case_kind`` names a case in the markdown table (``check``, ``gate``)."""

    title: str
    cases: list[Case]
    strict: bool = False
    notes: list[str] = field(default_factory=list)
    #: what a case is, in the markdown table's header (a rule of check, a gate)
    case_kind: str = "check"

    @property
    def failed(self) -> bool:
        return any(case.failed(self.strict) for case in self.cases)

    @property
    def exit_code(self) -> int:
        return EXIT_FAILED if self.failed else 0

    def suites(self) -> dict[str, list[Case]]:
        grouped: dict[str, list[Case]] = {}
        for case in self.cases:
            grouped.setdefault(case.suite, []).append(case)
        return grouped

    def findings(self) -> list[Finding]:
        return [finding for case in self.cases for finding in case.findings]

    def count(self, severity: str) -> int:
        return sum(case.count(severity) for case in self.cases)

    def summary(self, cases: list[Case] | None = None) -> str:
        """``2 errors, 1 warning: failed`` (or ``passed``) over ``cases`` (default all)."""
        cases = self.cases if cases is None else cases
        errors = sum(case.count(ERROR) for case in cases)
        warnings = sum(case.count(WARNING) for case in cases)
        failed = any(case.failed(self.strict) for case in cases)
        strict = " (--strict: warnings fail)" if self.strict and warnings else ""
        return (
            f"{_counted(errors, 'error')}, {_counted(warnings, 'warning')}: "
            f"{'failed' if failed else 'passed'}{strict}"
        )


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# ---------------------------------------------------------------------------------------------
# writers


def write_text(report: Report, out: TextIO) -> None:
    """Each run's findings in line order (those of a topic or the whole file after them),
    then the counts of findings not listed, then the notes and the summaries."""
    lines: list[str] = []
    for cases in report.suites().values():
        findings = [finding for case in cases for finding in case.findings]
        findings.sort(key=lambda f: (f.line is None, f.line or 0))
        lines.extend(finding.text() for finding in findings)
        lines.extend(case.omitted_text() or "" for case in cases if case.omitted)
    lines.extend(report.notes)
    suites = report.suites()
    if len(suites) > 1:
        lines.extend(
            printable(f"{suite}: {report.summary(cases)}") for suite, cases in suites.items()
        )
    lines.append(f"{report.title}: {report.summary()}")
    out.write("".join(line + "\n" for line in lines))


def write_jsonl(report: Report, out: TextIO) -> None:
    records: list[dict] = []
    for case in report.cases:
        for finding in case.findings:
            records.append(
                {
                    "kind": "finding",
                    "suite": case.suite,
                    "check": case.name,
                    "severity": finding.severity,
                    "file": finding.file,
                    "line": finding.line,
                    "topic": finding.topic,
                    "message": finding.message,
                }
            )
    for case in report.cases:
        records.append(
            {
                "kind": "case",
                "suite": case.suite,
                "check": case.name,
                "description": case.description,
                "errors": case.count(ERROR),
                "warnings": case.count(WARNING),
                "passed": not case.failed(report.strict),
            }
        )
    out.write("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))


def write_junit(report: Report, out: TextIO) -> None:
    """JUnit XML (the schema GitLab, Jenkins and GitHub's test reporters read): one
    ``<testsuite>`` per run, one ``<testcase>`` per rule or gate."""
    root = ElementTree.Element("testsuites", name=report.title)
    total = failures = 0
    for suite, cases in report.suites().items():
        failed = sum(case.failed(report.strict) for case in cases)
        total += len(cases)
        failures += failed
        element = ElementTree.SubElement(
            root,
            "testsuite",
            name=_xml_text(suite),
            tests=str(len(cases)),
            failures=str(failed),
            errors="0",
            skipped="0",
        )
        for case in cases:
            testcase = ElementTree.SubElement(
                element, "testcase", classname=_xml_text(suite), name=_xml_text(case.name)
            )
            texts = [finding.text() for finding in case.findings]
            if case.omitted:
                texts.append(case.omitted_text() or "")
            details = "\n".join(_xml_text(text) for text in texts)
            if case.failed(report.strict):
                first = case.findings[0] if case.findings else None
                failure = ElementTree.SubElement(
                    testcase,
                    "failure",
                    message=_xml_text(first.text() if first else case.description),
                    type=case.name,
                )
                failure.text = f"{_xml_text(case.description)}\n{details}"
            elif details:
                ElementTree.SubElement(testcase, "system-out").text = details
    root.set("tests", str(total))
    root.set("failures", str(failures))
    ElementTree.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ElementTree.tostring(root, encoding="unicode"))
    out.write("\n")


def _xml_text(text: str) -> str:
    """``text`` as XML 1.0 can hold it: printable (no lone surrogates), without the control
    characters XML forbids."""
    text = printable(text)
    return "".join(c if c in "\t\n\r" or ord(c) >= 32 else f"\\x{ord(c):02x}" for c in text)


def write_github(report: Report, out: TextIO) -> None:
    """GitHub Actions workflow commands: ``::error file=F,line=L,title=T::message`` per
    finding (``::warning`` for a warning that does not fail), then a notice with the
    summary."""
    lines = []
    for case in report.cases:
        for finding in case.findings:
            level = {ERROR: "error", NOTE: "notice"}.get(
                finding.severity, "error" if report.strict else "warning"
            )
            properties = []
            if finding.file is not None:
                properties.append(f"file={_github_property(finding.file)}")
            if finding.line is not None:
                properties.append(f"line={finding.line}")
            properties.append(f"title={_github_property(f'{report.title}: {case.name}')}")
            message = (
                finding.message
                if finding.topic is None or finding.line is not None
                else (f"topic {finding.topic}: {finding.message}")
            )
            lines.append(f"::{level} {','.join(properties)}::{_github_data(message)}")
        if case.omitted:
            level = "error" if case.severity == ERROR or report.strict else "warning"
            lines.append(
                f"::{level} file={_github_property(case.suite)},"
                f"title={_github_property(f'{report.title}: {case.name}')}::"
                f"{_github_data(case.omitted_text() or '')}"
            )
    lines.append(
        f"::notice title={_github_property(report.title)}::{_github_data(report.summary())}"
    )
    out.write("".join(line + "\n" for line in lines))


def _github_data(text: str) -> str:
    """A workflow command's message, escaped as the runner reads it."""
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def write_markdown(report: Report, out: TextIO) -> None:
    """A heading with the verdict, one table row per case (rule or gate), then the findings
    (at most :data:`MARKDOWN_FINDINGS` rows; the rest counted)."""
    verdict = "❌" if report.failed else "✅"
    lines = [f"### {verdict} {_md(report.title)}: {_md(report.summary())}", ""]
    lines += [
        f"| run | {report.case_kind} | result | errors | warnings |",
        "|---|---|---|---:|---:|",
    ]
    for case in report.cases:
        result = "failed" if case.failed(report.strict) else "passed"
        lines.append(
            f"| {_md(case.suite)} | {_md(case.name)} | {result} | {case.count(ERROR)} | "
            f"{case.count(WARNING)} |"
        )
    findings = report.findings()
    if findings:
        lines += ["", "| where | severity | message |", "|---|---|---|"]
        for finding in findings[:MARKDOWN_FINDINGS]:
            where = finding.location().rstrip(": ") or "—"
            lines.append(f"| `{_md(where)}` | {finding.severity} | {_md(finding.message)} |")
        if len(findings) > MARKDOWN_FINDINGS:
            lines.append(f"| … | | {len(findings) - MARKDOWN_FINDINGS} more |")
    if report.notes:
        lines += ["", *(f"- {_md(note)}" for note in report.notes)]
    out.write("\n".join(lines) + "\n")


#: findings listed in a markdown report (a pull-request comment must stay readable)
MARKDOWN_FINDINGS = 50


def _md(text: str) -> str:
    """``text`` in a markdown table cell: one line, ``|`` escaped."""
    return printable(text).replace("|", "\\|").replace("\n", " ")


WRITERS: dict[str, Callable[[Report, TextIO], None]] = {
    "text": write_text,
    "jsonl": write_jsonl,
    "junit": write_junit,
    "github": write_github,
    "markdown": write_markdown,
}


def write_report(report: Report, fmt: str, out: TextIO) -> None:
    WRITERS[fmt](report, out)


def report_in(report: Report, fmt: str, out: TextIO | None = None) -> str | None:
    """``report`` in ``fmt`` (one of :data:`CI_FORMATS`; another is a usage error), written to
    ``out``, or returned as a string without one: the ``write`` of the check's and the gates'
    results."""
    if fmt not in CI_FORMATS:
        raise UsageError(f"unknown report format {fmt!r} (one of {', '.join(CI_FORMATS)})")
    if out is not None:
        write_report(report, fmt, out)
        return None
    buffer = io.StringIO()
    write_report(report, fmt, buffer)
    return buffer.getvalue()
