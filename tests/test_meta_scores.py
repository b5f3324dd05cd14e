"""Score tables read from files for the meta commands (``--scores FILE``): the long form
``run topic measure value`` and trec_eval -q output, validated like every input."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from support import FIXTURES, run_cli

from divaeval.errors import DataError, UsageError
from divaeval.meta.scores import read_score_table

REF_EX = FIXTURES / "small" / "ref_ex"
RUNS = [REF_EX / "runA", REF_EX / "runB", REF_EX / "runC"]
QRELS = REF_EX / "div.qrels"
MEASURES = ["strec@5", "alpha-nDCG@5", "ERR-IA@5"]


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def _divaeval_output(capsys, *args) -> str:
    code, out, err = run_cli(capsys, *RUNS, QRELS, *[a for m in MEASURES for a in ("-m", m)], *args)
    assert code == 0, err
    return out


@pytest.fixture
def expected(capsys):
    """The tables the runs + qrels path builds (runC lacks topic 2: 0 there, as with -c)."""
    import divaeval

    result = divaeval.evaluate([str(p) for p in RUNS], str(QRELS), MEASURES, complete=True)
    return result.evaluation.score_tables()


def _same(table, expected) -> None:
    runs, tables = expected
    assert table.runs == runs
    assert table.topics == ["1", "2"]
    assert list(table.tables) == list(tables)
    for name, matrix in tables.items():
        np.testing.assert_array_equal(table.tables[name], matrix)


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_long_form_written_by_divaeval(tmp_path, capsys, expected, collected_warnings, fmt):
    """divaeval's own -q -f tsv|csv output (header, 'all' rows skipped) reads back exactly."""
    text = _divaeval_output(capsys, "-c", "-q", "-f", fmt)
    table = read_score_table([str(_write(tmp_path, f"s.{fmt}", text))])
    _same(table, expected)
    assert collected_warnings == []


def test_long_form_whitespace_gzip_and_comments(tmp_path, capsys, expected, collected_warnings):
    text = _divaeval_output(capsys, "-c", "-q", "-f", "tsv")
    lines = text.splitlines()[1:]  # no header
    spaced = "# official scores\n" + "\n".join("   ".join(line.split("\t")) for line in lines)
    path = tmp_path / "scores.gz"
    path.write_bytes(gzip.compress(spaced.encode()))
    _same(read_score_table([str(path)]), expected)


def test_trec_eval_output_of_several_runs(tmp_path, capsys, expected, collected_warnings):
    """trec_eval -q output, one run after the other in one file, or one file per run; each
    run is named by its 'runid all NAME' line. runC lacks topic 2: a warning, and 0."""
    per_run = []
    for run in RUNS:
        measures = [a for m in MEASURES for a in ("-m", m)]
        code, out, err = run_cli(capsys, run, QRELS, *measures, "-q", "--precision", "17")
        assert code == 0, err
        per_run.append(out)
    collected_warnings.clear()  # runC's own warning (it lacks topic 2)
    _same(read_score_table([str(_write(tmp_path, "all.txt", "".join(per_run)))]), expected)
    assert len(collected_warnings) == 1
    assert (
        "run runC lacks 3 of its 6 (topic, measure) scores (e.g. topic 2, strec@5)"
        in (collected_warnings[0])
    )
    paths = [str(_write(tmp_path, f"{i}.txt", text)) for i, text in enumerate(per_run)]
    _same(read_score_table(paths), expected)


def test_measure_selection(tmp_path, capsys, collected_warnings):
    text = _divaeval_output(capsys, "-c", "-q", "-f", "tsv")
    path = str(_write(tmp_path, "s.tsv", text))
    table = read_score_table([path], ["ERR_IA@5", "strec@5", "strec@5"])  # loose match, once
    assert list(table.tables) == ["ERR-IA@5", "strec@5"]
    with pytest.raises(UsageError, match=r"measure P@5 is not in .*s.tsv \(it has: strec@5"):
        read_score_table([path], ["P@5"])


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a 1 m 0.5\na 2 m\n", 2, "expected 4 fields (run topic measure value), found 3"),
        ("a 1 m 0.5\na 2 m x\n", 2, "value 'x' is not a number"),
        ("a 1 m 0.5\na 2 m nan\n", 2, "value 'nan' is not a finite number"),
        ("a 1 m 0.5\nb 1 m 0.2\na 1 m 0.25\n", 3, "run a topic 1 measure m has two values"),
        ("m 1 0.5\nm 1 0.5 x\n", 2, "expected 3 fields (trec_eval -q: measure topic value)"),
        ("a b\n", 1, "found 2 fields"),
        ("m 1 0.5\nrunid all a\nm 1 0.5\nm 2 0.1\n", 3, "without a 'runid all NAME' line"),
        ("m 1 0.5\nrunid all a\nrunid all b\n", 3, "a second runid (b) in the summary of run a"),
    ],
)
def test_bad_lines_are_reported_with_file_and_line(tmp_path, text, line, message):
    path = _write(tmp_path, "bad.txt", text)
    with pytest.raises(DataError, match=None) as caught:
        read_score_table([str(path)])
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert message in str(caught.value)


