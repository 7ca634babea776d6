"""Raw JSON Schemas: check them against a profile, compile them once, validate values with them.

`check_json_schema` snapshots a raw schema and reports every unsupported or malformed path at once
(`JsonSchemaError`). Profile `portable` is exactly the spec's enforced subset; profile `full` is
every Draft 2020-12 keyword jsonschema-rs really enforces. Nothing is accepted without being
enforced. `compile_json_schema` gives a `CompiledSchema` whose `validate` returns the frozen value
or every issue; structurally equal schemas (the same JSON text, every keyword and key order
included) share one, with its frozen schema and its jsonschema-rs validator, while something
holds it; schemas equal but for key order share the validator.

A portable schema's validator is compiled on its first use, not when the schema is compiled:
registering 10,000 tools compiles nothing, and only the tools a model calls pay for it. That is
safe because the snapshot and the portable check refuse every schema jsonschema-rs would refuse
(a property test holds them to it), so a portable schema accepted now never fails later. A full
profile schema is compiled at once: its surface ($ref to the meta-schemas, URIs, regexes, big
counts) is too wide to prove the check covers, so jsonschema-rs itself is the last check.

Integers with more digits than Python converts to text (`sys.get_int_max_str_digits()`, 4,300 by
default) are refused in schemas and in validated values: jsonschema-rs reads big integers through
their text and silently misjudges those (it accepts 10**5000 for `{"maximum": 5}`).
"""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar, cast, final

import jsonschema_rs
from returns.result import Failure, Result, Success

from toolfx.core.json import (
    FrozenJson,
    JsonError,
    is_frozen_json,
    json_pointer,
    snapshot_json,
    snapshot_or_error,
)
from toolfx.core.jsonschema._full import full_problems
from toolfx.core.jsonschema._portable import portable_problems, validation_view
from toolfx.core.jsonschema._problems import JsonSchemaError, Profile, SchemaProblem
from toolfx.core.jsonschema._validation import (
    ValidationFailure,
    ValidationIssue,
    issues_from_errors,
)

__all__ = [
    "VALIDATOR_CACHE_SIZE",
    "CheckedSchema",
    "CompiledSchema",
    "check_json_schema",
    "compile_json_schema",
]

_T = TypeVar("_T")

VALIDATOR_CACHE_SIZE: Final = 1024
"""How many compiled validators are kept (least recently used first out)."""


@final
@dataclass(frozen=True, slots=True)
class CheckedSchema:
    """A raw schema that passed the checker for a profile, as a deep-frozen copy."""

    schema: FrozenJson
    profile: Profile


@final
@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class CompiledSchema:
    """A checked schema plus its jsonschema-rs validator, compiled once, on first use for the
    portable profile (see the module's docstring)."""

    checked: CheckedSchema
    _validator: jsonschema_rs.Validator | None = field(default=None, init=False, repr=False)
    _is_valid: Callable[[FrozenJson], bool] | None = field(default=None, init=False, repr=False)

    @property
    def validator(self) -> jsonschema_rs.Validator:
        """The jsonschema-rs validator, compiled on first use (at once for the full profile)."""
        validator = self._validator
        return validator if validator is not None else self._compile()[0]

    @property
    def is_valid_frozen(self) -> Callable[[FrozenJson], bool]:
        """Whether an already frozen value is valid: the validator's own method (bound once,
        shared by every schema holding this one), for hot paths to keep and call with no
        snapshot; the validator is compiled on first use."""
        is_valid = self._is_valid
        return is_valid if is_valid is not None else self._compile()[1]

    def _compile(self) -> tuple[jsonschema_rs.Validator, Callable[[FrozenJson], bool]]:
        """Compile the validator, or share the one of a living schema with the same view.

        Without a lock (the core has no threads): threads first using a schema at the same
        moment may each compile one, from the same text, so equal; each checks its value with
        its own, and the last one stored stays for every later use.
        """
        text = _view_text(self.checked)
        living = _BY_VIEW.get(text)  # entered below once its validator is stored
        validator = living.validator if living is not None else _validator_for(text)
        is_valid = validator.is_valid
        object.__setattr__(self, "_validator", validator)
        object.__setattr__(self, "_is_valid", is_valid)
        if living is None:
            _BY_VIEW[text] = self
        return validator, is_valid

    def validate(self, value: object) -> Result[FrozenJson, ValidationFailure]:
        """Give the value deep-frozen when it is valid, or every problem in it."""
        if is_frozen_json(value):
            frozen = cast(FrozenJson, value)
        else:
            snapshot = snapshot_json(value)
            if isinstance(snapshot, Failure):
                error = snapshot.failure()
                return Failure(
                    ValidationFailure((ValidationIssue(error.path, "JSON", error.reason),))
                )
            frozen = snapshot.unwrap()
        if self.is_valid_frozen(frozen):
            return Success(frozen)
        return Failure(self.failure_for(frozen))

    def failure_for(self, value: FrozenJson) -> ValidationFailure:
        """Collect every problem in a frozen value the validator rejects."""
        issues = issues_from_errors(self.validator.iter_errors(value), value, self.checked.schema)
        if not issues:  # a defect in jsonschema-rs if reached; keep the failure non-empty anyway
            issues = (ValidationIssue("", "a value valid for the schema", "no error reported"),)
        return ValidationFailure(issues)


def check_json_schema(
    raw: object, profile: Profile = "portable"
) -> Result[CheckedSchema, JsonSchemaError]:
    """Check a raw schema against a profile, reporting every problem at once."""
    schema = _snapshot(raw)
    if isinstance(schema, JsonSchemaError):
        return Failure(schema)
    return _result(_checked(schema, profile))


