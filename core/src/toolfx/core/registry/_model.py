"""The registry's vocabulary: scopes, registrations, restrictions, hooks and its typed errors."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, final

from toolfx.core.codemode import RUN_CODE
from toolfx.core.tools import (
    TOOL_NAME_PATTERN,
    CodeDispatchLogListener,
    ExecuteWrapper,
    PostExecuteListener,
    PreExecuteListener,
    ResultObserver,
    ToolGuard,
    render_json,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson
    from toolfx.core.tools import (
        ToolDefinition,
    )

__all__ = [
    "EDIT_TOOLS",
    "GLOBAL",
    "RESERVED_NAMES",
    "TRANSPORT_HANDLE",
    "Handle",
    "Hook",
    "HookKind",
    "PresentationMode",
    "Registration",
    "RegistryError",
    "RegistryErrorKind",
    "Restriction",
    "ScopeKey",
    "ToolSchema",
    "flat_name",
]

ScopeKey = str
"""An agent scope's key; `GLOBAL` (None) stands for the deployment-global layer."""

GLOBAL: Final = None
"""The deployment-global layer, which every scope inherits."""

Handle = int
"""Identifies one scope, registration, restriction, guard, hook or presentation declaration."""

PresentationMode = Literal["native", "code", "both"]
"""How a scope's tools reach its model: native tool calls, Code Mode, or both."""

TRANSPORT_HANDLE: Final[Handle] = -1
"""The handle of the `run_code` registration a catalog makes (no registration call gives it)."""

RESERVED_NAMES: Final = frozenset({RUN_CODE})
"""Names only the Code Mode transport may use."""

EDIT_TOOLS: Final = frozenset({"edit", "write", "patch"})
"""Tools whose permission action defaults to the shared `edit` action."""


@final
class RegistryErrorKind(enum.Enum):
    """Why a registry operation was refused."""

    INVALID_NAME = "invalid_name"
    RESERVED_NAME = "reserved_name"
    ALREADY_REGISTERED = "already_registered"
    UNKNOWN_SCOPE = "unknown_scope"
    SCOPE_EXISTS = "scope_exists"
    EMPTY_RESTRICTION = "empty_restriction"
    UNKNOWN_TOOL = "unknown_tool"
    SCOPE_LOCAL_TOOL = "scope_local_tool"
    GLOBAL_LAYER = "global_layer"
    PRESENTATION_DECLARED = "presentation_declared"


class RegistryError(Exception):
    """A refused registry operation: its kind and a message naming the offending item."""

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, kind: RegistryErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def flat_name(definition: ToolDefinition[Any, Any]) -> str:
    """The model-facing name: `<namespace>_<name>` when the tool has a namespace."""
    namespace = definition.options.namespace
    return definition.name if namespace is None else f"{namespace}_{definition.name}"


@final
@dataclass(frozen=True, slots=True, weakref_slot=True)
class ToolSchema:
    """The model-facing part of a tool: its name, description and parameter schema, only."""

    name: str
    description: str
    parameters: FrozenJson


@final
@dataclass(frozen=True, slots=True)
class Registration:
    """One registered tool at its placement (scope and flattened name)."""

    handle: Handle
    scope: ScopeKey | None
    name: str
    definition: ToolDefinition[Any, Any]
    schema: ToolSchema = field(init=False, repr=False, compare=False)
    """The model-facing schema, built once here and shared by every catalog that shows it."""
    plain: bool = field(init=False, repr=False, compare=False)
    """Whether a call of it is its body and nothing around it: a body run on the caller's
    thread (not blocking), the default rendering, and no timeout, `finalize_content`,
    presentation meta, remote placement or Code Mode transport (what the pipeline's plain
    route runs)."""

    def __post_init__(self) -> None:
        definition = self.definition
        schema = ToolSchema(self.name, definition.description, definition.parameters.json_schema)
        object.__setattr__(self, "schema", schema)
        output = definition.output
        plain = (
            self.handle != TRANSPORT_HANDLE
            and definition.timeout is None
            and definition.finalize_content is None
            and not definition.blocking
            and output.render is render_json
            and output.presentation_meta is None
            and definition.remote is None
        )
        object.__setattr__(self, "plain", plain)

    @property
    def permission(self) -> str:
        """The permission action: declared, else `edit` for edit/write/patch, else the name.

        Both defaults go by the effective (flattened) name: a namespaced `mcp_write` is not the
        built-in `write` and keeps its own action.
        """
        declared = self.definition.options.permission
        if declared is not None:
            return declared
        return "edit" if self.name in EDIT_TOOLS else self.name


def tool_names(names: Iterable[str], what: str) -> frozenset[str]:
    """The names of a restriction's `allow` or `deny`; a lone string is refused, not split."""
    if isinstance(names, str):
        raise TypeError(f"{what} takes a collection of tool names, not the string {names!r}")
    return frozenset(names)


def check_tool_name(name: str) -> None:
    """Refuse a flattened name that is malformed or reserved."""
    if TOOL_NAME_PATTERN.fullmatch(name) is None:
        raise RegistryError(
            RegistryErrorKind.INVALID_NAME,
            f"tool name {name!r} must match ^[A-Za-z0-9_-]{{1,64}}$ (namespace included)",
        )
    if name in RESERVED_NAMES:
        raise RegistryError(
            RegistryErrorKind.RESERVED_NAME, f"tool name {name!r} is reserved for Code Mode"
        )


@final
@dataclass(frozen=True, slots=True)
class Restriction:
    """One scope's filter over the tools it inherits: keep only `allow`, remove `deny`."""

    handle: Handle
    scope: ScopeKey
    allow: frozenset[str] | None
    deny: frozenset[str]

    def admits(self, name: str) -> bool:
        """Whether an inherited tool of this name stays visible."""
        return name not in self.deny and (self.allow is None or name in self.allow)


@final
class HookKind(enum.Enum):
    """The four waterfalls, the result observers and the guards."""

    PRE_EXECUTE = "pre_execute"
    EXECUTE = "execute"
    POST_EXECUTE = "post_execute"
    CODE_DISPATCH_LOG = "code_dispatch_log"
    RESULT = "result"
    GUARD = "guard"


HookFunction = (
    PreExecuteListener
    | ExecuteWrapper
    | PostExecuteListener
    | CodeDispatchLogListener
    | ResultObserver
    | ToolGuard
)
"""Any hook's callable; its `HookKind` says which shape it has."""


@final
@dataclass(frozen=True, slots=True)
class Hook:
    """A registered hook: global (scope None) or filtered to one agent's calls."""

    handle: Handle
    kind: HookKind
    scope: ScopeKey | None
    function: HookFunction
