"""The hand-written `__init__`s of the per-call values keep the dataclasses exactly as declared."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from toolfx.core.runtime import CancelSignal, Description, new_description
from toolfx.core.tools import (
    ExecutionToken,
    TextBlock,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolFailure,
    new_success,
)

CLASSES = [Description, TextBlock, ToolExecution, ToolExecutionSuccess, ToolExecutionFailure]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_parameters_are_the_fields_with_their_defaults(cls: type) -> None:
    parameters = [(p.name, p.default) for p in inspect.signature(cls).parameters.values()]
    empty = inspect.Parameter.empty
    fields = [
        (f.name, empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(cls)
    ]
    assert parameters == fields


def test_values_are_stored_frozen_and_replaceable() -> None:
    success = ToolExecutionSuccess("v", (TextBlock("t"),))
    assert (success.meta, success.additional_contexts, success.concludes_turn) == (None, (), False)
    assert dataclasses.replace(success, meta={"a": 1}).meta == {"a": 1}
    with pytest.raises(dataclasses.FrozenInstanceError):
        success.value = "w"  # type: ignore[misc]
    failure = ToolExecutionFailure(ToolFailure("no"), (TextBlock("no"),))
    assert failure == ToolExecutionFailure(ToolFailure("no"), (TextBlock("no"),), None, ())
    token = ExecutionToken()
    execution = ToolExecution("c", "c", "t", {}, None, token, CancelSignal())
    moved = execution.with_signal(CancelSignal())
    assert (moved.token, moved.parent, moved.call_id) == (token, None, "c")
    assert repr(TextBlock("x")) == "TextBlock(text='x')"
    described = Description.of(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        described.program = described.program  # type: ignore[misc]
    assert Description(described.program) == described
    assert (
        repr(TextBlock("x", {"priority": 1})) == "TextBlock(text='x', annotations={'priority': 1})"
    )


def test_new_success_takes_every_field_and_builds_the_frozen_success() -> None:
    parameters = list(inspect.signature(new_success).parameters)
    assert parameters == [f.name for f in dataclasses.fields(ToolExecutionSuccess)]
    fields = (3, (TextBlock("t"),), None, (), True)
    built = new_success(*fields)
    assert type(built) is ToolExecutionSuccess
    assert built == ToolExecutionSuccess(*fields)
    assert hash(built) == hash(ToolExecutionSuccess(*fields))
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.value = 1  # type: ignore[misc]


def test_new_description_takes_every_field_and_builds_the_frozen_description() -> None:
    parameters = list(inspect.signature(new_description).parameters)
    assert parameters == [f.name for f in dataclasses.fields(Description)]
    program = Description.of(1).program
    built = new_description(program, None)
    assert type(built) is Description
    assert built == Description(program)
    assert (built.program, built.eager) == (program, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.eager = None  # type: ignore[misc]
