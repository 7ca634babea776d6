"""The official JSON-Schema-Test-Suite (Draft 2020-12) under both profiles.

Every case a profile accepts must give every test its expected verdict: this is what proves that
nothing accepted goes unenforced. Every case a profile rejects must be rejected with reasons; for
the full profile, the rejected files and the reason for each are listed below and nothing else may
be rejected.

Two adjustments, both explicit:
- The suite names the dialect with a root `"$schema"` in every case. The portable subset has no
  `$schema` keyword, so for the portable profile a root `$schema` naming Draft 2020-12 is removed
  (it changes nothing: our validators always use Draft 2020-12).
- The full profile turns format assertion on (so a `format` is enforced, not just an annotation).
  `format.json` tests that an invalid string passes "only as an annotation by default"; under
  assertion those strings are invalid, listed in `ASSERTED_FORMATS`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest
from returns.pipeline import is_successful
from returns.result import Failure

from toolfx.core.jsonschema import Profile, compile_json_schema

SUITE: Final = Path(__file__).parent / "json_schema_test_suite" / "draft2020-12"
DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

ASSERTED_FORMATS: Final = (
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
)  # fmt: skip
"""Formats whose format.json "annotation by default" test is invalid under assertion."""

FULL_REJECTIONS: Final = {
    "refRemote.json": (15, "points outside this schema"),  # remote refs: there is no network
    "dynamicRef.json": (5, "points outside this schema"),  # the same, from $dynamicRef cases
    "content.json": (4, "would not be enforced"),  # contentMediaType/Encoding are annotations
    "vocabulary.json": (2, "Draft 2020-12 dialect"),  # custom meta-schemas via $schema
    "optional/format/unknown.json": (1, "not checked by the validator"),  # unknown format
}
"""Per file: how many cases the full profile rejects, and words its reasons must contain."""


@dataclass(frozen=True, slots=True)
class Case:
    """One schema of the suite with its tests."""

    file: str
    description: str
    schema: Any
    tests: tuple[tuple[str, Any, bool], ...]


def _load() -> list[Case]:
    files = sorted(SUITE.glob("*.json")) + sorted((SUITE / "optional" / "format").glob("*.json"))
    cases: list[Case] = []
    for path in files:
        name = path.relative_to(SUITE).as_posix()
        for raw in json.loads(path.read_text(encoding="utf-8")):
            tests = tuple((t["description"], t["data"], t["valid"]) for t in raw["tests"])
            cases.append(Case(name, raw["description"], raw["schema"], tests))
    return cases


CASES: Final = _load()


def _id(case: Case) -> str:
    return f"{case.file}:{case.description[:60]}"


def _expected(case: Case, description: str, valid: bool) -> bool:
    if case.file == "format.json" and any(
        description == f"invalid {name} string is only an annotation by default"
        for name in ASSERTED_FORMATS
    ):
        return False
    return valid


def _for_profile(schema: Any, profile: Profile) -> Any:
    if profile == "portable" and isinstance(schema, Mapping) and schema.get("$schema") == DIALECT:
        return {key: value for key, value in schema.items() if key != "$schema"}
    return schema


@cache
def _accepted(profile: Profile, index: int) -> bool:
    return is_successful(compile_json_schema(_for_profile(CASES[index].schema, profile), profile))


def _run(case: Case, profile: Profile) -> None:
    result = compile_json_schema(_for_profile(case.schema, profile), profile)
    if isinstance(result, Failure):
        problems = result.failure().problems
        assert problems
        assert all(problem.reason for problem in problems)
        return
    compiled = result.unwrap()
    for description, data, valid in case.tests:
        verdict = is_successful(compiled.validate(data))
        assert verdict == _expected(case, description, valid), description


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_portable_enforces_every_case_it_accepts(case: Case) -> None:
    _run(case, "portable")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_full_enforces_every_case_it_accepts(case: Case) -> None:
    _run(case, "full")


def test_full_rejects_only_the_listed_cases_for_the_listed_reasons() -> None:
    rejected: dict[str, int] = {}
    for case in CASES:
        result = compile_json_schema(case.schema, "full")
        if not isinstance(result, Failure):
            continue
        assert case.file in FULL_REJECTIONS, (case.file, case.description, str(result.failure()))
        words = FULL_REJECTIONS[case.file][1]
        assert any(words in problem.reason for problem in result.failure().problems)
        rejected[case.file] = rejected.get(case.file, 0) + 1
    assert rejected == {file: count for file, (count, _) in FULL_REJECTIONS.items()}


def test_every_format_exception_is_in_the_suite() -> None:
    annotation_tests = {
        description
        for case in CASES
        if case.file == "format.json"
        for description, _, valid in case.tests
        if valid and "only an annotation by default" in description
    }
    expected = {
        f"invalid {name} string is only an annotation by default" for name in ASSERTED_FORMATS
    }
    assert annotation_tests == expected


def test_the_profiles_accept_enough_of_the_suite() -> None:
    portable = sum(_accepted("portable", index) for index in range(len(CASES)))
    full = sum(_accepted("full", index) for index in range(len(CASES)))
    print(f"{len(CASES)} cases: portable accepts {portable}, full accepts {full}")
    assert len(CASES) == 390
    assert portable >= 25
    assert full >= 360
    assert full == len(CASES) - sum(count for count, _ in FULL_REJECTIONS.values())
