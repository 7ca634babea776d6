"""CancelSignal: set once, watchers once each, fused signals that can be released."""

from __future__ import annotations

import functools
import threading

import pytest

from toolfx.core.runtime import CALLER_CANCELLED, CancelSignal


def test_a_signal_is_set_once_and_the_first_reason_wins() -> None:
    signal = CancelSignal()
    assert (signal.is_cancelled(), signal.reason) == (False, None)
    signal.cancel("first")
    signal.cancel("second")
    assert signal.is_cancelled()
    assert signal.reason == "first"
    assert "cancelled: first" in repr(signal)


def test_watchers_run_once_and_late_watchers_run_at_once() -> None:
    signal = CancelSignal()
    seen: list[str] = []
    signal.on_cancel(lambda: seen.append("early"))
    unsubscribed = signal.on_cancel(lambda: seen.append("gone"))
    unsubscribed()
    signal.cancel()
    signal.cancel()
    signal.on_cancel(lambda: seen.append("late"))
    assert seen == ["early", "late"]
    assert signal.reason == CALLER_CANCELLED


def test_a_raising_watcher_does_not_stop_the_others() -> None:
    signal = CancelSignal()
    seen: list[int] = []

    def broken() -> None:
        raise RuntimeError("watcher bug")

    signal.on_cancel(lambda: seen.append(1))
    signal.on_cancel(broken)
    signal.on_cancel(lambda: seen.append(2))
    with pytest.raises(RuntimeError, match="watcher bug"):
        signal.cancel()
    assert sorted(seen) == [1, 2]


def test_fused_signals_follow_their_sources_until_released() -> None:
    caller, deadline = CancelSignal(), CancelSignal()
    fused = CancelSignal.fused(caller, deadline)
    deadline.cancel("timed out after 2s")
    assert fused.reason == "timed out after 2s"
    caller.cancel()
    assert fused.reason == "timed out after 2s"

    source = CancelSignal()
    released = CancelSignal.fused(source)
    released.release()
    source.cancel()
    assert not released.is_cancelled()


def test_concurrent_cancels_agree_on_one_reason() -> None:
    for _ in range(50):
        signal = CancelSignal()
        runs: list[str] = []
        signal.on_cancel(functools.partial(runs.append, "ran"))
        threads = [threading.Thread(target=signal.cancel, args=(f"thread {i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert signal.reason is not None
        assert signal.reason.startswith("thread ")
        assert runs == ["ran"]
