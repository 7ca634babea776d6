"""Session files: JSONL, one model turn (a batch of tool calls) per non-empty line.

A line is toolfx's own form `{"calls": [{"id", "name", "arguments"}]}`, an OpenAI assistant
message with `tool_calls` (arguments as JSON text), or an Anthropic assistant message whose
`tool_use` blocks are the calls (other blocks are ignored). A provider's message is checked here
(a bad line names its number) and kept as it is: its calls are read when the tools are known, by
`toolfx.core.providers` (`openai_chat.calls`, `anthropic_messages.calls`). Argument text that is
not JSON does not stop the session: that call fails with INVALID_ARGS. A turn that gives two
calls one id is a bad line (answers and records pair with calls by id). A key of toolfx's own
form given under a name other formats use (`call_id`, `tool_call_id` or `callId` for `id`) is
refused with the key meant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal, final

from returns.result import Failure

from toolfx.core.json import FrozenJson, parse_json, render_literal
from toolfx.core.records import Invalid, array, as_json, as_str, decoding, field, read_object
from toolfx.interpreters.cli._visible import visible_id

__all__ = ["ProviderTurn", "SessionCall", "SessionError", "Turn", "parse_session"]

_SYNONYMS: Final[Mapping[str, str]] = {
    **dict.fromkeys(("call_id", "tool_call_id", "callId", "toolCallId", "tool_use_id"), "id"),
    **dict.fromkeys(("tool", "tool_name", "toolName", "function"), "name"),
    **dict.fromkeys(("args", "input", "params", "parameters", "arguments_json"), "arguments"),
}
"""Keys other formats (providers, SDKs) give a call, each with the key of toolfx's own form it
means: too unlike it for a spelling suggestion."""

_FORMS: Final = (
    'expected a toolfx turn {"calls": [...]}, an OpenAI assistant message with "tool_calls", '
    'or an Anthropic assistant message whose "content" is a list of blocks'
)


@final
@dataclass(frozen=True, slots=True)
class SessionCall:
    """One call of a toolfx turn: its id, the tool's name and its arguments."""

    call_id: str
    name: str
    arguments: FrozenJson


@final
@dataclass(frozen=True, slots=True)
class ProviderTurn:
    """A turn as a provider's assistant message (checked), whose calls are read with the tools."""

    wire: Literal["openai_chat", "anthropic_messages"]
    message: Mapping[str, FrozenJson]


Turn = tuple[SessionCall, ...] | ProviderTurn
"""One model turn: the calls it made, run together as one batch."""


class SessionError(ValueError):
    """A session file that cannot be read: the line (from 1) and what is wrong there."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def parse_session(text: str) -> tuple[Turn, ...]:
    """The turns of a session file's text, in order; the first bad line raises `SessionError`."""
    turns: list[Turn] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parsed = parse_json(line)
        if isinstance(parsed, Failure):
            raise SessionError(number, f"not JSON: {parsed.failure()}")
        turn = decoding(_turn, parsed.unwrap())
        if isinstance(turn, Failure):
            raise SessionError(number, str(turn.failure()))
        turns.append(turn.unwrap())
    return tuple(turns)


def _turn(value: object) -> Turn:
    if not isinstance(value, dict):
        raise Invalid(_FORMS)
    if "calls" in value:
        obj = read_object(value, ("calls",))
        calls = field(obj, "calls", lambda calls: array(calls, _toolfx_call))
        _each_id_once("calls", (call.call_id for call in calls))
        return calls
    if value.get("role") != "assistant":
        raise Invalid(_FORMS)
    if "tool_calls" in value:
        _each_id_once("tool_calls", field(value, "tool_calls", lambda c: array(c, _openai_call)))
        return ProviderTurn("openai_chat", value)
    if isinstance(value.get("content"), list):
        blocks = field(value, "content", lambda content: array(content, _anthropic_block))
        _each_id_once("content", blocks)
        return ProviderTurn("anthropic_messages", value)
    raise Invalid(_FORMS)


def _each_id_once(key: str, ids: Iterable[str | None]) -> None:
    """Refuse a turn whose calls (each an id, None for a block that is no call) repeat an id."""
    first: dict[str, int] = {}
    for index, call_id in enumerate(ids):
        if call_id is not None and first.setdefault(call_id, index) != index:
            where = f"/{key}/{first[call_id]}"
            raise Invalid(f"repeats the call id '{visible_id(call_id)}' of {where}", [index, key])


def _toolfx_call(value: object) -> SessionCall:
    obj = _own_object(value, ("id", "name"), ("arguments",))
    arguments = field(obj, "arguments", as_json) if "arguments" in obj else {}
    return SessionCall(field(obj, "id", as_str), field(obj, "name", as_str), arguments)


def _own_object(
    value: object, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> Mapping[str, object]:
    """`read_object`, naming the key meant when the first key it does not know is a synonym of
    one (`call_id` for `id`) that is not there."""
    if isinstance(value, dict):
        known = (*required, *optional)
        key: object = next((key for key in value if key not in known), None)
        meant = _SYNONYMS.get(key) if isinstance(key, str) else None
        if isinstance(key, str) and meant in known and meant not in value:
            shown = f"{render_literal(key)} (did you mean {render_literal(meant)}?)"
            raise Invalid(f"unexpected key {shown}", [key])
    return read_object(value, required, optional)


def _openai_call(value: object) -> str:
    obj = _open_object(value, ("id", "function"))
    function = field(obj, "function", lambda item: _open_object(item, ("name", "arguments")))
    field(function, "name", as_str)
    field(function, "arguments", as_str)
    return field(obj, "id", as_str)


def _anthropic_block(value: object) -> str | None:
    """A `tool_use` block's id once checked (None for a block of another type)."""
    obj = _open_object(value, ("type",))
    if obj["type"] != "tool_use":
        return None
    obj = _open_object(value, ("type", "id", "name", "input"))
    field(obj, "name", as_str)
    field(obj, "input", as_json)
    return field(obj, "id", as_str)


def _open_object(value: object, required: tuple[str, ...]) -> Mapping[str, object]:
    """A JSON object with the `required` keys; its other keys are a provider's, not ours."""
    return read_object(value, required, value.keys() if isinstance(value, dict) else ())
