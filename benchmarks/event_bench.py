"""An event through a real mosquitto: how many tables one hub follows, and how long a
committed turn takes to reach the hub's page (docs/event.md, "Capacity").

Phase 1, throughput: 8 tables play 60 turns of archive games while the broker is out of
reach, then it appears and their outboxes drain at once; the hub's rate over that backlog
(turns stored per second, through the broker, each checked by the rules engine) is what
it can follow. "Follows" means the hub stores turns at least as fast as the tables
commit them, so the backlog (turns committed at the tables, not yet in the hub's store)
stays bounded. A table at real play speed commits a turn every 30 s (a brisk live game);
at 100x speed every 0.3 s: the hub follows throughput x interval tables.

Last, the eight-table fault run of tests/event with whole archive games (broker killed and
restarted, a table host killed with kill -9 and restarted, a table offline for a while):
the hub's store must equal every table's store turn by turn.

Phase 2, 100x speed, checked: as many tables as the estimate allows (at most 24, the
simulators share this machine's cores with the hub) commit a turn every 0.3 s for 20 s; the
backlog is sampled every 0.5 s and must stay bounded. Latency: a browser-like client holds
the page's SSE stream and fetches the tables fragment on every notice, as the page does;
commit -> page is the fetch's end minus the table's commit time (same clock).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from homeworlds.event.hub import HubIngest  # noqa: E402
from homeworlds.event.hub_client import HubClient  # noqa: E402
from homeworlds.event.rounds import EventBook  # noqa: E402
from homeworlds.event.settings import parse_broker_url  # noqa: E402
from homeworlds.event.simtable import legal_record  # noqa: E402
from homeworlds.store import GameStore  # noqa: E402
from homeworlds.web.hub import HubPages, build_app  # noqa: E402

EVENT = "bench"


def event_of(directory: Path) -> str:
    """Each run its own event: the broker's retained messages of an earlier run (signed
    with keys this run's hub never issued) stay out of its topics."""
    return f"{EVENT}-{directory.name}"
REAL_INTERVAL_S = 30.0
FAST_INTERVAL_S = REAL_INTERVAL_S / 100
MAX_CHECKED_TABLES = 24
CHECK_S = 20.0


def games(count: int, min_turns: int = 30) -> list[Path]:
    root = REPO.parent / "shared" / "games" / "sdg"
    paths = sorted(root.glob("*.raw")) if root.is_dir() else []
    paths += sorted((REPO / "tests" / "data" / "games" / "sdg").glob("*.raw"))
    out = []
    for p in paths:
        try:
            if len(legal_record(p)[2]) >= min_turns:
                out.append(p)
        except (ValueError, OSError):
            continue
        if len(out) == count:
            break
    while len(out) < count:  # a checkout without ../shared: the slice, played again
        out.append(out[len(out) % max(1, len(out))])
    return out


def table_turns(directory: Path) -> dict[str, int]:
    out = {}
    for path in directory.glob("t*.sqlite"):
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as c:
                out[path.stem] = c.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
        except sqlite3.Error:
            pass
    return out


class Hub:
    def __init__(self, directory: Path, url: str):
        import uvicorn

        from tests.event.broker import free_port
        self.store = GameStore.open(directory / "hub.sqlite")
        self.ingest = HubIngest(self.store, event_of(directory))
        self.client = HubClient(parse_broker_url(url), event_of(directory), self.ingest,
                                client_id=f"hw-hub-bench-{os.getpid()}-{directory.name}")
        pages = HubPages(self.ingest, directory / "hub.sqlite", EventBook(self.store),
                         admin_token="bench", event=event_of(directory))
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(build_app(pages), host="127.0.0.1",
                                                    port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.client.start()
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)
        self.client.stop()
        self.store.close()

    def hub_turns(self) -> dict[str, int]:
        return {row["table"]: (row["game"] or {}).get("turns", 0)
                for row in self.ingest.overview()}


