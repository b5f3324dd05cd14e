"""``divaeval check``: the TREC submission checker, every rule at once, with exact locations.

Modelled on the checking scripts TREC tracks give participants, a run file is read as the
readers read it (:func:`divaeval.io._text.read_source`: gzip, stdin, line ends, ``#``
comments; the fields by the readers' tokenizer, numbers by their parsers:
:mod:`divaeval.io.run_lines`) and every line is
checked against every rule, so that one pass reports every problem, each at its line (or at
its topic where no line is at fault). Rules (:data:`RULES`), errors first:

- ``fields``: a line of the wrong number of fields (6: topic Q0 docno rank score tag);
- ``rank``: a rank that is not an integer (in the 64-bit range);
- ``score``: a score that is not a finite number (``nan``, ``inf``, ``1e999``, ``abc``);
- ``duplicate``: a docno repeated within a topic (trec_eval and ndeval stop there);
- ``tag``: more than one run tag in a file;
- ``topic``: a topic not in the topic set (``--qrels`` or ``--topics``);
- ``missing-topic``: a topic of the topic set without documents;
- ``depth``: more than ``--depth`` documents for a topic;
- ``order`` (warning): ranks and scores that disagree on the order (trec_eval and divaeval's
  default order by score, ndeval by rank), or a rank repeated within a topic;
- ``ties`` (warning): documents of a topic sharing a score (each tool breaks the tie its own
  way);
- ``tag-name`` (warning): a run tag longer than ``--max-tag-length`` or with characters other
  than letters, digits, ``_``, ``-`` and ``.``;
- ``q0`` (warning): a second column other than ``Q0``;
- ``docno`` (warning): a docno that does not match ``--docno REGEX``.

:func:`fixed_run` writes the normalised run (``--fix``): ordered by topic and by trec_eval's
order (score descending, ties by docno descending), ranks renumbered from 1, repeated docnos
dropped (the best-ranked copy kept), the first tag, ``Q0``; lines that cannot be read as a
ranking (wrong field count, a score that is not a finite number) and topics outside the topic
set are dropped, and topics are cut to ``--depth``; each change is listed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from divaeval.ci import ERROR, WARNING, Case, Finding, Report
from divaeval.errors import DataError, UsageError, clip, shown
from divaeval.io._numbers import integer_tokens
from divaeval.io._text import read_source
from divaeval.io._words import decode
from divaeval.io.intents import read_topic_types
from divaeval.io.qrels import read_qrels
from divaeval.io.run_lines import (
    RunLines,
    first_of_groups,
    read_run_lines,
    score_text,
    trec_order,
)
from divaeval.io.runs import RUN_COLUMNS, too_few_columns
from divaeval.topics import sort_topics

#: rule -> (severity, what it checks)
RULES: dict[str, tuple[str, str]] = {
    "fields": (ERROR, f"every line has 6 fields: {RUN_COLUMNS}"),
    "rank": (ERROR, "every rank is an integer"),
    "score": (ERROR, "every score is a finite number"),
    "duplicate": (ERROR, "no docno is repeated within a topic"),
    "tag": (ERROR, "one run tag per file"),
    "topic": (ERROR, "every topic is in the topic set"),
    "missing-topic": (ERROR, "every topic of the topic set has documents"),
    "depth": (ERROR, "at most --depth documents per topic"),
    "order": (WARNING, "ranks and scores agree on the order of every topic"),
    "ties": (WARNING, "no two documents of a topic share a score"),
    "tag-name": (WARNING, "the run tag is short and plain (letters, digits, _ - .)"),
    "q0": (WARNING, "the second column is Q0"),
    "docno": (WARNING, "every docno matches --docno"),
}
#: rules that apply only with a topic set, --depth or --docno
_NEEDS = {"topic": "topics", "missing-topic": "topics", "depth": "depth", "docno": "docno"}
TAG_CHARACTERS = re.compile(r"[A-Za-z0-9_.-]+")
DEFAULT_MAX_TAG_LENGTH = 20
DEFAULT_MAX_PER_RULE = 10


@dataclass(frozen=True)
class TopicSet:
    """The topics a run must cover, and the file they come from."""

    topics: frozenset[str]
    source: str


@dataclass(frozen=True)
class CheckOptions:
    """What ``check`` checks beyond the fixed rules."""

    topics: TopicSet | None = None
    depth: int | None = None
    docno: str | None = None  # a regular expression every docno must match (fullmatch)
    max_tag_length: int = DEFAULT_MAX_TAG_LENGTH
    max_per_rule: int = DEFAULT_MAX_PER_RULE  # findings listed per rule and run (0: all)
    strict: bool = False

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth < 1:
            raise UsageError(f"--depth must be at least 1, got {self.depth}")
        if self.max_tag_length < 1:
            raise UsageError(f"--max-tag-length must be at least 1, got {self.max_tag_length}")
        if self.max_per_rule < 0:
            raise UsageError(f"--max-per-rule must be 0 (all) or more, got {self.max_per_rule}")
        if self.docno is not None:
            try:
                re.compile(self.docno)
            except re.error as exc:
                raise UsageError(
                    f"--docno {self.docno!r} is not a regular expression: {exc}"
                ) from None

    def applies(self, rule: str) -> bool:
        needed = _NEEDS.get(rule)
        return needed is None or getattr(self, needed) is not None


def read_topic_set(qrels: str | None = None, topics: str | None = None) -> TopicSet | None:
    """The topic set of ``--qrels`` (its topics) or ``--topics``: a TREC topics XML file (its
    ``<topic number=...>`` elements with subtopics) or a text file with a topic id first on
    each line (TREC's query files, ``151:obama family tree``: the id is cut at ``:``)."""
    if qrels is not None and topics is not None:
        raise UsageError("give the topic set by --qrels or by --topics, not both")
    if qrels is not None:
        frame = read_qrels(qrels).frame
        return TopicSet(frozenset(frame["topic"].astype(str)), "-" if qrels == "-" else qrels)
    if topics is None:
        return None
    source = read_source(topics, what="topics", comments=False)
    if source.data.lstrip()[:1] == b"<":
        numbers = read_topic_types(topics, text=source.data)["topic"]
        return TopicSet(frozenset(numbers.astype(str)), source.name)
    found = set()
    for line in source.data.split(b"\n"):
        words = line.split(None, 1)
        if words and not words[0].startswith(b"#"):  # (a comment line, as in every input)
            topic = words[0].split(b":", 1)[0]
            if topic:
                found.add(topic.decode("utf-8", "surrogateescape"))
    if not found:
        raise DataError("no topic ids in the topics file", file=source.name)
    return TopicSet(frozenset(found), source.name)


class _Collector:
    """The cases of one run, findings capped at ``limit`` per rule (the rest counted)."""

    def __init__(self, run: str, options: CheckOptions):
        self.run = run
        self.limit = options.max_per_rule
        self.cases = {
            rule: Case(run, rule, description, severity=severity)
            for rule, (severity, description) in RULES.items()
            if options.applies(rule)
        }

    def add(self, rule: str, message: str, *, line: int | None = None, topic: str | None = None):
        case = self.cases[rule]
        if self.limit and len(case.findings) >= self.limit:
            case.omitted += 1
            return
        case.findings.append(Finding(case.severity, message, self.run, line, topic))

    def full(self, rule: str) -> bool:
        """No more findings of ``rule`` are listed (they are only counted)."""
        case = self.cases[rule]
        return bool(self.limit) and len(case.findings) >= self.limit

    def count(self, rule: str, n: int) -> None:
        """``n`` more findings of ``rule``, counted but not listed."""
        self.cases[rule].omitted += n


def _each(collector: _Collector, rule: str, rows: np.ndarray, message) -> None:
    """One finding of ``rule`` per row of ``rows`` (``message(row)``: (text, line, topic)),
    listed up to the cap and counted beyond it."""
    rows = np.asarray(rows)
    for i, row in enumerate(rows.tolist()):
        if collector.full(rule):
            collector.count(rule, len(rows) - i)
            return
        text, line, topic = message(row)
        collector.add(rule, text, line=line, topic=topic)


def check_run(path: str, options: CheckOptions) -> list[Case]:
    """Every rule on the run file ``path``: one case per applicable rule."""
    name, read = read_run_lines(path)
    collector = _Collector(name, options)
    if read is None:
        collector.add("fields", "run file has no lines")
        return list(collector.cases.values())
    run = read
    _check_fields(run, collector)
    rows = np.flatnonzero(run.ok)
    _each(
        collector,
        "rank",
        rows[~run.rank_ok[rows]],
        lambda r: (_bad_rank(run, r), int(run.line[r]), None),
    )
    _each(
        collector,
        "score",
        rows[~run.score_ok[rows]],
        lambda r: (_bad_score(run, r), int(run.line[r]), None),
    )
    _check_duplicates(run, rows, collector)
    _check_tags(run, rows, collector, options)
    _each(
        collector,
        "q0",
        rows[run.q0[rows] != "Q0"],
        lambda r: (
            f"second column {shown(str(run.q0[r]))} is not Q0 (trec_eval and divaeval ignore it)",
            int(run.line[r]),
            None,
        ),
    )
    if options.docno is not None:
        pattern = re.compile(options.docno)
        bad_docnos = np.array([pattern.fullmatch(d) is None for d in run.docnos.tolist()])
        bad = rows[bad_docnos[run.doc_code[rows]]] if len(bad_docnos) else rows[:0]
        _each(
            collector,
            "docno",
            bad,
            lambda r: (
                f"docno {shown(run.docnos[run.doc_code[r]])} does not match --docno "
                f"'{clip(options.docno or '')}'",  # as typed (repr would double each \\)
                int(run.line[r]),
                _topic(run, r),
            ),
        )
    if options.topics is not None:
        _check_topic_set(run, rows, collector, options.topics)
    if options.depth is not None:
        _check_depth(run, rows, collector, options.depth)
    by_score = trec_order(run, rows[run.score_ok[rows]])
    _check_order(run, by_score[run.rank_ok[by_score]], collector)
    _check_ties(run, by_score, collector)
    return list(collector.cases.values())


def _topic(run: RunLines, row: int) -> str:
    return str(run.topics[run.topic_code[row]])


def _check_fields(run: RunLines, collector: _Collector) -> None:
    def message(row: int):
        found = int(run.fields[row])
        if found < 6:
            fifth = decode(run.score_text[row : row + 1])[0] if found >= 5 else ""
            text = too_few_columns(found, fifth, first=row == 0)
        else:
            text = f"expected 6 columns ({RUN_COLUMNS}), found {found}"
        return text, int(run.line[row]), None

    _each(collector, "fields", np.flatnonzero(run.fields != 6), message)


def _bad_rank(run: RunLines, row: int) -> str:
    words = run.rank_words[row : row + 1]
    text = shown(decode(words)[0])
    if integer_tokens(words)[0]:
        return f"rank {text} is beyond the 64-bit integer range"
    return f"rank {text} is not an integer"


def _bad_score(run: RunLines, row: int) -> str:
    text = decode(run.score_text[row : row + 1])[0]
    value = run.score[row]
    if value != value and text.lstrip("+-").lower() != "nan":
        return f"score {shown(text)} is not a number"
    spelled = text.lstrip("+-").lower() in ("inf", "infinity", "nan")
    why = "" if spelled else " (beyond the range of a double)"
    return f"score {shown(text)} is not a finite number{why}"


def _check_duplicates(run: RunLines, rows: np.ndarray, collector: _Collector) -> None:
    if not len(rows):
        return
    pair = run.topic_code[rows] * (len(run.docnos) + 1) + run.doc_code[rows]
    first, inverse, _ = first_of_groups(pair)
    repeated = np.flatnonzero(first[inverse] != np.arange(len(rows)))

    def message(i: int):
        row, original = int(rows[i]), int(rows[first[inverse[i]]])
        return (
            f"docno {clip(str(run.docnos[run.doc_code[row]]))} is repeated in topic "
            f"{clip(_topic(run, row))} (first at line {run.line[original]}): trec_eval and "
            "ndeval stop at it; divaeval's --dedupe first keeps the best-ranked copy",
            int(run.line[row]),
            _topic(run, row),
        )

    _each(collector, "duplicate", repeated, message)


def _check_tags(
    run: RunLines, rows: np.ndarray, collector: _Collector, options: CheckOptions
) -> None:
    if not len(rows):
        return
    codes = run.tag_code[rows]
    first_tag = int(codes[0])
    tag = str(run.tags[first_tag])
    others = [int(c) for c in dict.fromkeys(codes.tolist()) if c != first_tag]

    def message(code: int):
        where = rows[codes == code]
        return (
            f"run tag {shown(str(run.tags[code]))} differs from the file's first tag "
            f"{shown(tag)} (line {run.line[rows[0]]}) on {len(where)} line(s): a run file holds "
            "one run",
            int(run.line[where[0]]),
            None,
        )

    _each(collector, "tag", np.array(others, dtype=np.int64), message)
    line = int(run.line[rows[0]])
    if len(tag) > options.max_tag_length:
        collector.add(
            "tag-name",
            f"run tag {shown(tag)} is {len(tag)} characters long, more than "
            f"--max-tag-length {options.max_tag_length}",
            line=line,
        )
    if TAG_CHARACTERS.fullmatch(tag) is None:
        odd = sorted({c for c in tag if TAG_CHARACTERS.fullmatch(c) is None})
        collector.add(
            "tag-name",
            f"run tag {shown(tag)} has characters other than letters, digits, _ - and . "
            f"({shown(''.join(odd))})",
            line=line,
        )


def _check_topic_set(run: RunLines, rows: np.ndarray, collector: _Collector, topic_set: TopicSet):
    present = run.topic_code[rows]
    known = np.array([t in topic_set.topics for t in run.topics.tolist()], dtype=bool)
    outside = [int(c) for c in dict.fromkeys(present.tolist()) if not known[c]]

    def unknown(code: int):
        where = rows[present == code]
        return (
            f"topic {clip(str(run.topics[code]))} is not in the topic set of "
            f"{topic_set.source} ({len(where)} line(s))",
            int(run.line[where[0]]),
            str(run.topics[code]),
        )

    _each(collector, "topic", np.array(outside, dtype=np.int64), unknown)
    covered = {str(run.topics[c]) for c in np.unique(present).tolist()}
    missing = [t for t in sort_topics(topic_set.topics) if t not in covered]
    for i, topic in enumerate(missing):
        if collector.full("missing-topic"):
            collector.count("missing-topic", len(missing) - i)
            break
        collector.add(
            "missing-topic",
            f"no documents for this topic of the topic set of {topic_set.source}",
            topic=topic,
        )


def _check_depth(run: RunLines, rows: np.ndarray, collector: _Collector, depth: int) -> None:
    codes = run.topic_code[rows]
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    first = np.flatnonzero(starts)
    counts = np.diff(np.r_[first, len(ordered)])
    position = np.arange(len(ordered)) - np.repeat(first, counts)
    beyond = order[position == depth]  # the first document past the depth, per topic
    total = dict(zip(ordered[first].tolist(), counts.tolist(), strict=True))
    beyond = beyond[np.argsort(rows[beyond])]

    def message(i: int):
        row = int(rows[i])
        return (
            f"topic {clip(_topic(run, row))} has {total[int(run.topic_code[row])]} documents, "
            f"more than --depth {depth} (this line is the first beyond it)",
            int(run.line[row]),
            _topic(run, row),
        )

    _each(collector, "depth", beyond, message)


def _check_order(run: RunLines, by_score: np.ndarray, collector: _Collector) -> None:
    """Per topic, the first document whose place by score (trec_eval's order:
    ``by_score``) differs from its place by rank (ndeval), with the count of documents placed
    differently; and a rank repeated within a topic (ndeval's order needs distinct ranks)."""
    if not len(by_score):
        return
    rows = np.sort(by_score)
    by_rank = rows[np.lexsort((run.rank[rows], run.topic_code[rows]))]
    topic = run.topic_code[by_score]
    start = np.r_[True, topic[1:] != topic[:-1]]
    first = np.flatnonzero(start)
    sizes = np.diff(np.r_[first, len(topic)])
    position = np.arange(len(topic)) - np.repeat(first, sizes)
    place_by_rank = np.empty(run.n_rows, dtype=np.int64)
    place_by_rank[by_rank] = position  # (both orders group the same topics in the same order)
    differs = by_score != by_rank
    repeated = (run.topic_code[by_rank][1:] == run.topic_code[by_rank][:-1]) & (
        run.rank[by_rank][1:] == run.rank[by_rank][:-1]
    )
    findings: list[tuple[int, str, str]] = []
    for block, size in zip(first.tolist(), sizes.tolist(), strict=True):
        moved = np.flatnonzero(differs[block : block + size])
        if not len(moved):
            continue
        at = block + int(moved[0])
        row = int(by_score[at])
        doc = clip(str(run.docnos[run.doc_code[row]]))
        findings.append(
            (
                row,
                f"topic {clip(_topic(run, row))}: ranks and scores disagree: docno {doc} (rank "
                f"{run.rank[row]}, score {score_text(run, row)}) is #{position[at] + 1} by score "
                f"(trec_eval, divaeval's default --order score) but #{place_by_rank[row] + 1} by "
                f"rank (ndeval, --order rank); {len(moved)} of {size} documents are placed "
                "differently",
                _topic(run, row),
            )
        )
    for i in np.flatnonzero(repeated).tolist():
        row, other = int(by_rank[i + 1]), int(by_rank[i])
        findings.append(
            (
                row,
                f"topic {clip(_topic(run, row))}: rank {run.rank[row]} is repeated (also at line "
                f"{run.line[other]}): ndeval's order (--order rank) needs distinct ranks",
                _topic(run, row),
            )
        )
    findings.sort(key=lambda f: f[0])
    _each(
        collector,
        "order",
        np.arange(len(findings)),
        lambda i: (findings[i][1], int(run.line[findings[i][0]]), findings[i][2]),
    )


def _check_ties(run: RunLines, ordered: np.ndarray, collector: _Collector) -> None:
    """Per topic, the first line (in the file) whose score another document of the topic
    shares, with the number of documents in ties (``ordered``: rows in trec_eval's order,
    so that ties are neighbours)."""
    if not len(ordered):
        return
    topic = run.topic_code[ordered]
    same = (topic[1:] == topic[:-1]) & (run.score[ordered][1:] == run.score[ordered][:-1])
    if not same.any():
        return
    tied = np.zeros(len(ordered), dtype=bool)
    tied[:-1] |= same
    tied[1:] |= same
    counts = np.bincount(topic[tied], minlength=len(run.topics))
    # each tied pair (earlier line, later line); per topic the pair with the earliest line
    pairs = np.flatnonzero(same)
    earlier = np.minimum(ordered[pairs], ordered[pairs + 1])
    later = np.maximum(ordered[pairs], ordered[pairs + 1])
    by_topic = np.lexsort((earlier, topic[pairs]))
    lead = by_topic[np.r_[True, topic[pairs][by_topic][1:] != topic[pairs][by_topic][:-1]]]
    lead = lead[np.argsort(earlier[lead])]

    def message(i: int):
        row, other = int(earlier[i]), int(later[i])
        return (
            f"topic {clip(_topic(run, row))}: score {score_text(run, row)} is shared with line "
            f"{run.line[other]} ({counts[run.topic_code[row]]} documents of this topic share a "
            "score): trec_eval and divaeval order ties by docno (descending), ndeval by rank, "
            "NTCIREVAL and the RBU code as listed",
            int(run.line[row]),
            _topic(run, row),
        )

    _each(collector, "ties", lead, message)


# ---------------------------------------------------------------------------------------------
# every run, and the fix


def check_runs(paths: Sequence[str], options: CheckOptions) -> Report:
    """Every rule on every run file: one case per run and rule."""
    cases = [case for path in paths for case in check_run(path, options)]
    return Report("divaeval check", cases, strict=options.strict)


@dataclass
class Fixed:
    """A normalised run (its lines) and what normalising changed."""

    text: str
    changes: list[str]


def fixed_run(path: str, options: CheckOptions) -> Fixed:
    """The run ``path`` normalised (see the module docstring), and the list of changes."""
    name, read = read_run_lines(path)
    if read is None:
        return Fixed("", [f"{name}: the run has no lines: nothing written but an empty file"])
    run = read
    changes: list[str] = []

    def note(count: int, what: str) -> None:
        if count:
            changes.append(f"{name}: {what}")

    rows = np.flatnonzero(run.ok & run.score_ok)
    note(int((~run.ok).sum()), f"{int((~run.ok).sum())} line(s) without 6 fields dropped")
    longer = int((run.fields > 6).sum())
    note(longer, f"fields after the sixth dropped on {longer} line(s)")
    bad_scores = int((run.ok & ~run.score_ok).sum())
    note(bad_scores, f"{bad_scores} line(s) whose score is not a finite number dropped")
    if options.topics is not None and len(rows):
        known = np.array([t in options.topics.topics for t in run.topics.tolist()], dtype=bool)
        outside = ~known[run.topic_code[rows]]
        dropped_topics = sorted({str(t) for t in run.topics[run.topic_code[rows[outside]]]})
        note(
            int(outside.sum()),
            f"{int(outside.sum())} line(s) of topics outside the topic set dropped "
            f"({', '.join(clip(t) for t in dropped_topics[:10])}"
            f"{', ...' if len(dropped_topics) > 10 else ''})",
        )
        rows = rows[~outside]
    ordered = trec_order(run, rows)
    if len(ordered):
        pair = run.topic_code[ordered] * (len(run.docnos) + 1) + run.doc_code[ordered]
        first, inverse, _ = first_of_groups(pair)
        keep = first[inverse] == np.arange(len(ordered))
        note(
            int((~keep).sum()),
            f"{int((~keep).sum())} repeated docno(s) dropped (the best-ranked copy kept)",
        )
        ordered = ordered[keep]
    topic = run.topic_code[ordered]
    start = np.r_[True, topic[1:] != topic[:-1]] if len(topic) else np.zeros(0, dtype=bool)
    first_of_topic = np.flatnonzero(start)
    sizes = np.diff(np.r_[first_of_topic, len(topic)])
    rank = np.arange(len(topic)) - np.repeat(first_of_topic, sizes) + 1
    if options.depth is not None:
        within = rank <= options.depth
        note(
            int((~within).sum()),
            f"{int((~within).sum())} document(s) beyond --depth {options.depth} dropped",
        )
        ordered, rank = ordered[within], rank[within]
    tag_code = int(run.tag_code[rows[0]]) if len(rows) else -1
    tag = str(run.tags[tag_code]) if len(rows) else "run"
    other_tags = len(set(run.tag_code[ordered].tolist()) - {tag_code})
    note(other_tags, f"{other_tags} other run tag(s) replaced by {shown(tag)}")
    changed_q0 = int((run.q0[ordered] != "Q0").sum())
    note(changed_q0, f"{changed_q0} second column(s) set to Q0")
    renumbered = int((~run.rank_ok[ordered] | (run.rank[ordered] != rank)).sum())
    note(renumbered, f"{renumbered} rank(s) renumbered in trec_eval's order (score, then docno)")
    moved = bool(len(ordered)) and not np.array_equal(np.sort(ordered), ordered)
    if moved:
        changes.append(f"{name}: lines reordered by topic and rank")
    topic_order = {t: i for i, t in enumerate(sort_topics(run.topics.tolist()))}
    by_topic = (
        np.argsort(
            np.array([topic_order[str(run.topics[c])] for c in run.topic_code[ordered].tolist()]),
            kind="stable",
        )
        if len(ordered)
        else np.zeros(0, dtype=np.int64)
    )
    ordered, rank = ordered[by_topic], rank[by_topic]
    lines = [
        f"{run.topics[run.topic_code[row]]} Q0 {run.docnos[run.doc_code[row]]} {r} "
        f"{score_text(run, row)} {tag}\n"
        for row, r in zip(ordered.tolist(), rank.tolist(), strict=True)
    ]
    if not changes:
        changes.append(f"{name}: nothing to change")
    return Fixed("".join(lines), changes)
