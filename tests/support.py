"""Helpers shared by the tests: fixture paths, the TREC 2012 oracle runs, oracle readers,
judged rankings from inline qrels/run text, and metric values by display name. (The shared
pytest fixtures, such as ``collected_warnings``, are in ``conftest.py``.)

Runs are written ``topic docno`` per line in ranking order (file order); they are turned into
TREC lines with strictly decreasing scores, so every ordering rule gives the same ranking.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from divaeval.io import read_intents, read_qrels, read_run
from divaeval.judged import (
    JudgedRankings,
    QrelsIndex,
    judge_run,
    judge_texts,
    trec_run_text,
)
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings

#: Multiplies every hypothesis property's number of examples: the counts written in the tests
#: keep ``make test`` within its two minutes; ``DIVAEVAL_EXAMPLES=50`` searches 50 times deeper
#: (a long session, or a nightly job).
EXAMPLES_FACTOR = float(os.environ.get("DIVAEVAL_EXAMPLES", "1"))


def examples(count: int) -> int:
    """The hypothesis ``max_examples`` of a property whose suite budget is ``count``."""
    return max(1, round(count * EXAMPLES_FACTOR))


ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLE_DATA = ROOT / "sample_data"
TREC2012 = FIXTURES / "trec2012"
#: The nine TREC 2012 runs of the oracles (ORACLES-README §9.1): name -> file in TREC2012. The
#: eight baselines carry the tag "indri"; dssa-wt2012 has CRLF line endings.
TREC2012_RUNS = {
    name: TREC2012 / f"{name}.txt.gz"
    for name in (
        "ql-cata-filtered",
        "ql-cata",
        "ql-catb-filtered",
        "ql-catb",
        "rm-cata-filtered",
        "rm-cata",
        "rm-catb-filtered",
        "rm-catb",
        "dssa-wt2012",
    )
}
#: The eight official baselines (without dssa-wt2012).
TREC2012_BASELINES = [name for name in TREC2012_RUNS if name != "dssa-wt2012"]


def judge_text(
    qrels: str,
    run_pairs: Sequence[tuple[str, str]] | str,
    intents: str | None = None,
    **settings,
) -> JudgedRankings:
    """Judge a run given as (topic, docno) pairs (or ``topic docno`` lines) against qrels text
    (``topic subtopic docno grade`` lines), in memory."""
    if isinstance(run_pairs, str):
        run_pairs = [tuple(line.split()) for line in run_pairs.strip().splitlines()]
    settings.setdefault("complete", True)
    (jr,) = judge_texts(
        qrels, [trec_run_text(run_pairs)], intents=intents, settings=Settings(**settings)
    )
    return jr


def judge_files(qrels: Path, run: Path, intents: Path | None = None, **settings):
    index = QrelsIndex(
        read_qrels(str(qrels)),
        rel_level=settings.get("rel_level", 1),
        intents=read_intents(str(intents)) if intents else None,
    )
    return judge_run(read_run(str(run)), index, Settings(**settings))


def measure_values(jr: JudgedRankings, measures: Sequence[str]) -> dict[str, np.ndarray]:
    """Per-topic values (in ``jr.topics`` order), keyed by the text given when it names one
    measure, else by each measure's display name."""
    keyed: dict[str, object] = {}
    for text in measures:
        parsed = parse_measures([text])
        if len(parsed) == 1:
            keyed[text] = parsed[0]
        else:
            keyed.update({m.name: m for m in parsed})
    out = compute_measures(jr, list(dict.fromkeys(keyed.values())))
    return {key: out[measure] for key, measure in keyed.items()}


def by_topic(jr: JudgedRankings, values: np.ndarray) -> dict[str, float]:
    return {str(t): float(v) for t, v in zip(jr.topics, values, strict=True)}


def read_oracle(path: Path) -> dict[tuple[str, str, str], float]:
    """(run, topic, measure) -> value of an oracle TSV (gzipped or not)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    assert lines[0] == "run\ttopic\tmeasure\tvalue"
    out = {}
    for line in lines[1:]:
        run, topic, measure, value = line.split("\t")
        out[(run, topic, measure)] = float(value)
    return out


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """Run divaeval in-process: (exit code, stdout, stderr)."""
    from divaeval.cli import main

    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def same_bits(a, b) -> bool:
    """Bit-for-bit equality of nested results (dicts, lists, tuples, arrays; NaN equal to
    NaN): what every parallel path must give against the in-process one."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_bits(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    return a == b or (a != a and b != b)


def lines_of_topics(topic_sizes: list[int]) -> list[bytes]:
    """Run lines (no line ends): topic k (0, 1, ...) ranks ``topic_sizes[k]`` documents
    ``dock-i``, scores falling from 100."""
    return [
        f"{topic} Q0 doc{topic}-{i} {i + 1} {100 - i} tag".encode()
        for topic, size in enumerate(topic_sizes)
        for i in range(size)
    ]


def row_lines(fields) -> list[int]:
    """The line of each row of a tokenizer :class:`~divaeval.io._tokens.Fields`."""
    return [fields.lines.line_of(row) for row in range(fields.n_rows)]
