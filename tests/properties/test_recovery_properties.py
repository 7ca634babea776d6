"""Properties of recovery: a pure fold over the journal's records, each call id's status following
its last records, the open asks and their answers following the approvals.

Records are drawn over a few call ids, tools, permissions and patterns, in any order (results
before calls, answers before asks, dispatches without answers), so every branch of the fold is
reached; each expectation is written from the records directly, not by folding them.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.journal import InDoubt, Pending, Recovery, Settled, recover
from toolfx.core.records import (
    SessionRecord,
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeAnswerRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, RejectedWithFeedback
from toolfx.core.tools import (
    DurableResult,
    ErrorCode,
    TextBlock,
    ToolFailure,
    pending,
    waiting_for,
)

IDS = ("a", "b", "c")
PERMISSIONS = ("edit", "bash")
PATTERNS = (("*",), ("x.txt",))

ids = st.sampled_from(IDS)
contents = st.sampled_from([(), (TextBlock("one"),), (TextBlock("two"),)])
failures = st.one_of(
    st.sampled_from([ErrorCode.DENIED, ErrorCode.IN_DOUBT, ErrorCode.TOOL_ERROR]).map(
        lambda code: ToolFailure.of(code, "failed")
    ),
    st.lists(ids, max_size=2, unique=True).map(lambda waits: pending("waits", tuple(waits)).error),
)
errors = st.none() | failures
PLAIN_REPLIES: list[ApprovalReply] = [
    "allowed-once",
    "rejected",
    "deferred",
    "deferred",
    "cancelled",
]
replies = st.sampled_from([*PLAIN_REPLIES, RejectedWithFeedback("no")])

calls = st.builds(
    ToolCallRecord,
    ids,
    ids,
    st.sampled_from(["t", "u"]),
    st.sampled_from([{"x": 1}, {"x": 2}]),
    st.none(),
    st.none() | st.just("p"),
    st.none() | st.just("hash"),
)
results = st.builds(ToolResultRecord, ids, st.builds(DurableResult, contents, errors))
answers = st.builds(ToolCodeAnswerRecord, ids, st.sampled_from([None, 1, "v"])) | st.builds(
    ToolCodeAnswerRecord, ids, st.none(), failures
)
dispatches = st.builds(
    ToolCodeDispatchRecord, ids, st.just("p"), st.just("t"), st.booleans(), contents
)
approvals = st.builds(
    ToolApprovalRecord,
    ids,
    st.sampled_from(PERMISSIONS),
    st.sampled_from(PATTERNS),
    st.none(),
    replies,
)
records = st.lists(
    st.one_of(calls, results, answers, dispatches, approvals, approvals), max_size=25
)

AskKey = tuple[str, str, tuple[str, ...]]


def asks_of(call_id: str) -> list[ApprovalRequest]:
    """Every ask the drawn approvals can be about for `call_id`."""
    return [
        ApprovalRequest(call_id, "t", None, permission, patterns, None, None)
        for permission in PERMISSIONS
        for patterns in PATTERNS
    ]


def observed(recovery: Recovery) -> object:
    """All a recovery state tells: statuses, open asks, in-doubt calls, answers, resumability."""
    statuses = {call_id: recovery.status(call_id) for call_id in IDS}
    return (
        statuses,
        recovery.open_asks(),
        recovery.in_doubt(),
        [recovery.answer(request) for call_id in IDS for request in asks_of(call_id)],
        [recovery.resumable(s) for s in statuses.values() if isinstance(s, Pending)],
    )


@given(records, st.data())
def test_recovering_is_noting_the_records_one_by_one_from_any_point(
    drawn: list[SessionRecord], data: st.DataObject
) -> None:
    split = data.draw(st.integers(0, len(drawn)))
    recovery = recover(drawn[:split])
    for record in drawn[split:]:
        recovery.note(record)
    assert observed(recovery) == observed(recover(drawn))
    assert observed(recover(iter(drawn))) == observed(recover(drawn))


def expected_status(drawn: Sequence[SessionRecord], call_id: str) -> object:
    """A call's status, read from its last records: its last `tool/call` opens it (in doubt);
    the last result after that settles it, a `tool/code-dispatch` only with a `tool/code-answer`
    since the dispatch before it (the answer the program got)."""
    mine = [record for record in drawn if record.call_id == call_id]
    opened = [n for n, record in enumerate(mine) if isinstance(record, ToolCallRecord)]
    if not opened:
        return None
    call = mine[opened[-1]]
    assert isinstance(call, ToolCallRecord)
    settled: tuple[DurableResult, ToolCodeAnswerRecord | None] | None = None
    answer: ToolCodeAnswerRecord | None = None
    for n, record in enumerate(mine):
        if isinstance(record, ToolCodeAnswerRecord):
            answer = record
        elif isinstance(record, ToolCodeDispatchRecord):
            if answer is not None and n > opened[-1]:
                settled = (DurableResult(record.content, answer.error), answer)
            answer = None
        elif isinstance(record, ToolResultRecord) and n > opened[-1]:
            settled = (record.result, None)
    if settled is None:
        return InDoubt(call)
    result, answered = settled
    if result.error is not None and result.error.code is ErrorCode.APPROVAL_PENDING:
        return Pending(call, result, waiting_for(result.error), answered)
    return Settled(call, result, answered)


@given(records)
def test_each_status_follows_the_last_records_of_its_call(drawn: list[SessionRecord]) -> None:
    recovery = recover(drawn)
    for call_id in IDS:
        assert recovery.status(call_id) == expected_status(drawn, call_id), call_id
    first_opened: dict[str, int] = {}
    for n, record in enumerate(drawn):
        if isinstance(record, ToolCallRecord):
            first_opened.setdefault(record.call_id, n)
    doubted = [c for c in first_opened if isinstance(recovery.status(c), InDoubt)]
    assert [call.call_id for call in recovery.in_doubt()] == sorted(
        doubted, key=first_opened.__getitem__
    )


def key_of(record: ToolApprovalRecord) -> AskKey:
    return (record.call_id, record.permission, record.patterns)


@given(records)
def test_an_ask_is_open_until_an_answer_to_it_follows(drawn: list[SessionRecord]) -> None:
    recovery = recover(drawn)
    approvals = [r for r in drawn if isinstance(r, ToolApprovalRecord)]
    expected_open = set()
    for call_id in IDS:
        deferred = [
            n for n, r in enumerate(approvals) if r.call_id == call_id and r.reply == "deferred"
        ]
        status = recovery.status(call_id)
        if not deferred or not isinstance(status, Pending):
            continue
        parent = status.call.parent_call_id  # a sub-call's ask waits only with its program
        if parent is not None and not isinstance(recovery.status(parent), Pending):
            continue
        last = approvals[deferred[-1]]
        answered = any(
            key_of(r) == key_of(last) and r.reply != "deferred" for r in approvals[deferred[-1] :]
        )
        if not answered:
            expected_open.add(last)
    assert set(recovery.open_asks()) == expected_open
    for call_id in IDS:
        for request in asks_of(call_id):
            key = (request.call_id, request.permission, request.patterns)
            same = [r for r in approvals if key_of(r) == key]
            asked = [n for n, r in enumerate(same) if r.reply == "deferred"]
            given_after = [r for r in same[asked[-1] :] if r.reply != "deferred"] if asked else []
            expected = given_after[0].reply if given_after else None  # the first answer holds
            assert recovery.answer(request) == expected, key
