"""Who holds a table: an exclusive ``flock`` on a small file, released by the kernel when
its holder closes it or dies (kill -9, power cut), never left stale.

``TableLock`` is a table's claim on its name in a game store: one ``homeworlds play`` at a
time writes a table's games, so two tables never share a game (docs/store.md, "One table,
one game"). ``HolderLock`` is the same claim on anything else named by a path (the serial
port). The lock file holds a line saying who holds it (program, process id, machine,
configuration, since when), so the refusal names both the holder and the one refused.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import socket
import tempfile
from datetime import UTC, datetime
from pathlib import Path

#: The most of a holder's line read back (a lock file is ours; bound it all the same).
_HOLDER_BYTES = 1024


class LockHeld(Exception):
    """Another program holds the lock; ``holder`` says who (as its lock file says)."""

    def __init__(self, what: str, holder: str, me: str):
        self.what, self.holder, self.me = what, holder, me
        super().__init__(f"{what} is already in use by {holder}; {me} does not start a "
                         "second one beside it")


class LockUnavailable(Exception):
    """The lock file cannot be created or locked (no permission, read-only directory)."""


def holder_text(purpose: str) -> str:
    """Who this process is, as a lock file says it: ``homeworlds play (pid 123 on pi,
    configuration /home/pi/table.toml, since 2026-12-06 05:30:00 UTC)``."""
    since = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"homeworlds play (pid {os.getpid()} on {socket.gethostname()}, {purpose}, " \
        f"since {since})"


class HolderLock:
    """An exclusive, non-blocking ``flock`` on ``path``; ``acquire`` raises LockHeld (naming
    the holder) when another open file holds it — another process, or another table of
    this one."""

    def __init__(self, path: str | Path, what: str):
        self.path = Path(path)
        self.what = what
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, me: str) -> None:
        """Take the lock for ``me`` (``holder_text``): its line is written into the file."""
        if self._fd is not None:
            return
        fd = _open_lock_file(self.path, self.what)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd) or "another program"
            os.close(fd)
            raise LockHeld(self.what, holder, me) from None
        except OSError as exc:
            os.close(fd)
            raise LockUnavailable(f"{self.what}: cannot lock {self.path}: "
                                  f"{exc.strerror or exc}") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (me + "\n").encode("utf-8", "replace"), 0)
        except OSError:
            pass  # the lock holds all the same; only the holder's name is missing
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)  # closing the last descriptor releases the flock

    def __enter__(self) -> HolderLock:
        return self

    def __exit__(self, *_exc) -> None:
        self.release()


def _open_lock_file(path: Path, what: str) -> int:
    """The lock file, created if need be; read-only when it cannot be written (another
    user's, a read-only disk): ``flock`` needs no write access, only the holder's line
    is then not written."""
    flags = os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | flags, 0o644)
    except OSError as exc:
        first = exc
    try:
        return os.open(path, os.O_RDONLY | flags)
    except OSError:
        raise LockUnavailable(f"{what}: cannot create its lock file {path}: "
                              f"{first.strerror or first}") from None


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, _HOLDER_BYTES, 0).decode("utf-8", "replace")
    except OSError:
        return ""
    line = text.splitlines()[0] if text.strip() else ""
    return "".join(ch for ch in line if ch.isprintable())


def _slug(name: str) -> str:
    """A file-name-safe form of ``name``, unique by its hash."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:40]
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
    return f"{readable}-{digest}"


class TableLock(HolderLock):
    """Table ``table``'s claim on the store at ``store_path``: the lock file
    ``<store>.table-<name>.lock`` beside it (the store's directory is writable: SQLite
    needs it for its WAL)."""

    def __init__(self, store_path: str | Path, table: str):
        store_path = Path(store_path)
        self.table = table
        super().__init__(store_path.with_name(f"{store_path.name}.table-{_slug(table)}.lock"),
                         f"table {table!r} of the game store {store_path}")


#: Where the serial ports' lock files go: the machine's lock directory (shared by every
#: user, as the port is), else the temporary directory.
LOCK_DIRECTORIES = ("/run/lock", "/var/lock")


def port_lock(port: str) -> HolderLock:
    """The claim on a serial port: a lock file named after the port's real path in the
    machine's lock directory, since the port itself is opened and closed again as the link
    reconnects."""
    try:
        real = os.path.realpath(port) if port.startswith("/") else port
    except OSError:
        real = port
    directory = next((d for d in LOCK_DIRECTORIES
                      if os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK)),
                     tempfile.gettempdir())
    return HolderLock(Path(directory) / f"homeworlds-port-{_slug(real)}.lock",
                      f"the serial port {port}")
