"""The report page (``divaeval report``) looked at as a person would: rendered by headless
Chromium (driven over the DevTools protocol, tests/browser.py) at a laptop's window size, on the
nine TREC 2012 runs and their 50 topics. Checked: no JavaScript error, no request beyond the
file itself, every figure laid out at a non-zero size, the runs and topics on the page, a
tooltip on hover, another topic chosen in the picker; a screenshot is saved as an artifact
(``DIVAEVAL_ARTIFACTS``, default build/test-artifacts). Without Chromium the browser tests are
skipped, except under CI (``CI`` set), where they fail: .ci/run installs Debian's chromium
package."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import Browser, find_chromium
from support import ROOT, TREC2012, TREC2012_RUNS

pytestmark = pytest.mark.xdist_group("chromium")  # one browser start per test process

QRELS = str(TREC2012 / "qrels.diversity.txt.gz")
TOPICS = str(TREC2012 / "full-topics.xml")
MEASURES = ["alpha-nDCG@20", "ERR-IA@20"]
BASELINE = "ql-cata"
ARTIFACTS = Path(os.environ.get("DIVAEVAL_ARTIFACTS", ROOT / "build" / "test-artifacts"))


def build_page(path: Path) -> None:
    """``divaeval report`` of the nine runs, with the topics' subtopic types."""
    from divaeval.cli import main

    runs = [str(file) for file in TREC2012_RUNS.values()]
    code = main(
        ["report", *runs, QRELS, "--baseline", str(TREC2012_RUNS[BASELINE]), "--topics",
         TOPICS, "--risk-alpha", "1", "-m", MEASURES[0], "-m", MEASURES[1], "-o", str(path)]
    )  # fmt: skip
    assert code == 0


@pytest.fixture(scope="module")
def page_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    build_page(path)
    return path


@pytest.fixture(scope="module")
def browser(page_file):
    executable = find_chromium()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs Chromium for the report page tests (apt-get install chromium)")
        pytest.skip("Chromium not found (apt-get install chromium, or set CHROMIUM=/path)")
    with Browser(executable, width=1366, height=768) as opened:
        opened.open(page_file)
        yield opened


def test_the_page_for_nine_runs_and_fifty_topics_is_under_three_megabytes(page_file):
    assert page_file.stat().st_size < 3_000_000


def test_the_page_loads_nothing_and_logs_no_error(browser, page_file):
    assert browser.console_errors() == []
    assert browser.requests() == [page_file.resolve().as_uri()]


def test_every_figure_is_laid_out_and_the_runs_and_topics_are_on_the_page(browser):
    sizes = browser.evaluate(
        """Array.from(document.querySelectorAll('figure.chart'))
             .filter(f => !f.closest('[hidden]'))
             .map(f => [f.dataset.kind, f.getBoundingClientRect().width,
                        f.getBoundingClientRect().height,
                        Array.from(f.querySelectorAll('svg')).every(
                          s => s.getBoundingClientRect().width > 0
                               && s.getBoundingClientRect().height > 0)])"""
    )
    kinds = [kind for kind, *_ in sizes]
    assert kinds == ["differences", "heatmap", "coverage", "subtopics", "cutoffs", "types"]
    assert all(width > 0 and height > 0 and every for _, width, height, every in sizes), sizes
    text = browser.evaluate("document.body.innerText")
    for run in TREC2012_RUNS:
        assert run in text
    topics = browser.evaluate(
        "Array.from(document.querySelectorAll('#topic option'), o => o.value)"
    )
    assert sorted(topics, key=int) == [str(t) for t in range(151, 201)]
    # the page fits a laptop's width: nothing wider than the window
    assert browser.evaluate("document.documentElement.scrollWidth") <= 1366


def test_hovering_a_bar_shows_its_topic_run_and_value(browser):
    box = browser.evaluate(
        """(() => { const bar = document.querySelector('#differences rect.win[data-tip]');
                    bar.scrollIntoView({block: 'center'});
                    const r = bar.getBoundingClientRect();
                    return [r.left + r.width / 2, r.top + r.height / 2]; })()"""
    )
    browser.hover(*box)
    tip = browser.evaluate(
        "document.getElementById('tip').hidden ? null : document.getElementById('tip').textContent"
    )
    assert tip is not None and tip.startswith("topic ") and " − ql-cata · alpha-nDCG@20 +" in tip


def test_choosing_another_topic_shows_its_coverage_maps(browser):
    chosen = browser.evaluate(
        """(() => { const picker = document.getElementById('topic');
                    picker.value = picker.options[picker.options.length - 1].value;
                    picker.dispatchEvent(new Event('change'));
                    return picker.value; })()"""
    )
    shown = browser.evaluate(
        """Array.from(document.querySelectorAll('.topic-view'))
             .filter(v => !v.hidden).map(v => [v.dataset.topic,
               Array.from(v.querySelectorAll('svg')).map(s => s.getBoundingClientRect().height)])"""
    )
    assert len(shown) == 1 and shown[0][0] == chosen
    assert len(shown[0][1]) == 9 + 1 and all(h > 0 for h in shown[0][1])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.evaluate(
        "(() => { const p = document.getElementById('topic'); p.selectedIndex = 0;"
        " p.dispatchEvent(new Event('change')); })()"
    )
    browser.screenshot(ARTIFACTS / "report.png")
    assert (ARTIFACTS / "report.png").stat().st_size > 10_000
