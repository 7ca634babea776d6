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

    __slots__ = ("_detach", "_keys", "_state", "_watchers")

    def __init__(self) -> None:
        self._state: dict[str, str] = {}  # "reason", claimed once by an atomic setdefault
        self._watchers: dict[int, Callable[[], object]] = {}
        self._keys = itertools.count()
        self._detach: list[Callable[[], None]] = []

    def __repr__(self) -> str:
        reason = self.reason
        return f"<CancelSignal {'live' if reason is None else f'cancelled: {reason}'}>"

    def is_cancelled(self) -> bool:
        """Whether the signal has been set (a method: it may change between two looks)."""
        return "reason" in self._state

    @property
    def reason(self) -> str | None:
        """Why it was set, or None while it is live."""
        return self._state.get("reason")

    def cancel(self, reason: str = CALLER_CANCELLED) -> None:
        """Set the signal (the first reason wins, across threads) and run every watcher once.

        Every watcher runs even if one raises; the first such error is raised afterwards.
        """
        if self._state.setdefault("reason", reason) is not reason:
            return
        first_error: Exception | None = None
        while True:
            try:
                _, watcher = self._watchers.popitem()
            except KeyError:  # empty, or emptied by an unsubscribe in another thread
                break
            try:
                watcher()
            except Exception as error:
                first_error = first_error or error
        if first_error is not None:
            raise first_error

    def on_cancel(self, watcher: Callable[[], object]) -> Callable[[], None]:
        """Run `watcher` when the signal is set; returns the function that unsubscribes it."""
        if self.is_cancelled():
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
        """A new signal set as soon as any of `signals` is; `release()` it when done with it."""
        fused = CancelSignal()
        fused._detach.extend(signal.on_cancel(_forward(signal, fused)) for signal in signals)
        return fused

    def release(self) -> None:
        """Stop following the signals this one was fused from (no-op for a plain signal)."""
        while self._detach:
            self._detach.pop()()


def _forward(source: CancelSignal, target: CancelSignal) -> Callable[[], None]:
    return lambda: target.cancel(source.reason or CALLER_CANCELLED)


def _nothing() -> None:
    return None
