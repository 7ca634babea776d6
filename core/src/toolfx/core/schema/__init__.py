"""A Python type turned into a JSON Schema, a validator and a decoder back to the type."""

from toolfx.core.schema._types import SchemaDerivationError
from toolfx.core.schema._value_schema import ValueSchema, raw_schema, schema_of

__all__ = ["SchemaDerivationError", "ValueSchema", "raw_schema", "schema_of"]
