"""Durable records: the JSON-safe form of what a session log keeps, to write as JSONL and replay.

Wire conventions (shared with the content in `_content.py` and the cards in
`_cards.py`): snake_case in Python, the spec's camelCase on the wire (callId, rootCallId,
parentCallId, isError, mediaType, ...); discriminators (`type` of a block, `card`/`kind` of a
card, `event` of a record) come first; an optional field is omitted when it holds its default,
and JSON-valued fields (meta, details, arguments) take any JSON, so an explicit `null` there
reads as None. Every `*_from_json` takes any value, never raises, and fails with a `RecordError`
naming the JSON pointer of the first bad place; unknown keys and tags are errors. Every
`*_to_json` output is deep-frozen and survives json.dumps and parse_json unchanged (a JSON-valued
field that is not lossless JSON raises ValueError).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, final

from returns.result import Result

from toolfx.core.json import render_literal
from toolfx.core.records._content import (
    content_plain,
    durable_plain,
    failure_plain,
    read_content,
    read_durable,
    read_failure,
)
from toolfx.core.records._wire import (
    Invalid,
    RecordError,
    array,
    as_bool,
    as_json,
    as_str,
    decoding,
    field,
    freeze,
    optional,
    read_object,
    read_tag,
)
from toolfx.core.runtime import RejectedWithFeedback
from toolfx.core.tools import DurableResult, ToolExecutionSuccess, materialized

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.runtime import ApprovalReply, ApprovalRequest, Runtime
    from toolfx.core.tools import ContentBlock, ToolExecution, ToolExecutionResult, ToolFailure

__all__ = [
    "RecordFault",
    "RecordSink",
    "SessionRecord",
    "ToolApprovalRecord",
    "ToolCallRecord",
    "ToolCodeAnswerRecord",
    "ToolCodeDispatchRecord",
    "ToolResultRecord",
    "arguments_digest",
    "record_from_json",
    "write_record",
]


_Plain = dict[str, object]


_EVENTS: Final = (
    "tool/call",
    "tool/approval",
    "tool/result",
    "tool/code-dispatch",
    "tool/code-answer",
)


_REPLIES: Final = (
    "allowed-once",
    "allowed-always",
    "rejected",
    "cancelled",
    "unavailable",
    "deferred",
)


@final
@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """The `tool/call` event, written before execution: who called which tool with what."""

    call_id: str
    root_call_id: str
    name: str
    arguments: FrozenJson
    agent: str | None = None
    parent_call_id: str | None = None
    arguments_hash: str | None = None
    """`arguments_digest` of the arguments, written by a journaled run (recovery compares it)."""

    @property
    def event(self) -> Literal["tool/call"]:
        """The event tag on the wire."""
        return "tool/call"

    @classmethod
    def of(cls, execution: ToolExecution, parent_call_id: str | None = None) -> ToolCallRecord:
        """The record of a pending execution; the caller maps its parent token to a call id."""
        return cls(
            execution.call_id,
            execution.root_call_id,
            execution.name,
            execution.arguments,
            execution.agent,
            parent_call_id,
        )

    def to_json(self) -> FrozenJson:
        """The wire form: event, callId, rootCallId, name, arguments, agent, parentCallId and
        argumentsHash."""
        out: _Plain = {
            "event": "tool/call",
            "callId": self.call_id,
            "rootCallId": self.root_call_id,
            "name": self.name,
            "arguments": self.arguments,
        }
        if self.agent is not None:
            out["agent"] = self.agent
        if self.parent_call_id is not None:
            out["parentCallId"] = self.parent_call_id
        if self.arguments_hash is not None:
            out["argumentsHash"] = self.arguments_hash
        return freeze(out)

    @classmethod
    def from_json(cls, value: object) -> Result[ToolCallRecord, RecordError]:
        """Read a `tool/call` event from any value; never raises."""
        return decoding(_call_record, value)


@final
@dataclass(frozen=True, slots=True)
class ToolResultRecord:
    """The `tool/result` event: the durable projection of a call's final result."""

    call_id: str
    result: DurableResult

    @property
    def event(self) -> Literal["tool/result"]:
        """The event tag on the wire."""
        return "tool/result"

    @classmethod
    def of(cls, call_id: str, result: ToolExecutionResult) -> ToolResultRecord:
        """The record of a final live result (its canonical value is dropped).

        The result is materialized first (free for one the pipeline gave), so `to_json` never
        raises: a result built by hand with a field that is not JSON is recorded as the
        INVALID_TOOL_OUTPUT failure that says which field.
        """
        return cls(call_id, DurableResult.of(materialized(result, call_id)))

    def to_json(self) -> FrozenJson:
        """The wire form: event, callId and the durable result."""
        plain: _Plain = {
            "event": "tool/result",
            "callId": self.call_id,
            "result": durable_plain(self.result),
        }
        return freeze(plain)

    @classmethod
    def from_json(cls, value: object) -> Result[ToolResultRecord, RecordError]:
        """Read a `tool/result` event from any value; never raises."""
        return decoding(_result_record, value)


