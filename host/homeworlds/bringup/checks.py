"""One finding of a bring-up check: status, what was found, and the fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Status(Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "FAIL"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Check:
    """``subject``: what was checked (``serial port``, ``reader 2``); ``detail``: what was
    found; ``fix``: what to do (empty when nothing needs doing)."""

    status: Status
    subject: str
    detail: str
    fix: str = ""

    @classmethod
    def ok(cls, subject: str, detail: str) -> Check:
        return cls(Status.OK, subject, detail)

    @classmethod
    def warn(cls, subject: str, detail: str, fix: str = "") -> Check:
        return cls(Status.WARN, subject, detail, fix)

    @classmethod
    def fail(cls, subject: str, detail: str, fix: str) -> Check:
        return cls(Status.FAIL, subject, detail, fix)

    @classmethod
    def skip(cls, subject: str, detail: str) -> Check:
        return cls(Status.SKIP, subject, detail)

    @property
    def failed(self) -> bool:
        return self.status is Status.FAIL

    def to_text(self) -> str:
        """``  ok    serial port: ...`` plus an indented ``fix:`` line when there is one."""
        line = f"{self.status.value:<5} {self.subject}: {self.detail}"
        if self.fix:
            line += f"\n      fix: {self.fix}"
        return line


def summary(checks: Iterable[Check]) -> str:
    checks = list(checks)
    counts = {status: sum(1 for c in checks if c.status is status) for status in Status}
    failed = counts[Status.FAIL]
    verdict = "the table is ready" if not failed else f"{failed} check(s) failed"
    return (f"{verdict} ({counts[Status.OK]} ok, {counts[Status.WARN]} warnings, "
            f"{failed} failed, {counts[Status.SKIP]} skipped)")
