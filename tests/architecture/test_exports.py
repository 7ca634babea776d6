"""The public surface: what each public module exports exists, is documented and names its home."""

from __future__ import annotations

import importlib
import pickle
import types
import typing

import pytest

from tests.architecture.imports import DISTRIBUTIONS

PUBLIC_MODULES = [
    "toolfx.core",
    "toolfx.core.json",
    "toolfx.core.text",
    "toolfx.core.jsonschema",
    "toolfx.core.schema",
    "toolfx.core.runtime",
    "toolfx.core.tools",
    "toolfx.core.records",
    "toolfx.core.registry",
    "toolfx.core.pipeline",
    "toolfx.core.providers",
    "toolfx.core.public",
    "toolfx.leaves",
    "toolfx.leaves.mcp",
    "toolfx.interpreters",
    "toolfx.interpreters.anyio",
    "toolfx.interpreters.testing",
    "toolfx.interpreters.cli",
    "toolfx.testing",
    "toolfx.testing.conformance",
    "toolfx.testing.laws",
    "toolfx.testing.strategies",
]


def _exported(module_name: str) -> list[tuple[str, object]]:
    module = importlib.import_module(module_name)
    names: list[str] = list(module.__all__)
    return [(name, getattr(module, name)) for name in names]


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_every_exported_name_exists_is_public_and_documented(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert module.__doc__, f"{module_name} has no docstring"
    names = list(module.__all__)
    assert len(names) == len(set(names)), f"{module_name} exports a name twice"
    for name, value in _exported(module_name):
        assert not name.startswith("_"), f"{module_name} exports private {name}"
        if isinstance(value, type | types.FunctionType) and value.__module__.startswith("toolfx"):
            assert value.__doc__, f"{module_name}.{name} has no docstring"


@pytest.mark.parametrize("root", [*DISTRIBUTIONS, "toolfx.testing"])
def test_root_names_say_the_root_is_their_home(root: str) -> None:
    for name, value in _exported(root):
        if isinstance(value, type | types.FunctionType) and value.__module__.startswith(root):
            assert value.__module__ == root, f"{root}.{name} says it lives in {value.__module__}"
            home = importlib.import_module(value.__module__)
            assert getattr(home, value.__qualname__.split(".")[0]) is value


def test_face_names_are_on_the_root_or_keep_their_face() -> None:
    core = importlib.import_module("toolfx.core")
    for face in [m for m in PUBLIC_MODULES if m.startswith("toolfx.core.")]:
        for name, value in _exported(face):
            if name in core.__all__:
                assert getattr(core, name) is value, f"{face}.{name} differs from toolfx.core's"


def test_exported_values_pickle_by_their_public_name() -> None:
    from toolfx.core import ErrorCode, TextBlock, ToolExecutionSuccess, ToolFailure

    for value in (
        TextBlock("hi"),
        ToolExecutionSuccess("v", (TextBlock("v"),)),
        ErrorCode.DENIED,
        ToolFailure("no"),
    ):
        copy = pickle.loads(pickle.dumps(value))
        assert type(copy) is type(value)
        assert repr(copy) == repr(value)


def test_annotations_still_resolve_after_the_module_moved() -> None:
    core = importlib.import_module("toolfx.core")
    resolved = 0
    for name in ("TextBlock", "ImageBlock", "ToolCallView", "GenericCallCard", "ToolFailure"):
        value = getattr(core, name)
        if isinstance(value, type):
            typing.get_type_hints(value)
            resolved += 1
    assert resolved >= 4
