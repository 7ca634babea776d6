"""One call inside the pipeline, the decisions policy returns, and the shapes of every hook."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, final

from toolfx.core.json import FrozenJson
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools._content import ContentBlock, ContextMessage
from toolfx.core.tools._results import ToolExecutionResult

__all__ = [
    "Accept",
    "Allow",
    "Ask",
    "Block",
    "CodeDispatchLog",
    "CodeDispatchLogListener",
    "Deny",
    "ExecuteWrapper",
    "ExecutionToken",
    "PostExecuteListener",
    "PostToolDecision",
    "PreExecuteListener",
    "PreToolDecision",
    "ReplaceContent",
    "ReplaceValue",
    "ResultObserver",
    "ToolExecution",
    "ToolGuard",
]


@final
class ExecutionToken:
    """An opaque call identity: compared by identity only, shared with nested calls as `parent`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<ExecutionToken {id(self):#x}>"


@final
@dataclass(frozen=True, slots=True, eq=False, init=False)
class ToolExecution:
    """One pending call: immutable identity, frozen arguments, the caller's agent and tokens."""

    call_id: str
    root_call_id: str
    name: str
    arguments: FrozenJson
    agent: str | None
    token: ExecutionToken
    signal: CancelSignal
    parent: ExecutionToken | None = None

    # Stores through the slot descriptors: half the cost of the generated frozen __init__
    # (object.__setattr__ per field); the class stays frozen. tests/unit/test_slot_stores.py
    # checks the parameters match the fields.
    def __init__(  # noqa: PLR0917 (the dataclass signature, positional as declared)
        self,
        call_id: str,
        root_call_id: str,
        name: str,
        arguments: FrozenJson,
        agent: str | None,
        token: ExecutionToken,
        signal: CancelSignal,
        parent: ExecutionToken | None = None,
    ) -> None:
        _execution_call_id(self, call_id)
        _execution_root_call_id(self, root_call_id)
        _execution_name(self, name)
        _execution_arguments(self, arguments)
        _execution_agent(self, agent)
        _execution_token(self, token)
        _execution_signal(self, signal)
        _execution_parent(self, parent)

    def with_signal(self, signal: CancelSignal) -> ToolExecution:
        """The same call (same identity and token) watching another signal."""
        return ToolExecution(  # positional, not `dataclasses.replace`: a third of the cost
            self.call_id,
            self.root_call_id,
            self.name,
            self.arguments,
            self.agent,
            self.token,
            signal,
            self.parent,
        )


_execution_call_id = ToolExecution.__dict__["call_id"].__set__
_execution_root_call_id = ToolExecution.__dict__["root_call_id"].__set__
_execution_name = ToolExecution.__dict__["name"].__set__
_execution_arguments = ToolExecution.__dict__["arguments"].__set__
_execution_agent = ToolExecution.__dict__["agent"].__set__
_execution_token = ToolExecution.__dict__["token"].__set__
_execution_signal = ToolExecution.__dict__["signal"].__set__
_execution_parent = ToolExecution.__dict__["parent"].__set__


@final
@dataclass(frozen=True, slots=True)
class Allow:
    """Pre-execute decision: run the call."""

    kind: Literal["allow"] = "allow"


@final
@dataclass(frozen=True, slots=True)
class Deny:
    """Pre-execute decision: refuse the call with a reason the model sees."""

    reason: str
    kind: Literal["deny"] = "deny"


@final
@dataclass(frozen=True, slots=True)
class Ask:
    """Pre-execute decision: run only if the approval service answers allowed-once."""

    reason: str | None = None
    kind: Literal["ask"] = "ask"


PreToolDecision = Allow | Deny | Ask
"""What a pre-execute listener decides; arguments are never rewritten."""


@final
@dataclass(frozen=True, slots=True)
class Accept:
    """Post-execute decision: keep the result, optionally attaching context for the model."""

    additional_contexts: tuple[ContextMessage, ...] = ()
    kind: Literal["accept"] = "accept"


@final
@dataclass(frozen=True, slots=True)
class ReplaceContent:
    """Post-execute decision: keep the value and meta, show the model other content."""

    content: tuple[ContentBlock, ...]
    additional_contexts: tuple[ContextMessage, ...] = ()
    kind: Literal["replace_content"] = "replace_content"


@final
@dataclass(frozen=True, slots=True)
class ReplaceValue:
    """Post-execute decision: a new value, validated again and rendered again."""

    value: FrozenJson
    additional_contexts: tuple[ContextMessage, ...] = ()
    kind: Literal["replace_value"] = "replace_value"


@final
@dataclass(frozen=True, slots=True)
class Block:
    """Post-execute decision: drop the value; the feedback becomes an error result."""

    feedback: tuple[ContentBlock, ...]
    additional_contexts: tuple[ContextMessage, ...] = ()
    kind: Literal["block"] = "block"


PostToolDecision = Accept | ReplaceContent | ReplaceValue | Block
"""What a post-execute listener decides: content or value may be replaced, never both."""


@final
@dataclass(frozen=True, slots=True)
class CodeDispatchLog:
    """A settled Code Mode sub-dispatch about to be logged: whose, which, and its content."""

    execution: ToolExecution
    sub_call_id: str
    name: str
    is_error: bool
    content: tuple[ContentBlock, ...]

    @property
    def agent(self) -> str | None:
        """The agent of the outer call, if any."""
        return self.execution.agent


ToolGuard = Callable[[ToolExecution], str | None]
"""A monotonic final check: a returned reason denies the call; None leaves it as it was."""

PreExecuteListener = Callable[
    [ToolExecution, Callable[[], Awaitable[PreToolDecision]]], Awaitable[PreToolDecision]
]
"""Allow, deny or ask before dispatch; `next()` asks the listeners after this one."""

ExecuteWrapper = Callable[
    [ToolExecution, Callable[[ToolExecution], Awaitable[ToolExecutionResult]]],
    Awaitable[ToolExecutionResult],
]
"""Around dispatch (timeouts, retries, metrics); `next(execution)` runs the rest and the body."""

PostExecuteListener = Callable[
    [ToolExecution, ToolExecutionResult, Callable[[], Awaitable[PostToolDecision]]],
    Awaitable[PostToolDecision],
]
"""Accept, replace or block a dispatch result; `next()` asks the listeners after this one."""

CodeDispatchLogListener = Callable[
    [CodeDispatchLog, Callable[[], Awaitable[tuple[ContentBlock, ...]]]],
    Awaitable[tuple[ContentBlock, ...]],
]
"""Reshape the durable log copy of a Code Mode sub-dispatch's content."""

ResultObserver = Callable[[ToolExecution, ToolExecutionResult], None]
"""Observe the frozen final outcome; failures are contained."""
