"""The session's summary: its calls by outcome (a failure under its error code, or how its command
ended: a timed-out command is a failure), the calls replayed from a journal, a program's tool
calls, and the approvals by answer."""

from __future__ import annotations

from collections import Counter
from typing import final

from toolfx.core.json import plural

__all__ = ["SessionTally"]


@final
class SessionTally:
    """What a session came to, counted as its records are shown."""

    __slots__ = ("_failures", "_replayed", "_replies", "_sub_calls")

    def __init__(self) -> None:
        self._failures: Counter[str | None] = Counter()
        self._sub_calls: Counter[bool] = Counter()
        self._replies: Counter[str] = Counter()
        self._replayed = 0

    def settled(self, failure: str | None, *, replayed: bool = False) -> None:
        """A call settled: succeeded (`failure` None) or failed as `failure` says."""
        self._failures[failure] += 1
        self._replayed += replayed

    def sub_call(self, *, failed: bool) -> None:
        """A program's tool call settled."""
        self._sub_calls[failed] += 1

    def asked(self, reply: str) -> None:
        """An ask was answered (or not) as `reply` says."""
        self._replies[reply] += 1

    def lines(self) -> tuple[str, ...]:
        """The summary: calls by outcome, then replays and programs' calls (if any), then asks."""
        failures, replies = self._failures, self._replies
        total, ok = sum(failures.values()), failures[None]
        by_code = sorted((code, n) for code, n in failures.items() if code is not None)
        codes = ", ".join(f"{code} {n}" for code, n in by_code)
        shown = [f"{plural(total, 'call')}: {ok} succeeded, {total - ok} failed"]
        if codes:
            shown[0] += f" ({codes})"
        if self._replayed:
            shown.append(f"{self._replayed} replayed from the journal (not run again)")
        made = sum(self._sub_calls.values())
        if made:
            failed = self._sub_calls[True]
            programs = f"{plural(made, 'program tool call')}: {made - failed} succeeded"
            shown.append(f"{programs}, {failed} failed")
        answers = ", ".join(f"{reply} {n}" for reply, n in sorted(replies.items()))
        asks = f"{plural(sum(replies.values()), 'approval')} asked"
        shown.append(asks + (f": {answers}" if answers else ""))
        return tuple(shown)
