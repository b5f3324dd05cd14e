"""The report page (``divaeval report``): one self-contained HTML file. Every style, script and
figure is inline (no request to the network; it opens from an e-mail attachment or a CI
artifact); the figures are inline SVG (:mod:`divaeval.plots.svg`), and a short hand-written
script shows a tooltip on hover and switches the topic of the coverage maps. Without the script
the page still shows everything, with the browser's own tooltips."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

import numpy as np
import pandas as pd

from divaeval.plots.figure import Figure
from divaeval.plots.svg import figure_html

STYLE = """
:root{--ink:#1a1a1a;--muted:#555;--rule:#d0d0d0;--win:#0072B2;--loss:#D55E00}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1280px;padding:16px 20px 48px;color:var(--ink);
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:0 0 2px}
header p{margin:2px 0;color:var(--muted)}
section,figure.chart{margin:28px 0 0;padding-top:12px;border-top:1px solid var(--rule)}
figure.chart{margin-left:0;margin-right:0}
figcaption,.caption{color:var(--muted);margin:0 0 8px;max-width:75ch}
.panels{display:flex;flex-wrap:wrap;gap:12px 28px}
.cell{max-width:100%;overflow-x:auto}
svg.panel{max-width:100%;height:auto;display:block}
svg text{font-size:12px;fill:var(--ink)}
svg text.tick{font-size:11px;fill:#333}
svg text.title{font-size:13px;font-weight:600}
svg text.axis{font-size:12px;fill:var(--muted)}
svg .win{fill:var(--win)}svg .loss{fill:var(--loss)}svg .pale{fill:#F2B38F}
svg .plain{fill:#56B4E9}svg .grid{stroke:#e8e8e8}svg .zero{stroke:#333}
svg .ref{stroke:#777;stroke-dasharray:4 3}svg .unjudged{fill:#DDDDDD}
svg .frame{fill:#fff;stroke:#bbb}
svg [data-tip]:hover{stroke:#000;stroke-width:1.5}
table.means{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
table.means th,table.means td{padding:4px 10px;border-bottom:1px solid #e4e4e4;text-align:right}
table.means th:first-child,table.means td:first-child{text-align:left}
table.means td.m{background:linear-gradient(90deg,#cfe3f3 var(--w),transparent var(--w))}
table.means .ci{color:var(--muted);font-size:13px}
table.means .up{color:var(--win)}table.means .down{color:var(--loss)}
.verdict{font-size:17px;margin:6px 0}
.picker{margin:6px 0 10px}select{font:inherit;padding:2px 6px}
.signature{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;color:var(--muted);
overflow-wrap:anywhere}
#tip{position:fixed;z-index:9;pointer-events:none;background:#fff;border:1px solid #888;
padding:4px 8px;font-size:13px;max-width:420px;box-shadow:0 2px 6px rgba(0,0,0,.2)}
@media (max-width:700px){body{padding:8px}}
"""

SCRIPT = """
(function () {
  "use strict";
  var tip = document.getElementById("tip");
  Array.prototype.forEach.call(document.querySelectorAll("svg title"), function (title) {
    title.parentNode.setAttribute("data-tip", title.textContent);
    title.parentNode.removeChild(title);
  });
  function place(event) {
    var x = event.clientX + 14, y = event.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 4) {
      x = event.clientX - tip.offsetWidth - 10;
    }
    if (y + tip.offsetHeight > window.innerHeight - 4) {
      y = event.clientY - tip.offsetHeight - 10;
    }
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  document.addEventListener("mouseover", function (event) {
    var target = event.target.closest ? event.target.closest("[data-tip]") : null;
    if (!target) { tip.hidden = true; return; }
    tip.textContent = target.getAttribute("data-tip");
    tip.hidden = false;
    place(event);
  });
  document.addEventListener("mousemove", function (event) { if (!tip.hidden) { place(event); } });
  var picker = document.getElementById("topic");
  if (picker) {
    picker.addEventListener("change", function () {
      Array.prototype.forEach.call(document.querySelectorAll(".topic-view"), function (view) {
        view.hidden = view.getAttribute("data-topic") !== picker.value;
      });
    });
  }
})();
"""


@dataclass(frozen=True)
class TopicView:
    """The figures of one topic (coverage maps, subtopic breakdown) and its label in the
    topic picker."""

    topic: str
    label: str
    figures: Sequence[Figure]


def _best(means: pd.DataFrame, measure: str) -> float:
    values = means.loc[means["measure"] == measure, "mean"].to_numpy(np.float64)
    return float(np.nanmax(values)) if np.isfinite(values).any() else float("nan")


def means_table_html(means: pd.DataFrame, *, baseline: str | None = None) -> str:
    """The means table: runs × measures, each cell the mean with a bar of its size, its
    confidence interval, and ▲/▼ where the run is significantly above/below the baseline;
    the best mean of each measure in bold. ``means``: run, measure, mean, ci_low, ci_high and
    optionally significant (against the baseline)."""
    runs = list(dict.fromkeys(means["run"]))
    measures = list(dict.fromkeys(means["measure"]))
    cell = {(r.run, r.measure): r for r in means.itertuples(index=False)}
    head = "".join(f"<th>{escape(m)}</th>" for m in measures)
    best = {m: _best(means, m) for m in measures}
    top = {m: max(best[m], 1e-12) for m in measures}
    rows = []
    for run in runs:
        name = escape(run) + (" <em>(baseline)</em>" if run == baseline else "")
        cells = []
        for measure in measures:
            row = cell.get((run, measure))
            if row is None:
                cells.append("<td></td>")
                continue
            value = float(row.mean)
            share = max(0.0, min(1.0, value / top[measure])) * 100 if value == value else 0
            text = f"{value:.4f}"
            if value == best[measure]:
                text = f"<strong>{text}</strong>"
            mark = ""
            significant = getattr(row, "significant", False)
            if run != baseline and significant is True:
                base = cell.get((baseline, measure))
                above = base is not None and value > float(base.mean)
                mark = (
                    ' <span class="up" title="significantly above the baseline">▲</span>'
                    if above
                    else ' <span class="down" title="significantly below the baseline">▼</span>'
                )
            interval = ""
            if np.isfinite(float(row.ci_low)) and np.isfinite(float(row.ci_high)):
                low, high = float(row.ci_low), float(row.ci_high)
                interval = f' <span class="ci">[{low:.3f}, {high:.3f}]</span>'
            cells.append(f'<td class="m" style="--w:{share:.1f}%">{text}{mark}{interval}</td>')
        rows.append(f"<tr><td>{name}</td>{''.join(cells)}</tr>")
    return (
        f'<table class="means"><thead><tr><th>run</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def render_page(
    *,
    title: str,
    intro: Sequence[str],
    verdict: str,
    means_html: str,
    means_caption: str,
    figures_before: Sequence[Figure],
    topic_views: Sequence[TopicView],
    figures_after: Sequence[Figure],
    signature: str,
) -> str:
    """The whole page as one string: the header (``intro`` lines and the ``verdict``), the
    means table, ``figures_before``, the topic picker and each topic's figures (the first
    shown, the others hidden until picked), ``figures_after`` and the settings signature."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<header><h1>{escape(title)}</h1>",
        *(f"<p>{escape(line)}</p>" for line in intro),
        f'<p class="verdict">{escape(verdict)}</p></header>',
        '<section id="means"><h2>Means over topics</h2>',
        f'<p class="caption">{escape(means_caption)}</p>{means_html}</section>',
        *(figure_html(f, anchor=f.kind) for f in figures_before),
    ]
    if topic_views:
        options = "".join(
            f'<option value="{escape(v.topic)}"{" selected" if i == 0 else ""}>'
            f"{escape(v.label)}</option>"
            for i, v in enumerate(topic_views)
        )
        parts.append(
            '<section id="topics"><h2>One topic at a time</h2>'
            '<p class="caption">The topics where the runs differ most come first; choose '
            "another topic to see how each run covers its subtopics.</p>"
            + "".join(f'<p class="caption">{escape(f.caption)}</p>' for f in topic_views[0].figures)
            + '<p class="picker">'
            f'<label for="topic">Topic </label>'
            f'<select id="topic">{options}</select></p>'
        )
        for i, view in enumerate(topic_views):
            hidden = "" if i == 0 else " hidden"
            inner = "".join(figure_html(f, heading="h3", caption=False) for f in view.figures)
            parts.append(
                f'<div class="topic-view" data-topic="{escape(view.topic)}"{hidden}>{inner}</div>'
            )
        parts.append("</section>")
    parts += [
        *(figure_html(f, anchor=f.kind) for f in figures_after),
        '<section id="settings"><h2>Settings</h2>',
        f'<p class="signature">{escape(signature)}</p></section>',
        '<div id="tip" hidden></div>',
        f"<script>{SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts)
