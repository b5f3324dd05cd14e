"""Scoring a run block by block of whole topics, in bounded memory, on any :mod:`workers
<divaeval.parallel>`.

A run file is read in blocks of whole topics (:func:`divaeval.io.runs.run_blocks`); each
block is parsed, judged and scored on its own (:func:`score_block`), and only its per-topic
values are kept. Peak memory is thus one block's worth of parsing and judging per worker (about
``--chunk-size`` × 10) plus the qrels index and the per-topic values, whatever the size of the
run. Every topic is judged and scored exactly as when the whole run is read at once (no metric
looks across topics), and the per-topic values are put in the same order (qrels topic order), so
per-topic values and means are identical, bit for bit.

This needs the run's lines grouped by topic, as every TREC run is. A topic met again in a later
block means they are not: a run file is then read again whole, with a note (memory then follows
the file; ``sort -s -k1,1`` groups a run); a run on stdin cannot be read again, so that is an
error. A run smaller than a block (the default block is 4 MiB of text, about 100,000 lines) is
read whole anyway.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from divaeval.errors import DataError, activity, warn
from divaeval.io import Run, read_run
from divaeval.io._text import (
    GZIP_MAGIC,
    UTF8_BOM,
    binary_file,
    is_url,
    normalize_line_ends,
    open_binary,
    read_once,
)
from divaeval.io.blocks import DEFAULT_BLOCK_BYTES, FileRange, file_size, open_plain, range_blocks
from divaeval.io.runs import run_blocks, too_few_columns
from divaeval.judged import QrelsIndex, judge_run, run_only_topics, topics_matched_as_numbers
from divaeval.metrics import compute_measures
from divaeval.parallel import InProcess, Workers
from divaeval.scores import RunScores
from divaeval.settings import Settings
from divaeval.topics import sort_topics


@dataclass(eq=False, repr=False)
class RunFile:
    """A run to be read from ``path`` block by block when it is scored (its tag, and so its
    name, is known from its first block: :attr:`RunScores.tag`)."""

    path: str


@dataclass(frozen=True, eq=False, repr=False)
class Scoring:
    """What every block is scored with (sent once to each worker)."""

    index: QrelsIndex
    measures: tuple
    settings: Settings  # with complete=False: a block scores its own topics


@dataclass(eq=False, repr=False)
class BlockScores:
    """The scores of one block: ``values[i, j]`` is measure j on qrels topic ``codes[i]``."""

    tag: str
    codes: np.ndarray  # [T] int64: qrels topic codes, ascending
    values: np.ndarray  # [T, M] float64
    topics: list[str]  # every topic of the block's lines (those the qrels lack too)
    topic_lines: list[int]  # the line where each of ``topics`` first appears
    run_only: list[str]  # topics of the block that the qrels do not judge
    dropped_duplicates: int
    #: ``run topic = qrels topic`` for topics matched only as ndeval's numbers (--compat ndeval)
    as_numbers: list[str] = field(default_factory=list)
    #: the FileRange the block was read from (its ``topic_lines`` count from its start)
    file_range: FileRange | None = None

    def line(self, number: int) -> int:
        """Line ``number`` of the block as a line of the file."""
        return number + (self.file_range.lines_before() if self.file_range else 0)


#: how much of a run file :func:`check_run_start` reads (and :func:`_worker_location`)
START_BYTES = 1 << 16


def check_run_start(path: str) -> None:
    """Check the first line of the run file ``path`` (its first content line within 64 KiB)
    for the six columns of a run, so that a file that is no run (the qrels given first, as
    trec_eval takes them) is reported before the qrels are read; the rest of the file is
    checked as its blocks are parsed. Plain Python on one line: parsing the start as a block
    costs 1 ms of numpy calls per run. stdin, a pipe or a device is not peeked at (it
    cannot be read twice: :func:`~divaeval.io._text.read_once`)."""
    if read_once(path):
        return
    with open_binary(path, what="run") as stream:
        start = stream.read(START_BYTES)
    if b"\0" in start:
        raise binary_file("run", path)
    cut_short = len(start) == START_BYTES  # (its last line may go on)
    text = normalize_line_ends(start.removeprefix(UTF8_BOM))
    # (a line at a time up to the first content line: not the ~1,300 lines of 64 KiB split)
    position, number = 0, 0
    while position < len(text):
        end = text.find(b"\n", position)
        if end < 0:
            if cut_short:
                return
            end = len(text)
        line, position, number = text[position:end], end + 1, number + 1
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue  # blank, or a comment line
        if len(fields) < 6:
            fifth = fields[4].decode("utf-8", "surrogateescape") if len(fields) > 4 else ""
            raise DataError(too_few_columns(len(fields), fifth, first=True), file=path, line=number)
        return


def score_block(scoring: Scoring, item: FileRange | Run) -> BlockScores:
    """Parse, judge and score one block of whole topics (read here for a :class:`FileRange`),
    or a run (or block) already read."""
    try:
        run = read_run(item.name, text=item.read()) if isinstance(item, FileRange) else item
        jr = judge_run(run, scoring.index, scoring.settings, warn_duplicates=False)
    except DataError as error:  # a line of a range: counted from the file's start
        if isinstance(item, FileRange) and error.file == item.name and error.line is not None:
            error.line += item.lines_before()
        raise
    matrix = np.zeros((jr.n_topics, len(scoring.measures)), dtype=np.float64)
    if jr.n_topics:  # a block may hold only topics the qrels lack
        values = compute_measures(jr, scoring.measures)
        for column, measure in enumerate(scoring.measures):
            matrix[:, column] = values[measure]
    return BlockScores(
        tag=run.tag,
        codes=np.asarray(jr.topic_codes, dtype=np.int64),
        values=matrix,
        topics=[str(t) for t in run.topics],
        topic_lines=_first_lines(run),
        run_only=run_only_topics(run, scoring.index, scoring.settings.compat),
        dropped_duplicates=jr.dropped_duplicates,
        as_numbers=topics_matched_as_numbers(run, scoring.index, scoring.settings.compat),
        file_range=item if isinstance(item, FileRange) else None,
    )


def _first_lines(run: Run) -> list[int]:
    """The line of the first row of each of ``run.topics``."""
    first_rows = np.full(len(run.topics), -1, dtype=np.int64)
    rows = np.arange(len(run.topic_codes), dtype=np.int64)[::-1]
    first_rows[run.topic_codes[::-1]] = rows  # the last write wins: the first row
    return run.source.lines_of(first_rows).tolist()


def _blocks_of(run: RunFile | Run, block_bytes: int, workers: Workers) -> Iterator[FileRange | Run]:
    """The blocks of a run, for workers that can open the file themselves (see
    :func:`_worker_location`): a file of one block's worth of text (gzip counted
    :data:`GZIP_RATIO` times its size) is one :class:`FileRange` of its bytes as they are,
    decompressed where it is scored; a larger plain file with ``\\n`` line ends is cut into
    ranges of whole topics; so this process only hands out tasks. Otherwise (a large gzip
    file, ``\\r`` line ends, stdin, or workers in this process) the blocks are read here
    (:func:`~divaeval.io.runs.run_blocks`)."""
    if isinstance(run, Run):
        yield run
        return
    found = _worker_location(run.path, workers)
    if found is not None:
        location, start, size = found
        gzipped = start[:2] == GZIP_MAGIC
        if 0 < size * (GZIP_RATIO if gzipped else 1) <= block_bytes:
            yield FileRange(run.path, location, 0, size)
            return
        if size and not gzipped and b"\r" not in start:  # (an empty file: its error below)
            yield from range_blocks(run.path, location, block_bytes=block_bytes)
            return
    blocks = run_blocks(run.path, block_bytes=block_bytes)
    while True:
        with activity(f"reading the run {run.path}"):
            block = next(blocks, None)
        if block is None:
            return
        yield block


def _worker_location(path: str, workers: Workers) -> tuple[str, bytes, int] | None:
    """(where workers open the run ``path``, its first 64 KiB, its size in bytes), or None:
    they run in this process (reading blocks here is as fast) or cannot open it (stdin,
    ``memory://``, or a local file and a remote cluster)."""
    url = is_url(path)
    if (
        read_once(path)  # stdin, or a pipe such as <(zcat run.gz): read here, once
        or workers.locality == "in process"
        or (workers.locality == "other machines" and not url)
        or path.startswith("memory:")  # fsspec's memory: each process has its own
    ):
        return None
    location = path if url else os.path.abspath(path)
    try:
        with open_plain(location, path) as stream:
            start = stream.read(START_BYTES)
        return location, start, file_size(location)
    except DataError:
        return None  # told when the file is read the usual way


def prepare_scoring(scoring: Scoring) -> None:
    """Build, once, what scoring any block reuses from the qrels index: the measures' values
    of an empty ranking on every qrels topic fill the caches of the index's whole material
    (the greedy ideal rankings of alpha-nDCG and the intent-aware metrics, relevant counts),
    which a block's material takes its rows from. Called before the workers start (forked
    workers inherit the caches; in process, the first block builds them)."""
    index = scoring.index
    settings = dataclasses.replace(scoring.settings, complete=True)
    every = np.arange(len(index.topics), dtype=np.int64)
    if len(every):
        compute_measures(
            judge_run(Run.empty("", ""), index, settings, topics=every), scoring.measures
        )


#: how many bytes of text a byte of a gzipped run is taken to hold, for :func:`planned_work`
GZIP_RATIO = 4
#: bytes of text per line of a run already read, for :func:`planned_work`
LINE_BYTES = 50


def text_bytes(run: str | RunFile | Run) -> int:
    """The bytes of text of a run, estimated without reading it: a local file's size (gzip:
    times :data:`GZIP_RATIO`); a run already read, its lines times :data:`LINE_BYTES`; stdin
    and URLs count 0."""
    if isinstance(run, Run):
        return len(run) * LINE_BYTES
    path = run.path if isinstance(run, RunFile) else run
    if path == "-" or not os.path.isfile(path):
        return 0
    size = os.path.getsize(path)
    with open(path, "rb") as stream:
        return size * GZIP_RATIO if stream.read(2) == GZIP_MAGIC else size


def planned_work(runs: Sequence[str | RunFile | Run], block_bytes: int | None = None):
    """(bytes of run text, blocks) that scoring ``runs`` takes, estimated without reading
    them (:func:`text_bytes`; for ``--jobs auto``); a run of 0 bytes is one block."""
    block_bytes = block_bytes or DEFAULT_BLOCK_BYTES
    sizes = [text_bytes(run) for run in runs]
    return sum(sizes), sum(max(1, -(-size // block_bytes)) for size in sizes)


def scoring_order(runs: Sequence[str | RunFile | Run], workers: Workers) -> list[int]:
    """The order in which runs are handed to ``workers``: on parallel workers, the largest
    (:func:`text_bytes`) first, ties in the given order, so that the longest tasks start first
    and the last to start are short ("longest processing time first"; 9 TREC 2012 runs of
    0.4 to 2.6 MB on 2 workers: no worker is left alone with a 2.6 MB run at the end); in
    this process, the given order. Results keep the runs' order either way."""
    if workers.locality == "in process":
        return list(range(len(runs)))
    sizes = [text_bytes(run) for run in runs]
    return sorted(range(len(runs)), key=lambda number: -sizes[number])


def _score_run_block(scoring: Scoring, item: tuple[int, FileRange | Run]):
    number, block = item
    name = block.path if isinstance(block, Run) else block.name
    with activity(f"scoring the run {name}"):
        return number, score_block(scoring, block)


def score_runs(
    runs: Sequence[RunFile | Run],
    index: QrelsIndex,
    measures: Sequence,
    settings: Settings,
    *,
    workers: Workers | None = None,
    block_bytes: int | None = None,
) -> list[RunScores]:
    """The per-topic values of every run on ``measures`` (in qrels topic order), read and
    scored block by block on ``workers``: the blocks of all runs form one stream of tasks, so
    workers are busy across runs as within one. Warns about dropped duplicates and runs not
    grouped by topic; the caller warns about topics a run or the qrels lack
    (``run_only_topics``, ``missing_topics``), once runs are named."""
    workers = workers or InProcess()
    block_bytes = block_bytes or DEFAULT_BLOCK_BYTES
    scoring = Scoring(index, tuple(measures), dataclasses.replace(settings, complete=False))
    blocks: list[list[BlockScores]] = [[] for _ in runs]
    seen: list[set[str]] = [set() for _ in runs]
    ungrouped: dict[int, tuple[str, int]] = {}  # run number -> (topic, line)

    def tasks():
        for number in scoring_order(runs, workers):
            for block in _blocks_of(runs[number], block_bytes, workers):
                if number in ungrouped:
                    break  # read again whole, below
                yield number, block

    for number, result in workers.map(_score_run_block, tasks(), scoring, prepare=prepare_scoring):
        if number in ungrouped:
            continue
        again = [i for i, topic in enumerate(result.topics) if topic in seen[number]]
        if again:
            first = min(again, key=lambda i: result.topic_lines[i])
            ungrouped[number] = (result.topics[first], result.line(result.topic_lines[first]))
            _not_grouped(runs[number].path, *ungrouped[number])
            continue
        seen[number].update(result.topics)
        blocks[number].append(result)
    if ungrouped:
        whole = [(n, read_run(runs[n].path)) for n in ungrouped]
        for number, result in workers.map(
            _score_run_block, whole, scoring, prepare=prepare_scoring
        ):
            blocks[number] = [result]
    return [
        _assemble(run, run_blocks, index, measures, settings)
        for run, run_blocks in zip(runs, blocks, strict=True)
    ]


def _not_grouped(path: str, topic: str, line: int) -> None:
    """A topic came back in a later block: re-read a file whole (with a note); stdin or a
    pipe cannot be read again."""
    if read_once(path):
        source = "stdin" if path == "-" else "a pipe"
        raise DataError(
            f"topic {topic} appears again after other topics: a run read from {source} in "
            "blocks must be grouped by topic (sort -s -k1,1 groups it, or give the file, or "
            "a larger --chunk-size)",
            file="<stdin>" if path == "-" else path,
            line=line,
        )
    warn(
        f"the run is not grouped by topic (topic {topic} appears again at line {line}): "
        "reading it whole, so memory follows the file (sort -s -k1,1 groups it)",
        file=path,
    )


def _assemble(run, blocks: list[BlockScores], index, measures, settings) -> RunScores:
    """One RunScores from the blocks' scores: topics in qrels order, as one judged run has."""
    tag = blocks[0].tag if blocks else ""
    name = run.name if isinstance(run, Run) else tag
    dropped = sum(b.dropped_duplicates for b in blocks)
    if dropped:
        warn(f"{dropped} repeated docnos dropped (kept the highest-ranked copy)", file=run.path)
    as_numbers = sort_topics({pair for b in blocks for pair in b.as_numbers})
    if as_numbers:
        warn(
            f"{len(as_numbers)} topic ids match the qrels as numbers, as ndeval reads them "
            f"(e.g. {', '.join(as_numbers[:3])})",
            file=run.path,
        )
    codes = np.concatenate([b.codes for b in blocks]) if blocks else np.zeros(0, np.int64)
    values = (
        np.concatenate([b.values for b in blocks])
        if blocks
        else np.zeros((0, len(measures)), np.float64)
    )
    has_scores = np.zeros(len(index.topics), dtype=bool)
    has_scores[codes] = True
    lacking = np.flatnonzero(~has_scores)  # (not np.setdiff1d: its np.unique imports numpy.ma)
    missing = [str(t) for t in index.topics[lacking]]
    if settings.complete and len(lacking):  # -c: the topics the run lacks, as empty rankings
        empty = judge_run(Run.empty(run.path, tag), index, settings, topics=lacking)
        scored = compute_measures(empty, measures)
        codes = np.concatenate([codes, lacking])
        values = np.concatenate([values, np.column_stack([scored[m] for m in measures])])
    order = np.argsort(codes, kind="stable")
    codes, values = codes[order], values[order]
    run_only = sort_topics({t for b in blocks for t in b.run_only})
    return RunScores(
        name=name,
        path=run.path,
        topics=index.topics[codes],
        values={m: values[:, j].copy() for j, m in enumerate(measures)},
        run_only_topics=run_only,
        missing_topics=missing,
        tag=tag,
    )
