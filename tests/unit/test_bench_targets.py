"""The bench table's target verdicts: a case named "target <= N: ..." or "target < N: ..."."""

from __future__ import annotations

import pytest

from tests.bench.__main__ import format_table, verdict


@pytest.mark.parametrize(
    ("case", "value", "expected"),
    [
        ("target <= 1: per sub-call / budget (x)", 1.0, "met"),
        ("target <= 1: per sub-call / budget (x)", 1.01, "MISSED"),
        ("target < 10: overhead (µs)", 9.99, "met"),
        ("target < 10: overhead (µs)", 10.0, "MISSED"),
        ("target <= 1.5: batch / gather (x)", 0.2, "met"),
        ("native execute per call", 99.0, ""),
        ("a row that mentions target <= 1: later", 5.0, ""),
    ],
)
def test_a_target_row_says_whether_its_value_meets_it(
    case: str, value: float, expected: str
) -> None:
    assert verdict(case, value) == expected


def test_the_table_shows_the_verdict_at_the_end_of_target_rows_only() -> None:
    table = format_table([("t", "target <= 1: ratio (x)", 2.0), ("t", "plain", 3.0)], 1.0)
    target, plain = table.splitlines()[2:]
    assert target.endswith("MISSED")
    assert plain.endswith("3.00")
