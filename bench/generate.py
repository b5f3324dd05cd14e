"""Seeded synthetic diversity data for benchmarks (and reproducible by anyone).

``python bench/generate.py OUTDIR [--topics 10000] [--depth 100] [--subtopics 5]
[--judged 20] [--seed 42]`` writes ``OUTDIR/gen.qrels`` and ``OUTDIR/gen.run``: each topic has
``--subtopics`` subtopics; each subtopic judges ``--judged`` documents drawn from a pool of
3·judged documents (grades 0–2, about 60 % relevant); the run ranks ``--depth`` documents per
topic, about half of them judged, with strictly decreasing scores.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import pandas as pd


def generate(outdir: str, topics: int, depth: int, subtopics: int, judged: int, seed: int):
    rng = np.random.default_rng(seed)
    os.makedirs(outdir, exist_ok=True)
    pool = 3 * judged
    # qrels: topics × subtopics × judged (distinct docs per subtopic)
    picks = np.argsort(rng.random((topics, subtopics, pool)), axis=2)[:, :, :judged]
    grades = rng.choice([0, 1, 2], size=picks.shape, p=[0.4, 0.4, 0.2])
    t = np.repeat(np.arange(topics), subtopics * judged)
    s = np.tile(np.repeat(np.arange(1, subtopics + 1), judged), topics)
    qrels = pd.DataFrame(
        {
            "topic": t,
            "subtopic": s,
            "docno": pd.Series(picks.ravel()).map("d{}".format).to_numpy(),
            "grade": grades.ravel(),
        }
    )
    qrels_path = os.path.join(outdir, "gen.qrels")
    qrels.to_csv(qrels_path, sep=" ", header=False, index=False)
    # run: half from the pool, half unjudged, shuffled, strictly decreasing scores
    from_pool = np.argsort(rng.random((topics, pool)), axis=1)[:, : depth // 2]
    names = np.concatenate(
        [from_pool, pool + np.arange(depth - depth // 2)[None, :].repeat(topics, 0)], axis=1
    )
    order = np.argsort(rng.random((topics, depth)), axis=1)
    names = np.take_along_axis(names, order, axis=1)
    run = pd.DataFrame(
        {
            "topic": np.repeat(np.arange(topics), depth),
            "q0": "Q0",
            "docno": pd.Series(names.ravel()).map("d{}".format).to_numpy(),
            "rank": np.tile(np.arange(1, depth + 1), topics),
            "score": np.tile(np.linspace(100.0, 1.0, depth), topics).round(6),
            "tag": "gen",
        }
    )
    run_path = os.path.join(outdir, "gen.run")
    run.to_csv(run_path, sep=" ", header=False, index=False)
    return qrels_path, run_path


def generate_long_token(outdir: str, size: int, lines: int = 1000) -> tuple[str, str]:
    """A ``lines``-line run and qrels (10 topics) in which line ``lines // 2`` has a docno of
    ``size`` bytes, judged relevant: memory must follow the file, not rows × longest token."""
    os.makedirs(outdir, exist_ok=True)
    long = "d" + "x" * (size - 1)
    docs = [long if i == lines // 2 else f"d{i}" for i in range(lines)]
    run_path = os.path.join(outdir, f"long{size}.run")
    qrels_path = os.path.join(outdir, f"long{size}.qrels")
    with open(run_path, "w") as run:
        for i, doc in enumerate(docs):
            run.write(f"{1 + i * 10 // lines} Q0 {doc} {i % 100 + 1} {lines - i} long\n")
    with open(qrels_path, "w") as qrels:
        for i, doc in enumerate(docs):
            qrels.write(f"{1 + i * 10 // lines} {i % 3} {doc} {i % 3}\n")
    return qrels_path, run_path


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("outdir")
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--subtopics", type=int, default=5)
    parser.add_argument("--judged", type=int, default=20)
    parser.add_argument("--seed", type=int, default=42)
    a = parser.parse_args()
    print(*generate(a.outdir, a.topics, a.depth, a.subtopics, a.judged, a.seed))