@final
@dataclass(frozen=True, slots=True)
class ToolCodeDispatchRecord:
    """The `tool/code-dispatch` event: one settled Code Mode sub-call as the log keeps it.

    It closes the sub-call's `tool/call` (no `tool/result` is written for a sub-call): the
    content is the copy the `code_dispatch_log` listeners left (the program got the value).
    """

    call_id: str
    parent_call_id: str
    name: str
    is_error: bool
    content: tuple[ContentBlock, ...]

    @property
    def event(self) -> Literal["tool/code-dispatch"]:
        """The event tag on the wire."""
        return "tool/code-dispatch"

    def to_json(self) -> FrozenJson:
        """The wire form: event, callId, parentCallId, name, isError and content."""
        plain: _Plain = {
            "event": "tool/code-dispatch",
            "callId": self.call_id,
            "parentCallId": self.parent_call_id,
            "name": self.name,
            "isError": self.is_error,
            "content": content_plain(self.content),
        }
        return freeze(plain)

    @classmethod
    def from_json(cls, value: object) -> Result[ToolCodeDispatchRecord, RecordError]:
        """Read a `tool/code-dispatch` event from any value; never raises."""
        return decoding(_code_dispatch_record, value)


@final
@dataclass(frozen=True, slots=True)
class ToolCodeAnswerRecord:
    """The `tool/code-answer` event: what one of a journaled program's sub-calls answered it.

    Written just before the sub-call's `tool/code-dispatch`, so that a program run again (resumed
    after an approval, or after a crash) gets the same answer without the call running again:
    the value (the canonical one, which no other record keeps) or the failure.
    """

    call_id: str
    value: FrozenJson = None
    error: ToolFailure | None = None
    """The failure the program was answered with (then `value` is None)."""

    @property
    def event(self) -> Literal["tool/code-answer"]:
        """The event tag on the wire."""
        return "tool/code-answer"

    @classmethod
    def of(cls, call_id: str, result: ToolExecutionResult) -> ToolCodeAnswerRecord:
        """The answer a settled sub-call's result gives (its value, or its failure)."""
        if isinstance(result, ToolExecutionSuccess):
            return cls(call_id, result.value)
        return cls(call_id, None, result.error)

    def to_json(self) -> FrozenJson:
        """The wire form: event, callId, and the value or the error."""
        out: _Plain = {"event": "tool/code-answer", "callId": self.call_id}
        if self.error is None:
            out["value"] = self.value
        else:
            out["error"] = failure_plain(self.error)
        return freeze(out)

    @classmethod
    def from_json(cls, value: object) -> Result[ToolCodeAnswerRecord, RecordError]:
        """Read a `tool/code-answer` event from any value; never raises."""
        return decoding(_code_answer_record, value)


@final
@dataclass(frozen=True, slots=True)
class ToolApprovalRecord:
    """The `tool/approval` event: what a call asked permission for, and the answer it got (not
    the request's `preview`: what the person was shown follows from the call, and is not kept)."""

    call_id: str
    permission: str
    patterns: tuple[str, ...]
    reason: str | None
    reply: ApprovalReply
    always: tuple[str, ...] = ()
    """The rules an `allowed-always` answer to this ask remembers (none: it counts as once)."""

    @property
    def event(self) -> Literal["tool/approval"]:
        """The event tag on the wire."""
        return "tool/approval"

    @classmethod
    def of(cls, request: ApprovalRequest, reply: ApprovalReply) -> ToolApprovalRecord:
        """The record of an answered ask."""
        return cls(
            request.call_id,
            request.permission,
            request.patterns,
            request.reason,
            reply,
            request.always,
        )

    def to_json(self) -> FrozenJson:
        """The wire form: event, callId, permission, patterns, reason, reply, feedback, always.

        A rejection with feedback is `reply: "rejected"` with the `feedback` text beside it;
        `always` is left out when the ask offers no rules.
        """
        out: _Plain = {
            "event": "tool/approval",
            "callId": self.call_id,
            "permission": self.permission,
            "patterns": list(self.patterns),
        }
        if self.reason is not None:
            out["reason"] = self.reason
        if isinstance(self.reply, RejectedWithFeedback):
            out.update(reply="rejected", feedback=self.reply.feedback)
        else:
            out["reply"] = self.reply
        if self.always:
            out["always"] = list(self.always)
        return freeze(out)

    @classmethod
    def from_json(cls, value: object) -> Result[ToolApprovalRecord, RecordError]:
        """Read a `tool/approval` event from any value; never raises."""
        return decoding(_approval_record, value)


