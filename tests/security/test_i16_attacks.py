"""Adversarial tests of issue 16's new surfaces (an outside review): the streamed spill, the
model's told sizes, live rows and one-line summaries fed hostile text, the one-key prompt."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import threading
import unicodedata
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from tests.leaves_support import LeafSession, text_of, value_of
from tests.support import SAFETY_NET
from toolfx.core.runtime import ApprovalRequest, ProgressEvent, RejectedWithFeedback
from toolfx.core.tools import TerminalCallCard, TerminalResultCard
from toolfx.interpreters._os.spills import FolderSpills
from toolfx.interpreters._process_common import READ_CHUNK
from toolfx.interpreters.cli._approvals import Prompter
from toolfx.interpreters.cli._live import RunningCalls
from toolfx.interpreters.cli._summary import call_subject, pending_line, result_facts, settled_line
from toolfx.interpreters.cli._tty import Terminal
from toolfx.interpreters.providers import load_catalog
from toolfx.interpreters.testing import ScriptedProcess, ScriptedProcesses
from toolfx.leaves._rules import Rule
from toolfx.leaves.workspace import WorkspaceLimits

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\u202eevil\u2066\x9b31m\x1bP+q\x1b\\\u2028x"


def _plain(renderable: object, width: int = 80) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=width, force_terminal=True, color_system=None).print(renderable)
    return buffer.getvalue()


def _no_controls(text: str) -> None:
    bad = [c for c in text if c in "\x1b\x07\x9b\r\u202e\u2066\u2028"]
    assert bad == [], repr(text)


def test_live_rows_escape_every_control_in_output_lines_titles_and_ids() -> None:
    calls = RunningCalls(lambda: 0.0)
    calls.start(f"id{HOSTILE}", f"tool{HOSTILE}")
    calls.report(ProgressEvent(f"id{HOSTILE}", f"tool{HOSTILE}", 1, None, f"a{HOSTILE}\n{HOSTILE}"))
    _no_controls(_plain(calls))


def test_summary_lines_escape_every_control() -> None:
    subject = call_subject(HOSTILE, TerminalCallCard(title=HOSTILE))
    facts = result_facts(TerminalResultCard(title=HOSTILE, output=HOSTILE, exit_code=0))
    _no_controls(_plain(pending_line(HOSTILE, HOSTILE, subject)))
    _no_controls(_plain(settled_line(HOSTILE, subject, facts)))


def test_a_killed_command_signal_name_from_a_log_is_escaped() -> None:
    facts = result_facts(TerminalResultCard(title="x", signal=HOSTILE))
    _no_controls(_plain(settled_line("bash", "x", facts)))


def _flood(data: bytes) -> LeafSession:
    script = ScriptedProcess(stdout=data)
    return LeafSession(
        rules=[Rule("bash", "*", "allow")],
        processes=ScriptedProcesses([(lambda argv: True, script)]),
    )


def test_the_line_count_the_model_is_told_matches_how_read_numbers_the_saved_file() -> None:
    # bash counted only "\n" as a line end (CR-only progress output: 1 line), while
    # `read`/`grep` number lines with str.splitlines (\r, \x0b, \x0c, \x1c-\x1e, \x85, \u2028,
    # \u2029 end lines too): the model is told "1 lines" and to page the file with `read`'s
    # offset/limit, which sees 60,000 lines. Fix: count lines the way `read` does (one shared
    # plaintext function), or say "newline-terminated lines" and make read agree.
    data = b"".join(b"progress %d%%\r" % (n % 100) for n in range(60_000)) + b"done\n"
    session = _flood(data)
    result = session.call("bash", command="pip install")
    told = value_of(result)["total_lines"]
    read_lines = len(data.decode().splitlines())
    assert told == read_lines, (told, read_lines, text_of(result)[-400:])


def test_one_byte_newlines_do_not_make_one_progress_event_each_without_bound() -> None:
    # Each read that ends a line is one progress event by design ("at most one event per chunk
    # the runner reads"); a command writing "\n" one byte per write under the sync runner gets
    # one event (and one live-region lock + redraw request) per byte. Bounded per read, not
    # per time: here we only check the count equals the reads (no amplification).
    session = _flood(b"\n" * 10_000)
    session.call("bash", command="yes ''")
    assert len(session.progress) <= 10_000


def test_a_call_id_with_dots_slashes_and_nul_lands_inside_the_spill_folder(tmp_path: Path) -> None:
    folder = tmp_path / "spills"
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    store = FolderSpills(str(folder))

    async def write(call_id: str) -> str:
        writer = await store.open(call_id, "bash")
        await writer.write(b"x")
        await writer.close()
        return writer.location.path

    for call_id in ("../outside", "..", ".", "", "a\x00b", "/etc/passwd", "..\\..\\x", "é\u0301"):
        path = anyio.run(write, call_id)
        assert os.path.dirname(path) == str(folder), path
    assert outside.read_text() == "keep me"


def test_a_planted_symlink_at_the_spill_name_is_not_written_through(tmp_path: Path) -> None:
    folder = tmp_path / "spills"
    folder.mkdir()
    target = tmp_path / "victim"
    target.write_text("keep me")
    (folder / "call-1.txt").symlink_to(target)

    async def write() -> str:
        writer = await FolderSpills(str(folder)).open("call-1", "bash")
        await writer.write(b"x" * 10)
        await writer.close()
        return writer.location.path

    path = anyio.run(write)
    assert path != str(folder / "call-1.txt")
    assert target.read_text() == "keep me"


# the one-key prompt at a real pseudo-terminal ---------------------------------------------------


def _prompt_on_pty(before: bytes, *during: bytes) -> object:
    """The prompter's answer when `before` was typed ahead of the question and each of `during`
    comes in once the prompter waits for a key (the first, the second, ...), all written to the
    terminal's master end."""

    request = ApprovalRequest(
        "b1", "bash", None, "bash", ("rm -rf x",), "runs rm", {"command": "rm -rf x"}
    )
    master, slave = os.openpty()
    terminal = Terminal(slave)
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False, markup=False)

    catalog = load_catalog(tempfile.mkdtemp())
    os.write(master, before)
    waiting = threading.Semaphore(0)

    class Signalling:
        """The terminal, saying each time a key is about to be read."""

        def keys(self) -> contextlib.AbstractContextManager[None]:
            return terminal.keys()

        def key(self) -> str:
            waiting.release()
            return terminal.key()

        def discard(self) -> None:
            terminal.discard()

        def line(self) -> str | None:
            waiting.release()
            return terminal.line()

    prompter = Prompter(console, Signalling(), contextlib.nullcontext, catalog)
    box: list[object] = []
    thread = threading.Thread(target=lambda: box.append(prompter(request)), daemon=True)
    thread.start()
    for chunk in during:
        assert waiting.acquire(timeout=SAFETY_NET)  # a hang guard only
        os.write(master, chunk)
    thread.join(SAFETY_NET)
    os.close(master)
    terminal.close()
    assert box, "no answer"
    return box[0]


