"""Figures of evaluation results: each module builds one kind of figure as plain data
(:mod:`divaeval.plots.figure`) from score tables and judged grades; :mod:`divaeval.plots.draw`
draws them with matplotlib (``--plot``, ``.plot()``), :mod:`divaeval.plots.svg` as inline SVG
and :mod:`divaeval.plots.page` puts them in one self-contained HTML page (``divaeval report``).

Kinds: ``differences`` (per-topic wins and losses against a baseline, and ``prefer``'s
preferences), ``heatmap`` (runs × topics), ``coverage`` (ranks × subtopics of a run for a
topic), ``cutoffs`` (measure at k), ``intents`` (per subtopic and per inf/nav type), ``asl``,
``correlation`` (Kendall τ scatter), ``unanimity``, ``sensitivity`` and ``difficulty``.
"""
