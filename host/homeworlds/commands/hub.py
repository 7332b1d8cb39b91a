"""``homeworlds hub --broker URL --event NAME``: follow every table of an event through its
MQTT broker, keep every game in the hub's own store, and serve the event's page
(docs/event.md).

The admin token (start a round, pair, correct a result) is read from ``--admin-token-file``
or the environment variable HOMEWORLDS_HUB_TOKEN; without either, a fresh one is made and
printed once on the terminal (never logged).
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import threading
from pathlib import Path

DEFAULT_STORE = "hub.sqlite"
DEFAULT_LISTEN = "127.0.0.1:8080"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hub", help="follow every table of an event and serve its page",
                       description=__doc__)
    p.add_argument("--broker", required=True, metavar="URL",
                   help="mqtt://host[:port] or mqtts://host[:port] (TLS)")
    p.add_argument("--event", required=True, help="the event's name (its topic level)")
    p.add_argument("--store", default=DEFAULT_STORE, metavar="FILE",
                   help=f"the hub's game store (default: {DEFAULT_STORE})")
    p.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                   help=f"where the page is served (default: {DEFAULT_LISTEN})")
    p.add_argument("--username")
    p.add_argument("--password-file", metavar="FILE")
    p.add_argument("--ca-file", metavar="FILE", help="CA of an mqtts:// broker")
    p.add_argument("--admin-token-file", metavar="FILE")
    p.add_argument("--format", choices=("swiss", "round-robin"), default="swiss",
                   help="how rounds are paired (default: swiss)")
    p.add_argument("--keys-dir", metavar="DIR", type=Path,
                   help="where `homeworlds hub-keys` keeps the broker's files: the hub "
                   "writes broker.acl there again with each remote game it arranges "
                   "(docs/remote-play.md); without it, run `hub-keys … acl` after one")
    p.add_argument("--hub-user", default="hub",
                   help="the hub's broker account in the ACL --keys-dir gets (default: hub)")
    p.add_argument("--reload-broker", metavar="COMMAND",
                   help="run after --keys-dir's broker.acl was written again, when the "
                   "broker reads it from there, e.g. 'sudo systemctl reload mosquitto'")
    p.set_defaults(func=run)


def _acl_writer(args: argparse.Namespace, remote):
    """What the hub does once a remote game is arranged: write the broker's ACL again
    with the game's topics (``--keys-dir``), and say so in its log."""
    if args.keys_dir is None:
        def remind() -> None:
            logging.getLogger("homeworlds.hub").warning(
                "hub: a remote game was arranged: run `homeworlds hub-keys --store %s "
                "--event %s acl`, copy broker.acl to the broker and reload mosquitto so "
                "that its tables may use its topics", args.store, args.event)
        return remind
    from homeworlds.event.identity import BrokerFiles

    def rewrite() -> None:
        files = BrokerFiles(args.keys_dir, args.event, args.hub_user)
        files.remote_games = remote.acl_games()
        files.rewrite()
        log = logging.getLogger("homeworlds.hub")
        if not args.reload_broker:
            log.info("hub: %s written again with the remote games' topics: copy it to the "
                     "broker and reload mosquitto", files.acl)
            return
        problem = reload_broker(args.reload_broker)
        if problem is None:
            log.info("hub: %s written again with the remote games' topics; the broker "
                     "reloaded it (%s)", files.acl, args.reload_broker)
        else:
            log.warning("hub: %s written again with the remote games' topics, but %r "
                        "failed (%s): reload mosquitto by hand before the players accept",
                        files.acl, args.reload_broker, problem)
    return rewrite


