"""The command line: `toolfx demo | run | approve | replay | tools | mcp serve`, parsed into frozen
values."""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Final, Literal, NoReturn, final

from toolfx.core.registry import PresentationMode
from toolfx.core.runtime import SANDBOX_MODES, SandboxMode
from toolfx.interpreters.cli._exits import EXIT_STATUSES
from toolfx.interpreters.cli._log import INTERPRETERS, Interpreter
from toolfx.interpreters.cli._providers import PRESENTATIONS, SchemaFormat
from toolfx.interpreters.cli._remote_option import RemoteOption, parse_remote
from toolfx.interpreters.cli._visible import visible_id
from toolfx.interpreters.journal import Durability

__all__ = [
    "APPROVE_ANSWERS",
    "DURABILITIES",
    "ApproveAnswer",
    "ApproveCommand",
    "Command",
    "DemoCommand",
    "McpServeCommand",
    "OutputOptions",
    "ReplayCommand",
    "RunCommand",
    "ToolsCommand",
    "parse_args",
    "toolfx_version",
]

DISTRIBUTION: Final = "toolfx-interpreters"
"""The distribution the `toolfx` command comes with (its version is `toolfx --version`)."""


@final
@dataclass(frozen=True, slots=True)
class OutputOptions:
    """How results are shown: JSON lines instead of panels; colour unless turned off."""

    json: bool = False
    color: bool = True
    verbose: bool = False
    """Every call's pending and completed cards, not a line each (failures get cards anyway)."""


@final
@dataclass(frozen=True, slots=True)
class RunCommand:
    """`toolfx run`: a session file against a workspace."""

    session: str
    workspace: str
    interpreter: Interpreter = "sync"
    rules: str | None = None
    log: str | None = None
    yes: bool = False
    deny_asks: bool = False
    output: OutputOptions = OutputOptions()
    sandbox: SandboxMode = "auto"
    present: PresentationMode = "native"
    journal: str | None = None
    """The journal file every record is committed to (None: no journal)."""
    defer_asks: bool = False
    """Answer asks "deferred" (only with a journal): `toolfx approve` answers them later."""
    durability: Durability = "process"
    """What each journaled record survives: the process dying, or a power loss too."""
    remote: RemoteOption | None = None
    """Where the parallel-safe tools' bodies run (None: here, as every other body)."""


DURABILITIES: Final[Mapping[str, Durability]] = {"process": "process", "power": "power"}
"""Every journal durability by its name."""

ApproveAnswer = Literal["once", "always", "reject"]
"""How `toolfx approve` answers an ask."""

APPROVE_ANSWERS: Final[tuple[ApproveAnswer, ...]] = ("once", "always", "reject")
"""Every answer `toolfx approve` takes, in the order the help lists them."""


@final
@dataclass(frozen=True, slots=True)
class ApproveCommand:
    """`toolfx approve`: answer one deferred ask in a journal, or list the open ones."""

    journal: str
    call_id: str | None = None
    """The call whose ask is answered (None: list the open asks)."""
    answer: ApproveAnswer | None = None
    feedback: str | None = None
    """What the model is told with a rejection (only with `reject`)."""


@final
@dataclass(frozen=True, slots=True)
class DemoCommand:
    """`toolfx demo`: the bundled session against a copy of the bundled workspace."""

    interpreter: Interpreter = "sync"
    log: str | None = None
    output: OutputOptions = OutputOptions()
    sandbox: SandboxMode = "auto"
    interactive: bool = False
    """Ask at the terminal, as `run` does, instead of allowing each ask once."""
    keep: bool = False
    """Keep the demo's workspace afterwards (and say where it is)."""


@final
@dataclass(frozen=True, slots=True)
class ReplayCommand:
    """`toolfx replay`: show a session log again, running nothing."""

    log: str
    output: OutputOptions = OutputOptions()


@final
@dataclass(frozen=True, slots=True)
class ToolsCommand:
    """`toolfx tools`: the installed tools' schemas as JSON."""

    form: SchemaFormat = "json"
    workspace: str = "."
    present: PresentationMode = "native"


@final
@dataclass(frozen=True, slots=True)
class McpServeCommand:
    """`toolfx mcp serve`: the installed tools over a workspace, as an MCP server on stdio."""

    workspace: str = "."
    rules: str | None = None
    sandbox: SandboxMode = "auto"
    present: PresentationMode = "native"


