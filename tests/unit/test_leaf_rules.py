"""Permission rules: wildcard matching, last match wins, default ask, and reading rule files."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.leaves._rules import Rule, RuleError, decide, load_rules, matches, parse_rules
from toolfx.leaves.permissions import Permissions


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
        ([{"permission": "", "action": "allow"}], r"rules\[0\]\.permission: must be"),
        ([{"permission": "bash", "action": "maybe"}], r"rules\[0\]\.action: 'maybe' is not one"),
        (
            [{"permission": "bash", "action": "ask", "patern": "x"}],
            r"rules\[0\]\.patern: unknown key: .* did you mean 'pattern'\?",
        ),
        ([{"permission": "bash", "pattern": 3, "action": "ask"}], r"rules\[0\]\.pattern: must be"),
        (
            [{"permission": "bash", "action": "ask"}, {"permission": "raed", "action": "allow"}],
            r"rules\[1\]\.permission: 'raed' is not one of .*; did you mean 'read'\?",
        ),
        ([{"permission": "Edit", "action": "allow"}], r"did you mean 'edit'\?"),
        ([{"permission": "bash", "action": "alow"}], r"\.action: .*did you mean 'allow'\?"),
        ([{"permission": "net*", "action": "allow"}], r"\.permission: 'net\*' is not one of"),
    ]
    for value, message in cases:
        with pytest.raises(RuleError, match=message):
            parse_rules(value)


def test_rules_and_permissions_refuse_what_no_leaf_asks_for() -> None:
    with pytest.raises(RuleError, match=r"^rule\.permission: 'grpe' .*did you mean 'grep'\?"):
        Rule("grpe", "*", "allow")
    with pytest.raises(RuleError, match=r"^rule\.action: 'never' is not one of allow, ask, deny"):
        Rule("bash", "*", "never")  # type: ignore[arg-type]
    with pytest.raises(RuleError, match=r"^rules\[1\]: expected a Rule, found str"):
        Permissions([Rule("bash", "*", "allow"), "edit"])  # type: ignore[list-item]
    for wildcard in ("*", "e*", "external_*", "?ash"):
        assert Rule(wildcard, "*", "allow").permission == wildcard


@pytest.mark.parametrize(
    "path", [".git/config", "/w/.git/hooks/pre-commit", "sub/.git/HEAD", ".git"]
)
def test_an_allow_rule_reaches_into_git_only_when_it_names_git(path: str) -> None:
    assert decide([Rule("edit", "*", "allow")], "edit", [path]) == "ask"
    assert decide([Rule("edit", "*", "allow")], "edit", [path], default="allow") == "allow"
    assert decide([Rule("edit", "*.git*", "allow")], "edit", [path]) == "allow"
    assert decide([Rule("edit", "*", "deny")], "edit", [path]) == "deny"
    assert (
        decide([Rule("edit", "*", "allow")], "edit", [path.replace(".git", ".github")]) == "allow"
    )


@given(st.text(ALPHABET, max_size=8).filter(lambda p: "*" in p), st.integers(0, 3))
def test_matching_is_linear_on_long_texts(pattern: str, repeat: int) -> None:
    text = "a/" * 2000 * repeat + "b"
    assert matches(pattern, text) is reference_match_linear(pattern, text)


def reference_match_linear(pattern: str, text: str) -> bool:
    """A glob matcher by dynamic programming over pattern positions (no recursion)."""
    states = {0}
    for char in text:
        states = _closure(pattern, states)
        states = {i + 1 for i in states if i < len(pattern) and pattern[i] in (char, "?")} | {
            i for i in states if i < len(pattern) and pattern[i] == "*"
        }
    return len(pattern) in _closure(pattern, states)


def _closure(pattern: str, states: set[int]) -> set[int]:
    found = set(states)
    for i in sorted(states):
        j = i
        while j < len(pattern) and pattern[j] == "*":
            j += 1
            found.add(j)
    return found
