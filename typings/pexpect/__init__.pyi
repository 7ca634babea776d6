# The part of pexpect 4.9 the CLI tests use (pexpect ships no types).
from collections.abc import Mapping, Sequence
from typing import TextIO

class ExceptionPexpect(Exception): ...
class EOF(ExceptionPexpect): ...

class spawn:
    pid: int
    exitstatus: int | None
    logfile_read: TextIO | None
    before: str  # the text before the last match (with an encoding)
    def __init__(
        self,
        command: str,
        args: Sequence[str] = ...,
        timeout: float | None = ...,
        *,
        env: Mapping[str, str] | None = ...,
        encoding: str | None = ...,
        dimensions: tuple[int, int] | None = ...,
    ) -> None: ...
    def expect(
        self,
        pattern: str | type[EOF] | Sequence[str | type[EOF]],
        timeout: float | None = ...,
    ) -> int: ...
    def send(self, s: str) -> int: ...
    def sendline(self, s: str = ...) -> int: ...
    def sendeof(self) -> None: ...
    def sendintr(self) -> None: ...
    def close(self, force: bool = ...) -> None: ...
