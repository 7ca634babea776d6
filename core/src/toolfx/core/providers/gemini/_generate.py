"""Gemini generateContent: the tool, a response's function calls, and the content that answers.

The TypedDicts mirror google-genai's dict types key for key (snake_case, as the SDK takes them),
so `tools(...)` goes into `GenerateContentConfig(tools=[...])` and `results(...)` into `contents`
as they are; a key whose SDK type is one of the SDK's own types toolfx never builds is typed
`Any`. Replies are read in either casing (the SDK's snake_case, the REST API's camelCase).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypedDict, final

from toolfx.core.pipeline import ToolCall
from toolfx.core.providers._calls import tool_calls
from toolfx.core.providers._content import inline_bytes
from toolfx.core.providers._gemini import gemini_parameters
from toolfx.core.providers._reply import Reply
from toolfx.core.providers._results import paired
from toolfx.core.providers._tools import export_each, memoized
from toolfx.core.tools import block_text

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.jsonschema import SchemaProblem
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

MADE_ID: Final = "toolfx-gemini-"
"""How the ids toolfx gives calls that came without one begin (never sent back to Gemini)."""


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
    notes: tuple[ToolNote, ...]


def tools(catalog: Catalog) -> GeminiTool:
    """The catalog's native tools as one Gemini tool of function declarations, in Gemini's
    schema subset (made once per catalog snapshot and shared: do not change it)."""
    return memoized(catalog, _Exported, _export).tool


def notes(catalog: Catalog) -> tuple[ToolNote, ...]:
    """Where `tools(catalog)` differs from the tools' schemas (each keyword dropped, and why)."""
    return memoized(catalog, _Exported, _export).notes


def calls(
    reply: ProviderReply, catalog: Catalog, signal: CancelSignal | None = None
) -> tuple[ToolCall, ...]:
    """The function calls of a `GenerateContentResponse` (its first candidate), a candidate or
    a content, as dict or SDK object, sharing `signal` (a new one if None); a call without an
    id gets one from its position."""
    root = Reply.of(reply)
    if root.has("candidates"):
        root = root.at("candidates").first()
    content = root.at("content") if root.has("content") else root
    return tool_calls(_requested(content), catalog, signal, ToolCall, strict_nulls=False)


def results(calls: Sequence[ToolCall], results: Results) -> GeminiContent:
    """One user content: a `function_response` part per call, in order, then the additional
    contexts as parts."""
    answers, contexts = paired(calls, results)
    parts: list[GeminiPart] = [
        {"function_response": _response(a.call_id, a.name, a.content, is_error=a.is_error)}
        for a in answers
    ]
    parts.extend(_part(block) for context in contexts for block in context.content)
    return {"role": "user", "parts": parts}


def _export(catalog: Catalog) -> _Exported:
    made, found = export_each(catalog.native_schemas(), _declaration)
    return _Exported({"function_declarations": made}, found)


def _declaration(
    schema: ToolSchema, parameters: FrozenJson
) -> tuple[GeminiDeclaration, list[SchemaProblem]]:
    converted, problems = gemini_parameters(parameters)
    declaration: GeminiDeclaration = {"name": schema.name, "description": schema.description}
    if converted is not None:
        declaration["parameters"] = converted
    return declaration, problems


def _requested(content: Reply) -> Iterator[tuple[str, str, object]]:
    for index, part in enumerate(content.at("parts").items()):
        if part.has("function_call") or part.has("functionCall"):
            call = part.at("function_call", "functionCall")
            given = call.at("id").value
            call_id = given if isinstance(given, str) and given else f"{MADE_ID}{index}"
            args = call.at("args").value
            yield call_id, call.text("name"), {} if args is None else args


def _response(
    call_id: str, name: str, content: Sequence[ContentBlock], *, is_error: bool
) -> GeminiFunctionResponse:
    text = "\n".join(block_text(block) for block in content)
    response: GeminiFunctionResponse = {
        "name": name,
        "response": {"error" if is_error else "output": text},
    }
    if not call_id.startswith(MADE_ID):
        response["id"] = call_id
    media: list[GeminiResponsePart] = [
        {"inline_data": {"mime_type": media_type, "data": data}}
        for media_type, data in filter(None, map(inline_bytes, content))
    ]
    if media:
        response["parts"] = media
    return response


def _part(block: ContentBlock) -> GeminiPart:
    inline = inline_bytes(block)
    if inline is None:
        return {"text": block_text(block)}
    return {"inline_data": {"mime_type": inline[0], "data": inline[1]}}
