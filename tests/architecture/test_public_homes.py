"""Every exported class and function names its public home and keeps resolvable annotations."""

from __future__ import annotations

import importlib
import types
import typing
from pathlib import Path

import pytest

from tests.architecture.imports import load_tree, public_modules

FACES = public_modules(load_tree(Path(__file__).resolve().parents[2]))
"""Every public module: roots, faces, public leaves and the kit."""


def _ours(module_name: str) -> list[tuple[str, object]]:
    module = importlib.import_module(module_name)
    return [
        (name, value)
        for name in module.__all__
        if isinstance(value := getattr(module, name), type | types.FunctionType)
        and value.__module__.startswith("toolfx")
    ]


@pytest.mark.parametrize("module_name", FACES)
def test_no_exported_name_says_it_lives_in_a_private_module(module_name: str) -> None:
    private = [
        (name, value.__module__)
        for name, value in _ours(module_name)
        if any(part.startswith("_") for part in value.__module__.split("."))
    ]
    assert private == []


@pytest.mark.parametrize("module_name", FACES)
def test_get_type_hints_works_on_every_exported_class_and_function(module_name: str) -> None:
    failing = []
    for name, value in _ours(module_name):
        try:
            typing.get_type_hints(value)
        except Exception as error:  # the test lists every failure at once
            failing.append(f"{name}: {error!r}")
    assert failing == []


def test_type_only_names_resolve_to_the_objects_they_name() -> None:
    from toolfx.core import Catalog, ToolCall, ToolExecutionResult, execute

    hints = typing.get_type_hints(execute)
    assert hints["catalog"] is Catalog
    assert hints["call"] is ToolCall
    assert typing.get_args(hints["return"])[0] == ToolExecutionResult


@pytest.mark.parametrize("module_name", FACES)
def test_each_public_module_says_what_it_is_in_one_line(module_name: str) -> None:
    doc = importlib.import_module(module_name).__doc__ or ""
    summary = doc.split("\n\n")[0]
    assert "\n" not in summary.strip(), summary
    assert summary.strip().endswith("."), summary
