"""A TCP relay between one table and the broker that the test can cut: the table keeps
playing while its network is down ("a table offline for a while"). ``cut`` closes the
connections (the table notices at once); ``blackhole`` stops forwarding without closing
anything, as a pulled cable or a dead router does, so only the MQTT keepalive notices
(on both ends); ``restore`` forwards again (what was held flows on, as TCP would resend it)."""

from __future__ import annotations

import socket
import threading
import time


class CuttableLink:
    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.up = True
        #: Forwarding stopped, nothing closed (``blackhole``).
        self.held = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        self._wait_while_held()  # a connection made during a blackhole goes nowhere yet
        try:
            upstream = socket.create_connection(self.target, timeout=2)
            upstream.settimeout(None)  # an idle link is not a dead one
        except OSError:
            client.close()
            return
        with self._lock:
            self._sockets += [client, upstream]
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                self._wait_while_held()  # what arrives meanwhile waits, as in a router
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.up = False
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._sockets.clear()

    def _wait_while_held(self) -> None:
        while self.held and not self._closed:
            time.sleep(0.02)

    def blackhole(self) -> None:
        """Stop forwarding in both directions; every connection stays open."""
        self.held = True

    def restore(self) -> None:
        self.up = True
        self.held = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self.server.close()
