"""Short renderings of JSON values and schemas for messages a model reads.

Values are rendered by kind (`string "abc"`, `integer 3`, `object with 2 keys`) and literals
compactly (`'a'`, `1.5`, `null`); long text is truncated to `MAX_RENDERED_CHARS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

__all__ = [
    "MAX_RENDERED_CHARS",
    "describe_schema",
    "describe_value",
    "names",
    "plural",
    "render_literal",
    "truncate",
]

MAX_RENDERED_CHARS: Final = 60
"""Rendered values longer than this are truncated."""


def truncate(text: str, limit: int = MAX_RENDERED_CHARS) -> str:
    """Cut a text to `limit` characters, ending with "..." when something was cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _number(value: int | float) -> str:
    try:
        text = repr(value)
    except ValueError:  # an integer beyond Python's int-to-str digit limit
        return f"with {int(value).bit_length()} bits"
    if isinstance(value, int) and len(text) > MAX_RENDERED_CHARS:
        return f"{text[:20]}...{text[-6:]} ({len(text.lstrip('-'))} digits)"
    return text


def plural(count: int, word: str, words: str | None = None) -> str:
    """`1 item`, `2 items`; `words` for a word that does not just take an s (`2 matches`)."""
    return f"{count} {word}" if count == 1 else f"{count} {words or word + 's'}"


def render_literal(value: object) -> str:
    """Render a JSON value compactly for a message: strings single-quoted, long values truncated."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return "'" + truncate(value, MAX_RENDERED_CHARS - 2) + "'"
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return truncate(text)


def describe_value(value: object) -> str:
    """Say briefly what a JSON value is: `string "abc"`, `integer 3`, `object with 2 keys`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"integer {_number(value)}"
    if isinstance(value, float):
        return f"number {_number(value)}"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        if len(text) <= MAX_RENDERED_CHARS:
            return f"string {text}"
        return f'string {text[: MAX_RENDERED_CHARS - 4]}..." ({len(value)} characters)'
    if isinstance(value, Mapping):
        return "empty object" if not value else f"object with {plural(len(value), 'key')}"
    if isinstance(value, Sequence):
        return "empty array" if not value else f"array with {plural(len(value), 'item')}"
    return f"a {type(value).__name__}"


def names(items: Iterable[str]) -> str:
    """A comma-separated list of names, shortened when long."""
    listed = list(items)
    text = ", ".join(listed[:12]) + (", ..." if len(listed) > 12 else "")
    return truncate(text, 2 * MAX_RENDERED_CHARS)


def describe_schema(schema: object, fallback: str) -> str:
    """Say briefly what a schema (a oneOf/anyOf branch) expects, or give `fallback`."""
    if schema is True:
        return "any value"
    if not isinstance(schema, Mapping):
        return "nothing" if schema is False else fallback
    title = schema.get("title")
    if isinstance(title, str):
        return truncate(title, 30)
    if "const" in schema:
        return render_literal(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, Sequence) and not isinstance(enum, str):
        return "one of " + truncate(", ".join(render_literal(v) for v in enum))
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return f"'{truncate(ref.rsplit('/', 1)[-1], 30)}'"
    kind = schema.get("type")
    if isinstance(kind, Sequence) and not isinstance(kind, str):
        return " or ".join(str(k) for k in kind)
    if kind == "object":
        return _describe_object(schema)
    if isinstance(kind, str):
        return kind
    return fallback


def _describe_object(schema: Mapping[str, object]) -> str:
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            if isinstance(sub, Mapping) and "const" in sub:
                return f"object with {key} = {render_literal(sub['const'])}"
    required = schema.get("required")
    if isinstance(required, Sequence) and not isinstance(required, str) and required:
        return f"object with {names(str(r) for r in required)}"
    return "object"
