"""Nothing shared can be corrupted: catalog tables, compiled schemas, and declines (issue 11.5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

import pytest

from toolfx.core.registry import Location
from toolfx.core.schema import schema_of
from toolfx.core.tools import CALL_FAILURES, Output, PermissionDeclined, define_tool


class Args(TypedDict):
    text: str


def _location(mode: Any = "native") -> Location:
    location = Location()
    location.register(
        define_tool(
            name="echo",
            description="d",
            parameters=Args,
            output=Output(str),
            execute=lambda args, ctx: args["text"],
        )
    )
    location.add_scope("agent")
    location.present_as("agent", mode)
    return location


@pytest.mark.parametrize("mode", ["native", "code"])
def test_catalog_tables_are_read_only_and_distinct(mode: str) -> None:
    view = _location(mode).catalog("agent").view
    assert view.direct is not view.tools
    registration = view.tools["echo"]
    for table in (view.tools, view.direct, view.code):
        with pytest.raises(TypeError):
            table["evil"] = registration  # type: ignore[index]
        with pytest.raises((TypeError, AttributeError)):
            table.pop("echo", None)  # type: ignore[attr-defined]
    assert list(view.tools) == (["echo"] if mode == "native" else ["echo", "run_code"])
    assert list(view.code) == ["echo"]


def _attempts(schema: Any) -> list[Callable[[], object]]:
    def always(*args: object) -> bool:
        return True

    return [
        lambda: setattr(schema, "compiled", None),
        lambda: setattr(schema, "_is_valid", always),
        lambda: setattr(schema, "_decode", None),
        lambda: setattr(schema, "json_schema", {}),
        lambda: setattr(schema, "decode_or_failure", lambda value: (value, value)),
        lambda: delattr(schema, "compiled"),
        lambda: setattr(schema, "__dict__", {}),
        lambda: setattr(schema.compiled, "validator", None),
        lambda: setattr(schema.compiled, "validate", always),
        lambda: setattr(schema.compiled.validator, "is_valid", always),
        lambda: setattr(schema.compiled.validator, "iter_errors", always),
        lambda: setattr(schema.compiled.checked, "schema", {}),
        lambda: schema.json_schema.update({"type": "string"}),
    ]


@pytest.mark.parametrize("index", range(len(_attempts(None))))
def test_a_compiled_schema_cannot_be_made_to_accept_everything(index: int) -> None:
    schema = schema_of(Args)
    with pytest.raises((AttributeError, TypeError)):
        _attempts(schema)[index]()
    assert not hasattr(schema, "__dict__")
    assert schema.validate({"text": 3}).failure().issues
    assert schema.validate({"text": "ok"}).unwrap() == {"text": "ok"}


def test_a_decline_is_not_an_exception_but_a_call_failure() -> None:
    assert not issubclass(PermissionDeclined, Exception)
    assert issubclass(PermissionDeclined, CALL_FAILURES)
    assert not issubclass(KeyboardInterrupt, CALL_FAILURES)
