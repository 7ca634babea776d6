"""The suite as `run_conformance` has pytest collect it; the factory comes from its plugin."""

from toolfx.testing.conformance import ConformanceSuite

__all__ = ["TestConformance"]


class TestConformance(ConformanceSuite):
    """Every scenario, against the factory `run_conformance` was given."""
