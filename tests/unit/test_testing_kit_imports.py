"""`toolfx.testing` ships with the interpreters: it may import core and the interpreters, never
the leaves (the two distributions never import each other)."""

import subprocess
import sys


def test_importing_the_kit_imports_no_leaf() -> None:
    probe = (
        "import sys, toolfx.testing; "
        "print(sorted(m for m in sys.modules if m.startswith('toolfx.leaves')))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == "[]"
