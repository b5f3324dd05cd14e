"""A plain numpy randomised Tukey HSD (Carterette 2012; Sakai 2012, Figure 4): the reference
that ``bench/bench_analyses.py`` times ``divaeval compare --test tukey-hsd`` against.

``python bench/plain_tukey.py SCORES B SEED`` reads a score table as ``divaeval -q -f tsv``
writes it (run, topic, measure, value; one measure), permutes every topic's values across the
runs B times, and prints each run pair's p-value: the share of resamples whose range of run
means exceeds the pair's difference of means. It is what a numpy user writes for the test: a
loop over the resamples, ``Generator.permuted`` along the runs.
"""

from __future__ import annotations

import sys

import numpy as np


def score_matrix(path: str) -> tuple[list[str], np.ndarray]:
    """(runs, values[runs, topics]) of the per-topic rows of a long tsv score table."""
    runs: dict[str, dict[str, float]] = {}
    with open(path, encoding="utf-8") as handle:
        next(handle)  # the header line
        for line in handle:
            run, topic, _, value = line.rstrip("\n").split("\t")[:4]
            if topic != "all":
                runs.setdefault(run, {})[topic] = float(value)
    topics = sorted(next(iter(runs.values())))
    return list(runs), np.array([[row[t] for t in topics] for row in runs.values()])


def tukey_hsd(scores: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """p-values [runs, runs] of randomised Tukey HSD with ``samples`` resamples."""
    rng = np.random.default_rng(seed)
    ranges = np.empty(samples)
    for b in range(samples):
        means = rng.permuted(scores, axis=0).mean(axis=1)
        ranges[b] = means.max() - means.min()
    means = scores.mean(axis=1)
    differences = np.abs(means[:, None] - means[None, :])
    return (ranges[None, None, :] > differences[:, :, None]).mean(axis=2)


def main() -> None:
    path, samples, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    runs, scores = score_matrix(path)
    p_values = tukey_hsd(scores, samples, seed)
    for i, j in zip(*np.triu_indices(len(runs), k=1), strict=True):
        print(f"{runs[i]}\t{runs[j]}\t{p_values[i, j]}")


if __name__ == "__main__":
    main()