class PageWatcher:
    """A spectator's browser: the SSE stream, and the fragment fetched on every notice."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self.latencies: list[float] = []
        self._seen: set[tuple[str, str, int]] = set()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import httpx2
        base = f"http://127.0.0.1:{self.hub.port}"
        with httpx2.Client(timeout=30) as http, http.stream("GET", base + "/events") as stream:
            for line in stream.iter_lines():
                if self._stop.is_set():
                    return
                if not line.startswith("data:"):
                    continue
                fetched_from = len(self.hub.ingest.recent_commits)
                http.get(base + "/fragment/tables")
                done = time.time()
                for table, uid, number, _ in list(self.hub.ingest.recent_commits)[:fetched_from]:
                    key = (table, uid, number)
                    if key in self._seen:
                        continue
                    self._seen.add(key)
                    committed = self._committed(table, uid, number)
                    if committed is not None:
                        self.latencies.append(done - committed)

    def _committed(self, table: str, uid: str, number: int) -> float | None:
        rows = self.hub.store._read("SELECT t.committed FROM turns t JOIN games g ON "
                                    "g.id = t.game_id WHERE g.uid = ? AND t.number = ?",
                                    (uid, number))
        return datetime.fromisoformat(rows[0][0]).timestamp() if rows else None

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()


def run_tables(url: str, directory: Path, interval: float, turns: int,
               game_files: list[Path]) -> subprocess.Popen:
    from tests.event.tables import issue
    for k in range(len(game_files)):
        name = f"t{k + 1:02d}"
        if not (directory / f"{name}.key").exists():
            issue(directory / "hub.sqlite", name, directory)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "host"),
                                                       str(REPO / "firmware")]))
    return subprocess.Popen([sys.executable, str(HERE / "_event_tables.py"), url,
                             event_of(directory),
                             str(directory), str(interval), str(turns),
                             *map(str, game_files)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def stop_tables(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def throughput(url: str, work: Path, game_files: list[Path], turns: int) -> float:
    """The hub's own rate: the tables first play every turn with no broker to reach (their
    outboxes fill), then the broker appears and all outboxes drain at once; the hub's
    storing rate over that backlog is what it can follow."""
    from tests.event.broker import free_port
    directory = work / "throughput"
    directory.mkdir()
    total = turns * len(game_files)
    offline = run_tables(f"mqtt://127.0.0.1:{free_port()}", directory, 0.0, turns, game_files)
    try:
        deadline = time.monotonic() + 300
        while sum(table_turns(directory).values()) < total and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        stop_tables(offline)
    hub = Hub(directory, url)
    hub.start()
    tables = run_tables(url, directory, 0.0, turns, game_files)
    try:
        first = None
        while hub.ingest.committed < total and time.monotonic() < deadline:
            if first is None and hub.ingest.committed:
                first = (time.monotonic(), hub.ingest.committed)
            time.sleep(0.01)
        end = time.monotonic()
    finally:
        stop_tables(tables)
        hub.stop()
    if first is None or hub.ingest.committed < total:
        raise RuntimeError(f"the hub stored {hub.ingest.committed} of {total} turns")
    return (total - first[1]) / (end - first[0])


def checked_run(url: str, work: Path, game_files: list[Path], interval: float,
                seconds: float) -> dict:
    directory = work / f"checked-{len(game_files)}-{interval}"
    directory.mkdir()
    hub = Hub(directory, url)
    hub.start()
    watcher = PageWatcher(hub)
    watcher.start()
    tables = run_tables(url, directory, interval, 0, game_files)
    backlog = []
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(0.5)
            have = hub.hub_turns()
            backlog.append(sum(max(0, n - have.get(t, 0))
                               for t, n in table_turns(directory).items()))
        committed = sum(table_turns(directory).values())
    finally:
        stop_tables(tables)
        watcher.stop()
        time.sleep(1.0)
        hub.stop()
    half = len(backlog) // 2
    return {"tables": len(game_files), "turns": committed, "max_backlog": max(backlog),
            "early_backlog_max": max(backlog[:half]), "late_backlog_max": max(backlog[half:]),
            "last_backlog": backlog[-1], "latency": watcher.latencies,
            "problems": len(hub.ingest.problems)}


def run() -> dict:
    import shutil
    if not (shutil.which("mosquitto") or Path("/usr/sbin/mosquitto").is_file()):
        return {"not run": "mosquitto is not installed (make mosquitto-bin)"}
    from tests.event.broker import Broker
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="event-bench-") as tmp:
        work = Path(tmp)
        (work / "broker").mkdir()
        broker = Broker(work / "broker")
        broker.start()
        try:
            rate = throughput(broker.url, work, games(8, 60), 60)
            out["hub throughput (8 tables' outboxes of 60 turns drained at once, turns/s)"] = \
                f"{rate:.0f}"
            real = int(rate * REAL_INTERVAL_S)
            fast = int(rate * FAST_INTERVAL_S)
            out[f"tables followed at real speed (a turn per {REAL_INTERVAL_S:.0f} s each)"] = \
                f"~{real} (throughput x interval)"
            out[f"tables followed at 100x speed (a turn per {FAST_INTERVAL_S:.1f} s each)"] = \
                f"~{fast} (throughput x interval)"
            n = max(2, min(fast, MAX_CHECKED_TABLES))
            fast_run = checked_run(broker.url, work, games(n, 40), FAST_INTERVAL_S, CHECK_S)
            out[f"checked at 100x: {n} tables for {CHECK_S:.0f} s"] = (
                f"{fast_run['turns']} turns committed, backlog (committed, not yet at the hub) "
                f"max {fast_run['early_backlog_max']} in the first half, "
                f"{fast_run['late_backlog_max']} in the second, {fast_run['last_backlog']} at "
                f"the end; {fast_run['problems']} problems")
            lat = fast_run["latency"]
            out["commit -> hub page at 100x (p50 / p95 ms)"] = (
                f"{pct(lat, .5) * 1000:.0f} / {pct(lat, .95) * 1000:.0f} over {len(lat)} turns")
            calm = checked_run(broker.url, work, games(8, 30), 1.0, 10.0)
            lat = calm["latency"]
            out["commit -> hub page, 8 tables a turn a second (p50 / p95 ms)"] = (
                f"{pct(lat, .5) * 1000:.0f} / {pct(lat, .95) * 1000:.0f} over {len(lat)} turns")
        finally:
            broker.kill()
    out["8 tables, whole archive games, broker killed, a host kill -9, a table offline"] = \
        full_event_run()
    return out


def full_event_run() -> str:
    """tests/event's eight-table fault run with whole games (HOMEWORLDS_EVENT_FULL=1)."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/event/test_event_broker.py", "-k", "eight"], cwd=REPO,
                          env=dict(os.environ, HOMEWORLDS_EVENT_FULL="1"),
                          capture_output=True, text=True)
    verdict = "hub store == every table store" if done.returncode == 0 else \
        "FAILED: " + (done.stdout.strip().splitlines() or ["?"])[-1]
    return f"{verdict} ({time.perf_counter() - t0:.0f} s)"


if __name__ == "__main__":
    for key, value in run().items():
        print(f"  {key}: {value}")
