"""Reading a strict OpenAI call back: strict mode sends every property, an omitted optional one
as null, which the tool's own schema may refuse; such nulls are dropped before validation.

Only a schema with a property some object does not require can get such a null: whether a tool's
has one is decided once per tool and catalog snapshot (`StrictNullTools`), and a call to a tool
without one is not walked at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, final

from toolfx.core.providers._schema import (
    accepts_null,
    json_kind,
    kinds,
    required_names,
    resolve_local,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.registry import Catalog, Registration

__all__ = ["StrictNullTools", "has_optional_properties", "undo_strict_nulls"]


def has_optional_properties(parameters: FrozenJson) -> bool:
    """Whether any object schema in `parameters` (anywhere: `$defs`, branches, items) has a
    property its `required` does not list: else `undo_strict_nulls` can change nothing."""
    pending: list[object] = [parameters]
    while pending:
        node = pending.pop()
        if isinstance(node, Mapping):
            properties = node.get("properties")
            if isinstance(properties, Mapping) and not required_names(node).issuperset(properties):
                return True
            pending.extend(node.values())
        elif isinstance(node, Sequence) and not isinstance(node, str):
            pending.extend(node)
    return False


@final
class StrictNullTools:
    """For one catalog snapshot: which tools' calls can carry strict-mode nulls to undo, each
    decided once (kept with the snapshot by `memoized`)."""

    __slots__ = ("_decided",)

    def __init__(self, catalog: Catalog) -> None:
        self._decided: dict[str, bool] = {}

    def undo_needed(self, registration: Registration) -> bool:
        """Whether a call of `registration` may hold nulls that `undo_strict_nulls` drops."""
        decided = self._decided.get(registration.name)
        if decided is None:
            schema = registration.definition.parameters.json_schema
            decided = self._decided[registration.name] = has_optional_properties(schema)
        return decided


def undo_strict_nulls(parameters: FrozenJson, arguments: FrozenJson) -> FrozenJson:
    """`arguments` without the nulls strict mode put in for optional, non-nullable properties.

    Walks the tool's own parameter schema (through local `$ref`s, arrays and unions whose
    branch is decided by the value's kind or an object's tag); anything else is left as it is,
    so the pipeline's validation still has the last word; so is a value whose walk the schema
    would lead past Python's recursion (a union that refers to itself, a chain of thousands of
    `$ref`s: an MCP server's schema may be anything).
    """
    try:
        return _walk(parameters, parameters, arguments)
    except RecursionError:
        return arguments


def _walk(node: object, root: FrozenJson, value: FrozenJson) -> FrozenJson:
    node = _resolved(node, root)
    if not isinstance(node, Mapping):
        return value
    branch = _branch(node, root, value)
    if branch is not None:
        return _walk(branch, root, value)
    if isinstance(value, Mapping):
        return _object(node, root, value)
    items = node.get("items")
    if isinstance(value, Sequence) and not isinstance(value, str) and isinstance(items, Mapping):
        return [_walk(items, root, item) for item in value]
    return value


def _object(
    node: Mapping[str, object], root: FrozenJson, value: Mapping[str, FrozenJson]
) -> FrozenJson:
    properties = node.get("properties")
    if not isinstance(properties, Mapping):
        return value
    required = required_names(node)
    out: dict[str, FrozenJson] = {}
    for key, item in value.items():
        schema = properties.get(key)
        if schema is None:
            out[key] = item
        elif item is None and key not in required and not accepts_null(schema, root):
            continue  # strict mode's stand-in for "not given"
        else:
            out[key] = _walk(schema, root, item)
    return out


def _branch(node: Mapping[str, object], root: FrozenJson, value: FrozenJson) -> object | None:
    """The one union branch `value` can belong to, if the value decides it."""
    branches = node.get("anyOf", node.get("oneOf"))
    if not isinstance(branches, Sequence) or isinstance(branches, str):
        return None
    kind = json_kind(value)
    fitting = [b for b in branches if kind in kinds(b, root)]
    if len(fitting) > 1 and isinstance(value, dict):
        fitting = [b for b in fitting if _tags_match(_resolved(b, root), root, value)]
    return fitting[0] if len(fitting) == 1 else None


def _tags_match(node: object, root: FrozenJson, value: Mapping[str, FrozenJson]) -> bool:
    if not isinstance(node, Mapping) or not isinstance(node.get("properties"), Mapping):
        return False
    properties = node["properties"]
    for key in required_names(node):
        prop = _resolved(properties.get(key), root)
        if not isinstance(prop, Mapping) or key not in value:
            continue
        pinned = [prop["const"]] if "const" in prop else prop.get("enum")
        if isinstance(pinned, Sequence) and not _among(value[key], pinned):
            return False
    return True


def _among(value: FrozenJson, pinned: Sequence[object]) -> bool:
    """Whether a tag value is one of the pinned ones (as JSON compares: 1 is not true)."""
    kind = json_kind(value)
    return any(json_kind(p) == kind and p == value for p in pinned)


def _resolved(node: object, root: FrozenJson) -> object:
    seen: set[str] = set()
    while isinstance(node, Mapping) and isinstance(ref := node.get("$ref"), str):
        if ref in seen:
            return node
        seen.add(ref)
        node = resolve_local(root, ref)
    return node