def compile_json_schema(
    raw: object | CheckedSchema, profile: Profile = "portable"
) -> Result[CompiledSchema, JsonSchemaError]:
    """Check a raw schema (unless already checked for `profile`) and compile its validator
    (on its first use for the portable profile: see the module's docstring).

    A schema whose exact text (and profile) equals one compiled before, and still held
    somewhere, gives that same `CompiledSchema`: checked and compiled once, stored once.
    """
    if isinstance(raw, CheckedSchema):
        return _result(_compiled_once(raw, raw.schema, profile))
    held, text = _held_equal(raw, profile)
    if held is not None:
        return Success(held)
    schema = _snapshot(raw)
    if isinstance(schema, JsonSchemaError):
        return Failure(schema)
    return _result(_compiled_once(raw, schema, profile, text if schema == raw else None))


def _result(outcome: _T | JsonSchemaError) -> Result[_T, JsonSchemaError]:
    return Failure(outcome) if isinstance(outcome, JsonSchemaError) else Success(outcome)


def _held_equal(raw: object, profile: Profile) -> tuple[CompiledSchema | None, str | None]:
    """The compiled schema held for a raw schema equal to it, found without a snapshot, and
    the raw schema's exact text (None when it has none).

    Equal text and equal value (so no key that is not a string, no tuple for a list) mean the
    snapshot would be exactly the held schema; anything else takes the whole way.
    """
    try:
        text = _exact_text(raw)  # type: ignore[arg-type]  # any value: dumps may refuse it
    except (TypeError, ValueError, RecursionError):
        return None, None
    found = _COMPILED.get((profile, text))
    return (found if found is not None and found.checked.schema == raw else None), text


def _exact_text(schema: FrozenJson) -> str:
    """The schema as JSON text in its own key order (no spaces): equal text, equal schema with
    the same order, so a shared compiled schema shows every holder its own properties' order."""
    return _EXACT_WRITER(schema)


def _canonical_text(schema: FrozenJson) -> str:
    """The schema as canonical JSON text (keys sorted, no spaces): equal text, equal schema
    (whatever the key order: what a validator depends on)."""
    return _CANONICAL_WRITER(schema)


# What json.dumps with these options does, with the encoder made once instead of per call.
_EXACT_WRITER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_CANONICAL_WRITER: Final = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, separators=(",", ":")
).encode


_COMPILED: Final[weakref.WeakValueDictionary[tuple[Profile, str], CompiledSchema]] = (
    weakref.WeakValueDictionary()
)
"""Every compiled schema something still holds, by profile and exact text: an entry goes
with its last holder, so registering hostile schemas grows nothing beyond what holds them."""


def _compiled_once(
    raw: object, schema: FrozenJson, profile: Profile, text: str | None = None
) -> CompiledSchema | JsonSchemaError:
    """The compiled schema of a snapshot; `text`, when given, is the exact text of a raw
    schema equal to it (the same text: equal values of JSON types write alike)."""
    key = (profile, _exact_text(schema) if text is None else text)
    found = _COMPILED.get(key)
    if found is not None:
        return found
    if isinstance(raw, CheckedSchema) and raw.profile == profile:
        checked: CheckedSchema | JsonSchemaError = raw
    else:
        checked = _checked(schema, profile)
    if isinstance(checked, JsonSchemaError):
        return checked
    compiled = _compile(checked)
    if isinstance(compiled, CompiledSchema):
        _COMPILED[key] = compiled
    return compiled


def _snapshot(raw: object) -> FrozenJson | JsonSchemaError:
    snapshot = snapshot_or_error(raw)
    if isinstance(snapshot, JsonError):
        problem = SchemaProblem(snapshot.path, f"not JSON: {snapshot.reason}")
        return JsonSchemaError((problem,))
    return cast(FrozenJson, snapshot)


def _checked(schema: FrozenJson, profile: Profile) -> CheckedSchema | JsonSchemaError:
    problems = portable_problems(schema) if profile == "portable" else full_problems(schema)
    if problems:
        return JsonSchemaError(tuple(problems))
    return CheckedSchema(schema, profile)


_BY_VIEW: Final[weakref.WeakValueDictionary[str, CompiledSchema]] = weakref.WeakValueDictionary()
"""A compiled schema whose validator is compiled and which something still holds, by the
canonical text of its validation view: the validator every schema with that view shares while
one lives (the LRU below may have let go of it), so sharing never depends on how many other
schemas were compiled in between."""


def _compile(checked: CheckedSchema) -> CompiledSchema | JsonSchemaError:
    compiled = CompiledSchema(checked)
    if checked.profile == "portable":
        return compiled  # compiled on first use: it cannot be refused then
    try:
        compiled._compile()  # the full profile: compiled now, so refused now
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        path = json_pointer(getattr(exc, "instance_path", None) or ())
        reason = str(exc).split("\n", 1)[0]
        return JsonSchemaError((SchemaProblem(path, f"the validator refused it: {reason}"),))
    return compiled


def _view_text(checked: CheckedSchema) -> str:
    """The canonical text of what the validator checks: portable annotations left out."""
    schema = checked.schema
    return _canonical_text(validation_view(schema) if checked.profile == "portable" else schema)


@functools.lru_cache(maxsize=VALIDATOR_CACHE_SIZE)
def _validator_for(text: str) -> jsonschema_rs.Validator:
    """Compile (once per canonical schema text) the validator: formats checked, no network."""
    return jsonschema_rs.Draft202012Validator(
        json.loads(text),
        validate_formats=True,
        ignore_unknown_formats=False,
        offline=True,
    )
