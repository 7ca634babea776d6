"""One tool's OpenAI function fields, shared by Chat Completions and the Responses API: strict
where the schema allows (see `_openai.py`), otherwise the schema as it is with a note per reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolfx.core.json import thaw_json
from toolfx.core.providers._openai import OPENAI_LIMITS, OpenAILimits, strict_parameters

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.jsonschema import SchemaProblem

__all__ = ["openai_function_parameters", "openai_parameters"]


def openai_parameters(
    parameters: FrozenJson, limits: OpenAILimits = OPENAI_LIMITS
) -> tuple[dict[str, object], bool, list[SchemaProblem]]:
    """The parameters OpenAI is sent, whether they are strict, and why they are not."""
    converted, problems = strict_parameters(parameters, limits)
    if converted is not None:
        return dict(converted), True, problems
    plain = thaw_json(parameters)
    return (dict(plain) if isinstance(plain, dict) else {}), False, problems


def openai_function_parameters(
    parameters: FrozenJson,
) -> tuple[tuple[dict[str, object], bool], list[SchemaProblem]]:
    """`openai_parameters` as a tool export's conversion: (parameters, strict), and why not."""
    sent, strict, problems = openai_parameters(parameters)
    return (sent, strict), problems
