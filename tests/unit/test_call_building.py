"""How a `ToolCall` is built: whole, by `__new__` (a draft of the same slots becomes the call),
with its public behaviour as declared (frozen, equality, repr, copy, pickling, replace); and the
work `from_json` does: one parse, no second snapshot, scalars looked at one by one only when
they are not kept as they are."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from typing import Any

import pytest

from toolfx.core.json import FrozenDict, FrozenList, _snapshot, _text
from toolfx.core.pipeline import ToolCall, _call
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ExecutionToken

SIGNAL = CancelSignal()

RECORDS = {
    "items": [
        {"id": i, "name": f"item{i}", "tags": ["a", "b"], "score": i * 0.5, "ok": i % 2 == 0}
        for i in range(100)
    ],
    "next": None,
}


def test_the_draft_has_the_calls_slots() -> None:
    assert _call._CallDraft.__slots__ == ToolCall.__slots__


def test_a_built_call_is_a_frozen_call_with_every_field() -> None:
    token = ExecutionToken()
    call = ToolCall("c", "t", {"a": [1]}, SIGNAL, "r", token, "p", deps=7)
    assert type(call) is ToolCall
    assert (call.call_id, call.name, call.signal, call.root_call_id) == ("c", "t", SIGNAL, "r")
    assert (call.parent, call.parent_call_id, call.deps, call.arguments_error) == (
        token,
        "p",
        7,
        None,
    )
    assert type(call.arguments) is FrozenDict
    assert type(call.arguments["a"]) is FrozenList
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.name = "u"  # type: ignore[misc]
    assert repr(call) == (
        f"ToolCall(call_id='c', name='t', arguments={{'a': [1]}}, signal={SIGNAL!r}, "
        f"root_call_id='r', parent={token!r}, parent_call_id='p')"
    )
    assert call == ToolCall(
        "c", "t", {"a": [1]}, SIGNAL, "r", token, "p", deps=8
    )  # deps: no compare
    assert hash(call) == hash(ToolCall("c", "t", {"a": [1]}, SIGNAL, "r", token, "p"))


def test_a_call_copies_pickles_and_replaces_as_declared() -> None:
    call = ToolCall("c", "t", {"a": [1]}, SIGNAL, deps=5)
    assert copy.copy(call) == call
    assert copy.deepcopy(call).arguments == {"a": [1]}
    replaced = dataclasses.replace(call, name="u")
    assert (replaced.name, replaced.arguments, replaced.deps) == ("u", {"a": [1]}, 5)
    refused = ToolCall("c", "t", {"a": float("nan")}, SIGNAL)
    for made in (call, refused):
        back = pickle.loads(pickle.dumps(made))
        assert type(back) is ToolCall
        assert (back.call_id, back.arguments_error, back.deps) == (
            made.call_id,
            made.arguments_error,
            made.deps,
        )
        assert repr(back.arguments) == repr(made.arguments)
    unparsed = ToolCall.from_json("c", "t", "{oops", SIGNAL)
    assert pickle.loads(pickle.dumps(unparsed)).arguments_error == unparsed.arguments_error


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Count the calls of `module.name` from here on (the count: one entry per call)."""
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_from_json_parses_once_and_snapshots_nothing_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parses = _counting(monkeypatch, _text, "_jiter_parse")
    snapshots = _counting(monkeypatch, _call, "snapshot_or_error")
    drafts = _counting(monkeypatch, _call, "_CallDraft")
    call = ToolCall.from_json("c", "t", json.dumps(RECORDS), SIGNAL)
    assert (len(parses), len(snapshots), len(drafts)) == (1, 0, 1)
    assert call.arguments == RECORDS


def test_only_parsed_scalars_that_are_not_kept_as_they_are_are_looked_at_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked = _counting(monkeypatch, _snapshot, "check_scalar")
    call = ToolCall.from_json("c", "t", json.dumps(RECORDS), SIGNAL)
    assert call.arguments == RECORDS
    # each score (a float) and, the text being long enough to hold a 641-digit integer, each id;
    # never a name, a tag or a flag
    assert len(looked) == 2 * len(RECORDS["items"])  # type: ignore[arg-type]
    looked.clear()
    short = ToolCall.from_json("c", "t", '{"a": 1, "b": [true, "x", null, {"c": 0.5}]}', SIGNAL)
    assert short.arguments == {"a": 1, "b": [True, "x", None, {"c": 0.5}]}
    assert len(looked) == 1  # the float only
