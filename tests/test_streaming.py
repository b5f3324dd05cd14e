"""Streaming evaluation (divaeval.streaming, divaeval.io.blocks): a run read and scored in blocks
of whole topics gives the same bits as the run read whole, in any block size, in worker
processes too; line numbers, line ends and odd files survive the cuts."""

from __future__ import annotations

import gzip
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import TREC2012, TREC2012_RUNS, examples, lines_of_topics, run_cli

from divaeval.errors import DataError
from divaeval.evaluation import run_evaluation
from divaeval.io import read_run
from divaeval.io._text import normalize_line_ends
from divaeval.io._words import decode
from divaeval.io.runs import Run, run_blocks
from divaeval.settings import Settings

QRELS_2012 = TREC2012 / "qrels-for-ndeval.txt.gz"
#: every registered metric (at its default cutoffs and at 5 and 20) and the parameterised ones
ALL_MEASURES = (
    "all",
    "all@5",
    "all@20",
    "INST(T=3)",
    "NERR8@10",
    "SDCG@10",
    "TSE-linear(m=10)",
    "metric-LR(m=10)",
)


def _values(evaluation) -> dict:
    return {
        (run.name, measure.name): run.values[measure]
        for run in evaluation.runs
        for measure in evaluation.measures
    }


def _assert_same_bits(whole, blocked) -> None:
    assert [r.name for r in whole.runs] == [r.name for r in blocked.runs]
    for run_w, run_b in zip(whole.runs, blocked.runs, strict=True):
        assert list(run_w.topics) == list(run_b.topics)
        assert run_w.missing_topics == run_b.missing_topics
        assert run_w.run_only_topics == run_b.run_only_topics
    a, b = _values(whole), _values(blocked)
    assert a.keys() == b.keys()
    differing = [key for key in a if not np.array_equal(a[key], b[key], equal_nan=True)]
    assert not differing, differing[:10]
    for run_w, run_b in zip(whole.runs, blocked.runs, strict=True):
        means_w, means_b = whole.means(run_w), blocked.means(run_b)
        assert all(
            means_w[m] == means_b[m] or (means_w[m] != means_w[m] and means_b[m] != means_b[m])
            for m in whole.measures
        )


def _measures_that_exist() -> list[str]:
    from divaeval.errors import UsageError
    from divaeval.metrics import parse_measures

    usable = []
    for name in ALL_MEASURES:
        try:
            parse_measures([name])
        except UsageError:
            continue
        usable.append(name)
    return usable


@pytest.fixture(scope="module")
def measures():
    return _measures_that_exist()


def test_2012_runs_in_blocks_score_the_same_bits(measures, collected_warnings):
    runs = [str(TREC2012_RUNS[name]) for name in ("rm-catb", "dssa-wt2012")]
    config = Settings(complete=True)
    whole = run_evaluation(runs, str(QRELS_2012), measures, settings=config)
    blocked = run_evaluation(
        runs, str(QRELS_2012), measures, settings=replace(config, chunk_size=300_000)
    )
    _assert_same_bits(whole, blocked)