def reload_broker(command: str, timeout: float = 10.0) -> str | None:
    """Run the organiser's ``--reload-broker`` command (no shell); why it failed, or None."""
    import shlex
    import subprocess

    try:
        done = subprocess.run(shlex.split(command), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode != 0:
        return f"exit status {done.returncode}: {(done.stderr or done.stdout).strip()[:200]}"
    return None


def _fail(message: str) -> int:
    print(f"homeworlds hub: {message}", file=sys.stderr)
    return 2


def _read_secret(path: str, what: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{what} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not text:
        raise ValueError(f"{what} {path} is empty")
    return text


def listen_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--listen {text!r}: give HOST:PORT (e.g. 0.0.0.0:8080)")
    return host.strip("[]") or "127.0.0.1", int(port)


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    from homeworlds.event.mqtt import MqttUnavailable
    from homeworlds.event.settings import NAME_PATTERN, parse_broker_url, redact_url
    from homeworlds.store import GameStore, StoreError

    try:
        broker = parse_broker_url(args.broker)
        host, port = listen_address(args.listen)
        password = _read_secret(args.password_file, "--password-file") \
            if args.password_file else None
        token = (_read_secret(args.admin_token_file, "--admin-token-file")
                 if args.admin_token_file else os.environ.get("HOMEWORLDS_HUB_TOKEN"))
    except ValueError as exc:
        return _fail(redact_url(str(exc)))
    if not NAME_PATTERN.fullmatch(args.event):
        return _fail(f"--event {args.event!r}: use letters, digits, '-', '_' or '.'")
    if args.ca_file and not broker.tls:
        return _fail("--ca-file is for TLS: use an mqtts:// broker URL")
    if args.ca_file and not Path(args.ca_file).is_file():
        return _fail(f"--ca-file {args.ca_file}: no such file")
    try:
        import uvicorn

        from homeworlds.event.hub import HubIngest
        from homeworlds.event.hub_client import HubClient
        from homeworlds.event.rounds import EventBook
        from homeworlds.web.guard import guarded_config, limits_for_descriptors, widen_queue
        from homeworlds.web.hub import HubPages, build_app
    except (ImportError, MqttUnavailable) as exc:
        return _fail(f"{exc}: pip install 'homeworlds-table[event]'")
    try:
        store = GameStore.open(args.store)
    except StoreError as exc:
        return _fail(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if not token:
        token = secrets.token_urlsafe(18)
        print(f"homeworlds hub: admin token for this run: {token}", flush=True)
    ingest = HubIngest(store, args.event)
    tables = sorted(ingest.identities.tables(valid_only=True))
    if tables:
        have = "1 table has" if len(tables) == 1 else f"{len(tables)} tables have"
        print(f"homeworlds hub: {have} a key ({', '.join(tables)}); "
              "every message is checked against them", flush=True)
    else:
        print("homeworlds hub: no table has a key yet: every table's messages are refused "
              f"until `homeworlds hub-keys --store {args.store} --event {args.event} issue "
              "TABLE…` (docs/event.md, \"Identity\")", flush=True)
    from homeworlds.remote.hub_games import HubRemoteGames

    remote = HubRemoteGames(store, args.event, ingest.identities, lock=ingest.lock)
    try:
        client = HubClient(broker, args.event, ingest, username=args.username,
                           password=password,
                           ca_file=Path(args.ca_file) if args.ca_file else None,
                           remote=remote)
    except MqttUnavailable as exc:
        store.close()
        return _fail(str(exc))
    pages = HubPages(ingest, args.store, EventBook(store, args.format), admin_token=token,
                     event=args.event, clock_control=client, remote=remote,
                     on_arranged=_acl_writer(args, remote))
    app = build_app(pages)
    client.start()
    print(f"homeworlds hub: event {args.event} from {broker.text()}, store {args.store}, "
          f"page at http://{host}:{port}/", flush=True)
    # A connection cap below the descriptor limit, the admin's share, timeouts
    # (docs/event.md, "The hub under load").
    limits = limits_for_descriptors()
    config = guarded_config(app, limits, host=host, port=port)
    server = uvicorn.Server(config)
    try:
        sock = config.bind_socket()
    except SystemExit:  # uvicorn's way of saying the address is taken
        client.stop()
        store.close()
        return _fail(f"--listen {host}:{port}: cannot listen there (another program on "
                     "that port?)")
    widen_queue(server, [sock])
    print(f"homeworlds hub: at most {limits.max_connections} connections, "
          f"{limits.reserved} kept for the admin", flush=True)
    if stop is not None:
        def exit_when_stopped() -> None:
            stop.wait()
            server.should_exit = True

        threading.Thread(target=exit_when_stopped, daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        client.stop()
        store.close()
    return 0
