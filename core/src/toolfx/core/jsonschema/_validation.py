"""Validation failures written for a model: where, what was expected, what was there.

`ValidationIssue` is one problem in an instance (a JSON pointer, the expectation, a short rendering
of the value found); `ValidationFailure` keeps every issue and renders a short message that lists
the first few, so a model can fix its call in one retry. `issues_from_errors` turns jsonschema-rs
errors into issues, reading the schema where that makes the wording better (allowed property
names, the branches of a `oneOf`, the declared type next to a bound).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, TypeGuard, final

from jsonschema_rs import ValidationError, ValidationErrorKind

from toolfx.core.json import (
    MAX_RENDERED_CHARS,
    FrozenJson,
    describe_schema,
    describe_value,
    json_pointer,
    names,
    plural,
    render_literal,
    truncate,
)

__all__ = [
    "MAX_LISTED_ISSUES",
    "ValidationFailure",
    "ValidationIssue",
    "issues_from_errors",
    "where",
]

MAX_LISTED_ISSUES: Final = 10
"""How many issues `ValidationFailure.message` lists before "... and N more"."""

_Segments = Sequence[str | int]


@final
@dataclass(frozen=True, slots=True)
class ValidationIssue:
    """One problem in a value: where (a JSON pointer), what was expected, what was there."""

    path: str
    expected: str
    found: str

    def __str__(self) -> str:
        return f"{where(self.path)}: expected {self.expected}, found {self.found}"


@final
@dataclass(frozen=True, slots=True)
class ValidationFailure:
    """Every problem found in one value (never empty), with a short message for a model."""

    issues: tuple[ValidationIssue, ...]

    def message(self, subject: str) -> str:
        """Render the subject, the count and the first issues, one a line."""
        count = len(self.issues)
        lines = [f"{subject}: {count} problem{'' if count == 1 else 's'}"]
        lines.extend(f"- {issue}" for issue in self.issues[:MAX_LISTED_ISSUES])
        if count > MAX_LISTED_ISSUES:
            lines.append(f"... and {count - MAX_LISTED_ISSUES} more")
        return "\n".join(lines)


def where(path: str) -> str:
    """Render a JSON pointer for a message: the pointer itself, or "(root)" for the root."""
    return path if path else "(root)"


def _is_list(value: object) -> TypeGuard[Sequence[object]]:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _at(value: object, segments: _Segments) -> object:
    """The part of a JSON value a path names, or None when the path does not resolve."""
    for segment in segments:
        if isinstance(value, Mapping) and isinstance(segment, str):
            value = value.get(segment)
        elif (
            isinstance(value, Sequence)
            and not isinstance(value, str)
            and isinstance(segment, int)
            and 0 <= segment < len(value)
        ):
            value = value[segment]
        else:
            return None
    return value


@final
class _Context:
    """What converting one error needs: the instance and the schema it was checked against."""

    __slots__ = ("instance", "schema")

    def __init__(self, instance: object, schema: FrozenJson) -> None:
        self.instance = instance
        self.schema = schema

    def sibling(self, error: ValidationError, keyword: str) -> object:
        """The value of `keyword` next to the failing keyword, when the schema path resolves."""
        node = _at(self.schema, error.schema_path[:-1])
        return node.get(keyword) if isinstance(node, Mapping) else None


def issues_from_errors(
    errors: Iterable[ValidationError], instance: FrozenJson, schema: FrozenJson
) -> tuple[ValidationIssue, ...]:
    """Turn jsonschema-rs errors for `instance` into issues written for a model."""
    context = _Context(instance, schema)
    issues: list[ValidationIssue] = []
    for error in errors:
        issues.extend(_convert(error, context))
    return tuple(issues)


def _convert(error: ValidationError, context: _Context) -> list[ValidationIssue]:
    segments = error.instance_path
    path = json_pointer(segments)
    value = _at(context.instance, segments)
    kind = error.kind
    if isinstance(kind, ValidationErrorKind.AdditionalProperties):
        allowed = context.sibling(error, "properties")
        suffix = f" (allowed: {names(allowed)})" if isinstance(allowed, Mapping) else ""
        return [
            ValidationIssue(
                json_pointer([*segments, key]),
                f"no property '{key}'{suffix}",
                describe_value(_at(value, [key])),
            )
            for key in kind.unexpected
        ]
    if isinstance(kind, ValidationErrorKind.UnevaluatedProperties):
        return [
            ValidationIssue(
                json_pointer([*segments, key]),
                f"no property '{key}' (no keyword of the schema declares it)",
                describe_value(_at(value, [key])),
            )
            for key in kind.unexpected
        ]
    if isinstance(kind, ValidationErrorKind.Required):
        return [ValidationIssue(path, f"required property '{kind.property}'", "object without it")]
    if isinstance(kind, ValidationErrorKind.PropertyNames):
        inner = kind.error
        name = inner.instance
        expected = _expected(inner, _Context(name, context.schema), name)
        return [ValidationIssue(path, f"property names that are {expected}", _key(name))]
    if isinstance(kind, ValidationErrorKind.OneOfNotValid | ValidationErrorKind.AnyOf):
        return _alternatives(error, kind.context, context, value)
    return [ValidationIssue(path, _expected(error, context, value), describe_value(value))]


def _key(name: object) -> str:
    return f"property name {describe_value(name).removeprefix('string ')}"


def _alternatives(
    error: ValidationError,
    branches: list[list[ValidationError]],
    context: _Context,
    value: object,
) -> list[ValidationIssue]:
    """A failed oneOf/anyOf: name the branches; add the errors of the one that came closest."""
    keyword = "exactly one" if error.kind.name == "oneOf" else "at least one"
    labels = _branch_labels(error, branches, context)
    expected = f"{keyword} of: {' | '.join(labels)} (none matched)"
    issues = [ValidationIssue(json_pointer(error.instance_path), expected, describe_value(value))]
    depth = len(error.instance_path)
    closest = [branch for branch in branches if branch and not _ruled_out(branch, depth)]
    if len(closest) == 1:
        for inner in closest[0]:
            issues.extend(_convert(inner, context))
    return issues


def _ruled_out(branch: list[ValidationError], depth: int) -> bool:
    """Whether a failed branch is plainly another shape (its type or a discriminator differs)."""
    for inner in branch:
        kind = inner.kind
        if isinstance(kind, ValidationErrorKind.Constant | ValidationErrorKind.Enum):
            return True
        if len(inner.instance_path) == depth and not isinstance(kind, ValidationErrorKind.Required):
            return True
    return False


def _branch_labels(
    error: ValidationError, branches: list[list[ValidationError]], context: _Context
) -> list[str]:
    declared = _at(context.schema, error.schema_path)
    if _is_list(declared) and len(declared) == len(branches):
        return [describe_schema(s, f"alternative #{i}") for i, s in enumerate(declared)]
    labels: list[str] = []
    for index, branch in enumerate(branches):
        types = [
            " or ".join(inner.kind.types)
            for inner in branch
            if isinstance(inner.kind, ValidationErrorKind.Type)
            and inner.instance_path == error.instance_path
        ]
        labels.append(types[0] if types else f"alternative #{index}")
    return labels


def _bound(error: ValidationError, context: _Context, relation: str, limit: object) -> str:
    declared = context.sibling(error, "type")
    kind = declared if declared in ("integer", "number") else "number"
    return f"{kind} {relation} {render_literal(limit)}"


def _expected(error: ValidationError, context: _Context, value: object) -> str:
    kind = error.kind
    keyword = error.schema_path[-1] if error.schema_path else ""
    match kind:
        case ValidationErrorKind.Type(types=types):
            return " or ".join(types)
        case ValidationErrorKind.Enum(options=options):
            return "one of " + truncate(", ".join(render_literal(o) for o in options), 200)
        case ValidationErrorKind.Constant(expected_value=constant):
            return f"exactly {render_literal(constant)}"
        case ValidationErrorKind.Minimum(limit=limit):
            return _bound(error, context, ">=", limit)
        case ValidationErrorKind.ExclusiveMinimum(limit=limit):
            return _bound(error, context, ">", limit)
        case ValidationErrorKind.Maximum(limit=limit):
            return _bound(error, context, "<=", limit)
        case ValidationErrorKind.ExclusiveMaximum(limit=limit):
            return _bound(error, context, "<", limit)
        case ValidationErrorKind.MultipleOf(multiple_of=step):
            return f"a multiple of {render_literal(step)}"
        case ValidationErrorKind.MinLength(limit=limit):
            return f"string of at least {plural(limit, 'character')}"
        case ValidationErrorKind.MaxLength(limit=limit):
            return f"string of at most {plural(limit, 'character')}"
        case ValidationErrorKind.MinItems(limit=limit):
            return f"at least {plural(limit, 'item')}"
        case ValidationErrorKind.MaxItems(limit=limit):
            return f"at most {plural(limit, 'item')}"
        case ValidationErrorKind.MinProperties(limit=limit):
            return f"at least {limit} {'property' if limit == 1 else 'properties'}"
        case ValidationErrorKind.MaxProperties(limit=limit):
            return f"at most {limit} {'property' if limit == 1 else 'properties'}"
        case ValidationErrorKind.UniqueItems():
            return "items that are all different"
        case ValidationErrorKind.Pattern(pattern=pattern):
            return f"string matching the pattern {truncate(pattern)}"
        case ValidationErrorKind.Format(format=name):
            return f"string in '{name}' format"
        case ValidationErrorKind.Contains():
            return _contains(error, context, keyword)
        case ValidationErrorKind.Not(schema=schema):
            label = describe_schema(schema, "")
            return f"a value that is not {label}" if label else "a value the 'not' schema rejects"
        case ValidationErrorKind.FalseSchema():
            return "nothing (no value is allowed here)"
        case ValidationErrorKind.OneOfMultipleValid(context=branches):
            labels = _branch_labels(error, branches, context)
            matched = [labels[i] for i, branch in enumerate(branches) if not branch]
            return (
                f"exactly one of: {' | '.join(labels)} "
                f"(but {len(matched)} matched: {' | '.join(matched)})"
            )
        case ValidationErrorKind.UnevaluatedItems(unexpected=extra):
            return (
                f"no items beyond those the schema describes ({plural(len(extra), 'extra item')})"
            )
        case _:
            return truncate(error.message.split("\n", 1)[0], 2 * MAX_RENDERED_CHARS)


def _contains(error: ValidationError, context: _Context, keyword: str | int) -> str:
    count = context.sibling(error, keyword) if isinstance(keyword, str) else None
    if keyword == "minContains" and isinstance(count, int):
        return f"at least {plural(count, 'item')} matching 'contains'"
    if keyword == "maxContains" and isinstance(count, int):
        return f"at most {plural(count, 'item')} matching 'contains'"
    return "at least one item matching 'contains'"
