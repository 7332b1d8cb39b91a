"""The web display's cost and speed (docs/display.md, docs/performance.md).

1. Table event → browser DOM update: the bundled game (SDG #608) is played on the simulated
   table over a pty with the live display attached; a headless Chromium (Debian's, through
   Playwright) shows the live page. Every snapshot carries the host's wall-clock time of the
   tick that made it (``at``, the tick the LEDs change); the page notes when it applied it.
   Target: p95 <= 200 ms.
2. Fifty spectators: the host's line → LED frame latency (as ``table_bench`` measures it:
   a recorded serial stream fed line by line into a fresh host) once without the display
   and once with the display (in its own process, as ``play`` runs it) serving 50 event
   streams to clients in another process (as phones and screens are other machines),
   and analysing every committed position for them (win probability, threats, the
   computer's suggestion: ``web.analysis``, docs/analysis.md). Target: p99 <= 5 ms with
   them too.
3. Drawing: the star map's draw time and size for every position of the archive slice
   (tests/data) and, when present, a sample of ../shared; and the archive viewer's answer
   time for one step's SVG (served in-process, Starlette's test client).

Prints figures, asserts nothing.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

from homeworlds.display.steps import GameFileError, load_game_file
from homeworlds.display.svg import render_svg

HERE = Path(__file__).resolve().parent
SPECTATORS = 50
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

_CLIENTS = r"""
import asyncio, sys
async def spectator(port, counts, last, analyses, k):
    # Phones and screens have addresses of their own: the server limits each address
    # (docs/display.md, "Under load"), so the spectators come from 127.0.0.2, .3, ...
    reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                   local_addr=(f"127.0.0.{2 + k // 8}", 0))
    writer.write(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"event:"):
            counts[k] += 1
            if line.startswith(b"event: analysis"):
                analyses[k] += 1
        elif line.startswith(b"id:"):
            last[k] = max(last[k], int(line[3:]))
