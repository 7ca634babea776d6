"""Bypass families end to end: with rules alone (sandbox off), no payload runs.

Each command tries to run a payload that a rule set does not allow. Every ask is rejected, so
a payload runs only if the rules *allowed* it. On real folders under sync and anyio (asyncio,
trio) the payload's effect is checked on disk; under the deterministic interpreter no process
may start at all.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.leaves_support import LeafSession, run_real
from tests.security.figures import Figures
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.leaves._rules import Rule
from toolfx.leaves._tools import workspace_tools
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.sandbox import Sandbox
from toolfx.leaves.workspace import Workspace

ONLY_GIT_STATUS = (Rule("bash", "git status*", "allow"), Rule("edit", "*", "allow"))
"""Scenario A: `git status` (with any literal arguments) and edits of the workspace's files."""

ALL_BUT_RM = (Rule("bash", "*", "allow"), Rule("bash", "rm*", "deny"))
"""Scenario B: every command but `rm`."""

PAYLOADS_A: dict[str, Sequence[str]] = {
    "redirection": (
        "git status > {mark}",
        "git status 3> {mark}",
        "git status >> {mark}",
        "git status &> {mark}",
        "git status 2>{mark}",
        "git status >| {mark}",
    ),
    "environment prefix": (
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
        "GIT_CONFIG_VALUE_0='touch {mark}' git status",
        "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='touch {mark}' "
        "git status",
    ),
    "substitution": (
        "git status $(touch {mark})",
        "git status `touch {mark}`",
        'git status "$(touch {mark})"',
        "git status <(touch {mark})",
        "git status $((0))$(touch {mark})",
        "x='$(touch {mark})'; git status ${{x@P}}",
    ),
    "second command": (
        "git status; touch {mark}",
        "git status && touch {mark}",
        "git status || touch {mark}",
        "git status | touch {mark}",
        "git status & touch {mark}",
        "git status\ntouch {mark}",
        "(touch {mark})",
        "{{ touch {mark}; }}",
    ),
    "quoting": (
        "git status #'\ntouch {mark}\n'",
        "git status $'\\'' ; touch {mark} ; : '",
        "git status `#`; touch {mark}",
        "git status \\\ntouch {mark}",
    ),
    "config-driven": ("git -c core.fsmonitor='touch {mark}' status",),
    "word split": (
        "git status\r# ; touch {mark}",
        "git status\v# ; touch {mark}",
        "git status\f# ; touch {mark}",
    ),
}

PAYLOADS_B: dict[str, Sequence[str]] = {
    "absolute path": ("/bin/rm {victim}", "/usr/bin/rm {victim}", "\\rm {victim}"),
    "quoted name": ("'rm' {victim}", "r''m {victim}", '"rm" {victim}', "{{r,}}m {victim}"),
    "wrapper": (
        "command rm {victim}",
        "env rm {victim}",
        "exec rm {victim}",
        "nice rm {victim}",
        "nohup rm {victim}",
        "timeout 5 rm {victim}",
        "env -i PATH=/bin rm {victim}",
    ),
    "non-literal name": (
        "$(echo rm) {victim}",
        "x=rm; $x {victim}",
        '"$(printf rm)" {victim}',
        "eval rm {victim}",
        "`echo rm` {victim}",
    ),
    "indirect run": (
        "echo {victim} | xargs rm",
        "find . -name victim.txt -delete",
        "find . -name victim.txt -exec rm {{}} +",
        "bash -c 'rm {victim}'",
        'sh -c "rm {victim}"',
        "unlink {victim}",
    ),
    "wrapper options": (
        "bash -c -- 'rm {victim}'",
        "env -S'rm {victim}'",
        "env -iS'rm {victim}'",
        "env -iu HOME rm {victim}",
        "printf '{victim}\\0' | xargs -0n 1 rm",
        "timeout -k1 5 rm {victim}",
        "dash -c 'rm {victim}'",
    ),
    "launcher": (
        "script -qc 'rm {victim}' /dev/null",
        "chroot / rm {victim}",
        "flock {victim}.lock rm {victim}",
        "setpriv rm {victim}",
        "taskset 1 rm {victim}",
        "prlimit rm {victim}",
        "strace -o /dev/null rm {victim}",
        "runuser -u root -- rm {victim}",
        "su -c 'rm {victim}'",
    ),
    "builtin evaluation": (
        "printf -v 'a[$(rm {victim})]' 1",
        "read 'a[$(rm {victim})]' <<< x",
        "unset 'a[$(rm {victim})]'",
        "declare 'a[$(rm {victim})]=1'",
        "test -v 'a[$(rm {victim})]'",
        "[ -v 'a[$(rm {victim})]' ]",
        "declare -i n; n='a[$(rm {victim})]'",
        "declare -n r='a[$(rm {victim})]'; r=1",
        "PS4='$(rm {victim})'; set -x; true",
        "hash -p /bin/rm ls; ls {victim}",
    ),
    "environment": (
        "echo 'rm {victim}' > e.sh; BASH_ENV=./e.sh bash -c true",
        "echo 'rm {victim}' > e.sh; env BASH_ENV=./e.sh bash -c true",
        "echo 'rm {victim}' > e.sh; export BASH_ENV=./e.sh; bash -c true",
        "GIT_PAGER='rm {victim}' git -p status",
        "PAGER='rm {victim}' git -p status",
    ),
}


