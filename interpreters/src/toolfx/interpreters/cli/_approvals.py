"""Answering a session's asks: at the terminal with one key (once, always, reject, reject with
feedback), or by a fixed answer (`--yes`, `--deny-asks`, the demo's scripted approver), or by no
one (no terminal, or it hung up: `unavailable`, and the model is told no one could approve the
call)."""

from __future__ import annotations

import signal
import termios
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Final, final

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from toolfx.core.registry import Catalog
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback
from toolfx.interpreters.cli._cards import call_body, diff_text_body
from toolfx.interpreters.cli._pending import pending_view
from toolfx.interpreters.cli._tty import END_OF_INPUT, INTERRUPTED, NOT_ONE_KEY, Keyboard
from toolfx.interpreters.cli._visible import visible, visible_id

__all__ = [
    "CHOICES",
    "Answer",
    "Prompter",
    "Unattended",
    "always_line",
    "ask_lines",
    "choose_answer",
    "fixed",
]

Answer = Callable[[ApprovalRequest], ApprovalReply]
"""Answers one ask; it may block (a prompt), so async interpreters call it in a thread."""

CHOICES: Final[dict[str, tuple[ApprovalReply, str]]] = {
    "o": ("allowed-once", "once"),
    "a": ("allowed-always", "always"),
    "r": ("rejected", "reject"),
}
"""The prompt's keys, each with its answer and its name; `f` (reject with feedback) reads the
feedback next."""

_FEEDBACK: Final = "f"  # the key that rejects with feedback


def always_line(request: ApprovalRequest) -> str:
    """What answering `always` remembers, word for word (the request's `always` rules), or that
    it is not offered."""
    if not request.always:
        return "always is not offered: nothing here can be remembered safely"
    rules = ", ".join(request.always)
    return f"always will allow {request.permission}, for the rest of this session: {rules}"


def ask_lines(request: ApprovalRequest, named: str | None = None) -> list[str]:
    """What an ask tells the person answering it: which call asks for what, on what, and why;
    the call `named` so (default: its tool and call id); last, what `always` remembers."""
    return [*_asked(request, named), always_line(request)]


def _asked(request: ApprovalRequest, named: str | None = None) -> list[str]:
    call = f"{request.tool} · {visible_id(request.call_id)}" if named is None else named
    lines = [f"{call} asks for {request.permission}", f"on: {', '.join(request.patterns)}"]
    if request.reason is not None:
        lines.append(f"why: {request.reason}")
    return lines


def fixed(reply: ApprovalReply) -> Answer:
    """Answer every ask with `reply`."""
    return lambda request: reply


@final
class Unattended:
    """Answers every ask `unavailable` (no one is there to answer it), counting them."""

    __slots__ = ("_asked", "_lock")

    def __init__(self) -> None:
        self._asked = 0
        self._lock = threading.Lock()

    def __call__(self, request: ApprovalRequest) -> ApprovalReply:
        """`unavailable`, counted."""
        with self._lock:
            self._asked += 1
        return "unavailable"

    @property
    def asked(self) -> int:
        """How many asks were answered so far."""
        return self._asked


