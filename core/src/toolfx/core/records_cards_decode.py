"""Reading presentation cards from the wire, strictly: unknown keys and tags are errors.

The format is `records_cards`': `card`-tagged objects (web cards add a `kind` tag) with the spec's
camelCase field names. Each reader raises `Invalid` at the bad place; `decoding` locates it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal, get_args

from toolfx.core.json_render import render_literal
from toolfx.core.presentation import (
    DiffCallCard,
    DiffResultCard,
    FileDiff,
    FileLocation,
    GenericCallCard,
    GenericResultCard,
    ReadFileLine,
    ReadResultCard,
    SearchMatch,
    SearchResultCard,
    TerminalCallCard,
    TerminalResultCard,
    ToolCallKind,
    ToolCallView,
    ToolResultView,
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
)
from toolfx.core.records_wire import (
    Invalid,
    array,
    as_bool,
    as_int,
    as_json,
    as_str,
    as_str_or_null,
    field,
    optional,
    read_object,
    read_tag,
)

__all__ = ["read_call_view", "read_result_view"]

_CALL_KINDS: Final[Mapping[str, ToolCallKind]] = {kind: kind for kind in get_args(ToolCallKind)}
_CALL_CARDS: Final = ("generic", "terminal", "diff")
_RESULT_CARDS: Final = ("generic", "terminal", "diff", "search", "read", "web")
_WEB_KINDS: Final = ("search", "fetch")


def _call_kind(value: object) -> ToolCallKind:
    text = as_str(value)
    kind = _CALL_KINDS.get(text)
    if kind is None:
        raise Invalid(f"unknown call kind {render_literal(text)}")
    return kind


def _shape(value: object) -> Literal["matches", "paths"]:
    text = as_str(value)
    if text == "matches":
        return "matches"
    if text == "paths":
        return "paths"
    raise Invalid(f"unknown search shape {render_literal(text)}")


def _location(value: object) -> FileLocation:
    obj = read_object(value, ("path",), ("line",))
    return FileLocation(field(obj, "path", as_str), optional(obj, "line", as_int, None))


def _locations(value: object) -> tuple[FileLocation, ...]:
    return array(value, _location)


def _diff(value: object) -> FileDiff:
    obj = read_object(value, ("path", "oldText", "newText"))
    return FileDiff(
        field(obj, "path", as_str),
        field(obj, "oldText", as_str_or_null),
        field(obj, "newText", as_str),
    )


def _diffs(value: object) -> tuple[FileDiff, ...]:
    return array(value, _diff)


def _match(value: object) -> SearchMatch:
    obj = read_object(value, ("path", "line", "text"))
    return SearchMatch(
        field(obj, "path", as_str), field(obj, "line", as_int), field(obj, "text", as_str)
    )


def _line(value: object) -> ReadFileLine:
    obj = read_object(value, ("number", "text"))
    return ReadFileLine(field(obj, "number", as_int), field(obj, "text", as_str))


def _source(value: object) -> WebSource:
    obj = read_object(value, ("url",), ("title",))
    return WebSource(field(obj, "url", as_str), optional(obj, "title", as_str, None))


def _strings(value: object) -> tuple[str, ...]:
    return array(value, as_str)


def read_call_view(value: object) -> ToolCallView:
    """A pending-call card; raises `Invalid` where the value is not one."""
    card = read_tag(value, "card", _CALL_CARDS, "call card")
    if card == "generic":
        obj = read_object(value, ("card", "title"), ("kind", "rawInput", "content", "locations"))
        return GenericCallCard(
            title=field(obj, "title", as_str),
            kind=optional(obj, "kind", _call_kind, None),
            raw_input=optional(obj, "rawInput", as_json, None),
            content=optional(obj, "content", as_str, None),
            locations=optional(obj, "locations", _locations, ()),
        )
    if card == "terminal":
        obj = read_object(value, ("card", "title"), ("description", "cwd"))
        return TerminalCallCard(
            title=field(obj, "title", as_str),
            description=optional(obj, "description", as_str, None),
            cwd=optional(obj, "cwd", as_str, None),
        )
    obj = read_object(value, ("card", "title", "diffs"), ("locations",))
    return DiffCallCard(
        title=field(obj, "title", as_str),
        diffs=field(obj, "diffs", _diffs),
        locations=optional(obj, "locations", _locations, ()),
    )


def read_result_view(value: object) -> ToolResultView:
    """A completed-call card; raises `Invalid` where the value is not one."""
    card = read_tag(value, "card", _RESULT_CARDS, "result card")
    if card == "web":
        return _read_web_view(value)
    if card == "generic":
        obj = read_object(value, ("card",), ("title", "content"))
        return GenericResultCard(
            title=optional(obj, "title", as_str, None),
            content=optional(obj, "content", as_str, None),
        )
    if card == "terminal":
        obj = read_object(value, ("card",), ("title", "output", "exitCode", "signal"))
        return TerminalResultCard(
            title=optional(obj, "title", as_str, None),
            output=optional(obj, "output", as_str, None),
            exit_code=optional(obj, "exitCode", as_int, None),
            signal=optional(obj, "signal", as_str, None),
        )
    if card == "diff":
        obj = read_object(value, ("card", "diffs"), ("title",))
        return DiffResultCard(
            title=optional(obj, "title", as_str, None), diffs=field(obj, "diffs", _diffs)
        )
    if card == "search":
        obj = read_object(
            value, ("card", "shape", "truncated", "total"), ("title", "paths", "matches")
        )
        return SearchResultCard(
            shape=field(obj, "shape", _shape),
            title=optional(obj, "title", as_str, None),
            truncated=field(obj, "truncated", as_bool),
            total=field(obj, "total", as_int),
            paths=optional(obj, "paths", _strings, ()),
            matches=optional(obj, "matches", lambda items: array(items, _match), ()),
        )
    obj = read_object(
        value, ("card", "path", "offset", "lines", "totalLines"), ("title", "lang", "content")
    )
    return ReadResultCard(
        title=optional(obj, "title", as_str, None),
        path=field(obj, "path", as_str),
        offset=field(obj, "offset", as_int),
        lines=field(obj, "lines", lambda items: array(items, _line)),
        total_lines=field(obj, "totalLines", as_int),
        lang=optional(obj, "lang", as_str, None),
        content=optional(obj, "content", as_str, None),
    )


def _read_web_view(value: object) -> ToolResultView:
    kind = read_tag(value, "kind", _WEB_KINDS, "web card kind")
    if kind == "search":
        obj = read_object(value, ("card", "kind", "sources", "truncated"), ("title", "answer"))
        return WebSearchResultCard(
            title=optional(obj, "title", as_str, None),
            sources=field(obj, "sources", lambda items: array(items, _source)),
            answer=optional(obj, "answer", as_str, None),
            truncated=field(obj, "truncated", as_bool),
        )
    obj = read_object(value, ("card", "kind", "url", "statusCode", "truncated"), ("title",))
    return WebFetchResultCard(
        title=optional(obj, "title", as_str, None),
        url=field(obj, "url", as_str),
        status_code=field(obj, "statusCode", as_int),
        truncated=field(obj, "truncated", as_bool),
    )
