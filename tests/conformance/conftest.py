"""The pipeline scenarios' fixtures (`world`, `interpret`), shared by every conformance module."""

from tests.conformance.test_pipeline import interpret, world

__all__ = ["interpret", "world"]
