"""pydantic models as schema types: @tool arguments and outputs, define_tool, core without it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest
from pydantic import BaseModel, Field, field_validator

from toolfx.core import (
    CancelSignal,
    ErrorCode,
    Location,
    Output,
    SchemaDerivationError,
    ToolCall,
    ToolDefinition,
    ToolDefinitionError,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolRunContext,
    call,
    define_tool,
    described,
    execute,
    schema_of,
    tool,
)
from toolfx.interpreters import run_sync


class Address(BaseModel):
    city: str
    zip: str = Field(pattern=r"^[0-9]{5}$")


class User(BaseModel):
    """A user of the system."""

    name: str
    age: int = Field(default=0, ge=0)
    address: Address | None = None

    @field_validator("name")
    @classmethod
    def no_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the name is blank")
        return value


class Card(BaseModel):
    title: str
    tags: list[str] = []


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


def run(definition: ToolDefinition[Any, Any], arguments: object) -> ToolExecutionResult:
    location = Location()
    _ = location.register(definition)
    request = ToolCall("call-1", definition.name, arguments, CancelSignal())
    return run_sync(execute(location.catalog(), request))


@tool
def describe(user: User, note: str = "") -> Card:
    """Describe a user.

    Args:
        user: Who to describe.
        note: Added to the title.
    """
    city = user.address.city if user.address else "nowhere"
    return Card(title=f"{user.name} ({user.age}) of {city}{note}", tags=[city])


def test_a_model_argument_gets_the_models_schema_with_refs_inlined() -> None:
    declared: Any = describe.parameters.json_schema
    user = declared["properties"]["user"]
    assert user["description"] == "Who to describe."
    assert user["required"] == ["name"]
    assert user["properties"]["age"]["minimum"] == 0
    branches = user["properties"]["address"]["anyOf"]
    assert branches[0]["properties"]["zip"]["pattern"] == "^[0-9]{5}$"
    assert "$defs" not in user
    assert describe.parameters.compiled.checked.profile == "full"


def test_model_arguments_are_validated_and_decoded_by_the_model() -> None:
    arguments = {"user": {"name": "Ada", "age": 36, "address": {"city": "London", "zip": "12345"}}}
    result = run(describe, arguments)
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == {"title": "Ada (36) of London", "tags": ["London"]}


def test_invalid_model_arguments_fail_naming_the_path() -> None:
    result = run(describe, {"user": {"name": "Ada", "age": -1, "address": {"city": "x"}}})
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS
    assert "/user/age" in result.error.message
    assert "/user/address" in result.error.message


def test_what_only_the_models_validators_refuse_is_invalid_arguments_with_its_path() -> None:
    result = run(describe, {"user": {"name": "  "}})
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_ARGS
    assert "/user/name" in result.error.message
    assert "the name is blank" in result.error.message


def test_a_model_output_is_dumped_to_json_and_decoded_back_by_call() -> None:
    location = Location()
    _ = location.register(describe)
    given = {"user": {"name": "Bo"}, "note": "!"}
    outcome = run_sync(described(call(location.catalog(), describe, call_id="c")(given)))
    assert outcome.unwrap() == Card(title="Bo (0) of nowhere!", tags=["nowhere"])


def test_a_model_output_the_model_refuses_is_invalid_tool_output() -> None:
    @tool
    def broken(n: int) -> Address:
        """Broken."""
        return Address.model_construct(city="x", zip="nope")

    result = run(broken, {"n": 1})
    assert isinstance(result, ToolExecutionFailure)
    assert result.error.code is ErrorCode.INVALID_TOOL_OUTPUT


def test_an_async_body_with_context_takes_and_gives_models() -> None:
    @tool
    async def rename(user: User, ctx: ToolRunContext) -> User:
        """Rename."""
        return user.model_copy(update={"name": ctx.call_id})

    result = run(rename, {"user": {"name": "x", "age": 2}})
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == {"name": "call-1", "age": 2, "address": None}


def test_define_tool_takes_a_model_as_its_parameters() -> None:
    definition = define_tool(
        name="greet",
        description="Greet",
        parameters=User,
        output=Output(str),
        execute=lambda user, ctx: f"hi {user.name}",
    )
    result = run(definition, {"name": "Cy"})
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == "hi Cy"


def test_a_recursive_model_is_refused_naming_it() -> None:
    with pytest.raises(SchemaDerivationError, match="Tree refers to itself"):
        schema_of(Tree)

    def grow(tree: Tree) -> int:
        """Grow."""
        return 0

    with pytest.raises(ToolDefinitionError, match=r"parameter 'tree' of function .*grow"):
        tool(grow)


def test_core_imports_and_derives_without_pydantic() -> None:
    program = textwrap.dedent(
        """
        import sys
        sys.modules["pydantic"] = None  # importing it now fails, as if it were not installed
        from dataclasses import dataclass
        from toolfx.core import schema_of, tool

        @dataclass(frozen=True)
        class Point:
            x: int

        @tool
        def move(point: Point) -> Point:
            '''Move.'''
            return point

        print(schema_of(Point).json_schema["required"], move.name)
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "['x'] move"
