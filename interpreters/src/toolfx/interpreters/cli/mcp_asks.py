"""Asks over MCP: a form elicitation with one decision (once, always, reject) and optional
feedback, and the approval reply the client's answer means.

A client that declared form elicitation is asked; an answer that is not a valid decision, or an
ask the client could not receive, is `unavailable` (the call is denied), never an approval.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import MCPError, ServerSession
from pydantic import ValidationError

from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback
from toolfx.interpreters.cli.approvals import ask_lines
from toolfx.interpreters.cli.visible import visible

__all__ = [
    "ASK_KEY",
    "ASK_SCHEMA",
    "DECISIONS",
    "ask_form",
    "can_elicit",
    "elicit",
    "reply_of",
]

ASK_KEY: Final = "toolfx/approval"
"""The key of the ask among an input-required result's requests (2026-07-28 connections)."""

DECISIONS: Final[Mapping[str, ApprovalReply]] = {
    "once": "allowed-once",
    "always": "allowed-always",
    "reject": "rejected",
}
"""The form's decisions and the replies they mean."""

ASK_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "title": "Decision",
            "description": "once, always (for the rest of this session) or reject",
            "enum": list(DECISIONS),
        },
        "feedback": {
            "type": "string",
            "title": "Feedback",
            "description": "With reject: what the model should do instead (optional)",
        },
    },
    "required": ["decision"],
}
"""The form: a required decision and an optional feedback for the model."""

_UNREACHABLE: Final = (
    MCPError,
    ValidationError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
)
"""What asking a client raises when it cannot be asked, or answers outside the protocol."""

_log = logging.getLogger("toolfx.mcp")


def can_elicit(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client declared form elicitation (a bare `elicitation: {}` means form)."""
    elicitation = None if capabilities is None else capabilities.elicitation
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def ask_form(request: ApprovalRequest) -> types.ElicitRequestFormParams:
    """The form elicitation that puts the ask to the client's user."""
    question = "Allow it once, always (for the rest of this session), or reject it?"
    lines = [visible(line, lines=False) for line in ask_lines(request)]
    message = "\n".join([*lines, question])
    return types.ElicitRequestFormParams(message=message, requested_schema=ASK_SCHEMA)


async def elicit(
    session: ServerSession, request: ApprovalRequest, related: types.RequestId | None
) -> ApprovalReply:
    """Ask the client now, over the request's back-channel (handshake-era connections)."""
    form = ask_form(request)
    try:
        answer = await session.elicit_form(form.message, form.requested_schema, related)
    except _UNREACHABLE as error:
        _log.warning("could not ask the client about %s: %s", request.call_id, error)
        return "unavailable"
    return reply_of(answer, request)


def reply_of(answer: object, request: ApprovalRequest) -> ApprovalReply:
    """The reply the client's answer means: decline rejects, cancel cancels, accept decides."""
    if not isinstance(answer, types.ElicitResult):
        _log.warning("the client gave no answer to the ask of %s", request.call_id)
        return "unavailable"
    if answer.action == "decline":
        return "rejected"
    if answer.action == "cancel":
        return "cancelled"
    content = answer.content or {}
    decision = content.get("decision")
    reply = DECISIONS.get(decision) if isinstance(decision, str) else None
    if reply is None:
        _log.warning("the client answered the ask of %s with no valid decision", request.call_id)
        return "unavailable"
    feedback = content.get("feedback")
    if reply == "rejected" and isinstance(feedback, str) and feedback.strip():
        return RejectedWithFeedback(feedback.strip())
    return reply