Command = RunCommand | DemoCommand | ApproveCommand | ReplayCommand | ToolsCommand | McpServeCommand
"""A parsed command line."""


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="toolfx",
        description="Run, replay, list and serve toolfx tool calls.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {toolfx_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="run the bundled example session (no input needed)")
    demo.add_argument(
        "--interactive",
        action="store_true",
        help="ask at the terminal as `run` does (default: each ask is allowed once, no input)",
    )
    demo.add_argument(
        "--keep", action="store_true", help="keep the demo's workspace and say where it is"
    )
    run = commands.add_parser(
        "run",
        help="run a session file (JSONL of model turns)",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("session", metavar="SESSION", help="the session file")
    run.add_argument(
        "--workspace", default=".", metavar="DIR", help="the workspace root (default: here)"
    )
    run.add_argument("--rules", metavar="FILE", help="permission rules (a JSON list)")
    answers = run.add_mutually_exclusive_group()
    answers.add_argument("--yes", action="store_true", help="allow every ask once")
    answers.add_argument("--deny-asks", action="store_true", help="reject every ask")
    answers.add_argument(
        "--defer-asks",
        action="store_true",
        help="answer every ask later: the run goes on with the other calls, then stops "
        "(exit 3) listing the asks and the `toolfx approve` commands that answer them "
        "(needs --journal)",
    )
    run.add_argument(
        "--journal",
        metavar="FILE",
        help="commit every record to this journal (SQLite; made if missing); run again with "
        "the same journal to continue after a crash or once asks are answered",
    )
    run.add_argument(
        "--durability",
        choices=DURABILITIES,
        help="what each journaled record survives: the process dying (process, the default) "
        "or a power loss too (power: an fsync per record)",
    )
    run.add_argument(
        "--remote",
        type=_remote,
        metavar="WHERE",
        help="run the bodies of the parallel-safe tools (glob, grep; read stays here) "
        "elsewhere: on a Ray cluster (ray, or ray:ADDRESS; needs toolfx[ray]) or in N worker "
        "processes here (local, or local:N); every worker must see the workspace at the same "
        "path, and an ask a remote body makes fails (rules must allow what it does)",
    )
    for command in (demo, run):
        command.add_argument(
            "--interpreter",
            choices=tuple(INTERPRETERS),
            default="sync",
            help="what runs the turns (default: sync)",
        )
        command.add_argument("--log", metavar="FILE", help="write the session log (JSONL) here")
    approve = commands.add_parser(
        "approve",
        help="answer an ask a `run --defer-asks` left in a journal (without CALL_ID: list them)",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    approve.add_argument("journal", metavar="FILE", help="the journal")
    approve.add_argument("call_id", metavar="CALL_ID", nargs="?", help="the call that asks")
    approve.add_argument(
        "answer",
        metavar="ANSWER",
        nargs="?",
        choices=APPROVE_ANSWERS,
        help="once, always or reject",
    )
    approve.add_argument(
        "--feedback", metavar="TEXT", help="with reject: what the model is told, as the reason"
    )
    replay = commands.add_parser("replay", help="show a session log again, running nothing")
    replay.add_argument("log", metavar="LOG", help="the session log")
    for command in (demo, run, replay):
        command.add_argument("--json", action="store_true", help="print results as JSON lines")
        command.add_argument("--no-color", action="store_true", help="print without colour")
        command.add_argument(
            "--verbose",
            action="store_true",
            help="show every call's pending and completed cards (default: a line each; a "
            "failed call shows its card)",
        )

    tools = commands.add_parser("tools", help="print the installed tools' schemas")
    tools.add_argument(
        "--format", choices=("json", "openai", "anthropic", "gemini"), default="json"
    )

    mcp = commands.add_parser("mcp", help="serve the tools over MCP")
    mcp_commands = mcp.add_subparsers(dest="mcp_command", required=True, metavar="COMMAND")
    serve = mcp_commands.add_parser("serve", help="an MCP server on stdin and stdout")
    serve.add_argument("--rules", metavar="FILE", help="permission rules (a JSON list)")
    for command in (tools, serve):
        command.add_argument(
            "--workspace", default=".", metavar="DIR", help="the workspace root (default: here)"
        )
    for command in (demo, run, serve):
        command.add_argument(
            "--sandbox",
            choices=SANDBOX_MODES,
            default="auto",
            help="what confines bash commands (default: auto, bubblewrap then Landlock; "
            "where none is available every command asks)",
        )
    for command in (run, tools, serve):
        command.add_argument(
            "--present",
            choices=tuple(PRESENTATIONS),
            default="native",
            help="how the model reaches the tools: native tool calls, one `run_code` tool "
            "whose Python program calls them (code), or both (default: native)",
        )
    return parser


def parse_args(argv: Sequence[str]) -> Command:
    """The command `argv` asks for; a bad command line exits (code 2) with argparse's usage."""
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's own parser, with the options it has
        chosen = _chosen(parser, args)
        chosen.error(f"unrecognized arguments: {' '.join(unknown)}{_meant(unknown, chosen)}")
    if args.command == "approve":
        return _approve(parser, args)
    if args.command == "tools":
        return ToolsCommand(args.format, args.workspace, PRESENTATIONS[args.present])
    if args.command == "mcp":
        return McpServeCommand(
            args.workspace, args.rules, args.sandbox, PRESENTATIONS[args.present]
        )
    output = OutputOptions(json=args.json, color=not args.no_color, verbose=args.verbose)
    if args.command == "replay":
        return ReplayCommand(args.log, output)
    interpreter = INTERPRETERS[args.interpreter]
    if args.command == "demo":
        return DemoCommand(interpreter, args.log, output, args.sandbox, args.interactive, args.keep)
    return RunCommand(
        args.session,
        args.workspace,
        interpreter,
        args.rules,
        args.log,
        args.yes,
        args.deny_asks,
        output,
        args.sandbox,
        PRESENTATIONS[args.present],
        args.journal,
        _deferring(parser, args),
        _durability(parser, args),
        args.remote,
    )


def toolfx_version() -> str:
    """The installed version of the distribution the command comes with ("unknown" when it is
    not installed, e.g. run from a source tree)."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


@final
class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors suggest the choice a misspelled one meant."""

    def error(self, message: str) -> NoReturn:
        """Exit (code 2) with the usage and `message`, and what a bad choice probably meant."""
        invalid = _INVALID_CHOICE.search(message)
        if invalid is not None:
            given, choices = invalid[1], re.findall(r"'([^']*)'", invalid[2])
            message += _suggested(given, choices)
        super().error(message)


_INVALID_CHOICE: Final = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command `args` names."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            command: argparse.ArgumentParser = action.choices[getattr(args, action.dest)]
            return _chosen(command, args)
    return parser


def _meant(unknown: Iterable[str], parser: argparse.ArgumentParser) -> str:
    """What the first unknown option probably meant, among `parser`'s options ("" if nothing)."""
    options = [
        option
        for action in parser._actions
        for option in action.option_strings
        if option.startswith("--")
    ]
    for given in unknown:
        if given.startswith("-"):
            return _suggested(given.split("=", 1)[0], options)
    return ""


def _suggested(given: str, choices: Sequence[str]) -> str:
    """`; did you mean X?` for the choice closest to `given`, or "" when none is close."""
    close = difflib.get_close_matches(given, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _remote(text: str) -> RemoteOption:
    """`--remote WHERE`, or a usage error naming the forms it takes."""
    try:
        return parse_remote(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _deferring(parser: argparse.ArgumentParser, args: argparse.Namespace) -> bool:
    """`--defer-asks`, refused without a journal (nothing would keep the asks)."""
    if args.defer_asks and args.journal is None:
        parser.error("--defer-asks needs --journal FILE: the journal keeps the asks to answer")
    return bool(args.defer_asks)


def _durability(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Durability:
    """`--durability`, refused without a journal (it says how the journal writes)."""
    if args.durability is None:
        return "process"
    if args.journal is None:
        parser.error("--durability needs --journal FILE: it says how the journal is written")
    return DURABILITIES[args.durability]


def _approve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> ApproveCommand:
    """`toolfx approve FILE [CALL_ID ANSWER] [--feedback TEXT]`, checked as a whole."""
    if args.call_id is not None and args.answer is None:
        asked = visible_id(args.call_id)
        parser.error(f"approve: say how to answer {asked}: once, always or reject")
    if args.feedback is not None and args.answer != "reject":
        parser.error("approve: --feedback goes with reject (it tells the model why)")
    return ApproveCommand(args.journal, args.call_id, args.answer, args.feedback)
