"""Asks answered by pydantic-ai's human in the loop: deferred tool calls.

An ask the human has not answered for this call raises `ApprovalRequired` with the ask as
metadata, so the run ends with `DeferredToolRequests`; the run resumed with
`DeferredToolResults(approvals={call_id: True})` calls the tool again with
`ctx.tool_call_approved`, which settles that ask as `allowed-once` and replays it. A denial
(`False` or `ToolDenied`) never reaches the tool: pydantic-ai tells the model itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic_ai import ApprovalRequired

if TYPE_CHECKING:
    from toolfx.core import ApprovalReply, ApprovalRequest
    from toolfx.interpreters._framework_asks import AskLedger, Decide

__all__ = ["deferred_asks"]


def deferred_asks(ledger: AskLedger, call_id: str, approved: bool) -> Decide:
    """`decide` for one run of a call: replay the human's answers, defer an unseen ask."""
    if approved:
        ledger.settle(call_id, "allowed-once")

    def decide(request: ApprovalRequest) -> ApprovalReply:
        reply = ledger.answer(call_id, request)
        if reply is not None:
            return reply
        raise ApprovalRequired(ledger.pend(call_id, request).describe())

    return decide
