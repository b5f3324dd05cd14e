"""``--plot`` on every command with a natural figure, and ``.plot()`` / ``.figure()`` on the
Python results: the file is written (non-empty, in the format of its suffix), and the numbers
drawn (``figure().data``) are those of the table the command prints (``.frame``: what the CLI
writes). Also the report command's table and its page file."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from support import SAMPLE_DATA, run_cli

import divaeval
from divaeval.errors import UsageError

pytest.importorskip("matplotlib")

RUNS = [str(SAMPLE_DATA / name) for name in ("run.txt", "run2.txt", "run3.txt")]
QRELS = str(SAMPLE_DATA / "qrels.txt")
MAGIC = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}

#: (command line after "divaeval", suffix): every command that draws
COMMANDS = [
    (["evaluate", *RUNS, QRELS, "-m", "alpha-nDCG@5,10,20"], ".png"),
    (["compare", *RUNS, QRELS, "-m", "alpha-nDCG@20"], ".svg"),
    (["risk", *RUNS[1:], QRELS, "--baseline", RUNS[0], "--risk-alpha", "1"], ".pdf"),
    (["prefer", *RUNS[:2], QRELS], ".png"),
    (["meta", "discriminative-power", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-B", "50"], ".png"),
    (["meta", "correlation", *RUNS, QRELS, "-m", "alpha-nDCG@20", "-m", "ERR-IA@20"], ".png"),
    (
        [
            "meta",
            "unanimity",
            *RUNS,
            QRELS,
            "-m",
            "alpha-nDCG@20",
            "-m",
            "ERR-IA@20",
            "-m",
            "P-IA@20",
        ],
        ".png",
    ),  # fmt: skip
    (["meta", "sensitivity", QRELS, "-m", "alpha-nDCG@20", "-B", "20"], ".png"),
    (["collection", QRELS], ".svg"),
]


@pytest.mark.parametrize(("args", "suffix"), COMMANDS, ids=[" ".join(a[:2]) for a, _ in COMMANDS])
def test_every_command_writes_its_figure(capsys, tmp_path, args, suffix):
    path = tmp_path / f"figure{suffix}"
    code, out, err = run_cli(capsys, *args, "-f", "csv", "--plot", path)
    assert code == 0, err
    assert out  # the table is printed as without --plot
    assert path.read_bytes().startswith(MAGIC[suffix]) and path.stat().st_size > 2000
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary file


def test_evaluate_draws_the_values_it_prints():
    result = divaeval.evaluate(RUNS, QRELS, ["alpha-nDCG@5,10,20", "ERR-IA@20"])
    data = result.figure().data
    printed = result.table()
    heat = data.loc[data["figure"] == "heatmap", ["run", "topic", "measure", "value"]]
    heat = heat.merge(printed, on=["run", "topic", "measure"])
    # the heat maps show each family's largest cutoff and the other measures, every topic
    assert set(heat["measure"]) == {"alpha-nDCG@20", "ERR-IA@20"}
    assert len(heat) == 2 * len(RUNS) * 10
    np.testing.assert_array_equal(heat["value_x"], heat["value_y"].astype(float))
    curves = data.loc[data["figure"] == "cutoffs", ["run", "measure", "mean"]].merge(
        printed[printed["topic"] == "all"], on=["run", "measure"]
    )
    assert len(curves) == 3 * len(RUNS)
    np.testing.assert_array_equal(curves["mean"], curves["value"].astype(float))


def test_compare_draws_the_differences_whose_mean_it_prints():
    result = divaeval.compare(RUNS, QRELS, ["alpha-nDCG@20", "ERR-IA@20"])
    drawn = result.figure().data.groupby(["measure", "run", "reference"])["difference"]
    for row in result.frame.itertuples():
        assert drawn.mean()[(row.measure, row.run_a, row.run_b)] == pytest.approx(
            row.diff, abs=1e-12
        )
        assert drawn.size()[(row.measure, row.run_a, row.run_b)] == 10


def test_risk_draws_the_risk_values_whose_mean_is_the_printed_urisk():
    result = divaeval.risk(RUNS[1:], QRELS, "alpha-nDCG@20", baseline=RUNS[0], risk_alpha=1)
    data = result.figure().data
    for row in result.frame.itertuples():
        mine = data[data["run"] == row.run]
        assert mine["weighted"].mean() == pytest.approx(row.URisk, abs=1e-12)
        assert ((mine["difference"] > 0).sum(), (mine["difference"] < 0).sum()) == (
            row.wins,
            row.losses,
        )
    with pytest.raises(UsageError, match="has no figure"):  # no baseline: nothing to draw
        divaeval.risk(RUNS, QRELS, "alpha-nDCG@20").figure()


def test_prefer_draws_the_preferences_it_prints():
    result = divaeval.prefer(RUNS, QRELS, "lexirecall")
    data = result.figure().data
    printed = result.values(summary=False)
    merged = data.merge(
        printed, left_on=["run", "reference", "topic", "measure"],
        right_on=["run_a", "run_b", "topic", "measure"],
    )  # fmt: skip
    assert len(merged) == len(printed) == 3 * 10
    np.testing.assert_array_equal(merged["difference"], merged["value"].astype(float))


def test_meta_and_collection_figures_draw_the_printed_numbers():
    power = divaeval.discriminative_power(RUNS, QRELS, ["alpha-nDCG@20", "P-IA@20"], samples=50)
    data = power.figure().data
    for row in power.frame.itertuples():
        asl = data.loc[data["metric"] == row.metric, "asl"]
        assert len(asl) == row.pairs and int((asl < row.alpha).sum()) == row.significant

    correlation = divaeval.correlation(RUNS, QRELS, ["alpha-nDCG@20", "P-IA@20"])
    drawn = correlation.figure().data
    assert list(drawn["tau_b"].unique()) == list(correlation.frame["tau_b"])
    means = divaeval.evaluate(RUNS, QRELS, "alpha-nDCG@20", complete=True).means
    np.testing.assert_allclose(drawn["mean_a"], means["value"])

    unanimity = divaeval.unanimity(RUNS, QRELS, ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"])
    np.testing.assert_array_equal(unanimity.figure().data["mu"], unanimity.frame["mu"])

    sensitivity = divaeval.sensitivity(QRELS, "alpha-nDCG@20", samples=20)
    printed = sensitivity.table(per_topic=True)
    printed = printed[printed["topic"] != "all"]
    np.testing.assert_array_equal(sensitivity.figure().data["dss"], printed["dss"].astype(float))

    collection = divaeval.collection_table(QRELS)
    np.testing.assert_array_equal(collection.figure().data["dd"], collection.frame["dd"])


def test_plot_returns_a_matplotlib_figure_or_writes_the_file(tmp_path):
    import matplotlib.figure

    result = divaeval.collection_table(QRELS)
    drawn = result.plot()
    assert isinstance(drawn, matplotlib.figure.Figure) and drawn.axes
    assert result.plot(tmp_path / "dd.pdf") is None
    assert (tmp_path / "dd.pdf").read_bytes().startswith(b"%PDF")


def test_results_without_a_figure_say_so():
    with pytest.raises(UsageError, match="^TiesResult has no figure$"):
        divaeval.ties(100, 10, cutoff=10).plot()


def test_plot_without_matplotlib_fails_before_any_work(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were absent
    # the unknown measure would be found while computing: the missing extra is reported first
    code, out, err = run_cli(
        capsys, "compare", *RUNS, QRELS, "-m", "nosuchmeasure", "--plot", tmp_path / "f.png"
    )
    assert (code, out) == (2, "")
    assert err == "divaeval: drawing figures needs matplotlib: pip install 'divaeval[plot]'\n"
    with pytest.raises(UsageError, match=r"pip install 'divaeval\[plot\]'"):
        divaeval.collection_table(QRELS).plot()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--plot", "figure.gif"], "--plot figure.gif: the file's suffix chooses the format"),
        (["--plot", "figure"], "--plot figure: the file's suffix chooses the format"),
    ],
)
def test_a_plot_file_without_a_known_suffix_is_a_usage_error(capsys, args, message):
    code, out, err = run_cli(capsys, "collection", QRELS, *args)
    assert (code, out) == (2, "") and err.startswith(f"divaeval: {message}")


def test_a_plot_file_is_never_an_input(capsys, tmp_path):
    figure = tmp_path / "qrels.png"
    figure.write_bytes((SAMPLE_DATA / "qrels.txt").read_bytes())
    code, out, err = run_cli(capsys, "collection", figure, "--plot", figure)
    assert (code, out) == (2, "") and "divaeval never writes over an input" in err
    assert figure.read_bytes() == (SAMPLE_DATA / "qrels.txt").read_bytes()


def test_risk_plot_needs_a_baseline(capsys, tmp_path):
    code, out, err = run_cli(capsys, "risk", *RUNS, QRELS, "--plot", tmp_path / "f.png")
    assert (code, out) == (2, "")
    assert err == (
        "divaeval: --plot draws the runs' differences against --baseline: give --baseline\n"
    )


# ---------------------------------------------------------------------------------------------
# the report


def test_report_means_are_the_evaluated_means_with_compare_s_tests():
    result = divaeval.report_page(RUNS, QRELS, ["alpha-nDCG@20", "ERR-IA@20"], baseline=RUNS[1])
    assert result.baseline == "rm-cata"
    means = divaeval.evaluate(RUNS, QRELS, ["alpha-nDCG@20", "ERR-IA@20"], complete=True).means
    merged = result.means.merge(means, on=["run", "measure"])
    np.testing.assert_array_equal(merged["mean"], merged["value"])
    pairs = divaeval.compare(RUNS, QRELS, ["alpha-nDCG@20", "ERR-IA@20"]).pairs
    for row in result.means.itertuples():
        if row.run == "rm-cata":
            assert np.isnan(row.p_adjusted) and not row.significant
            continue
        pair = pairs[
            (pairs["measure"] == row.measure)
            & pairs["run_a"].isin([row.run, "rm-cata"])
            & pairs["run_b"].isin([row.run, "rm-cata"])
        ]
        assert row.p_adjusted == pair["p_adjusted"].item()
        assert row.significant == pair["significant"].item()
    # a t interval around each mean: 10 topics, t(0.975, 9) = 2.2622
    scores = divaeval.compare(RUNS, QRELS, "alpha-nDCG@20").tables["alpha-nDCG@20"]
    half = 2.2621571628 * scores[0].std(ddof=1) / np.sqrt(10)
    first = result.means.iloc[0]
    assert (first.ci_low, first.ci_high) == pytest.approx(
        (first["mean"] - half, first["mean"] + half)
    )


def test_report_command_writes_one_page(capsys, tmp_path):
    page = tmp_path / "report.html"
    code, out, err = run_cli(capsys, "report", *RUNS, QRELS, "-o", page, "--risk-alpha", "1")
    assert (code, err) == (0, "")
    assert out == (
        f"Wrote {page}: Best run on alpha-nDCG@20: dssa. Against the baseline ql-cata it wins "
        "on 8 topics and loses on 2 of 10.\n"
    )
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "http://" not in html and "https://" not in html and "<link" not in html
    for run in ("ql-cata", "rm-cata", "dssa"):
        assert run in html
    assert "Best run on alpha-nDCG@20: dssa." in html
    code, out, _ = run_cli(capsys, "report", *RUNS, QRELS, "--risk-alpha", "1")
    assert code == 0 and out == html  # without -o: stdout


def test_report_errors(capsys, tmp_path):
    code, out, err = run_cli(capsys, "report", RUNS[0], QRELS, "-o", tmp_path / "r.html")
    assert (code, out) == (2, "")
    assert err == "divaeval: report needs at least two runs (or a run and --baseline)\n"
    code, out, err = run_cli(capsys, "report", *RUNS, QRELS, "-o", RUNS[0])
    assert code == 2 and "never writes over an input" in err
    code, _, err = run_cli(capsys, "report", *RUNS, QRELS, "-m", "nosuch")
    assert code == 2 and err.startswith("divaeval: ")
