"""Session files: toolfx, OpenAI and Anthropic turns; bad lines and bad argument text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.support import toolfx, write_session
from toolfx.core.json import JsonValue
from toolfx.core.pipeline import ToolCall
from toolfx.core.registry import Registry
from toolfx.interpreters.cli._runner import turn_calls
from toolfx.interpreters.cli._session import (
    ProviderTurn,
    SessionCall,
    SessionError,
    Turn,
    parse_session,
)

TOOLFX_TURN = {"calls": [{"id": "c1", "name": "read", "arguments": {"path": "a.txt"}}]}
OPENAI_TURN: dict[str, JsonValue] = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "c2",
            "type": "function",
            "function": {"name": "write", "arguments": '{"path": "b.txt", "content": "B"}'},
        }
    ],
}
ANTHROPIC_TURN: dict[str, JsonValue] = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "Searching now."},
        {"type": "tool_use", "id": "c3", "name": "grep", "input": {"regex": "x"}},
        {"type": "tool_use", "id": "c4", "name": "glob", "input": {"pattern": "*.py"}},
    ],
}


def lines(*turns: object) -> str:
    return "".join(json.dumps(turn) + "\n" for turn in turns)


def calls_of(turn: Turn) -> tuple[ToolCall, ...]:
    """A turn's calls as the runner reads them (with no tools: nothing to undo)."""
    return turn_calls(turn, Registry().catalog())


def seen(turn: Turn) -> list[tuple[str, str, object]]:
    return [(call.call_id, call.name, call.arguments) for call in calls_of(turn)]


def test_each_line_is_a_turn_in_any_of_the_three_forms() -> None:
    text = lines(TOOLFX_TURN, OPENAI_TURN) + "\n   \n" + lines(ANTHROPIC_TURN)
    turns = parse_session(text)
    assert turns == (
        (SessionCall("c1", "read", {"path": "a.txt"}),),
        ProviderTurn("openai_chat", OPENAI_TURN),
        ProviderTurn("anthropic_messages", ANTHROPIC_TURN),
    )
    assert [seen(turn) for turn in turns] == [
        [("c1", "read", {"path": "a.txt"})],
        [("c2", "write", {"path": "b.txt", "content": "B"})],
        [("c3", "grep", {"regex": "x"}), ("c4", "glob", {"pattern": "*.py"})],
    ]
    assert len({call.signal for call in calls_of(turns[2])}) == 1  # the turn's one signal


def test_toolfx_arguments_default_to_an_empty_object() -> None:
    assert parse_session(lines({"calls": [{"id": "c", "name": "bash"}]})) == (
        (SessionCall("c", "bash", {}),),
    )


def test_a_turn_may_make_no_calls() -> None:
    text_only = {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}
    assert [calls_of(turn) for turn in parse_session(lines(text_only, {"calls": []}))] == [(), ()]


def test_argument_text_that_is_not_json_is_kept_with_its_error() -> None:
    turn = json.loads(json.dumps(OPENAI_TURN))
    turn["tool_calls"][0]["function"]["arguments"] = '{"path": "b.txt",'
    ((call,),) = [calls_of(turn) for turn in parse_session(lines(turn))]
    assert (call.call_id, call.name, call.arguments) == ("c2", "write", '{"path": "b.txt",')
    assert str(call.arguments_error).startswith("invalid JSON: Expecting")


def test_duplicate_keys_in_argument_text_are_refused_not_lost() -> None:
    turn = json.loads(json.dumps(OPENAI_TURN))
    turn["tool_calls"][0]["function"]["arguments"] = '{"path": "a", "path": "b"}'
    ((call,),) = [calls_of(turn) for turn in parse_session(lines(turn))]
    assert (
        str(call.arguments_error)
        == "the object repeats the key 'path', so one of its values would be lost at the root"
    )


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "line 2: not JSON: invalid JSON: Expecting property name"),
        ("[1, 2]", "line 2: expected a toolfx turn"),
        ('{"role": "user", "content": []}', "line 2: expected a toolfx turn"),
        ('{"calls": [{"id": "c"}]}', "line 2: missing required key 'name' at /calls/0"),
        ('{"calls": [], "extra": 1}', "line 2: unexpected key 'extra' at /extra"),
        (
            '{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "x"}}]}',
            "line 2: missing required key 'arguments' at /tool_calls/0/function",
        ),
        (
            '{"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "x"}]}',
            "line 2: missing required key 'input' at /content/0",
        ),
        (
            '{"calls": [{"id": "c", "name": "x"}, {"id": "c", "name": "y"}]}',
            "line 2: repeats the call id 'c' of /calls/0 at /calls/1",
        ),
        (
            '{"role": "assistant", "tool_calls": ['
            '{"id": "c", "function": {"name": "x", "arguments": "{}"}},'
            '{"id": "c", "function": {"name": "x", "arguments": "{}"}}]}',
            "line 2: repeats the call id 'c' of /tool_calls/0 at /tool_calls/1",
        ),
        (
            '{"role": "assistant", "content": [{"type": "text", "text": "a"},'
            '{"type": "tool_use", "id": "c", "name": "x", "input": {}},'
            '{"type": "tool_use", "id": "c", "name": "x", "input": {}}]}',
            "line 2: repeats the call id 'c' of /content/1 at /content/2",
        ),
    ],
)
def test_a_bad_line_is_an_error_naming_its_number(line: str, reason: str) -> None:
    with pytest.raises(SessionError) as raised:
        parse_session(lines(TOOLFX_TURN) + line + "\n")
    assert str(raised.value).startswith(reason)
    assert raised.value.line == 2


def test_the_readme_example_session_reads() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    example = readme.split("```jsonl\n", 1)[1].split("```", 1)[0]
    turns = [calls_of(turn) for turn in parse_session(example)]
    assert [call.name for turn in turns for call in turn] == ["read", "grep", "bash"]
    assert turns[1][0].arguments == {"regex": "TODO"}


@pytest.mark.parametrize(
    ("call", "meant"),
    [
        ({"call_id": "c", "name": "read"}, "id"),
        ({"tool_call_id": "c", "name": "read"}, "id"),
        ({"callId": "c", "name": "read"}, "id"),
        ({"id": "c", "tool_name": "read"}, "name"),
        ({"id": "c", "name": "read", "input": {}}, "arguments"),
        ({"id": "c", "name": "read", "args": {}}, "arguments"),
    ],
)
def test_a_key_other_formats_use_names_the_key_of_ours_it_means(
    call: dict[str, JsonValue], meant: str
) -> None:
    given = next(key for key in call if key not in ("id", "name", "arguments"))
    with pytest.raises(SessionError) as raised:
        parse_session(lines({"calls": [call]}))
    assert raised.value.reason == (
        f"unexpected key '{given}' (did you mean '{meant}'?) at /calls/0/{given}"
    )


def test_a_synonym_beside_the_key_it_means_is_only_unexpected() -> None:
    with pytest.raises(SessionError) as raised:
        parse_session(lines({"calls": [{"id": "c", "call_id": "c", "name": "read"}]}))
    assert raised.value.reason == "unexpected key 'call_id' at /calls/0/call_id"


def test_the_command_says_which_key_was_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = write_session(tmp_path / "s.jsonl", {"calls": [{"call_id": "c", "name": "read"}]})
    ran = toolfx(capsys, "run", session, "--workspace", str(tmp_path))
    assert ran.code != 0
    assert "line 1: unexpected key 'call_id' (did you mean 'id'?)" in ran.err
