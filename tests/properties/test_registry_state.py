"""The registry against a plain reference model: random sequences of registry operations.

A `RuleBasedStateMachine` drives one `Location` with random scope additions (under a random
existing parent or the global layer), registrations (random scope, random tool from a small
pool that includes namespaced, colliding, reserved and too-long names; with or without
`shadow`), disposals of random disposers (active, shadowed, already disposed, or orphaned by a
scope removal), restrictions (random allow/deny lists, valid and invalid), lifts, guards,
presentation declarations and scope removals. A model written with plain dicts and lists, which
recomputes every scope's visibility from scratch, predicts success or the exact
`RegistryErrorKind` of each operation and the number of change notifications. After every step,
for every scope, the catalog must agree with the model: lookup (by identity), schemas (sorted,
only name/description/parameters), fail-closed execution modes, permissions, guards and the
presentation mode. Catalogs taken along the way, and not looked at until later, must keep
answering exactly as the model did when they were taken (snapshot isolation).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, TypedDict, cast

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from toolfx.core.json import FrozenJson, parse_json
from toolfx.core.registry import (
    GLOBAL,
    TRANSPORT_HANDLE,
    Catalog,
    Disposer,
    ExecutionMode,
    Location,
    PresentationMode,
    RegistryError,
    RegistryErrorKind,
    ToolSchema,
)
from toolfx.core.registry._catalog import CatalogData
from toolfx.core.tools import Output, ToolDefinition, ToolExecution, ToolOptions, define_tool

# The tool pool --------------------------------------------------------------------------------


class Args(TypedDict):
    """The arguments every pool tool takes."""

    x: int


Classifier = Literal["absent", "true", "truthy", "positive", "raises"]
"""How a pool tool's `is_concurrency_safe` answers (truthy: 1, which is not exactly True)."""


def _raise(args: Args) -> bool:
    raise RuntimeError("classifier failed")


def _classifier(kind: Classifier) -> Callable[[Args], bool] | None:
    match kind:
        case "absent":
            return None
        case "true":
            return lambda args: True
        case "truthy":
            return lambda args: cast(bool, 1)
        case "positive":
            return lambda args: args["x"] > 0
        case "raises":
            return _raise


@dataclass(frozen=True)
class Candidate:
    """A pool tool, its flattened name and its classifier's behaviour."""

    definition: ToolDefinition[Args, int]
    flat: str
    kind: Classifier


def _candidate(name: str, kind: Classifier, namespace: str | None = None) -> Candidate:
    definition = define_tool(
        name=name,
        description=f"{name} in {namespace} ({kind})",
        parameters=Args,
        output=Output(int),
        execute=lambda args, ctx: 1,
        is_concurrency_safe=_classifier(kind),
        options=ToolOptions(namespace=namespace),
    )
    flat = name if namespace is None else f"{namespace}_{name}"
    return Candidate(definition, flat, kind)


LONG_NAMESPACE: Final = "n" * 40
CANDIDATES: Final = (
    _candidate("read", "absent"),
    _candidate("read", "true"),
    _candidate("read", "positive"),
    _candidate("write", "truthy"),
    _candidate("write", "true"),
    _candidate("grep", "raises"),
    _candidate("grep", "positive"),
    _candidate("read", "true", namespace="mcp"),  # mcp_read ...
    _candidate("mcp_read", "raises"),  # ... the same placement, without a namespace
    _candidate("write", "positive", namespace="mcp"),  # mcp_write: not an edit tool
    _candidate("t" * 23, "true", namespace=LONG_NAMESPACE),  # exactly 64 characters flattened
    _candidate("t" * 24, "true", namespace=LONG_NAMESPACE),  # 65: too long
    _candidate("code", "true", namespace="run"),  # run_code: reserved
)
NAMES: Final = sorted(
    {c.flat for c in CANDIDATES if c.flat != "run_code" and len(c.flat) <= 64} | {"ghost"}
)
"""Every name a lookup is checked for (ghost is never registered)."""
RESTRICTABLE: Final = (*NAMES, "run_code")
SCOPE_KEYS: Final = ("a", "b", "c", "d")
MODES: Final[tuple[PresentationMode, ...]] = ("native", "code", "both")
DEFAULT_MODE: Final[PresentationMode] = "native"
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
EDIT_ACTIONS: Final = frozenset({"edit", "write", "patch"})
KIND_OF: Final = {id(c.definition): c.kind for c in CANDIDATES}


