"""Test configuration shared by every test module.

Hypothesis explores new random examples on developer machines; under CI (``CI`` set) it is
derandomized, so a CI run is reproducible and cannot fail on an example nobody has seen.
"""

import os

import pytest
from hypothesis import settings

from divaeval.errors import set_warning_sink

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def collected_warnings():
    """divaeval's warnings collected in a list instead of printed on stderr. Modules whose
    tests should all run quietly use ``pytestmark = pytest.mark.usefixtures(...)``."""
    messages: list[str] = []
    previous = set_warning_sink(messages.append)
    yield messages
    set_warning_sink(previous)
