"""The optional compiled loops (``divaeval/_native.c``), or None where they are not built.

divaeval computes the same numbers without them, bit for bit (numpy only; tests/test_native.py
runs both). ``pip install`` builds them where a C compiler is at hand; the environment variable
``DIVAEVAL_NATIVE=0`` turns them off.
"""

from __future__ import annotations

import os
from types import ModuleType

try:
    from divaeval import _native as _built
except ImportError:  # not built (no C compiler at install): numpy computes the same numbers
    _built = None

#: the compiled module, or None: not built, or turned off with DIVAEVAL_NATIVE=0
kernels: ModuleType | None = _built if os.environ.get("DIVAEVAL_NATIVE", "1") != "0" else None