def _arguments(text: str) -> FrozenJson:
    return parse_json(text).unwrap()


ARGUMENTS: Final[tuple[tuple[FrozenJson, int | None], ...]] = (
    (_arguments('{"x": 1}'), 1),
    (_arguments('{"x": -1}'), -1),
    (_arguments('{"x": "one"}'), None),  # invalid: wrong type
    (_arguments("{}"), None),  # invalid: missing x
    (_arguments('{"x": 1, "y": 2}'), None),  # invalid: closed TypedDict
)
"""Call arguments and the decoded x (None: the arguments are invalid)."""


def expected_mode(definition: ToolDefinition[Any, Any] | None, x: int | None) -> ExecutionMode:
    """Fail-closed: parallel only for visible tools whose classifier says exactly True."""
    if definition is None or x is None:
        return "exclusive"
    kind = KIND_OF[id(definition)]
    return "parallel" if kind == "true" or (kind == "positive" and x > 0) else "exclusive"


# The reference model -------------------------------------------------------------------------

Key = str | None
Kind = Literal["scope", "registration", "restriction", "guard", "presentation"]


@dataclass
class ModelScope:
    """An agent scope: its parent and which incarnation it is."""

    parent: str | None
    token: int


@dataclass
class ModelRegistration:
    """One registration in a placement's stack."""

    token: int
    definition: ToolDefinition[Any, Any]


@dataclass
class ModelRestriction:
    """One scope's filter over what it inherits."""

    scope: str
    allow: frozenset[str] | None
    deny: frozenset[str]

    def admits(self, name: str) -> bool:
        return name not in self.deny and (self.allow is None or name in self.allow)


@dataclass
class ModelGuard:
    """A guard: global (None) or for one scope."""

    scope: Key
    function: Callable[[ToolExecution], str | None]


@dataclass
class Held:
    """A disposer the test holds and what it undoes in the model."""

    disposer: Disposer
    kind: Kind
    token: int
    scope: Key
    name: str = ""


@dataclass(frozen=True)
class View:
    """What one scope's catalog must answer."""

    tools: dict[str, ToolDefinition[Any, Any]]
    mode: PresentationMode
    guards: tuple[Callable[[ToolExecution], str | None], ...]


def check_catalog(catalog: Catalog, view: View) -> None:
    """The catalog answers exactly as the view says, for every name, argument and field."""
    for name in NAMES:
        assert catalog.get(name) is view.tools.get(name), name
        registration = catalog.registration(name)
        if registration is None:
            assert name not in view.tools
        else:
            assert registration.definition is view.tools[name]
            assert registration.name == name
            expected = "edit" if name in EDIT_ACTIONS else name
            assert registration.permission == expected
        for arguments, x in ARGUMENTS:
            expected_exec = expected_mode(view.tools.get(name), x)
            assert catalog.execution_mode(name, arguments) == expected_exec, (name, arguments)
    offered = view.mode != "native"  # `run_code` over the Code Mode tools, made per snapshot
    check_transport(catalog, view, offered=offered)
    schemas = [s for s in catalog.schemas() if s.name != "run_code"]
    assert [s.name for s in schemas] == sorted(view.tools)
    for schema in schemas:
        assert type(schema) is ToolSchema
        fields = [f.name for f in dataclasses.fields(schema)]
        assert fields == ["name", "description", "parameters"]
        definition = view.tools[schema.name]
        assert schema.description == definition.description
        assert schema.parameters == definition.parameters.json_schema
    assert catalog.presentation_mode == view.mode
    assert catalog.guards() == view.guards
    assert len(catalog) == len(view.tools) + offered


