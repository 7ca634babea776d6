"""Durable records: the JSON-safe form of what a session log keeps, to write as JSONL and replay.

Wire conventions (shared with the cards in records_cards.py): snake_case in Python, the spec's
camelCase on the wire (callId, rootCallId, parentCallId, isError, mediaType, ...); discriminators
(`type` of a block, `card`/`kind` of a card, `event` of a record) come first; an optional field is
omitted when it holds its default, and JSON-valued fields (meta, details, arguments) take any
JSON, so an explicit `null` there reads as None. Every `*_from_json` takes any value, never
raises, and fails with a `RecordError` naming the JSON pointer of the first bad place; unknown
keys and tags are errors. Every `*_to_json` output is deep-frozen and survives json.dumps and
parse_json unchanged (a JSON-valued field that is not lossless JSON raises ValueError).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, assert_never, final

from returns.result import Result

from toolfx.core.content import ContentBlock, ContextMessage, ImageBlock, TextBlock
from toolfx.core.execution import ToolExecution
from toolfx.core.failure import ErrorCode, ToolFailure
from toolfx.core.json_model import FrozenJson
from toolfx.core.json_render import render_literal
from toolfx.core.records_cards import (
    call_view_from_json,
    call_view_to_json,
    result_view_from_json,
    result_view_to_json,
)
from toolfx.core.records_wire import (
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
from toolfx.core.results import DurableResult, ToolExecutionResult

__all__ = [
    "RecordError",
    "SessionRecord",
    "ToolCallRecord",
    "ToolResultRecord",
    "call_view_from_json",
    "call_view_to_json",
    "content_from_json",
    "content_to_json",
    "context_from_json",
    "context_to_json",
    "contexts_from_json",
    "contexts_to_json",
    "durable_from_json",
    "durable_to_json",
    "failure_from_json",
    "failure_to_json",
    "record_from_json",
    "result_view_from_json",
    "result_view_to_json",
]

_Plain = dict[str, object]
_BLOCK_TYPES: Final = ("text", "image")
_EVENTS: Final = ("tool/call", "tool/result")


# Content, failures, contexts and durable results ----------------------------------------------


def content_to_json(blocks: Sequence[ContentBlock]) -> FrozenJson:
    """The wire form of model content: an array of type-tagged blocks."""
    return freeze(_content_plain(blocks))


def content_from_json(value: object) -> Result[tuple[ContentBlock, ...], RecordError]:
    """Read model content from any value; never raises."""
    return decoding(_content, value)


def failure_to_json(failure: ToolFailure) -> FrozenJson:
    """The wire form of a typed failure: message, code, and details when there are any."""
    return freeze(_failure_plain(failure))


def failure_from_json(value: object) -> Result[ToolFailure, RecordError]:
    """Read a typed failure from any value; never raises."""
    return decoding(_failure, value)


def context_to_json(message: ContextMessage) -> FrozenJson:
    """The wire form of a deferred context message: content, source, and meta if any."""
    return freeze(_context_plain(message))


def context_from_json(value: object) -> Result[ContextMessage, RecordError]:
    """Read a deferred context message from any value; never raises."""
    return decoding(_context, value)


def contexts_to_json(messages: Sequence[ContextMessage]) -> FrozenJson:
    """The wire form of a result's additional contexts: an array of context messages."""
    return freeze([_context_plain(message) for message in messages])


def contexts_from_json(value: object) -> Result[tuple[ContextMessage, ...], RecordError]:
    """Read an array of context messages from any value; never raises."""
    return decoding(_contexts, value)


def durable_to_json(result: DurableResult) -> FrozenJson:
    """The wire form of a durable result: content, isError, error and meta when present."""
    return freeze(_durable_plain(result))


def durable_from_json(value: object) -> Result[DurableResult, RecordError]:
    """Read a durable result from any value (isError must agree with error); never raises."""
    return decoding(_durable, value)


def _block_plain(block: ContentBlock) -> _Plain:
    match block:
        case TextBlock():
            return {"type": "text", "text": block.text}
        case ImageBlock():
            return {"type": "image", "data": block.data, "mediaType": block.media_type}
        case _:
            assert_never(block)


