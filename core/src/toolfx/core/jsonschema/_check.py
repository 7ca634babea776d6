"""Raw JSON Schemas: check them against a profile, compile them once, validate values with them.

`check_json_schema` snapshots a raw schema and reports every unsupported or malformed path at once
(`JsonSchemaError`). Profile `portable` is exactly the spec's enforced subset; profile `full` is
every Draft 2020-12 keyword jsonschema-rs really enforces. Nothing is accepted without being
enforced. `compile_json_schema` gives a `CompiledSchema` whose jsonschema-rs validator is cached by
the schema's canonical text, and whose `validate` returns the frozen value or every issue.

Integers with more digits than Python converts to text (`sys.get_int_max_str_digits()`, 4,300 by
default) are refused in schemas and in validated values: jsonschema-rs reads big integers through
their text and silently misjudges those (it accepts 10**5000 for `{"maximum": 5}`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Final, cast, final

import jsonschema_rs
from returns.result import Failure, Result, Success

from toolfx.core.json import FrozenJson, is_frozen_json, json_pointer, snapshot_json
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

VALIDATOR_CACHE_SIZE: Final = 1024
"""How many compiled validators are kept (least recently used first out)."""


@final
@dataclass(frozen=True, slots=True)
class CheckedSchema:
    """A raw schema that passed the checker for a profile, as a deep-frozen copy."""

    schema: FrozenJson
    profile: Profile


@final
@dataclass(frozen=True, slots=True, eq=False)
class CompiledSchema:
    """A checked schema plus its cached jsonschema-rs validator."""

    checked: CheckedSchema
    validator: jsonschema_rs.Validator = field(repr=False)

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
        if self.validator.is_valid(frozen):
            return Success(frozen)
        return Failure(self.failure_for(frozen))

    def is_valid_frozen(self, value: FrozenJson) -> bool:
        """Whether an already frozen value is valid: the hot path, with no snapshot."""
        return self.validator.is_valid(value)

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
    snapshot = snapshot_json(raw)
    if isinstance(snapshot, Failure):
        error = snapshot.failure()
        return Failure(JsonSchemaError((SchemaProblem(error.path, f"not JSON: {error.reason}"),)))
    schema = snapshot.unwrap()
    problems = portable_problems(schema) if profile == "portable" else full_problems(schema)
    if problems:
        return Failure(JsonSchemaError(tuple(problems)))
    return Success(CheckedSchema(schema, profile))


def compile_json_schema(
    raw: object | CheckedSchema, profile: Profile = "portable"
) -> Result[CompiledSchema, JsonSchemaError]:
    """Check a raw schema (unless already checked for `profile`) and compile its validator."""
    if isinstance(raw, CheckedSchema) and raw.profile == profile:
        checked: Result[CheckedSchema, JsonSchemaError] = Success(raw)
    else:
        checked = check_json_schema(raw.schema if isinstance(raw, CheckedSchema) else raw, profile)
    return checked.bind(_compile)


def _compile(checked: CheckedSchema) -> Result[CompiledSchema, JsonSchemaError]:
    view = validation_view(checked.schema) if checked.profile == "portable" else checked.schema
    try:
        text = json.dumps(view, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        validator = _validator_for(text)
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        path = json_pointer(getattr(exc, "instance_path", None) or ())
        reason = str(exc).split("\n", 1)[0]
        return Failure(
            JsonSchemaError((SchemaProblem(path, f"the validator refused it: {reason}"),))
        )
    return Success(CompiledSchema(checked, validator))


@functools.lru_cache(maxsize=VALIDATOR_CACHE_SIZE)
def _validator_for(text: str) -> jsonschema_rs.Validator:
    """Compile (once per canonical schema text) the validator: formats checked, no network."""
    return jsonschema_rs.Draft202012Validator(
        json.loads(text),
        validate_formats=True,
        ignore_unknown_formats=False,
        offline=True,
    )
