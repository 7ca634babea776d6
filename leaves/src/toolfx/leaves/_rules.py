"""Permission rules: `{permission, pattern, action}`, the last matching rule wins, else ask.

Rules are checked when made: a permission no leaf asks for, an unknown action or key is a
`RuleError` with a "did you mean". A request pattern inside a `.git` folder is allowed only by
a rule whose pattern names `.git` itself: `*` or `src/*` do not reach into `.git/`.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, final, get_args

__all__ = [
    "PERMISSIONS",
    "Action",
    "Rule",
    "RuleError",
    "decide",
    "inside_git",
    "last_match",
    "load_rules",
    "matches",
    "parse_rules",
]

Action = Literal["allow", "deny", "ask"]
"""What a rule does to a matching request."""

PERMISSIONS: Final = frozenset({"read", "edit", "glob", "grep", "bash", "external_directory"})
"""The permissions the built-in leaves ask for: a rule must name one (or a wildcard of some)."""

_ACTIONS: Final[tuple[str, ...]] = get_args(Action)
_KEYS: Final = ("permission", "pattern", "action")


class RuleError(ValueError):
    """A rule set that cannot be read: names the rule (by index) and what is wrong."""

    __module__ = "toolfx.leaves"

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


def _did_you_mean(found: str, known: Iterable[str]) -> str:
    options = sorted(known)
    lowered = {option.lower(): option for option in options}
    close = difflib.get_close_matches(found.lower(), list(lowered), n=1)
    hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
    return f"{found!r} is not one of {', '.join(options)}{hint}"


@final
@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: the permission it covers (wildcards allowed), a pattern, and the action."""

    permission: str
    pattern: str
    action: Action

    def __post_init__(self) -> None:
        check_rule(self, "rule")


def check_rule(rule: Rule, where: str) -> None:
    """Raise `RuleError` (naming `where` and the field) unless `rule` can ever apply."""
    if not isinstance(rule.permission, str) or not rule.permission:
        raise RuleError(f"{where}.permission", "must be a non-empty string")
    if not any(matches(rule.permission, known) for known in PERMISSIONS):
        raise RuleError(f"{where}.permission", _did_you_mean(rule.permission, PERMISSIONS))
    if not isinstance(rule.pattern, str):
        raise RuleError(f"{where}.pattern", "must be a string")
    if not isinstance(rule.action, str) or rule.action not in _ACTIONS:
        raise RuleError(f"{where}.action", _did_you_mean(str(rule.action), _ACTIONS))


@functools.lru_cache(maxsize=1024)
def _pieces(pattern: str) -> tuple[re.Pattern[str], ...]:
    """The pattern split at its stars, each piece a regex in which `?` is one character."""
    return tuple(
        re.compile("".join("." if c == "?" else re.escape(c) for c in piece), re.DOTALL)
        for piece in pattern.split("*")
    )


def matches(pattern: str, text: str) -> bool:
    """Whether `text` matches `pattern` whole: `*` is any text (slashes too), `?` one character.

    Linear in the text per piece: each piece between stars is found at its first place.
    """
    pieces = _pieces(pattern)
    if len(pieces) == 1:
        return pieces[0].fullmatch(text) is not None
    first, *middle, last = pieces
    start = first.match(text)
    if start is None:
        return False
    position = start.end()
    end = len(text) - len(pattern.rsplit("*", 1)[1])
    if end < position or last.fullmatch(text, end) is None:
        return False
    for piece in middle:
        found = piece.search(text, position, end)
        if found is None:
            return False
        position = found.end()
    return True


def inside_git(pattern: str) -> bool:
    """Whether a request pattern is a path with a `.git` component (in any case: `.GIT` is the
    same folder on a case-insensitive file system)."""
    return any(part.lower() == ".git" for part in pattern.split("/"))


def last_match(rules: Sequence[Rule], permission: str, pattern: str) -> Rule | None:
    """The last rule matching the request pattern, or None.

    An allow rule whose pattern does not name `.git` never matches a path inside `.git/`.
    """
    protected = inside_git(pattern)
    for rule in reversed(rules):
        if protected and rule.action == "allow" and ".git" not in rule.pattern.lower():
            continue
        if matches(rule.permission, permission) and matches(rule.pattern, pattern):
            return rule
    return None


def decide(
    rules: Sequence[Rule], permission: str, patterns: Iterable[str], default: Action = "ask"
) -> Action:
    """The action for a request: per pattern the last matching rule wins (else `default`).

    A request is denied if any of its patterns is denied, allowed only if all are allowed,
    and asked otherwise.
    """
    verdicts = {_action(last_match(rules, permission, p), default) for p in patterns} or {"ask"}
    if "deny" in verdicts:
        return "deny"
    return "allow" if verdicts == {"allow"} else "ask"


def _action(rule: Rule | None, default: Action) -> Action:
    return default if rule is None else rule.action


def parse_rules(value: object, where: str = "rules") -> tuple[Rule, ...]:
    """Rules from parsed JSON: a list of `{"permission", "pattern", "action"}` objects."""
    if not isinstance(value, list):
        raise RuleError(where, f"expected a list of rules, found {type(value).__name__}")
    rules = []
    for index, item in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(item, dict):
            raise RuleError(at, f"expected an object, found {type(item).__name__}")
        for key in item:
            if key not in _KEYS:
                raise RuleError(f"{at}.{key}", f"unknown key: {_did_you_mean(str(key), _KEYS)}")
        permission, pattern = item.get("permission"), item.get("pattern", "*")
        action = item.get("action")
        try:
            rules.append(Rule(permission, pattern, action))  # type: ignore[arg-type]
        except RuleError as error:
            raise RuleError(at + error.where.removeprefix("rule"), error.reason) from None
    return tuple(rules)


def load_rules(text: str, where: str = "rules") -> tuple[Rule, ...]:
    """Rules from JSON text (see `parse_rules`); malformed JSON is a `RuleError` too."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise RuleError(where, f"not JSON: {error}") from None
    return parse_rules(value, where)