def _varied_collection(tmp_path, seed: int = 7, topics: int = 12):
    """Rankings of 1 to 2,500 documents (arrays padded very differently per block), up to 12
    subtopics, negative grades, tied scores, and topics only the run or only the qrels has."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], [[], []]
    for topic in range(1, topics + 1):
        pool = int(rng.integers(5, 300))
        if topic != topics:  # the last topic is in no qrels
            for subtopic in range(1, int(rng.integers(1, 13)) + 1):
                for doc in rng.choice(pool, size=int(rng.integers(1, pool + 1)), replace=False):
                    grade = rng.choice([-2, 0, 1, 2, 3, 4], p=[0.05, 0.35, 0.3, 0.15, 0.1, 0.05])
                    qrels.append(f"{topic} {subtopic} D{doc} {grade}")
        for number, lines in enumerate(runs):
            if topic == 1 and number == 1:
                continue  # run r1 lacks topic 1
            length = int(rng.integers(1, 2500))
            docs = rng.choice(max(10 * pool, length), size=length, replace=False)
            scores = np.round(rng.random(length) * 30, 1)
            lines += [
                f"{topic} Q0 D{d} {k + 1} {s} r{number}"
                for k, (d, s) in enumerate(zip(docs, scores, strict=True))
            ]
    (tmp_path / "q.txt").write_text("\n".join(qrels) + "\n")
    paths = []
    for number, lines in enumerate(runs):
        path = tmp_path / f"r{number}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths, str(tmp_path / "q.txt")


def test_sorted_judgment_keys_join_as_the_direct_table(
    tmp_path, measures, monkeypatch, collected_warnings
):
    # collections too large for a direct (topic, docno) table search sorted judgment keys
    # (QrelsIndex.judged_rows): the same judged rankings, so the same bits
    import divaeval.judged.index

    runs, qrels = _varied_collection(tmp_path)
    config = Settings(complete=True)
    direct = run_evaluation(runs, qrels, measures, settings=config)
    monkeypatch.setattr(divaeval.judged.index, "DENSE_KEYS", 0)
    searched = run_evaluation(runs, qrels, measures, settings=config)
    assert searched.index.judged_row_of_key is None and searched.index.judged_keys is not None
    _assert_same_bits(direct, searched)


@pytest.mark.parametrize("chunk_bytes", [1, 20_000, 300_000])
def test_varied_rankings_score_the_same_bits_in_any_block_size(
    tmp_path, measures, chunk_bytes, collected_warnings
):
    runs, qrels = _varied_collection(tmp_path)
    config = Settings(complete=True)
    whole = run_evaluation(runs, qrels, measures, settings=config)
    blocked = run_evaluation(
        runs, qrels, measures, settings=replace(config, chunk_size=chunk_bytes)
    )
    _assert_same_bits(whole, blocked)


def test_worker_processes_score_the_same_bits(tmp_path, collected_warnings):
    runs, qrels = _varied_collection(tmp_path, seed=3, topics=8)
    measures = ["ndeval", "all@10"]
    whole = run_evaluation(runs, qrels, measures)
    parallel = run_evaluation(runs, qrels, measures, settings=Settings(chunk_size=30_000, jobs=2))
    _assert_same_bits(whole, parallel)


def test_risk_values_against_a_baseline_are_the_same_in_blocks(collected_warnings):
    runs = [str(TREC2012_RUNS[name]) for name in ("ql-cata", "dssa-wt2012")]
    baseline = str(TREC2012_RUNS["rm-cata"])
    whole = run_evaluation(runs, str(QRELS_2012), ["ndeval"], baseline=baseline)
    blocked = run_evaluation(
        runs,
        str(QRELS_2012),
        ["ndeval"],
        settings=Settings(chunk_size=50_000, jobs=2),
        baseline=baseline,
    )
    _assert_same_bits(whole, blocked)


# ---------------------------------------------------------------------------------------------
# the block reader


@settings(max_examples=examples(24), deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=8),
    end=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    extras=st.lists(st.sampled_from([b"", b"   ", b"# comment", b"  # another"]), max_size=4),
    positions=st.lists(st.integers(0, 60), max_size=4),
    block_bytes=st.integers(1, 200),
    trailing=st.booleans(),
    bom=st.booleans(),
)
def test_blocks_are_whole_topics_and_rejoin_to_the_file(
    tmp_path_factory, sizes, end, extras, positions, block_bytes, trailing, bom
):
    lines = lines_of_topics(sizes)
    for extra, at in zip(extras, positions, strict=False):
        lines.insert(min(at, len(lines)), extra)
    text = (b"\xef\xbb\xbf" if bom else b"") + end.join(lines) + (end if trailing else b"")
    path = tmp_path_factory.mktemp("blocks") / "run.txt"
    path.write_bytes(text)
    whole = read_run(str(path))
    blocks = list(run_blocks(str(path), block_bytes=block_bytes))
    # the blocks' rows, end to end, are the file's, on the file's lines, under its tag
    assert [row for block in blocks for row in _rows(block)] == _rows(whole)
    assert {block.tag for block in blocks} == {whole.tag}
    seen: set[str] = set()
    for block in blocks:
        topics = set(block.topics)
        assert not topics & seen  # a topic is never split between blocks
        seen |= topics


def _rows(run: Run) -> list[tuple]:
    """(line, topic, docno, rank, score) of every row of ``run``."""
    docnos = decode(run.doc_words)[run.doc_codes]
    ranks = decode(run.rank_words)
    return [
        (run.line_of(i), run.topics[run.topic_codes[i]], docnos[i], ranks[i], run.score[i])
        for i in range(len(run))
    ]


def test_an_error_in_a_later_block_names_its_line_in_the_file(tmp_path, capsys):
    lines = lines_of_topics([50] * 40)
    lines[1234] = b"17 Q0 doc 5 notanumber tag"
    run = tmp_path / "run.txt"
    run.write_bytes(b"\r\n".join(lines) + b"\r\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("17 1 doc 1\n")
    code, out, err = run_cli(capsys, run, qrels, "--chunk-size", "2K")
    assert code == 1 and out == ""
    assert err.strip() == f"divaeval: {run}:1235: score 'notanumber' is not a number"


def test_gzip_runs_and_a_topic_larger_than_a_block(tmp_path, collected_warnings):
    runs, qrels = _varied_collection(tmp_path, seed=11, topics=5)
    zipped = tmp_path / "r0.txt.gz"
    zipped.write_bytes(gzip.compress(Path(runs[0]).read_bytes()))
    whole = run_evaluation([runs[0]], qrels, ["alpha-nDCG@20", "AP"])
    blocked = run_evaluation(
        [str(zipped)], qrels, ["alpha-nDCG@20", "AP"], settings=Settings(chunk_size=64)
    )
    assert np.array_equal(
        list(whole.runs[0].values.values()), list(blocked.runs[0].values.values())
    )


def test_an_ungrouped_run_file_is_read_whole_with_a_note(tmp_path, collected_warnings):
    runs, qrels = _varied_collection(tmp_path, seed=5, topics=6)
    lines = Path(runs[0]).read_bytes().splitlines()
    shuffled = tmp_path / "shuffled.txt"
    order = np.random.default_rng(1).permutation(len(lines))
    shuffled.write_bytes(b"\n".join(lines[i] for i in order) + b"\n")
    whole = run_evaluation([str(shuffled)], qrels, ["ndeval"])
    collected_warnings.clear()
    blocked = run_evaluation(
        [str(shuffled)], qrels, ["ndeval"], settings=Settings(chunk_size=5_000)
    )
    assert any("not grouped by topic" in w for w in collected_warnings)
    _assert_same_bits(whole, blocked)


def test_an_ungrouped_run_on_stdin_is_an_error_with_its_line(tmp_path):
    runs, qrels = _varied_collection(tmp_path, seed=5, topics=6)
    lines = Path(runs[0]).read_bytes().splitlines()
    text = b"\n".join(lines[100:] + lines[:100]) + b"\n"  # topic 1 comes back at the end
    proc = subprocess.run(
        [sys.executable, "-m", "divaeval", "-", qrels, "--chunk-size", "4K"],
        input=text,
        capture_output=True,
    )
    assert proc.returncode == 1 and proc.stdout == b""
    line = len(lines) - 100 + 1
    assert proc.stderr.decode().startswith(f"divaeval: <stdin>:{line}: topic 1 appears again")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash's <(...)")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_runs_and_qrels_from_pipes_are_read_once(tmp_path, jobs):
    # <(cat run) is a pipe: a peek at its start (the run check, the workers' reading plan)
    # used to swallow it, and the run then had "no lines"
    runs, qrels = _varied_collection(tmp_path, seed=5, topics=6)
    base = [sys.executable, "-m", "divaeval", "-m", "ndeval", "-q", "-j", jobs]
    direct = subprocess.run([*base, runs[0], qrels], capture_output=True, timeout=60)
    assert direct.returncode == 0, direct.stderr
    piped = f"{shlex.join(base)} <(cat {runs[0]}) <(gzip -c {qrels}) --chunk-size 4K"
    proc = subprocess.run(["bash", "-c", piped], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-5:] == direct.stdout.splitlines()[-5:]  # (its name differs)
    # an ungrouped run in a pipe cannot be read again whole: an error with its line
    lines = Path(runs[0]).read_bytes().splitlines()
    (tmp_path / "ungrouped").write_bytes(b"\n".join(lines[100:] + lines[:100]) + b"\n")
    piped = f"{shlex.join(base)} <(cat {tmp_path / 'ungrouped'}) {qrels} --chunk-size 4K"
    proc = subprocess.run(["bash", "-c", piped], capture_output=True, timeout=60)
    assert proc.returncode == 1 and proc.stdout == b""
    message = proc.stderr.decode()
    assert re.match(rf"divaeval: /dev/fd/\d+:{len(lines) - 99}: topic 1 appears again", message)
    assert "a run read from a pipe in blocks must be grouped by topic" in message


def test_a_grouped_run_on_stdin_streams(tmp_path):
    runs, qrels = _varied_collection(tmp_path, seed=5, topics=6)
    args = [sys.executable, "-m", "divaeval", qrels, "-m", "ndeval", "-q"]
    whole = subprocess.run([*args[:3], runs[0], *args[3:]], capture_output=True, check=True)
    streamed = subprocess.run(
        [*args[:3], "-", *args[3:], "--chunk-size", "4K"],
        input=Path(runs[0]).read_bytes(),
        capture_output=True,
        check=True,
    )
    assert streamed.stdout.replace(b"<stdin>", b"") == whole.stdout.replace(runs[0].encode(), b"")


def test_chunk_size_and_jobs_are_checked(capsys):
    qrels = QRELS_2012
    run = TREC2012_RUNS["ql-cata"]
    for bad in ("0", "-5M", "lots", "1X"):
        code, _, err = run_cli(capsys, run, qrels, "--chunk-size", bad)
        assert code == 2 and "--chunk-size must be a positive size" in err, bad
    code, _, err = run_cli(capsys, run, qrels, "-j", "-1")
    assert code == 2 and "--jobs" in err


def test_a_missing_file_is_reported_before_any_block(tmp_path, capsys):
    code, _, err = run_cli(capsys, tmp_path / "nope.txt", QRELS_2012)
    assert code == 1 and err.strip() == (
        f"divaeval: {tmp_path / 'nope.txt'}: cannot open run file: no such file"
    )


def test_data_errors_cross_process_boundaries_with_their_line(tmp_path):
    lines = lines_of_topics([30] * 20)
    lines[450] = b"15 Q0 doc 5 1e999 tag"
    run = tmp_path / "run.txt"
    run.write_bytes(b"\n".join(lines) + b"\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("15 1 doc 1\n")
    with pytest.raises(DataError) as caught:
        run_evaluation(
            [str(run)], str(qrels), ["ndeval"], settings=Settings(chunk_size=500, jobs=2)
        )
    assert (caught.value.file, caught.value.line) == (str(run), 451)


def test_a_streamed_run_keeps_a_bounded_number_of_topic_materials(tmp_path, collected_warnings):
    from divaeval.judged import MATERIALS_KEPT

    runs, qrels = _varied_collection(tmp_path, seed=2, topics=MATERIALS_KEPT + 6)
    evaluation = run_evaluation(runs, qrels, ["alpha-nDCG@5"], settings=Settings(chunk_size=1))
    assert len(evaluation.runs[0].topics) >= MATERIALS_KEPT + 4  # one block per topic
    assert len(evaluation.index._materials) == MATERIALS_KEPT


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_warning_about_the_qrels_is_told_once_however_many_blocks(tmp_path, jobs):
    # Subtopic 2 of every topic has an intent probability but no relevant document: one
    # warning counting all 6 topics, not one per block.
    (tmp_path / "q.txt").write_text("".join(f"{t} 1 a 1\n{t} 2 b 0\n" for t in range(1, 7)))
    (tmp_path / "i.txt").write_text("".join(f"{t} 1 0.6\n{t} 2 0.4\n" for t in range(1, 7)))
    run = "".join(f"{t} Q0 {d} {r} {9 - r} tag\n" for t in range(1, 7) for r, d in [(1, "a")])
    (tmp_path / "r.txt").write_text(run)
    args = [sys.executable, "-m", "divaeval", tmp_path / "r.txt", tmp_path / "q.txt"]
    proc = subprocess.run(
        [
            *args,
            "--intents",
            tmp_path / "i.txt",
            "-m",
            "RR-IA",
            "--chunk-size",
            "1",
            "-j",
            str(jobs),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    told = [line for line in proc.stderr.splitlines() if "intent probabilities" in line]
    assert len(told) == 1 and told[0].startswith("divaeval: warning: 6 intent probabilities")


# ---- ranges of a file read by the workers themselves (-j N, a cluster) ----


@settings(max_examples=examples(24), deadline=None)
@given(
    sizes=st.lists(st.integers(1, 40), min_size=1, max_size=25),
    extras=st.lists(st.sampled_from([b"", b"   ", b"# a comment", b"\t"]), max_size=6),
    positions=st.lists(st.integers(0, 400), max_size=6),
    block_bytes=st.integers(1, 3000),
    trailing=st.booleans(),
    bom=st.booleans(),
)
def test_file_ranges_are_whole_topics_and_rejoin_to_the_file(
    tmp_path_factory, sizes, extras, positions, block_bytes, trailing, bom
):
    from divaeval.io.blocks import range_blocks

    lines = lines_of_topics(sizes)
    for extra, at in zip(extras, positions, strict=False):
        lines.insert(min(at, len(lines)), extra)
    text = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + (b"\n" if trailing else b"")
    path = tmp_path_factory.mktemp("ranges") / "run.txt"
    path.write_bytes(text)
    ranges = list(range_blocks("run.txt", str(path), block_bytes=block_bytes))
    assert b"".join(r.read() for r in ranges) == text.removeprefix(b"\xef\xbb\xbf")
    assert ranges[0].start == 0 and ranges[-1].end == len(text)
    seen: set[bytes] = set()
    for r in ranges:
        assert r.lines_before() == text[: r.start].count(b"\n")
        topics = {
            fields[0]
            for fields in (raw.split(None, 1) for raw in r.read().split(b"\n"))
            if fields and not fields[0].startswith(b"#")
        }
        assert not topics & seen  # a topic is never split between ranges
        seen |= topics


def test_lines_before_a_range_count_every_line_end(tmp_path, monkeypatch):
    import divaeval.io.blocks as blocks

    text = b"a\r\nb\rc\n\r\nd\r\r\ne\n"  # line ends: \r\n \r \n \r\n \r \r\n \n
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    monkeypatch.setattr(blocks, "DEFAULT_BLOCK_BYTES", 2)  # \r\n cut between reads
    for start in range(len(text) + 1):
        expected = len(normalize_line_ends(text[:start]).split(b"\n")) - 1
        assert blocks.FileRange("r", str(path), start, len(text)).lines_before() == expected


def test_worker_processes_read_ranges_of_plain_files_themselves(
    tmp_path, monkeypatch, collected_warnings
):
    import divaeval.streaming as streaming

    runs, qrels = _varied_collection(tmp_path, seed=4, topics=8)
    zipped = tmp_path / "r0.txt.gz"
    zipped.write_bytes(gzip.compress(Path(runs[0]).read_bytes()))
    planned: list[str] = []
    original = streaming.range_blocks

    def spy(name, location, **options):
        planned.append(name)
        return original(name, location, **options)

    monkeypatch.setattr(streaming, "range_blocks", spy)
    every = [*runs, str(zipped)]
    whole = run_evaluation(every, qrels, ["ndeval"])
    assert planned == []  # in process: read here, block by block
    parallel = run_evaluation(
        every, qrels, ["ndeval"], settings=Settings(chunk_size=20_000, jobs=2)
    )
    assert planned == runs  # plain files by ranges; the gzipped one read here
    _assert_same_bits(whole, parallel)


def test_an_ungrouped_file_read_by_ranges_names_its_line_in_the_file(tmp_path, collected_warnings):
    runs, qrels = _varied_collection(tmp_path, seed=5, topics=6)
    lines = Path(runs[0]).read_bytes().splitlines()
    moved = tmp_path / "moved.txt"
    moved.write_bytes(b"\n".join(lines[100:] + lines[:100]) + b"\n")  # topic 1 comes back
    whole = run_evaluation([str(moved)], qrels, ["ndeval"])
    collected_warnings.clear()
    parallel = run_evaluation(
        [str(moved)], qrels, ["ndeval"], settings=Settings(chunk_size=5_000, jobs=2)
    )
    line = len(lines) - 100 + 1
    assert any(f"appears again at line {line})" in w for w in collected_warnings)
    _assert_same_bits(whole, parallel)


def test_small_files_of_any_kind_are_read_whole_by_the_workers(
    tmp_path, monkeypatch, collected_warnings
):
    # one block's worth of text (gzip counted 4x): one task, the file's bytes as they are,
    # decompressed where it is scored; larger gzip or \r files are read here, in blocks
    import divaeval.streaming as streaming
    from divaeval.io.blocks import FileRange

    runs, qrels = _varied_collection(tmp_path, seed=6, topics=8)
    text = Path(runs[0]).read_bytes()
    small_gz, large_gz = tmp_path / "small.txt.gz", tmp_path / "large.txt.gz"
    small_gz.write_bytes(gzip.compress(text))
    large_gz.write_bytes(gzip.compress(text, compresslevel=0))  # stored: as large as the text
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(text.replace(b"\n", b"\r\n"))
    monkeypatch.setattr(streaming, "GZIP_RATIO", 2)  # (this text compresses 3.5 times)
    block = 2 * len(small_gz.read_bytes())  # the small one fits; the others do not
    assert len(text) > block
    seen: dict[str, list] = {}
    original = streaming._blocks_of

    def spy(run, block_bytes, workers):
        for item in original(run, block_bytes, workers):
            seen.setdefault(run.path, []).append(item)
            yield item

    monkeypatch.setattr(streaming, "_blocks_of", spy)
    every = [str(small_gz), str(large_gz), str(crlf), runs[1]]
    whole = run_evaluation(every, qrels, ["ndeval"], settings=Settings(chunk_size=block))
    parallel = run_evaluation(every, qrels, ["ndeval"], settings=Settings(chunk_size=block, jobs=2))
    _assert_same_bits(whole, parallel)
    size = len(small_gz.read_bytes())
    assert seen[str(small_gz)][-1:] == [FileRange(str(small_gz), str(small_gz), 0, size)]
    # (in process: read here in blocks; with workers: that one range)
    assert all(isinstance(item, Run) for item in seen[str(small_gz)][:-1])
    for path in (str(large_gz), str(crlf)):
        assert all(isinstance(item, Run) for item in seen[path])


def test_an_error_in_a_gzip_file_read_by_a_worker_names_its_line(tmp_path, capsys):
    lines = lines_of_topics([30] * 20)
    lines[417] = b"7 Q0 doc 5 notanumber tag"
    run = tmp_path / "run.txt.gz"
    run.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("7 1 doc 1\n")
    code, out, err = run_cli(capsys, run, qrels, "-j", "2")
    assert (code, out) == (1, "")
    assert err == f"divaeval: {run}:418: score 'notanumber' is not a number\n"


def test_the_start_check_never_judges_a_line_its_window_cuts(tmp_path):
    # 64 KiB of \r\n blank lines, then a run line across the window's end: the line is cut
    # short in the window (and \r\n made \n shortens the window): it is left to the blocks
    from divaeval.streaming import START_BYTES, check_run_start

    run = tmp_path / "run.txt"
    blank = b"\r\n" * ((START_BYTES - 10) // 2)
    run.write_bytes(blank + b"1 Q0 doc1 1 2.5 tag\r\n")
    check_run_start(str(run))  # no error: the line is fine, and was not seen whole
    run.write_bytes(blank + b"1 Q0 doc1 1\r\n")  # a short line: reported by the blocks
    with pytest.raises(DataError, match="expected 6 columns"):
        run_evaluation([str(run)], str(run), ["P@5"])


def _first_short_line(start: bytes, window: int) -> int | None:
    """The line of the first content line of ``start`` (read ``window`` bytes at most) with
    fewer than 6 fields, if it is the first content line and seen whole; else None: every line
    of the window split at once, as the start check once did."""
    lines = normalize_line_ends(start.removeprefix(b"\xef\xbb\xbf")).split(b"\n")
    if len(start) == window:
        lines.pop()
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        return number if len(fields) < 6 else None
    return None


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.sampled_from([b"", b"  ", b"# c", b"1 Q0 d 1 2.5 t", b"1 Q0 d 1", b"1 Q0 d 1 2 t x"]),
        max_size=8,
    ),
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
    st.integers(8, 80),
    st.booleans(),
)
def test_the_start_check_finds_the_first_content_line_as_a_split_of_every_line(
    tmp_path_factory, lines, end, window, bom
):
    # the first content line found a line at a time: the same line (or none) as when every
    # line of the window is split at once, whatever the line ends, a cut-off last line, a BOM
    import divaeval.streaming as streaming

    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(line + end for line in lines)
    run = tmp_path_factory.mktemp("start") / "run.txt"
    run.write_bytes(data)
    original = streaming.START_BYTES
    streaming.START_BYTES = window
    try:
        expected = _first_short_line(data[:window], window)
        if expected is None:
            streaming.check_run_start(str(run))
        else:
            with pytest.raises(DataError) as error:
                streaming.check_run_start(str(run))
            assert error.value.line == expected and "expected 6 columns" in str(error.value)
    finally:
        streaming.START_BYTES = original
