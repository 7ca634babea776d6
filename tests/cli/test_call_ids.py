"""Call ids are machine tokens: shown by `visible_id` wherever they appear (summary lines, card
titles, approval lines, the approval prompt, live rows, the `toolfx approve` listing and its
commands, session and log errors), every character outside printable ASCII escaped, so two
different ids never look the same (a zero-width joiner, Unicode normalisation)."""

from __future__ import annotations

import io
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console, RenderableType

from tests.cli.support import toolfx
from tests.cli.test_compact import command_tool_location
from toolfx.core.records import ToolApprovalRecord, ToolCallRecord
from toolfx.core.runtime import ApprovalRequest
from toolfx.interpreters.cli._approvals import ask_lines
from toolfx.interpreters.cli._journaled import WaitingAsk, waiting_lines
from toolfx.interpreters.cli._live import RunningCalls
from toolfx.interpreters.cli._render import PanelDisplay
from toolfx.interpreters.cli._session import SessionError, parse_session
from toolfx.interpreters.cli._summary import pending_line
from toolfx.interpreters.cli._visible import visible, visible_id
from toolfx.interpreters.journal import SqliteJournal

LOOK_ALIKES = [
    ("c1", "c1\u200d"),  # a zero-width joiner, which `visible` keeps for emoji
    ("\u00e9", "e\u0301"),  # é composed, and e with a combining acute accent
    ("c1", "c1 "),  # a trailing space
    ("a\u200cb", "ab"),  # a zero-width non-joiner
    ("\u212b", "\u00c5"),  # the angstrom sign and A with a ring
]

ids = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from("c1\\u{}\u200d\u200ce\u0301\u00e9 \x1b'x")),
)

_ESCAPE = re.compile(r"\\u\{([0-9a-f]+)\}")


def read_back(shown: str) -> str:
    """The id `visible_id` was given."""
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), shown)


def as_seen(text: str) -> str:
    """What a person sees of `text`: composed, with no zero-width characters, spaces squeezed."""
    composed = unicodedata.normalize("NFKC", text)
    return re.sub(" +", " ", re.sub("[\u200b-\u200d\u2060\ufeff]", "", composed))


def plain(renderable: RenderableType, width: int = 200) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, highlight=False).print(renderable)
    return out.getvalue()


@given(ids, ids)
def test_two_different_ids_never_show_the_same(one: str, other: str) -> None:
    assert (visible_id(one) == visible_id(other)) == (one == other)


@given(ids)
def test_an_id_is_shown_in_printable_ascii_and_reads_back_exactly(call_id: str) -> None:
    shown = visible_id(call_id)
    assert re.fullmatch(r"[\x21-\x7e]*", shown), shown
    assert read_back(shown) == call_id


@given(ids)
def test_visible_leaves_a_shown_id_as_it_is(call_id: str) -> None:
    shown = visible_id(call_id)
    assert visible(shown) == shown == visible(shown, lines=False)


def test_an_ordinary_id_is_shown_as_it_is() -> None:
    for call_id in ("c1", "call_9f2:code:1", "toolu_01A-B.c", "mcp-3"):
        assert visible_id(call_id) == call_id
    assert visible_id("c1\u200d") == r"c1\u{200d}"
    assert visible_id("e\u0301 \\") == r"e\u{301}\u{20}\u{5c}"


def shown_on_the_display(call_id: str, *, verbose: bool) -> str:
    """A call with this id, asked about and failed, on the display."""
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, highlight=False)
    display = PanelDisplay(console, command_tool_location().catalog(), verbose=verbose)
    display.show(
        ToolCallRecord(call_id, call_id, "cmd", {"line": "rm", "exit": 1, "timed_out": False})
    )
    display.show(ToolApprovalRecord(call_id, "bash", ("rm",), None, "rejected"))
    return out.getvalue()


@pytest.mark.parametrize(("one", "other"), LOOK_ALIKES)
def test_look_alike_ids_look_different_everywhere_they_are_shown(one: str, other: str) -> None:
    def request(call_id: str) -> ApprovalRequest:
        return ApprovalRequest(call_id, "bash", None, "bash", ("rm",), None, {"command": "rm"})

    def live(call_id: str) -> str:
        calls = RunningCalls(lambda: 0.0)
        calls.start(call_id, "bash")
        return plain(calls)

    def listing(call_id: str) -> str:
        ask = ToolApprovalRecord(call_id, "bash", ("rm",), None, "deferred")
        return "\n".join(visible(line) for line in waiting_lines([WaitingAsk(ask, "bash")], "j"))

    surfaces = {
        "summary line": lambda call_id: plain(pending_line("read", call_id, "a.txt")),
        "compact display": lambda call_id: shown_on_the_display(call_id, verbose=False),
        "verbose display": lambda call_id: shown_on_the_display(call_id, verbose=True),
        "prompt": lambda call_id: "\n".join(visible(line) for line in ask_lines(request(call_id))),
        "live row": live,
        "approve listing": listing,
    }
    for name, surface in surfaces.items():
        assert as_seen(surface(one)) != as_seen(surface(other)), name


@pytest.mark.parametrize(
    "call_id", ["c1", "c1\u200d", "e\u0301", "it's", "a b", r"a\x41", "x\nrm -rf ~", "\u00e9$(id)"]
)
def test_the_approve_command_listed_names_the_call_exactly(call_id: str) -> None:
    ask = ToolApprovalRecord(call_id, "bash", ("rm",), None, "deferred")
    line = visible(waiting_lines([WaitingAsk(ask, "bash")], "j")[1])
    command = line.strip().removesuffix("   # or reject [--feedback TEXT]")
    assert command.isascii(), command
    assert command.isprintable(), command
    argv = subprocess.run(
        ["bash", "-c", f'set -- {command}; printf "%s" "$4"'],
        capture_output=True,
        check=True,
    ).stdout
    assert argv.decode("utf-8") == call_id


def test_a_repeated_look_alike_id_is_named_so_it_can_be_told_apart() -> None:
    with pytest.raises(SessionError) as raised:
        parse_session('{"calls": [{"id": "c\u200d", "name": "r"}, {"id": "c\u200d", "name": "r"}]}')
    assert raised.value.reason.startswith(r"repeats the call id 'c\u{200d}' of /calls/0")


def test_the_approve_command_line_shows_the_id_it_was_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    said = toolfx(capsys, "approve", "j", "c1\u200d")
    assert (said.code, said.err.splitlines()[-1]) == (
        2,
        r"toolfx: error: approve: say how to answer c1\u{200d}: once, always or reject",
    )
    journal = tmp_path / "j.sqlite"
    SqliteJournal(str(journal)).close()
    none = toolfx(capsys, "approve", str(journal), "e\u0301", "once")
    assert rf"no ask of the call e\u{{301}} waits in the journal {journal}" in none.err
