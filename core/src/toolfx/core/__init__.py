"""toolfx core: lossless JSON, schemas from types, tool definitions and results (sans-IO)."""

from toolfx.core.content import ContentBlock, ContextMessage, ImageBlock, TextBlock, text
from toolfx.core.context import ToolCallIdentity, ToolRunContext
from toolfx.core.failure import ErrorCode, ToolErrorInfo, ToolFailure
from toolfx.core.json import (
    FrozenDict,
    FrozenJson,
    FrozenList,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    JsonValue,
    parse_json,
    snapshot_json,
    thaw_json,
)
from toolfx.core.jsonschema import (
    CheckedSchema,
    CompiledSchema,
    JsonSchemaError,
    Profile,
    SchemaProblem,
    ValidationFailure,
    ValidationIssue,
    check_json_schema,
    compile_json_schema,
)
from toolfx.core.results import (
    DurableResult,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.core.schema import SchemaDerivationError, ValueSchema, schema_of
from toolfx.core.tool import (
    Output,
    ToolDefinition,
    ToolDefinitionError,
    ToolOptions,
    define_tool,
    render_json,
)

__all__ = [
    "CheckedSchema",
    "CompiledSchema",
    "ContentBlock",
    "ContextMessage",
    "DurableResult",
    "ErrorCode",
    "FrozenDict",
    "FrozenJson",
    "FrozenList",
    "ImageBlock",
    "JsonError",
    "JsonErrorKind",
    "JsonLimits",
    "JsonSchemaError",
    "JsonValue",
    "Output",
    "Profile",
    "SchemaDerivationError",
    "SchemaProblem",
    "TextBlock",
    "ToolCallIdentity",
    "ToolDefinition",
    "ToolDefinitionError",
    "ToolErrorInfo",
    "ToolExecutionFailure",
    "ToolExecutionResult",
    "ToolExecutionSuccess",
    "ToolFailure",
    "ToolOptions",
    "ToolRunContext",
    "ValidationFailure",
    "ValidationIssue",
    "ValueSchema",
    "check_json_schema",
    "compile_json_schema",
    "define_tool",
    "parse_json",
    "render_json",
    "schema_of",
    "snapshot_json",
    "text",
    "thaw_json",
]
