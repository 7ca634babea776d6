"""A tiny greeter: the file the demo session reads, searches, edits and runs."""

import sys


def greet(name: str) -> str:
    """The greeting for `name`."""
    return f"Hello, {name}!"


def main() -> None:
    """Greet each name given on the command line, or the world."""
    for name in sys.argv[1:] or ["world"]:
        print(greet(name))


if __name__ == "__main__":
    main()
