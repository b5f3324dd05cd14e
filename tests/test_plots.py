"""The figures as data (divaeval.plots): each figure's numbers, hand-worked on small tables and
held to the tables the commands print; the SVG drawing of each panel kind; the matplotlib files.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from support import SAMPLE_DATA

import divaeval
from divaeval.errors import UsageError
from divaeval.judged import judge_texts
from divaeval.plots import (
    asl,
    colours,
    correlation,
    coverage,
    cutoffs,
    differences,
    difficulty,
    draw,
    heatmap,
    intents,
    page,
    sensitivity,
    svg,
    unanimity,
)

RUNS = [str(SAMPLE_DATA / name) for name in ("run.txt", "run2.txt", "run3.txt")]
QRELS = str(SAMPLE_DATA / "qrels.txt")


def long_table(values: dict[str, dict[str, float]], measure: str = "M") -> pd.DataFrame:
    """The long score table of ``{run: {topic: value}}``."""
    rows = [
        (run, topic, measure, value) for run, by in values.items() for topic, value in by.items()
    ]
    return pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])


def test_differences_are_sorted_and_losses_weighed_for_the_risk_view():
    # a − b per topic: t1 0.5 − 0.2 = +0.3, t2 0.1 − 0.4 = −0.3, t3 0.6 − 0.5 = +0.1;
    # sorted descending: t1, t3, t2; with α = 1 the loss weighs twice: −0.6;
    # URisk = (0.3 + 0.1 − 0.6) / 3 = −0.0667
    table = long_table(
        {"a": {"t1": 0.5, "t2": 0.1, "t3": 0.6}, "b": {"t1": 0.2, "t2": 0.4, "t3": 0.5}}
    )
    figure = differences.against_baseline(table, "b", risk_alpha=1.0)
    (panel,) = figure.panels
    assert panel.labels == ("t1", "t3", "t2")
    np.testing.assert_allclose(panel.values, [0.3, 0.1, -0.3])
    np.testing.assert_allclose(panel.weighted, [0.3, 0.1, -0.6])
    assert panel.subtitle == "2 wins, 1 losses, mean +0.0333, URisk (α=1) −0.0667"
    assert list(figure.data["topic"]) == ["t1", "t3", "t2"]
    assert "topic t2 · a − b · M −0.3000" in panel.tips


def test_differences_leave_out_topics_a_run_lacks():
    table = long_table({"a": {"t1": 0.5, "t2": 0.1}, "b": {"t1": 0.2}})
    (panel,) = differences.against_baseline(table, "b").panels
    assert panel.labels == ("t1",)


def test_compare_figure_draws_the_differences_whose_means_compare_prints():
    table = divaeval.evaluate(RUNS, QRELS, "alpha-nDCG@20", complete=True).table(summary=False)
    printed = divaeval.compare(RUNS, QRELS, "alpha-nDCG@20").frame
    figure = differences.between_pairs(table)
    drawn = figure.data.groupby(["run", "reference"], sort=False)["difference"].mean()
    for row in printed.itertuples():
        assert drawn[(row.run_a, row.run_b)] == pytest.approx(row.diff, abs=1e-12)


def test_risk_figure_draws_the_risk_values_whose_mean_risk_prints_as_urisk():
    table = divaeval.evaluate(RUNS, QRELS, "alpha-nDCG@20", complete=True).table(summary=False)
    printed = divaeval.risk(RUNS[1:], QRELS, "alpha-nDCG@20", baseline=RUNS[0], risk_alpha=1).frame
    figure = differences.against_baseline(table, "ql-cata", risk_alpha=1.0)
    drawn = figure.data.groupby("run", sort=False)["weighted"].mean()
    for row in printed[printed["run"] != "ql-cata"].itertuples():
        assert drawn[row.run] == pytest.approx(row.URisk, abs=1e-12)
        wins = figure.data[(figure.data["run"] == row.run) & (figure.data["difference"] > 0)]
        assert len(wins) == row.wins


def test_preference_figure_draws_the_values_prefer_prints():
    printed = divaeval.prefer(RUNS[:2], QRELS, "lexirecall").frame
    figure = differences.preferences(printed)
    per_topic = printed[printed["topic"] != "all"]
    assert sorted(figure.data["difference"]) == sorted(per_topic["value"].astype(float))
    assert figure.panels[0].title == "ql-cata − rm-cata · lexirecall"


def test_heatmap_ranks_runs_by_mean_and_keeps_every_value():
    # means: a 0.3, b 0.45: b first
    table = long_table({"a": {"t1": 0.5, "t2": 0.1}, "b": {"t1": 0.2, "t2": 0.7}})
    (panel,) = heatmap.topic_heatmap(table).panels
    assert panel.rows == ("b (0.450)", "a (0.300)")
    np.testing.assert_allclose(panel.values, [[0.2, 0.7], [0.5, 0.1]])
    assert panel.tips[0, 1] == "run b · topic t2 · M 0.7000"


def test_differences_use_a_diverging_scale_centred_on_zero():
    # differences against a baseline: −0.2 .. +0.1 → the scale runs from −0.2 to +0.2, so that
    # white is no difference and equal gains and losses are equally strong
    table = long_table({"a": {"t1": 0.1, "t2": -0.2}, "b": {"t1": 0.0, "t2": 0.05}})
    (panel,) = heatmap.topic_heatmap(table, baseline="base").panels
    assert panel.scale == "diverging" and (panel.low, panel.high) == (-0.2, 0.2)
    assert colours.diverging(0.0, 0.2) == "#FFFFFF"
    assert colours.diverging(0.2, 0.2) == colours.WIN == colours.diverging(1.0, 0.2)
    assert colours.diverging(-0.2, 0.2) == colours.LOSS
    # half way: half way between white and the hue, on either side alike (rounded to even):
    # blue #0072B2 = (0, 114, 178): (127.5, 184.5, 216.5) → (128, 184, 216) = #80B8D8;
    # vermillion #D55E00 = (213, 94, 0): (234, 174.5, 127.5) → (234, 174, 128) = #EAAE80
    assert colours.diverging(0.1, 0.2) == "#80B8D8"
    assert colours.diverging(-0.1, 0.2) == "#EAAE80"
    drawn = svg.figure_html(heatmap.topic_heatmap(table, baseline="base"))
    assert 'fill="#FFFFFF"' in drawn and f'fill="{colours.LOSS}"' in drawn
    (plain,) = heatmap.topic_heatmap(table).panels
    assert plain.scale == "sequential"


def test_evaluate_with_a_baseline_maps_its_differences_on_the_diverging_scale():
    result = divaeval.evaluate(RUNS[:2], QRELS, "alpha-nDCG@20", baseline=RUNS[2])
    panel = result.figure().panels[0]
    assert panel.scale == "diverging" and panel.low == -panel.high
    assert divaeval.evaluate(RUNS, QRELS, "alpha-nDCG@20").figure().panels[0].scale == (
        "sequential"
    )


def test_evaluate_figures_draw_the_values_evaluate_prints():
    printed = divaeval.evaluate(RUNS, QRELS, ["alpha-nDCG@5,10,20", "strec@5,10,20"]).table()
    heat = heatmap.topic_heatmap(printed, ["alpha-nDCG@20"])
    merged = heat.data.merge(printed, on=["run", "topic", "measure"])
    assert len(merged) == len(
        printed[(printed["measure"] == "alpha-nDCG@20") & (printed["topic"] != "all")]
    )
    np.testing.assert_array_equal(merged["value_x"], merged["value_y"].astype(float))
    curves = cutoffs.cutoff_curves(printed)
    assert [p.title for p in curves.panels] == ["alpha-nDCG@k", "strec@k"]
    means = printed[printed["topic"] == "all"]
    merged = curves.data.merge(means, on=["run", "measure"])
    assert len(merged) == 2 * 3 * 3
    np.testing.assert_array_equal(merged["mean"], merged["value"].astype(float))


def test_cutoff_families_need_two_cutoffs():
    assert cutoffs.cutoff_families(["P@5", "P@10", "ERR-IA@20", "ndeval"]) == {
        "P": [(5, "P@5"), (10, "P@10")]
    }
    assert cutoffs.cutoff_curves(long_table({"a": {"t": 1.0}}, "P@5")) is None


QRELS_TEXT = "1 a d1 1\n1 a d2 2\n1 b d3 1\n1 c d9 1\n"


def test_coverage_places_each_grade_at_its_rank_and_subtopic():
    # ranks: d2 (a, grade 2), dx (unjudged), d3 (b), d1 (a); subtopic c is never reached
    (rankings,) = judge_texts(
        QRELS_TEXT, ["1 Q0 d2 1 4 r\n1 Q0 dx 2 3 r\n1 Q0 d3 3 2 r\n1 Q0 d1 4 1 r\n"]
    )
    (item,) = coverage.coverage_of_rankings(rankings, ranks=5)
    assert item.subtopics == ("a", "b", "c") and item.length == 4
    np.testing.assert_array_equal(
        item.grades, [[2, 0, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 0]]
    )
    np.testing.assert_array_equal(item.judged, [True, False, True, True, False])
    np.testing.assert_array_equal(item.covered, [True, True, False])
    np.testing.assert_array_equal(item.first_rank, [1, 3, 0])
    figure = coverage.coverage_map([item])
    (panel,) = figure.panels
    assert panel.title == "r: 2 of 3 subtopics in the top 5"  # run named by its tag
    np.testing.assert_array_equal(panel.greyed_columns, [False, True, False, False, False])
    assert np.isnan(panel.values[0, 4])  # past the end of the ranking
    assert panel.tips[1, 2] == "rank 3 · subtopic b · grade 1"
    assert panel.tips[0, 1] == "rank 2 · subtopic a · unjudged"
    assert figure.data["grade"].sum() == 4


def test_intent_breakdowns_count_what_each_run_retrieves():
    run_1 = "1 Q0 d2 1 4 r\n1 Q0 d3 2 3 r\n1 Q0 d1 3 2 r\n"  # a twice, b once
    run_2 = "1 Q0 d9 1 4 r\n"  # c once
    items = [
        coverage.coverage_of_rankings(r, ranks=3)[0]
        for r in judge_texts(QRELS_TEXT, [run_1, run_2])
    ]
    (panel,) = intents.subtopic_breakdown(items).panels
    np.testing.assert_array_equal(panel.values, [[2, 0], [1, 0], [0, 1]])
    types = intents.type_breakdown({"one": [items[0]], "two": [items[1]]})
    # no types known: only "all"; run 1 reaches 2 of 3 subtopics, run 2 one of 3
    assert types.panels[0].columns == ("all",)
    np.testing.assert_allclose(types.data["share"], [2 / 3, 1 / 3])


def test_type_breakdown_splits_inf_and_nav():
    typed = coverage.TopicCoverage(
        "r",
        "1",
        ("a", "b", "c"),
        ("inf", "nav", "inf"),
        np.array([[1, 0, 0], [0, 0, 1]]),
        np.array([True, True]),
        2,
    )
    figure = intents.type_breakdown({"r": [typed]})
    assert figure.panels[0].columns == ("inf", "nav", "all")
    # inf: a and c both reached (2/2); nav: b missed (0/1); all 2/3
    np.testing.assert_allclose(figure.panels[0].values, [[1.0, 0.0, 2 / 3]])


def test_meta_and_collection_figures_draw_the_printed_tables():
    curves = pd.DataFrame(
        {
            "metric": ["M", "M", "N", "N"],
            "rank": [1, 2, 1, 2],
            "run_a": "a",
            "run_b": "b",
            "asl": [0.01, 0.2, 0.03, 0.5],
        }
    )
    (panel,) = asl.asl_curves(curves, 0.05).panels
    assert panel.reference == 0.05
    np.testing.assert_array_equal(panel.series["N"], [0.03, 0.5])

    printed = divaeval.unanimity(RUNS, QRELS, ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"]).frame
    np.testing.assert_array_equal(unanimity.unanimity_bars(printed).panels[0].values, printed["mu"])

    printed = divaeval.collection_table(QRELS).frame
    bars = difficulty.difficulty_bars(printed).panels[0]
    np.testing.assert_array_equal(bars.values, printed["dd"])
    assert bars.labels == tuple(printed["topic"].astype(str))

    printed = divaeval.sensitivity(QRELS, ["alpha-nDCG@20", "P-IA@20"], samples=20).frame
    grid = sensitivity.sensitivity_grid(printed)
    merged = grid.data.merge(printed, on=["measure", "topic"])
    assert len(merged) == len(printed[printed["topic"] != "all"])
    np.testing.assert_array_equal(merged["dss_x"], merged["dss_y"].astype(float))

    table = divaeval.evaluate(RUNS, QRELS, ["alpha-nDCG@20", "P-IA@20"], complete=True).table()
    printed = divaeval.correlation(RUNS, QRELS, ["alpha-nDCG@20", "P-IA@20"]).frame
    scored = divaeval.compare(RUNS, QRELS, ["alpha-nDCG@20", "P-IA@20"])
    (points,) = correlation.tau_scatter(scored.run_names, scored.tables, printed).panels
    assert points.title == f"alpha-nDCG@20 vs P-IA@20: τ_b = {printed['tau_b'][0]:.3f}"
    means = table[(table["topic"] == "all") & (table["measure"] == "alpha-nDCG@20")]
    np.testing.assert_allclose(points.x, means["value"].astype(float))


def test_nice_ticks_are_round_and_span_the_range():
    assert svg.nice_ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert svg.nice_ticks(-0.3, 0.6) == pytest.approx([-0.2, 0.0, 0.2, 0.4, 0.6])


def test_every_bar_cell_and_point_carries_its_hover_text():
    table = long_table(
        {"a": {"t1": 0.5, "t2": 0.1, "t3": 0.6}, "b": {"t1": 0.2, "t2": 0.4, "t3": 0.5}}
    )
    drawn = svg.figure_html(differences.against_baseline(table, "b", risk_alpha=1.0))
    assert drawn.count("<title>") == 3 and drawn.count('class="pale"') == 1
    assert drawn.count('class="win"') == 2 and drawn.count('class="loss"') == 1
    heat = svg.figure_html(heatmap.topic_heatmap(table))
    assert heat.count("<title>") == 6
    assert "<script" not in drawn + heat and "http" not in drawn + heat


def test_means_table_marks_the_best_and_significant_runs():
    means = pd.DataFrame(
        {
            "run": ["base", "good", "bad"],
            "measure": "M",
            "mean": [0.3, 0.5, 0.1],
            "ci_low": [0.2, 0.4, 0.0],
            "ci_high": [0.4, 0.6, 0.2],
            "significant": [False, True, True],
        }
    )
    html = page.means_table_html(means, baseline="base")
    assert "<strong>0.5000</strong>" in html and "<strong>0.3" not in html
    assert html.count("▲") == 1 and html.count("▼") == 1
    assert "[0.400, 0.600]" in html and "base <em>(baseline)</em>" in html


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_figures_are_saved_in_the_format_of_the_suffix(tmp_path, suffix):
    pytest.importorskip("matplotlib")
    table = long_table({"a": {"t1": 0.5, "t2": 0.1}, "b": {"t1": 0.2, "t2": 0.7}})
    path = tmp_path / f"figure{suffix}"
    draw.save(heatmap.topic_heatmap(table), path)
    start = path.read_bytes()[:8]
    assert start.startswith({".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}[suffix])
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left


def test_every_panel_kind_draws_with_matplotlib():
    pytest.importorskip("matplotlib")
    table = divaeval.evaluate(RUNS, QRELS, ["alpha-nDCG@5,10", "P-IA@10"], complete=True).table()
    figures = [
        differences.against_baseline(table, "ql-cata", risk_alpha=1.0),
        heatmap.topic_heatmap(table),
        cutoffs.cutoff_curves(table),
        divaeval.correlation(RUNS, QRELS, ["alpha-nDCG@10", "P-IA@10"]).figure(),
    ]
    plt = draw.pyplot()
    for figure in figures:
        drawn = draw.draw(figure)
        assert len([ax for ax in drawn.axes if ax.get_visible()]) >= len(figure.panels)
        plt.close(drawn)


def test_a_plot_file_with_another_suffix_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match=r"--plot .*figure\.gif: the file's suffix chooses"):
        draw.check_plot_file(tmp_path / "figure.gif")


def test_drawing_without_matplotlib_is_a_one_line_usage_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were absent
    with pytest.raises(
        UsageError, match=r"^drawing figures needs matplotlib: pip install 'divaeval\[plot\]'$"
    ):
        draw.check_plot_file(tmp_path / "figure.png")


def test_an_unwritable_plot_file_is_a_data_error(tmp_path):
    pytest.importorskip("matplotlib")
    from divaeval.errors import DataError

    table = long_table({"a": {"t1": 0.5}})
    with pytest.raises(DataError, match="cannot write output"):
        draw.save(heatmap.topic_heatmap(table), tmp_path / "missing" / "figure.png")
