"""A bash command line as its simple commands, read with tree-sitter-bash: words, assignments
and redirections, each word literal or not, and what in the line could not be understood.

The work is bounded before parsing: a line longer than `MAX_COMMAND_BYTES` or nesting brackets
deeper than `MAX_NESTING` is refused with `CommandTooComplex`, and so are more than
`MAX_STRAY_CLOSERS` unmatched closing brackets and the deprecated `$[` arithmetic: on such
broken input the grammar's error recovery is quadratic. The walk over the tree keeps
its own stack, so a long `a && b && ...` chain costs no recursion.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final, final

import tree_sitter
import tree_sitter_bash

from toolfx.leaves._shell.words import Word, word_of

__all__ = [
    "MAX_COMMAND_BYTES",
    "MAX_NESTING",
    "MAX_STRAY_CLOSERS",
    "CommandTooComplex",
    "Redirection",
    "ShellLine",
    "SimpleCommand",
    "parse_line",
]

MAX_COMMAND_BYTES: Final = 4 * 1024
"""The longest command line read, in UTF-8 bytes."""

MAX_NESTING: Final = 64
"""The deepest nesting of brackets, substitutions and compound commands read."""

MAX_STRAY_CLOSERS: Final = 16
"""The most closing brackets without an opening one (a `case` pattern has one each)."""


class CommandTooComplex(ValueError):
    """A command line past the bounds: too long or nested too deeply to read."""

    __module__ = "toolfx.leaves"


@final
@dataclass(frozen=True, slots=True)
class Redirection:
    """One redirection: its operator, the file descriptor named before it, and its target."""

    operator: str
    fd: str | None
    target: Word | None
    """The file or descriptor; None for a here-document."""


@final
@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command: its words (the name first), env-prefix assignments, redirections."""

    words: tuple[Word, ...]
    assignments: tuple[str, ...]
    redirections: tuple[Redirection, ...]
    source: str
    """The command as written, redirections included."""

    @property
    def literal(self) -> bool:
        """Whether every word is a plain literal (nothing for the shell to expand)."""
        return all(word.literal for word in self.words)

    @property
    def text(self) -> str:
        """The words joined by single spaces: what rule patterns are matched against."""
        return " ".join(word.text for word in self.words)


@final
@dataclass(frozen=True, slots=True)
class ShellLine:
    """A line's simple commands (those inside substitutions too) and what was not understood."""

    commands: tuple[SimpleCommand, ...]
    unclear: tuple[str, ...]
    """Why the line, or a part of it, cannot be understood; empty when all of it was."""


_OPENERS: Final = frozenset("([{")
_CLOSERS: Final = frozenset(")]}")
_JOINED_WORDS: Final = re.compile(r"\S(?:\\\n)+\S")
_SPLIT_DIFFERENTLY: Final = re.compile("[\r\v\f]")
"""Characters tree-sitter-bash reads as blanks between words where bash reads word characters."""
_SUBSTITUTIONS: Final = frozenset({"command_substitution", "process_substitution"})
_CONTAINERS: Final = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "do_group",
        "negated_command",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "case_statement",
        "case_item",
        "function_definition",
    }
)
_FLAT: Final = frozenset({"program", "list", "pipeline"})
_OPAQUE: Final = frozenset({"test_command", "c_style_for_statement", "arithmetic_expansion"})
"""Constructs that evaluate arithmetic, where an array subscript can run a command."""
_IGNORED: Final = frozenset({"comment", "variable_name"})


def bound(command: str) -> None:
    """Refuse, before any parsing, a line past `MAX_COMMAND_BYTES` or `MAX_NESTING`."""
    size = len(command.encode("utf-8", "surrogatepass"))
    if size > MAX_COMMAND_BYTES:
        raise CommandTooComplex(
            f"the command is {size:,} bytes long; at most {MAX_COMMAND_BYTES:,} are read "
            "(write a long script to a file and run that)"
        )
    depth = deepest = stray = 0
    for char in command:
        if char in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSERS:
            stray += depth == 0
            depth = max(0, depth - 1)
    if stray > MAX_STRAY_CLOSERS:
        raise CommandTooComplex(
            f"the command has {stray} closing brackets without an opening one; "
            f"at most {MAX_STRAY_CLOSERS} are read"
        )
    if deepest > MAX_NESTING:
        raise CommandTooComplex(
            f"the command nests brackets {deepest} deep; at most {MAX_NESTING} are read"
        )
    if "$[" in command and _dollar_bracket_outside_single_quotes(command):
        raise CommandTooComplex("the command uses `$[...]` arithmetic; write `$((...))` instead")


def _dollar_bracket_outside_single_quotes(command: str) -> bool:
    """Whether `$[` stands where bash would read it (not inside '...'): one linear pass."""
    quoted = double = escaped = False
    for index, char in enumerate(command):
        if escaped:
            escaped = False
        elif quoted:
            quoted = char != "'"
        elif char == "\\":
            escaped = True
        elif char == '"':
            double = not double
        elif char == "'" and not double:
            quoted = True
        elif char == "$" and command.startswith("[", index + 1):
            return True
    return False


@functools.cache
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_bash.language())


def parse_line(command: str) -> ShellLine:
    """The simple commands of `command`; raises `CommandTooComplex` past the bounds."""
    bound(command)
    source = command.encode("utf-8", "surrogatepass")
    tree = tree_sitter.Parser(_language()).parse(source)
    walk = _Walk()
    if tree.root_node.has_error:
        walk.unclear.append("the line does not parse as bash")
    if _JOINED_WORDS.search(command):
        walk.unclear.append("a backslash-newline joins two words")
    if _SPLIT_DIFFERENTLY.search(command):
        walk.unclear.append("a carriage return, vertical tab or form feed is not a blank to bash")
    walk.run(tree.root_node)
    return ShellLine(tuple(walk.commands), tuple(dict.fromkeys(walk.unclear)))


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


