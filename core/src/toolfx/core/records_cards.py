"""Presentation cards on the wire: `card`-tagged JSON objects (web cards add a `kind` tag).

Field names are the spec's camelCase (rawInput, oldText, newText, exitCode, totalLines,
statusCode); an optional field is omitted when it holds its default (None, or no items) and, when
present, must hold its type: `null` is accepted only by `rawInput` (any JSON) and `oldText`
(required, null for a new file). Decoding is strict: unknown keys and tags are errors (the
readers are in `records_cards_decode`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, assert_never

from returns.result import Result

from toolfx.core.json_model import FrozenJson
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
    ToolCallView,
    ToolResultView,
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
)
from toolfx.core.records_cards_decode import read_call_view, read_result_view
from toolfx.core.records_wire import RecordError, decoding, freeze

__all__ = [
    "call_view_from_json",
    "call_view_to_json",
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


# Encoding -------------------------------------------------------------------------------------


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
    return {"path": diff.path, "oldText": diff.old_text, "newText": diff.new_text}


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
        case _:
            assert_never(view)
    return out
