"""Code Mode's bridge: a program's tool calls as sub-dispatches of its `run_code` call.

Each call is a `ToolCall` of its own through the whole pipeline (`run_call` builds them: id
`<outer id>:code:<n>`, the outer call's root id, its token as `parent`, so only Code Mode tools
resolve, its signal and its dependencies). Calls gathered together are scheduled like a batch:
exclusive ones alone, parallel-safe runs `limit` at once. With a record sink, a sub-call's
`tool/call` is written before it runs and a `tool/code-dispatch` after it settles, holding the
content the `code_dispatch_log` waterfall leaves (a raising listener is reported and the original
is logged; the listeners run with or without a sink).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from toolfx.core.pipeline._body import BLOCK_TYPES
from toolfx.core.pipeline._schedule import schedule
from toolfx.core.records import ToolCodeDispatchRecord, write_record
from toolfx.core.tools import (
    CALL_FAILURES,
    CodeDispatchLog,
    ContentBlock,
    ToolExecutionFailure,
    defect,
)

if TYPE_CHECKING:
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.pipeline._resumption import Resumption
    from toolfx.core.records import RecordSink
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import Runtime
    from toolfx.core.tools import CodeDispatchLogListener, ToolExecution, ToolExecutionResult

__all__ = ["RunOne", "dispatch_sub_calls"]

RunOne = Callable[["Runtime", "Catalog", "ToolCall"], Awaitable["ToolExecutionResult"]]
"""Runs one call through the pipeline without a record sink (`run_call`)."""


async def dispatch_sub_calls(  # noqa: PLR0917 (the outer call's state, then its calls)
    runtime: Runtime,
    catalog: Catalog,
    sink: RecordSink | None,
    outer: ToolExecution,
    calls: Sequence[ToolCall],
    limit: int,
    run: RunOne,
    resumption: Resumption | None = None,
) -> tuple[ToolExecutionResult, ...]:
    """Each of a program's calls through the pipeline (grouped like a batch), in their order.

    In a resumed run, a sub-call the journal settles is answered from it without running.
    """
    settle: Callable[[ToolCall], Awaitable[ToolExecutionResult]]
    if resumption is not None:
        settle = functools.partial(_resumed, runtime, catalog, sink, outer, run, resumption)
    elif sink is None and not catalog.plan.code_dispatch_log:  # nothing to write or log: the call
        settle = functools.partial(run, runtime, catalog)
    else:
        settle = functools.partial(_settle, runtime, catalog, sink, outer, run, None)
    if len(calls) == 1:  # a program awaiting its calls one at a time: nothing to schedule
        return (await settle(calls[0]),)
    results: list[ToolExecutionResult | None] = [None] * len(calls)
    for group in schedule(catalog, calls).groups:
        if len(group) == 1:
            settled = [await settle(calls[group[0]])]
        else:
            thunks = [functools.partial(settle, calls[index]) for index in group]
            settled = await runtime.gather(thunks, limit)
        for index, result in zip(group, settled, strict=True):
            results[index] = result
    return tuple(result for result in results if result is not None)


async def _resumed(  # noqa: PLR0917 (a partial's bound state, then the call)
    runtime: Runtime,
    catalog: Catalog,
    sink: RecordSink | None,
    outer: ToolExecution,
    run: RunOne,
    resumption: Resumption,
    call: ToolCall,
) -> ToolExecutionResult:
    """One sub-call of a resumed run: the journal's answer if it has one, else it runs."""
    registration = catalog.view.code.get(call.name)
    idempotent = registration is not None and registration.definition.options.idempotent
    known = resumption.settled(runtime, call, idempotent=idempotent)
    if known is not None:
        return known
    return await _settle(runtime, catalog, sink, outer, run, resumption, call)


async def _settle(  # noqa: PLR0917 (a partial's bound state, then the call)
    runtime: Runtime,
    catalog: Catalog,
    sink: RecordSink | None,
    outer: ToolExecution,
    run: RunOne,
    resumption: Resumption | None,
    call: ToolCall,
) -> ToolExecutionResult:
    """One sub-call: its `tool/call`, the pipeline, the log waterfall, what it answered (in a
    resumed run), its `tool/code-dispatch`."""
    if sink is not None:
        refused = write_record(runtime, sink, call.record(catalog.scope))
        if refused is not None:
            return defect(refused, f"writing the `tool/call` record of `{call.name}` (not run)")
    result = await run(runtime, catalog, call)
    listeners = catalog.plan.code_dispatch_log
    is_error = isinstance(result, ToolExecutionFailure)
    content = result.content
    if listeners:
        log = CodeDispatchLog(outer, call.call_id, call.name, is_error, content)
        content = await _logged(runtime, listeners, log)
    if resumption is not None:
        resumption.answered(runtime, call.call_id, result)
    if sink is not None:
        record = ToolCodeDispatchRecord(call.call_id, outer.call_id, call.name, is_error, content)
        write_record(runtime, sink, record)
    return result


async def _logged(
    runtime: Runtime, listeners: tuple[CodeDispatchLogListener, ...], log: CodeDispatchLog
) -> tuple[ContentBlock, ...]:
    """The content the waterfall leaves for the log (the original if a listener fails)."""
    try:
        blocks = tuple(await _waterfall(listeners, log, 0))
        for index, block in enumerate(blocks):
            if type(block) not in BLOCK_TYPES:
                raise TypeError(f"block {index} is {type(block).__name__}, not a content block")
    except CALL_FAILURES as error:  # contained: the log keeps what the sub-call settled with
        runtime.report(error, f"a code-dispatch-log listener (logging {log.sub_call_id})")
        return log.content
    return blocks


async def _waterfall(
    listeners: tuple[CodeDispatchLogListener, ...], log: CodeDispatchLog, index: int
) -> tuple[ContentBlock, ...]:
    if index == len(listeners):
        return log.content

    async def next_content() -> tuple[ContentBlock, ...]:
        return await _waterfall(listeners, log, index + 1)

    return await listeners[index](log, next_content)
