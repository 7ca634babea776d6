"""Raw JSON Schemas: check against the dialect, compile, validate with issues that name paths."""

from toolfx.core.jsonschema._check import (
    VALIDATOR_CACHE_SIZE,
    CheckedSchema,
    CompiledSchema,
    check_json_schema,
    compile_json_schema,
)
from toolfx.core.jsonschema._problems import JsonSchemaError, Problems, Profile, SchemaProblem
from toolfx.core.jsonschema._refs import NO_TARGET, follow_pointer
from toolfx.core.jsonschema._validation import ValidationFailure, ValidationIssue

__all__ = [
    "NO_TARGET",
    "VALIDATOR_CACHE_SIZE",
    "CheckedSchema",
    "CompiledSchema",
    "JsonSchemaError",
    "Problems",
    "Profile",
    "SchemaProblem",
    "ValidationFailure",
    "ValidationIssue",
    "check_json_schema",
    "compile_json_schema",
    "follow_pointer",
]
