"""A server's elicitation requests, put to the runtime's approvals of the call that caused them.

A form elicitation becomes an `ApprovalRequest` for the tool call in flight (the call whose own
request carries the ask on a 2026-07-28 connection; on a handshake-era connection, where an
`elicitation/create` request names no call, the latest call still running), with the server's
message as the reason. The reply maps to the MCP answer: allowed (once or always) accepts,
rejected declines, cancelled or unavailable cancels. An accepted form is filled from what the
reply says: a `decision` field offering `once`/`always`/`reject` (the form `toolfx mcp serve`
asks with) gets the decision (and a rejection's feedback, when the form has a `feedback` field);
every other field its default. A form with a required field that cannot be filled so, a URL
elicitation, or an ask with no call in flight is cancelled, with a warning on `toolfx.mcp`.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Mapping
from typing import Any, Final, final

import mcp_types as types
from mcp.client.session import ClientRequestContext, ElicitationFnT

from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback
from toolfx.core.tools import ToolRunContext

__all__ = ["ELICITATION_PERMISSION", "CallsInFlight", "answer_form", "elicitation_handler"]

ELICITATION_PERMISSION: Final = "mcp_elicitation"
"""The permission action of an approval request that carries a server's elicitation."""

_DECISIONS: Final[Mapping[str, str]] = {"allowed-once": "once", "allowed-always": "always"}
"""The decision each allowing reply fills in, when the form offers it."""

_Entered = tuple[int, contextvars.Token["ToolRunContext | None"]]

_CURRENT: Final = contextvars.ContextVar[ToolRunContext | None]("toolfx_mcp_call", default=None)
"""The call whose request is being sent in this task (and the tasks it starts)."""

_log = logging.getLogger("toolfx.mcp")


@final
class CallsInFlight:
    """The calls of one connection that are running now, in the order they started."""

    __slots__ = ("_calls", "_next")

    def __init__(self) -> None:
        self._calls: dict[int, ToolRunContext] = {}
        self._next = 0

    def enter(
        self, context: ToolRunContext
    ) -> tuple[int, contextvars.Token[ToolRunContext | None]]:
        """Note that `context`'s call is running; give what `leave` needs."""
        key = self._next = self._next + 1
        self._calls[key] = context
        return key, _CURRENT.set(context)

    def leave(self, entered: _Entered) -> None:
        """Note that the call `enter` gave `entered` for is over."""
        key, token = entered
        del self._calls[key]
        _CURRENT.reset(token)

    def asking(self) -> ToolRunContext | None:
        """The call an ask belongs to: this task's call, else the latest still running."""
        current = _CURRENT.get()
        if current is not None:
            return current
        return next(reversed(self._calls.values()), None)


def elicitation_handler(calls: CallsInFlight, server: str) -> ElicitationFnT:
    """The SDK elicitation callback that puts each ask to the approvals of its call."""

    async def handle(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        call = calls.asking()
        if call is None or not isinstance(params, types.ElicitRequestFormParams):
            why = "no call of its is running" if call is None else "URL elicitation is not taken"
            _log.warning("MCP server %r asked the client something: cancelled (%s)", server, why)
            return types.ElicitResult(action="cancel")
        request = ApprovalRequest(
            call_id=call.call_id,
            tool=call.name,
            agent=call.agent,
            permission=ELICITATION_PERMISSION,
            patterns=(server,),
            reason=params.message,
            arguments=call.arguments,
        )
        reply = await call.runtime.approve(request, call.signal)
        answer = answer_form(reply, params.requested_schema)
        if answer is None:
            _log.warning("MCP server %r asked a form this client cannot fill: cancelled", server)
            return types.ElicitResult(action="cancel")
        return answer

    return handle


def answer_form(reply: ApprovalReply, schema: Mapping[str, Any]) -> types.ElicitResult | None:
    """The MCP answer a reply means for a form with `schema` (None: a form it cannot fill)."""
    if reply in ("cancelled", "unavailable", "deferred"):  # a server's form cannot wait
        return types.ElicitResult(action="cancel")
    properties = schema.get("properties")
    fields: Mapping[str, Any] = properties if isinstance(properties, Mapping) else {}
    offered = _offered_decisions(fields)
    if isinstance(reply, RejectedWithFeedback) or reply == "rejected":
        if not (isinstance(reply, RejectedWithFeedback) and "reject" in offered):
            return types.ElicitResult(action="decline")
        content: dict[str, Any] = {"decision": "reject"}
        if "feedback" in fields:
            content["feedback"] = reply.feedback
        return _filled(content, fields, schema)
    decision = _DECISIONS[reply]
    if decision not in offered:
        decision = "once" if "once" in offered else ""
    return _filled({"decision": decision} if decision else {}, fields, schema)


def _offered_decisions(fields: Mapping[str, Any]) -> tuple[str, ...]:
    decision = fields.get("decision")
    choices = decision.get("enum") if isinstance(decision, Mapping) else None
    return tuple(c for c in choices if isinstance(c, str)) if isinstance(choices, list) else ()


def _filled(
    content: dict[str, Any], fields: Mapping[str, Any], schema: Mapping[str, Any]
) -> types.ElicitResult | None:
    for name, field in fields.items():
        if name not in content and isinstance(field, Mapping) and "default" in field:
            content[name] = field["default"]
    required = schema.get("required")
    if isinstance(required, list) and any(name not in content for name in required):
        return None
    return types.ElicitResult(action="accept", content=content)