@final
class _Walk:
    """Collects the simple commands of a tree, with an explicit stack of (node, redirs, depth)."""

    __slots__ = ("commands", "stack", "unclear")

    def __init__(self) -> None:
        self.commands: list[SimpleCommand] = []
        self.unclear: list[str] = []
        self.stack: list[tuple[tree_sitter.Node, tuple[Redirection, ...], int]] = []

    def run(self, root: tree_sitter.Node) -> None:
        self.stack.append((root, (), 0))
        while self.stack:
            node, redirections, depth = self.stack.pop()
            if depth > MAX_NESTING:
                raise CommandTooComplex(f"the command nests more than {MAX_NESTING} deep")
            self._statement(node, redirections, depth)

    def _push(
        self, node: tree_sitter.Node, redirections: tuple[Redirection, ...], depth: int
    ) -> None:
        self.stack.append((node, redirections, depth))

    def _statement(
        self, node: tree_sitter.Node, redirections: tuple[Redirection, ...], depth: int
    ) -> None:
        kind = node.type
        if kind in _CONTAINERS:
            inner = depth if kind in _FLAT else depth + 1
            for child in reversed(node.named_children):
                if _is_statement(child):
                    self._push(child, redirections, inner)
                elif child.type not in _IGNORED:
                    self.substitutions(child, depth)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects = node.children_by_field_name("redirect")
            added = (*redirections, *(self._redirection(r, depth) for r in redirects))
            if body is None:
                self._command((), (), added, _text(node))
            elif body.type == "command":
                self._simple(body, added, depth, _text(node))
            else:
                self._push(body, added, depth)
        elif kind == "command":
            self._simple(node, redirections, depth, _text(node))
        elif kind in ("variable_assignment", "variable_assignments"):
            assignments = [node] if kind == "variable_assignment" else node.named_children
            for assignment in assignments:
                self.substitutions(assignment, depth)
            self._command((), tuple(_text(a) for a in assignments), redirections, _text(node))
        elif kind in ("declaration_command", "unset_command"):
            keyword = _text(node.children[0])
            words = [Word(keyword, True)]
            for child in node.named_children:
                self.substitutions(child, depth)
                words.append(_assignment_word(child))
            self._command(tuple(words), (), redirections, _text(node))
        elif kind in _OPAQUE:
            for child in node.children:
                self.substitutions(child, depth)
            self._command((Word(_text(node), False),), (), redirections, _text(node))
        elif kind != "comment":
            self.unclear.append(f"`{kind}` is not understood")
            self.substitutions(node, depth)

    def _simple(
        self,
        node: tree_sitter.Node,
        inherited: tuple[Redirection, ...],
        depth: int,
        source: str,
    ) -> None:
        words: list[Word] = []
        assignments: list[str] = []
        redirections = list(inherited)
        for index, child in enumerate(node.children):
            field = node.field_name_for_child(index)
            if child.type == "variable_assignment":
                self.substitutions(child, depth)
                assignments.append(_text(child))
            elif field == "redirect":
                redirections.append(self._redirection(child, depth))
            elif field in ("name", "argument"):
                self.substitutions(child, depth)
                target = child.named_children[0] if child.type == "command_name" else child
                words.append(word_of(target) if target.is_named else Word(_text(target), False))
        self._command(tuple(words), tuple(assignments), tuple(redirections), source)

    def _redirection(self, node: tree_sitter.Node, depth: int) -> Redirection:
        self.substitutions(node, depth)
        fd_node = node.child_by_field_name("descriptor")
        fd = None if fd_node is None else _text(fd_node)
        operator = next((_text(c) for c in node.children if not c.is_named), "")
        if node.type == "heredoc_redirect":
            return Redirection(operator, fd, None)
        targets = node.children_by_field_name("destination")
        if node.type == "herestring_redirect":
            targets = [child for child in node.named_children if child is not fd_node]
        if len(targets) != 1:
            self.unclear.append(f"the redirection `{_text(node)}` is not understood")
            return Redirection(operator, fd, Word(_text(node), False))
        return Redirection(operator, fd, word_of(targets[0]))

    def _command(
        self,
        words: tuple[Word, ...],
        assignments: tuple[str, ...],
        redirections: tuple[Redirection, ...],
        source: str,
    ) -> None:
        self.commands.append(SimpleCommand(words, assignments, redirections, source))

    def substitutions(self, node: tree_sitter.Node, depth: int) -> None:
        """Queue the statements of every substitution inside `node` (a word, a value...)."""
        pending = [node]
        while pending:
            current = pending.pop()
            if current.type in _SUBSTITUTIONS:
                for child in current.named_children:
                    self._push(child, (), depth + 1)
            elif current.type in _OPAQUE:
                self._push(current, (), depth + 1)
            else:
                pending.extend(current.children)


def _is_statement(node: tree_sitter.Node) -> bool:
    kind = node.type
    return kind in _CONTAINERS or kind in _OPAQUE or kind in _STATEMENTS


_STATEMENTS: Final = frozenset(
    {
        "redirected_statement",
        "command",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
    }
)


def _assignment_word(node: tree_sitter.Node) -> Word:
    if node.type != "variable_assignment":
        return word_of(node)
    value = node.child_by_field_name("value")
    name = _text(node.children[0])
    if value is None:
        return Word(f"{name}=", True)
    decoded = word_of(value)
    return (
        Word(f"{name}={decoded.text}", decoded.literal)
        if decoded.literal
        else Word(_text(node), False)
    )
