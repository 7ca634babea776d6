"""Asks over MCP: a form elicitation with one decision (once, always, reject) and optional
feedback, and the approval reply the client's answer means.

A client that declared form elicitation is asked; an answer that is not a valid decision, or an
ask the client could not receive, is `unavailable` (the call is denied), never an approval. The
ask names the call: its tool, the start of its arguments and the model's call id if the client
gave one (a JSON-RPC request id means nothing to the user), all made visible.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Final

import anyio
import mcp_types as types
from mcp import MCPError, ServerSession
from pydantic import ValidationError

from toolfx.core.json import FrozenJson, truncate
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback
from toolfx.interpreters.cli._approvals import ask_lines
from toolfx.interpreters.cli._visible import visible

__all__ = [
    "ASK_KEY",
    "ASK_SCHEMA",
    "CALL_ID_CHARS",
    "DECISIONS",
    "SUMMARY_CHARS",
    "ask_form",
    "call_summary",
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

SUMMARY_CHARS: Final = 160
"""At most this many characters of a call's arguments (as JSON) are shown in its ask."""

CALL_ID_CHARS: Final = 64
"""At most this many characters of the model's call id are shown in an ask."""

_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

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


def call_summary(tool: str, arguments: FrozenJson, call_id: str | None) -> str:
    """How an ask names a call: its tool, its arguments' JSON (cut to `SUMMARY_CHARS`) and the
    model's call id (cut to `CALL_ID_CHARS`), if any."""
    named = f"{tool} {_json_start(arguments, SUMMARY_CHARS)}"
    return named if call_id is None else f"{named} (call {truncate(call_id, CALL_ID_CHARS)})"


def _json_start(value: FrozenJson, limit: int) -> str:
    """`value` as compact JSON cut to `limit` characters, encoding little more than is shown."""
    chunks: list[str] = []
    size = 0
    for chunk in _ENCODER.iterencode(value):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            break
    return truncate("".join(chunks), limit)


def ask_form(request: ApprovalRequest, call_id: str | None) -> types.ElicitRequestFormParams:
    """The form elicitation that puts the ask to the client's user, naming the call (with the
    model's `call_id`, if the client gave one) and showing the request's preview, if any."""
    question = "Allow it once, always (for the rest of this session), or reject it?"
    named = call_summary(request.tool, request.arguments, call_id)
    lines = [visible(line, lines=False) for line in ask_lines(request, named)]
    if request.preview is not None:
        lines[-1:-1] = [visible(request.preview.removesuffix("\n")) or "(no change)"]
    message = "\n".join([*lines, question])
    return types.ElicitRequestFormParams(message=message, requested_schema=ASK_SCHEMA)


async def elicit(
    session: ServerSession,
    request: ApprovalRequest,
    call_id: str | None,
    related: types.RequestId | None,
) -> ApprovalReply:
    """Ask the client now, over the `related` request's back-channel (handshake-era connections)."""
    form = ask_form(request, call_id)
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
