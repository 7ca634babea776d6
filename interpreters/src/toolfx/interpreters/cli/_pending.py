"""What a call will do, as its tool presents it before it runs (its pending card)."""

from __future__ import annotations

from returns.result import Success

from toolfx.core.json import FrozenJson
from toolfx.core.registry import Catalog
from toolfx.core.tools import GenericCallCard, ToolCallView

__all__ = ["pending_view"]


def pending_view(catalog: Catalog, name: str, arguments: FrozenJson) -> ToolCallView:
    """The pending card the tool `name` presents for `arguments`; a generic one (the name and the
    raw arguments) when the tool is unknown, presents none or the arguments do not fit it."""
    definition = catalog.get(name)
    if definition is not None and definition.present_call is not None:
        decoded = definition.parameters.validate(arguments)
        if isinstance(decoded, Success):
            view = definition.present_call(decoded.unwrap())
            if view is not None:
                return view
    return GenericCallCard(title=name, raw_input=arguments)
