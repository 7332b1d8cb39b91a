"""Serving the display: uvicorn on a thread of its own beside the table loop.

``WebDisplay.start()`` binds the address at once (a port in use is a clear error before
the table starts), then serves on a daemon thread with its own event loop; the feed hub
is attached to that loop, so the table thread hands it events with
``call_soon_threadsafe`` and never waits. ``stop()`` ends the streams and the server.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from homeworlds.web import WebUnavailable, require_web

if TYPE_CHECKING:
    import uvicorn

    from homeworlds.web.analysis import AnalysisWorker

#: Seconds ``stop`` waits for open connections (event streams) before closing them.
SHUTDOWN_GRACE_S = 1
#: Bytes a connection's socket buffers for sending: a spectator who stops reading fills
#: it soon, and the guard drops it (``ServerLimits.stall_s``) instead of the Pi's memory
#: filling.
SEND_BUFFER_BYTES = 64 * 1024


class WebDisplay:
    def __init__(self, hub, control, *, host: str = "127.0.0.1", port: int = 8080,
                 admin_token: str | None = None, table_name: str = "table",
                 render_svg: Callable | None = None, store_path=None, attract=None,
                 limits=None, analysis: bool = False, suggestions: bool = True):
        """``limits``: the server's ``guard.ServerLimits`` (connection cap, the admin's
        share, per-client limit, timeouts; docs/display.md, "Under load")."""
        require_web()
        from homeworlds.web.app import DisplayState, new_admin_token

        self.host = host
        self.port = port
        self.token_configured = admin_token is not None
        self.state = DisplayState(hub, control, admin_token or new_admin_token(),
                                  table_name, render_svg)
        if store_path is not None or attract is not None:
            from homeworlds.web.archive import Archive, archive_routes

            archive = Archive(store_path)
            # The archive viewer of the table's own store (read-only), at /archive.
            if store_path is not None:
                self.state.extra_routes = archive_routes(archive=archive)
            if attract is not None:
                # Attract mode (``attract``: an AttractMode on this archive): the live page
                # gives way to the replays while the table is idle.
                from homeworlds.web.attract import SWITCH_SCRIPT, attract_routes

                self.state.extra_routes += attract_routes(archive, attract=attract,
                                                          live_url="/")
                self.state.live_scripts += (SWITCH_SCRIPT,)
        self.limits = limits
        #: the connections' counts (``guard.ConnectionGuard``), once started
        self.guard = None
        #: The live analysis worker (``web.analysis``), fed by the hub's listeners: only
        #: where the display has a process of its own (``web.child``), never beside the
        #: table loop.
        self.analysis: AnalysisWorker | None = None
        if analysis:
            from homeworlds.web.analysis import AnalysisWorker

            self.analysis = AnalysisWorker(hub.publish_threadsafe, suggestions=suggestions)
            hub.listeners.append(self.analysis.observe)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def admin_token(self) -> str:
        return self.state.admin_token

    def show_phone(self, info: dict) -> None:
        """What the admin page shows of the phone's seat (``PhoneSeat.admin_info``),
        checked as it would be from the table's pipe (``app.phone_info``)."""
        from homeworlds.web.app import phone_info

        self.state.phone = phone_info(info)

    @property
    def url(self) -> str:
        return display_url(self.host, self.port)

    @property
    def admin_url(self) -> str:
        return f"{self.url}admin?token={self.admin_token}"

    def start(self) -> WebDisplay:
        import uvicorn

        from homeworlds.web.app import create_app
        from homeworlds.web.guard import LISTEN_QUEUE, guarded_config, limits_for_descriptors

        family = socket.AF_INET6 if _is_ipv6(self.host) else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)  # inherited
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            raise WebUnavailable(f"cannot serve the display on {self.host}:{self.port}: "
                                 f"{exc.strerror or exc} (another program on that port? "
                                 "choose another with --listen ADDR:PORT or [display] "
                                 "port)") from None
        sock.listen(128)
        self.port = sock.getsockname()[1]
        self._socket = sock
        limits = self.limits or limits_for_descriptors()
        config = guarded_config(create_app(self.state), limits, access_log=False,
                                lifespan="on", timeout_graceful_shutdown=SHUTDOWN_GRACE_S)
        self.guard = config.guard
        server = self._server = uvicorn.Server(config)
        # The table owns the signals: uvicorn (0.29 on) captures them only when it runs
        # on the main thread, and it runs on its own here.
        started = threading.Event()

        def serve() -> None:
            import asyncio

            async def main() -> None:
                task = asyncio.create_task(server.serve(sockets=[sock]))
                while not server.started and not task.done():
                    await asyncio.sleep(0.01)
                started.set()
                await task

            try:
                asyncio.run(main())
            finally:
                started.set()

        if self.analysis is not None:
            self.analysis.start()
        self._thread = threading.Thread(target=serve, name="web-display", daemon=True)
        self._thread.start()
        started.wait(10)
        if not server.started:
            self.stop()
            raise WebUnavailable(f"the display did not start on {self.host}:{self.port}")
        sock.listen(LISTEN_QUEUE)  # asyncio set it to its accept batch (web.guard)
        if self.analysis is not None and self.state.hub.latest is not None:
            self.analysis.observe(self.state.hub.latest)  # came before the hub had a loop
        return self

    def stop(self) -> None:
        self.state.shutting_down = True
        if self.analysis is not None:
            self.analysis.stop(timeout=0.2)
        loop = self.state.hub.loop
        if loop is not None and not loop.is_closed():
            try:  # end the open event streams at once, so the shutdown need not wait
                loop.call_soon_threadsafe(self.state.hub.close_all)
            except RuntimeError:
                pass
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(SHUTDOWN_GRACE_S + 5)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self.state.hub.loop = None

    def __enter__(self) -> WebDisplay:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def announce(self, out: TextIO | None = None, qr: bool = True) -> None:
        announce(self.url, self.admin_url, out, qr)


