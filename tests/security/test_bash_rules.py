"""Bash rules under a hostile model: no bypass of an allow rule's containment or a deny rule.

Every line here is reviewed as the bash leaf reviews it (parse, then the rules); "not allowed"
means the leaf would ask or deny, never run it unasked. A differential property checks the
literal words read against what real bash passes to a command.
"""

from __future__ import annotations

import contextlib
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.security.figures import Figures, within_budget
from tests.support import SAFETY_NET
from toolfx.leaves._rules import Action, Rule
from toolfx.leaves._shell.rules import review_line
from toolfx.leaves._shell.syntax import CommandTooComplex, parse_line

ONLY_GIT_STATUS = (Rule("bash", "git status*", "allow"),)
ALLOW_ALL_DENY_RM = (Rule("bash", "*", "allow"), Rule("bash", "rm*", "deny"))


def verdict(rules: tuple[Rule, ...], command: str, default: Action = "ask") -> Action:
    """The action the bash leaf takes for `command` run at the workspace root."""
    return review_line(parse_line(command), rules, cwd=".", default=default).action


ALLOW_BYPASSES = [
    # redirections outside the workspace or into .git
    "git status > /etc/x",
    "git status 3> /tmp/x",
    "git status >> ../x",
    "git status &> ~/x",
    "git status >| /tmp/x",
    "git status > .git/config",
    "git status 2> sub/../.git/hooks/pre-commit",
    "git status > $HOME/x",
    'git status > "$(rm x)"',
    "cd /etc && git status > passwd",
    "cd .. ; git status > x",
    # environment prefixes and assignments
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=x git status",
    "PATH=. git status",
    "PATH=/tmp/evil; git status",
    "export GIT_DIR=/tmp; git status",
    # quoting that shlex and bash read differently
    "git status $'\\x3b rm x'",
    'git status $"x"',
    "git status `rm x`",
    'git status "`rm x`"',
    "git status '`'`rm x`'`'",
    "git status #x\nrm y",
    "git status\\\n;rm x",
    "git st\\\natus; rm x",
    # blanks to tree-sitter, word characters to bash: a `#` after them starts no comment
    "git status\r# ; rm x",
    "git status \v# ; rm x",
    "git status\f#`rm x`",
    # expansions
    "git status ${x@P}",
    "git status $x",
    "git status ${x:-$(rm y)}",
    "git status $((a[$(rm x)]))",
    "git status ~",
    "git status *",
    "git status {a,b}",
    "git status ?",
    # config-driven execution and more commands
    "git -c core.fsmonitor='rm x' status",
    "git --exec-path=. status",
    "git status\nrm x",
    "git status; rm x",
    "git status && rm x",
    "git status || rm x",
    "git status | sh",
    "git status & rm x",
    'git status "$(rm x)"',
    "git status <<< $(rm x)",
    "git status <<EOF\n$(rm x)\nEOF",
    "git status <(rm x)",
    "git status >(rm x)",
    "(git status; rm x)",
    "{ git status; rm x; }",
    "if git status; then rm x; fi",
    "for f in a; do rm $f; done; git status",
    "git() { rm x; }; git status",
    "eval git status",
    "exec git status > /tmp/x",
    "exec > /tmp/x; git status",
    "bash -c 'git status'",
    "git status $[1]",
    "git status (",
    "[[ a[$(rm x)] -eq 1 ]] && git status",
]


@pytest.mark.parametrize("command", ALLOW_BYPASSES)
def test_only_git_status_allowed_allows_no_bypass(command: str, figures: Figures) -> None:
    allowed = False
    with contextlib.suppress(CommandTooComplex):  # refused before any check: never run
        allowed = verdict(ONLY_GIT_STATUS, command) == "allow"
    figures.bypass("decision, allow git status*: every family", 1, allowed)
    assert not allowed