def _content_plain(blocks: Sequence[ContentBlock]) -> list[_Plain]:
    return [_block_plain(block) for block in blocks]


def _failure_plain(failure: ToolFailure) -> _Plain:
    out: _Plain = {"message": failure.message, "code": failure.info.code.value}
    if failure.info.details is not None:
        out["details"] = failure.info.details
    return out


def _context_plain(message: ContextMessage) -> _Plain:
    out: _Plain = {"content": _content_plain(message.content), "source": message.source}
    if message.meta is not None:
        out["meta"] = message.meta
    return out


def _durable_plain(result: DurableResult) -> _Plain:
    out: _Plain = {"content": _content_plain(result.content), "isError": result.is_error}
    if result.error is not None:
        out["error"] = _failure_plain(result.error)
    if result.meta is not None:
        out["meta"] = result.meta
    return out


def _block(value: object) -> ContentBlock:
    if read_tag(value, "type", _BLOCK_TYPES, "block type") == "text":
        obj = read_object(value, ("type", "text"))
        return TextBlock(field(obj, "text", as_str))
    obj = read_object(value, ("type", "data", "mediaType"))
    return ImageBlock(field(obj, "data", as_str), field(obj, "mediaType", as_str))


def _content(value: object) -> tuple[ContentBlock, ...]:
    return array(value, _block)


def _code(value: object) -> ErrorCode:
    text = as_str(value)
    try:
        return ErrorCode(text)
    except ValueError:
        raise Invalid(f"unknown error code {render_literal(text)}") from None


def _failure(value: object) -> ToolFailure:
    obj = read_object(value, ("message", "code"), ("details",))
    message = field(obj, "message", as_str)
    code = field(obj, "code", _code)
    return ToolFailure.of(code, message, optional(obj, "details", as_json, None))


def _context(value: object) -> ContextMessage:
    obj = read_object(value, ("content", "source"), ("meta",))
    return ContextMessage(
        field(obj, "content", _content),
        field(obj, "source", as_str),
        optional(obj, "meta", as_json, None),
    )


def _contexts(value: object) -> tuple[ContextMessage, ...]:
    return array(value, _context)


def _durable(value: object) -> DurableResult:
    obj = read_object(value, ("content", "isError"), ("error", "meta"))
    content = field(obj, "content", _content)
    is_error = field(obj, "isError", as_bool)
    error = optional(obj, "error", _failure, None)
    if is_error and error is None:
        raise Invalid("missing key 'error', required when isError is true")
    if not is_error and error is not None:
        raise Invalid("unexpected key 'error' when isError is false")
    return DurableResult(content, error, optional(obj, "meta", as_json, None))


# Session events -------------------------------------------------------------------------------


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
        """The wire form: event, callId, rootCallId, name, arguments, agent and parentCallId."""
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
        """The record of a final live result (its canonical value is dropped)."""
        return cls(call_id, DurableResult.of(result))

    def to_json(self) -> FrozenJson:
        """The wire form: event, callId and the durable result."""
        plain: _Plain = {
            "event": "tool/result",
            "callId": self.call_id,
            "result": _durable_plain(self.result),
        }
        return freeze(plain)

    @classmethod
    def from_json(cls, value: object) -> Result[ToolResultRecord, RecordError]:
        """Read a `tool/result` event from any value; never raises."""
        return decoding(_result_record, value)


SessionRecord = ToolCallRecord | ToolResultRecord
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
        ("agent", "parentCallId"),
    )
    return ToolCallRecord(
        field(obj, "callId", as_str),
        field(obj, "rootCallId", as_str),
        field(obj, "name", as_str),
        field(obj, "arguments", as_json),
        optional(obj, "agent", as_str, None),
        optional(obj, "parentCallId", as_str, None),
    )


def _result_record(value: object) -> ToolResultRecord:
    _expect_event(value, "tool/result")
    obj = read_object(value, ("event", "callId", "result"))
    return ToolResultRecord(field(obj, "callId", as_str), field(obj, "result", _durable))


def _record(value: object) -> SessionRecord:
    if read_tag(value, "event", _EVENTS, "event") == "tool/call":
        return _call_record(value)
    return _result_record(value)
