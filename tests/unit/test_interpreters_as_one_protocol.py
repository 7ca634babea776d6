"""The three runners are one `Interpreter`; each runs a description on the runtime it is given,
and the deterministic one runs it on whatever its `wrap` makes of each run's runtime."""

from __future__ import annotations

from typing import Literal

import pytest

from toolfx.core.runtime import CancelSignal, DelegatingRuntime, Description, Interpreter, Runtime
from toolfx.interpreters.anyio import AnyioInterpreter, AnyioRuntime
from toolfx.interpreters.sync import SyncInterpreter, SyncRuntime
from toolfx.interpreters.testing import DeterministicInterpreter, DeterministicRuntime


class Counting(DelegatingRuntime):
    """Counts the sleeps it forwards."""

    def __init__(self, inner: Runtime) -> None:
        super().__init__(inner)
        self.sleeps = 0

    async def sleep(self, seconds: float, signal: CancelSignal | None = None) -> None:
        self.sleeps += 1
        await super().sleep(seconds, signal)


async def nap_then_tell(runtime: Runtime) -> tuple[Runtime, float]:
    before = runtime.now()
    await runtime.sleep(3600)
    return runtime, runtime.now() - before


NAP = Description(nap_then_tell)


@pytest.mark.parametrize(
    "interpreter",
    [SyncInterpreter(), AnyioInterpreter(), AnyioInterpreter("trio"), DeterministicInterpreter()],
    ids=["sync", "asyncio", "trio", "deterministic"],
)
def test_every_runner_is_an_interpreter(interpreter: object) -> None:
    assert isinstance(interpreter, Interpreter)
    assert not isinstance(SyncRuntime(), Interpreter)


def test_the_sync_interpreter_runs_on_the_runtime_it_was_given() -> None:
    runtime = SyncRuntime()
    assert SyncInterpreter(runtime).run(Description(_given)) is runtime
    assert isinstance(SyncInterpreter().run(Description(_given)), SyncRuntime)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_the_anyio_interpreter_runs_on_its_backend_and_runtime(
    backend: Literal["asyncio", "trio"],
) -> None:
    runtime = AnyioRuntime()
    assert AnyioInterpreter(backend, runtime).run(Description(_given)) is runtime
    assert isinstance(AnyioInterpreter(backend).run(Description(_given)), AnyioRuntime)


async def _given(runtime: Runtime) -> Runtime:
    return runtime


def test_wrap_gives_each_run_a_wrapper_around_a_fresh_deterministic_runtime() -> None:
    wrappers: list[Counting] = []

    def wrap(runtime: Runtime) -> Runtime:
        assert isinstance(runtime, DeterministicRuntime)
        wrappers.append(Counting(runtime))
        return wrappers[-1]

    interpreter = DeterministicInterpreter(seed=1, wrap=wrap)
    for _ in range(2):
        seen, slept = interpreter.run(NAP)
        assert seen is wrappers[-1]
        assert slept == 3600  # virtual time, through the wrapper
    assert [w.sleeps for w in wrappers] == [1, 1]
    assert wrappers[0].inner is not wrappers[1].inner
    assert [e.kind for e in interpreter.trace].count("sleep") == 1


def test_without_wrap_the_description_sees_the_deterministic_runtime() -> None:
    seen, _ = DeterministicInterpreter().run(NAP)
    assert isinstance(seen, DeterministicRuntime)