def display_url(host: str, port: int) -> str:
    if host in ("0.0.0.0", "::"):
        host = socket.gethostname()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def announce(url: str, admin_url: str, out: TextIO | None = None, qr: bool = True) -> None:
    """Print where the display is and the admin link (with its QR code on a terminal), on
    ``out`` or the standard output of the moment (not the one of the import: it may be
    replaced, and closed, since)."""
    out = out if out is not None else sys.stdout
    print(f"display: {url}", file=out, flush=True)
    print(f"admin: {admin_url}", file=out, flush=True)
    if qr:
        print_qr(admin_url, out)


def print_qr(link: str, out: TextIO) -> None:
    """The link as a QR code on a terminal (nothing on a pipe or a file, or without
    ``qrcode``, which comes with the web extra)."""
    if not out.isatty():
        return
    try:
        import qrcode
    except ImportError:
        return
    code = qrcode.QRCode(border=1)
    code.add_data(link)
    code.print_ascii(out=out, invert=True)


def _is_ipv6(host: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address)
    except ValueError:
        return False


def parse_listen(text: str, default_port: int = 8080) -> tuple[str, int]:
    """``ADDR``, ``ADDR:PORT`` or ``[V6]:PORT`` → (address, port); ValueError says what is
    wrong."""
    text = text.strip()
    if not text:
        raise ValueError("empty address: give e.g. 0.0.0.0 or 0.0.0.0:8080")
    host, port = text, default_port
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"{text!r}: an IPv6 address in brackets needs its ']'")
        host, rest = text[1:end], text[end + 1:]
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"{text!r}: expected ':PORT' after ']'")
            port = _port(rest[1:], text)
    elif text.count(":") == 1:
        host, raw = text.split(":")
        port = _port(raw, text)
    check_host(host)
    return host, port


def _port(raw: str, text: str) -> int:
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise ValueError(f"{text!r}: the port must be a number from 0 to 65535")
    return int(raw)


def check_host(host: str) -> None:
    """A listen address must be an IP address or ``localhost`` (a host name could resolve
    to anything)."""
    if host == "localhost":
        return
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{host!r} is not an IP address (e.g. 127.0.0.1 for this machine "
                         "only, 0.0.0.0 for every network)") from None