DENY_BYPASSES = [
    "rm x",
    "/bin/rm x",
    "/usr/bin/../bin/rm x",
    "command rm x",
    "command -p rm x",
    "builtin command rm x",
    "env rm x",
    "env -i PATH=/bin A=1 rm x",
    "env -u HOME rm x",
    "env -- rm x",
    "env -S 'rm x'",
    "exec rm x",
    "exec -a name rm x",
    "nice rm x",
    "nice -n 5 rm x",
    "nohup rm x",
    "timeout 5 rm x",
    "timeout -s KILL 5 rm x",
    "stdbuf -o0 rm x",
    "time rm x",
    "sudo rm x",
    "sudo -u root rm x",
    "sudo -s",
    "xargs rm",
    "echo x | xargs -n 1 rm",
    "find . -delete",
    "find . -name x -exec rm {} \\;",
    "find . -execdir rm {} +",
    "find . -ok rm {} \\;",
    "bash -c 'rm x'",
    'sh -c "rm x"',
    "zsh -c 'rm x'",
    "bash -lc 'rm x'",
    "bash -c 'bash -c \"rm x\"'",
    'bash -c "$cmd"',
    "bash script.sh",
    "echo rm x | bash",
    "unlink x",
    "shred -u x",
    "rmdir d",
    "$(echo rm) x",
    "`echo rm` x",
    "x=rm; $x y",
    "${x:-rm} y",
    "{r,}m x",
    "\\rm x",
    "'rm' x",
    '"rm" x',
    "r''m x",
    "r\\m x",
    "eval rm x",
    "eval 'r''m x'",
    "source ./rm.sh",
    ". ./rm.sh",
    "trap 'rm x' EXIT",
    "alias x=rm",
    "f() { rm x; }; f",
    "true && (rm x)",
    "echo $(rm x)",
    "cat <(rm x)",
    "ls; rm x",
    "r?m x",
    "/bin/r* x",
    # option clusters and shells' options
    "env -S'rm x'",
    "env -iS'rm x'",
    "env -iu HOME rm x",
    "xargs -0n 1 rm",
    "timeout -sKILL 5 rm x",
    "bash -c -- 'rm x'",
    "sh -c -e 'rm x'",
    "bash -c -o errexit 'rm x'",
    "bash5 -c 'rm x'",
    "ash -c 'rm x'",
    "fish -c 'rm x'",
    "busybox rm x",
    "busybox sh -c 'rm x'",
    "coproc rm x",
    # launchers whose options are not read
    "chroot / rm x",
    "flock f rm x",
    "strace rm x",
    "su -c 'rm x'",
    "script -c 'rm x'",
    "watch rm x",
    "ssh host rm x",
    "unshare rm x",
    # builtins that evaluate a quoted `$(...)` in a variable name
    "printf -v 'a[$(rm x)]' 1",
    "read 'a[$(rm x)]' <<< x",
    "unset 'a[$(rm x)]'",
    "declare 'a[$(rm x)]=1'",
    "test -v 'a[$(rm x)]'",
    "[ -v 'a[$(rm x)]' ]",
    "declare -i n; n='a[$(rm x)]'",
    "PS4='$(rm x)'; set -x; true",
    "hash -p /bin/rm ls; ls x",
    # assignments that choose code
    "BASH_ENV=./e bash -c true",
    "env BASH_ENV=./e bash -c true",
    "export BASH_ENV=./e; bash -c true",
    "PATH=./bin:/bin ls",
    "GIT_PAGER='rm x' git -p log",
    "LD_PRELOAD=./x.so ls",
]

GIT_PUSH_DENIED = (Rule("bash", "*", "allow"), Rule("bash", "git push*", "deny"))


@pytest.mark.parametrize(
    "command",
    [
        "git push",
        "git -C sub push",
        "git --git-dir=.git push",
        "git --git-dir .git --work-tree . push",
        "git --no-pager push",
        "git -p push",
        "git -c alias.x='!git push' x",
        "git --exec-path=. push",
    ],
)
def test_git_global_options_do_not_hide_a_denied_subcommand(command: str, figures: Figures) -> None:
    allowed = verdict(GIT_PUSH_DENIED, command) == "allow"
    figures.bypass("decision, deny git push*: git options", 1, allowed)
    assert not allowed


@pytest.mark.parametrize(
    "command", ["git -C sub status", "CFLAGS=-O2 make", "printf '%s' x", "env -i ls", "bash -c ls"]
)
def test_plain_commands_stay_allowed_beside_a_deny_rule(command: str) -> None:
    assert verdict(GIT_PUSH_DENIED, command) == "allow"


@pytest.mark.parametrize("command", DENY_BYPASSES)
def test_allow_all_with_deny_rm_never_allows_a_removal(command: str, figures: Figures) -> None:
    allowed = verdict(ALLOW_ALL_DENY_RM, command) == "allow"
    figures.bypass("decision, deny rm*: every family", 1, allowed)
    assert not allowed


@pytest.mark.parametrize("command", ["ls -la", "git status", "echo $HOME > out.txt", "make all"])
def test_allow_all_with_deny_rm_still_allows_the_rest(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) == "allow"


@pytest.mark.parametrize(
    "command", ["rm x", "/bin/rm x", "env rm x", "xargs rm", "find . -delete", "bash -c 'rm x'"]
)
def test_a_program_that_can_be_known_is_denied_not_asked(command: str) -> None:
    assert verdict(ALLOW_ALL_DENY_RM, command) == "deny"


@pytest.mark.parametrize("command", ["git status > .git/config", "echo x >> .git/hooks/post"])
def test_writes_into_git_ask_even_when_the_default_allows(command: str) -> None:
    assert verdict((), command, default="allow") == "ask"


LITERAL_ARGUMENT = st.text(
    st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="*?"), min_size=1
).filter(lambda word: not word.startswith("#"))


def quoted(word: str) -> str:
    """`word` in single quotes, as bash reads it back literally."""
    return "'" + word.replace("'", "'\\''") + "'"


