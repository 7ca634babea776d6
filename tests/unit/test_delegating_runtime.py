"""`DelegatingRuntime` hands every member of the `Runtime` protocol to its inner runtime, with the
arguments it was given and the answer the inner one gave; a member added to `Runtime` fails here
until it is forwarded and listed."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, cast

from toolfx.core.runtime import (
    ApprovalRequest,
    CancelSignal,
    DelegatingRuntime,
    ProgressEvent,
    Runtime,
)

SIGNAL = CancelSignal()
REQUEST = ApprovalRequest("c", "t", None, "edit", ("*",), None, None)


async def thunk() -> int:
    return 1


CALLS: dict[str, tuple[Any, ...]] = {
    "now": (),
    "sleep": (1.5, SIGNAL),
    "checkpoint": (),
    "gather": ([thunk], 2),
    "deadline": (3.0, SIGNAL, thunk),
    "run_blocking": (print,),
    "approve": (REQUEST, SIGNAL),
    "progress": (ProgressEvent("c", "t", 1.0),),
    "report": (RuntimeError("x"), "somewhere"),
}
"""Each method of the protocol, with arguments to call it with."""

PROPERTIES = frozenset({"files", "processes", "spills", "code", "remote"})
"""Each property of the protocol."""


def protocol_members() -> set[str]:
    return {name for name in vars(Runtime) if not name.startswith("_")}


def gives_nothing(name: str) -> bool:
    """Whether the protocol's method `name` returns None."""
    return bool(getattr(Runtime, name).__annotations__["return"] in {None, "None"})


class Inner:
    """A runtime that notes each use of a member, with its arguments, and answers it by name."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        member = inspect.getattr_static(Runtime, name)
        if isinstance(member, property):
            self.asked.append((name, (), {}))
            return ("answer", name)

        def answer(*args: Any, **kwargs: Any) -> Any:
            self.asked.append((name, args, kwargs))
            return None if gives_nothing(name) else ("answer", name)

        if inspect.iscoroutinefunction(member):

            async def answer_later(*args: Any, **kwargs: Any) -> Any:
                return answer(*args, **kwargs)

            return answer_later
        return answer


def finish(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """The value of a coroutine that never suspends."""
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the forwarded capability suspended")


def test_every_protocol_member_has_a_call_here() -> None:
    assert protocol_members() == set(CALLS) | PROPERTIES


def test_every_method_is_forwarded_with_its_arguments() -> None:
    for name, args in CALLS.items():
        inner = Inner()
        method: Callable[..., Any] = getattr(DelegatingRuntime(cast(Runtime, inner)), name)
        answer = method(*args)
        if inspect.iscoroutine(answer):
            answer = finish(answer)
        assert inner.asked == [(name, args, {})]  # positionally, as given
        assert answer == (None if gives_nothing(name) else ("answer", name))


def test_every_property_is_forwarded() -> None:
    for name in PROPERTIES:
        inner = Inner()
        assert getattr(DelegatingRuntime(cast(Runtime, inner)), name) == ("answer", name)
        assert inner.asked == [(name, (), {})]


def test_every_member_is_defined_on_the_class_itself() -> None:
    """Not inherited from the protocol's empty bodies."""
    assert protocol_members() <= set(vars(DelegatingRuntime))


def test_a_subclass_overrides_one_capability_and_keeps_the_others() -> None:
    class Frozen(DelegatingRuntime):
        def now(self) -> float:
            return 42.0

    inner = Inner()
    frozen = Frozen(cast(Runtime, inner))
    assert frozen.now() == 42.0
    assert finish(frozen.checkpoint()) is None
    assert inner.asked == [("checkpoint", (), {})]
