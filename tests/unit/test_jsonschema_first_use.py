"""A portable schema's validator is compiled on first use: defining and registering compile none.

The counts are of calls of jsonschema-rs's compiler, so they hold however fast the machine is.
Each test's argument types have property names of their own: no other test compiled them before.
"""

from __future__ import annotations

import itertools
from typing import Any, TypedDict, cast

import jsonschema_rs
import pytest
from returns.pipeline import is_successful

from toolfx.core.jsonschema import CompiledSchema, compile_json_schema
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import Output, ToolDefinition, ToolExecutionSuccess, define_tool
from toolfx.interpreters.sync import run_sync

_TYPED_DICT: Any = TypedDict  # called with names made at run time (mypy wants literals)
_fresh = itertools.count()


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every schema jsonschema-rs compiles while the test runs."""
    compiled: list[object] = []
    compile_validator = jsonschema_rs.Draft202012Validator

    def counted(schema: Any, **options: Any) -> jsonschema_rs.Validator:
        compiled.append(schema)
        return compile_validator(schema, **options)

    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", counted)
    return compiled


def tools(count: int, *, differ: bool) -> list[ToolDefinition[Any, Any]]:
    """`count` tools, each with an argument type of its own: schemas equal, or a name each."""
    tag = next(_fresh)
    return [
        define_tool(
            name=f"tool_{i}",
            description="Count the path's length.",
            parameters=_TYPED_DICT(
                f"Args{i}", {f"first_use_{tag}_{i}" if differ else f"first_use_{tag}": str}
            ),
            output=Output(int),
            execute=lambda args, ctx: len(next(iter(args.values()))),
        )
        for i in range(count)
    ]


def call(location: Location, definition: ToolDefinition[Any, Any], path: str) -> object:
    """The result of calling a registered tool with `path` as its one argument."""
    schema = cast(dict[str, dict[str, object]], definition.parameters.json_schema)
    arguments = dict.fromkeys(schema["properties"], path)
    return run_sync(
        execute(location.catalog(), ToolCall("c", definition.name, arguments, CancelSignal()))
    )


def test_registering_tools_compiles_nothing_and_each_first_call_compiles_one(
    compiles: list[object],
) -> None:
    location = Location()
    defined = tools(50, differ=True)
    for definition in defined:
        location.register(definition)
    assert len(location.schemas()) == len(defined)
    assert compiles == []
    first = call(location, defined[0], "a/b")
    assert isinstance(first, ToolExecutionSuccess)
    assert first.value == 3
    assert len(compiles) == 1
    assert isinstance(call(location, defined[0], "a"), ToolExecutionSuccess)
    assert len(compiles) == 1  # compiled once: the second call uses it
    assert isinstance(call(location, defined[1], "a"), ToolExecutionSuccess)
    assert len(compiles) == 2  # each tool's on its own first call


def test_tools_with_equal_schemas_share_one_validator_compiled_once(
    compiles: list[object],
) -> None:
    defined = tools(20, differ=False)
    assert compiles == []
    validators = {id(d.parameters.compiled.validator) for d in defined}
    assert (len(validators), len(compiles)) == (1, 1)


def test_an_invalid_first_call_compiles_once_and_names_the_problem(
    compiles: list[object],
) -> None:
    (definition,) = tools(1, differ=True)
    assert compiles == []
    failure = definition.parameters.validate({"unknown": 1})
    assert not is_successful(failure)
    assert failure.failure().issues
    assert len(compiles) == 1


def test_a_first_use_during_another_compiles_an_equal_validator_and_one_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race of two threads first using a schema, played out on one: the second use comes
    while the first is compiling (no lock: the core has no threads). Each gets a right verdict
    from a validator of its own, and the one stored last serves every later use."""
    compiled = compile_json_schema(
        {"type": "object", "properties": {f"first_use_race_{next(_fresh)}": {"type": "string"}}}
    ).unwrap()
    compile_validator = jsonschema_rs.Draft202012Validator
    made: list[jsonschema_rs.Validator] = []
    verdicts: list[bool] = []
    raced: list[bool] = []

    def racing(schema: Any, **options: Any) -> jsonschema_rs.Validator:
        if not raced:  # the other thread's first use, while this one compiles
            raced.append(True)
            verdicts.append(compiled.is_valid_frozen({}))
        made.append(compile_validator(schema, **options))
        return made[-1]

    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", racing)
    verdicts.append(compiled.is_valid_frozen({}))
    assert verdicts == [True, True]
    assert len(made) == 2  # compiled twice, from the same text: equal validators
    assert compiled.validator is made[1]
    assert compiled.is_valid_frozen == made[1].is_valid
    assert not compiled.is_valid_frozen(1)
    assert len(made) == 2


def test_a_full_profile_schema_is_compiled_when_compiled(compiles: list[object]) -> None:
    schema = {"$defs": {"n": {"type": "string"}}, "$ref": "#/$defs/n", "title": f"{next(_fresh)}"}
    compiled: CompiledSchema = compile_json_schema(schema, "full").unwrap()
    assert len(compiles) == 1  # its refusals come from jsonschema-rs itself: checked now
    assert compiled.is_valid_frozen("text")
    assert len(compiles) == 1
