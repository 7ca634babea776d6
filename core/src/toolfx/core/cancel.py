"""Caller-owned cancellation: a signal that is set once, with a reason, and tells its watchers.

The caller keeps the signal and may cancel it from any thread. The pipeline and tool bodies
observe it (`is_cancelled()`, or a capability that returns early); interpreters subscribe with
`on_cancel` to wake what is waiting. Watchers run in the cancelling thread, once each.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Final, final

__all__ = ["CALLER_CANCELLED", "CancelSignal"]

CALLER_CANCELLED: Final = "cancelled by the caller"
"""The default reason of `CancelSignal.cancel`."""


@final
class CancelSignal:
    """Set once, never cleared; `on_cancel` watchers run when it is set (at once if it is)."""

    __slots__ = ("_keys", "_reason", "_watchers")

    def __init__(self) -> None:
        self._reason: str | None = None
        self._watchers: dict[int, Callable[[], object]] = {}
        self._keys = itertools.count()

    def __repr__(self) -> str:
        state = "live" if self._reason is None else f"cancelled: {self._reason}"
        return f"<CancelSignal {state}>"

    def is_cancelled(self) -> bool:
        """Whether the signal has been set (a method: it may change between two looks)."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """Why it was set, or None while it is live."""
        return self._reason

    def cancel(self, reason: str = CALLER_CANCELLED) -> None:
        """Set the signal (the first reason wins) and run every watcher once."""
        if self._reason is not None:
            return
        self._reason = reason
        while True:
            try:
                _, watcher = self._watchers.popitem()
            except KeyError:  # empty, or emptied by an unsubscribe in another thread
                return
            watcher()

    def on_cancel(self, watcher: Callable[[], object]) -> Callable[[], None]:
        """Run `watcher` when the signal is set; returns the function that unsubscribes it."""
        if self._reason is not None:
            watcher()
            return _nothing
        key = next(self._keys)
        self._watchers[key] = watcher
        if self.is_cancelled() and self._watchers.pop(key, None) is not None:
            watcher()  # cancelled between the check and the subscription
        return lambda: self._unsubscribe(key)

    def _unsubscribe(self, key: int) -> None:
        self._watchers.pop(key, None)

    @staticmethod
    def fused(*signals: CancelSignal) -> CancelSignal:
        """A new signal that is set as soon as any of `signals` is (with its reason)."""
        fused = CancelSignal()
        for signal in signals:
            signal.on_cancel(_forward(signal, fused))
        return fused


def _forward(source: CancelSignal, target: CancelSignal) -> Callable[[], None]:
    return lambda: target.cancel(source.reason or CALLER_CANCELLED)


def _nothing() -> None:
    return None
