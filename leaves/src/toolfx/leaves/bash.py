"""The `bash` leaf: one command line run by `/bin/bash -c` in the workspace, its output bounded.

One command line run by `/bin/bash -c` in the workspace (or an approved folder), asked for by its
commands' leading words, stopped at its timeout. Its output is stdout and stderr as one stream
(stderr goes to the stdout pipe, as `2>&1`: the bytes in the order the command wrote them, as a
terminal shows them). It is reported live as progress, saved whole as it comes once it is over
the limits (see `toolfx.leaves._shell.output`), and shown to the model as a bounded head and
tail with where it was saved and its exact size.
"""

from __future__ import annotations

import functools
import posixpath
import signal
from dataclasses import dataclass
from typing import Annotated, NotRequired, TypedDict

from returns.result import Failure, Result, Success

from toolfx.core.runtime import FileError, ProcessError, ProcessSpec
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
from toolfx.leaves._shell.output import CommandOutput
from toolfx.leaves._shell.rules import BASH, redirect_paths, review_line
from toolfx.leaves._shell.syntax import CommandTooComplex, parse_line
from toolfx.leaves._text_files import file_failure
from toolfx.leaves.sandbox import Confined, Sandbox, SandboxUnavailable, sandbox_confinement
from toolfx.leaves.workspace import Workspace, is_inside

__all__ = ["BASH", "BashArgs", "BashOutput", "bash_tool"]

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
class BashOutput:
    """How the command ended and how long it ran, and its output (stdout and stderr as one
    stream): what the model sees of it, its whole size, and where the whole is saved if cut."""

    exit_code: int | None
    signal: str | None
    timed_out: bool
    cancelled: bool
    timeout: float
    output: str
    total_lines: int
    total_bytes: int
    saved_to: str | None
    duration: float
    """Seconds the command ran."""


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
        spec = ProcessSpec(
            (_SHELL, "-c", command),
            where.path,
            timeout,
            0,  # the output goes to `output` as it comes
            kill_grace=kill_grace,
            confinement=confinement,
            stderr_to_stdout=True,
        )
        output = CommandOutput(ctx, workspace.limits.shown, workspace.limits.max_saved_bytes)
        try:
            outcome = await ctx.runtime.processes.run(spec, ctx.signal, output.take)
            shown = await output.finish()
        except ProcessError as error:
            return Failure(ToolFailure(str(error)))
        finally:
            await output.close()
        return Success(
            BashOutput(
                exit_code=outcome.exit_code,
                signal=None if outcome.signal is None else _signal_name(outcome.signal),
                timed_out=outcome.timed_out,
                cancelled=outcome.cancelled,
                timeout=timeout,
                output=shown.text,
                total_lines=shown.total_lines,
                total_bytes=shown.total_bytes,
                saved_to=None if shown.saved is None else shown.saved.location.path,
                duration=outcome.duration,
            )
        )

    return define_leaf(
        name="bash",
        description=(
            "Run a command line with /bin/bash -c in the workspace root (or `cwd`). It is "
            "stopped after `timeout` seconds (default 120, at most 600). Output beyond 2000 "
            "lines or 50 KB is cut (you see its start and its end) and saved whole to a file "
            "you can read; the exit code is reported."
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


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _shown(out: BashOutput) -> str:
    """The output as shown: bounded, with where the whole is when it was cut."""
    return out.output.rstrip("\n") or "(no output)"


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
        title=args["command"],
        output=_shown(out),
        exit_code=out.exit_code,
        signal=out.signal,
        duration=out.duration,
        timed_out=out.timed_out,
    )


def _pending(args: BashArgs, workspace: Workspace) -> ToolCallView:
    return TerminalCallCard(
        title=args["command"],
        description=args.get("description"),
        cwd=args.get("cwd", workspace.root),
    )
