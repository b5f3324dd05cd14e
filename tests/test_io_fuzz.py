"""Property-based fuzzing of the four readers (runs, qrels, intent files, topics XML).

1. Random well-formed files parse to exactly the records they were written from, and rewrites
   that must not change the result (whitespace, ``\\n``/``\\r\\n``/``\\r`` line ends, comment and
   blank lines, extra run columns, other spellings of the same number, gzip, shuffled lines, a
   byte-order mark; for XML: layout, comments, attribute order, shuffled topics) give identical
   parsed results.
2. Random byte and line mutations of such files end in a parsed result or a
   :class:`~divaeval.errors.DivaevalError` (DataError/UsageError), never another exception;
   mutated run + qrels pairs through the whole CLI (default ``--order score``) exit 0, 1 or 2,
   never 3.

Each property runs a bounded number of examples (the whole file takes a few seconds);
``DIVAEVAL_EXAMPLES=F`` runs F times as many (e.g. 500 for a long session; ``support.examples``).
"""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support import examples

from divaeval.cli import main
from divaeval.errors import DivaevalError
from divaeval.io import read_intents, read_qrels, read_run, read_topic_types
from divaeval.io._words import LONG_TOKEN_BYTES


def fuzz_settings(default: int):
    return settings(
        max_examples=examples(default),
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,  # capsys: read out for every example
        ],
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# divaeval's warnings are collected, not printed (conftest.py)
pytestmark = pytest.mark.usefixtures("collected_warnings")


# ---------------------------------------------------------------------------------------------
# random well-formed records

