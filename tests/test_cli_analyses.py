"""The analysis commands end to end on sample_data: golden outputs (csv, fixed seeds) of
compare, prefer, every meta subcommand and collection, so that any change to their numbers or
layout is seen; plus their exit codes. ``DIVAEVAL_UPDATE_GOLDEN=1`` rewrites the golden files
(review the diff before committing it)."""

from __future__ import annotations

import os

import pytest
from support import ROOT, SAMPLE_DATA, run_cli

GOLDEN = ROOT / "tests" / "golden"
RUNS = [SAMPLE_DATA / "run.txt", SAMPLE_DATA / "run2.txt", SAMPLE_DATA / "run3.txt"]
QRELS = SAMPLE_DATA / "qrels.txt"

CASES = {
    "compare_bootstrap": [
        "compare", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "P@10", "--test", "bootstrap",
        "-B", "500", "--seed", "7",
    ],
    "compare_tukey_runs": [
        "compare", *RUNS, QRELS, "-m", "alpha-nDCG@20", "--test", "tukey-hsd", "-B", "500",
        "--table", "runs",
    ],
    "compare_tukey_pairs": [
        "compare", *RUNS, QRELS, "-m", "alpha-nDCG@20", "--test", "tukey-hsd", "-B", "500",
    ],
    "compare_ttest_trec_eval": ["compare", *RUNS, QRELS, "-m", "ERR-IA@20", "-f", "trec_eval"],
    "prefer": ["prefer", *RUNS, QRELS, "--table", "pairs"],
    "discriminative_power": [
        "meta", "discriminative-power", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "D#-nDCG@20",
        "-B", "300", "--seed", "3",
    ],
    "correlation": ["meta", "correlation", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "AP",
                    "-m", "RBU"],
    "intuitiveness": [
        "meta", "intuitiveness", *RUNS, QRELS, "-m", "alpha-nDCG@10", "-m", "D#-nDCG@10",
        "--gold", "I-rec@10",
    ],
    "unanimity": ["meta", "unanimity", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "ERR-IA@20",
                  "-m", "RBU"],
    "sensitivity": ["meta", "sensitivity", QRELS, "-m", "alpha-nDCG", "-k", "20", "-L", "100",
                    "--seed", "5", "-q"],
    "collection": ["collection", QRELS, "-f", "csv"],
    "collection_jsonl_xi1": ["collection", QRELS, "-f", "jsonl", "--dd-exponent", "xi+1"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_output(capsys, name):
    args = CASES[name]
    fmt = [] if "-f" in args else ["-f", "csv"]
    code, out, err = run_cli(capsys, *args, *fmt)
    assert code == 0, err
    # machine formats print the settings signature (seed, B, test) on stderr, and only that
    assert [line for line in err.splitlines() if "warning" not in line] == [
        line for line in err.splitlines() if line.startswith("divaeval: signature: ")
    ]
    if name not in ("collection", "collection_jsonl_xi1", "compare_ttest_trec_eval"):
        assert "seed=" in err or name in ("correlation", "intuitiveness", "unanimity", "prefer")
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("DIVAEVAL_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text()


@pytest.mark.parametrize(
    "args, code",
    [
        (["compare", RUNS[0], QRELS, "-m", "P@5"], 2),  # one run: nothing to compare
        (["compare", *RUNS, QRELS, "-m", "P@5", "--alpha", "1.5"], 2),
        (["compare", *RUNS, QRELS, "-m", "nosuch"], 2),
        (["compare", *RUNS, QRELS, "-m", "P@5", "--test", "wilcoxon"], 2),
        (["meta", "unanimity", RUNS[0], QRELS, "-m", "P@5", "-m", "AP"], 1),
        (["meta", "intuitiveness", *RUNS, QRELS, "-m", "P@5"], 2),  # --gold is required
        (["meta", "sensitivity", QRELS, "-m", "strec", "-L", "1"], 2),
        (["meta", "nosuch", QRELS], 2),
        (["collection", SAMPLE_DATA / "missing.txt"], 1),
        (["collection", QRELS, "--cover", "fastest"], 2),
        (["prefer", RUNS[0], QRELS], 2),
    ],
)
def test_exit_codes(capsys, args, code):
    got, out, err = run_cli(capsys, *args)
    assert (got, out) == (code, "")
    assert err.startswith("divaeval: ") and "Traceback" not in err


def test_measures_default_to_ndeval_in_every_scoring_command(capsys):
    # -m means the same everywhere: without it, ndeval's 21 columns (as the main command)
    code, out, err = run_cli(capsys, "meta", "correlation", *RUNS, QRELS, "-f", "csv")
    assert code == 0, err
    names = {line.split(",")[0] for line in out.splitlines()[1:]}
    assert "ERR-IA@5" in names and "P-IA@20" in names and len(names) == 20  # 21 metrics, pairs
    code, out, err = run_cli(capsys, "compare", *RUNS, QRELS, "-f", "csv")
    assert code == 0, err
    assert len({line.split(",")[0] for line in out.splitlines()[1:]}) == 21


def test_signature_on_stderr_only_when_asked_or_resampled(capsys):
    code, _, err = run_cli(capsys, "collection", QRELS, "-f", "csv")
    assert (code, err) == (0, "")
    code, _, err = run_cli(capsys, "collection", QRELS, "-f", "csv", "--signature")
    assert err.startswith("divaeval: signature: divaeval ") and "|collection|rel=1|" in err
    code, _, err = run_cli(capsys, "compare", *RUNS, QRELS, "-m", "P@5", "-f", "csv")
    assert "seed=42" in err  # resampled numbers always report their seed
    code, _, err = run_cli(capsys, "compare", *RUNS, QRELS, "-m", "P@5", "-f", "json")
    assert err == ""  # json carries the signature itself


def test_precision_applies_to_every_format(capsys):
    code, out, _ = run_cli(
        capsys, "meta", "unanimity", *RUNS, QRELS, "-m", "AP", "-m", "RBU", "-f", "csv",
        "--precision", "3",
    )  # fmt: skip
    assert code == 0
    values = [v for line in out.splitlines()[1:] for v in line.split(",")[1:]]
    assert all(len(v.split(".")[1]) <= 3 for v in values if "." in v)


def _latex_rows(text: str) -> list[list[str]]:
    body = text.split("\\midrule\n")[1].split("\\bottomrule")[0]
    return [line.rstrip(" \\").split(" & ") for line in body.strip().splitlines()]


def test_evaluate_latex_runs_by_measures(capsys):
    code, out, err = run_cli(
        capsys, *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "P@10", "-f", "latex"
    )
    assert code == 0, err
    assert out.startswith("\\begin{tabular}{rlrr}\n\\toprule\n\\# & Run & alpha-nDCG@20 & P@10")
    rows = _latex_rows(out)
    assert [row[:2] for row in rows] == [["1", "ql-cata"], ["2", "rm-cata"], ["3", "dssa"]]
    # the means are the main job's (trec_eval format, 4 decimals); the best of a column in bold
    code, plain, _ = run_cli(capsys, *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "P@10")
    means = [line.split("\t")[2] for line in plain.splitlines() if line.startswith("alpha-nDCG")]
    assert [row[2].split("$")[0].replace("\\textbf{", "").rstrip("}") for row in rows] == means
    assert rows[2][2].startswith("\\textbf{0.4596}") and not rows[0][2].startswith("\\textbf")
    # superscripts = what compare's paired t-test with Holm's correction finds significant
    code, pairs, _ = run_cli(capsys, "compare", *RUNS, QRELS, "-m", "P@10", "-f", "csv")
    significant = {
        (r.split(",")[1], r.split(",")[2]) for r in pairs.splitlines()[1:] if r.endswith("True")
    }
    assert significant == {("ql-cata", "dssa"), ("rm-cata", "dssa")}
    assert rows[2][3] == "\\textbf{0.5100}$^{1,2}$" and "$^" not in rows[0][3] + rows[1][3]
    assert "paired t-test, Holm-corrected, alpha = 0.05, over the 10 topics" in out
    # one run: no significance marks
    code, single, _ = run_cli(capsys, RUNS[0], QRELS, "-m", "P@10", "-f", "latex")
    assert "$^" not in single and "superscripts" not in single


def test_compare_latex_one_table_for_every_measure(capsys):
    code, out, err = run_cli(
        capsys, "compare", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "P@10", "-f", "latex",
        "--table", "runs",
    )  # fmt: skip
    assert code == 0, err
    assert out.count("\\begin{tabular}") == 1 and "alpha-nDCG@20 & P@10" in out
    assert len(_latex_rows(out)) == 3
