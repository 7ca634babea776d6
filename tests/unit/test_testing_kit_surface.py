"""The kit's public modules: a docstring that opens with one summary line, and every exported
class and function naming the module users import it from."""

from __future__ import annotations

import importlib
import types

import pytest

from toolfx.core.runtime import DelegatingRuntime
from toolfx.testing.conformance import ConformanceReport, ConformanceSuite, run_conformance

KIT = [
    "toolfx.testing",
    "toolfx.testing.conformance",
    "toolfx.testing.laws",
    "toolfx.testing.strategies",
]


@pytest.mark.parametrize("module_name", KIT)
def test_a_kit_module_docstring_opens_with_one_summary_line(module_name: str) -> None:
    doc = importlib.import_module(module_name).__doc__
    assert doc
    summary, _, rest = doc.partition("\n")
    assert summary.strip() == summary
    assert len(summary) <= 100
    assert summary.endswith(".")
    assert rest in {"", "\n"} or rest.startswith("\n"), f"{module_name}: no blank line after"


@pytest.mark.parametrize("module_name", KIT)
def test_a_kit_module_is_the_home_of_what_it_exports(module_name: str) -> None:
    module = importlib.import_module(module_name)
    homed = 0
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, type | types.FunctionType):
            assert value.__module__ == module_name, f"{module_name}.{name}: {value.__module__}"
            homed += 1
    assert homed


def test_reprs_name_the_public_module() -> None:
    assert repr(DelegatingRuntime) == "<class 'toolfx.core.runtime.DelegatingRuntime'>"
    assert repr(ConformanceSuite) == "<class 'toolfx.testing.conformance.ConformanceSuite'>"
    assert repr(ConformanceReport) == "<class 'toolfx.testing.conformance.ConformanceReport'>"
    assert run_conformance.__module__ == "toolfx.testing.conformance"
