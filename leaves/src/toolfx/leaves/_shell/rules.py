"""The rules applied to a bash line: what an allow rule covers, what a deny rule catches.

An allow rule covers a simple command only when the command is contained: every word a
literal, no env-prefix assignment, and every redirection a descriptor copy, `/dev/null` or a
literal relative path that stays in the workspace and out of `.git/` (with no `cd` in the
line); the rule's pattern is matched against the words joined by single spaces. A rule `*`
covers any command. Deny rules are matched against the command as written and against every
program it runs (see `programs`). A line is allowed only if all its commands are,
denied if any is, and otherwise asked; a line that is not wholly understood is never allowed,
and a command whose program cannot be known is asked for whenever a bash deny rule exists.
"""

from __future__ import annotations

import itertools
import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, final

from toolfx.leaves._rules import Action, Rule, inside_git, last_match, matches
from toolfx.leaves._shell.programs import Program, programs
from toolfx.leaves._shell.syntax import Redirection, ShellLine, SimpleCommand

__all__ = ["BASH", "CommandReview", "redirect_paths", "review_line"]

BASH: Final = "bash"
"""The permission a command line asks for."""

_MOVES: Final = frozenset({"cd", "pushd", "popd"})
_DUPLICATIONS: Final = frozenset({">&", "<&", ">&-", "<&-"})


@final
@dataclass(frozen=True, slots=True)
class CommandReview:
    """The rules' verdict on a line, the patterns an ask shows, and what `always` remembers."""

    action: Action
    patterns: tuple[str, ...]
    always: tuple[str, ...]
    """Exactly the allow rules an `always` answer adds; empty when the line is not understood."""


def review_line(
    line: ShellLine,
    rules: Sequence[Rule],
    *,
    cwd: str | None,
    outside: frozenset[str] = frozenset(),
    default: Action = "ask",
) -> CommandReview:
    """Review `line` run in `cwd` (relative to the workspace; None when outside it).

    `outside` holds redirection paths (as `redirect_paths` gives them) found to resolve
    outside the workspace, through symlinks.
    """
    moves = any(_moves(command) for command in line.commands)
    where = None if moves else cwd
    verdicts = [
        _verdict(command, rules, _contained(command, where, outside), default)
        for command in line.commands
    ]
    if line.unclear:
        verdicts.append("ask")
    action: Action = (
        "deny" if "deny" in verdicts else "allow" if set(verdicts) == {"allow"} else "ask"
    )
    patterns = tuple(dict.fromkeys(command.source for command in line.commands))
    always = () if line.unclear else _remembered(line, where, outside)
    return CommandReview(action, patterns or (*line.unclear,), always)


def redirect_paths(line: ShellLine, cwd: str | None) -> tuple[str, ...]:
    """The literal relative redirection paths, joined to `cwd`: to check through symlinks."""
    if cwd is None:
        return ()
    found = (
        _joined(cwd, redirection)
        for command in line.commands
        for redirection in command.redirections
    )
    return tuple(dict.fromkeys(path for path in found if path is not None))


def _joined(cwd: str, redirection: Redirection) -> str | None:
    target = redirection.target
    if target is None or not target.literal or redirection.operator in _DUPLICATIONS:
        return None
    if target.text == "/dev/null" or target.text.startswith(("/", "~")):
        return None
    return posixpath.normpath(posixpath.join(cwd, target.text))


def _moves(command: SimpleCommand) -> bool:
    return any(program.words is None or program.words[0] in _MOVES for program in programs(command))


def _contained(command: SimpleCommand, cwd: str | None, outside: frozenset[str]) -> bool:
    """Whether nothing in `command` goes beyond its literal words: no assignment, no argument
    naming a path in `.git/` (`cp x .git/hooks/pre-commit`), every redirection safe."""
    if not command.words or not command.literal or command.assignments:
        return False
    if any(inside_git(word.text) for word in command.words[1:]):
        return False
    return all(_safe(redirection, cwd, outside) for redirection in command.redirections)


def _safe(redirection: Redirection, cwd: str | None, outside: frozenset[str]) -> bool:
    target = redirection.target
    if target is None or not target.literal:
        return False
    if redirection.operator in _DUPLICATIONS and (target.text.isdigit() or target.text == "-"):
        return True
    if target.text == "/dev/null":
        return True
    if redirection.operator in ("<<<", "<<", "<<-") or cwd is None:
        return False
    path = _joined(cwd, redirection)
    if path is None or path == ".." or path.startswith("../") or path in outside:
        return False
    return not inside_git(path)


def _writes_git(command: SimpleCommand) -> bool:
    return any(
        redirection.target is not None and inside_git(redirection.target.text.replace("\\", "/"))
        for redirection in command.redirections
    )


def _verdict(
    command: SimpleCommand, rules: Sequence[Rule], contained: bool, default: Action
) -> Action:
    run = programs(command)
    texts = [command.text, *(program.text for program in run if program.words is not None)]
    matched = [last_match(rules, BASH, text) for text in texts]
    if any(rule is not None and rule.action == "deny" for rule in matched):
        return "deny"
    unknown = any(program.words is None for program in run)
    if (unknown and _has_deny(rules)) or _may_hide_a_denial(rules, command, run):
        return "ask"
    if _writes_git(command):
        return "ask"
    actions = {_allowed(rule, contained and not unknown, default) for rule in matched}
    return "allow" if actions == {"allow"} else "ask"


def _may_hide_a_denial(
    rules: Sequence[Rule], command: SimpleCommand, run: Sequence[Program]
) -> bool:
    """Whether a word the shell expands could still turn the command into a denied one:
    `git $'push'` under `deny git push*` (its literal head `git` starts the rule's fixed part)."""
    opaque = {word.text for word in command.words if not word.literal}
    if not opaque:
        return False
    runs = [[word.text for word in command.words]]
    runs += [list(program.words) for program in run if program.words is not None]
    heads = [
        " ".join(itertools.takewhile(lambda word: word not in opaque, words)) for words in runs
    ]
    fixed = [
        re.split(r"[*?]", rule.pattern, maxsplit=1)[0]
        for rule in rules
        if rule.action == "deny" and matches(rule.permission, BASH)
    ]
    return any(head.startswith(part) or part.startswith(head) for head in heads for part in fixed)


def _allowed(rule: Rule | None, contained: bool, default: Action) -> Action:
    if rule is None:
        return default
    if rule.action == "allow" and not contained and rule.pattern != "*":
        return "ask"
    return rule.action


def _has_deny(rules: Sequence[Rule]) -> bool:
    return any(rule.action == "deny" and matches(rule.permission, BASH) for rule in rules)


def _remembered(line: ShellLine, cwd: str | None, outside: frozenset[str]) -> tuple[str, ...]:
    """Each contained command's words exactly; a word with `*` or `?` would widen the rule."""
    return tuple(dict.fromkeys(_rememberable(line, cwd, outside)))


def _rememberable(line: ShellLine, cwd: str | None, outside: frozenset[str]) -> Iterator[str]:
    for command in line.commands:
        known = all(program.words is not None for program in programs(command))
        text = command.text
        if known and _contained(command, cwd, outside) and not set(text) & {"*", "?"}:
            yield text
