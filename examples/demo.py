"""The bundled demo: define a typed tool, then check good and bad model arguments against it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired, TypedDict

from returns.pipeline import is_successful

from toolfx.core import Output, ToolRunContext, define_tool, parse_json, text


class SearchArgs(TypedDict):
    """Search the workspace for a pattern."""

    pattern: Annotated[str, "A regular expression"]
    mode: NotRequired[Literal["files", "lines"]]
    limit: NotRequired[Annotated[int, "At most this many hits"]]


@dataclass(frozen=True)
class SearchHits:
    """What the search found."""

    total: int
    paths: tuple[str, ...]


def search(args: SearchArgs, ctx: ToolRunContext) -> SearchHits:
    """A stand-in body: the pipeline that runs bodies arrives in a later issue."""
    return SearchHits(total=0, paths=())


search_tool = define_tool(
    name="search",
    description="Search the workspace",
    parameters=SearchArgs,
    output=Output(SearchHits, render=lambda args, hits: text(f"{hits.total} hits")),
    execute=search,
)

CALLS = [
    '{"pattern": "def main", "mode": "lines", "limit": 20}',
    '{"pattern": "x", "mode": "words", "limit": "ten", "colour": "blue"}',
    '{"limit": 1e400}',
    '{"pattern": "a", "pattern": "b"}',
]


def check(raw: str) -> str:
    """What happens to one model call: parsed, validated and decoded, or why not."""
    parsed = parse_json(raw)
    if not is_successful(parsed):
        return f"  rejected before validation: {parsed.failure()}"
    validated = search_tool.parameters.validate(parsed.unwrap())
    if not is_successful(validated):
        message = validated.failure().message("Invalid arguments for tool `search`")
        return "  rejected, the model is told:\n    " + message.replace("\n", "\n    ")
    args = validated.unwrap()
    return f"  accepted, decoded to {type(args).__name__}: {dict(args)}"


def main() -> None:
    """Print the tool's model-facing schema, then how each sample call fares."""
    print("Tool `search`, model-facing parameters:")
    print(json.dumps(search_tool.parameters.json_schema, indent=2))
    for raw in CALLS:
        print(f"\nModel sends: {raw}")
        print(check(raw))


if __name__ == "__main__":
    main()
