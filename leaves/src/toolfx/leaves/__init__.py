"""toolfx built-in leaves: read, write, edit, glob, grep and bash over a session's workspace.

Each leaf is a typed tool that works only through the runtime's capabilities (files, processes,
approvals), so the same leaf runs under every interpreter. `workspace_tools(workspace)` gives
them all; the `toolfx.tools` entry point (`builtin_tools(root, rules)`, see `_tools.py`) gives
them to hosts such as the CLI from plain values.
"""

from toolfx.core.public import publish
from toolfx.core.runtime import SandboxMode
from toolfx.leaves._globs import GlobMatcher, glob_regex
from toolfx.leaves._regexes import PatternError
from toolfx.leaves._rules import (
    PERMISSIONS,
    Action,
    Rule,
    RuleError,
    decide,
    load_rules,
    matches,
    parse_rules,
)
from toolfx.leaves._search import SearchLimits
from toolfx.leaves._shell.rules import BASH, CommandReview, review_line
from toolfx.leaves._shell.syntax import CommandTooComplex, ShellLine, SimpleCommand, parse_line
from toolfx.leaves._tools import builtin_tools, workspace_tools
from toolfx.leaves.bash import BashArgs, BashOutput, bash_tool
from toolfx.leaves.glob import GlobArgs, GlobOutput, glob_tool
from toolfx.leaves.grep import GrepArgs, GrepMatch, GrepOutput, grep_tool
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.sandbox import (
    DEFAULT_HIDDEN,
    DEFAULT_HIDDEN_VARIABLES,
    Confined,
    Sandbox,
    SandboxUnavailable,
    sandbox_confinement,
)
from toolfx.leaves.workspace import EXTERNAL_DIRECTORY, ResolvedPath, Workspace, WorkspaceLimits

__all__ = [
    "BASH",
    "DEFAULT_HIDDEN",
    "DEFAULT_HIDDEN_VARIABLES",
    "EXTERNAL_DIRECTORY",
    "PERMISSIONS",
    "Action",
    "BashArgs",
    "BashOutput",
    "CommandReview",
    "CommandTooComplex",
    "Confined",
    "GlobArgs",
    "GlobMatcher",
    "GlobOutput",
    "GrepArgs",
    "GrepMatch",
    "GrepOutput",
    "PatternError",
    "Permissions",
    "ResolvedPath",
    "Rule",
    "RuleError",
    "Sandbox",
    "SandboxMode",
    "SandboxUnavailable",
    "SearchLimits",
    "ShellLine",
    "SimpleCommand",
    "Workspace",
    "WorkspaceLimits",
    "bash_tool",
    "builtin_tools",
    "decide",
    "glob_regex",
    "glob_tool",
    "grep_tool",
    "load_rules",
    "matches",
    "parse_line",
    "parse_rules",
    "review_line",
    "sandbox_confinement",
    "workspace_tools",
]

publish(__name__, __all__, globals())