@given(st.lists(LITERAL_ARGUMENT, max_size=5), st.sampled_from(["", " > out.txt", " 2>&1"]))
def test_git_status_with_any_literal_arguments_is_allowed(
    arguments: list[str], redirection: str
) -> None:
    command = " ".join(["git", "status", *map(quoted, arguments)]) + redirection
    review = review_line(parse_line(command), ONLY_GIT_STATUS, cwd=".")
    assert review.action == "allow"
    assert review.always == (" ".join(["git", "status", *arguments]),)


SHELLISH = st.text(st.sampled_from(list("ab '\"\\$`#;|&<>(){}*?~=\n\r\v\f-/x")), max_size=24)


@settings(max_examples=150, deadline=None)
@given(tail=SHELLISH)
def test_literal_words_are_what_bash_passes(
    tail: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Where the analysis calls a one-command line all literal, bash passes exactly those words."""
    command = f"zzprobe {tail}"
    try:
        line = parse_line(command)
    except CommandTooComplex:
        return
    if line.unclear or len(line.commands) != 1:
        return
    (only,) = line.commands
    if not only.literal or only.assignments or only.redirections:
        return
    folder = tmp_path_factory.mktemp("probe")
    script = 'command_not_found_handle() { printf "%s\\0" "$@"; }\nPATH=/nonexistent\n'
    ran = subprocess.run(
        ["/bin/bash", "-c", script + command],
        cwd=folder,
        capture_output=True,
        timeout=SAFETY_NET,  # only against a hang
        env={"HOME": str(folder)},
        check=False,
    )
    if not ran.stdout and b"syntax error" in ran.stderr:
        return  # bash refuses what tree-sitter forgives (`zzprobe ;;`): nothing runs at all
    assert ran.stdout.split(b"\0")[:-1] == [w.text.encode() for w in only.words]


PATHOLOGICAL = [
    "$(" * 4000,
    "$(" * 60 + "x",
    "${" * 2000,
    "$[]" * 1300,
    ")|" * 2000,
    "x|" * 2000,
    "()" * 2000,
    "a && " * 800 + "a",
    "`" * 4000,
    "'" * 4000,
    "if a; then " * 300,
    "x " * 2040,
]


@pytest.mark.parametrize("command", PATHOLOGICAL, ids=lambda c: repr(c[:6]))
def test_pathological_lines_are_refused_or_read_in_bounded_cpu(command: str) -> None:
    def parse() -> None:
        with contextlib.suppress(CommandTooComplex):
            parse_line(command)

    within_budget(f"bash line {command[:4]!r}...", parse)


def test_long_lines_are_refused_before_parsing() -> None:
    with pytest.raises(CommandTooComplex, match=r"4,096 are read"):
        parse_line("echo " + "a" * 5000)
    with pytest.raises(CommandTooComplex, match=r"nests brackets 65 deep"):
        parse_line("echo " + "$(" * 65)


def test_dollar_bracket_arithmetic_is_refused_only_where_bash_reads_it() -> None:
    with pytest.raises(CommandTooComplex, match=r"\$\[\.\.\.\]"):
        parse_line("echo $[1+1]")
    with pytest.raises(CommandTooComplex, match=r"\$\[\.\.\.\]"):
        parse_line('echo "$[1+1]"')
    assert parse_line("echo '$[1+1]'").commands[0].literal
    assert parse_line("echo '$[' \\$[").commands  # quoted and escaped: plain text


ALLOW_COPY = (Rule("bash", "cp *", "allow"), Rule("bash", "mv *", "allow"))


@pytest.mark.parametrize(
    "command",
    [
        "cp hook.sh .git/hooks/pre-commit",
        "cp hook.sh .GIT/hooks/pre-commit",
        "mv cfg sub/.git/config",
        "cp -t .git/hooks hook.sh",
    ],
)
def test_an_allow_rule_does_not_cover_an_argument_inside_git(command: str) -> None:
    assert verdict(ALLOW_COPY, command) == "ask"
    assert verdict(ALLOW_COPY, command.replace(".git", "src").replace(".GIT", "src")) == "allow"


def test_git_protection_ignores_case() -> None:
    assert verdict((), "git status > .GIT/config", default="allow") == "ask"


DENY_PUSH = (Rule("bash", "*", "allow"), Rule("bash", "git push*", "deny"))


@pytest.mark.parametrize(
    "command",
    ["git $'push' origin", 'git "$(echo push)"', "sudo git ${x:-push}", "git `echo p`ush"],
)
def test_an_expanded_word_that_could_make_a_denied_command_asks(command: str) -> None:
    assert verdict(DENY_PUSH, command) != "allow"


@pytest.mark.parametrize("command", ["git status $HOME", "echo $HOME", "ls $(pwd)"])
def test_an_expanded_word_that_cannot_reach_a_deny_rule_is_allowed(command: str) -> None:
    assert verdict(DENY_PUSH, command) == "allow"