# token bytes: no whitespace, no NUL; '#' and non-ASCII bytes allowed (a '#' inside a field is
# data), but no 0xEF (a field starting the file must not look like a byte-order mark)
_ALPHABET = bytes(sorted(set(range(33, 127)) | {0xC3, 0xA9, 0xFF}))
_TOKEN = st.binary(min_size=1, max_size=12).map(
    lambda raw: bytes(_ALPHABET[b % len(_ALPHABET)] for b in raw)
)
_LEADING = _TOKEN.map(lambda t: b"x" + t if t[:1] == b"#" else t)  # first field: not a comment
_LONG = _TOKEN.map(lambda t: (t * (LONG_TOKEN_BYTES // len(t) + 2))[: LONG_TOKEN_BYTES + 40])
_DOCNO = st.one_of(_TOKEN, _TOKEN, _TOKEN, _LONG)
_TOPIC = st.one_of(st.integers(0, 30).map(lambda v: str(v).encode()), _LEADING)


@st.composite
def run_records(draw):
    """(topic, docno, rank, score, tag) lines; docnos distinct within a topic."""
    tag = draw(_TOKEN)
    rows = draw(
        st.lists(
            st.tuples(_TOPIC, _DOCNO, st.integers(-(2**63), 2**63 - 1), st.floats(-1e300, 1e300)),
            min_size=1,
            max_size=25,
            unique_by=lambda r: (r[0], r[1]),
        )
    )
    return [(t, d, str(r).encode(), s, tag) for t, d, r, s in rows]


@st.composite
def qrels_records(draw):
    """(topic, subtopic, docno, grade, type) lines; one type per subtopic."""
    rows = draw(
        st.lists(
            st.tuples(_TOPIC, _TOKEN, _DOCNO, st.integers(-2, 4)),
            min_size=1,
            max_size=25,
            unique_by=lambda r: (r[0], r[1], r[2]),
        )
    )
    types = {}
    out = []
    for topic, subtopic, docno, grade in rows:
        kind = types.setdefault((topic, subtopic), draw(st.sampled_from([b"", b"inf", b"nav"])))
        out.append((topic, subtopic, docno, grade, kind if draw(st.booleans()) else b""))
    return out


@st.composite
def intent_records(draw):
    rows = draw(
        st.lists(
            st.tuples(_TOPIC, _TOKEN, st.floats(0, 1), st.sampled_from([b"", b"inf", b"nav"])),
            min_size=1,
            max_size=15,
            unique_by=lambda r: (r[0], r[1]),
        )
    )
    return rows


_XML_NAME = st.text("abcdefghijklmnopqrstuvwxyz0123456789-_.é", min_size=1, max_size=8)


@st.composite
def topic_records(draw):
    """{topic: [(subtopic, type)]} with distinct subtopics."""
    topics = draw(st.lists(_XML_NAME, min_size=1, max_size=5, unique=True))
    return {
        topic: draw(
            st.lists(
                st.tuples(_XML_NAME, st.sampled_from(["", "inf", "nav"])),
                min_size=1,
                max_size=5,
                unique_by=lambda s: s[0],
            )
        )
        for topic in topics
    }


# ---------------------------------------------------------------------------------------------
# writing them, in the plain way and in rewrites that keep their meaning


class Style:
    """A random but meaning-preserving way of writing lines (drawn once per file)."""

    def __init__(self, rng: random.Random, plain: bool = False):
        self.rng = rng
        self.plain = plain

    def sep(self) -> bytes:
        if self.plain:
            return b" "
        return self.rng.choice([b" ", b"\t", b"  ", b" \t ", b"\x0b", b"\x0c"])

    def end(self) -> bytes:
        return b"\n" if self.plain else self.rng.choice([b"\n", b"\r\n", b"\r", b" \n", b"\t\r"])

    def line(self, fields: list[bytes]) -> bytes:
        lead = b"" if self.plain or self.rng.random() < 0.7 else self.sep()
        out = lead + fields[0]
        for field in fields[1:]:
            out += self.sep() + field
        return out + self.end()

    def extras(self) -> bytes:
        """Comment and blank lines (none when plain)."""
        if self.plain or self.rng.random() < 0.6:
            return b""
        return self.rng.choice(
            [b"# a comment" + self.end(), self.end(), b"   #x y z" + self.end(), b"#" + self.end()]
        )

    def number(self, value: float) -> bytes:
        if self.plain:
            return repr(value).encode()
        return self.rng.choice([repr(value), f"{value:.17e}", f"{value:+.17g}"]).encode()

    def integer(self, value: int) -> bytes:
        if self.plain or value < 0:
            return str(value).encode()
        return self.rng.choice([str(value), f"+{value}", f"0{value}", f"{value}.0"]).encode()


def finish(lines: list[bytes], style: Style, shuffle: bool) -> bytes:
    rng = style.rng
    if shuffle:
        rng.shuffle(lines)
    data = b"".join(style.extras() + line for line in lines) + style.extras()
    if not style.plain:
        if rng.random() < 0.3:
            data = b"\xef\xbb\xbf" + data
        if rng.random() < 0.3 and data.endswith(b"\n"):
            data = data.rstrip(b"\n")  # no final line end
        if rng.random() < 0.3:
            data = gzip.compress(data)
    return data


def write_run(records, style: Style, shuffle: bool = False) -> bytes:
    lines = []
    for topic, docno, rank, score, tag in records:
        fields = [topic, b"Q0", docno, rank, style.number(score), tag]
        if not style.plain and style.rng.random() < 0.2:
            fields += [b"extra", b"columns"]  # ignored after the sixth, as by trec_eval
        lines.append(style.line(fields))
    return finish(lines, style, shuffle)


def write_qrels(records, style: Style, shuffle: bool = False) -> bytes:
    lines = []
    for topic, subtopic, docno, grade, kind in records:
        fields = [topic, subtopic, docno, style.integer(grade)] + ([kind] if kind else [])
        lines.append(style.line(fields))
    return finish(lines, style, shuffle)


def write_intents(records, style: Style, shuffle: bool = False) -> bytes:
    lines = []
    for topic, subtopic, probability, kind in records:
        fields = [topic, subtopic, style.number(probability)] + ([kind] if kind else [])
        lines.append(style.line(fields))
    return finish(lines, style, shuffle)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def write_topics(records, style: Style, shuffle: bool = False) -> bytes:
    rng = style.rng
    nl = "\n" if style.plain else rng.choice(["\n", "\r\n", "\r", "\n\n  "])
    topics = list(records.items())
    if shuffle:
        rng.shuffle(topics)
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', "<webtrack>"]
    for topic, subtopics in topics:
        parts.append(f'<topic number="{_attr(topic)}" type="faceted">')
        if not style.plain and rng.random() < 0.5:
            parts.append("<!-- a comment --><query>q &amp; r</query>")
        for number, kind in subtopics:
            attributes = [f'number="{_attr(number)}"'] + ([f'type="{kind}"'] if kind else [])
            if not style.plain and rng.random() < 0.5:
                attributes.reverse()
                attributes[0] = " " + attributes[0].replace("=", " = ")
            parts.append(f"<subtopic {' '.join(attributes)}>text</subtopic>")
        parts.append("</topic>")
    parts.append("</webtrack>")
    data = nl.join(parts).encode()
    if not style.plain and rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data
    if not style.plain and rng.random() < 0.3:
        data = gzip.compress(data)
    return data


# ---------------------------------------------------------------------------------------------
# parsed results, comparable


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def parsed_run(path: str):
    run = read_run(path)
    frame = run.frame
    rows = list(zip(frame["topic"], frame["docno"], frame["rank"], frame["score"], strict=True))
    return run.tag, sorted(rows)


def parsed_qrels(path: str):
    frame = read_qrels(path).frame
    columns = (frame[c] for c in ("topic", "subtopic", "docno", "grade", "type"))
    return sorted(zip(*columns, strict=True))


def parsed_intents(path: str):
    frame = read_intents(path).frame
    columns = (frame[c] for c in ("topic", "subtopic", "probability", "type"))
    return sorted(zip(*columns, strict=True))


def parsed_topics(path: str):
    frame = read_topic_types(path)
    return sorted(zip(frame["topic"], frame["subtopic"], frame["type"], strict=True))


def expected_run(records):
    return _text(records[0][4]), sorted(
        (_text(t), _text(d), _text(r), s) for t, d, r, s, _ in records
    )


def expected_qrels(records):
    return sorted((_text(t), _text(s), _text(d), g, _text(k)) for t, s, d, g, k in records)


def expected_intents(records):
    return sorted((_text(t), _text(s), p, _text(k)) for t, s, p, k in records)


def expected_topics(records):
    return sorted((t, s, k) for t, subs in records.items() for s, k in subs)


FORMATS = {
    "run": (run_records(), write_run, parsed_run, expected_run),
    "qrels": (qrels_records(), write_qrels, parsed_qrels, expected_qrels),
    "intents": (intent_records(), write_intents, parsed_intents, expected_intents),
    "topics": (topic_records(), write_topics, parsed_topics, expected_topics),
}


@pytest.mark.parametrize("kind", list(FORMATS))
@fuzz_settings(25)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_rewrites_keep_the_parsed_result(workdir, kind, data, seed):
    records_strategy, write, parse, expected = FORMATS[kind]
    records = data.draw(records_strategy)
    path = workdir / f"plain.{kind}"
    path.write_bytes(write(records, Style(random.Random(seed), plain=True)))
    result = parse(str(path))
    assert result == expected(records)
    rng = random.Random(seed)
    for shuffle in (False, True):
        path.write_bytes(write(records, Style(rng), shuffle=shuffle))
        assert parse(str(path)) == result


# ---------------------------------------------------------------------------------------------
# mutations: a result or a DivaevalError, nothing else

_SPECIAL = [
    b"\x00",
    b"\xef\xbb\xbf",
    b"\r",
    b"\n",
    b"#",
    b" ",
    b"\t",
    b"1e999",
    b"nan",
    b"-inf",
    b"99999999999999999999",
    b"-",
    b"L1",
    b"nav",
    b"inf",
    b"\xff",
    b"<",
    b">",
    b'"',
    b"&",
    b"<topic>",
    b"<subtopic number='1'/>",
    b"]]>",
    b"<!--",
    b"0x1",
    b"1_0",
    b"+",
    b'<?xml version="1.0" encoding="foo"?>',
    b"x" * (LONG_TOKEN_BYTES + 3),
]

_MUTATION = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.binary(min_size=1, max_size=3)),
    st.tuples(st.just("special"), st.integers(0, 10**6), st.sampled_from(_SPECIAL)),
    st.tuples(st.just("delete"), st.integers(0, 10**6), st.integers(1, 8)),
    st.tuples(st.just("replace"), st.integers(0, 10**6), st.integers(0, 255)),
    st.tuples(st.just("dup_line"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("drop_line"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("swap_lines"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.integers(0, 1)),
)


def mutate(data: bytes, mutations) -> bytes:
    for op, a, b in mutations:
        at = a % (len(data) + 1)
        if op == "insert" or op == "special":
            data = data[:at] + b + data[at:]
        elif op == "delete":
            data = data[:at] + data[at + b :]
        elif op == "replace" and data:
            at = a % len(data)
            data = data[:at] + bytes([b]) + data[at + 1 :]
        elif op == "truncate":
            data = data[:at]
        elif op in ("dup_line", "drop_line", "swap_lines"):
            lines = data.splitlines(keepends=True)
            if not lines:
                continue
            i, j = a % len(lines), b % len(lines)
            if op == "dup_line":
                lines.insert(j, lines[i])
            elif op == "drop_line":
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            data = b"".join(lines)
    return data


def _parses_or_refuses(parse, path: str) -> None:
    """``parse(path)`` gives a result or a DivaevalError (its class of message an event, which
    ``--hypothesis-show-statistics`` counts), never another exception."""
    try:
        parse(path)
    except DivaevalError as error:
        event(f"{type(error).__name__}: {_message_class(str(error))}")
    else:
        event("parsed")


def _message_class(message: str) -> str:
    """A message without its file, line, ids and quoted values: its class."""
    message = re.sub(r"^/\S*?(:\d+)?: ", "", message)  # (the file is an absolute path)
    message = re.sub(r"\b(topic|subtopic|docno|intent) \S+", r"\1 _", message)
    message = re.sub(r"'[^']*'(?: \(\d+ characters\))?|\d+", "_", message)
    return message[:90]


@pytest.mark.parametrize("kind", list(FORMATS))
@fuzz_settings(50)
@given(
    data=st.data(),
    mutations=st.lists(_MUTATION, min_size=1, max_size=4),
    packed=st.booleans(),
)
def test_mutations_parse_or_fail_cleanly(workdir, kind, data, mutations, packed):
    records_strategy, write, parse, _ = FORMATS[kind]
    records = data.draw(records_strategy)
    raw = mutate(write(records, Style(random.Random(0), plain=True)), mutations)
    if packed:
        raw = gzip.compress(raw)[: None if data.draw(st.booleans()) else -3]  # maybe cut short
    path = workdir / f"mutated.{kind}"
    path.write_bytes(raw)
    _parses_or_refuses(parse, str(path))


@fuzz_settings(25)
@given(
    run=run_records(),
    qrels=qrels_records(),
    run_mutations=st.lists(_MUTATION, max_size=2),
    qrels_mutations=st.lists(_MUTATION, max_size=2),
    share=st.booleans(),
)
def test_cli_on_mutated_inputs_exits_0_1_or_2(
    workdir, capsys, run, qrels, run_mutations, qrels_mutations, share
):
    if share:  # give the run the qrels' topics and docnos, so that evaluation happens
        run = [(q[0], q[2], r[2], r[3], r[4]) for q, r in zip(qrels, run, strict=False)] or run
        run = list({(r[0], r[1]): r for r in run}.values())
    (workdir / "cli.run").write_bytes(
        mutate(write_run(run, Style(None, plain=True)), run_mutations)
    )
    plain_qrels = write_qrels(qrels, Style(None, plain=True))
    (workdir / "cli.qrels").write_bytes(mutate(plain_qrels, qrels_mutations))
    capsys.readouterr()
    # jsonl: its writer escapes undecodable bytes; the text formats print them as they are,
    # which a strict-UTF-8 stdout (not the C.UTF-8 locale) refuses: a CLI matter, reported
    args = [str(workdir / "cli.run"), str(workdir / "cli.qrels"), "-q", "-f", "jsonl"]
    code = main([*args, "-m", "ndeval", "-m", "EfP@5"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), err
    event(f"exit {code}")
    assert "Traceback" not in err and "internal error" not in err
    if code:
        assert err.startswith("divaeval: ") and out == ""
