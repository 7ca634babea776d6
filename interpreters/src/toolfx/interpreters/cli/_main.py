"""The `toolfx` command: parse the arguments, run the command, map its errors to exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from toolfx.interpreters.cli._args import (
    ApproveCommand,
    DemoCommand,
    McpServeCommand,
    ReplayCommand,
    RunCommand,
    ToolsCommand,
    parse_args,
)
from toolfx.interpreters.cli._commands import CliError, approve, replay, run, tools
from toolfx.interpreters.cli._demo import demo
from toolfx.interpreters.cli._exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_WRITE_FAILED
from toolfx.interpreters.cli._interrupts import Interrupted
from toolfx.interpreters.cli._journaled import JournalWriteError
from toolfx.interpreters.cli._log import LogError
from toolfx.interpreters.cli._log_file import LogWriteError
from toolfx.interpreters.cli._session import SessionError
from toolfx.interpreters.cli._visible import visible
from toolfx.interpreters.journal import JournalFileError
from toolfx.interpreters.providers import ProviderError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in `argv` (default: the process's arguments); the exit code.

    0 when the command ran (its tool calls may have failed), 2 for a bad command line or an
    input that cannot be used (a session, log, journal, rules file or workspace), 1 when the
    session log or the journal could not be written (the session stops there; the log keeps
    whole lines only), 3 when a journaled run leaves asks waiting for `toolfx approve`, 4 when
    `toolfx approve` names a call none of whose asks waits, 130 when Ctrl-C interrupted it
    (see `_exits`).
    """
    try:
        command = parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        match command:
            case RunCommand():
                return run(command)
            case ApproveCommand():
                return approve(command)
            case DemoCommand():
                return demo(command)
            case ReplayCommand():
                return replay(command)
            case ToolsCommand():
                return tools(command)
            case McpServeCommand():
                # The MCP SDK takes a while to import: only this command loads it.
                from toolfx.interpreters.cli._mcp_serve import mcp_serve  # noqa: PLC0415

                return mcp_serve(command)
    except (CliError, SessionError, LogError, ProviderError, JournalFileError) as error:
        print(f"toolfx: {visible(str(error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (LogWriteError, JournalWriteError) as error:
        print(f"toolfx: {visible(str(error))}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except Interrupted as stop:  # what ran was cancelled and recorded
        print(f"toolfx: {stop}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:  # Ctrl-C while nothing ran (reading the inputs, showing a summary)
        print("toolfx: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader left (`toolfx demo | head`): no traceback at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