def test_a_key_typed_before_the_question_answers_nothing() -> None:
    assert _prompt_on_pty(b"o", b"r") == "rejected"


def test_a_paste_or_a_long_terminal_report_cannot_answer_with_a_later_byte() -> None:
    # `Terminal.key` read up to 64 bytes and kept only the first character; the rest of a
    # longer burst (a paste, or a terminal's reply to a query some program wrote to the pty,
    # e.g. a window-title report) was read by the NEXT `key()` after "not an answer", so its
    # 65th byte answered the ask. Only a read of exactly one key answers; what else is pending
    # is dropped.
    burst = b"\x1b]l" + b"x" * 61 + b"o\x1b\\"
    assert _prompt_on_pty(b"", burst + b"r", b"r") == "rejected"


@pytest.mark.parametrize(
    "burst",
    [
        b"\x1b[200~o\x1b[201~",  # a bracketed paste of an answer key
        b"\x1b[Ao",  # an escape sequence (an arrow) and a key in the same read
        b"\x1bo",  # Alt+o
        b"oa",  # two answer keys in one read
        b"\x1b[?62;22c",  # a terminal's reply to a device-attributes query
        b"\x1b]11;rgb:0000/0000/0000\x1b\\o",  # a colour report, then a key
        "\u00e9o".encode(),  # a character of two bytes and a key
    ],
)
def test_no_read_of_more_than_one_key_answers(burst: bytes) -> None:
    assert _prompt_on_pty(b"", burst, b"r") == "rejected"


def test_a_single_multibyte_character_is_one_key_but_not_an_answer() -> None:
    assert _prompt_on_pty(b"", "\u00f6".encode(), b"r") == "rejected"


def test_a_paste_at_the_feedback_line_is_text_and_cannot_answer_allowed() -> None:
    # the feedback line takes a paste as text; its end ends the prompt as a rejection with that
    # feedback, and what the paste held after it (an answer key) is dropped, not read later
    reply = _prompt_on_pty(b"", b"f", b"use git status\ro\ra")
    assert reply == RejectedWithFeedback("use git status")


