"""A session's permissions: the rules, the answers remembered as `always`, and asking the user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import final

from toolfx.core.runtime import (
    NO_ONE_TO_ASK,
    ApprovalRequest,
    AtomicCell,
    Cancelled,
    RejectedWithFeedback,
)
from toolfx.core.tools import (
    ApprovalDeferred,
    ErrorCode,
    PermissionDeclined,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._rules import Action, Rule, RuleError, check_rule, decide

__all__ = ["Permissions"]


@final
class Permissions:
    """The rules every leaf of one session consults; `always` answers become allow rules."""

    __slots__ = ("_rules",)

    def __init__(self, rules: Sequence[Rule] = ()) -> None:
        for index, rule in enumerate(rules):
            if not isinstance(rule, Rule):
                raise RuleError(f"rules[{index}]", f"expected a Rule, found {type(rule).__name__}")
            check_rule(rule, f"rules[{index}]")
        self._rules = AtomicCell(tuple(rules))

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The configured rules followed by the remembered ones, in order."""
        return self._rules.get()

    def remember(self, permission: str, patterns: Sequence[str]) -> None:
        """Allow `permission` for `patterns` from now on, in this session."""
        added = tuple(Rule(permission, pattern, "allow") for pattern in patterns)
        self._rules.update(lambda rules: ((*rules, *added), None))

    async def require(
        self,
        ctx: ToolRunContext,
        permission: str,
        patterns: Sequence[str],
        reason: str,
        *,
        always: Sequence[str] | None = None,
        default: Action = "ask",
        preview: Callable[[], Awaitable[str]] | None = None,
    ) -> ToolFailure | None:
        """Go on (None), or a corrected failure carrying the user's feedback for the model.

        A deny rule, a plain rejection or nobody to ask raises `PermissionDeclined` (DENIED at
        the pipeline's boundary); a cancelled ask raises `Cancelled`; an ask answered "later"
        raises `ApprovalDeferred` (APPROVAL_PENDING: the call is resumed once answered). An
        `always` answer remembers `always` (default: the patterns) as allow rules for the session.
        `default` is the action when no rule matches; `preview`, called only when the user is
        asked, makes the request's preview (what the call will do, e.g. a diff).
        """
        action = decide(self.rules, permission, patterns, default)
        return await self.settle(
            ctx, action, permission, patterns, reason, always=always, preview=preview
        )

    async def settle(
        self,
        ctx: ToolRunContext,
        action: Action,
        permission: str,
        patterns: Sequence[str],
        reason: str,
        *,
        always: Sequence[str] | None = None,
        preview: Callable[[], Awaitable[str]] | None = None,
    ) -> ToolFailure | None:
        """Act on an `action` already decided (see `require`): go on, refuse, or ask.

        The request shows `always` (default: the patterns): exactly what an `always` answer
        remembers; an empty `always` offers none, and such an answer counts as once.
        """
        asked = tuple(patterns)
        if action == "allow":
            return None
        listed = ", ".join(asked)
        if action == "deny":
            raise PermissionDeclined(permission, f"a rule denies {listed}")
        remembered = asked if always is None else tuple(always)
        shown = None if preview is None else await preview()
        request = ApprovalRequest(
            ctx.call_id,
            ctx.name,
            ctx.agent,
            permission,
            asked,
            reason,
            ctx.arguments,
            remembered,
            shown,
        )
        reply = await ctx.runtime.approve(request, ctx.signal)
        if isinstance(reply, RejectedWithFeedback):
            return ToolFailure.of(
                ErrorCode.DENIED,
                f"The user rejected {permission} for {listed}, saying: {reply.feedback}",
            )
        if reply == "allowed-once":
            return None
        if reply == "allowed-always":
            self.remember(permission, remembered)
            return None
        if reply == "cancelled":
            raise Cancelled(ctx.signal.reason or "the approval was cancelled")
        if reply == "rejected":
            raise PermissionDeclined(permission, f"the user rejected {listed}")
        if reply == "deferred":
            raise ApprovalDeferred(_waiting(ctx.name, permission, listed), (ctx.call_id,))
        raise PermissionDeclined(permission, f"no one could approve {listed}: {NO_ONE_TO_ASK}")


def _waiting(tool: str, permission: str, listed: str) -> str:
    return (
        f"`{tool}` is waiting for approval of {permission} for {listed}: it has not done that,"
        " and runs again once the approval is answered."
    )
