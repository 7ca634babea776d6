"""Durability: the journal, recovery from it, journaled batches and deferred approvals."""

from toolfx.core.journal._journal import Journal

__all__ = ["Journal"]
