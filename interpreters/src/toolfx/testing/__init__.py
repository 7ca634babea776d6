"""toolfx.testing: a kit for people who write or wrap interpreters.

- `ConformanceSuite`: every scenario the built-in interpreters pass, as a pytest class to
  subclass with an `interpreter_factory` fixture (an `InterpreterFactory`: a `Host` in, an
  `Interpreter` out); `run_conformance` runs it without a test file and says what failed.
- `DelegatingRuntime`: a Runtime that forwards every capability to another, so a wrapper
  (tracing, fault injection) overrides only what it changes; `FaultyRuntime`, `FaultPlan` and
  `faulty` are one (capabilities that raise on chosen uses), `SinkLog` a record sink that does.

Two public modules need hypothesis: `toolfx.testing.strategies` (tool definitions, valid and
hostile calls, policies, batches) and `toolfx.testing.laws` (`LawfulDescription`, so returns'
`check_all_laws` checks `Description`). The kit needs pytest and hypothesis: the `testing` extra of
toolfx-interpreters.
"""

from toolfx.core.public import publish
from toolfx.testing._delegating import DelegatingRuntime
from toolfx.testing._faulty_runtime import (
    Capability,
    CapabilityFault,
    FaultPlan,
    FaultyRuntime,
    SinkLog,
    faulty,
)
from toolfx.testing._host import Host, InterpreterFactory
from toolfx.testing._report import ConformanceReport, run_conformance
from toolfx.testing._suite import ConformanceSuite

__all__ = [
    "Capability",
    "CapabilityFault",
    "ConformanceReport",
    "ConformanceSuite",
    "DelegatingRuntime",
    "FaultPlan",
    "FaultyRuntime",
    "Host",
    "InterpreterFactory",
    "SinkLog",
    "faulty",
    "run_conformance",
]

publish(__name__, __all__, globals())
