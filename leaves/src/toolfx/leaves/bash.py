"""The `bash` leaf: one command line run by `/bin/bash -c` in the workspace, its output bounded.

One command line run by `/bin/bash -c` in the workspace (or an approved folder), asked for by its
commands' leading words, stopped at its timeout, its output bounded and every byte not kept
reported.
"""

from __future__ import annotations

import functools
import posixpath
import signal
from dataclasses import dataclass
from typing import Annotated, NotRequired, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.pipeline import bound_text, not_kept
from toolfx.core.runtime import CapturedOutput, FileError, ProcessError, ProcessSpec, SpillError
from toolfx.core.tools import (
    ErrorCode,
    TerminalCallCard,
    TerminalResultCard,
    TextBlock,
    ToolCallView,
    ToolDefinition,
    ToolFailure,
    ToolRunContext,
)
from toolfx.leaves._leaf import define_leaf
from toolfx.leaves._shell.rules import BASH, redirect_paths, review_line
from toolfx.leaves._shell.syntax import CommandTooComplex, parse_line
from toolfx.leaves._text_files import file_failure
from toolfx.leaves.sandbox import Confined, Sandbox, SandboxUnavailable, sandbox_confinement
from toolfx.leaves.workspace import Workspace, is_inside

__all__ = ["BASH", "BashArgs", "BashOutput", "StreamOutput", "bash_tool"]

_SHELL = "/bin/bash"


class BashArgs(TypedDict):
    """What to run: a command line, and optionally its timeout, folder and a description."""

    command: Annotated[str, "The command line, run by /bin/bash -c"]
    timeout: NotRequired[
        Annotated[float, "Seconds before the command is stopped (default 120, at most 600)"]
    ]
    cwd: NotRequired[
        Annotated[str, "The working folder: relative to the workspace root, or absolute"]
    ]
    description: NotRequired[Annotated[str, "What the command does, in a few words"]]


@dataclass(frozen=True)
class StreamOutput:
    """One output stream: the text of the bytes kept, how many it carried, how many were lost."""

    text: str
    total_bytes: int
    lost_bytes: int


@dataclass(frozen=True)
class BashOutput:
    """How the command ended, its two streams, and the bounded output the model sees."""

    exit_code: int | None
    signal: str | None
    timed_out: bool
    cancelled: bool
    timeout: float
    stdout: StreamOutput
    stderr: StreamOutput
    output: str
    saved_to: str | None


