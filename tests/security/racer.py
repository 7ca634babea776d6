"""A racing process: swaps a file or a folder inside the workspace for a symlink to an outside
one, and back, in a tight loop until its stop file appears; after its first swap it prints
`ready`. Run as `python racer.py KIND TARGET OUTSIDE STOP`; KIND is `file` or `folder`."""

from __future__ import annotations

import os
import sys


def _swap_file(target: str, outside: str) -> None:
    real, link = f"{target}.real", f"{target}.link"
    with open(real, "w", encoding="utf-8") as file:
        file.write("inside\n")
    os.symlink(outside, link)
    os.rename(real, target)
    os.rename(link, target)


def _swap_folder(target: str, outside: str) -> None:
    aside, link = f"{target}.aside", f"{target}.link"
    os.symlink(outside, link)
    os.rename(target, aside)
    os.rename(link, target)
    os.unlink(target)
    os.rename(aside, target)


def main(kind: str, target: str, outside: str, stop: str) -> None:
    """Swap until `stop` exists (saying `ready` after the first swap), then print how many
    swaps were made; errors from the leaves' own changes meanwhile are ignored."""
    swap = _swap_file if kind == "file" else _swap_folder
    swaps = 0
    while not os.path.exists(stop):
        try:
            swap(target, outside)
            swaps += 1
            if swaps == 1:
                print("ready", flush=True)
        except OSError:
            for leftover in (f"{target}.link", f"{target}.real"):
                if os.path.lexists(leftover):
                    os.unlink(leftover)
            if kind == "folder" and not os.path.lexists(target):
                if os.path.isdir(f"{target}.aside"):
                    os.rename(f"{target}.aside", target)
                else:
                    os.makedirs(target, exist_ok=True)
    print(swaps)


if __name__ == "__main__":
    main(*sys.argv[1:5])
