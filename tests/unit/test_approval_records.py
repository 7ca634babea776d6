"""The `tool/approval` record: an answered ask on the wire, every reply, and its errors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.test_records import Reader, check_wire, error_of
from toolfx.core.json import snapshot_json
from toolfx.core.records import ToolApprovalRecord, record_from_json
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback

_APPROVAL: dict[str, Any] = {
    "event": "tool/approval",
    "callId": "c",
    "permission": "edit",
    "patterns": ["a.txt"],
    "reply": "allowed-once",
}


def test_approval_records_are_written_from_a_request_and_its_reply() -> None:
    request = ApprovalRequest(
        "c", "write", "main", "edit", ("a.txt",), "write a.txt", snapshot_json({}).unwrap()
    )
    record = ToolApprovalRecord.of(request, "allowed-always")
    assert record == ToolApprovalRecord("c", "edit", ("a.txt",), "write a.txt", "allowed-always")
    assert record.event == "tool/approval"
    expected = {
        "event": "tool/approval",
        "callId": "c",
        "permission": "edit",
        "patterns": ["a.txt"],
        "reason": "write a.txt",
        "reply": "allowed-always",
    }
    check_wire(record.to_json(), expected, ToolApprovalRecord.from_json, record)
    check_wire(record.to_json(), expected, record_from_json, record)


@pytest.mark.parametrize(
    "reply", ["allowed-once", "allowed-always", "rejected", "cancelled", "unavailable", "deferred"]
)
def test_every_plain_reply_travels_as_its_name(reply: ApprovalReply) -> None:
    record = ToolApprovalRecord("c", "edit", ("a.txt",), None, reply)
    check_wire(record.to_json(), {**_APPROVAL, "reply": reply}, record_from_json, record)


def test_a_rejection_with_feedback_is_rejected_with_the_feedback_beside_it() -> None:
    record = ToolApprovalRecord("c", "bash", (), None, RejectedWithFeedback("use git rm"))
    expected = {
        **_APPROVAL,
        "permission": "bash",
        "patterns": [],
        "reply": "rejected",
        "feedback": "use git rm",
    }
    check_wire(record.to_json(), expected, ToolApprovalRecord.from_json, record)


@pytest.mark.parametrize(
    ("read", "value", "path", "reason"),
    [
        (
            record_from_json,
            {**_APPROVAL, "reply": "maybe"},
            "/reply",
            "unknown approval reply 'maybe'",
        ),
        (
            record_from_json,
            {**_APPROVAL, "feedback": "no"},
            "/feedback",
            "unexpected key 'feedback' unless the reply is 'rejected'",
        ),
        (
            record_from_json,
            {**_APPROVAL, "patterns": "a.txt"},
            "/patterns",
            'expected array, found string "a.txt"',
        ),
        (record_from_json, {**_APPROVAL, "reason": None}, "/reason", "expected string, found null"),
        (
            ToolApprovalRecord.from_json,
            {"event": "tool/call"},
            "/event",
            "expected event 'tool/approval', found 'tool/call'",
        ),
    ],
)
def test_approval_record_errors(read: Reader, value: object, path: str, reason: str) -> None:
    assert error_of(read(value)) == (path, reason)


def test_the_rules_always_would_remember_travel_with_the_ask() -> None:
    request = ApprovalRequest(
        "c",
        "write",
        "main",
        "external_directory",
        ("/elsewhere/a.txt",),
        None,
        snapshot_json({}).unwrap(),
        ("/elsewhere/*",),
    )
    record = ToolApprovalRecord.of(request, "deferred")
    assert record.always == ("/elsewhere/*",)
    expected = {
        "event": "tool/approval",
        "callId": "c",
        "permission": "external_directory",
        "patterns": ["/elsewhere/a.txt"],
        "reply": "deferred",
        "always": ["/elsewhere/*"],
    }
    check_wire(record.to_json(), expected, ToolApprovalRecord.from_json, record)
    bad = record_from_json({**expected, "always": [1]})
    assert "always" in str(bad.failure())
