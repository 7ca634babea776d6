"""Durability: the journal, recovery from it, journaled batches and deferred approvals."""

from toolfx.core.journal._journal import FollowedJournal, Journal
from toolfx.core.journal._recovery import (
    CallStatus,
    InDoubt,
    Pending,
    Recovery,
    Settled,
    recover,
)
from toolfx.core.journal._replay import MAX_SHOWN_ARGUMENT_CHARS, Outcome
from toolfx.core.journal._session import JournaledBatch, JournaledSession, JournalError

__all__ = [
    "MAX_SHOWN_ARGUMENT_CHARS",
    "CallStatus",
    "FollowedJournal",
    "InDoubt",
    "Journal",
    "JournalError",
    "JournaledBatch",
    "JournaledSession",
    "Outcome",
    "Pending",
    "Recovery",
    "Settled",
    "recover",
]
