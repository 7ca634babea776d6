"""Gemini generateContent: the tool, a response's function calls, and the content that answers.

The TypedDicts mirror google-genai's dict types key for key (snake_case, as the SDK takes them),
so `tools(...)` goes into the dict config, `config={"tools": [gemini.tools(catalog)]}`, and
`results(...)` into `contents`, as they are (the pydantic config takes the tool as
`types.Tool.model_validate(gemini.tools(catalog))`); a key whose SDK type is one of the SDK's
own types toolfx never builds is typed `Any`. Replies are read in either casing (the SDK's
snake_case, the REST API's camelCase).

A function call that comes without an id gets one toolfx makes: unique to the reply (a digest
of the whole reply) and the call's place in it, and sealed with a checksum of itself, so
`results` knows it made that id (and sends no id back) whatever the id looks like, while an id
the model gave, whatever it looks like, is always sent back. Gemini refuses empty text parts:
none is sent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypedDict, final

from toolfx.core.pipeline import ToolCall
from toolfx.core.providers._calls import tool_calls
from toolfx.core.providers._content import inline_bytes
from toolfx.core.providers._digest import digest
from toolfx.core.providers._gemini import gemini_parameters
from toolfx.core.providers._reply import Reply
from toolfx.core.providers._results import paired
from toolfx.core.providers._tools import ToolExport, export_each, memoized, notes_of
from toolfx.core.tools import TextBlock, block_text

if TYPE_CHECKING:
    from toolfx.core.json import JsonValue
    from toolfx.core.providers._calls import Requested
    from toolfx.core.providers._reply import ProviderReply
    from toolfx.core.providers._results import Results
    from toolfx.core.providers._tools import ToolNote
    from toolfx.core.registry import Catalog, ToolSchema
    from toolfx.core.runtime import CancelSignal
    from toolfx.core.tools import ContentBlock

__all__ = [
    "GeminiBlob",
    "GeminiContent",
    "GeminiDeclaration",
    "GeminiFunctionResponse",
    "GeminiPart",
    "GeminiResponsePart",
    "GeminiTool",
    "calls",
    "notes",
    "results",
    "tools",
]


class GeminiDeclaration(TypedDict, total=False):
    """A function declaration (google-genai's `FunctionDeclarationDict`); `parameters` is in
    Gemini's schema subset."""

    description: str | None
    name: str | None
    parameters: Any
    parameters_json_schema: Any
    response: Any
    response_json_schema: Any
    behavior: Any


class GeminiTool(TypedDict, total=False):
    """A tool holding the function declarations (google-genai's `ToolDict`)."""

    function_declarations: list[GeminiDeclaration] | None
    retrieval: Any
    computer_use: Any
    file_search: Any
    google_search: Any
    google_maps: Any
    code_execution: Any
    enterprise_web_search: Any
    google_search_retrieval: Any
    parallel_ai_search: Any
    url_context: Any
    mcp_servers: Any
    exa_ai_search: Any


class GeminiBlob(TypedDict, total=False):
    """Inline media (google-genai's `BlobDict` and `FunctionResponseBlobDict`)."""

    data: bytes | None
    display_name: str | None
    mime_type: str | None


class GeminiResponsePart(TypedDict, total=False):
    """Media inside a function response (google-genai's `FunctionResponsePartDict`)."""

    inline_data: GeminiBlob | None
    file_data: Any
    media_processing: Any
    media_resolution: Any
    video_metadata: Any
    document_metadata: Any
    spreadsheet_metadata: Any
    audio_metadata: Any


class GeminiFunctionResponse(TypedDict, total=False):
    """The answer to one call (google-genai's `FunctionResponseDict`): `response` holds the
    text under `output`, or under `error` for a failure; media go in `parts`."""

    will_continue: bool | None
    scheduling: Any
    parts: list[GeminiResponsePart] | None
    id: str | None
    name: str | None
    response: dict[str, Any] | None


class GeminiPart(TypedDict, total=False):
    """A part of a content (google-genai's `PartDict`)."""

    media_resolution: Any
    code_execution_result: Any
    executable_code: Any
    file_data: Any
    function_call: Any
    function_response: GeminiFunctionResponse | None
    inline_data: GeminiBlob | None
    text: str | None
    thought: bool | None
    thought_signature: bytes | None
    video_metadata: Any
    tool_call: Any
    tool_response: Any
    part_metadata: dict[str, Any] | None
    audio_transcription: Any
    media_processing: Any
    speech_metadata: Any
    document_metadata: Any
    spreadsheet_metadata: Any
    audio_metadata: Any


class GeminiContent(TypedDict, total=False):
    """A content (google-genai's `ContentDict`)."""

    parts: list[GeminiPart] | None
    role: str | None


@final
@dataclass(frozen=True, slots=True)
class _Exported:
    tool: GeminiTool


@final
@dataclass(frozen=True, slots=True)
class _Noted:
    notes: tuple[ToolNote, ...]


def tools(catalog: Catalog) -> GeminiTool:
    """The catalog's native tools as one Gemini tool of function declarations, in Gemini's
    schema subset, for `config={"tools": [gemini.tools(catalog)]}`.

    Made once per catalog snapshot and shared by every later call: never change it in place;
    build a changed copy instead (`{**tool, "function_declarations": [...]}`).
    """
    return memoized(catalog, _Exported, _export).tool


def notes(catalog: Catalog) -> tuple[ToolNote, ...]:
    """Where `tools(catalog)` differs from the tools' schemas (each keyword dropped, and why)."""
    return memoized(catalog, _Noted, _noted).notes


def calls(
    reply: ProviderReply, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """The function calls of a `GenerateContentResponse` (its first candidate; none without
    candidates), a candidate, a content or its `parts` list, as dicts or SDK objects, sharing
    `signal` (a new one if None); a call without an id gets one made from the reply and its
    place; a repeated call id is a `ReplyError`."""
    root = Reply.of(reply)
    place: Reply | None = root
    if root.has("candidates"):
        place = root.at("candidates").first()
    if place is None:
        return ()
    if isinstance(place.value, Sequence):
        parts = place
    else:
        content = place.at("content") if place.has("content") else place
        parts = content.at("parts")
    requested = _requested(parts, _MadeIds(root.value))
    return tool_calls(requested, catalog, signal, ToolCall, strict_nulls=False)


def results(calls: Sequence[ToolCall], results: Results) -> GeminiContent:
    """One user content: a `function_response` part per call, in order, then the additional
    contexts as parts."""
    answers, contexts = paired(calls, results)
    parts: list[GeminiPart] = [
        {"function_response": _response(a.call_id, a.name, a.content, is_error=a.is_error)}
        for a in answers
    ]
    parts.extend(_part(block) for context in contexts for block in context.content if _sent(block))
    return {"role": "user", "parts": parts}


def _export(catalog: Catalog) -> _Exported:
    made = export_each(catalog.native_schemas(), _EXPORT)
    return _Exported({"function_declarations": made})


def _noted(catalog: Catalog) -> _Noted:
    return _Noted(notes_of(catalog.native_schemas(), _EXPORT))


def _declaration(schema: ToolSchema, parameters: dict[str, JsonValue] | None) -> GeminiDeclaration:
    declaration: GeminiDeclaration = {"name": schema.name, "description": schema.description}
    if parameters is not None:
        declaration["parameters"] = parameters
    return declaration


_EXPORT: Final = ToolExport(gemini_parameters, _declaration)


@final
class _MadeIds:
    """The ids made for one reply's calls: the reply's digest (taken once, if ever) and a place."""

    __slots__ = ("reply", "turn")

    def __init__(self, reply: object) -> None:
        self.reply = reply
        self.turn = ""

    def at(self, index: int) -> str:
        """The id of the call at part `index`, sealed so `_made` recognises it."""
        self.turn = self.turn or digest(self.reply)[:16]
        body = f"gemini-{self.turn}-{index}"
        return f"{body}-{_seal(body)}"


def _seal(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _made(call_id: str) -> bool:
    """Whether toolfx made this id (its seal is its body's checksum)."""
    body, _, seal = call_id.rpartition("-")
    return bool(body) and seal == _seal(body)


def _requested(parts: Reply, made: _MadeIds) -> Iterator[Requested]:
    for index, part in enumerate(parts.items()):
        if part.has("function_call") or part.has("functionCall"):
            call = part.at("function_call", "functionCall")
            given = call.at("id").value
            call_id = given if isinstance(given, str) and given else made.at(index)
            args = call.at("args").value
            yield call_id, call.text("name"), {} if args is None else args, part


def _response(
    call_id: str, name: str, content: Sequence[ContentBlock], *, is_error: bool
) -> GeminiFunctionResponse:
    text = "\n".join(block_text(block) for block in content)
    response: GeminiFunctionResponse = {
        "name": name,
        "response": {"error" if is_error else "output": text},
    }
    if not _made(call_id):
        response["id"] = call_id
    media: list[GeminiResponsePart] = [
        {"inline_data": {"mime_type": media_type, "data": data}}
        for media_type, data in filter(None, map(inline_bytes, content))
    ]
    if media:
        response["parts"] = media
    return response


def _sent(block: ContentBlock) -> bool:
    """Whether a block is sent at all (an empty text part is refused)."""
    return not isinstance(block, TextBlock) or bool(block.text)


def _part(block: ContentBlock) -> GeminiPart:
    inline = inline_bytes(block)
    if inline is None:
        return {"text": block_text(block)}
    return {"inline_data": {"mime_type": inline[0], "data": inline[1]}}