def bash_tool(
    workspace: Workspace,
    default_timeout: float = 120.0,
    max_timeout: float = 600.0,
    kill_grace: float = 2.0,
    sandbox: Sandbox | None = None,
) -> ToolDefinition[BashArgs, BashOutput]:
    """The `bash` tool over `workspace`; `kill_grace` seconds pass between SIGTERM and SIGKILL.

    Commands run in `sandbox` (default: `Sandbox()`, auto); confined, they need no approval
    unless a rule says so; when the sandbox is unavailable each asks, saying why.
    """
    setting = Sandbox() if sandbox is None else sandbox

    async def bash(args: BashArgs, ctx: ToolRunContext) -> Result[BashOutput, ToolFailure]:
        command = args["command"]
        timeout = args.get("timeout", default_timeout)
        if not command.strip():
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, "the command is empty"))
        try:  # a parse of up to MAX_COMMAND_BYTES may take a while: off the event loop
            line = await ctx.runtime.run_blocking(functools.partial(parse_line, command))
        except CommandTooComplex as error:
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, str(error)))
        if not timeout > 0:
            message = f"timeout must be a positive number of seconds, not {timeout:g}"
            return Failure(ToolFailure.of(ErrorCode.INVALID_ARGS, message))
        timeout = min(timeout, max_timeout)
        where = await workspace.resolve(ctx, args.get("cwd", "."), argument="cwd")
        if isinstance(where, ToolFailure):
            return Failure(where)
        try:
            stat = await ctx.runtime.files.stat(where.path, within=where.within, resolved=True)
        except FileError as error:
            return Failure(file_failure(error, where.shown))
        if stat.kind != "directory":
            return Failure(ToolFailure(f"{where.shown} is a {stat.kind}, not a folder"))
        available = ctx.runtime.processes.sandboxes()
        placed = sandbox_confinement(setting, workspace.root, workspace.state_dir, available)
        confinement = placed.confinement if isinstance(placed, Confined) else None
        reason = command
        if isinstance(placed, SandboxUnavailable):
            reason = f"{command}\n(not sandboxed: {placed.reason})"
        cwd = where.relative
        outside = frozenset(
            [
                path
                for path in redirect_paths(line, cwd)
                if not await _stays_in(ctx, workspace, path)
            ]
        )
        permissions = workspace.permissions
        review = review_line(
            line,
            permissions.rules,
            cwd=cwd,
            outside=outside,
            default="ask" if confinement is None else "allow",
        )
        refusal = await permissions.settle(
            ctx, review.action, BASH, review.patterns, reason, always=review.always
        )
        if refusal is not None:
            return Failure(refusal)
        limit = workspace.limits.max_bytes
        spec = ProcessSpec(
            (_SHELL, "-c", command),
            where.path,
            timeout,
            limit,
            kill_grace=kill_grace,
            confinement=confinement,
        )
        try:
            outcome = await ctx.runtime.processes.run(spec, ctx.signal)
        except ProcessError as error:
            return Failure(ToolFailure(str(error)))
        stdout, stderr = _stream(outcome.stdout), _stream(outcome.stderr)
        combined = _combined(stdout.text, stderr.text)
        limits = workspace.limits.shown
        try:
            bounded = await bound_text(ctx.runtime, ctx.call_id, "bash", combined, limits)
        except SpillError as error:
            return Failure(not_kept("bash", combined, limits, error.reason))
        return Success(
            BashOutput(
                exit_code=outcome.exit_code,
                signal=None if outcome.signal is None else _signal_name(outcome.signal),
                timed_out=outcome.timed_out,
                cancelled=outcome.cancelled,
                timeout=timeout,
                stdout=stdout,
                stderr=stderr,
                output=bounded.text,
                saved_to=None if bounded.spilled is None else bounded.spilled.path,
            )
        )

    return define_leaf(
        name="bash",
        description=(
            "Run a command line with /bin/bash -c in the workspace root (or `cwd`). It is "
            "stopped after `timeout` seconds (default 120, at most 600). Output beyond 2000 "
            "lines or 50 KB is cut and saved to a file you can read; the exit code is reported."
        ),
        parameters=BashArgs,
        output=BashOutput,
        render=_render,
        card=_card,
        execute=bash,
        pending=lambda args: _pending(args, workspace),
        limits=workspace.limits,
    )


async def _stays_in(ctx: ToolRunContext, workspace: Workspace, path: str) -> bool:
    """Whether a redirection path (relative to the root) resolves inside the workspace."""
    try:
        root = await ctx.runtime.files.resolve(workspace.root)
        real = await ctx.runtime.files.resolve(posixpath.join(root, path))
    except FileError:
        return False
    return is_inside(real, root)


def _stream(captured: CapturedOutput) -> StreamOutput:
    text = captured.data.decode("utf-8", errors="replace")
    return StreamOutput(text, captured.total, captured.lost)


def _combined(stdout: str, stderr: str) -> str:
    if stdout and stderr and not stdout.endswith("\n"):
        return f"{stdout}\n{stderr}"
    return stdout + stderr


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _shown(out: BashOutput) -> str:
    """The output as shown: bounded, then a line per stream that lost bytes."""
    lines = [out.output.rstrip("\n") or "(no output)"]
    for name, stream in (("stdout", out.stdout), ("stderr", out.stderr)):
        if stream.lost_bytes:
            lines.append(
                f"[{name}: {stream.lost_bytes:,} bytes not kept (of {stream.total_bytes:,})]"
            )
    return "\n".join(lines)


def _ending(out: BashOutput) -> str:
    """How the command ended, in words: its exit code or signal, and why it was stopped."""
    if out.exit_code is not None:
        ended = f"exit code {out.exit_code}"
    elif out.signal is not None:
        ended = f"killed by {out.signal}"
    else:
        return "cancelled before it started"
    if out.timed_out:
        return f"{ended} after the {out.timeout:g} s timeout"
    return f"{ended} after it was cancelled" if out.cancelled else ended


def _render(args: BashArgs, out: BashOutput) -> tuple[TextBlock, ...]:
    return (TextBlock(f"{_shown(out)}\n{_ending(out)}"),)


def _card(args: BashArgs, out: BashOutput) -> TerminalResultCard:
    return TerminalResultCard(
        title=args["command"], output=_shown(out), exit_code=out.exit_code, signal=out.signal
    )


def _pending(args: BashArgs, workspace: Workspace) -> ToolCallView:
    return TerminalCallCard(
        title=args["command"],
        description=args.get("description"),
        cwd=args.get("cwd", workspace.root),
    )
