"""The leaves' shared ground: asking permission, resolving paths, and bounding output."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypedDict

import pytest
from returns.result import Failure, Result, Success

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    NO_ONE_TO_ASK,
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    RejectedWithFeedback,
    state_folder,
)
from toolfx.core.tools import (
    Output,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import DeterministicInterpreter, MemoryFileSystem
from toolfx.leaves._rules import Rule
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace, path_limits


class Args(TypedDict):
    text: str


Body = Callable[[Workspace, Args, ToolRunContext], Awaitable[Result[str, ToolFailure]]]


def call(
    body: Body,
    workspace: Workspace,
    replies: Sequence[ApprovalReply] | Callable[[ApprovalRequest], ApprovalReply] = (),
    files: MemoryFileSystem | None = None,
    text: str = "x",
) -> ToolExecutionResult:
    """Run `body` as the tool `probe` under the deterministic interpreter."""

    async def execute_body(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
        return await body(workspace, args, ctx)

    location = Location()
    location.register(
        define_tool(
            name="probe", description="d", parameters=Args, output=Output(str), execute=execute_body
        )
    )
    approvals = replies if callable(replies) else list(replies)
    interpreter = DeterministicInterpreter(seed=3, approvals=approvals, files=files)
    description = execute(
        location.catalog(), ToolCall("call/1", "probe", {"text": text}, CancelSignal())
    )
    result: ToolExecutionResult = interpreter.run(description)
    return result


async def ask_bash(
    workspace: Workspace, args: Args, ctx: ToolRunContext
) -> Result[str, ToolFailure]:
    failure = await workspace.permissions.require(
        ctx, "bash", ["git status"], "run git", always=["git *"]
    )
    return Success("ran") if failure is None else Failure(failure)


def message(result: ToolExecutionResult) -> str:
    assert isinstance(result, ToolExecutionFailure), result
    return f"{result.error.code}: {result.error.message}"


def test_an_allow_rule_needs_no_ask_and_a_deny_rule_is_denied() -> None:
    allowed = Workspace("/ws", Permissions([Rule("bash", "git *", "allow")]))
    assert isinstance(call(ask_bash, allowed), ToolExecutionSuccess)
    denied = Workspace(
        "/ws", Permissions([Rule("bash", "*", "allow"), Rule("bash", "git *", "deny")])
    )
    assert message(call(ask_bash, denied)) == (
        "DENIED: Denied: permission 'bash' declined: a rule denies git status"
    )


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        ("allowed-once", "ran"),
        ("rejected", "DENIED: Denied: permission 'bash' declined: the user rejected git status"),
        (
            "unavailable",
            "DENIED: Denied: permission 'bash' declined: no one could approve git status: "
            + NO_ONE_TO_ASK,
        ),
        ("cancelled", "ABORTED: "),
        (
            RejectedWithFeedback("use git log"),
            "DENIED: The user rejected bash for git status, saying: use git log",
        ),
    ],
)
def test_each_reply_to_an_ask(reply: ApprovalReply, outcome: str) -> None:
    result = call(ask_bash, Workspace("/ws"), [reply])
    shown = result.value if isinstance(result, ToolExecutionSuccess) else message(result)
    assert isinstance(shown, str)
    assert shown.startswith(outcome)


def test_always_is_remembered_for_the_session_as_an_allow_rule() -> None:
    workspace = Workspace("/ws")
    assert isinstance(call(ask_bash, workspace, ["allowed-always"]), ToolExecutionSuccess)
    assert workspace.permissions.rules == (Rule("bash", "git *", "allow"),)
    assert isinstance(call(ask_bash, workspace, []), ToolExecutionSuccess)  # no ask this time


async def resolve(
    workspace: Workspace, args: Args, ctx: ToolRunContext
) -> Result[str, ToolFailure]:
    where = await workspace.resolve(ctx, args["text"])
    if isinstance(where, ToolFailure):
        return Failure(where)
    return Success(f"{where.path} {where.relative}")


def tree() -> MemoryFileSystem:
    files = MemoryFileSystem.from_files({"/ws/a.txt": "a", "/etc/passwd": "root"})
    files.add_symlink("/ws/link", "/etc")
    files.add_symlink("/ws/inner", "/ws")
    return files


@pytest.mark.parametrize(
    ("path", "resolved"),
    [
        ("a.txt", "/ws/a.txt a.txt"),
        ("/ws/a.txt", "/ws/a.txt a.txt"),
        ("inner/a.txt", "/ws/a.txt a.txt"),
        ("sub/../a.txt", "/ws/a.txt a.txt"),
        (".", "/ws ."),
    ],
)
def test_paths_inside_the_workspace_resolve_without_asking(path: str, resolved: str) -> None:
    result = call(resolve, Workspace("/ws"), files=tree(), text=path)
    assert isinstance(result, ToolExecutionSuccess)
    assert result.value == resolved


@pytest.mark.parametrize(
    "path", ["../etc/passwd", "/etc/passwd", "link/passwd", "link/../ws/../etc"]
)
def test_paths_outside_ask_external_directory_first(path: str) -> None:
    refused = call(resolve, Workspace("/ws"), ["rejected"], files=tree(), text=path)
    assert "permission 'external_directory' declined" in message(refused)
    allowed = call(resolve, Workspace("/ws"), ["allowed-once"], files=tree(), text=path)
    assert isinstance(allowed, ToolExecutionSuccess)
    assert isinstance(allowed.value, str)
    assert allowed.value.startswith("/etc")
    assert allowed.value.endswith(" None")


def _asked_always(path: str, files: MemoryFileSystem) -> tuple[tuple[str, ...], Workspace]:
    workspace = Workspace("/ws")
    asked: list[ApprovalRequest] = []

    def answer(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        return "allowed-always"

    call(resolve, workspace, answer, files=files, text=path)
    (request,) = asked
    return request.always, workspace


def test_always_for_an_outside_file_remembers_that_file_and_the_prompt_says_so() -> None:
    always, workspace = _asked_always("/etc/passwd", tree())
    assert always == ("/etc/passwd",)
    assert workspace.permissions.rules == (Rule("external_directory", "/etc/passwd", "allow"),)


def test_always_for_an_outside_folder_covers_it_but_no_sibling_sharing_its_prefix() -> None:
    files = tree()
    files.add_file("/x/shared/a.txt", "a")
    files.add_file("/x/shared-private/key", "k")
    always, workspace = _asked_always("/x/shared", files)
    assert always == ("/x/shared", "/x/shared/*")
    assert isinstance(call(resolve, workspace, [], files=files, text="/x/shared/a.txt"),
                      ToolExecutionSuccess)  # fmt: skip
    refused = call(resolve, workspace, [], files=files, text="/x/shared-private/key")
    assert "external_directory" in message(refused)


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("a" * 4097, "path is 4097 bytes long; at most 4096 are allowed"),
        ("a/" * 257, "path has 257 names; at most 256 are allowed"),
        ("a\0b", "path contains a NUL character (at 1)"),
    ],
)
def test_path_limits_come_first_as_invalid_args(path: str, problem: str) -> None:
    result = call(resolve, Workspace("/ws"), files=tree(), text=path)
    assert message(result) == f"INVALID_ARGS: {problem}"


def test_a_path_that_is_not_utf8_is_refused_naming_the_argument() -> None:
    refused = path_limits("cwd", "bad-\udcff")  # the pipeline refuses it in JSON before this
    assert refused is not None
    assert refused.message == "cwd is not valid UTF-8 (a lone surrogate at 4)"
    assert path_limits("path", "fine/é") is None


def test_a_symlink_loop_is_a_typed_failure_naming_the_path() -> None:
    files = tree()
    files.add_symlink("/ws/loop", "loop")
    assert message(call(resolve, Workspace("/ws"), files=files, text="loop/x")) == (
        "TOOL_ERROR: loop/x is a symlink loop (more than 40 symlinks to follow); nothing was done"
    )


def test_the_state_folder_is_per_workspace_under_the_user_state_directory() -> None:
    first = state_folder("/home/u/proj", {"XDG_STATE_HOME": "/s", "HOME": "/home/u"})
    assert first.startswith("/s/toolfx/proj-")
    assert state_folder("/home/u/proj", {"HOME": "/home/u"}).startswith(
        "/home/u/.local/state/toolfx/proj-"
    )
    assert state_folder("/other/proj", {"XDG_STATE_HOME": "/s"}) != first
    with pytest.raises(ValueError, match="XDG_STATE_HOME or HOME"):
        state_folder("/p", {"XDG_STATE_HOME": "relative"})


def test_a_relative_root_is_refused() -> None:
    with pytest.raises(ValueError, match="absolute path"):
        Workspace("ws")
