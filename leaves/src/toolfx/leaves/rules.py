"""Permission rules: `{permission, pattern, action}`, the last matching rule wins, else ask."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, final, get_args

__all__ = ["Action", "Rule", "RuleError", "decide", "load_rules", "matches", "parse_rules"]

Action = Literal["allow", "deny", "ask"]
"""What a rule does to a matching request."""

_ACTIONS: frozenset[str] = frozenset(get_args(Action))


@final
@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: the permission it covers (wildcards allowed), a pattern, and the action."""

    permission: str
    pattern: str
    action: Action


class RuleError(ValueError):
    """A rule set that cannot be read: names the rule (by index) and what is wrong."""

    __module__ = "toolfx.leaves"

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL)


def matches(pattern: str, text: str) -> bool:
    """Whether `text` matches `pattern` whole: `*` is any text (slashes too), `?` one character."""
    return _compiled(pattern).fullmatch(text) is not None


def decide(
    rules: Sequence[Rule], permission: str, patterns: Iterable[str], default: Action = "ask"
) -> Action:
    """The action for a request: per pattern the last matching rule wins (else `default`).

    A request is denied if any of its patterns is denied, allowed only if all are allowed,
    and asked otherwise.
    """
    verdicts = {_decide_one(rules, permission, pattern, default) for pattern in patterns} or {"ask"}
    if "deny" in verdicts:
        return "deny"
    return "allow" if verdicts == {"allow"} else "ask"


def _decide_one(rules: Sequence[Rule], permission: str, pattern: str, default: Action) -> Action:
    for rule in reversed(rules):
        if matches(rule.permission, permission) and matches(rule.pattern, pattern):
            return rule.action
    return default


def parse_rules(value: object, where: str = "rules") -> tuple[Rule, ...]:
    """Rules from parsed JSON: a list of `{"permission", "pattern", "action"}` objects."""
    if not isinstance(value, list):
        raise RuleError(where, f"expected a list of rules, found {type(value).__name__}")
    rules = []
    for index, item in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(item, dict):
            raise RuleError(at, f"expected an object, found {type(item).__name__}")
        unknown = sorted(set(item) - {"permission", "pattern", "action"})
        if unknown:
            raise RuleError(at, f"unknown keys {unknown}")
        permission, pattern = item.get("permission"), item.get("pattern", "*")
        action = item.get("action")
        if not isinstance(permission, str) or not permission:
            raise RuleError(at, "permission must be a non-empty string")
        if not isinstance(pattern, str):
            raise RuleError(at, "pattern must be a string")
        if action not in _ACTIONS:
            raise RuleError(at, f"action must be one of allow, deny, ask; found {action!r}")
        rules.append(Rule(permission, pattern, action))
    return tuple(rules)


def load_rules(text: str, where: str = "rules") -> tuple[Rule, ...]:
    """Rules from JSON text (see `parse_rules`); malformed JSON is a `RuleError` too."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise RuleError(where, f"not JSON: {error}") from None
    return parse_rules(value, where)
