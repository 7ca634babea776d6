"""Permission rules: wildcard matching, last match wins, default ask, and reading rule files."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.leaves import Rule, RuleError, decide, load_rules, matches, parse_rules


@functools.cache
def reference_match(pattern: str, text: str) -> bool:
    """A plain recursive matcher: `*` any text, `?` one character, anything else itself."""
    if not pattern:
        return not text
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        return any(reference_match(rest, text[i:]) for i in range(len(text) + 1))
    if not text:
        return False
    return (head == "?" or head == text[0]) and reference_match(rest, text[1:])


ALPHABET = st.sampled_from(list("ab/.*?[]\\ "))


@given(st.text(ALPHABET, max_size=8), st.text(st.sampled_from(list("ab/.*?[] ")), max_size=10))
def test_matches_agrees_with_a_plain_recursive_matcher(pattern: str, text: str) -> None:
    assert matches(pattern, text) is reference_match(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("*", "", True),
        ("*", "src/a/b.py", True),
        ("src/*.py", "src/a/b.py", True),
        ("git ?tatus", "git status", True),
        ("git status", "git status --short", False),
        ("a[1]", "a[1]", True),
        ("a.b", "axb", False),
    ],
)
def test_wildcards(pattern: str, text: str, expected: bool) -> None:
    assert matches(pattern, text) is expected


ACTIONS = st.sampled_from(["allow", "deny", "ask"])
RULES = st.lists(
    st.builds(
        Rule, st.sampled_from(["edit", "bash", "*"]), st.sampled_from(["*", "a", "b*"]), ACTIONS
    ),
    max_size=6,
)


@given(
    RULES,
    st.sampled_from(["edit", "bash"]),
    st.lists(st.sampled_from(["a", "b", "bc"]), max_size=3),
)
def test_the_last_matching_rule_wins_for_each_pattern(
    rules: list[Rule], permission: str, patterns: list[str]
) -> None:
    def one(pattern: str) -> str:
        found = [
            r.action
            for r in rules
            if reference_match(r.permission, permission) and reference_match(r.pattern, pattern)
        ]
        return found[-1] if found else "ask"

    verdicts = {one(p) for p in patterns} or {"ask"}
    expected = "deny" if "deny" in verdicts else "allow" if verdicts == {"allow"} else "ask"
    assert decide(rules, permission, patterns) == expected


def test_deny_after_allow_denies_and_allow_after_deny_allows() -> None:
    allow_then_deny = [Rule("edit", "*", "allow"), Rule("edit", "secret.txt", "deny")]
    assert decide(allow_then_deny, "edit", ["secret.txt"]) == "deny"
    assert decide(allow_then_deny, "edit", ["notes.txt"]) == "allow"
    assert decide(list(reversed(allow_then_deny)), "edit", ["secret.txt"]) == "allow"


def test_the_default_is_ask() -> None:
    assert decide([], "bash", ["ls"]) == "ask"
    assert decide([Rule("edit", "*", "allow")], "bash", ["ls"]) == "ask"


def test_rule_files_are_read_with_clear_errors() -> None:
    text = '[{"permission": "bash", "pattern": "git *", "action": "allow"}, {"permission": "edit"'
    with pytest.raises(RuleError, match=r"^rules: not JSON"):
        load_rules(text)
    assert load_rules('[{"permission": "bash", "action": "deny"}]') == (Rule("bash", "*", "deny"),)
    cases = [
        ({"rules": []}, "rules: expected a list of rules, found dict"),
        ([3], r"rules\[0\]: expected an object, found int"),
        ([{"permission": "", "action": "allow"}], r"rules\[0\]: permission must be"),
        ([{"permission": "x", "action": "maybe"}], r"rules\[0\]: action must be one of"),
        ([{"permission": "x", "action": "ask", "when": 1}], r"rules\[0\]: unknown keys \['when'\]"),
        ([{"permission": "x", "pattern": 3, "action": "ask"}], r"rules\[0\]: pattern must be"),
    ]
    for value, message in cases:
        with pytest.raises(RuleError, match=message):
            parse_rules(value)
