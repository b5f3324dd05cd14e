"""Reference timing: pyndeval (ndeval 4.5's C code) on TREC files, parsed in plain Python the
way a pyndeval user would. Imposes trec-order by feeding score = -position, so it computes
exactly what ``divaeval -m ndeval`` computes. Usage: pyndeval_reference.py QRELS RUN..."""

from __future__ import annotations

import gzip
import sys

import pyndeval


def lines(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as handle:
        for line in handle:
            if line.strip():
                yield line.split()


def main() -> None:
    qrels_path, *run_paths = sys.argv[1:]
    qrels = [(t, s, d, int(g)) for t, s, d, g, *_ in lines(qrels_path)]
    for path in run_paths:
        by_topic: dict[str, list[tuple[float, str]]] = {}
        for t, _q0, d, _rank, score, *_ in lines(path):
            by_topic.setdefault(t, []).append((float(score), d))
        run = []
        for topic, docs in by_topic.items():
            docs.sort(key=lambda x: (-x[0], [-ord(c) for c in x[1]]))
            run.extend((topic, d, -float(i)) for i, (_, d) in enumerate(docs))
        result = pyndeval.ndeval(qrels, run)
        for topic in sorted(result):
            print(topic, *(f"{v:.6f}" for v in result[topic].values()))


if __name__ == "__main__":
    main()
