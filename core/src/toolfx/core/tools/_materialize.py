"""Final materialization: every field of a result checked as lossless JSON and frozen, once.

Whoever built a result (a body, a wrapper, a post-execute listener, `finalize_content`), what it
carries may still be shared with them: a dict in `meta` or `details`, a list as `content`, a
context message built around either. `materialized` gives the result with each such field
snapshotted into frozen JSON (tuples for sequences of blocks and contexts), or, when a field is
not lossless JSON, an INVALID_TOOL_OUTPUT failure naming the field and the JSON path. Values that
are already frozen (FrozenDict, FrozenList, ASCII str, small int) are kept as they are, so a
result that needs nothing costs a few type checks and no allocation.

Content blocks are checked generically: every member of the `ContentBlock` union, each of its
dataclass fields by its declared type (str, FrozenJson, int, float, bool, None, unions of
these, nested dataclasses; anything else must be JSON).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from typing import Any, Final, Union

from toolfx.core.json import (
    INT_BOUND,
    NEGATIVE_INT_BOUND,
    FrozenDict,
    FrozenJson,
    FrozenList,
    JsonError,
    snapshot_or_error,
)
from toolfx.core.tools._content import ContentBlock, ContextMessage, TextBlock
from toolfx.core.tools._failure import ErrorCode, ToolErrorInfo, ToolFailure
from toolfx.core.tools._outcomes import failed, printable
from toolfx.core.tools._results import (
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)

__all__ = ["NotMaterializable", "materialize_json", "materialized"]


class NotMaterializable(Exception):
    """A field of a result that is not lossless JSON: which field, and what is wrong there."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


_Check = Callable[[Any, str], Any]
"""Check one field value found at `where`: the frozen value (the same object if it was)."""