def check_transport(catalog: Catalog, view: View, *, offered: bool) -> None:
    """`run_code` is offered exactly under `code`/`both`, its stubs naming each Code Mode tool."""
    transport = catalog.registration("run_code")
    assert (transport is not None) is offered
    if transport is None:
        return
    assert transport.permission == "run_code"
    assert catalog.execution_mode("run_code", {"code": ""}) == "exclusive"
    stubs = transport.definition.description
    for name, definition in view.tools.items():
        assert (f"async def {name}(" in stubs) is definition.options.codemode, name


def same_view(view: CatalogData, other: CatalogData) -> bool:
    """Whether two compiled views hold the same tools, tables, schemas, hooks and mode (the
    `run_code` each one makes is compared by what it shows the model)."""

    def tables(of: CatalogData) -> list[dict[str, object]]:
        return [
            {n: r.handle if r.handle == TRANSPORT_HANDLE else r for n, r in table.items()}
            for table in (of.tools, of.direct, of.code, of.inherited)
        ]

    return (
        tables(view) == tables(other)
        and view.schemas == other.schemas
        and view.native_schemas == other.native_schemas
        and (view.plan, view.mode, view.output_limits)
        == (other.plan, other.mode, other.output_limits)
    )


class RegistryMachine(RuleBasedStateMachine):
    """A Location and a plain model of it, driven by the same random operations."""

    def __init__(self) -> None:
        super().__init__()
        self.defects: list[BaseException] = []
        self.location = Location(on_defect=lambda error, where: self.defects.append(error))
        self.notified = 0
        self.expected_notified = 0
        self.location.on_change(self._raising_listener)
        self.location.on_change(self._counting_listener)
        self.tokens = 0
        self.scopes: dict[str, ModelScope] = {}
        self.stacks: dict[tuple[Key, str], list[ModelRegistration]] = {}
        self.restrictions: dict[int, ModelRestriction] = {}
        self.guards: dict[int, ModelGuard] = {}
        self.modes: dict[str, tuple[int, PresentationMode]] = {}
        self.held: list[Held] = []
        self.snapshots: list[tuple[Catalog, View]] = []
        self.steps = 0

    def _raising_listener(self) -> None:
        raise RuntimeError("a broken change listener")

    def _counting_listener(self) -> None:
        self.notified += 1

    def _token(self) -> int:
        self.tokens += 1
        return self.tokens

    def _hold(self, disposer: Disposer, kind: Kind, scope: Key, name: str = "") -> int:
        token = self._token()
        self.held.append(Held(disposer, kind, token, scope, name))
        return token

    # Model views ------------------------------------------------------------------------------

    def visible(self, scope: Key) -> dict[str, ToolDefinition[Any, Any]]:
        """Recompute a scope's visible tools from scratch."""
        own = {
            name: stack[-1].definition
            for (where, name), stack in self.stacks.items()
            if where == scope and stack
        }
        if scope is None:
            return own
        inherited = self.visible(self.scopes[scope].parent)
        filters = [r for r in self.restrictions.values() if r.scope == scope]
        tools = {n: d for n, d in inherited.items() if all(f.admits(n) for f in filters)}
        tools.update(own)
        return tools

    def mode_of(self, scope: Key) -> PresentationMode:
        while scope is not None:
            if scope in self.modes:
                return self.modes[scope][1]
            scope = self.scopes[scope].parent
        return DEFAULT_MODE

    def view(self, scope: Key) -> View:
        guards = tuple(g.function for g in self.guards.values() if g.scope in (None, scope))
        return View(self.visible(scope), self.mode_of(scope), guards)

    def own_names(self, scope: Key) -> set[str]:
        return {name for (where, name), stack in self.stacks.items() if where == scope and stack}

    def scope_choices(self, *, with_global: bool = True, weight: int = 2) -> list[Key]:
        """The global layer and existing scopes (`weight` times each), and one unknown scope."""
        return [*([None] * weight if with_global else []), *list(self.scopes) * weight, "zz"]

    def attempt(
        self, what: str, kind: RegistryErrorKind | None, call: Callable[[], Disposer]
    ) -> Disposer | None:
        """Call; it must fail with `kind`, or succeed (giving its disposer) when `kind` is None."""
        self.steps += 1
        event(f"{what}: {'ok' if kind is None else kind.name}")
        if kind is None:
            return call()
        with pytest.raises(RegistryError) as caught:
            call()
        assert caught.value.kind is kind, (caught.value.kind, kind, str(caught.value))
        return None

    def _remove_scope(self, key: str) -> None:
        doomed = {key}
        grew = True
        while grew:
            grew = False
            for child, model in self.scopes.items():
                if model.parent in doomed and child not in doomed:
                    doomed.add(child)
                    grew = True
        for scope in doomed:
            del self.scopes[scope]
            self.modes.pop(scope, None)
        self.stacks = {k: v for k, v in self.stacks.items() if k[0] not in doomed}
        self.restrictions = {t: r for t, r in self.restrictions.items() if r.scope not in doomed}
        self.guards = {t: g for t, g in self.guards.items() if g.scope not in doomed}

    # Rules ------------------------------------------------------------------------------------

    @initialize(data=st.data())
    def populate(self, data: st.DataObject) -> None:
        """Start from a random global layer and a random chain of scopes (then anything goes)."""
        valid = [c for c in CANDIDATES if c.flat in NAMES]
        for candidate in data.draw(st.lists(st.sampled_from(valid), max_size=6), label="tools"):
            self.do_register(None, candidate, shadow=True)
        parent: str | None = None
        for key in SCOPE_KEYS[: data.draw(st.integers(0, 3), label="depth")]:
            self.do_add_scope(key, parent)
            parent = key

    @rule(data=st.data())
    def add_scope(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from(SCOPE_KEYS), label="scope")
        parent = data.draw(st.sampled_from(self.scope_choices()), label="parent")
        self.do_add_scope(key, parent)

    def do_add_scope(self, key: str, parent: Key) -> None:
        kind = None
        if key in self.scopes:
            kind = RegistryErrorKind.SCOPE_EXISTS
        elif parent is not None and parent not in self.scopes:
            kind = RegistryErrorKind.UNKNOWN_SCOPE
        if (
            disposer := self.attempt(
                "add_scope", kind, lambda: self.location.add_scope(key, parent)
            )
        ) is not None:
            token = self._hold(disposer, "scope", key)
            self.scopes[key] = ModelScope(parent, token)
            self.expected_notified += 1

    @rule(data=st.data())
    def register(self, data: st.DataObject) -> None:
        scope = data.draw(st.sampled_from(self.scope_choices()), label="scope")
        candidate = data.draw(st.sampled_from(CANDIDATES), label="tool")
        shadow = data.draw(st.booleans(), label="shadow")
        self.do_register(scope, candidate, shadow=shadow)

    def do_register(self, scope: Key, candidate: Candidate, *, shadow: bool) -> None:
        stack = self.stacks.get((scope, candidate.flat), [])
        kind = None
        if scope is not None and scope not in self.scopes:
            kind = RegistryErrorKind.UNKNOWN_SCOPE
        elif NAME_PATTERN.fullmatch(candidate.flat) is None:
            kind = RegistryErrorKind.INVALID_NAME
        elif candidate.flat == "run_code":
            kind = RegistryErrorKind.RESERVED_NAME
        elif stack and not shadow:
            kind = RegistryErrorKind.ALREADY_REGISTERED
        call = lambda: self.location.register(candidate.definition, scope, shadow=shadow)  # noqa: E731
        if (disposer := self.attempt("register", kind, call)) is not None:
            token = self._hold(disposer, "registration", scope, candidate.flat)
            stack.append(ModelRegistration(token, candidate.definition))
            self.stacks[(scope, candidate.flat)] = stack
            self.expected_notified += 1

    @rule(data=st.data())
    def restrict(self, data: st.DataObject) -> None:
        """Any filter, valid or not, on any scope (or the global layer)."""
        scope = data.draw(st.sampled_from([*list(self.scopes) * 4, None, "zz"]), label="scope")
        inherited = self.inherited_names(scope)
        own = self.own_names(scope) if scope in self.scopes else set()
        pools = [*([inherited] * 3 if inherited else []), sorted({*inherited, *own}) or ["ghost"]]
        pool = data.draw(st.sampled_from([*pools, list(RESTRICTABLE)]), label="pool")
        names = st.lists(st.sampled_from(pool), unique=True, min_size=1, max_size=3)
        allow = data.draw(st.none() | names | st.just([]), label="allow")
        deny = data.draw(names | st.none() | st.just([]), label="deny")
        self.do_restrict(scope, allow, deny)

    @precondition(lambda self: any(self.inherited_names(k) for k in self.scopes))
    @rule(data=st.data())
    def restrict_inherited(self, data: st.DataObject) -> None:
        """A valid filter: an existing scope, names it inherits now."""
        scope = data.draw(st.sampled_from([k for k in self.scopes if self.inherited_names(k)]))
        names = st.lists(
            st.sampled_from(self.inherited_names(scope)), unique=True, min_size=1, max_size=3
        )
        allow = data.draw(st.none() | names, label="allow")
        deny = data.draw(st.none() | names if allow else names, label="deny")
        self.do_restrict(scope, allow, deny)

    def inherited_names(self, scope: Key) -> list[str]:
        """What an existing scope inherits now (nothing for the global layer or unknown scopes)."""
        if scope is None or scope not in self.scopes:
            return []
        return sorted(self.visible(self.scopes[scope].parent))

    def do_restrict(self, scope: Key, allow: list[str] | None, deny: list[str] | None) -> None:
        inherited = self.inherited_names(scope)
        allowed = None if allow is None else frozenset(allow)
        denied = frozenset(deny or ())
        listed = (allowed or frozenset()) | denied
        kind = None
        if scope is None:
            kind = RegistryErrorKind.GLOBAL_LAYER
        elif scope not in self.scopes:
            kind = RegistryErrorKind.UNKNOWN_SCOPE
        elif not allowed and not denied:
            kind = RegistryErrorKind.EMPTY_RESTRICTION
        elif listed & {"run_code"}:
            kind = RegistryErrorKind.RESERVED_NAME
        elif listed & self.own_names(scope):
            kind = RegistryErrorKind.SCOPE_LOCAL_TOOL
        elif listed - set(inherited):
            kind = RegistryErrorKind.UNKNOWN_TOOL
        target = cast(str, scope)  # None on purpose: restricting the global layer is refused
        call = lambda: self.location.restrict(target, allow=allow, deny=deny)  # noqa: E731
        if (disposer := self.attempt("restrict", kind, call)) is not None:
            token = self._hold(disposer, "restriction", scope)
            self.restrictions[token] = ModelRestriction(target, allowed, denied)
            self.expected_notified += 1

    @precondition(lambda self: bool(self.restrictions))
    @rule(data=st.data())
    def lift(self, data: st.DataObject) -> None:
        token = data.draw(st.sampled_from(sorted(self.restrictions)), label="restriction")
        self.dispose_held(next(h for h in self.held if h.token == token))

    @rule(data=st.data())
    def guard(self, data: st.DataObject) -> None:
        scope = data.draw(st.sampled_from(self.scope_choices()), label="scope")

        def guard(execution: ToolExecution) -> str | None:
            return None

        kind = None
        if scope is not None and scope not in self.scopes:
            kind = RegistryErrorKind.UNKNOWN_SCOPE
        if (
            disposer := self.attempt("guard", kind, lambda: self.location.guard(guard, scope))
        ) is not None:
            token = self._hold(disposer, "guard", scope)
            self.guards[token] = ModelGuard(scope, guard)

    @rule(data=st.data())
    def present_as(self, data: st.DataObject) -> None:
        scope = cast(str, data.draw(st.sampled_from(self.scope_choices(with_global=False))))
        mode = data.draw(st.sampled_from(MODES), label="mode")
        kind = None
        if scope not in self.scopes:
            kind = RegistryErrorKind.UNKNOWN_SCOPE
        elif scope in self.modes:
            kind = RegistryErrorKind.PRESENTATION_DECLARED
        if (
            disposer := self.attempt(
                "present_as", kind, lambda: self.location.present_as(scope, mode)
            )
        ) is not None:
            token = self._hold(disposer, "presentation", scope)
            self.modes[scope] = (token, mode)
            self.expected_notified += 1

    @precondition(lambda self: bool(self.scopes))
    @rule(data=st.data())
    def remove_scope(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from(sorted(self.scopes)), label="scope")
        token = self.scopes[key].token
        self.dispose_held(next(h for h in self.held if h.token == token))

    @precondition(lambda self: bool(self.held))
    @rule(data=st.data())
    def dispose(self, data: st.DataObject) -> None:
        """Any disposer, including shadowed, disposed and orphaned ones."""
        self.dispose_held(data.draw(st.sampled_from(self.held), label="disposer"))

    def dispose_held(self, held: Held) -> None:
        notifies = False
        self.steps += 1
        match held.kind:
            case "scope":
                key = cast(str, held.scope)
                if key in self.scopes and self.scopes[key].token == held.token:
                    self._remove_scope(key)
                    notifies = True
            case "registration":
                stack = self.stacks.get((held.scope, held.name), [])
                tokens = [r.token for r in stack]
                if held.token in tokens:
                    notifies = tokens[-1] == held.token
                    del stack[tokens.index(held.token)]
            case "restriction":
                notifies = self.restrictions.pop(held.token, None) is not None
            case "guard":
                self.guards.pop(held.token, None)
            case "presentation":
                key = cast(str, held.scope)
                if self.modes.get(key, (0, DEFAULT_MODE))[0] == held.token:
                    del self.modes[key]
                    notifies = True
        held.disposer()
        self.expected_notified += notifies
        event(f"dispose {held.kind}: {'visible' if notifies else 'silent'}")

    @rule(data=st.data())
    def take_snapshot(self, data: st.DataObject) -> None:
        """Keep two catalogs of one scope, one read now and one unread, and what they answer."""
        scope = data.draw(st.sampled_from([None, *self.scopes]), label="scope")
        view = self.view(scope)
        read, unread = self.location.catalog(scope), self.location.catalog(scope)
        check_catalog(read, view)
        self.snapshots = [*self.snapshots[-4:], (read, view), (unread, view)]

    def teardown(self) -> None:
        depth = max((len(self._chain(k)) for k in self.scopes), default=0)
        event(f"operations: {self.steps // 10 * 10}+, final scope depth {depth}")

    def _chain(self, key: Key) -> list[str]:
        return [] if key is None else [key, *self._chain(self.scopes[key].parent)]

    # Invariants -------------------------------------------------------------------------------

    @invariant()
    def catalogs_agree_with_the_model(self) -> None:
        for scope in (GLOBAL, *self.scopes):
            check_catalog(self.location.catalog(scope), self.view(scope))
        for gone in set(SCOPE_KEYS) - set(self.scopes):
            with pytest.raises(RegistryError) as caught:
                self.location.catalog(gone)
            assert caught.value.kind is RegistryErrorKind.UNKNOWN_SCOPE

    @invariant()
    def views_derived_by_the_change_equal_a_full_compile(self) -> None:
        registry = self.location.registry
        whole = registry.with_deps(
            registry.deps
        )  # the same value, no view before it to derive from
        for scope in (GLOBAL, *self.scopes):
            assert same_view(registry.catalog(scope).view, whole.catalog(scope).view), scope

    @invariant()
    def snapshots_never_change(self) -> None:
        for catalog, view in self.snapshots:
            check_catalog(catalog, view)

    @invariant()
    def notifications_agree_with_the_model(self) -> None:
        assert self.notified == self.expected_notified
        assert len(self.defects) == self.expected_notified  # the raising listener, contained
        assert all(isinstance(d, RuntimeError) for d in self.defects)


TestRegistryState = RegistryMachine.TestCase
TestRegistryState.settings = settings(
    max_examples=max(200, settings().max_examples), stateful_step_count=30
)
