"""A simulated table over a pty with the live display attached, for the browser tests and
the display benchmark: the same feed, admin commands and server as ``play`` and
``demo --web``."""

from __future__ import annotations

import threading
from importlib import resources

from homeworlds.notation import read_sdg
from homeworlds.rules import preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.web.live import attach_feed
from homeworlds.web.server import WebDisplay

TOKEN = "browser-test-admin-token-0123456789"


def bundled_game():
    text = resources.files("homeworlds.data").joinpath("demo-game.raw").read_text()
    return read_sdg(text, source="demo-game.raw")


class LiveTable:
    """``sim`` (the simulated table and host session), the feed and a display server."""

    #: More keywords for the ``WebDisplay`` (e.g. ``analysis=True``).
    server_options: dict = {}

    def __init__(self, game=None, port: int = 0, **session_options):
        """``session_options`` go to the simulated table's session (e.g. ``clock_spec``)."""
        self.game = game or bundled_game()
        first = self.game.turns[0].seat if self.game.turns else 0
        self.sim = SimulatedTableGame(preset("sdg"), self.game.players, first_seat=first,
                                      miss_rate=0.0, seed=3, **session_options)
        self.hub, self.producer, self.control, self.commands = attach_feed(
            self.sim.session, table="club-table", rules_name="sdg")
        self.server: WebDisplay | None = None
        self.port = port
        self.next_turn = 0
        self._pump_stop: threading.Event | None = None
        self._pump: threading.Thread | None = None

    def __enter__(self) -> LiveTable:
        self.sim.__enter__()
        self.start_server()
        return self

    def __exit__(self, *exc) -> None:
        self.stop_pumping()
        self.stop_server()
        self.sim.__exit__()

    # ---- the server ----

    def start_server(self) -> None:
        self.server = WebDisplay(self.hub, self.commands, port=self.port, admin_token=TOKEN,
                                 table_name="club-table", **self.server_options)
        if self.server.analysis is not None:  # quick answers for the tests
            self.server.analysis.think_s = self.server.analysis.forced_s = 0.3
        self.server.start()
        self.port = self.server.port

    def stop_server(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ---- the table ----

    def play_turn(self) -> int:
        """Play the game's next turn physically; returns the committed record length."""
        sim = self.sim
        turn = self.game.turns[self.next_turn]
        sim.driver.begin_turn()
        for action in turn.actions:
            sim.driver.act(action)
            sim.settle()
        after = sim.driver.end_turn(hand_over=False)
        sim.settle()
        following = after.to_move if not after.is_over else 1 - turn.seat
        assert sim.hand_over_and_wait(following), sim.session.status.message
        self.next_turn += 1
        sim.session.tick()
        return len(sim.session.tracker.record)

    def pump(self) -> None:
        """Run the table loop in the background (admin commands need it) until
        ``stop_pumping``; the test must not touch the table meanwhile."""
        stop = threading.Event()
        session, link = self.sim.session, self.sim.link

        def loop() -> None:
            while not stop.is_set():
                for event in link.poll(0.01):
                    session.handle(event)
                session.tick()

        self._pump_stop = stop
        self._pump = threading.Thread(target=loop, daemon=True)
        self._pump.start()

    def stop_pumping(self) -> None:
        if self._pump is not None:
            self._pump_stop.set()
            self._pump.join(5)
            self._pump = None
