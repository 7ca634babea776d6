"""Presentation cards on the wire: `card`-tagged JSON objects (web cards add a `kind` tag).

A `code` card (Code Mode's `run_code`) is toolfx's own addition to the spec's vocabulary: a pending
program `{card: 'code', title, code, lang?}` and a completed one `{card: 'code', title?, calls,
failed, content?}`.

Field names are the spec's camelCase (rawInput, oldText, newText, exitCode, totalLines,
statusCode); an optional field is omitted when it holds its default (None, or no items) and, when
present, must hold its type: `null` is accepted only by `rawInput` (any JSON) and `oldText`
(required, null for a new file). Decoding is strict: unknown keys and tags are errors (the
readers follow the writers below).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, Literal, TypeVar, assert_never, get_args

from returns.result import Result

from toolfx.core.json import render_literal
from toolfx.core.records._wire import (
    Invalid,
    array,
    as_bool,
    as_int,
    as_int_or_null,
    as_json,
    as_seconds,
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
    CodeCallCard,
    CodeResultCard,
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
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.records._wire import RecordError
    from toolfx.core.tools import ToolCallView, ToolResultView

__all__ = [
    "call_view_from_json",
    "call_view_to_json",
    "read_call_view",
    "read_result_view",
    "result_view_from_json",
    "result_view_to_json",
]


_T = TypeVar("_T")


_Plain = dict[str, object]


def call_view_to_json(view: ToolCallView) -> FrozenJson:
    """The wire form of a pending-call card."""
    return freeze(_call_view_plain(view))


def call_view_from_json(value: object) -> Result[ToolCallView, RecordError]:
    """Read a pending-call card from any value; never raises."""
    return decoding(read_call_view, value)


def result_view_to_json(view: ToolResultView) -> FrozenJson:
    """The wire form of a completed-call card."""
    return freeze(_result_view_plain(view))


def result_view_from_json(value: object) -> Result[ToolResultView, RecordError]:
    """Read a completed-call card from any value; never raises."""
    return decoding(read_result_view, value)


def _put(out: _Plain, key: str, value: object) -> None:
    if value is not None:
        out[key] = value


def _put_items(out: _Plain, key: str, items: Sequence[_T], encode: Callable[[_T], object]) -> None:
    if items:
        out[key] = [encode(item) for item in items]


def _location_plain(location: FileLocation) -> _Plain:
    out: _Plain = {"path": location.path}
    _put(out, "line", location.line)
    return out


def _diff_plain(diff: FileDiff) -> _Plain:
    out: _Plain = {"path": diff.path, "oldText": diff.old_text, "newText": diff.new_text}
    if diff.start_line != 1:
        out["startLine"] = diff.start_line
    return out


def _match_plain(match: SearchMatch) -> _Plain:
    return {"path": match.path, "line": match.line, "text": match.text}


def _line_plain(line: ReadFileLine) -> _Plain:
    return {"number": line.number, "text": line.text}


def _source_plain(source: WebSource) -> _Plain:
    out: _Plain = {"url": source.url}
    _put(out, "title", source.title)
    return out


def _call_view_plain(view: ToolCallView) -> _Plain:
    out: _Plain = {"card": view.card, "title": view.title}
    match view:
        case GenericCallCard():
            _put(out, "kind", view.kind)
            _put(out, "rawInput", view.raw_input)
            _put(out, "content", view.content)
            _put_items(out, "locations", view.locations, _location_plain)
        case TerminalCallCard():
            _put(out, "description", view.description)
            _put(out, "cwd", view.cwd)
        case DiffCallCard():
            out["diffs"] = [_diff_plain(diff) for diff in view.diffs]
            _put_items(out, "locations", view.locations, _location_plain)
        case CodeCallCard():
            out["code"] = view.code
            _put(out, "lang", view.lang)
        case _:
            assert_never(view)
    return out


def _result_view_plain(view: ToolResultView) -> _Plain:
    out: _Plain = {"card": view.card}
    match view:
        case WebSearchResultCard() | WebFetchResultCard():
            out["kind"] = view.kind
    _put(out, "title", view.title)
    match view:
        case GenericResultCard():
            _put(out, "content", view.content)
        case TerminalResultCard():
            _put(out, "output", view.output)
            _put(out, "exitCode", view.exit_code)
            _put(out, "signal", view.signal)
            _put(out, "duration", view.duration)
            if view.timed_out:
                out["timedOut"] = True
        case DiffResultCard():
            out["diffs"] = [_diff_plain(diff) for diff in view.diffs]
        case SearchResultCard():
            out.update(shape=view.shape, truncated=view.truncated, total=view.total)
            _put_items(out, "paths", view.paths, str)
            _put_items(out, "matches", view.matches, _match_plain)
        case ReadResultCard():
            out.update(path=view.path, offset=view.offset)
            out["lines"] = [_line_plain(line) for line in view.lines]
            out["totalLines"] = view.total_lines
            _put(out, "lang", view.lang)
            _put(out, "content", view.content)
        case WebSearchResultCard():
            out["sources"] = [_source_plain(source) for source in view.sources]
            _put(out, "answer", view.answer)
            out["truncated"] = view.truncated
        case WebFetchResultCard():
            out.update(url=view.url, statusCode=view.status_code, truncated=view.truncated)
        case CodeResultCard():
            out.update(calls=view.calls, failed=view.failed)
            _put(out, "content", view.content)
        case _:
            assert_never(view)
    return out


_CALL_KINDS: Final[Mapping[str, ToolCallKind]] = {kind: kind for kind in get_args(ToolCallKind)}


_CALL_CARDS: Final = ("generic", "terminal", "diff", "code")


_RESULT_CARDS: Final = ("generic", "terminal", "diff", "search", "read", "web", "code")


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
    obj = read_object(value, ("path", "oldText", "newText"), ("startLine",))
    start = optional(obj, "startLine", as_int_or_null, 1)
    if start is not None and start < 1:
        raise Invalid(f"a diff's first line is numbered from 1, not {start}", ["startLine"])
    return FileDiff(
        field(obj, "path", as_str),
        field(obj, "oldText", as_str_or_null),
        field(obj, "newText", as_str),
        start,
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
    if card == "code":
        obj = read_object(value, ("card", "title", "code"), ("lang",))
        return CodeCallCard(
            title=field(obj, "title", as_str),
            code=field(obj, "code", as_str),
            lang=optional(obj, "lang", as_str, None),
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
        obj = read_object(
            value, ("card",), ("title", "output", "exitCode", "signal", "duration", "timedOut")
        )
        return TerminalResultCard(
            title=optional(obj, "title", as_str, None),
            output=optional(obj, "output", as_str, None),
            exit_code=optional(obj, "exitCode", as_int, None),
            signal=optional(obj, "signal", as_str, None),
            duration=optional(obj, "duration", as_seconds, None),
            timed_out=optional(obj, "timedOut", as_bool, False),
        )
    if card == "diff":
        obj = read_object(value, ("card", "diffs"), ("title",))
        return DiffResultCard(
            title=optional(obj, "title", as_str, None), diffs=field(obj, "diffs", _diffs)
        )
    if card == "code":
        obj = read_object(value, ("card", "calls", "failed"), ("title", "content"))
        return CodeResultCard(
            calls=field(obj, "calls", as_int),
            failed=field(obj, "failed", as_int),
            title=optional(obj, "title", as_str, None),
            content=optional(obj, "content", as_str, None),
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
