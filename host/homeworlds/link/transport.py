"""Byte transports under the link: a serial port (pyserial) or an in-memory pipe.

A transport moves bytes and nothing else: no framing, no protocol, no retry.
The link (``homeworlds.link.core``) owns it, opens it, reads it with short
timeouts and, on any :class:`TransportError`, closes it and tries again
later. Every failure of the underlying port (device unplugged, permission
denied, port busy) surfaces as a ``TransportError`` whose message names the
port and, where one is known, the usual fix.
"""

from __future__ import annotations

import errno
import os
import threading
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import serial

DEFAULT_BAUDRATE = 115200
# Reads block at most this long when the caller passes no timeout: short,
# so that a loop polling the port stays responsive to its other timers.
DEFAULT_READ_TIMEOUT = 0.05
# A write that cannot drain within this long means the device stopped
# reading (hung firmware, USB stall): better a link-down than a frozen host.
DEFAULT_WRITE_TIMEOUT = 1.0
READ_SIZE = 65536


class TransportError(OSError):
    """The port could not be opened, read or written.

    An ``OSError`` so that callers treating I/O failures uniformly keep
    working; the message always names the port.
    """


@runtime_checkable
class Transport(Protocol):
    """What the link needs from a byte channel.

    ``read`` returns at once with what is buffered, or waits up to
    ``timeout`` seconds for the first byte; ``b""`` means nothing arrived.
    Failures raise :class:`TransportError` (or another ``OSError``).
    """

    name: str

    @property
    def is_open(self) -> bool: ...

    def open(self) -> None: ...

    def close(self) -> None: ...

    def write(self, data: bytes) -> None: ...

    def read(self, max_bytes: int = READ_SIZE, timeout: float = 0.0) -> bytes: ...


# --------------------------------------------------------------------------
# Serial ports.


def _hint(exc: BaseException, device: str) -> str:
    """The usual fix for a failure to open ``device``, or ''."""
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code == errno.EACCES or "Permission denied" in text:
        return (" - add your user to the 'dialout' group (sudo usermod -aG dialout $USER, "
                "then log out and in) or check the udev rule for the table")
    if code == errno.ENOENT or "No such file" in text:
        return " - is the table plugged in? `ls /dev/ttyACM*` lists the USB serial ports"
    if code in (errno.EBUSY, errno.EAGAIN) or "exclusively" in text or "busy" in text.lower():
        return (" - another program holds the port (a second homeworlds, screen, minicom, "
                "ModemManager?)")
    return ""


class SerialTransport:
    """A serial device or pyserial URL: ``/dev/ttyACM1``, ``/dev/pts/3``, ``COM4``,
    ``loop://``, ``socket://host:port``, ``rfc2217://...``.

    ``open()`` discards whatever the port buffered before (stale lines of an
    earlier session) and raises DTR, which tells the firmware a host listens.
    """

    def __init__(self, url_or_device: str, baudrate: int = DEFAULT_BAUDRATE, *,
                 read_timeout: float = DEFAULT_READ_TIMEOUT,
                 write_timeout: float = DEFAULT_WRITE_TIMEOUT):
        if not isinstance(url_or_device, str) or not url_or_device:
            raise ValueError(f"serial port: expected a device path or URL, got {url_or_device!r}")
        self.name = url_or_device
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self._port: serial.SerialBase | None = None
        self._timeout = read_timeout

    def __repr__(self) -> str:
        state = "open" if self.is_open else "closed"
        return f"SerialTransport({self.name!r}, {self.baudrate}, {state})"

    @property
    def is_open(self) -> bool:
        return self._port is not None and bool(self._port.is_open)

    def open(self) -> None:
        import serial  # pyserial: a dependency, imported here to keep `import homeworlds` light

        if self.is_open:
            return
        options: dict[str, Any] = {}
        if os.name == "posix" and "://" not in self.name:
            # flock() the device, so two hosts never split one table's lines.
            options["exclusive"] = True
        try:
            port = serial.serial_for_url(
                self.name, baudrate=self.baudrate, timeout=self.read_timeout,
                write_timeout=self.write_timeout, do_not_open=True, **options)
            port.open()
        except Exception as exc:  # SerialException, OSError, ValueError (bad URL), termios.error
            raise TransportError(f"cannot open {self.name}: {exc}{_hint(exc, self.name)}") from exc
        try:
            port.reset_input_buffer()
        except Exception as exc:
            port.close()
            raise TransportError(f"cannot flush {self.name}: {exc}") from exc
        self._port = port
        self._timeout = self.read_timeout

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # an unplugged device may fail even to close; it is gone anyway
                pass

    def _require(self):
        if self._port is None:
            raise TransportError(f"{self.name} is not open")
        return self._port

    def write(self, data: bytes) -> None:
        port = self._require()
        try:
            port.write(data)
        except Exception as exc:
            raise TransportError(f"write to {self.name} failed: {exc}") from exc

    def read(self, max_bytes: int = READ_SIZE, timeout: float = 0.0) -> bytes:
        port = self._require()
        try:
            waiting = port.in_waiting
            if waiting:
                return port.read(min(waiting, max_bytes))
            if timeout <= 0:
                return b""
            if timeout != self._timeout:
                # pyserial reconfigures the port on every timeout change: only when it differs.
                port.timeout = timeout
                self._timeout = timeout
            data = port.read(1)
            if data and max_bytes > 1:
                more = port.in_waiting
                if more:
                    data += port.read(min(more, max_bytes - 1))
            return data
        except Exception as exc:
            raise TransportError(f"read from {self.name} failed: {exc}") from exc


