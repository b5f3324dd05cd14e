"""Drawing the resamples: seeds, the number of resamples B, the bootstrap's index vectors and
their counts, the randomisation test's sign vectors and randomised Tukey HSD's permuted
tables; and the pieces the work is cut into (:mod:`divaeval.parallel`).

Conventions (the same for every resampling analysis):

- every resampling function takes ``seed`` and draws from ``numpy.random.default_rng(seed)``
  (the PCG64 generator); the result records the seed and B actually used;
- **common random numbers**: the B bootstrap index vectors (or sign vectors) depend only on the
  seed, B and the number of topics, and the same ones serve every run pair, so a pair's ASL
  does not depend on which other runs are in the table;
- randomised Tukey HSD draws its permutations in blocks of :data:`RESAMPLE_BLOCK` (1000)
  resamples, block k from ``PCG64(seed).jumped(k)`` (numpy's independent streams for parallel
  work), so that the blocks can be drawn anywhere; block 0 is ``default_rng(seed)``'s own
  stream, so B ≤ 1000 draws what one stream draws. (Before these blocks every resample came
  from that one stream: with B > 1000 a seed now gives other permutations, as another seed
  would.)

Each function cuts its work into the pieces its serial loop goes through, each computed by the
same function on the same arrays wherever it runs; the random numbers are drawn from the seed
alone (in this process, or per Tukey block), never per worker, so the results are the same bits
whatever the workers: in process, ``--jobs N`` or a Dask cluster.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from divaeval.errors import UsageError

DEFAULT_SEED = 42
"""Fixed, documented default seed of every resampling procedure."""


GENERATOR_NAME = "PCG64"
"""Bit generator behind ``numpy.random.default_rng`` (recorded in signatures)."""


#: the most resamples any resampling analysis takes (B, --samples): 200 times the largest
#: default, and a bound on time and memory (a usage error above it)
MAX_RESAMPLES = 1_000_000


def check_resamples(count: int, option: str = "-B") -> int:
    """``count`` if it is a usable number of resamples, else a usage error."""
    if count < 1 or count > MAX_RESAMPLES:
        raise UsageError(f"{option} {count}: resamples must be between 1 and {MAX_RESAMPLES:,}")
    return count


def check_B(B: int, name: str = "B") -> int:
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise UsageError(f"{name} must be a positive integer, got {B!r}")
    return int(B)


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise UsageError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


# Elements per resampling chunk (keeps temporary arrays around 32 MB of float64).
CHUNK_ELEMENTS = 4_000_000


# Elements permuted at once by Tukey HSD (2 MB: in cache, faster than larger arrays; its results
# do not depend on it)
PERMUTED_ELEMENTS = 250_000


RESAMPLE_BLOCK = 1000
"""Resamples per block of randomised Tukey HSD: block k draws from ``PCG64(seed).jumped(k)``."""


def spans(total: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` of consecutive pieces of ``size`` (the last one shorter)."""
    return [(start, min(start + size, total)) for start in range(0, total, size)]


def in_slices(*arrays: np.ndarray, size: int):
    """The arrays (of equal length) in consecutive slices of ``size`` elements."""
    for start in range(0, len(arrays[0]), size):
        yield tuple(array[start : start + size] for array in arrays)


def bootstrap_indices(n_topics: int, B: int, seed: int) -> np.ndarray:
    """The B bootstrap index vectors ``[B, n_topics]`` drawn with replacement from ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_topics, size=(B, n_topics))


def resample_counts(indices: np.ndarray) -> np.ndarray:
    """How often each topic occurs in each resample: ``[B, N]`` float counts.

    A resample's sum of any per-topic value v is then ``counts @ v`` (one matrix product for
    every resample and run pair instead of a ``[pairs, B, N]`` gather).
    """
    n_samples, n_topics = indices.shape
    flat = (np.arange(n_samples)[:, None] * n_topics + indices).ravel()
    counts = np.bincount(flat, minlength=n_samples * n_topics)
    return counts.reshape(n_samples, n_topics).astype(np.float64)


def all_index_vectors(n_topics: int) -> np.ndarray:
    """All n^n index vectors (each once) in lexicographic order, for exact enumeration."""
    if n_topics > 7:
        raise UsageError(f"exact bootstrap enumeration is limited to 7 topics, got {n_topics}")
    grid = np.indices((n_topics,) * n_topics).reshape(n_topics, -1).T
    return np.ascontiguousarray(grid)


def sign_vector_chunks(n_topics: int, B: int, seed: int, chunk: int) -> Iterator[np.ndarray]:
    """The B sampled sign vectors as 0/1 bits, ``chunk`` at a time, from one stream (drawn
    here, in order, whatever the workers)."""
    rng = np.random.default_rng(seed)
    for start in range(0, B, chunk):
        size = min(chunk, B - start)
        yield rng.integers(0, 2, size=(size, n_topics), dtype=np.int8)


@dataclass(frozen=True)
class TukeyWork:
    """What every block of Tukey HSD's resamples needs (sent once to each worker)."""

    by_topic: np.ndarray  # [K, T, R]: K tables, each topic's values ascending, permuted in rows
    seed: int
    chunk: int  # resamples permuted at once (bounds memory)


def tukey_block(work: TukeyWork, block: tuple[int, int]) -> np.ndarray:
    """range_b = max − min of the permuted run means ``[K, size]`` of every table for the
    ``size`` resamples of block ``number``, drawn from ``PCG64(seed).jumped(number)`` (one
    task). Every table takes the same permutations: one table's values are permuted in place;
    for several, the permutations of the run positions are drawn once (the same random draws:
    a shuffle's draws do not depend on what it moves) and every table's values gathered
    through them, the same numbers in the same order as permuting each table."""
    number, size = block
    rng = np.random.Generator(np.random.PCG64(work.seed).jumped(number))
    n_tables, n_topics, n_runs = work.by_topic.shape
    ranges = np.empty((n_tables, size))
    positions = np.arange(n_runs, dtype=np.int16 if n_runs <= 2**15 else np.int64)
    offsets = (np.arange(n_topics) * n_runs)[None, :, None]  # topic t's values in a flat table
    flat = work.by_topic.reshape(n_tables, -1)
    for start in range(0, size, work.chunk):
        part = min(work.chunk, size - start)
        shape = (part, n_topics, n_runs)
        if n_tables == 1:
            permuted = [rng.permuted(np.broadcast_to(work.by_topic[0], shape), axis=-1)]
        else:
            order = rng.permuted(np.broadcast_to(positions, shape), axis=-1)
            # C order, so that the mean adds each run's topics one by one, as for one table
            gather = np.ascontiguousarray(order) + offsets
            permuted = [values[gather] for values in flat]
        for k, values in enumerate(permuted):
            run_means = values.mean(axis=1)  # [part, R]
            ranges[k, start : start + part] = run_means.max(axis=1) - run_means.min(axis=1)
    return ranges
