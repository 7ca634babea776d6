"""Durable content on the wire: model content blocks, typed failures, deferred context messages
and durable results (the conventions are in records.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, assert_never

from returns.result import Result

from toolfx.core.content import ContentBlock, ContextMessage, ImageBlock, TextBlock
from toolfx.core.failure import ErrorCode, ToolFailure
from toolfx.core.json_model import FrozenJson
from toolfx.core.json_render import render_literal
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
from toolfx.core.results import DurableResult

__all__ = [
    "content_from_json",
    "content_to_json",
    "context_from_json",
    "context_to_json",
    "contexts_from_json",
    "contexts_to_json",
    "durable_from_json",
    "durable_plain",
    "durable_to_json",
    "failure_from_json",
    "failure_to_json",
    "read_durable",
]

_Plain = dict[str, object]
_BLOCK_TYPES: Final = ("text", "image")


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
    return freeze(durable_plain(result))


def durable_from_json(value: object) -> Result[DurableResult, RecordError]:
    """Read a durable result from any value (isError must agree with error); never raises."""
    return decoding(read_durable, value)


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


def durable_plain(result: DurableResult) -> _Plain:
    """A durable result as a plain dict, for the records that embed one."""
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


def read_durable(value: object) -> DurableResult:
    """Read a durable result inside a record (raises `Invalid` at the bad place)."""
    obj = read_object(value, ("content", "isError"), ("error", "meta"))
    content = field(obj, "content", _content)
    is_error = field(obj, "isError", as_bool)
    error = optional(obj, "error", _failure, None)
    if is_error and error is None:
        raise Invalid("missing key 'error', required when isError is true")
    if not is_error and error is not None:
        raise Invalid("unexpected key 'error' when isError is false")
    return DurableResult(content, error, optional(obj, "meta", as_json, None))
