"""The reader regression corpus (``tests/regressions/``): one small file per failure class of
issue 9, run through the CLI in process.

Each case asserts the exact exit code, the first stderr line (``divaeval: FILE:LINE: ...`` where
a line applies), that the corpus files are the same after the command as before, and, where the
input now gives a number, the hand-worked value. Before the fix, each of these exited 0 with a
wrong number, exited 3, or took seconds and gigabytes (issues 9 and 22).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from divaeval.cli import main

CORPUS = Path(__file__).parent / "regressions"


@dataclass
class Case:
    args: list[str]
    code: int
    first_line: str | None = None  # exact first stderr line; None: stderr must be empty
    values: dict[str, float] = field(default_factory=dict)  # measure -> mean (tsv output)


CASES = {
    # A '#' comment ended by a lone CR swallowed the CR-ended lines after it (P@3 was 0.667):
    # a, b, c are the three relevant documents of one subtopic, ranked 1-3 -> P-IA@3 = 3/3.
    "cr_comment": Case(["cr_comment.run", "three_relevant.qrels", "-m", "P-IA@3"], 0, None,
                       {"P-IA@3": 1.0}),
    # \r\n, \n and a lone \r in one file, comments ended by CR in the qrels: the same 3/3
    "mixed_line_ends": Case(["mixed_line_ends.run", "cr_comment.qrels", "-m", "P-IA@3"], 0, None,
                            {"P-IA@3": 1.0}),
    # A byte-order mark became part of the first topic id ('\ufeff1'), so the run's topic was
    # not the qrels' (no BOM there). Stripped in run, intents and XML: a (subtopic 1) and b
    # (subtopic 2) at ranks 1, 2 -> strec@2 = 2/2; P-IA@2 = .5·(1/2) + .5·(1/2) = .5; no
    # warning (a BOM in the intent file would leave its intents unmatched, with warnings).
    "bom": Case(
        ["bom.run", "two_subtopics.qrels", "--intents", "bom.intents", "--topics", "bom.xml",
         "-m", "strec@2", "-m", "P-IA@2"],
        0, None, {"strec@2": 1.0, "P-IA@2": 0.5},
    ),
    # the same in the qrels (run without a BOM): a (subtopic 1), b (subtopic 2) in the top 2
    "bom_qrels": Case(["cr_comment.run", "bom.qrels", "-m", "strec@2"], 0, None, {"strec@2": 1.0}),
    # A rank beyond int64 wrapped around and ranked the document first.
    "rank_overflow": Case(
        ["rank_overflow.run", "three_relevant.qrels", "--order", "rank"], 1,
        "divaeval: rank_overflow.run:3: rank '99999999999999999999' is beyond the 64-bit "
        "integer range",
    ),
    # Ranks 2^53 + 1 (a) and 2^53 (b) went through float64 and became one "duplicate" rank.
    # Exactly: b ranks first, and b is the only relevant document -> P-IA@1 = 1.
    "rank_beyond_float": Case(
        ["rank_beyond_float.run", "only_b.qrels", "--order", "rank", "-m", "P-IA@1"], 0, None,
        {"P-IA@1": 1.0},
    ),
    # ... while the score order ranks a (score 3) first -> 0
    "rank_beyond_float_score_order": Case(
        ["rank_beyond_float.run", "only_b.qrels", "-m", "P-IA@1"], 0, None, {"P-IA@1": 0.0}
    ),
    "score_overflow": Case(
        ["score_overflow.run", "three_relevant.qrels"], 1,
        "divaeval: score_overflow.run:2: score '1e999' is not a finite number (beyond the range "
        "of a double)",
    ),
    "score_nan": Case(
        ["score_nan.run", "three_relevant.qrels"], 1,
        "divaeval: score_nan.run:1: score 'nan' is not a finite number",
    ),
    # A 10 MB docno (gzipped) in run and qrels: ~1.25M words per row were allocated (10 MB
    # failed). Ranking a, d<10 MB>, c; d relevant to subtopic 1, c to 2, a judged 0:
    # strec@2 = 1/2, strec@3 = 2/2, P-IA@2 = (1/2 + 0)/2 = .25.
    "long_docno": Case(
        ["long_docno.run.gz", "long_docno.qrels.gz", "-m", "strec@2,3", "-m", "P-IA@2"], 0, None,
        {"strec@2": 0.5, "strec@3": 1.0, "P-IA@2": 0.25},
    ),
    # A 10 MB bad token was echoed whole in the message.
    "long_bad_score": Case(
        ["long_bad_score.run.gz", "three_relevant.qrels"], 1,
        "divaeval: long_bad_score.run.gz:2: score "
        f"'{'x' * 40}…' (10000000 characters) is not a number",
    ),
    # An unknown encoding= exited 3 (LookupError); a multi-byte one 3 (ValueError).
    "unknown_encoding": Case(
        ["cr_comment.run", "three_relevant.qrels", "--topics", "unknown_encoding.xml"], 1,
        "divaeval: unknown_encoding.xml:1: cannot decode the topic XML: unknown encoding: "
        "foo-bar",
    ),
    "multibyte_encoding": Case(
        ["cr_comment.run", "three_relevant.qrels", "--topics", "multibyte_encoding.xml"], 1,
        "divaeval: multibyte_encoding.xml:1: cannot decode the topic XML: multi-byte encodings "
        "are not supported",
    ),
    "malformed_xml": Case(
        ["cr_comment.run", "three_relevant.qrels", "--topics", "malformed.xml"], 1,
        "divaeval: malformed.xml:4: not well-formed topic XML: mismatched tag",
    ),
    "entity_bomb_xml": Case(
        ["cr_comment.run", "three_relevant.qrels", "--topics", "entity_bomb.xml"], 1,
        "divaeval: entity_bomb.xml:2: not well-formed topic XML: limit on input amplification "
        "factor (from DTD and entities) breached",
    ),
    # Conflicting subtopic types were resolved without a word. Within one file: an error.
    "qrels_type_conflict": Case(
        ["cr_comment.run", "qrels_type_conflict.qrels"], 1,
        "divaeval: qrels_type_conflict.qrels:3: conflicting intent types for topic 1 subtopic 1: "
        "nav here, inf at line 1",
    ),
    "xml_repeated_subtopic": Case(
        ["cr_comment.run", "three_relevant.qrels", "--topics", "xml_repeated_subtopic.xml"], 1,
        "divaeval: xml_repeated_subtopic.xml:3: conflicting types for topic 1 subtopic 1: nav "
        "here, inf at line 2",
    ),
    # Across files: a warning naming the winner. a, b both relevant to s1; EfP@2 counts a
    # navigational intent's first relevant document only: nav -> 1/2, inf -> 2/2.
    "qrels_beats_topics": Case(
        ["nav_first.run", "nav_typed.qrels", "--topics", "inf_typed.xml", "-m", "EfP@2"], 0,
        "divaeval: warning: inf_typed.xml:2: 1 subtopic type differs from nav_typed.qrels "
        "(e.g. topic 1 subtopic s1: inf here, nav in nav_typed.qrels); nav_typed.qrels wins "
        "(precedence: intent file, qrels, topics file)",
        {"EfP@2": 0.5},
    ),
    "intents_beat_qrels": Case(
        ["nav_first.run", "nav_typed.qrels", "--topics", "inf_typed.xml", "--intents",
         "inf_typed.intents", "-m", "EfP@2"], 0,
        "divaeval: warning: nav_typed.qrels:1: 1 subtopic type differs from inf_typed.intents "
        "(e.g. topic 1 subtopic s1: nav here, inf in inf_typed.intents); inf_typed.intents wins "
        "(precedence: intent file, qrels, topics file)",
        {"EfP@2": 1.0},
    ),
    "nul_byte": Case(
        ["nul.run", "three_relevant.qrels"], 1,
        "divaeval: nul.run: run file looks binary (NUL byte), not text",
    ),
    "corrupt_gzip": Case(
        ["corrupt.run.gz", "three_relevant.qrels"], 1,
        "divaeval: corrupt.run.gz: corrupt gzip data in run file: Compressed file ended before "
        "the end-of-stream marker was reached",
    ),
    # -- issue 22: bounded work on any input --------------------------------------------------
    # A gzip bomb of one endless line (17 MiB of 'a' in 17 KB) read 1 GiB into memory: a line
    # over 16 MiB is an error as soon as 16 MiB of it are read.
    "endless_line": Case(
        ["endless_line.run.gz", "three_relevant.qrels"], 1,
        "divaeval: endless_line.run.gz:1: line longer than 16 MiB (no TREC file has one)",
    ),
    # 32 MiB of blank lines before the run's and the qrels' lines (32 KB gzipped) took a Python
    # step per line: a, b, c relevant to subtopic 1, ranked 1-3 -> P-IA@3 = 3/3
    "blank_lines": Case(["blank_lines.run.gz", "blank_lines.qrels.gz", "-m", "P-IA@3"], 0, None,
                        {"P-IA@3": 1.0}),
    "comment_lines": Case(["comment_lines.run.gz", "three_relevant.qrels", "-m", "P-IA@3"], 0,
                          None, {"P-IA@3": 1.0}),
    # 8M lines of two spaces before two intents of 0.5: a (subtopic 1), b (2) ranked 1, 2 ->
    # P-IA@2 = .5·(1/2) + .5·(1/2)
    "blank_intents": Case(
        ["cr_comment.run", "two_subtopics.qrels", "--intents", "blank_lines.intents.gz", "-m",
         "P-IA@2"], 0, None, {"P-IA@2": 0.5},
    ),
    # A topic and a subtopic id that are not UTF-8 (1\xff, s\xfe1) exited 3 with --intents or
    # --topics (pandas handed them to pyarrow). a is relevant to s\xfe1 (probability .75), b to
    # 2 (.25); the run ranks b first. D-nDCG@1 = GG(b) / GG(a) = .25 / .75; with uniform
    # weights (the topics file types another topic): .5 / .5.
    "non_utf8_intents": Case(
        ["non_utf8.run", "non_utf8.qrels", "--intents", "non_utf8.intents", "-m", "D-nDCG@1"], 0,
        None, {"D-nDCG@1": 1 / 3},
    ),
    "non_utf8_topics": Case(
        ["non_utf8.run", "non_utf8.qrels", "--topics", "bom.xml", "-m", "D-nDCG@1"], 0, None,
        {"D-nDCG@1": 1.0},
    ),
}  # fmt: skip

_LOCATED = re.compile(r"^divaeval: (warning: )?[^:\s]+(:\d+)?: ")


@pytest.mark.parametrize("name", list(CASES))
def test_regression(name, capsys, monkeypatch):
    case = CASES[name]
    monkeypatch.chdir(CORPUS)
    capsys.readouterr()
    before = _contents()
    code = main([*case.args, "-f", "tsv"])
    out, err = capsys.readouterr()
    assert _contents() == before  # no input written, none added or removed
    assert code == case.code, err
    lines = err.splitlines()
    if case.first_line is None:
        assert err == ""
    else:
        assert lines[0] == case.first_line
        assert _LOCATED.match(lines[0])
        assert len(lines[0]) < 300  # never the whole offending line
    if code:
        assert out == "" and len(lines) == 1
    values = {row.split("\t")[2]: float(row.split("\t")[3]) for row in out.splitlines()[1:]}
    assert values == case.values


def _contents() -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(CORPUS.iterdir()) if path.is_file()}


def test_every_corpus_file_is_used():
    used = {arg for case in CASES.values() for arg in case.args}
    assert {path.name for path in CORPUS.iterdir() if path.is_file()} <= used


def test_located_errors_name_file_and_line():
    # where a line applies, the first stderr line is `divaeval: FILE:LINE: `
    for name in ("rank_overflow", "score_overflow", "long_bad_score", "unknown_encoding",
                 "malformed_xml", "qrels_type_conflict", "xml_repeated_subtopic"):  # fmt: skip
        assert re.match(r"^divaeval: [^:\s]+:\d+: ", CASES[name].first_line), name
