"""The display in a process of its own, fed through a pipe: the table's thread never shares
its interpreter (and its lock) with the web server.

Fifty spectators cost the server real work — drawing each snapshot, writing each event
fifty times — and in the table's own process that work takes turns with the table loop
under Python's global interpreter lock: the line → LED frame latency doubled in
``benchmarks/display_bench.py``. So ``play`` and ``demo --web`` run the server in a child
process and talk to it over its standard streams, one JSON object a line:

* host → child (stdin): feed events exactly as ``feed.encode`` writes them, answers to
  admin commands ``{"type": "reply", "id": N, "ok": bool, "message": str}``,
  ``{"type": "attract-activity"}`` when a piece was placed (the attract mode stops), and
  ``{"type": "phone-seat", "info": {...}}``, what the admin page shows of the phone's seat;
* child → host (stdout): ``{"ready": PORT}`` once it serves (or ``{"error": text}``), then
  admin commands ``{"type": "command", "id": N, "command": {...}}``.

The host writes from a thread of its own through a bounded queue: a child that stops
reading loses events and is sent the latest snapshot once it reads again (as a slow
spectator is resynced). The admin token goes to the child in its environment, never on a
command line. The child ends when its stdin closes (the host stopped or died).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from concurrent.futures import Future
from dataclasses import asdict
from functools import partial
from typing import IO

from homeworlds.feed import FeedEvent, SnapshotEvent, encode
from homeworlds.session import AdminCommand, ControlError, ControlQueue
from homeworlds.web import WebUnavailable

TOKEN_VARIABLE = "HOMEWORLDS_DISPLAY_TOKEN"
#: host → child: a piece was placed on the table (the attract mode stops its replays).
ACTIVITY = "attract-activity"
#: host → child: what the admin page shows of the phone's seat (its code while unclaimed).
PHONE = "phone-seat"
#: Events waiting for the pipe before the child counts as behind (then it is resynced).
PIPE_QUEUE_LIMIT = 256
STARTUP_TIMEOUT_S = 30.0
#: Seconds between checks that the display process still runs, and before another try
#: when it could not be started again.
RESTART_CHECK_S = 1.0
RESTART_BACKOFF_S = 5.0


class DisplayProcess:
    """The web display served by a child process; ``publish`` is the feed producer's sink,
    admin commands from the child go to ``commands`` (run by the table loop)."""

    def __init__(self, commands: ControlQueue, *, host: str, port: int, admin_token: str,
                 table_name: str, store_path=None, attract_after_s: float = 0.0,
                 analysis: bool = False, suggestions: bool = True):
        self.commands = commands
        #: The child runs the live analysis (``web.analysis``); without ``suggestions``
        #: (tournament mode) it shows no suggested turn.
        self.analysis = analysis
        self.suggestions = suggestions
        self.attract_after_s = attract_after_s
        self.host = host
        self.port = port
        self.admin_token = admin_token
        self.table_name = table_name
        self.store_path = store_path
        self._proc: subprocess.Popen | None = None
        self._out: queue.Queue[bytes | None] = queue.Queue(PIPE_QUEUE_LIMIT)
        self._latest: SnapshotEvent | None = None
        self._phone: bytes | None = None
        self._behind = False
        self.resyncs = 0
        self.restarts = 0
        self._threads: list[threading.Thread] = []
        self._stopping: threading.Event | None = None
        self._watchdog: threading.Thread | None = None

    # ---- life ----

    def start(self) -> DisplayProcess:
        self._spawn()
        self._stopping = threading.Event()
        watchdog = threading.Thread(target=self._watch, name="display-watchdog", daemon=True)
        watchdog.start()
        self._watchdog = watchdog
        return self

    def _watch(self) -> None:
        """A display process that died (a crash, kill -9, out of memory) is started again
        on the same port; the pages reconnect by themselves and resync."""
        stopping = self._stopping
        assert stopping is not None  # set by start() before this thread runs
        while not stopping.wait(RESTART_CHECK_S):
            proc = self._proc
            if proc is None or proc.poll() is None:
                continue
            print(f"homeworlds: the display process stopped (exit {proc.returncode}); "
                  "starting it again", file=sys.stderr, flush=True)
            for thread in self._threads:
                thread.join(2)
            self._threads = []
            stdin, stdout = _pipes(proc)
            stdout.close()
            try:
                stdin.close()
            except OSError:
                pass
            self._drain()
            try:
                self._spawn()
                self.restarts += 1
            except WebUnavailable as exc:
                print(f"homeworlds: the display could not start again: {exc}",
                      file=sys.stderr, flush=True)
                stopping.wait(RESTART_BACKOFF_S)

    def _drain(self) -> None:
        while True:
            try:
                self._out.get_nowait()
            except queue.Empty:
                return

    def _spawn(self) -> None:
        env = {**os.environ, TOKEN_VARIABLE: self.admin_token}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "homeworlds.web.child", "--host", self.host, "--port",
             str(self.port), "--table", self.table_name,
             *(("--store", str(self.store_path)) if self.store_path is not None else ()),
             *(("--attract-after", repr(float(self.attract_after_s)))
               if self.attract_after_s > 0 else ()),
             *(("--analysis",) if self.analysis else ()),
             *(("--no-suggestions",) if not self.suggestions else ())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0)
        first = _read_line_within(_pipes(self._proc)[1], STARTUP_TIMEOUT_S)
        try:
            hello = json.loads(first) if first else {}
        except ValueError:
            hello = {}
        if "ready" not in hello:
            self._kill()
            raise WebUnavailable(hello.get("error") or "the display process did not start")
        self.port = int(hello["ready"])
        for target, name in ((self._write_loop, "display-writer"),
                             (self._read_loop, "display-reader")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self._behind = False
        if self._phone is not None:
            self._out.put_nowait(self._phone)
        if self._latest is not None:
            self.publish(self._latest)

    def stop(self) -> None:
        if self._stopping is not None:
            self._stopping.set()
        if self._watchdog is not None:
            self._watchdog.join(5)
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        try:
            self._out.put_nowait(None)
        except queue.Full:
            pass
        stdin, stdout = _pipes(proc)
        try:
            stdin.close()  # the child ends when its stdin closes
        except OSError:
            pass
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stdout.close()
        for thread in self._threads:
            thread.join(2)

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            stdin, stdout = _pipes(self._proc)
            stdout.close()
            stdin.close()
            self._proc = None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def url(self) -> str:
        from homeworlds.web.server import display_url

        return display_url(self.host, self.port)

    @property
    def admin_url(self) -> str:
        return f"{self.url}admin?token={self.admin_token}"

    def announce(self, out=None, qr: bool = True) -> None:
        from homeworlds.web.server import announce

        announce(self.url, self.admin_url, out, qr)

    # ---- the feed, on the table's thread ----

    def publish(self, event: FeedEvent) -> None:
        """The producer's sink: never blocks."""
        if isinstance(event, SnapshotEvent):
            self._latest = event
        if self._behind:
            if not isinstance(event, SnapshotEvent):
                return  # the snapshot that follows carries it
            self._behind = False
            if self._phone is not None:
                try:
                    self._out.put_nowait(self._phone)
                except queue.Full:
                    pass
        try:
            self._out.put_nowait((encode(event) + "\n").encode())
        except queue.Full:
            self._behind = True
            self.resyncs += 1

    def show_phone(self, info: dict) -> None:
        """What the admin page shows of the phone's seat (``PhoneSeat.admin_info``): sent
        to the child, and again to a child started anew. Never blocks."""
        line = (json.dumps({"type": PHONE, "info": info}) + "\n").encode()
        self._phone = line
        try:
            self._out.put_nowait(line)
        except queue.Full:
            pass  # the child is behind: it gets the latest when it is resynced

    def activity(self) -> None:
        """A piece was placed on the table (the host's attract mode saw it): the display's
        attract mode stops its replays. Never blocks."""
        try:
            self._out.put_nowait((json.dumps({"type": ACTIVITY}) + "\n").encode())
        except queue.Full:
            pass  # the child is behind; the snapshots that follow say a game is on

    def _write_loop(self) -> None:
        proc = self._proc
        while True:
            data = self._out.get()
            if data is None or proc is None:
                return
            try:
                _pipes(proc)[0].write(data)
            except (OSError, ValueError):
                return

    def _reply(self, ident: int, ok: bool, message: str) -> None:
        line = json.dumps({"type": "reply", "id": ident, "ok": ok, "message": message})
        try:
            self._out.put((line + "\n").encode(), timeout=5)
        except queue.Full:
            pass

    # ---- admin commands from the child ----

    def _read_loop(self) -> None:
        proc = self._proc
        if proc is None:
            return
        for line in _pipes(proc)[1]:
            # A line that is not JSON must not be answered as the line before it was.
            message = None
            try:
                message = json.loads(line)
                ident = int(message["id"])
                command = AdminCommand(**message["command"])
            except (ValueError, KeyError, TypeError) as exc:
                asked = message.get("id") if isinstance(message, dict) else None
                if isinstance(asked, int):
                    self._reply(asked, False, f"not a command: {exc}")
                continue
            except ControlError as exc:
                self._reply(ident, False, str(exc))
                continue
            future = self.commands.submit(command)
            future.add_done_callback(partial(self._answered, ident))

    def _answered(self, ident: int, future: Future) -> None:
        try:
            self._reply(ident, True, future.result())
        except ControlError as exc:
            self._reply(ident, False, str(exc))
        except Exception as exc:  # cancelled, or a bug: an answer either way
            self._reply(ident, False, f"the table could not do it: {exc}")


