"""How `toolfx mcp serve` puts a pipeline result on the wire: every failure's code in `_meta`."""

from __future__ import annotations

import json

import pytest

from toolfx.core.json import snapshot_json
from toolfx.core.tools import (
    ErrorCode,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionSuccess,
    ToolFailure,
)
from toolfx.interpreters.cli._mcp_calls import ERROR_META, call_result


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_failure_is_an_error_with_its_code_message_and_details_in_meta(
    code: ErrorCode,
) -> None:
    details = snapshot_json({"path": "a.txt", "limits": [1, 2]}).unwrap()
    failure = ToolFailure.of(code, f"it failed: {code}", details)
    wire = call_result(ToolExecutionFailure(failure, (TextBlock(f"it failed: {code}"),)))
    sent = json.loads(wire.model_dump_json(by_alias=True, exclude_none=True))
    assert sent == {
        "_meta": {
            ERROR_META: {
                "code": code.value,
                "message": f"it failed: {code}",
                "details": {"path": "a.txt", "limits": [1, 2]},
            }
        },
        "content": [{"type": "text", "text": f"it failed: {code}"}],
        "isError": True,
        "resultType": "complete",
    }


def test_an_object_value_is_structured_content_and_other_values_are_not() -> None:
    value = snapshot_json({"sum": 3}).unwrap()
    structured = call_result(ToolExecutionSuccess(value, (TextBlock('{"sum":3}'),)))
    assert structured.structured_content == {"sum": 3}
    assert structured.structured_content is value  # frozen already: not copied
    assert not structured.is_error
    for plain in ("3", 3, [1, 2], None):
        result = call_result(ToolExecutionSuccess(plain, (TextBlock("3"),)))
        assert result.structured_content is None
        assert result.meta is None