@final
class Prompter:
    """Asks the person at the terminal: shows the asking call's card (the request's preview of
    the change, else the call's pending card; a long one keeps its head and tail), then which
    call asks for what and what `always` remembers right above the question, and reads one key:
    o, a (when offered), r, or f and a line of feedback. One ask at a time, whatever the thread.

    Only a read of one key answers: after anything else (another key, a paste, a terminal's
    report) what is pending is dropped and the question asked again. The end of input rejects;
    the interrupt key is passed on as SIGINT once the terminal is restored (by default a
    KeyboardInterrupt raised here), and the ask is `cancelled` if its handler raised nothing. A
    terminal that hung up (the window closed) is no one to ask: this ask and every later one are
    answered by `nobody` (by default a new `Unattended`, which counts them).
    """

    __slots__ = ("_catalog", "_console", "_gone", "_keyboard", "_lock", "_nobody", "_pause")

    def __init__(
        self,
        console: Console,
        keyboard: Keyboard,
        pause: Callable[[], AbstractContextManager[None]],
        catalog: Catalog,
        nobody: Answer | None = None,
    ) -> None:
        self._console = console
        self._keyboard = keyboard
        self._pause = pause
        self._catalog = catalog
        self._nobody = Unattended() if nobody is None else nobody
        self._gone = False
        self._lock = threading.Lock()

    def __call__(self, request: ApprovalRequest) -> ApprovalReply:
        """The person's answer (`nobody`'s once the terminal has hung up)."""
        with self._lock, self._pause():
            if self._gone:
                return self._nobody(request)
            try:
                reply = self._ask(request)
            except (OSError, termios.error):  # the terminal hung up: no one is there
                self._gone = True
                return self._nobody(request)
            if reply == "cancelled":  # the interrupt key, now the terminal is as it was
                signal.raise_signal(signal.SIGINT)  # not swallowed: as if pressed elsewhere
        return reply

    def _ask(self, request: ApprovalRequest) -> ApprovalReply:
        """Show the ask and read its answer (keys read from before the card is shown: a key
        typed before it answers nothing)."""
        with self._keyboard.keys():
            console = self._console
            console.print(self._card(request))
            console.print(Text("\n".join(visible(line, lines=False) for line in _asked(request))))
            console.print(Text(visible(always_line(request), lines=False), style="bold"))
            reply = self._reply(request)
            return self._feedback() if reply is None else reply

    def _feedback(self) -> ApprovalReply:
        """A rejection with the line typed as its feedback (none typed: a plain rejection)."""
        self._console.print(Text("Feedback for the model: "), end="")
        feedback = self._keyboard.line()
        if feedback == INTERRUPTED:
            return self._interrupted()
        return "rejected" if not feedback else RejectedWithFeedback(feedback)

    def _interrupted(self) -> ApprovalReply:
        self._console.print(Text("cancelled (interrupted)"))
        return "cancelled"

    def _card(self, request: ApprovalRequest) -> Panel:
        if request.preview is not None:
            change = diff_text_body(request.preview)
        else:
            change = call_body(pending_view(self._catalog, request.tool, request.arguments))
        return Panel(change, title="approval", title_align="left", border_style="yellow")

    def _reply(self, request: ApprovalRequest) -> ApprovalReply | None:
        """The answer of the key pressed (None: reject with feedback, read next), asking again
        after any other key."""
        offered = {key: choice for key, choice in CHOICES.items() if request.always or key != "a"}
        always = "[a]lways, " if "a" in offered else ""
        question = Text(f"Allow? [o]nce, {always}[r]eject, reject with [f]eedback: ")
        keys = ", ".join(f"{k} ({name})" for k, (_, name) in offered.items())
        press = f"press {keys} or {_FEEDBACK} (reject with feedback)"
        console = self._console
        console.print(question, end="")
        ignored = False  # the last read was not one key (said once for reads in a row)
        while True:
            key = self._keyboard.key()
            if key == NOT_ONE_KEY:
                self._keyboard.discard()
                if not ignored:
                    console.print(Text(f"ignored input of more than one key (a paste?): {press}"))
                    console.print(question, end="")
                ignored = True
                continue
            ignored = False
            if key == END_OF_INPUT:
                console.print(Text("rejected (end of input)"))
                return "rejected"
            if key == INTERRUPTED:
                return self._interrupted()
            chosen = key.lower()
            if chosen == _FEEDBACK:
                console.print(Text("reject with feedback"))
                return None
            if chosen in offered:
                reply, name = offered[chosen]
                console.print(Text(name))
                return reply
            self._keyboard.discard()  # what came with it, or was typed ahead, answers nothing
            console.print(Text(f"{visible(key, lines=False)} is not an answer: {press}"))
            console.print(question, end="")


def choose_answer(
    *, yes: bool, deny_asks: bool, prompter: Answer | None, unattended: Answer
) -> Answer:
    """`--deny-asks` rejects, `--yes` allows once; else the prompter (on a terminal), or no one
    answers (`unattended`)."""
    if deny_asks:
        return fixed("rejected")
    if yes:
        return fixed("allowed-once")
    return unattended if prompter is None else prompter