def _pipes(proc: subprocess.Popen) -> tuple[IO[bytes], IO[bytes]]:
    """The child's stdin and stdout (it is always started with both piped)."""
    assert proc.stdin is not None and proc.stdout is not None
    return proc.stdin, proc.stdout


def _read_line_within(stream, timeout: float) -> bytes:
    box: list[bytes] = []
    thread = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    thread.start()
    thread.join(timeout)
    return box[0] if box else b""


class RemoteControl:
    """In the child: ``submit`` sends a command to the host and returns a Future that the
    host's reply resolves (the app awaits it like a local ControlQueue's)."""

    def __init__(self, out) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._next = 0
        self._waiting: dict[int, Future] = {}

    def submit(self, command: AdminCommand) -> Future:
        future: Future = Future()
        with self._lock:
            self._next += 1
            ident = self._next
            self._waiting[ident] = future
            line = json.dumps({"type": "command", "id": ident, "command": asdict(command)})
            try:
                self._out.write(line + "\n")
                self._out.flush()
            except (OSError, ValueError):
                del self._waiting[ident]
                future.set_exception(ControlError("the table is not reachable"))
        return future

    def answer(self, message: dict) -> None:
        with self._lock:
            ident = message.get("id")
            future = self._waiting.pop(ident, None) if isinstance(ident, int) else None
        if future is None or future.done():
            return
        if message.get("ok"):
            future.set_result(str(message.get("message", "")))
        else:
            future.set_exception(ControlError(str(message.get("message", "refused"))))

    def fail_all(self, why: str) -> None:
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(ControlError(why))
