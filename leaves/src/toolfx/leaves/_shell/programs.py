"""The programs a simple command actually runs: through wrappers, absolute paths and shells.

`env rm x`, `command rm x`, `/bin/rm x`, `sudo -u a rm x`, `xargs rm`, `bash -c 'rm x'` and
`find . -exec rm {} ;` all run `rm`; `find -delete` counts as `rm`, and the deletion
equivalents `unlink`, `shred` and `rmdir` also count as `rm` (that short table is all: deny
rules name programs, not effects). `git`'s global options are skipped (`git -C x push` runs
`git push`). A program that cannot be known is a `Program` without words: a name that is not a
literal, `eval`, `source`, a shell reading a script, a launcher whose options are not read here
(`chroot`, `strace`, `su -c`, ...), a builtin that evaluates a `$` in a quoted argument
(`printf -v 'a[$(rm x)]'`), and an assignment that chooses code (`BASH_ENV=`, `PAGER=`, a
value holding `$` or a backquote, which bash may evaluate later).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, final

from toolfx.leaves._shell.code import chooses_code, hidden_code
from toolfx.leaves._shell.syntax import SimpleCommand, parse_line
from toolfx.leaves._shell.words import Word

__all__ = ["DELETION_EQUIVALENTS", "Program", "programs"]

DELETION_EQUIVALENTS: Final = frozenset({"unlink", "shred", "rmdir"})
"""Programs that are also checked against the rules for `rm`."""

MAX_SHELL_DEPTH: Final = 4
"""How many `sh -c` levels are read inside one another; deeper ones are not known."""


@final
@dataclass(frozen=True, slots=True)
class Program:
    """A program run with its arguments (the name as a basename), or None and why not known."""

    words: tuple[str, ...] | None
    why: str = ""

    @property
    def text(self) -> str:
        """The words joined by single spaces (empty when unknown)."""
        return " ".join(self.words or ())


_CODE_RUNNERS: Final = {
    "eval": "eval runs its arguments as code",
    "source": "source runs a script",
    ".": ". runs a script",
    "trap": "trap runs its argument as code",
    "alias": "alias changes what later words run",
    "enable": "enable loads builtins",
    "fc": "fc runs history",
    "bind": "bind runs code on keys",
    "complete": "complete runs code",
    "let": "let evaluates arithmetic",
    "hash": "hash -p changes what a name runs",
}
_SHELLS: Final = frozenset(
    {"sh", "bash", "rbash", "zsh", "dash", "ash", "ksh", "mksh", "oksh", "pdksh", "yash", "posh"}
    | {"fish", "csh", "tcsh"}
)
_VERSIONED: Final = re.compile(r"[-.0-9]+$")
"""A version after a program's name (`bash5`, `python3.12`), dropped to recognise a shell."""
_PLAIN_WRAPPERS: Final = frozenset(
    {"nohup", "builtin", "setsid", "time", "coproc", "busybox", "toybox"}
)
_SHELL_VALUE_OPTIONS: Final = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_OPTIONS_WITH_VALUES: Final[dict[str, frozenset[str]]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-t"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"}),
    "xargs": frozenset(
        {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter"}
    ),
}
"""Wrappers that run the rest of their words, and which of their options take a value."""
_UNKNOWABLE_OPTIONS: Final = {
    "env": frozenset({"-S", "--split-string"}),
    "sudo": frozenset({"-s", "--shell", "-i", "--login"}),
}
"""Wrapper options that run a command that cannot be read (`env -S`, `sudo -s`, `sudo -i`)."""


def programs(command: SimpleCommand, depth: int = 0) -> tuple[Program, ...]:
    """Every program `command` runs, outermost first (none for a plain assignment alone)."""
    chosen = [text for text in command.assignments if chooses_code(text)]
    found = tuple(_programs(command.words, depth))
    if chosen:
        return (*found, Program(None, f"the assignment {chosen[0]} may choose what runs"))
    return found


def _programs(words: tuple[Word, ...], depth: int) -> Iterator[Program]:
    if not words:
        return
    name = words[0]
    if not name.literal:
        yield Program(None, f"the program {name.text} is not a literal")
        return
    program = posixpath.basename(name.text) if "/" in name.text else name.text
    args = words[1:]
    yield Program((program, *(word.text for word in args)))
    if program in DELETION_EQUIVALENTS:
        yield Program(("rm", *(word.text for word in args)))
    launched = hidden_code(program, tuple(word.text for word in args))
    if launched is not None:
        yield Program(None, launched)
    elif program in _CODE_RUNNERS:
        yield Program(None, _CODE_RUNNERS[program])
    elif program == "git":
        yield from _git(args)
    elif _VERSIONED.sub("", program) in _SHELLS:
        yield from _shell(args, depth)
    elif program == "find":
        yield from _find(args, depth)
    elif program in _PLAIN_WRAPPERS:
        yield from _programs(_after_options(args, frozenset()), depth)
    elif program in _OPTIONS_WITH_VALUES:
        yield from _wrapped(program, args, depth)


