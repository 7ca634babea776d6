"""The approval prompt without a terminal (a scripted keyboard): what it shows, which keys it
takes, and how it passes on the interrupt key; no one answering; the pending card of a call."""

from __future__ import annotations

import contextlib
import io
import signal
import termios
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from types import FrameType
from typing import final

import pytest
from rich.console import Console

from tests.cli.support import ScriptedKeyboard
from toolfx.core.registry import Catalog
from toolfx.core.runtime import ApprovalRequest, RejectedWithFeedback
from toolfx.core.tools import GenericCallCard, TerminalCallCard
from toolfx.interpreters.cli._approvals import Prompter, Unattended, always_line, choose_answer
from toolfx.interpreters.cli._asking import Asking
from toolfx.interpreters.cli._pending import pending_view
from toolfx.interpreters.cli._render import PanelDisplay
from toolfx.interpreters.cli._tty import END_OF_INPUT, INTERRUPTED, NOT_ONE_KEY
from toolfx.interpreters.providers import load_catalog

BASH = ApprovalRequest(
    "b1", "bash", None, "bash", ("git push",), "runs git push", {"command": "git push"}
)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return load_catalog(str(tmp_path_factory.mktemp("ws")))


def prompted(
    catalog: Catalog,
    request: ApprovalRequest,
    *typed: str | None,
    pause: AbstractContextManager[None] | None = None,
) -> tuple[object, str, ScriptedKeyboard]:
    """The answer the prompter gives to `request` for the keys and lines `typed`, what it
    showed, and the keyboard."""
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False, markup=False)
    keyboard = ScriptedKeyboard(list(typed), shown=out.getvalue)
    prompter = Prompter(console, keyboard, lambda: pause or nullcontext(), catalog)
    return prompter(request), out.getvalue(), keyboard


@pytest.mark.parametrize(
    ("typed", "reply"),
    [
        (["o"], "allowed-once"),
        (["O"], "allowed-once"),
        (["a"], "allowed-always"),
        (["r"], "rejected"),
        (["f", "use git status"], RejectedWithFeedback("use git status")),
        (["f", ""], "rejected"),  # no feedback given
        (["f", None], "rejected"),  # the end of input instead
        ([END_OF_INPUT], "rejected"),
    ],
)
def test_one_key_answers(catalog: Catalog, typed: list[str | None], reply: object) -> None:
    request = replace(BASH, always=("git push *",))
    answer, _, keyboard = prompted(catalog, request, *typed)
    assert answer == reply
    assert keyboard.typed == []
    assert keyboard.entered == [""]  # keys are read from before the card is shown


def test_the_prompt_shows_the_pending_card_and_exactly_what_always_remembers(
    catalog: Catalog,
) -> None:
    request = replace(BASH, always=("git push *", "git push"))
    _, shown, _ = prompted(catalog, request, "o")
    assert "bash · b1 asks for bash" in shown
    assert "why: runs git push" in shown
    assert "│ git push " in shown  # the pending card's command
    assert "always will allow bash, for the rest of this session: git push *, git push" in shown
    assert "Allow? [o]nce, [a]lways, [r]eject, reject with [f]eedback: once" in shown


def test_always_is_not_offered_when_it_would_remember_nothing(catalog: Catalog) -> None:
    answer, shown, _ = prompted(catalog, BASH, "a", "x", "o")
    assert answer == "allowed-once"
    assert always_line(BASH) in shown
    assert "[a]lways" not in shown
    again = "is not an answer: press o (once), r (reject) or f (reject with feedback)"
    assert shown.count(again) == 2
    assert "a is not an answer" in shown
    assert "x is not an answer" in shown
    assert shown.count("Allow? [o]nce, [r]eject") == 3


def test_after_a_key_that_is_not_an_answer_what_is_pending_is_dropped(catalog: Catalog) -> None:
    answer, _, keyboard = prompted(catalog, BASH, "x", "o")
    assert answer == "allowed-once"
    assert keyboard.discarded == 1


def test_reads_of_more_than_one_key_are_ignored_and_said_once_in_a_row(catalog: Catalog) -> None:
    answer, shown, keyboard = prompted(
        catalog, BASH, NOT_ONE_KEY, NOT_ONE_KEY, NOT_ONE_KEY, "x", NOT_ONE_KEY, "r"
    )
    assert answer == "rejected"
    assert keyboard.discarded == 5  # after each of them: what came with it answers nothing
    assert shown.count("ignored input of more than one key") == 2
    assert "x is not an answer" in shown
    assert shown.count("Allow? [o]nce, [r]eject") == 4


def test_a_long_preview_keeps_its_head_and_tail_and_the_ask_stays_above_the_question(
    catalog: Catalog,
) -> None:
    body = "".join(f"-old {n}\n+new {n}\n" for n in range(1000))  # 2,000 changed lines
    diff = f"--- a/f.txt\n+++ b/f.txt\n@@ -1,1000 +1,1000 @@\n{body}"
    request = replace(BASH, preview=diff, always=("git push *",))
    answer, shown, _ = prompted(catalog, request, "r")
    assert answer == "rejected"
    lines = shown.splitlines()
    assert len(lines) < 40  # not 2,000: the asking call is still on the screen
    assert "@@ -1,1000 +1,1000 @@" in shown
    assert "+new 999" in shown  # the tail
    assert "more lines" in shown
    card_end = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    asks = lines.index("bash · b1 asks for bash")
    assert card_end < asks  # after the card, right above the question:
    assert lines[asks:] == [
        "bash · b1 asks for bash",
        "on: git push",
        "why: runs git push",
        "always will allow bash, for the rest of this session: git push *",
        "Allow? [o]nce, [a]lways, [r]eject, reject with [f]eedback: reject",
    ]


