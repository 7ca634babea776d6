"""A tool's arguments kept as the model sent them, for the pipeline to validate.

pydantic-ai validates a call's arguments before the toolset sees them; `RawArguments` only
wraps what the model sent (JSON text or an object) under one key, so toolfx's own snapshot and
schema validation give the model their typed INVALID_ARGS messages.
"""

from __future__ import annotations

from typing import Any, Final, final

__all__ = ["RAW_ARGUMENTS", "RawArguments", "model_arguments"]

RAW_ARGUMENTS: Final = "toolfx_raw_arguments"
"""The key under which the validated arguments hold what the model sent."""


@final
class RawArguments:
    """A pydantic-ai arguments validator that validates nothing: it keeps the model's input."""

    __slots__ = ()

    def validate_json(self, input: str | bytes | bytearray, **options: Any) -> dict[str, Any]:
        """The model's JSON text, unparsed."""
        return {RAW_ARGUMENTS: input}

    def validate_python(self, input: Any, **options: Any) -> dict[str, Any]:
        """The model's arguments object, unchecked."""
        return {RAW_ARGUMENTS: input}


def model_arguments(tool_args: dict[str, Any]) -> object:
    """What the model sent: its text (bytes decoded), or its arguments object (None: `{}`)."""
    raw = tool_args.get(RAW_ARGUMENTS)
    if isinstance(raw, bytes | bytearray):
        return bytes(raw).decode("utf-8", "replace")
    return {} if raw is None else raw
