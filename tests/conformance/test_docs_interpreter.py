"""The whole conformance suite against the custom interpreter docs/runtime.md writes: the sync
runtime wrapped in the page's tracing `DelegatingRuntime`, built by the page's `traced` factory.

The page's examples run first (they must pass), and the factory is taken from what they define,
so the interpreter checked here is the one the page shows."""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import pytest

from toolfx.core.runtime import Description, Runtime
from toolfx.interpreters.sync import SyncInterpreter
from toolfx.testing import Host, InterpreterFactory
from toolfx.testing.conformance import ConformanceSuite

PAGE = Path(__file__).parents[2] / "docs" / "runtime.md"


def page_examples() -> dict[str, Any]:
    """The names the page's examples define, once they have all passed."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(PAGE.read_text("utf-8"), {}, PAGE.name, str(PAGE), 0)
    outcome = doctest.DocTestRunner().run(test, clear_globs=False)
    assert outcome.failed == 0, f"{outcome.failed} examples of {PAGE} failed"
    return test.globs


@pytest.fixture(scope="module")
def interpreter_factory() -> InterpreterFactory:
    factory: InterpreterFactory = page_examples()["traced"]
    return factory


class TestTheDocsTracingInterpreter(ConformanceSuite):
    """Every conformance scenario under the page's traced sync interpreter."""


def test_the_page_interpreter_traces_what_it_runs(interpreter_factory: InterpreterFactory) -> None:
    async def nap(runtime: Runtime) -> str:
        await runtime.sleep(0)
        await runtime.checkpoint()
        return "rested"

    def ignore(*args: object) -> None:
        pass

    interpreter = interpreter_factory(Host(lambda request: "unavailable", ignore, ignore))
    assert isinstance(interpreter, SyncInterpreter)
    assert interpreter.run(Description(nap)) == "rested"
    assert vars(interpreter.runtime)["notes"] == ["sleep 0", "checkpoint"]  # the page's Tracer
