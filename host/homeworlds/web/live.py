"""The live display attached to a running table: feed producer, hub, admin commands, server.

``attach_display(session, ...)`` is what ``play`` and ``demo --web`` call: it has a
``FeedProducer`` and the admin ``ControlQueue`` listen to the session's events (the
table's own thread: commands run at the end of its tick, then snapshots are taken; the
producer hears of a commit after the game store), and starts the web server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from homeworlds.feed import FeedHub, FeedProducer
from homeworlds.session import ControlQueue, Stage, TableControl

if TYPE_CHECKING:
    from homeworlds.web.process import DisplayProcess
    from homeworlds.web.server import WebDisplay


@dataclass
class LiveDisplay:
    hub: FeedHub
    producer: FeedProducer
    control: TableControl
    queue: ControlQueue
    server: WebDisplay | DisplayProcess

    @property
    def url(self) -> str:
        return self.server.url

    def stop(self) -> None:
        self.server.stop()


def _guarded(hook: Callable, what: str) -> Callable:
    """The hook, but a bug in it never stops the table loop (the game goes on without the
    display); the first failure of each kind is reported on stderr."""
    import sys

    reported: set[str] = set()

    def run(*args) -> None:
        try:
            hook(*args)
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            if text not in reported:
                reported.add(text)
                print(f"homeworlds: {what} failed ({text}); the table goes on",
                      file=sys.stderr, flush=True)
    return run


def attach_feed(session, *, table: str, rules_name: str,
                uid: Callable[[], str | None] | None = None, recorder=None,
                start_new_game: Callable[[], None] | None = None,
                on_undo: Callable[[int], None] | None = None,
                max_brightness: float = 1.0, commands: ControlQueue | None = None,
                hub: FeedHub | None = None, sinks=(),
                control_options: dict | None = None) -> tuple[FeedHub, FeedProducer,
                                                              TableControl, ControlQueue]:
    """The feed and the admin commands of ``session``, without a server (a transport of its
    own, e.g. MQTT, may take the hub or add a sink to the producer)."""
    hub = hub or FeedHub()
    producer = FeedProducer(session, table=table, rules_name=rules_name, uid=uid,
                            sinks=[hub.publish_threadsafe, *sinks])
    control = TableControl(session, recorder=recorder, producer=producer,
                           start_new_game=start_new_game, on_undo=on_undo,
                           max_brightness=max_brightness, **(control_options or {}))
    commands = commands or ControlQueue()
    events = session.events
    events.committed.listen(Stage.FEED, _guarded(producer.committed, "the display feed"))
    events.tick.listen(Stage.CONTROL,
                       _guarded(lambda: commands.run_pending(control), "admin commands"))
    events.tick.listen(Stage.FEED, _guarded(producer.tick, "the display feed"))
    producer.tick()  # the first snapshot, before anyone connects
    return hub, producer, control, commands


def attach_display(session, *, table: str, rules_name: str, host: str = "127.0.0.1",
                   port: int = 8080, admin_token: str | None = None,
                   uid: Callable[[], str | None] | None = None, recorder=None,
                   start_new_game: Callable[[], None] | None = None,
                   on_undo: Callable[[int], None] | None = None,
                   max_brightness: float = 1.0, in_process: bool = False,
                   store_path=None, control_options: dict | None = None,
                   attract_after_s: float = 0.0, suggestions: bool = True,
                   analysis: bool = True) -> LiveDisplay:
    """Feed + admin commands + the web server, by default in a process of its own
    (``web.process``: the server's work never takes the table loop's interpreter lock).
    WebUnavailable (missing extra, port in use) propagates before anything is hooked to
    the session. ``attract_after_s`` > 0: the display process runs attract mode (its
    ``server.activity()`` stops the replays when a piece is placed). The display process
    runs the live analysis (``web.analysis``; ``analysis`` False: not; never in process,
    where it would share the table loop's interpreter); ``suggestions`` False (tournament
    mode) hides the computer's suggested turn there."""
    from homeworlds.web import require_web
    from homeworlds.web.app import new_admin_token

    require_web()
    token = admin_token or new_admin_token()
    commands = ControlQueue()
    server: WebDisplay | DisplayProcess
    hub: FeedHub | None = None
    sinks: list[Callable] = []
    if in_process:
        from homeworlds.web.server import WebDisplay

        server = WebDisplay(FeedHub(), commands, host=host, port=port, admin_token=token,
                            table_name=table, store_path=store_path)
        hub = server.state.hub
    else:
        from homeworlds.web.process import DisplayProcess

        server = DisplayProcess(commands, host=host, port=port, admin_token=token,
                                table_name=table, store_path=store_path,
                                attract_after_s=attract_after_s, analysis=analysis,
                                suggestions=suggestions)
        sinks = [server.publish]
    server.start()
    try:
        hub, producer, control, commands = attach_feed(
            session, table=table, rules_name=rules_name, uid=uid, recorder=recorder,
            start_new_game=start_new_game, on_undo=on_undo, max_brightness=max_brightness,
            commands=commands, hub=hub, sinks=sinks, control_options=control_options)
    except BaseException:
        server.stop()
        raise
    return LiveDisplay(hub, producer, control, commands, server)
