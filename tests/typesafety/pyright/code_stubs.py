"""Pyright-strict: Code Mode stubs take plain JSON Schema data and give read-only mappings."""

from collections.abc import Mapping
from typing import assert_type

from toolfx.core import CodeStubs, StubTool, code_stubs

stubs = code_stubs([StubTool("read-file", "Read.", {"type": "object"})])
assert_type(stubs, CodeStubs)
assert_type(stubs.text, str)
assert_type(stubs.functions, Mapping[str, str])
assert_type(stubs.arguments, Mapping[str, Mapping[str, str]])
stubs.functions["x"] = "y"  # pyright: ignore[reportIndexIssue]