async def main(port, n):
    counts, last, analyses = [0] * n, [0] * n, [0] * n
    tasks = [asyncio.create_task(spectator(port, counts, last, analyses, k))
             for k in range(n)]
    print("connected", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    print(sum(counts), min(last), min(analyses), flush=True)
asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
"""


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * q))] * 1e3, 3)


def _bundled_game_file() -> Path:
    text = resources.files("homeworlds.data").joinpath("demo-game.raw").read_text()
    path = Path(tempfile.mkdtemp(prefix="display-bench-")) / "608.raw"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------- 1. browser latency


def browser_latency(turns: int = 30, analysis: bool = True) -> dict:
    """``analysis``: the display process analyses every committed position meanwhile (as
    ``play`` runs it)."""
    from homeworlds.notation import read_sdg_file
    from homeworlds.rules import preset
    from homeworlds.runtime.table_replay import SimulatedTableGame
    from homeworlds.web.live import attach_display

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"browser latency": "not measured: playwright is not installed"}
    if not os.access(CHROMIUM, os.X_OK):
        return {"browser latency": f"not measured: no Chromium at {CHROMIUM} (make browser)"}
    game = read_sdg_file(_bundled_game_file())
    sim = SimulatedTableGame(preset("sdg"), game.players, miss_rate=0.05, seed=5)
    with sim, sync_playwright() as pw:
        live = attach_display(sim.session, table="bench", rules_name="sdg", port=0,
                              analysis=analysis)
        server, producer = live.server, live.producer
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(server.url)
            page.wait_for_function("() => document.body.dataset.seq !== '0'")
            start_seq = producer.latest.seq
            for turn in game.turns[:turns]:
                sim.driver.begin_turn()
                for action in turn.actions:
                    sim.driver.act(action)
                    sim.settle()
                after = sim.driver.end_turn(hand_over=False)
                sim.settle()
                sim.hand_over_and_wait(after.to_move if not after.is_over else 1 - turn.seat)
                sim.session.tick()
            last = producer.latest.seq
            page.wait_for_function(f"() => Number(document.body.dataset.seq) >= {last}",
                                   timeout=10_000)
            applied = page.evaluate("() => window.hwApplied")
        finally:
            browser.close()
            live.stop()
    delays = [done - at for seq, at, done in applied if seq > start_seq]
    return {
        "snapshots shown in the browser": len(delays),
        "table tick -> browser DOM updated p50 ms": _pct(delays, 0.5),
        "table tick -> browser DOM updated p95 ms": _pct(delays, 0.95),
        "table tick -> browser DOM updated max ms": _pct(delays, 1.0),
    }


# ---------------------------------------------------------------------- 2. spectators


def _replay(chunks, game, display: bool, analysis: bool = True):
    """table_bench's replay of a recorded stream, with the feed (and a display serving
    ``SPECTATORS`` streams) attached when ``display``."""
    from homeworlds.link import PipeTransport, TableLink
    from homeworlds.pixels import MemorySink, PixelOutput
    from homeworlds.replay import rules_for_game
    from homeworlds.session import new_session
    from homeworlds.sim import make_registry
    from homeworlds.table.layout import builtin_layout

    layout = builtin_layout("standard-2p")
    registry = make_registry(layout, 2)
    host_end, device_end = PipeTransport.pair("bench")
    device_end.open()
    link = TableLink(lambda: host_end)
    output = PixelOutput(MemorySink(layout.pixel_count), max_fps=None)
    first = game.turns[0].seat if game.turns else 0
    session = new_session(layout, registry, rules_for_game(game, None), game.players,
                          output=output, first_seat=first)
    server = clients = None
    delivered = None
    if display:
        from homeworlds.web.live import attach_display

        live = attach_display(session, table="bench", rules_name="sdg", port=0,
                              analysis=analysis)
        server = live.server
        clients = subprocess.Popen([sys.executable, "-c", _CLIENTS, str(server.port),
                                    str(SPECTATORS)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        clients.stdout.readline()
        time.sleep(2.0)  # the clients connect (the first event of each is a snapshot)
    lines = [line + b"\n" for line in b"".join(chunks).split(b"\n") if line]
    to_frame = []
    try:
        for line in lines:
            device_end.write(line)
            t0 = time.perf_counter()
            events = link.poll(0)
            for event in events:
                session.handle(event)
            output.submit(session.render())
            t2 = time.perf_counter()
            if events:
                to_frame.append(t2 - t0)
            session.evaluate(force=True)
            session.events.tick.emit()  # the feed, as session.tick tells it
            # Serial lines arrive a scan apart (tens of ms), not back to back: give the
            # server thread the time it has on the table.
            time.sleep(0.002)
        if display:
            time.sleep(1.0)
            clients.stdin.write("\n")
            clients.stdin.flush()
            total, least, analyses = clients.stdout.readline().split()
            delivered = (int(total), int(least), live.producer.latest.seq,
                         live.server.resyncs, int(analyses))
    finally:
        if clients is not None:
            clients.kill()
            clients.wait()
        if server is not None:
            server.stop()
    return to_frame, delivered


def spectators() -> dict:
    sys.path.insert(0, str(HERE))  # table_bench's stream recorder
    import table_bench

    chunks, game = table_bench._record_stream(_bundled_game_file())
    alone, _ = _replay(chunks, game, display=False)
    watched, (total, least, final, dropped, analyses) = _replay(chunks, game, display=True)
    return {
        "lines timed": len(alone),
        "line -> LED frame p99 ms, no display": _pct(alone, 0.99),
        f"line -> LED frame p50 ms, {SPECTATORS} spectators": _pct(watched, 0.5),
        f"line -> LED frame p99 ms, {SPECTATORS} spectators": _pct(watched, 0.99),
        f"line -> LED frame max ms, {SPECTATORS} spectators": _pct(watched, 1.0),
        "events sent to the spectators (total)": total,
        "every spectator ended on the table's latest event": f"{least == final} (last "
                                                              f"seq {least} of {final})",
        "bursts the display process fell behind in (resynced)": dropped,
        # The display process analyses every committed position meanwhile (web.analysis):
        # the table's figures above are with that work going on.
        "analyses each spectator received (live analysis on)": analyses,
    }


# ---------------------------------------------------------------------- 3. drawing

REPO = Path(__file__).resolve().parents[1]
SLICE = REPO / "tests" / "data" / "games" / "sdg"
SHARED = REPO.parent / "shared" / "games" / "sdg"


def _games() -> list[Path]:
    files = sorted(SLICE.glob("*.raw"))
    if SHARED.is_dir():
        files += random.Random(13).sample(sorted(SHARED.glob("*.raw")), 40)
    return files


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def drawing_and_archive() -> dict[str, str]:
    """The star map's draw time and size over archive positions, and the archive viewer's
    answer time for one step (web-view's figures)."""
    times, sizes = [], []
    games = 0
    for path in _games():
        try:
            game = load_game_file(path)
        except GameFileError:  # an unreadable archive file is corpus_check's business
            continue
        games += 1
        for step in game.steps:
            t0 = time.perf_counter()
            svg = render_svg(step.state, players=game.players)
            times.append(time.perf_counter() - t0)
            sizes.append(len(svg))
    out = {
        "positions drawn": f"{len(times)} from {games} games",
        "SVG draw p50 / p95 / max": " / ".join(f"{_percentile(times, q) * 1000:.2f} ms"
                                              for q in (0.5, 0.95, 1.0)),
        "SVG size p50 / max": f"{statistics.median(sizes) / 1024:.1f} KiB / "
                              f"{max(sizes) / 1024:.1f} KiB",
    }
    try:
        from starlette.applications import Starlette
        from starlette.testclient import TestClient

        from homeworlds.web.archive import archive_routes
    except ImportError:
        out["archive step"] = "skipped (pip install 'homeworlds-table[web]')"
        return out
    client = TestClient(Starlette(routes=archive_routes(None, [SLICE / "777.raw"])))
    client.get("/archive/file/0")  # the replay is cached after the first page
    answer = []
    for step in range(58):
        t0 = time.perf_counter()
        reply = client.get(f"/archive/file/0/svg/{step}")
        answer.append(time.perf_counter() - t0)
        if reply.status_code != 200:
            out["archive step"] = f"step {step} answered {reply.status_code}"
            return out
    out["archive step SVG answer p50 / p95 (777.raw, 4 players)"] = " / ".join(
        f"{_percentile(answer, q) * 1000:.2f} ms" for q in (0.5, 0.95))
    return out


def run() -> dict:
    out: dict = {}
    out.update(browser_latency())
    out.update(spectators())
    out.update(drawing_and_archive())
    return out


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
