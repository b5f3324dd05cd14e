"""Test configuration shared by every test module.

Hypothesis explores new random examples on developer machines; under CI (``CI`` set) it is
derandomized, so a CI run is reproducible and cannot fail on an example nobody has seen.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