@pytest.mark.parametrize("size", [5000, 1 << 20])
def test_a_long_paste_is_read_a_bounded_number_of_times_and_never_answers(size: int) -> None:
    # longer than one read: it ends with the terminal hanging up (no key written after it could
    # be known to come after the paste's last piece was dropped)
    request = ApprovalRequest("b1", "bash", None, "bash", ("ls",), "runs ls", {"command": "ls"})
    master, slave = os.openpty()
    terminal = Terminal(slave)
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False, markup=False)
    reads = 0
    waiting = threading.Semaphore(0)

    class Counting:
        """The terminal, counting the reads of keys."""

        def keys(self) -> contextlib.AbstractContextManager[None]:
            return terminal.keys()

        def key(self) -> str:
            nonlocal reads
            reads += 1
            waiting.release()
            return terminal.key()

        def discard(self) -> None:
            terminal.discard()

        def line(self) -> str | None:
            return terminal.line()

    prompter = Prompter(
        console, Counting(), contextlib.nullcontext, load_catalog(tempfile.mkdtemp())
    )
    box: list[object] = []
    thread = threading.Thread(target=lambda: box.append(prompter(request)), daemon=True)
    thread.start()
    assert waiting.acquire(timeout=SAFETY_NET)  # a hang guard only
    written = 0
    burst = b"\x1b[200~" + b"x" * size + b"\x1b[201~"
    while written < len(burst):  # blocks until the prompter reads or drops what came before
        written += os.write(master, burst[written:])
    os.close(master)  # then the terminal hangs up: no one is there any more
    thread.join(SAFETY_NET)
    terminal.close()
    assert box in (["unavailable"], ["rejected"]), box
    assert reads <= size // 256  # a read takes what has come (hundreds of bytes at least)
    assert len(out.getvalue()) < 64 << 10
    assert out.getvalue().count("ignored input of more than one key") <= reads


def test_a_character_split_across_two_reads_reaches_the_live_lines_whole() -> None:
    data = b"x" * (READ_CHUNK - 2) + b"\n" + "€\n".encode()  # € split 1 | 2 at the read's end
    session = _flood(data)
    session.call("bash", command="split")
    assert session.progress[-1].message is not None
    assert session.progress[-1].message.endswith("€"), session.progress[-1].message[-20:]


def test_two_different_call_ids_never_look_the_same_in_a_summary_line() -> None:
    # Ids differing by a zero-width joiner (kept by `visible` for emoji) or by Unicode
    # normalisation (é vs e + U+0301) are different calls: a hostile model must not make one
    # call's line pass for another's (ids are shown with every non-ASCII character escaped).
    for one, other in (("c1", "c1\u200d"), ("\u00e9", "e\u0301")):
        seen = [_as_seen(_plain(pending_line("read", i, "a.txt"))) for i in (one, other)]
        assert seen[0] != seen[1], (one, other)


def _as_seen(text: str) -> str:
    """What a person sees of `text`: composed characters, zero-width joiners not drawn."""
    return unicodedata.normalize("NFC", text).replace("\u200d", "")


def test_one_command_cannot_fill_the_disk_with_its_saved_output() -> None:
    # every command's output was saved as it comes up to `max_saved_bytes`, 1 GiB by
    # default, per call, in the state folder, never removed. Measured: `yes` with timeout=3
    # saved 906 MB (sync runner) in 3 s; a model looping `yes` (timeout 600) fills a disk 1 GiB
    # a call. Before issue 16 a command kept ~100 KB. Fix: a small default per call (e.g.
    # 64 MiB) plus a budget for the whole spill folder (oldest spills removed, or saving
    # stops and the model is told), and remove a session's spills older than N days.
    assert WorkspaceLimits().max_saved_bytes <= 64 << 20


def test_a_terminal_that_hung_up_is_no_one_to_ask_not_an_exception() -> None:
    # With the terminal gone (the window closed or ssh dropped under `nohup`, SIGHUP ignored)
    # `Terminal.keys` raised termios.error (EIO) out of the prompt and the approval service.
    # `Prompter` treats OSError/termios.error from the keyboard as no one there (`unavailable`,
    # counted like `Unattended`), restoring nothing it could not set.
    master, slave = os.openpty()
    terminal = Terminal(slave)
    os.close(master)
    request = ApprovalRequest("b1", "bash", None, "bash", ("ls",), "runs ls", {"command": "ls"})
    console = Console(file=io.StringIO())
    prompter = Prompter(console, terminal, contextlib.nullcontext, load_catalog(tempfile.mkdtemp()))
    try:
        assert prompter(request) in ("unavailable", "rejected")
    finally:
        terminal.close()
