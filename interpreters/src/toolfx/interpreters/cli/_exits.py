"""The `toolfx` command's exit statuses, and the text that documents them in `--help`."""

from __future__ import annotations

from typing import Final

__all__ = [
    "EXIT_ASKS_WAIT",
    "EXIT_BAD_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_NO_SUCH_ASK",
    "EXIT_OK",
    "EXIT_STATUSES",
    "EXIT_WRITE_FAILED",
]

EXIT_OK: Final = 0
"""The command ran (its tool calls may have failed, or been in doubt)."""

EXIT_WRITE_FAILED: Final = 1
"""The session log or the journal could not be written (the session stops there)."""

EXIT_BAD_INPUT: Final = 2
"""A bad command line, or an input that cannot be used (a session, log, journal, rules file or
workspace)."""

EXIT_ASKS_WAIT: Final = 3
"""`run --journal`: the session ran, and asks wait in the journal for `toolfx approve`."""

EXIT_NO_SUCH_ASK: Final = 4
"""`approve`: no ask of that call id waits in the journal (the open ones are listed)."""

EXIT_INTERRUPTED: Final = 130
"""Ctrl-C: what ran was cancelled and recorded (a second Ctrl-C exits at once); 128 + SIGINT,
as shells report a command ended by Ctrl-C."""

EXIT_STATUSES: Final = f"""exit status:
  {EXIT_OK}  the command ran (its tool calls may have failed)
  {EXIT_WRITE_FAILED}  the session log or the journal could not be written
  {EXIT_BAD_INPUT}  a bad command line, or an input that cannot be used
  {EXIT_ASKS_WAIT}  run: asks wait in the journal for `toolfx approve` (listed on stderr)
  {EXIT_NO_SUCH_ASK}  approve: no ask of that call id waits (the open ones are listed)
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C): the running calls were cancelled and recorded"""
"""The exit statuses as `toolfx --help` lists them."""