def _rejecting(request: ApprovalRequest) -> ApprovalReply:
    return "rejected"


def _catalog(root: str, rules: Sequence[Rule]) -> Catalog:
    """The leaves over `root` under `rules` alone: the sandbox is off."""
    location = Location()
    for tool in workspace_tools(Workspace(root, Permissions(rules)), Sandbox(mode="off")):
        location.register(tool)
    return location.catalog()


def _run(root: str, rules: Sequence[Rule], command: str, interpreter: str) -> None:
    catalog = _catalog(root, rules)
    call = ToolCall("payload", "bash", {"command": command}, CancelSignal())
    if interpreter == "sync":
        run_sync(execute(catalog, call), SyncRuntime(approvals=_rejecting))
    else:
        run_real(catalog, call, "asyncio" if interpreter == "asyncio" else "trio", _rejecting)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A real git repository as the workspace."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return Path(os.path.realpath(root))


@pytest.mark.parametrize("family", sorted(PAYLOADS_A))
def test_only_git_status_allowed_runs_no_payload(
    family: str, repository: Path, tmp_path: Path, interpreter: str, figures: Figures
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    ran = 0
    for index, template in enumerate(PAYLOADS_A[family]):
        mark = outside / f"mark-{index}"
        _run(str(repository), ONLY_GIT_STATUS, template.format(mark=mark), interpreter)
        ran += mark.exists()
    figures.bypass(f"allow git status*: {family}", len(PAYLOADS_A[family]), ran)
    assert ran == 0


@pytest.mark.parametrize("family", sorted(PAYLOADS_B))
def test_deny_rm_after_allow_all_runs_no_rm(
    family: str, repository: Path, interpreter: str, figures: Figures
) -> None:
    victim = repository / "victim.txt"
    ran = 0
    for template in PAYLOADS_B[family]:
        victim.write_text("keep me")
        _run(str(repository), ALL_BUT_RM, template.format(victim=victim.name), interpreter)
        ran += not victim.exists()
    figures.bypass(f"deny rm*: {family}", len(PAYLOADS_B[family]), ran)
    assert ran == 0


@pytest.mark.parametrize(
    ("rules", "payloads", "fill"),
    [
        (ONLY_GIT_STATUS, PAYLOADS_A, {"mark": "/outside/mark"}),
        (ALL_BUT_RM, PAYLOADS_B, {"victim": "victim.txt"}),
    ],
)
def test_no_bypass_starts_a_process_under_the_deterministic_interpreter(
    rules: Sequence[Rule], payloads: dict[str, Sequence[str]], fill: dict[str, str]
) -> None:
    session = LeafSession(rules=rules, replies=lambda request: "rejected")
    for commands in payloads.values():
        for template in commands:
            session.call("bash", command=template.format(**fill))
    assert session.processes.runs == ()


def test_a_write_to_git_config_asks_even_when_edits_are_allowed(repository: Path) -> None:
    config = repository / ".git" / "config"
    before = config.read_bytes()
    catalog = _catalog(str(repository), ONLY_GIT_STATUS)
    call = ToolCall(
        "w",
        "write",
        {"path": ".git/config", "content": "[core]\n\tfsmonitor = touch x\n"},
        CancelSignal(),
    )
    asked: list[ApprovalRequest] = []

    def answer(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        return "rejected"

    run_sync(execute(catalog, call), SyncRuntime(approvals=answer))
    assert [request.permission for request in asked] == ["edit"]
    assert config.read_bytes() == before
