"""Terminal safety: hostile strings in every card kind, session record, approval panel, ask form,
error, schema listing and server log reach a colour terminal only in visible form, with no
escape but toolfx's own styling, and never as rich markup."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypedDict

import pytest
from rich.panel import Panel

from tests.cli.support import ScriptedKeyboard, toolfx
from tests.security.terminal_support import (
    HOSTILE,
    assert_only_own_styling,
    plain,
    render,
    terminal_console,
    without_live_controls,
)
from toolfx.core.records import (
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.registry import Location
from toolfx.core.runtime import ApprovalRequest, RejectedWithFeedback
from toolfx.core.tools import (
    CodeCallCard,
    CodeResultCard,
    DiffCallCard,
    DiffResultCard,
    ErrorCode,
    FileDiff,
    GenericCallCard,
    GenericResultCard,
    Output,
    ReadFileLine,
    ReadResultCard,
    SearchMatch,
    SearchResultCard,
    TerminalCallCard,
    TerminalResultCard,
    TextBlock,
    ToolCallView,
    ToolResultView,
    ToolRunContext,
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
    define_tool,
    failed,
)
from toolfx.interpreters.cli import _commands as commands
from toolfx.interpreters.cli._approvals import Prompter
from toolfx.interpreters.cli._cards import call_body, result_body
from toolfx.interpreters.cli._log import SessionHeader, TurnRecord
from toolfx.interpreters.cli._mcp_asks import ask_form
from toolfx.interpreters.cli._mcp_serve import LOG_FORMAT, VisibleFormatter
from toolfx.interpreters.cli._providers import SchemaFormat, export_schemas
from toolfx.interpreters.cli._render import PanelDisplay

PAYLOADS = pytest.mark.parametrize("payload", list(HOSTILE.values()), ids=list(HOSTILE))

CALL_CARDS: dict[str, Callable[[str], ToolCallView]] = {
    "generic": lambda p: GenericCallCard(title=p, raw_input={"path": p, p: [p]}, content=p),
    "terminal": lambda p: TerminalCallCard(title=p, description=p, cwd=f"/ws/{p}"),
    "edit diff": lambda p: DiffCallCard(title=p, diffs=(FileDiff(p, f"old {p}\n", f"new {p}\n"),)),
    "write diff": lambda p: DiffCallCard(title=p, diffs=(FileDiff(p, None, f"{p}\n{p}"),)),
    "unchanged diff": lambda p: DiffCallCard(title=p, diffs=(FileDiff(p, p, p),)),
    "code": lambda p: CodeCallCard(title=p, code=f"x = {p!r}\n# {p}\n{p}", lang="python"),
    "code of a hostile language": lambda p: CodeCallCard(title=p, code=p, lang=p),
}
RESULT_CARDS: dict[str, Callable[[str], ToolResultView]] = {
    "generic": lambda p: GenericResultCard(title=p, content=p),
    "failure": lambda p: GenericResultCard(title="Failed", content=f"{p} does not exist"),
    "terminal": lambda p: TerminalResultCard(title=p, output="\n".join([p] * 40), exit_code=1),
    "diff": lambda p: DiffResultCard(diffs=(FileDiff(p, f"{p}\n", f"{p}!\n"),), title=p),
    "glob": lambda p: SearchResultCard("paths", True, 3, paths=(p, f"src/{p}"), title=p),
    "grep": lambda p: SearchResultCard("matches", False, 1, matches=(SearchMatch(p, 3, p),)),
    "read": lambda p: ReadResultCard(
        path=p,
        offset=1,
        lines=tuple(ReadFileLine(n, f"{n} {p}") for n in range(1, 31)),
        total_lines=40,
        title=p,
        lang="python",
        content=p,
    ),
    "web search": lambda p: WebSearchResultCard((WebSource(p, p),), True, answer=p, title=p),
    "web fetch": lambda p: WebFetchResultCard(url=p, status_code=200, truncated=True, title=p),
    "code": lambda p: CodeResultCard(2, 1, title=p, content=p),
}


@PAYLOADS
@pytest.mark.parametrize("kind", list(CALL_CARDS))
def test_pending_cards_show_tool_text_only_visibly(kind: str, payload: str) -> None:
    out = render(Panel(call_body(CALL_CARDS[kind](payload)), title="call"))
    assert_only_own_styling(out, payload)


@PAYLOADS
@pytest.mark.parametrize("kind", list(RESULT_CARDS))
def test_completed_cards_show_tool_text_only_visibly(kind: str, payload: str) -> None:
    out = render(Panel(result_body(RESULT_CARDS[kind](payload)), title="result"))
    assert_only_own_styling(out, payload)


def test_markup_in_tool_text_is_shown_as_text() -> None:
    markup = HOSTILE["rich markup"]
    for view in (CALL_CARDS["generic"](markup), CALL_CARDS["terminal"](markup)):
        out = render(call_body(view))
        assert markup in plain(out)
        assert "\x1b]8;" not in out  # no hyperlink was made


def test_a_path_cannot_forge_diff_lines() -> None:
    out = plain(render(call_body(CALL_CARDS["write diff"]("a.txt\n+++ b/safe.txt"))))
    assert r"+++ b/a.txt\x0a+++ b/safe.txt" in out


def test_a_carriage_return_in_a_file_is_shown_in_its_diff() -> None:
    view = DiffCallCard(title="edit", diffs=(FileDiff("a.txt", "x\n", "x\r\n"),))
    assert r"+x\x0d" in plain(render(call_body(view)))


@PAYLOADS
def test_session_records_show_ids_names_and_asks_only_visibly(payload: str) -> None:
    out = io.StringIO()
    display = PanelDisplay(terminal_console(out), Location().catalog())
    for record in (
        SessionHeader(f"/home/{payload}", "sync"),
        TurnRecord(1, 1),
        ToolCallRecord(payload, payload, payload, {payload: payload}),
        ToolApprovalRecord(payload, payload, (payload, payload), payload, "allowed-once"),
        ToolApprovalRecord(payload, "edit", ("a",), None, RejectedWithFeedback(payload)),
        ToolResultRecord.of(payload, failed(ErrorCode.TOOL_ERROR, payload)),
        ToolResultRecord.of("unknown", failed(ErrorCode.INVALID_ARGS, payload)),
        ToolCallRecord(f"{payload}:code:1", payload, payload, {payload: payload}, None, payload),
        ToolCodeDispatchRecord(f"{payload}:code:1", payload, payload, True, (TextBlock(payload),)),
        ToolCodeDispatchRecord("unknown:code:1", payload, payload, False, (TextBlock(payload),)),
    ):
        display.show(record)
    display.finish()
    assert_only_own_styling(without_live_controls(out.getvalue()), payload)


def ask(payload: str) -> ApprovalRequest:
    return ApprovalRequest(
        payload, payload, None, payload, (payload, f"{payload}\nwhy: harmless"), payload, {}
    )


@PAYLOADS
@pytest.mark.parametrize("previewed", [False, True])
def test_the_approval_panel_shows_the_ask_only_visibly(payload: str, previewed: bool) -> None:
    request = replace(ask(payload), arguments={payload: f"{payload}\nwhy: forged"})
    if previewed:
        diff = f"--- a/{payload}\n+++ b/{payload}\n@@ -1 +1 @@\n-{payload}\n+why: forged\n"
        request = replace(request, preview=diff)
    out = io.StringIO()
    keyboard = ScriptedKeyboard([payload, "r"])  # a hostile key: shown visibly, asked again
    prompter = Prompter(
        terminal_console(out), keyboard, contextlib.nullcontext, Location().catalog()
    )
    assert prompter(request) == "rejected"
    assert_only_own_styling(out.getvalue(), payload, f"{payload}\nwhy: harmless")
    lines = plain(out.getvalue()).splitlines()
    assert sum(line.removeprefix("│ ").startswith("why: ") for line in lines) == 1  # no forged


@PAYLOADS
def test_the_mcp_ask_form_shows_the_ask_only_visibly(payload: str) -> None:
    request = replace(ask(payload), arguments={payload: [payload, f"{payload}\nwhy: forged"]})
    message = ask_form(request, payload).message
    assert_only_own_styling(message, payload)
    assert message.count("\nwhy: ") == 1


def test_mcp_serve_logs_only_visibly() -> None:
    formatter = VisibleFormatter(LOG_FORMAT)
    payloads = " ".join(HOSTILE.values())
    try:
        raise ValueError(payloads)
    except ValueError:
        record = logging.LogRecord(
            "toolfx.mcp", logging.WARNING, __file__, 1, "ask of %s", (payloads,), sys.exc_info()
        )
    assert_only_own_styling(formatter.format(record), *HOSTILE.values())


def test_errors_are_printed_only_visibly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    workspace = str(tmp_path / "".join(HOSTILE.values()).replace("/", ""))
    ran = toolfx(capsys, "tools", "--workspace", workspace)
    assert ran.code == 2
    assert_only_own_styling(ran.err, workspace)


HostileArgs = TypedDict("HostileArgs", {"\x1b]0;pwned\x07\x9b2J\u202e": int})


def hostile_body(args: HostileArgs, context: ToolRunContext) -> int:
    return 0


@pytest.mark.parametrize("form", ["json", "openai", "anthropic", "gemini"])
def test_tools_lists_hostile_schemas_as_the_same_json_shown_visibly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, form: SchemaFormat
) -> None:
    hostile = "".join(HOSTILE.values())
    tool = define_tool(
        name="hostile",
        description=hostile,
        parameters=HostileArgs,
        output=Output(int),
        execute=hostile_body,
    )
    location = Location()
    location.register(tool)
    monkeypatch.setattr(commands, "load_catalog", lambda root, present: location.catalog())
    ran = toolfx(capsys, "tools", "--format", form)
    assert ran.code == 0
    assert_only_own_styling(ran.out)
    assert_only_own_styling(ran.err)
    exported, _notes = export_schemas(location.catalog(), form)
    assert json.loads(ran.out) == exported  # the same JSON, hostile description and all
