"""A function's docstring read for a tool: its description and each parameter's description.

Google, NumPy and reST (Sphinx) styles are recognised by `docstring-parser`, whichever is used
(its automatic choice never fails: the NumPy reader accepts any text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import final

import docstring_parser

__all__ = ["ToolDocs", "read_docstring"]


@final
@dataclass(frozen=True, slots=True)
class ToolDocs:
    """What a docstring says: the tool's description and its parameters' descriptions."""

    description: str = ""
    parameters: Mapping[str, str] = field(default_factory=dict)


def read_docstring(doc: str | None) -> ToolDocs:
    """The description (summary and body, parameter sections left out) and the parameters'."""
    if doc is None or not doc.strip():
        return ToolDocs()
    parsed = docstring_parser.parse(doc)
    paragraphs = (parsed.short_description, parsed.long_description)
    description = "\n\n".join(p.strip() for p in paragraphs if p and p.strip())
    parameters = {
        p.arg_name: " ".join(p.description.split())
        for p in parsed.params
        if p.args[0] not in _NOT_PARAMETERS and p.description and p.description.strip()
    }
    return ToolDocs(description, parameters)


_NOT_PARAMETERS = frozenset({"attribute"})
"""Section keys docstring-parser gives entries that describe no parameter."""
