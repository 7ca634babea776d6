"""Tool definitions: names, timeouts, object-rooted parameters, outputs and the default renderer."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from toolfx.core.tools import (
    Output,
    TextBlock,
    ToolDefinitionError,
    ToolOptions,
    ToolRunContext,
    define_tool,
    render_json,
)


class Args(TypedDict):
    path: str


def body(args: Args, ctx: ToolRunContext) -> int:
    return len(args["path"])


def make(name: str = "read", **extra: Any) -> object:
    return define_tool(
        name=name, description="d", parameters=Args, output=Output(int), execute=body, **extra
    )


@pytest.mark.parametrize("name", ["read", "Bash", "readFile", "ABC", "a-b_c", "x" * 64, "0"])
def test_valid_names_of_every_case_are_accepted(name: str) -> None:
    make(name)


@pytest.mark.parametrize("name", ["", "x" * 65, "has space", "dot.ted", "ümlaut", "a/b"])
def test_invalid_names_are_refused_naming_the_name(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="name") as caught:
        make(name)
    assert repr(name) in str(caught.value)


def test_invalid_namespace_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match=r"options\.namespace.*'b ad'"):
        make(options=ToolOptions(namespace="b ad"))


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan")])
def test_timeout_must_be_positive_and_finite(timeout: float) -> None:
    with pytest.raises(ToolDefinitionError, match="timeout"):
        make(timeout=timeout)


def test_parameters_must_describe_an_object() -> None:
    with pytest.raises(ToolDefinitionError, match=r"parameters.*JSON object"):
        define_tool(
            name="t", description="d", parameters=int, output=Output(int), execute=lambda a, c: a
        )


def test_definition_holds_the_derived_schemas_and_options() -> None:
    tool = define_tool(
        name="read",
        description="Read a file",
        parameters=Args,
        output=Output(int),
        execute=body,
        timeout=2.5,
    )
    assert tool.parameters.json_schema == {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    }
    assert tool.output.schema.json_schema == {"type": "integer"}
    assert tool.options == ToolOptions(namespace=None, codemode=True, permission=None)
    assert tool.timeout == 2.5
    assert tool.blocking is False


def test_default_renderer_shows_strings_as_text_and_the_rest_as_compact_json() -> None:
    assert render_json(None, "plain") == (TextBlock("plain"),)
    assert render_json(None, {"a": [1, "é"]}) == (TextBlock('{"a":[1,"é"]}'),)
