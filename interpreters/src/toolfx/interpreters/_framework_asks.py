"""Asks of a call run inside an agent framework, answered by the framework's human in the loop.

A framework adapter runs each tool call through the whole pipeline on a `FrameworkRuntime`:
every ask goes to the adapter's `decide` first, which answers it (a reply), hands it to the
runtime's own approvals (None), or raises the framework's interruption (pydantic-ai's
`ApprovalRequired`, a LangGraph `interrupt`). A raised interruption is held, the ask and any
later one get `cancelled` (so the call ends ABORTED before its effect), and the adapter raises the
interruption again once the pipeline has finished: the framework asks its human, then runs the
call again with the answer.

`AskLedger` remembers, per call id, what the framework's human answered to the asks it was
shown, so the call run again gets those answers and defers only an ask it has not seen yet.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeVar, final

from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    DelegatingRuntime,
    Runtime,
)

__all__ = ["MAX_OPEN_CALLS", "AskLedger", "Decide", "FrameworkRuntime", "PendingAsk", "bounded"]

Decide = Callable[[ApprovalRequest], ApprovalReply | Awaitable[ApprovalReply | None] | None]
"""An adapter's answer to one ask: a reply, None (the runtime's approvals), or it raises the
framework's interruption."""


@final
class FrameworkRuntime(DelegatingRuntime):
    """`inner` with every ask answered by `decide`; the interruption `decide` raised is held."""

    __slots__ = ("_decide", "interruption")

    def __init__(self, inner: Runtime, decide: Decide) -> None:
        super().__init__(inner)
        self._decide = decide
        self.interruption: Exception | None = None
        """What `decide` raised (the adapter raises it again after the call), or None."""

    async def approve(self, request: ApprovalRequest, signal: CancelSignal) -> ApprovalReply:
        """`decide`'s answer; `cancelled` once the framework has interrupted the call."""
        if self.interruption is not None:
            return "cancelled"
        try:
            decision = self._decide(request)
            if inspect.isawaitable(decision):
                decision = await decision
        except Exception as interruption:  # the framework's own way to stop and ask its human
            self.interruption = interruption
            return "cancelled"
        if decision is None:
            return await self.inner.approve(request, signal)
        return decision

    def raise_interruption(self) -> None:
        """Raise the held interruption, if `decide` raised one."""
        if self.interruption is not None:
            raise self.interruption


@final
@dataclass(frozen=True, slots=True)
class PendingAsk:
    """An ask shown to the framework's human: the call's id and what it asked."""

    call_id: str
    request: ApprovalRequest

    def describe(self) -> dict[str, object]:
        """The ask as JSON-ready metadata for the framework's approval item."""
        request = self.request
        return {
            "tool": request.tool,
            "permission": request.permission,
            "patterns": list(request.patterns),
            "reason": request.reason,
        }


_Key = tuple[str, tuple[str, ...]]

MAX_OPEN_CALLS: Final = 10_000
"""How many calls the ledger remembers answers for before it forgets the oldest."""


@final
class AskLedger:
    """Per call id, the framework human's answers to the asks shown; the next unseen ask pends."""

    __slots__ = ("_answers", "_pending")

    def __init__(self) -> None:
        self._answers: dict[str, dict[_Key, ApprovalReply]] = {}
        self._pending: dict[str, PendingAsk] = {}

    def answer(self, call_id: str, request: ApprovalRequest) -> ApprovalReply | None:
        """The answer given to this ask of this call, or None (it pends: record it with `pend`)."""
        return self._answers.get(call_id, {}).get(_key(request))

    def pend(self, call_id: str, request: ApprovalRequest) -> PendingAsk:
        """Remember `request` as the ask the framework's human is about to be shown."""
        pending = PendingAsk(call_id, request)
        bounded(self._pending)[call_id] = pending
        return pending

    def settle(self, call_id: str, reply: ApprovalReply) -> None:
        """The human's reply to the call's pending ask (nothing pending: nothing to settle)."""
        pending = self._pending.pop(call_id, None)
        if pending is None:
            return
        bounded(self._answers).setdefault(call_id, {})[_key(pending.request)] = reply

    def forget(self, call_id: str) -> None:
        """Drop what the ledger holds for a call that has finished."""
        self._answers.pop(call_id, None)
        self._pending.pop(call_id, None)


K = TypeVar("K")
V = TypeVar("V")


def bounded(calls: dict[K, V]) -> dict[K, V]:
    """`calls` with its oldest entries dropped until one more fits under MAX_OPEN_CALLS."""
    while len(calls) >= MAX_OPEN_CALLS:
        del calls[next(iter(calls))]
    return calls


def _key(request: ApprovalRequest) -> _Key:
    return request.permission, request.patterns