def _wrapped(program: str, args: tuple[Word, ...], depth: int) -> Iterator[Program]:
    names, rest = _options(args, _OPTIONS_WITH_VALUES[program])
    unknowable = _UNKNOWABLE_OPTIONS.get(program, frozenset())
    if names & unknowable:
        yield Program(None, f"{program} runs a command that cannot be read")
        return
    if program in ("env", "sudo"):
        assigned = _skip(rest, lambda word: "=" in word.text and not word.text.startswith("="))
        given = rest[: len(rest) - len(assigned)]
        if chosen := [word.text for word in given if chooses_code(word.text)]:
            yield Program(None, f"the assignment {chosen[0]} may choose what runs")
        rest = assigned
    elif program == "timeout":
        rest = rest[1:]  # the duration
    if rest:
        yield from _programs(rest, depth)
    elif program == "exec":
        yield Program(None, "exec without a command changes where later commands write")
    elif program == "xargs":
        yield Program(("echo",))
    elif program == "sudo":
        yield Program(None, "sudo without a command")


def _skip(words: tuple[Word, ...], skipped: Callable[[Word], bool]) -> tuple[Word, ...]:
    index = 0
    while index < len(words) and words[index].literal and skipped(words[index]):
        index += 1
    return words[index:]


def _after_options(args: tuple[Word, ...], with_values: frozenset[str]) -> tuple[Word, ...]:
    """The words after the leading options (and their values); `--` ends the options."""
    return _options(args, with_values)[1]


def _options(
    args: tuple[Word, ...], with_values: frozenset[str]
) -> tuple[frozenset[str], tuple[Word, ...]]:
    """The leading options' names and the words after them and their values.

    A short cluster `-iu NAME` is read letter by letter: a letter taking a value takes the
    rest of the word (`-S'rm x'`) or, at its end, the next word. `--` ends the options.
    """
    names: set[str] = set()
    index = 0
    while index < len(args):
        word = args[index]
        if not word.literal or not word.text.startswith("-") or word.text == "-":
            break
        index += 1
        if word.text == "--":
            break
        if word.text.startswith("--"):
            name = word.text.split("=", 1)[0]
            names.add(name)
            index += name in with_values and "=" not in word.text
            continue
        for at, letter in enumerate(word.text[1:], start=2):
            names.add(f"-{letter}")
            if f"-{letter}" in with_values:
                index += at == len(word.text)  # the value is the next word
                break
    return frozenset(names), args[index:]


def _shell(args: tuple[Word, ...], depth: int) -> Iterator[Program]:
    for index, word in enumerate(args):
        if not word.literal or word.text in _SHELL_VALUE_OPTIONS:
            break
        if word.text.startswith("-") and not word.text.startswith("--") and "c" in word.text:
            after = args[index + 1 :]
            if after and after[0].literal and after[0].text == "--":
                after = after[1:]
            script = after[0] if after else None
            if script is not None and script.literal and script.text.startswith(("-", "+")):
                break  # more options after -c: which word is the script is not read here
            yield from _script(script, depth)
            return
        if not word.text.startswith(("-", "+")):
            break
    yield Program(None, "the shell runs a script that cannot be read")


_GIT_VALUE_OPTIONS: Final = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})
_GIT_CODE_OPTIONS: Final = frozenset(
    {"-c", "--config-env", "--exec-path", "--super-prefix", "--list-cmds"}
)
"""Global options that can make git run configured commands (an alias, a pager, a hook path)."""


def _git(args: tuple[Word, ...]) -> Iterator[Program]:
    """`git` with its global options skipped: the subcommand and its arguments."""
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        word = args[index]
        name = word.text.split("=", 1)[0]
        if not word.literal or name in _GIT_CODE_OPTIONS:
            yield Program(None, f"git {word.text} may run a configured command")
            return
        index += 1 + (word.text in _GIT_VALUE_OPTIONS)
    if index:
        yield Program(("git", *(word.text for word in args[index:])))


def _script(script: Word | None, depth: int) -> Iterator[Program]:
    if script is None or not script.literal or depth >= MAX_SHELL_DEPTH:
        yield Program(None, "the shell's -c script cannot be read")
        return
    line = parse_line(script.text)
    if line.unclear:
        yield Program(None, f"the shell's -c script: {line.unclear[0]}")
    for inner in line.commands:
        yield from programs(inner, depth + 1)


def _find(args: tuple[Word, ...], depth: int) -> Iterator[Program]:
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word.text == "-delete":
            yield Program(("rm",))
        elif word.text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            yield from _programs(args[index:end], depth)
            index = end + 1