# --------------------------------------------------------------------------
# In-memory pipes.


class PipeTransport:
    """One end of an in-memory byte pipe; :meth:`pair` makes both ends.

    For tests and the in-process simulated table. Bytes written while the
    other end is closed are lost, as on a serial line nobody listens to;
    ``open()`` discards what was buffered, as a serial port does.
    :meth:`unplug` makes both ends fail (reads, writes and opens raise
    :class:`TransportError`) until :meth:`replug`.
    """

    def __init__(self, name: str = "pipe", _lock: threading.Condition | None = None):
        self.name = name
        self._cond = _lock if _lock is not None else threading.Condition()
        self._peer: PipeTransport | None = None
        self._inbox = bytearray()
        self._open = False
        self._fault: list[str | None] = [None]  # shared by both ends
        self.opens = 0

    @classmethod
    def pair(cls, name: str = "pipe") -> tuple[PipeTransport, PipeTransport]:
        """``(host_end, device_end)``, both closed."""
        cond = threading.Condition()
        host = cls(f"{name}:host", cond)
        device = cls(f"{name}:device", cond)
        device._fault = host._fault
        host._peer, device._peer = device, host
        return host, device

    def __repr__(self) -> str:
        return f"PipeTransport({self.name!r}, {'open' if self._open else 'closed'})"

    @property
    def is_open(self) -> bool:
        return self._open

    @property
    def unplugged(self) -> bool:
        return self._fault[0] is not None

    def unplug(self, reason: str = "device unplugged") -> None:
        with self._cond:
            self._fault[0] = reason
            for end in (self, self._peer):
                if end is not None:
                    end._inbox.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        with self._cond:
            self._fault[0] = None

    def _check(self, action: str) -> None:
        if self._fault[0] is not None:
            raise TransportError(f"{action} {self.name} failed: {self._fault[0]}")
        if not self._open:
            raise TransportError(f"{self.name} is not open")

    def open(self) -> None:
        with self._cond:
            if self._fault[0] is not None:
                raise TransportError(f"cannot open {self.name}: {self._fault[0]}")
            self._inbox.clear()
            self._open = True
            self.opens += 1

    def close(self) -> None:
        with self._cond:
            self._open = False
            self._cond.notify_all()

    def write(self, data: bytes) -> None:
        with self._cond:
            self._check("write to")
            peer = self._peer
            if peer is not None and peer._open:
                peer._inbox += data
                self._cond.notify_all()

    def read(self, max_bytes: int = READ_SIZE, timeout: float = 0.0) -> bytes:
        with self._cond:
            self._check("read from")
            if not self._inbox and timeout > 0:
                self._cond.wait_for(
                    lambda: self._inbox or self._fault[0] is not None or not self._open, timeout)
                self._check("read from")
            if not self._inbox:
                return b""
            data = bytes(self._inbox[:max_bytes])
            del self._inbox[:max_bytes]
            return data

    def pending(self) -> int:
        """Bytes waiting to be read at this end."""
        with self._cond:
            return len(self._inbox)
