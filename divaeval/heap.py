"""The process's C heap (glibc's malloc), where numpy and pyarrow keep their arrays.

Three controls, each doing nothing where the C library is not glibc:

- :func:`release_free_memory` gives memory that is free again back to the operating system
  (``malloc_trim``), where the resident size matters: before worker processes are forked
  (each would otherwise start with the heap that reading and indexing the qrels freed).
- :func:`reuse_freed_memory` makes freed blocks of up to 32 MiB stay in the heap, to be reused.
  By default glibc maps blocks above a threshold (128 KiB, raised as large blocks are freed)
  afresh, unmaps them when freed, and trims the top of its heap as soon as twice the threshold
  is free there, so the temporaries of million-row array operations keep paying their size in
  page faults (5 ms for 8 MB on this VM).
- :func:`prepare_command_heap` does that, and backs the heap's next :data:`HUGE_PAGE_HEAP`
  bytes with transparent huge pages: a page fault then maps 2 MiB, not 4 KiB. Touching the
  heap the first time is a tenth or more of a command's CPU time: 44,000 faults for a
  1M-line ndeval run, 13,600 for the 9 TREC 2012 runs (what glibc does for the whole heap
  with ``GLIBC_TUNABLES=glibc.malloc.hugetlb=1``, which only the environment can set).
  ``DIVAEVAL_HUGE_PAGES=0`` leaves the pages as they are.

The command line prepares its heap once, before numpy loads (``divaeval/__main__.py``); a
program that imports divaeval keeps its own allocator settings.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

#: blocks up to this size come from the heap and are reused once freed (glibc's maximum)
MMAP_THRESHOLD = 32 << 20
#: free memory at the top of the heap beyond this is given back at once
TRIM_THRESHOLD = 128 << 20

#: the heap reserved at start and backed by transparent huge pages (address space only until
#: touched; blocks of 32 MiB and more are mapped apart, where numpy asks for huge pages itself)
HUGE_PAGE_HEAP = 256 << 20
#: a transparent huge page (x86-64, arm64 with 4 KiB pages)
HUGE_PAGE = 2 << 20

# glibc's mallopt parameters (malloc.h), and madvise's advice (linux/mman.h)
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3
_MADV_HUGEPAGE = 14

_libc: list[Any] = []  # glibc, once looked up (None: another C library)


def _glibc() -> Any:
    if not _libc:
        try:
            libc = ctypes.CDLL("libc.so.6")
            libc.malloc_trim, libc.mallopt  # noqa: B018 (both must exist: glibc)
            libc.sbrk.restype = libc.malloc.restype = ctypes.c_void_p
            libc.sbrk.argtypes = [ctypes.c_ssize_t]
            libc.malloc.argtypes = [ctypes.c_size_t]
            libc.free.argtypes = [ctypes.c_void_p]
            libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
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


def prepare_command_heap() -> int:
    """Set up the command line's heap (see the module doc): freed blocks reused
    (:func:`reuse_freed_memory`), and :data:`HUGE_PAGE_HEAP` bytes of heap reserved at once
    (``M_TOP_PAD``) and advised to use transparent huge pages (``MADV_HUGEPAGE``). The bytes
    so advised (0: none; not glibc, no huge pages in this kernel, or
    ``DIVAEVAL_HUGE_PAGES=0``)."""
    if not reuse_freed_memory() or os.environ.get("DIVAEVAL_HUGE_PAGES") == "0":
        return 0
    libc = _glibc()
    before = libc.sbrk(0)
    if not libc.mallopt(_M_TOP_PAD, HUGE_PAGE_HEAP):
        return 0
    block = libc.malloc(1 << 20)  # (the heap grows by it and the pad, in one step)
    libc.free(block)
    top = libc.sbrk(0)
    # (free gave the block back: the heap kept about the pad, a little less)
    if not before or not top or top - before < HUGE_PAGE_HEAP // 2:
        return 0  # the heap did not grow where expected (brk refused): nothing advised
    start = -(-before // HUGE_PAGE) * HUGE_PAGE
    if libc.madvise(start, top - start, _MADV_HUGEPAGE) != 0:
        return 0  # a kernel without transparent huge pages
    return top - start
