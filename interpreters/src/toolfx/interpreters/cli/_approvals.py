"""Answering a session's asks: at the terminal (once, always, reject, reject with feedback), or
by a fixed answer (`--yes`, `--deny-asks`, no terminal, the demo's scripted approver)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Final, final

from rich.console import Console
from rich.panel import Panel
from rich.prompt import Prompt
from rich.text import Text

from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback
from toolfx.interpreters.cli._visible import visible

__all__ = ["CHOICES", "Answer", "Prompter", "ask_lines", "choose_answer", "fixed"]

Answer = Callable[[ApprovalRequest], ApprovalReply]
"""Answers one ask; it may block (a prompt), so async interpreters call it in a thread."""

CHOICES: Final[dict[str, ApprovalReply]] = {
    "o": "allowed-once",
    "a": "allowed-always",
    "r": "rejected",
}
"""The prompt's keys; `f` (reject with feedback) asks for the feedback next."""


def ask_lines(request: ApprovalRequest, named: str | None = None) -> list[str]:
    """What an ask tells the person answering it: which call asks for what, on what, and why;
    the call `named` so (default: its tool and call id)."""
    call = f"{request.tool} · {request.call_id}" if named is None else named
    lines = [
        f"{call} asks for {request.permission}",
        f"on: {', '.join(request.patterns)}",
    ]
    if request.reason is not None:
        lines.append(f"why: {request.reason}")
    if request.always:
        lines.append(f"always will allow: {', '.join(request.always)}")
    else:
        lines.append("always is not offered: nothing here can be remembered safely")
    return lines


def fixed(reply: ApprovalReply) -> Answer:
    """Answer every ask with `reply`."""
    return lambda request: reply


@final
class Prompter:
    """Asks the user at the terminal: shows the request, then reads o, a, r or f."""

    __slots__ = ("_console", "_pause")

    def __init__(self, console: Console, pause: Callable[[], AbstractContextManager[None]]) -> None:
        self._console = console
        self._pause = pause

    def __call__(self, request: ApprovalRequest) -> ApprovalReply:
        """The user's answer; end of input rejects."""
        console = self._console
        with self._pause():
            text = Text("\n".join(visible(line, lines=False) for line in ask_lines(request)))
            console.print(Panel(text, title="approval", border_style="yellow"))
            offered = [key for key in CHOICES if request.always or key != "a"]
            always = "[a]lways, " if request.always else ""
            try:
                key = Prompt.ask(
                    Text(f"Allow? [o]nce, {always}[r]eject, reject with [f]eedback"),
                    console=console,
                    choices=[*offered, "f"],
                    show_choices=False,
                )
                if key == "f":
                    return RejectedWithFeedback(
                        Prompt.ask("Feedback for the model", console=console)
                    )
            except EOFError:
                return "rejected"
        return CHOICES[key]


def choose_answer(*, yes: bool, deny_asks: bool, prompter: Answer | None) -> Answer:
    """`--deny-asks` rejects, `--yes` allows once; else the prompter (on a terminal) or reject."""
    if deny_asks:
        return fixed("rejected")
    if yes:
        return fixed("allowed-once")
    return fixed("rejected") if prompter is None else prompter
