"""How an approval reply answers an MCP server's form elicitation."""

from __future__ import annotations

from typing import Any

import pytest

from toolfx.core.runtime import ApprovalReply, RejectedWithFeedback
from toolfx.leaves.mcp._asks import answer_form

DECISION: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["once", "always", "reject"]},
        "feedback": {"type": "string"},
    },
    "required": ["decision"],
}
"""The form `toolfx mcp serve` asks with."""


@pytest.mark.parametrize(
    ("reply", "action", "content"),
    [
        ("allowed-once", "accept", {"decision": "once"}),
        ("allowed-always", "accept", {"decision": "always"}),
        ("rejected", "decline", None),
        (RejectedWithFeedback("use b"), "accept", {"decision": "reject", "feedback": "use b"}),
        ("cancelled", "cancel", None),
        ("unavailable", "cancel", None),
    ],
)
def test_a_decision_form_gets_the_decision(
    reply: ApprovalReply, action: str, content: dict[str, Any] | None
) -> None:
    answer = answer_form(reply, DECISION)
    assert answer is not None
    assert (answer.action, answer.content) == (action, content)


def test_other_forms_are_filled_from_defaults_or_not_at_all() -> None:
    confirm = {"type": "object", "properties": {"ok": {"type": "boolean", "default": True}}}
    answer = answer_form("allowed-once", confirm)
    assert answer is not None
    assert (answer.action, answer.content) == ("accept", {"ok": True})
    feedback_only = answer_form(RejectedWithFeedback("no"), confirm)
    assert feedback_only is not None
    assert feedback_only.action == "decline"
    needs_a_name = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    }
    assert answer_form("allowed-once", needs_a_name) is None
    yes_no = {
        "type": "object",
        "properties": {"decision": {"enum": ["yes", "no"]}},
        "required": ["decision"],
    }
    assert answer_form("allowed-once", yes_no) is None
