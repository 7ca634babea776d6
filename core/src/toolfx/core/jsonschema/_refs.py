"""Reference checks for the full profile: every `$ref` must resolve inside the schema itself.

While the full walker visits subschemas, `References` tracks the base URI (`$id`), registers each
schema resource and its anchors, and records every reference. `check` then resolves each one the
way Draft 2020-12 does, against the embedded resources only: there is no network, so a reference
to anything else (except the bundled Draft 2020-12 meta-schemas) is reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, final
from urllib.parse import unquote, urldefrag, urljoin

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.jsonschema._problems import Problems

__all__ = ["META_SCHEMA_PREFIX", "NO_TARGET", "References", "follow_pointer"]

META_SCHEMA_PREFIX: Final = "https://json-schema.org/draft/2020-12/"
"""References under this prefix name the meta-schemas jsonschema-rs bundles."""

_Path = tuple[str | int, ...]
NO_TARGET: Final = object()
"""What `follow_pointer` gives when the pointer points to nothing."""


def _resolve(base: str, reference: str) -> tuple[str, str]:
    """The resource URI and the (decoded) fragment a reference names, seen from `base`."""
    if reference.startswith("#"):
        return base, unquote(reference[1:])
    document, fragment = urldefrag(urljoin(base, reference) if base else reference)
    return document, unquote(fragment)


def follow_pointer(node: object, fragment: str) -> object:
    """Follow a JSON pointer (without its leading '#') from `node`, or `NO_TARGET`."""
    for raw in fragment.split("/")[1:]:
        segment = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            node = node.get(segment, NO_TARGET)
        elif isinstance(node, Sequence) and not isinstance(node, str) and segment.isdigit():
            index = int(segment)
            node = node[index] if index < len(node) else NO_TARGET
        else:
            return NO_TARGET
        if node is NO_TARGET:
            return NO_TARGET
    return node


@final
class References:
    """The schema resources, anchors and references met during one walk."""

    __slots__ = ("anchors", "references", "resources")

    def __init__(self, root: FrozenJson) -> None:
        self.resources: dict[str, object] = {"": root}
        self.anchors: set[tuple[str, str]] = set()
        self.references: list[tuple[_Path, str, str]] = []

    def enter(self, node: Mapping[str, object], base: str) -> str:
        """Register a schema object (its `$id` and anchors); give the base URI inside it."""
        identifier = node.get("$id")
        if isinstance(identifier, str) and "#" not in identifier.rstrip("#"):
            base = urldefrag(urljoin(base, identifier) if base else identifier)[0]
            self.resources.setdefault(base, node)
        for keyword in ("$anchor", "$dynamicAnchor"):
            name = node.get(keyword)
            if isinstance(name, str):
                self.anchors.add((base, name))
        return base

    def refer(self, at: _Path, base: str, reference: str) -> None:
        """Record a reference found at `at`, written inside a resource whose base URI is `base`."""
        self.references.append((at, base, reference))

    def check(self, out: Problems) -> None:
        """Report every recorded reference that does not resolve inside the schema."""
        for at, base, reference in self.references:
            reason = self._problem(base, reference)
            if reason is not None:
                out.add(at, reason)

    def _problem(self, base: str, reference: str) -> str | None:
        document, fragment = _resolve(base, reference)
        target = self.resources.get(document, NO_TARGET)
        if target is NO_TARGET:
            if document.startswith(META_SCHEMA_PREFIX):
                return None  # bundled with the validator; the compile step checks the rest
            return (
                f"reference '{reference}' points outside this schema (to '{document}'); "
                "only references inside the schema are resolved (there is no network): "
                "use a '#/$defs/...' pointer, or embed the target with a matching $id"
            )
        if not fragment:
            return None
        if fragment.startswith("/"):
            found = follow_pointer(target, fragment)
            if found is NO_TARGET:
                return f"reference '{reference}' points to nothing: no '{fragment}' in the schema"
            if not isinstance(found, bool | Mapping):
                return f"reference '{reference}' points to a value that is not a schema"
            return None
        if (document, fragment) not in self.anchors:
            return f"reference '{reference}' names no $anchor or $dynamicAnchor '{fragment}'"
        return None
