"""`model_call`: one call as a model sent it, made the way the wire formats' `calls` make them."""

from __future__ import annotations

from typing import Any

import pytest

from toolfx.core import CancelSignal, ErrorCode, Location, ToolExecutionFailure, execute
from toolfx.core.providers import model_call
from toolfx.interpreters import DeterministicInterpreter, MemoryFileSystem
from toolfx.leaves import Workspace, workspace_tools


def _catalog() -> Any:
    location = Location()
    for leaf in workspace_tools(Workspace("/ws")):
        location.register(leaf)
    return location.catalog()


def _run(call: Any) -> Any:
    files = MemoryFileSystem.from_files({"/ws/a.txt": "one\ntwo\n"})
    return DeterministicInterpreter(seed=1, files=files).run(execute(_catalog(), call))


@pytest.mark.parametrize(
    "arguments",
    [
        '{"path": "a.txt", "offset": null, "limit": null}',
        {"path": "a.txt", "offset": None, "limit": None},
    ],
)
def test_strict_nulls_are_undone_whether_the_arguments_are_text_or_a_value(
    arguments: object,
) -> None:
    call = model_call("r1", "read", arguments, _catalog())
    assert dict(call.arguments) == {"path": "a.txt"}  # type: ignore[call-overload]
    assert _run(call).content[0].text.startswith("     1\tone")


def test_nulls_stay_when_strict_mode_was_not_used() -> None:
    call = model_call(
        "r1", "read", {"path": "a.txt", "limit": None}, _catalog(), strict_nulls=False
    )
    assert isinstance(_run(call), ToolExecutionFailure)


@pytest.mark.parametrize("text", ['{"path": "a.txt"', '{"path": "a", "path": "b"}', "NaN"])
def test_text_that_is_not_json_is_a_call_failing_invalid_args_not_an_exception(text: str) -> None:
    call = model_call("r1", "read", text, _catalog())
    assert call.arguments == text
    result = _run(call)
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS


def test_blank_text_is_an_empty_object_and_the_signal_given_is_kept() -> None:
    signal = CancelSignal()
    call = model_call("g1", "glob", "  ", _catalog(), signal)
    assert call.arguments == {}
    assert call.signal is signal
