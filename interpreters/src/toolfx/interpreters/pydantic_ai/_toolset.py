"""A toolfx Location or Catalog as a pydantic-ai toolset, each call run through the pipeline.

The tools offered are the catalog's (taken fresh from a Location for every listing and every
call) with toolfx's own parameter schemas. pydantic-ai's argument validation is bypassed
(`RawArguments`): the pipeline validates what the model sent, so its INVALID_ARGS messages
reach the model. Each call is `execute` on the anyio interpreter, on a fresh runtime whose asks
go to pydantic-ai's deferred tool calls (`_deferred.py`), with the model's call id as the
ToolCall's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal, final
from uuid import uuid4

from pydantic_ai import AbstractToolset, RunContext, ToolDefinition, ToolsetTool

from toolfx.core import (
    Catalog,
    FrozenJson,
    Location,
    RecordSink,
    Runtime,
    execute,
    thaw_json,
)
from toolfx.core.providers import model_call
from toolfx.interpreters._framework_asks import AskLedger, FrameworkRuntime
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio_async
from toolfx.interpreters.pydantic_ai._arguments import RawArguments, model_arguments
from toolfx.interpreters.pydantic_ai._deferred import deferred_asks
from toolfx.interpreters.pydantic_ai._results import ModelContent, tool_return

if TYPE_CHECKING:
    from pydantic_ai import ToolReturn

    from toolfx.core import ApprovalRequest

__all__ = ["AskRoute", "ToolfxToolset", "toolset"]

AskRoute = Literal["deferred", "runtime"]
"""Who answers an ask no rule answered: pydantic-ai's deferred tool calls (the run ends with
`DeferredToolRequests`), or the runtime's own approvals (the run goes on)."""

_RAW: Final = RawArguments()


@final
class ToolfxToolset(AbstractToolset[Any]):
    """A toolfx catalog's tools for a pydantic-ai agent; every call runs toolfx's pipeline."""

    def __init__(
        self,
        source: Location | Catalog,
        *,
        scope: str | None = None,
        runtime: Callable[[], Runtime] | None = None,
        sink: RecordSink | None = None,
        asks: AskRoute = "deferred",
        id: str | None = None,
    ) -> None:
        self._source = source
        self._asks = asks
        self._scope = scope
        self._runtime = runtime or AnyioRuntime
        self._sink = sink
        self._id = id
        self._ledger = AskLedger()

    @property
    def id(self) -> str | None:
        """The id given, if any (pydantic-ai uses it to tell toolsets apart)."""
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The catalog's tools, with their toolfx parameter schemas.

        A tool that never declared itself parallel-safe runs alone (pydantic-ai's `sequential`),
        as toolfx's own batches run it.
        """
        catalog = self._catalog()
        return {
            schema.name: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=schema.name,
                    description=schema.description,
                    parameters_json_schema=_object_schema(schema.parameters),
                    sequential=_runs_alone(catalog, schema.name),
                ),
                max_retries=0,
                args_validator=_RAW,
            )
            for schema in catalog.schemas()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> ModelContent | ToolReturn[ModelContent]:
        """Run the call through the pipeline; an ask the human has not answered defers it."""
        call_id = ctx.tool_call_id or f"pydantic-ai-{uuid4().hex}"
        # answers are kept per conversation: another one may reuse the model's call ids
        asked = call_id if ctx.conversation_id is None else f"{ctx.conversation_id}/{call_id}"
        decide = (
            deferred_asks(self._ledger, asked, ctx.tool_call_approved)
            if self._asks == "deferred"
            else _runtime_approvals
        )
        runtime = FrameworkRuntime(self._runtime(), decide)
        catalog = self._catalog()
        # text that is not JSON: a call failing INVALID_ARGS, unrun, recorded by the pipeline
        call = model_call(call_id, name, model_arguments(tool_args), catalog)
        result = await run_anyio_async(execute(catalog, call, self._sink), runtime)
        runtime.raise_interruption()
        self._ledger.forget(asked)
        return tool_return(result)

    def _catalog(self) -> Catalog:
        source = self._source
        return source.catalog(self._scope) if isinstance(source, Location) else source


def toolset(
    source: Location | Catalog,
    *,
    scope: str | None = None,
    runtime: Callable[[], Runtime] | None = None,
    sink: RecordSink | None = None,
    asks: AskRoute = "deferred",
    id: str | None = None,
) -> ToolfxToolset:
    """`source`'s tools as a pydantic-ai toolset: `Agent(model, toolsets=[toolset(location)])`."""
    return ToolfxToolset(source, scope=scope, runtime=runtime, sink=sink, asks=asks, id=id)


def _runtime_approvals(request: ApprovalRequest) -> None:
    """Every ask to the runtime's own approvals."""


def _runs_alone(catalog: Catalog, name: str) -> bool:
    definition = catalog.get(name)
    return definition is None or definition.is_concurrency_safe is None


def _object_schema(parameters: FrozenJson) -> dict[str, Any]:
    """The parameter schema as pydantic-ai's object schema."""
    schema = thaw_json(parameters)
    assert isinstance(schema, dict)  # a ToolDefinition's parameters always describe an object
    return schema
