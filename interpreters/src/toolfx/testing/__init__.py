"""toolfx.testing: a kit for people who write or wrap interpreters.

- `FaultyRuntime`, `FaultPlan` and `faulty`: a `toolfx.core.runtime.DelegatingRuntime` whose
  capabilities raise on chosen uses; `SinkLog` a record sink that does.
- `Host` and `InterpreterFactory`: what a conformance scenario hands the interpreter under test
  (its approval service, defect and progress reporters, spill store), and how it gets one.

This package needs neither pytest nor hypothesis, so a production wrapper can build on it. Three
public modules need the `testing` extra of toolfx-interpreters: `toolfx.testing.conformance`
(pytest: `ConformanceSuite`, every scenario the built-in interpreters pass, to subclass with an
`interpreter_factory` fixture; `run_conformance`, which runs it without a test file and returns a
`ConformanceReport`), `toolfx.testing.strategies` (hypothesis: tool definitions, valid and hostile
calls, policies, batches) and `toolfx.testing.laws` (hypothesis: `LawfulDescription`, so returns'
`check_all_laws` checks `Description`).
"""

from toolfx.core.public import publish
from toolfx.testing._faulty_runtime import (
    Capability,
    CapabilityFault,
    FaultPlan,
    FaultyRuntime,
    SinkLog,
    faulty,
)
from toolfx.testing._host import Host, InterpreterFactory

__all__ = [
    "Capability",
    "CapabilityFault",
    "FaultPlan",
    "FaultyRuntime",
    "Host",
    "InterpreterFactory",
    "SinkLog",
    "faulty",
]

publish(__name__, __all__, globals())
