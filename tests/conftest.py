"""Test configuration shared by every test module.

Hypothesis explores new random examples on developer machines; under CI (``CI`` set) it is
derandomized, so a CI run is reproducible and cannot fail on an example nobody has seen.
Neither profile times examples: timing belongs to bench/, and hypothesis's wall-clock checks
(the 200 ms deadline of each example, the too_slow health check) fail on a loaded machine (an
example of 0.8 ms took 259 ms under a load of 8 on two cores) whatever the code does.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

from divaeval.errors import set_warning_sink

settings.register_profile("untimed", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", settings.get_profile("untimed"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "untimed")


@pytest.fixture
def collected_warnings():
    """divaeval's warnings collected in a list instead of printed on stderr. Modules whose
    tests should all run quietly use ``pytestmark = pytest.mark.usefixtures(...)``."""
    messages: list[str] = []
    previous = set_warning_sink(messages.append)
    yield messages
    set_warning_sink(previous)
