"""The keywords of the full profile and the names `type` may take (shared by both profiles)."""

from __future__ import annotations

from typing import Final

__all__ = ["FULL_KEYWORDS", "JSON_TYPES"]

JSON_TYPES: Final = ("object", "array", "string", "number", "integer", "boolean", "null")
"""The names `type` may take."""

_SCHEMA: Final = frozenset(
    {
        "additionalProperties", "contains", "else", "if", "items", "not", "propertyNames",
        "then", "unevaluatedItems", "unevaluatedProperties",
    }
)  # fmt: skip
_SCHEMA_MAP: Final = frozenset({"$defs", "dependentSchemas", "patternProperties", "properties"})
_SCHEMA_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_NUMBER: Final = frozenset({"maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"})
_COUNT: Final = frozenset(
    {
        "maxLength", "minLength", "maxItems", "minItems", "maxContains", "minContains",
        "maxProperties", "minProperties",
    }
)  # fmt: skip
_STRING: Final = frozenset({"$comment", "title", "description"})
_BOOLEAN: Final = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly"})
_ANY: Final = frozenset({"const", "default"})
_LIST: Final = frozenset({"enum", "examples"})
_SPECIAL: Final = frozenset(
    {
        "type", "multipleOf", "pattern", "required", "dependentRequired", "$ref",
        "$dynamicRef", "$id", "$anchor", "$dynamicAnchor", "$schema", "format",
    }
)  # fmt: skip

FULL_KEYWORDS: Final = (
    _SCHEMA | _SCHEMA_MAP | _SCHEMA_LIST | _NUMBER | _COUNT | _STRING | _BOOLEAN | _ANY | _LIST
) | _SPECIAL
"""Every keyword the full profile accepts."""
