"""Durable content on the wire: model content blocks, typed failures, deferred context messages
and durable results (the conventions are in `_records.py`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, final, get_args

from returns.result import Result

from toolfx.core.json import render_literal
from toolfx.core.records._wire import (
    Invalid,
    array,
    as_bool,
    as_int,
    as_json,
    as_str,
    as_str_or_null,
    decoding,
    field,
    freeze,
    optional,
    read_object,
    read_tag,
)
from toolfx.core.tools import (
    ContentBlock,
    ContextMessage,
    DurableResult,
    ErrorCode,
    TextBlock,
    ToolFailure,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.records._wire import (
        RecordError,
    )

__all__ = [
    "content_from_json",
    "content_plain",
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
    "read_content",
    "read_durable",
]

_Plain = dict[str, object]

_BLOCK_CLASSES: Final[dict[str, type[ContentBlock]]] = {
    cls.type: cls for cls in get_args(ContentBlock)
}
"""Each block kind by its wire tag (its `type`)."""

_WIRE_KEYS: Final = {"media_type": "mediaType"}
"""Field names whose wire key differs (camelCase); every other key is the field name."""

_FIELD_DECODERS: Final[dict[str, Callable[[object], object]]] = {
    "str": as_str,
    "str | None": as_str_or_null,
    "int | None": lambda value: None if value is None else as_int(value),
    "FrozenJson": as_json,
}
"""How a block field is read, by its declared type (the annotations are strings)."""


@final
@dataclasses.dataclass(frozen=True, slots=True)
class _BlockCodec:
    """One block kind on the wire: (field, wire key, decoder), the required and optional keys."""

    cls: type[ContentBlock]
    fields: tuple[tuple[str, str, Callable[[object], object]], ...]
    required: tuple[str, ...]
    optional: tuple[str, ...]


def _codec(cls: type[ContentBlock]) -> _BlockCodec:
    fields = tuple(
        (f.name, _WIRE_KEYS.get(f.name, f.name), _FIELD_DECODERS[str(f.type)])
        for f in dataclasses.fields(cls)
    )
    defaults = {f.name for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    required = ("type", *(key for name, key, _ in fields if name not in defaults))
    return _BlockCodec(
        cls, fields, required, tuple(key for name, key, _ in fields if name in defaults)
    )


_CODECS: Final = {tag: _codec(cls) for tag, cls in _BLOCK_CLASSES.items()}


def content_to_json(blocks: Sequence[ContentBlock]) -> FrozenJson:
    """The wire form of model content: an array of type-tagged blocks."""
    return freeze(content_plain(blocks))


def content_from_json(value: object) -> Result[tuple[ContentBlock, ...], RecordError]:
    """Read model content from any value; never raises."""
    return decoding(read_content, value)


def failure_to_json(failure: ToolFailure) -> FrozenJson:
    """The wire form of a typed failure: message, code, and details when there are any."""
    return freeze(failure_plain(failure))


def failure_from_json(value: object) -> Result[ToolFailure, RecordError]:
    """Read a typed failure from any value; never raises."""
    return decoding(read_failure, value)


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
    if type(block) is TextBlock and block.annotations is None:  # the common case, kept cheap
        return {"type": "text", "text": block.text}
    out: _Plain = {"type": block.type}
    for name, key, _ in _CODECS[block.type].fields:
        value = getattr(block, name)
        if value is not None:  # an optional field left out; required fields are never None
            out[key] = value
    return out


def content_plain(blocks: Sequence[ContentBlock]) -> list[_Plain]:
    return [_block_plain(block) for block in blocks]


def failure_plain(failure: ToolFailure) -> _Plain:
    out: _Plain = {"message": failure.message, "code": failure.info.code.value}
    if failure.info.details is not None:
        out["details"] = failure.info.details
    return out


def _context_plain(message: ContextMessage) -> _Plain:
    out: _Plain = {"content": content_plain(message.content), "source": message.source}
    if message.meta is not None:
        out["meta"] = message.meta
    return out


def durable_plain(result: DurableResult) -> _Plain:
    """A durable result as a plain dict, for the records that embed one."""
    out: _Plain = {"content": content_plain(result.content), "isError": result.is_error}
    if result.error is not None:
        out["error"] = failure_plain(result.error)
    if result.meta is not None:
        out["meta"] = result.meta
    return out


def _block(value: object) -> ContentBlock:
    codec = _CODECS[read_tag(value, "type", _CODECS, "block type")]
    obj = read_object(value, codec.required, codec.optional)
    values = [optional(obj, key, decode, None) for _, key, decode in codec.fields]
    return codec.cls(*values)  # type: ignore[arg-type]  # each value read by its field's type


def read_content(value: object) -> tuple[ContentBlock, ...]:
    return array(value, _block)


def _code(value: object) -> ErrorCode:
    text = as_str(value)
    try:
        return ErrorCode(text)
    except ValueError:
        raise Invalid(f"unknown error code {render_literal(text)}") from None


def read_failure(value: object) -> ToolFailure:
    obj = read_object(value, ("message", "code"), ("details",))
    message = field(obj, "message", as_str)
    code = field(obj, "code", _code)
    return ToolFailure.of(code, message, optional(obj, "details", as_json, None))


def _context(value: object) -> ContextMessage:
    obj = read_object(value, ("content", "source"), ("meta",))
    return ContextMessage(
        field(obj, "content", read_content),
        field(obj, "source", as_str),
        optional(obj, "meta", as_json, None),
    )


def _contexts(value: object) -> tuple[ContextMessage, ...]:
    return array(value, _context)


def read_durable(value: object) -> DurableResult:
    """Read a durable result inside a record (raises `Invalid` at the bad place)."""
    obj = read_object(value, ("content", "isError"), ("error", "meta"))
    content = field(obj, "content", read_content)
    is_error = field(obj, "isError", as_bool)
    error = optional(obj, "error", read_failure, None)
    if is_error and error is None:
        raise Invalid("missing key 'error', required when isError is true")
    if not is_error and error is not None:
        raise Invalid("unexpected key 'error' when isError is false")
    return DurableResult(content, error, optional(obj, "meta", as_json, None))
