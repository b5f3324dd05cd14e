"""``python -m divaeval``."""

from divaeval.cli import entry_point

entry_point()
