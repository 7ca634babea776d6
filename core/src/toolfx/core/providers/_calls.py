"""The tool calls a model asked for, as `ToolCall`s sharing the turn's cancellation signal.

Arguments sent as text are parsed with toolfx's lossless parser under its default limits: text
that is not JSON (bad syntax, a duplicate key, NaN, too deep or too large) becomes a call that
fails INVALID_ARGS naming the problem, never an exception; empty text is an empty object. A
call to a tool exported for strict mode has its strict-mode nulls undone against the tool's own
schema (`undo_strict_nulls`) before the pipeline validates it, whether its arguments came as
text or already parsed; text for a tool whose schema cannot get such nulls is parsed straight
into the call (`ToolCall.from_json`).

Call ids are what every wire format pairs an answer with, so a reply that gives two calls one id
is a `ReplyError` naming both places: neither call runs (the reply cannot be answered).

The wire format hands in the `ToolCall` class: importing the pipeline here would put one module
more on the longest import chain than the architecture allows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from toolfx.core.json import JsonError, json_pointer, parse_or_error, snapshot_or_error
from toolfx.core.providers._nulls import StrictNullTools, undo_strict_nulls
from toolfx.core.providers._tools import memoized
from toolfx.core.runtime import CancelSignal

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.pipeline import ToolCall
    from toolfx.core.providers._reply import Reply
    from toolfx.core.registry import Catalog

__all__ = ["Requested", "one_call", "tool_calls"]

Requested = tuple[str, str, object, "Reply"]
"""One call as a reply gives it: its id, the tool's name, the arguments (text or a value), and
where in the reply the call is."""


def tool_calls(
    requested: Iterable[Requested],
    catalog: Catalog,
    signal: CancelSignal | None,
    call_type: type[ToolCall],
    *,
    strict_nulls: bool,
) -> tuple[ToolCall, ...]:
    """Each requested call as a ToolCall on one signal (`signal`, or a new one)."""
    shared = CancelSignal() if signal is None else signal
    seen: dict[str, Reply] = {}
    made: list[ToolCall] = []
    for call in requested:
        call_id, name, arguments, where = call
        first = seen.setdefault(call_id, where)
        if first is not where:
            problem = f"call id {call_id!r} is given already at {json_pointer(first.path)}"
            raise where.error(f"{problem}: each call needs an id of its own")
        made.append(
            one_call(
                call_type,
                call_id,
                name,
                arguments,
                catalog=catalog,
                signal=shared,
                strict_nulls=strict_nulls,
            )
        )
    return tuple(made)


def one_call(
    call_type: type[ToolCall],
    call_id: str,
    name: str,
    arguments: object,
    *,
    catalog: Catalog,
    signal: CancelSignal,
    strict_nulls: bool,
) -> ToolCall:
    """One call from the arguments as the model sent them: text (parsed; blank is `{}`; not
    JSON: a call failing INVALID_ARGS) or a value; strict-mode nulls undone if `strict_nulls`."""
    registration = catalog.direct(name) if strict_nulls else None
    if registration is not None and not memoized(
        catalog, StrictNullTools, StrictNullTools
    ).undo_needed(registration):
        registration = None  # no property strict mode could have sent as null: nothing to undo
    if isinstance(arguments, str):
        text = arguments if arguments.strip() else "{}"
        if registration is None:  # parsed straight into frozen JSON: no second snapshot
            return call_type.from_json(call_id, name, text, signal)
        parsed = parse_or_error(text)
        if type(parsed) is JsonError:
            return call_type.unparsed(call_id, name, arguments, parsed, signal)
        value: FrozenJson = parsed
    elif registration is not None:
        snapshot = snapshot_or_error(arguments)  # bounded: the walk below meets only JSON
        if type(snapshot) is JsonError:  # not JSON: the call says why when it is built
            return call_type(call_id, name, arguments, signal)
        value = snapshot
    else:
        return call_type(call_id, name, arguments, signal)
    undone = undo_strict_nulls(registration.definition.parameters.json_schema, value)
    return call_type(call_id, name, undone, signal)
