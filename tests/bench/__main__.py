"""Run every bench module in one process and print a table: `python -m tests.bench [topic ...]`.

Bench modules are the `bench_<topic>.py` files of this package (see harness.py); give topics to
run only some of them. Each row shows µs per call and the multiple of json.loads of the
5-property text, measured in the same run; a case in another unit (a total in seconds, memory
in KiB: see `harness.unit_of`) shows its value in that unit and no multiple. A case named for a
target, "target <= 3: ..." or "target < 10: ...", also says whether its value meets it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.bench.harness import MICROSECONDS, REFERENCE_NAME, Case, reference_time, unit_of

PREFIX = "bench_"
TARGET = re.compile(r"target (<=|<) ([0-9.]+):")
"""How a case names its target: "target <= 3: ..." (the value must be at most 3) or "< 3"."""


def bench_modules() -> list[str]:
    """The topics of every bench module in this package, in name order."""
    package_dir = str(Path(__file__).parent)
    names = (info.name for info in pkgutil.iter_modules([package_dir]))
    return sorted(name.removeprefix(PREFIX) for name in names if name.startswith(PREFIX))


def load_run(topic: str) -> Callable[[], list[Case]]:
    """The `run` function of bench module `topic`."""
    module = importlib.import_module(f"{__package__}.{PREFIX}{topic}")
    run = getattr(module, "run", None)
    if not callable(run):
        raise SystemExit(f"{module.__name__} has no run() function")
    return run  # type: ignore[no-any-return]  # the bench module contract (harness.py)


def verdict(case: str, value: float) -> str:
    """ "met" or "MISSED" for a case named for a target (see `TARGET`), else ""."""
    target = TARGET.match(case)
    if target is None:
        return ""
    bound = float(target.group(2))
    met = value <= bound if target.group(1) == "<=" else value < bound
    return "met" if met else "MISSED"


def format_table(rows: Sequence[tuple[str, str, float]], reference: float) -> str:
    """Rows of (topic, case, value) as an aligned table; µs rows also show the ratio, and target
    rows whether they meet it."""
    width = max([len(f"{topic}: {case}") for topic, case, _ in rows] + [len(REFERENCE_NAME)])
    lines = [f"{'case':<{width}}  {'value':>10}  {'unit':<4}  {'x json.loads':>12}"]
    lines.append("-" * len(lines[0]))
    for topic, case, value in rows:
        unit = unit_of(case)
        ratio = f"{value / reference:>12.2f}" if unit == MICROSECONDS else ""
        row = f"{topic + ': ' + case:<{width}}  {value:>10.2f}  {unit:<4}  {ratio:>12}"
        row = f"{row}  {verdict(case, value)}"
        lines.append(row.rstrip())
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    """Run the selected bench modules (all by default) and print one table."""
    available = bench_modules()
    topics = list(argv) or available
    unknown = sorted(set(topics) - set(available))
    if unknown:
        print(f"unknown bench topics: {', '.join(unknown)} (have: {', '.join(available)})")
        return 2
    _, reference = reference_time()
    rows = [(topic, case, value) for topic in topics for case, value in load_run(topic)()]
    print(f"reference: {REFERENCE_NAME} = {reference:.2f} µs ({sys.version.split()[0]})")
    print(format_table(rows, reference))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