SessionRecord = (
    ToolCallRecord
    | ToolApprovalRecord
    | ToolResultRecord
    | ToolCodeDispatchRecord
    | ToolCodeAnswerRecord
)


"""One tool event of a session log."""


def record_from_json(value: object) -> Result[SessionRecord, RecordError]:
    """Read any tool event, chosen by its `event` tag; never raises."""
    return decoding(_record, value)


def _expect_event(value: object, expected: str) -> None:
    event = read_tag(value, "event", _EVENTS, "event")
    if event != expected:
        reason = f"expected event {render_literal(expected)}, found {render_literal(event)}"
        raise Invalid(reason, ["event"])


def _call_record(value: object) -> ToolCallRecord:
    _expect_event(value, "tool/call")
    obj = read_object(
        value,
        ("event", "callId", "rootCallId", "name", "arguments"),
        ("agent", "parentCallId", "argumentsHash"),
    )
    return ToolCallRecord(
        field(obj, "callId", as_str),
        field(obj, "rootCallId", as_str),
        field(obj, "name", as_str),
        field(obj, "arguments", as_json),
        optional(obj, "agent", as_str, None),
        optional(obj, "parentCallId", as_str, None),
        optional(obj, "argumentsHash", as_str, None),
    )


def _result_record(value: object) -> ToolResultRecord:
    _expect_event(value, "tool/result")
    obj = read_object(value, ("event", "callId", "result"))
    return ToolResultRecord(field(obj, "callId", as_str), field(obj, "result", read_durable))


def _code_dispatch_record(value: object) -> ToolCodeDispatchRecord:
    _expect_event(value, "tool/code-dispatch")
    obj = read_object(value, ("event", "callId", "parentCallId", "name", "isError", "content"))
    return ToolCodeDispatchRecord(
        field(obj, "callId", as_str),
        field(obj, "parentCallId", as_str),
        field(obj, "name", as_str),
        field(obj, "isError", as_bool),
        field(obj, "content", read_content),
    )


def _code_answer_record(value: object) -> ToolCodeAnswerRecord:
    _expect_event(value, "tool/code-answer")
    obj = read_object(value, ("event", "callId"), ("value", "error"))
    call_id = field(obj, "callId", as_str)
    if ("value" in obj) == ("error" in obj):
        raise Invalid("expected exactly one of the keys 'value' and 'error'")
    if "error" in obj:
        return ToolCodeAnswerRecord(call_id, None, field(obj, "error", read_failure))
    return ToolCodeAnswerRecord(call_id, field(obj, "value", as_json))


def _approval_record(value: object) -> ToolApprovalRecord:
    _expect_event(value, "tool/approval")
    obj = read_object(
        value,
        ("event", "callId", "permission", "patterns", "reply"),
        ("reason", "feedback", "always"),
    )
    reply: ApprovalReply = field(obj, "reply", _reply)
    if "feedback" in obj:
        if reply != "rejected":
            raise Invalid("unexpected key 'feedback' unless the reply is 'rejected'", ["feedback"])
        reply = RejectedWithFeedback(field(obj, "feedback", as_str))
    return ToolApprovalRecord(
        field(obj, "callId", as_str),
        field(obj, "permission", as_str),
        field(obj, "patterns", lambda items: array(items, as_str)),
        optional(obj, "reason", as_str, None),
        reply,
        optional(obj, "always", lambda items: array(items, as_str), ()),
    )


def _reply(value: object) -> ApprovalReply:
    text = as_str(value)
    for reply in _REPLIES:
        if text == reply:
            return reply
    raise Invalid(f"unknown approval reply {render_literal(text)}")


def _record(value: object) -> SessionRecord:
    event = read_tag(value, "event", _EVENTS, "event")
    if event == "tool/call":
        return _call_record(value)
    if event == "tool/approval":
        return _approval_record(value)
    if event == "tool/code-dispatch":
        return _code_dispatch_record(value)
    if event == "tool/code-answer":
        return _code_answer_record(value)
    return _result_record(value)


def arguments_digest(arguments: FrozenJson) -> str:
    """A digest of JSON arguments (SHA-256 of their canonical text: sorted keys, no spaces), so
    `1`, `1.0` and `true` differ, and key order does not matter."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


RecordSink = Callable[[SessionRecord], None]


"""Receives the durable events: `tool/call` before a call runs, `tool/result` after."""


@final
@dataclass(frozen=True, slots=True)
class RecordFault:
    """A record the sink failed to take, and the exception it raised."""

    record: SessionRecord
    error: Exception


def write_record(runtime: Runtime, sink: RecordSink, record: SessionRecord) -> Exception | None:
    """Give `record` to `sink`; an exception it raises is reported to the runtime and returned."""
    try:
        sink(record)
    except Exception as error:  # contained: a broken log must not lose or change a result
        runtime.report(error, f"the record sink, taking the `{record.event}` of {record.call_id}")
        return error
    return None
