"""Recovery by example: what each record does to a call's status and to the open asks."""

from __future__ import annotations

from toolfx.core.journal import InDoubt, Pending, Settled, recover
from toolfx.core.records import (
    ToolApprovalRecord,
    ToolCallRecord,
    ToolCodeAnswerRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
)
from toolfx.core.runtime import ApprovalReply, ApprovalRequest
from toolfx.core.tools import DurableResult, TextBlock, pending

CALL = ToolCallRecord("c1", "c1", "shout", {"text": "a"})
SUB = ToolCallRecord("o:code:1", "o", "shout", {"text": "a"}, None, "o")
DONE = ToolResultRecord("c1", DurableResult((TextBlock("A"),)))
WAITING = ToolResultRecord("c1", DurableResult((), pending("waits", ("c1",)).error))


def ask(reply: ApprovalReply, patterns: tuple[str, ...] = ("*",)) -> ToolApprovalRecord:
    return ToolApprovalRecord("c1", "shout", patterns, None, reply)


def request(patterns: tuple[str, ...] = ("*",)) -> ApprovalRequest:
    return ApprovalRequest("c1", "shout", "agent", "shout", patterns, None, None)


def test_a_call_is_new_then_in_doubt_then_settled() -> None:
    assert recover([]).status("c1") is None
    assert recover([CALL]).status("c1") == InDoubt(CALL)
    assert recover([CALL, DONE]).status("c1") == Settled(CALL, DONE.result)
    assert recover([CALL, DONE]).in_doubt() == ()


def test_a_result_without_its_call_is_ignored() -> None:
    assert recover([DONE]).status("c1") is None


def test_a_call_started_again_is_in_doubt_again() -> None:
    recovery = recover([CALL, WAITING, CALL])
    assert recovery.status("c1") == InDoubt(CALL)
    assert recovery.in_doubt() == (CALL,)


def test_a_sub_call_settles_with_its_answer_and_dispatch_only() -> None:
    answer = ToolCodeAnswerRecord("o:code:1", "A")
    dispatch = ToolCodeDispatchRecord("o:code:1", "o", "shout", False, (TextBlock("A"),))
    assert recover([SUB, dispatch]).status("o:code:1") == InDoubt(SUB)  # what did it answer?
    settled = recover([SUB, answer, dispatch]).status("o:code:1")
    assert settled == Settled(SUB, DurableResult((TextBlock("A"),)), answer)


def test_an_approval_pending_result_waits_for_the_calls_it_names() -> None:
    status = recover([CALL, ask("deferred"), WAITING]).status("c1")
    assert status == Pending(CALL, WAITING.result, ("c1",))


def test_an_ask_is_open_while_its_call_is_pending_and_unanswered() -> None:
    deferred = ask("deferred")
    assert recover([CALL, deferred]).open_asks() == ()  # not pending yet: in doubt
    recovery = recover([CALL, deferred, WAITING])
    assert recovery.open_asks() == (deferred,)
    status = recovery.status("c1")
    assert isinstance(status, Pending)
    assert not recovery.resumable(status)
    recovery.note(ask("allowed-once"))
    assert recovery.open_asks() == ()
    assert recovery.resumable(status)
    assert recovery.answer(request()) == "allowed-once"
    assert recovery.answer(request(("other",))) is None  # another ask of the same call


def test_an_answer_before_its_ask_is_no_answer() -> None:
    recovery = recover([CALL, ask("allowed-once"), ask("deferred"), WAITING])
    assert recovery.answer(request()) is None
    assert len(recovery.open_asks()) == 1


def test_the_same_ask_deferred_again_is_open_again() -> None:
    again = ask("deferred")
    recovery = recover([CALL, ask("deferred"), WAITING, ask("allowed-once"), CALL, again, WAITING])
    assert recovery.answer(request()) is None
    assert recovery.open_asks() == (again,)


def test_only_the_last_ask_of_a_call_counts() -> None:
    first, second = ask("deferred"), ask("deferred", ("b",))
    recovery = recover([CALL, first, WAITING, ask("allowed-once"), CALL, second, WAITING])
    assert recovery.open_asks() == (second,)
    status = recovery.status("c1")
    assert isinstance(status, Pending)
    assert not recovery.resumable(status)  # the first ask's answer does not resume it


def test_the_first_answer_to_an_ask_holds() -> None:
    # two approvers answering the same ask (one had not seen the other's answer): a later
    # approval cannot overturn a rejection, nor a later rejection withdraw an approval
    rejected, allowed = ask("rejected"), ask("allowed-once")
    recovery = recover([CALL, ask("deferred"), WAITING, rejected, allowed])
    assert recovery.answer(request()) == "rejected"
    assert recovery.answered(ask("deferred")) == rejected
    assert recover([CALL, ask("deferred"), WAITING, allowed, rejected]).answer(request()) == (
        "allowed-once"
    )


def test_a_calls_last_ask_is_its_last_deferred_one() -> None:
    first, second = ask("deferred"), ask("deferred", ("b",))
    assert recover([CALL]).last_ask("c1") is None
    recovery = recover([CALL, first, WAITING, ask("allowed-once"), CALL, second, WAITING])
    assert recovery.last_ask("c1") == second
    assert recovery.answered(second) is None
    assert recovery.answered(first) == ask("allowed-once")


def test_always_remembers_only_the_rules_the_person_was_shown() -> None:
    shown = ToolApprovalRecord("c1", "shout", ("*",), None, "deferred", ("shout *",))
    answer = ToolApprovalRecord("c1", "shout", ("*",), None, "allowed-always", ("shout *",))
    recovery = recover([CALL, shown, WAITING, answer])
    same = ApprovalRequest("c1", "shout", "agent", "shout", ("*",), None, None, ("shout *",))
    wider = ApprovalRequest("c1", "shout", "agent", "shout", ("*",), None, None, ("*",))
    assert recovery.answer(same) == "allowed-always"
    assert recovery.answer(wider) == "allowed-once"  # rules nobody saw are not remembered
