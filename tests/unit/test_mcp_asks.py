"""How `toolfx mcp serve` names a call in its asks: tool, the start of the arguments, call id."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hypothesis import given

from tests.properties.test_json_properties import json_values
from toolfx.core.json import truncate
from toolfx.core.runtime import ApprovalRequest
from toolfx.interpreters.cli._mcp_asks import (
    CALL_ID_CHARS,
    SUMMARY_CHARS,
    ask_form,
    call_summary,
)


class CountedList(list[Any]):
    """A JSON array that counts the items read from it."""

    read = 0

    def __iter__(self) -> Iterator[Any]:
        for item in super().__iter__():
            CountedList.read += 1
            yield item


def test_a_call_is_named_by_tool_arguments_and_call_id() -> None:
    arguments = {"path": "a.txt", "content": "hi\n"}
    assert call_summary("write", arguments, None) == 'write {"path":"a.txt","content":"hi\\n"}'
    named = call_summary("write", arguments, "toolu_01")
    assert named == 'write {"path":"a.txt","content":"hi\\n"} (call toolu_01)'


def test_a_long_call_is_named_within_its_bounds_encoding_only_its_start() -> None:
    CountedList.read = 0
    arguments = {"items": CountedList(range(1_000_000)), "text": "x" * 1_000_000}
    named = call_summary("tool", arguments, "c" * 1_000_000)
    longest = len("tool ") + SUMMARY_CHARS + len(" (call )") + CALL_ID_CHARS
    assert len(named) <= longest
    assert named.startswith('tool {"items":[0,1,2,')
    assert named.endswith("... (call " + "c" * (CALL_ID_CHARS - 3) + "...)")
    assert CountedList.read <= SUMMARY_CHARS  # the rest of the million was never encoded


@given(json_values)
def test_the_arguments_shown_are_the_start_of_their_compact_json(arguments: Any) -> None:
    whole = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    assert call_summary("t", arguments, None) == "t " + truncate(whole, SUMMARY_CHARS)


def test_the_ask_form_names_the_call_and_not_a_request_id() -> None:
    request = ApprovalRequest("mcp-7", "write", None, "edit", ("a.txt",), None, {"path": "a.txt"})
    (named, *_) = ask_form(request, None).message.splitlines()
    assert named == 'write {"path":"a.txt"} asks for edit'
    (named, *_) = ask_form(request, "toolu_9").message.splitlines()
    assert named == 'write {"path":"a.txt"} (call toolu_9) asks for edit'


def test_the_ask_form_shows_the_change_a_call_would_make() -> None:
    request = ApprovalRequest(
        "mcp-7", "write", None, "edit", ("a.txt",), None, {}, ("a.txt",),
        "--- a/a.txt\n+++ b/a.txt\n@@ -3 +3 @@\n-old\n+new\x1b[2J\n",
    )  # fmt: skip
    assert ask_form(request, None).message.splitlines()[2:9] == [
        "--- a/a.txt", "+++ b/a.txt", "@@ -3 +3 @@", "-old", "+new\\x1b[2J",
        "always will allow edit, for the rest of this session: a.txt",
        "Allow it once, always (for the rest of this session), or reject it?",
    ]  # fmt: skip
