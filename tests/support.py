"""Helpers the interpreter tests share: a sample approval request and a cancel from a thread."""

from __future__ import annotations

import threading

from toolfx.core.cancel import CancelSignal
from toolfx.core.runtime import ApprovalRequest

__all__ = ["approval_request", "cancel_later"]


def approval_request(call_id: str = "call-1", agent: str | None = None) -> ApprovalRequest:
    """An ask for a destructive shell command, the same in every interpreter's tests."""
    return ApprovalRequest(
        call_id=call_id,
        tool="bash",
        agent=agent,
        permission="bash",
        patterns=("rm *",),
        reason="deletes files",
        arguments=None,
    )


def cancel_later(signal: CancelSignal, seconds: float, reason: str) -> threading.Timer:
    """Set `signal` from another thread after `seconds`."""
    timer = threading.Timer(seconds, signal.cancel, (reason,))
    timer.daemon = True
    timer.start()
    return timer
