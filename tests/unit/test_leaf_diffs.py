"""The changed lines the file leaves' cards carry: the span between the common ends."""

from __future__ import annotations

from toolfx.leaves._diffs import changed_lines


def test_the_changed_lines_are_the_span_between_the_common_ends() -> None:
    old = "".join(f"{n}\n" for n in range(20))
    change = changed_lines(old, old.replace("10\n", "ten\n"))
    assert change.before == "7\n8\n9\n10\n11\n12\n13\n"
    assert change.after == "7\n8\n9\nten\n11\n12\n13\n"
