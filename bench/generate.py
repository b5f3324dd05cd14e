"""Seeded synthetic diversity data for benchmarks (and reproducible by anyone).

``python bench/generate.py OUTDIR [--topics 10000] [--depth 100] [--subtopics 5]
[--judged 20] [--seed 42]`` writes ``OUTDIR/gen.qrels`` and ``OUTDIR/gen.run``: each topic has
``--subtopics`` subtopics; each subtopic judges ``--judged`` documents drawn from a pool of
3·judged documents (grades 0–2, about 60 % relevant); the run ranks ``--depth`` documents per
topic, about half of them judged, with strictly decreasing scores.

``--clueweb`` also writes ``cw.run`` and ``cw.qrels``, the same lines with distinct 25-byte
ClueWeb docnos and Indri-like scores (``clueweb_variant``; for the parse benchmarks).

The other generators write the larger or differently shaped inputs of ``make bench``:
``generate_adhoc`` an ordinary ad hoc run and qrels (``topic 0 docno grade``) for the trec_eval
comparison, ``generate_scaled`` runs of 1M to 100M lines against one qrels of bounded size,
written topic block by topic block in bounded memory. Both keep a finished file and reuse it
(a ``.done`` stamp next to it records the parameters), so only the first ``make bench`` pays.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterator

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


def _cached(paths: tuple[str, ...], params: dict, write: Callable[..., None]) -> tuple[str, ...]:
    """``paths``, written by ``write(*temporary_paths)`` unless a ``.done`` stamp beside the
    first records the same ``params``; written under temporary names and renamed, so an
    interrupted run leaves no file that looks finished."""
    stamp = paths[0] + ".done"
    wanted = json.dumps(params, sort_keys=True)
    if all(os.path.exists(path) for path in paths) and os.path.exists(stamp):
        with open(stamp) as handle:
            if handle.read() == wanted:
                return paths
    os.makedirs(os.path.dirname(paths[0]) or ".", exist_ok=True)
    if os.path.exists(stamp):
        os.remove(stamp)
    partial = [path + ".partial" for path in paths]
    write(*partial)
    for source, target in zip(partial, paths, strict=True):
        os.replace(source, target)
    with open(stamp, "w") as handle:
        handle.write(wanted)
    return paths


def _text_lines(*parts: np.ndarray) -> bytes:
    """One line per row: the parts (object arrays of str of one length) joined by spaces."""
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + " " + part
    return ("\n".join(joined.tolist()) + "\n").encode()


def _decimal(values: np.ndarray) -> np.ndarray:
    """Integers as an object array of their decimal strings."""
    return values.astype(str).astype(object)


def _constant(text: str, size: int) -> np.ndarray:
    return np.full(size, text, dtype=object)


def generate_adhoc(
    outdir: str, topics: int = 10_000, depth: int = 100, judged: int = 100, seed: int = 7
) -> tuple[str, str]:
    """An ordinary ad hoc qrels (``topic 0 docno grade``) and run (``topic Q0 docno rank score
    tag``), shaped like a TREC ad hoc track over an MS MARCO-sized collection; returns
    (qrels path, run path).

    Topics are numbered from 301; docnos are integers below 8,841,823 (MS MARCO passage ids).
    Each topic judges ``judged`` distinct documents with grades 0-3 (probabilities
    .55/.25/.12/.08: about 45 % relevant); the run ranks ``depth`` documents per topic, 60 % of
    them judged, by descending score, scores rounded to 3 decimals so that ties occur (trec_eval
    breaks them by docno descending, as divaeval's default ``--order score`` does).
    """
    qrels_path = os.path.join(outdir, f"adhoc-{topics}x{judged}.qrels")
    run_path = os.path.join(outdir, f"adhoc-{topics}x{depth}.run")
    params = {"topics": topics, "depth": depth, "judged": judged, "seed": seed, "version": 1}

    def write(qrels_target: str, run_target: str) -> None:
        rng = np.random.default_rng(seed)
        from_pool = min(judged, (depth * 3) // 5)
        # distinct over the whole collection, hence within each topic; in random order
        documents = rng.choice(8_841_823, size=(topics, judged + depth), replace=False)
        grades = rng.choice([0, 1, 2, 3], size=(topics, judged), p=[0.55, 0.25, 0.12, 0.08])
        names = _decimal(np.arange(301, 301 + topics))
        with open(qrels_target, "wb") as sink:
            sink.write(
                _text_lines(
                    np.repeat(names, judged),
                    _constant("0", topics * judged),
                    _decimal(documents[:, :judged].ravel()),
                    _decimal(grades.ravel()),
                )
            )
        retrieved = np.concatenate(
            [documents[:, :from_pool], documents[:, judged : judged + depth - from_pool]], axis=1
        )
        order = np.argsort(rng.random(retrieved.shape), axis=1)
        retrieved = np.take_along_axis(retrieved, order, axis=1)
        scores = -np.sort(-np.round(rng.gamma(4.0, 4.0, size=(topics, depth)), 3), axis=1)
        with open(run_target, "wb") as sink:
            sink.write(
                _text_lines(
                    np.repeat(names, depth),
                    _constant("Q0", topics * depth),
                    _decimal(retrieved.ravel()),
                    _decimal(np.tile(np.arange(1, depth + 1), topics)),
                    np.char.mod("%.3f", scores.ravel()).astype(object),
                    _constant("adhoc", topics * depth),
                )
            )

    qrels_path, run_path = _cached((qrels_path, run_path), params, write)
    return qrels_path, run_path


def _scaled_blocks(
    topics: int, per_block: int, seed: int, draw: Callable[[np.random.Generator, int], bytes]
) -> Iterator[bytes]:
    """The text of topics in blocks of ``per_block``, block ``b`` drawn from its own seeded
    generator (``[seed, b]``), so the files do not depend on memory or on earlier blocks."""
    for block, first in enumerate(range(0, topics, per_block)):
        yield draw(np.random.default_rng([seed, block]), first)


def generate_scaled(
    outdir: str,
    lines: int,
    topics: int = 100_000,
    subtopics: int = 3,
    judged: int = 10,
    seed: int = 42,
    block_lines: int = 500_000,
) -> tuple[str, str]:
    """A diversity run of ``lines`` lines over ``topics`` topics (``lines // topics`` documents
    each: 10, 100 and 1,000 for 1M, 10M and 100M lines over 100,000 topics, MS MARCO's shape at
    the top) and one qrels for every size: ``topics`` × ``subtopics`` × ``judged`` lines (3M).
    Returns (qrels path, run path).

    Each subtopic judges ``judged`` distinct documents of a pool of 3·judged, grades 0-2
    (probabilities .4/.4/.2), as ``generate``; the run ranks half its documents from the pool
    (at most the pool) and the rest unjudged, shuffled, with strictly decreasing scores. Both
    files are written in blocks of whole topics of about ``block_lines`` lines, each block from
    its own seeded generator: memory stays bounded (about 300 MB) whatever ``lines``, and the
    qrels is the same file for every run size. 100M lines take 3.2 GB of disk and about two
    minutes.
    """
    depth = lines // topics
    if depth * topics != lines or depth < 1:
        raise ValueError(f"{lines} lines is not a multiple of {topics} topics")
    pool = 3 * judged
    qrels_path = os.path.join(outdir, f"scale-{topics}x{subtopics}x{judged}.qrels")
    run_path = os.path.join(outdir, f"scale-{topics}x{depth}.run")
    scores = np.linspace(1000.0, 1.0, depth)
    tails = np.array([f"{i + 1} {scores[i]:.3f} scale" for i in range(depth)], dtype=object)
    docnos = np.array([f"d{i}" for i in range(pool + depth)], dtype=object)

    qrels_block_topics = max(1, block_lines // (subtopics * judged))
    run_block_topics = max(1, block_lines // depth)

    def qrels_block(rng: np.random.Generator, first: int) -> bytes:
        count = min(qrels_block_topics, topics - first)
        picks = np.argsort(rng.random((count, subtopics, pool)), axis=2)[:, :, :judged]
        grades = rng.choice([0, 1, 2], size=picks.shape, p=[0.4, 0.4, 0.2])
        return _text_lines(
            np.repeat(_decimal(np.arange(first, first + count)), subtopics * judged),
            np.tile(np.repeat(_decimal(np.arange(1, subtopics + 1)), judged), count),
            docnos[picks.ravel()],
            _decimal(grades.ravel()),
        )

    def run_block(rng: np.random.Generator, first: int) -> bytes:
        count = min(run_block_topics, topics - first)
        from_pool = min(depth // 2, pool)
        chosen = np.argsort(rng.random((count, pool)), axis=1)[:, :from_pool]
        unjudged = np.broadcast_to(pool + np.arange(depth - from_pool), (count, depth - from_pool))
        names = np.concatenate([chosen, unjudged], axis=1)
        order = np.argsort(rng.random((count, depth)), axis=1)
        names = np.take_along_axis(names, order, axis=1)
        return _text_lines(
            np.repeat(_decimal(np.arange(first, first + count)), depth),
            _constant("Q0", count * depth),
            docnos[names.ravel()],
            np.tile(tails, count),
        )

    def write_qrels(target: str) -> None:
        with open(target, "wb") as sink:
            for text in _scaled_blocks(topics, qrels_block_topics, seed, qrels_block):
                sink.write(text)

    def write_run(target: str) -> None:
        with open(target, "wb") as sink:
            for text in _scaled_blocks(topics, run_block_topics, seed + 1, run_block):
                sink.write(text)

    qrels_params = {"topics": topics, "subtopics": subtopics, "judged": judged, "seed": seed,
                    "block_lines": block_lines, "version": 1}  # fmt: skip
    run_params = {**qrels_params, "depth": depth}
    (qrels_path,) = _cached((qrels_path,), qrels_params, write_qrels)
    (run_path,) = _cached((run_path,), run_params, write_run)
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


def clueweb_variant(run_path: str, qrels_path: str, outdir: str, seed: int = 1):
    """``OUTDIR/cw.run`` and ``OUTDIR/cw.qrels``: the lines of ``generate``'s files with every
    docno made a distinct 25-byte ClueWeb-style one (``clueweb12-0000tw-00-09603``; docnos of
    different topics differ, as in real runs, where the generated ``d17`` repeat across
    topics) and Indri-like scores (``-5.37826``, seeded): token length and the number of
    distinct docnos matter to parsing."""
    os.makedirs(outdir, exist_ok=True)

    def docno(topic: bytes, doc: bytes) -> bytes:
        i = int(topic) * 300 + int(doc[1:])
        return b"clueweb12-%04dtw-%02d-%05d" % (i // 100000, (i // 1000) % 100, i % 1000 * 97)

    with open(run_path, "rb") as handle:
        lines = handle.read().splitlines()
    scores = np.sort(np.random.default_rng(seed).normal(-6, 1.5, len(lines)))[::-1]
    out_run = os.path.join(outdir, "cw.run")
    with open(out_run, "wb") as out:
        for line, score in zip(lines, scores.tolist(), strict=True):
            topic, _, doc, rank, _, _ = line.split()
            out.write(b"%s Q0 %s %s %.6g indri\n" % (topic, docno(topic, doc), rank, score))
    out_qrels = os.path.join(outdir, "cw.qrels")
    with open(qrels_path, "rb") as handle, open(out_qrels, "wb") as out:
        for line in handle:
            topic, subtopic, doc, grade = line.split()
            out.write(b"%s %s %s %s\n" % (topic, subtopic, docno(topic, doc), grade))
    return out_qrels, out_run


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("outdir")
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--subtopics", type=int, default=5)
    parser.add_argument("--judged", type=int, default=20)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--clueweb", action="store_true", help="also write cw.run and cw.qrels (clueweb_variant)"
    )
    a = parser.parse_args()
    qrels, run = generate(a.outdir, a.topics, a.depth, a.subtopics, a.judged, a.seed)
    print(qrels, run)
    if a.clueweb:
        print(*clueweb_variant(run, qrels, a.outdir))
    # the other shapes: python -c "from generate import generate_scaled; ..." from bench/