def test_a_preview_is_shown_instead_of_the_pending_card(catalog: Catalog) -> None:
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -17,1 +17,1 @@\n-old line\n+new line\n"
    request = replace(BASH, preview=diff)
    _, shown, _ = prompted(catalog, request, "r")
    assert "@@ -17,1 +17,1 @@" in shown
    assert "+new line" in shown
    assert "│ git push " not in shown
    _, unchanged, _ = prompted(catalog, replace(BASH, preview=""), "r")
    assert "no change" in unchanged


def test_the_interrupt_key_is_passed_on_once_the_keys_are_no_longer_read(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyboard_reading: list[bool] = []
    keyboards: list[ScriptedKeyboard] = []

    def handler(number: int, frame: FrameType | None) -> None:
        keyboard_reading.append(keyboards[0].reading)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        out = io.StringIO()
        keyboards.append(ScriptedKeyboard([INTERRUPTED]))
        console = Console(file=out, width=100, color_system=None)
        answer = Prompter(console, keyboards[0], nullcontext, catalog)(BASH)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert answer == "cancelled"  # its handler raised nothing
    assert keyboard_reading == [False]  # the terminal was restored before the signal


@pytest.mark.parametrize("typed", [[INTERRUPTED], ["f", INTERRUPTED]], ids=["key", "feedback"])
def test_the_interrupt_key_raises_keyboard_interrupt_by_default(
    catalog: Catalog, typed: list[str | None]
) -> None:
    with pytest.raises(KeyboardInterrupt):
        prompted(catalog, BASH, *typed)


def test_one_ask_is_prompted_at_a_time_while_paused(catalog: Catalog) -> None:
    events: list[str] = []

    class Pause:
        def __enter__(self) -> None:
            events.append("paused")

        def __exit__(self, *exc: object) -> None:
            events.append("resumed")

    answer, _, _ = prompted(catalog, BASH, "o", pause=Pause())
    assert answer == "allowed-once"
    assert events == ["paused", "resumed"]


def test_no_one_answers_without_a_terminal_and_the_asks_are_counted() -> None:
    unattended = Unattended()

    def ask_many() -> None:
        for _ in range(100):
            assert unattended(BASH) == "unavailable"

    threads = [threading.Thread(target=ask_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert unattended.asked == 400
    answer = choose_answer(yes=False, deny_asks=False, prompter=None, unattended=unattended)
    assert answer is unattended
    assert choose_answer(yes=True, deny_asks=False, prompter=None, unattended=unattended)(BASH) == (
        "allowed-once"
    )


def test_the_pending_view_comes_from_the_tool_or_is_generic(catalog: Catalog) -> None:
    assert isinstance(pending_view(catalog, "bash", {"command": "ls"}), TerminalCallCard)
    assert pending_view(catalog, "bash", {"command": 3}) == GenericCallCard(
        title="bash", raw_input={"command": 3}
    )
    assert pending_view(catalog, "nope", None) == GenericCallCard(title="nope", raw_input=None)


@final
@dataclass
class HungUp:
    """A keyboard whose terminal hung up: `where` it fails (`keys`, `key` or `line`)."""

    where: str
    tries: int = 0

    @contextlib.contextmanager
    def keys(self) -> Iterator[None]:
        self._fail("keys", termios.error(5, "Input/output error"))
        yield

    def key(self) -> str:
        self._fail("key", OSError(5, "Input/output error"))
        return "f"

    def discard(self) -> None:
        raise AssertionError("nothing was read to be dropped")

    def line(self) -> str | None:
        self._fail("line", OSError(5, "Input/output error"))
        return "feedback"

    def _fail(self, where: str, error: Exception) -> None:
        if where == self.where:
            self.tries += 1
            raise error


@pytest.mark.parametrize("where", ["keys", "key", "line"])
def test_a_terminal_that_hung_up_is_no_one_to_ask_from_then_on(
    catalog: Catalog, where: str
) -> None:
    nobody = Unattended()
    keyboard = HungUp(where)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    prompter = Prompter(console, keyboard, nullcontext, catalog, nobody)
    assert prompter(BASH) == "unavailable"
    assert prompter(BASH) == "unavailable"
    assert nobody.asked == 2  # counted: the person is told no one could approve them
    assert keyboard.tries == 1  # the terminal is not tried again


def test_a_console_on_a_hung_up_terminal_is_no_one_to_ask(catalog: Catalog) -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(5, "Input/output error")

    console = Console(file=Gone(), width=100, color_system=None)
    assert Prompter(console, ScriptedKeyboard(["o"]), nullcontext, catalog)(BASH) == "unavailable"


@pytest.mark.parametrize("stderr_gone", [False, True])
def test_asks_no_one_answered_are_told_on_stderr_if_it_is_still_there(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch, stderr_gone: bool
) -> None:
    class Stderr(io.StringIO):
        def write(self, text: str) -> int:
            if stderr_gone:
                raise OSError(5, "Input/output error")
            return super().write(text)

    stderr = Stderr()
    monkeypatch.setattr("sys.stderr", stderr)
    asking = Asking(catalog, None, lambda terminal: Console(), Unattended())
    asking.report()  # none: nothing said
    assert stderr.getvalue() == ""
    asking.answer_for(PanelDisplay(Console(file=io.StringIO()), catalog))(BASH)
    asking.report()
    said = "" if stderr_gone else "toolfx: no one could approve 1 ask (no terminal)"
    assert stderr.getvalue().startswith(said)
