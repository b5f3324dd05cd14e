"""Metric families; each module registers its metrics on import."""
