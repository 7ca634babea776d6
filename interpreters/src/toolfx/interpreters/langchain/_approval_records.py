"""Every answer a call's asks get, written to the durable records as `tool/approval` events."""

from __future__ import annotations

from typing import TYPE_CHECKING, final

from toolfx.core import ToolApprovalRecord
from toolfx.core.runtime import DelegatingRuntime

if TYPE_CHECKING:
    from toolfx.core import ApprovalReply, ApprovalRequest, CancelSignal, RecordSink, Runtime

__all__ = ["RecordedApprovals"]


@final
class RecordedApprovals(DelegatingRuntime):
    """`inner` with each approval's request and reply written to `sink` once answered."""

    __slots__ = ("_sink",)

    def __init__(self, inner: Runtime, sink: RecordSink) -> None:
        super().__init__(inner)
        self._sink = sink

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """The inner runtime's answer, recorded."""
        reply = await self.inner.approve(request, signal)
        self._sink(ToolApprovalRecord.of(request, reply))
        return reply