def materialize_json(value: object, where: str) -> FrozenJson:
    """`value` as frozen lossless JSON (itself if it already is), or NotMaterializable."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList or kind is bool or value is None:
        return value  # type: ignore[return-value]  # (no cast call: hot path)
    if kind is str and value.isascii():  # type: ignore[attr-defined]
        return value  # type: ignore[return-value]
    if kind is int and NEGATIVE_INT_BOUND < value < INT_BOUND:  # type: ignore[operator]
        return value  # type: ignore[return-value]
    snapshot = snapshot_or_error(value)
    if isinstance(snapshot, JsonError):
        raise NotMaterializable(f"{where}{snapshot.path}", snapshot.reason)
    frozen: FrozenJson = snapshot
    return frozen


def _text(value: object, where: str) -> str:
    if type(value) is not str:
        if not isinstance(value, str):
            raise NotMaterializable(where, f"a {type(value).__name__}, not a string")
        value = str.__str__(value)  # a subclass: its plain text, nothing it could override
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            code = ord(value[error.start])
            raise NotMaterializable(
                where, f"holds a lone surrogate (\\u{code:04x}), not valid UTF-8"
            ) from None
    return value


def _scalar(kind: type) -> _Check:
    def check(value: object, where: str) -> object:
        if type(value) is not kind:
            raise NotMaterializable(where, f"a {type(value).__name__}, not a {kind.__name__}")
        if kind is float and not math.isfinite(value):  # type: ignore[arg-type]
            raise NotMaterializable(where, f"{value!r} is not a finite number")
        if kind is int and not NEGATIVE_INT_BOUND < value < INT_BOUND:  # type: ignore[operator]
            raise NotMaterializable(where, "the integer is beyond the JSON limits")
        return value

    return check


def _either(options: tuple[_Check, ...], names: str) -> _Check:
    def check(value: object, where: str) -> object:
        problems = []
        for option in options:
            try:
                return option(value, where)
            except NotMaterializable as problem:
                problems.append(problem.reason)
        raise NotMaterializable(where, f"neither {names}: " + "; ".join(problems))

    return check


def _none(value: object, where: str) -> None:
    if value is not None:
        raise NotMaterializable(where, f"a {type(value).__name__}, not None")


_CHECKS: Final[dict[object, _Check]] = {}
"""The check of each declared field type, built once per type."""


def _check_of(hint: object) -> _Check:
    known = _CHECKS.get(hint)
    if known is None:
        known = _CHECKS[hint] = _build_check(hint)
    return known


def _build_check(hint: object) -> _Check:  # one return per kind of type
    if hint is FrozenJson:
        return materialize_json
    if hint is str:
        return _text
    if hint is None or hint is type(None):
        return _none
    if hint in (bool, int, float):
        return _scalar(hint)
    origin = typing.get_origin(hint)
    arguments = typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        return _either(tuple(_check_of(a) for a in arguments), " nor ".join(map(repr, arguments)))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_check(hint)
    return materialize_json  # any other declared type: its value must at least be JSON


def _dataclass_check(cls: type) -> _Check:
    hints = typing.get_type_hints(cls)
    fields = tuple((f.name, _check_of(hints[f.name])) for f in dataclasses.fields(cls))

    def check(value: object, where: str) -> object:
        if type(value) is not cls:
            raise NotMaterializable(where, f"a {type(value).__name__}, not a {cls.__name__}")
        changes = {}
        for name, field_check in fields:
            current = getattr(value, name)
            frozen = field_check(current, f"{where}.{name}")
            if frozen is not current:
                changes[name] = frozen
        return dataclasses.replace(value, **changes) if changes else value  # type: ignore[type-var]

    return check


_BLOCK_CHECKS: Final[dict[type, _Check]] = {
    kind: _dataclass_check(kind) for kind in typing.get_args(ContentBlock)
}
"""One check per member of the `ContentBlock` union, over its dataclass fields."""


def _content(value: object, where: str) -> tuple[ContentBlock, ...]:
    if type(value) is not tuple:
        if not isinstance(value, list | tuple):
            raise NotMaterializable(where, f"a {type(value).__name__}, not a tuple of blocks")
        value = tuple(value)  # a list someone still holds: copied
    blocks: tuple[Any, ...] = value
    out: list[Any] | None = None
    for index, block in enumerate(blocks):
        kind = type(block)
        if kind is TextBlock:  # the usual block: no call for it
            body = block.text
            if type(body) is str and body.isascii() and block.annotations is None:
                continue
        check = _BLOCK_CHECKS.get(kind)
        if check is None:
            raise NotMaterializable(f"{where}[{index}]", f"a {kind.__name__}, not a content block")
        frozen = check(block, f"{where}[{index}]")
        if frozen is not block:
            out = list(blocks) if out is None else out
            out[index] = frozen
    return blocks if out is None else tuple(out)


def _context(value: object, where: str) -> ContextMessage:
    if type(value) is not ContextMessage:
        raise NotMaterializable(where, f"a {type(value).__name__}, not a ContextMessage")
    content = _content(value.content, f"{where}.content")
    source = _text(value.source, f"{where}.source")
    meta = materialize_json(value.meta, f"{where}.meta")
    if content is value.content and source is value.source and meta is value.meta:
        return value
    return ContextMessage(content, source, meta)


def _contexts(value: object) -> tuple[ContextMessage, ...]:
    if type(value) is tuple and not value:
        return value
    if not isinstance(value, list | tuple):
        raise NotMaterializable(
            "additional_contexts", f"a {type(value).__name__}, not a tuple of context messages"
        )
    out = tuple(
        _context(message, f"additional_contexts[{index}]") for index, message in enumerate(value)
    )
    return value if type(value) is tuple and all(map(_same, out, value)) else out


def _same(a: object, b: object) -> bool:
    return a is b


def _failure(value: object) -> ToolFailure:
    if type(value) is not ToolFailure:
        raise NotMaterializable("error", f"a {type(value).__name__}, not a ToolFailure")
    message = _text(value.message, "error.message")
    info = value.info
    if type(info) is not ToolErrorInfo:
        raise NotMaterializable("error.info", f"a {type(info).__name__}, not a ToolErrorInfo")
    if type(info.code) is not ErrorCode:
        raise NotMaterializable("error.info.code", f"{info.code!r} is not an ErrorCode")
    details = materialize_json(info.details, "error.info.details")
    if details is not info.details:
        info = ToolErrorInfo(info.code, details)
    if message is value.message and info is value.info:
        return value
    return ToolFailure(message, info)


def _materialize(result: object, contexts: tuple[ContextMessage, ...]) -> ToolExecutionResult:
    kind = type(result)
    if kind is ToolExecutionSuccess:
        success: ToolExecutionSuccess = result  # type: ignore[assignment]
        value = materialize_json(success.value, "value")
        content = _content(success.content, "content")
        meta = materialize_json(success.meta, "meta")
        concludes = success.concludes_turn
        if type(concludes) is not bool:
            raise NotMaterializable("concludes_turn", f"a {type(concludes).__name__}, not a bool")
        if (
            value is success.value
            and content is success.content
            and meta is success.meta
            and contexts is success.additional_contexts
        ):
            return success
        return ToolExecutionSuccess(value, content, meta, contexts, concludes)
    if kind is ToolExecutionFailure:
        failure: ToolExecutionFailure = result  # type: ignore[assignment]
        error = _failure(failure.error)
        content = _content(failure.content, "content")
        meta = materialize_json(failure.meta, "meta")
        if (
            error is failure.error
            and content is failure.content
            and meta is failure.meta
            and contexts is failure.additional_contexts
        ):
            return failure
        return ToolExecutionFailure(error, content, meta, contexts)
    raise NotMaterializable("the result", f"a {kind.__name__}, not a ToolExecutionResult")


def materialized(result: object, name: str) -> ToolExecutionResult:
    """`result` with every field frozen, lossless JSON; else a JSON-safe failure saying where.

    The failure is INVALID_TOOL_OUTPUT (what tool `name` or its hooks produced is not JSON) and
    keeps the result's context messages when they themselves are sound.
    """
    if type(result) is ToolExecutionSuccess:  # the usual result, checked inline: no calls
        value = result.value
        kind = type(value)
        content = result.content
        if (
            result.meta is None
            and result.additional_contexts == ()
            and type(content) is tuple
            and len(content) == 1
            and type(block := content[0]) is TextBlock
            and type(body := block.text) is str
            and body.isascii()
            and block.annotations is None  # a text block's only field besides its text
            and (
                value is None
                or kind is FrozenDict
                or kind is FrozenList
                or kind is bool
                or (kind is str and value.isascii())  # type: ignore[union-attr]
                or (kind is int and NEGATIVE_INT_BOUND < value < INT_BOUND)  # type: ignore[operator]
            )
            and type(result.concludes_turn) is bool
        ):
            return result
    contexts: tuple[ContextMessage, ...] = ()
    try:
        contexts = _contexts(getattr(result, "additional_contexts", ()))
        return _materialize(result, contexts)
    except NotMaterializable as problem:
        message = printable(f"The result of `{name}` is not lossless JSON: {problem}")
        details = snapshot_or_error({"field": printable(problem.where)})
        outcome = failed(ErrorCode.INVALID_TOOL_OUTPUT, message, details)
        return ToolExecutionFailure(outcome.error, outcome.content, None, contexts)
