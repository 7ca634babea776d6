"""Every conformance scenario in one class, run against the interpreter a user's fixture builds."""

from __future__ import annotations

from toolfx.testing._scenarios_bounding import BoundingScenarios
from toolfx.testing._scenarios_faults import FaultScenarios
from toolfx.testing._scenarios_materialization import MaterializationScenarios
from toolfx.testing._scenarios_pipeline import PipelineScenarios
from toolfx.testing._scenarios_progress import ProgressScenarios

__all__ = ["ConformanceSuite"]


class ConformanceSuite(
    PipelineScenarios,
    MaterializationScenarios,
    ProgressScenarios,
    BoundingScenarios,
    FaultScenarios,
):
    """Every scenario an interpreter must pass, as pytest test methods.

    Subclass it in a test module under a name pytest collects (`class TestMine(ConformanceSuite)`)
    and give it an `interpreter_factory` fixture (in the class, the module or a conftest) that
    returns an `InterpreterFactory`: each scenario calls it once with its `Host` and runs its
    descriptions on the `Interpreter` it builds. A parametrized fixture runs every scenario
    against each of its interpreters.
    """