def test_whole_file_problems(tmp_path, collected_warnings):
    empty = _write(tmp_path, "empty.txt", "# nothing\n\n")
    with pytest.raises(DataError, match="empty score file"):
        read_score_table([str(empty)])
    summary = _write(tmp_path, "summary.txt", "runid all a\nmap all 0.3\n")
    with pytest.raises(DataError, match="only summary lines"):
        read_score_table([str(summary)])
    lacking = _write(tmp_path, "lacking.txt", "a 1 m 0.5\na 1 n 0.5\nb 1 m 0.2\n")
    with pytest.raises(DataError, match="run b has no values of measure n"):
        read_score_table([str(lacking)])
    assert read_score_table([str(lacking)], ["m"]).runs == ["a", "b"]


def test_repeated_lines_and_unnamed_run_warn(tmp_path, collected_warnings):
    repeated = _write(tmp_path, "r.txt", "a 1 m 0.5\nb 1 m 0.2\na 1 m 0.5\n")
    table = read_score_table([str(repeated)])
    assert table.tables["m"].tolist() == [[0.5], [0.2]]
    assert collected_warnings == [
        f"1 repeated lines (same run, topic, measure and value) read once (first at {repeated}:3)"
    ]
    unnamed = _write(tmp_path, "myrun.txt.gz", "m 1 0.5\nm 2 0.25\n")
    unnamed.write_bytes(gzip.compress(unnamed.read_bytes()))
    table = read_score_table([str(unnamed)])
    assert table.runs == ["myrun"] and table.tables["m"].tolist() == [[0.5, 0.25]]
    assert "no 'runid all NAME' line: the run is named myrun" in collected_warnings[-1]


@pytest.mark.parametrize(
    "command",
    [
        ["unanimity"],
        ["correlation"],
        ["discriminative-power", "-B", "200"],
        ["intuitiveness", "--gold", "strec@5"],
    ],
)
def test_meta_commands_give_the_same_table_from_scores(tmp_path, capsys, command):
    measures = [a for m in MEASURES for a in ("-m", m)]
    if command[0] == "intuitiveness":
        measures = measures[2:]  # strec@5 is the gold standard
    scores = _write(tmp_path, "s.tsv", _divaeval_output(capsys, "-c", "-q", "-f", "tsv"))
    code, from_runs, err = run_cli(capsys, "meta", *command, *RUNS, QRELS, *measures, "-f", "csv")
    assert code == 0, err
    code, from_scores, err = run_cli(
        capsys, "meta", *command, "--scores", scores, *measures, "-f", "csv"
    )
    assert code == 0, err
    assert from_scores == from_runs
    if command[0] != "discriminative-power":  # every measure of the file, as -m gives them
        code, all_measures, err = run_cli(capsys, "meta", *command, "--scores", scores, "-f", "csv")
        assert code == 0, err
        assert all_measures == from_runs


def test_cli_usage_errors(tmp_path, capsys):
    scores = _write(tmp_path, "s.txt", "a 1 m 0.5\nb 1 m 0.25\n")
    code, _, err = run_cli(capsys, "meta", "unanimity", "--scores", scores, *RUNS, QRELS)
    assert code == 2 and "give either RUN... QRELS or --scores FILE, not both" in err
    code, _, err = run_cli(capsys, "meta", "unanimity", "--scores", scores, "--depth", "5")
    assert code == 2 and err == "divaeval: --depth applies to RUN... QRELS, not to --scores\n"
    code, _, err = run_cli(capsys, "meta", "correlation")
    assert code == 2 and "give RUN... QRELS (qrels last) or --scores FILE" in err
    bad = _write(tmp_path, "bad.txt", "a 1 m 0.5\nb 1 m oops\n")
    code, _, err = run_cli(capsys, "meta", "unanimity", "--scores", bad)
    assert code == 1 and err == f"divaeval: {bad}:2: value 'oops' is not a number\n"


def test_long_tokens_are_cut_and_non_utf8_names_kept(tmp_path, collected_warnings):
    """Messages quote at most 40 characters of an echoed token (as the other readers do); a
    run name that is not UTF-8 is read (as surrogates) and kept, not rejected."""
    long = _write(tmp_path, "long.txt", "a 1 m 0.5\na 2 m " + "9x" * 5000 + "\n")
    with pytest.raises(DataError) as caught:
        read_score_table([str(long)])
    assert str(caught.value).endswith("(10000 characters) is not a number")
    assert len(str(caught.value)) < 200
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9 1 m 0.5\nb 1 m 0.25\n")
    table = read_score_table([str(latin)])
    assert len(table.runs) == 2 and table.tables["m"].tolist() == [[0.5], [0.25]]
