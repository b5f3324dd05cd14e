"""The process's C heap (glibc's malloc), where numpy and pyarrow keep their arrays.

Two controls, both doing nothing where the C library is not glibc:

- :func:`release_free_memory` gives memory that is free again back to the operating system
  (``malloc_trim``), where the resident size matters: before worker processes are forked,
  each of which would otherwise start with the heap that reading and indexing the qrels
  freed. Without workers that heap stays, to be reused without page faults.
- :func:`reuse_freed_memory` makes freed blocks of up to 32 MiB stay in the heap, to be reused.
  By default glibc maps blocks above a threshold (128 KiB, raised as large blocks are freed)
  afresh, unmaps them when freed, and trims the top of its heap as soon as twice the threshold
  is free there, so the temporaries of million-row array operations keep paying their size in
  page faults (5 ms for 8 MB on this VM). The command line calls it once at start; a program
  that imports divaeval keeps its own allocator settings.
"""

from __future__ import annotations

import ctypes
from typing import Any

#: blocks up to this size come from the heap and are reused once freed (glibc's maximum)
MMAP_THRESHOLD = 32 << 20
#: free memory at the top of the heap beyond this is given back at once
TRIM_THRESHOLD = 128 << 20

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_libc: list[Any] = []  # glibc, once looked up (None: another C library)


def _glibc() -> Any:
    if not _libc:
        try:
            libc = ctypes.CDLL("libc.so.6")
            libc.malloc_trim, libc.mallopt  # noqa: B018 (both must exist: glibc)
            _libc.append(libc)
        except (OSError, AttributeError):
            _libc.append(None)
    return _libc[0]


def release_free_memory() -> None:
    """Give memory that is free again back to the operating system (``malloc_trim``).
    pyarrow's reader leaves tens of MiB of freed blocks in the heaps of its threads, and
    indexing the qrels hundreds, which would otherwise stay in the process's resident size
    (and in every forked worker's) until it ends."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def reuse_freed_memory() -> bool:
    """Keep freed blocks below :data:`MMAP_THRESHOLD` in the heap for reuse, and trim its
    top only beyond :data:`TRIM_THRESHOLD` (``mallopt``); whether it took effect."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
