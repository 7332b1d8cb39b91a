"""An ASGI app served by uvicorn on a free localhost port, in a thread of the test process.

The browser tests need a real HTTP server (Chromium cannot talk to Starlette's TestClient);
the reconnection tests need to stop it and start it again on the same port, as a host
restart would. ``stop`` waits until the port is closed; ``start`` until it accepts.
"""

from __future__ import annotations

import socket
import threading
import time


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class LiveServer:
    """``app`` served at ``url`` while started. Restartable, with the same app or another."""

    def __init__(self, app, host: str = "127.0.0.1", port: int | None = None,
                 startup_timeout: float = 15.0):
        self.app = app
        self.host = host
        self.port = port or free_port(host)
        self.startup_timeout = startup_timeout
        self._server = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, app=None) -> LiveServer:
        import uvicorn

        if self.running:
            raise RuntimeError(f"the server at {self.url} is already running")
        if app is not None:
            self.app = app
        config = uvicorn.Config(self.app, host=self.host, port=self.port, log_level="warning",
                                lifespan="auto", access_log=False)
        server = uvicorn.Server(config)
        # Signal handlers belong to the main thread (pytest's); this server is stopped by
        # should_exit instead.
        server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        thread = threading.Thread(target=server.run, name=f"uvicorn:{self.port}", daemon=True)
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError(f"uvicorn could not start on {self.url} (port taken?)")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"uvicorn did not start on {self.url} within "
                                   f"{self.startup_timeout} s")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        server.should_exit = True
        thread.join(timeout)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout)
        self._server = self._thread = None
        if thread.is_alive():
            raise RuntimeError(f"uvicorn on {self.url} did not stop within {2 * timeout} s")

    def __enter__(self) -> LiveServer:
        return self.start() if not self.running else self

    def __exit__(self, *exc) -> None:
        self.stop()
