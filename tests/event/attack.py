"""An event under attack, through a real mosquitto (issue 27): eight tables with their own
broker accounts and keys (``homeworlds hub-keys``), the hub as its own process
(``homeworlds hub``), and rogue publishers:

* an **outsider** without an account (and one with a wrong password): the broker refuses
  the connection;
* an **insider** holding t1's broker password but not its key: the ACL drops what it
  publishes on other tables' topics; on t1's own topics the hub refuses it (no valid MAC);
* an insider on the **shared account** of the old set-up (every table one account, write
  and read on every table's topics): it reads every genuine message and publishes forged
  turns (a legal Pass, unsigned or under a guessed secret), forged and false results,
  genuine messages moved to another table's topic, and replays of genuine messages
  (before and after the hub is killed and restarted).

Meanwhile the broker is killed and restarted, the hub is killed (kill -9) and restarted, and
one table host is killed and restarted. At the end the hub's store must equal every table's
store turn by turn (so no forged turn or result was stored). ``run_attack`` returns the
figures; tests/event/test_event_attack.py and benchmarks/event_attack.py run it.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from homeworlds.event.identity import password_line
from homeworlds.event.mqtt import make_client
from homeworlds.event.settings import parse_broker_url
from homeworlds.identity import TableKey, sign
from tests.event.broker import Broker, free_port
from tests.event.helpers import TWO_PLAYER_GAMES, TableProcess, store_rows, wait_for
from tests.shared import REPO

EVENT = "club"
SHARED_USER, SHARED_PASSWORD = "table", "the-old-shared-password"


@dataclass
class Figures:
    tables: int = 0
    #: messages each rogue tried to publish, by what they were
    tried: Counter = field(default_factory=Counter)
    #: connections the broker refused (outsiders)
    connections_refused: int = 0
    #: the hub's refusals (from its log), by reason
    refused: Counter = field(default_factory=Counter)
    #: forged and replayed requests the tables ignored (from their logs)
    requests_ignored: int = 0
    #: turns the hub stored, and turns the tables committed
    stored_turns: int = 0
    table_turns: int = 0
    results: int = 0
    forged_stored: int = 0
    seconds: float = 0.0

    def lines(self) -> list[str]:
        tried = sum(self.tried.values())
        refused = sum(self.refused.values())
        return [
            f"{self.tables} tables, {self.table_turns} turns committed at the tables, "
            f"{self.stored_turns} stored at the hub (equal turn by turn), {self.results} "
            "results",
            f"rogue messages tried: {tried} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(self.tried.items()))})",
            f"outsider connections refused by the broker: {self.connections_refused}",
            f"refused by the hub (logged with table, topic, reason): {refused} "
            f"({', '.join(f'{k} {v}' for k, v in self.refused.most_common())})",
            f"forged or replayed requests ignored by the tables: {self.requests_ignored}",
            f"dropped by the broker's ACL or lost before the hub or table: "
            f"{max(0, tried - refused - self.requests_ignored)}",
            f"forged messages stored: {self.forged_stored}",
            f"wall time {self.seconds:.0f} s",
        ]


def reason_class(reason: str) -> str:
    for words, name in (("not signed", "unsigned"), ("does not match", "bad MAC"),
                        ("replayed", "replayed"), ("not table", "another table's key"),
                        ("unknown key", "unknown key"), ("malformed", "malformed"),
                        ("replay", "result not reached by replay"),
                        ("never replaced", "differs from the stored one"),
                        ("is finished", "after the result"), ("is to move", "out of turn"),
                        ("not legal", "illegal")):
        if words in reason:
            return name
    return "other"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO / "host") + os.pathsep + str(REPO / "firmware"))


def _homeworlds(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "homeworlds", *args], capture_output=True,
                          text=True, env=_env(), timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"homeworlds {' '.join(args)}: {done.stderr}")
    return done.stdout


class HubProcess:
    """``homeworlds hub`` on the hub's broker account; its log kept across restarts."""

    def __init__(self, directory: Path, broker: Broker, keys: Path):
        self.directory = directory
        self.port = free_port()
        (directory / "admin.token").write_text("attack-test-token\n")
        self.args = [sys.executable, "-m", "homeworlds", "hub", "--broker", broker.url,
                     "--event", EVENT, "--store", str(directory / "hub.sqlite"), "--listen",
                     f"127.0.0.1:{self.port}", "--username", "hub", "--password-file",
                     str(keys / "hub.pw"), "--admin-token-file", str(directory / "admin.token")]
        self.log_path = directory / "hub.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(self.args, stdout=self.log, stderr=self.log,
                                        env=_env(), start_new_session=True)

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill9()
        if not self.log.closed:
            self.log.close()

    def refusals(self) -> list[tuple[str, str, str]]:
        """(table, topic, reason) of every refusal the hub logged."""
        text = self.log_path.read_text(errors="replace")
        return re.findall(r"table (\S+): refused a message on (\S+): (.*)", text)


class Rogue:
    """An MQTT client on an account (or none) that publishes what ``plan`` makes of what it
    reads; counts what it tried."""

    def __init__(self, broker: Broker, name: str, user: str | None, password: str | None,
                 figures: Figures):
        self.name = name
        self.figures = figures
        self.client = make_client(parse_broker_url(broker.url), f"rogue-{name}",
                                  username=user, password=password)
        self.connected = threading.Event()
        self.refused = False
        #: topic -> genuine payloads seen (what a replay re-sends)
        self.seen: dict[str, list[bytes]] = {}
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a, **k: self.connected.clear()
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", broker.port, keepalive=10)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if getattr(reason_code, "is_failure", False):
            if not self.refused:
                self.figures.connections_refused += 1
            self.refused = True
            return
        self.connected.set()
        client.subscribe(f"homeworlds/{EVENT}/tables/+/+", qos=1)

    def _on_message(self, client, userdata, message) -> None:
        if message.payload.startswith(b"HWS1 "):
            self.seen.setdefault(message.topic, []).append(bytes(message.payload))

    def publish(self, what: str, topic: str, payload: bytes) -> None:
        self.figures.tried[f"{self.name}: {what}"] += 1
        self.client.publish(topic, payload, qos=1)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def genuine(payload: bytes) -> dict | None:
    try:
        return json.loads(payload.split(b"\n", 1)[1])
    except (IndexError, ValueError):
        return None


def forge_round(rogue: Rogue, stolen: Rogue, tables: list[str], rng: random.Random) -> None:
    """One round of forgeries against every table, built from what the shared account
    read."""
    for table in tables:
        base = f"homeworlds/{EVENT}/tables/{table}"
        turns = rogue.seen.get(f"{base}/turns") or []
        if not turns:
            continue
        last = genuine(turns[-1])
        if last is None:
            continue
        key_id = turns[-1].split(b" ", 2)[1].decode()
        nxt = dict(last, number=last["number"] + 1, sdg="Pass", position_json=None,
                   seat=1 - last["seat"])
        forged = json.dumps(nxt).encode()
        rogue.publish("unsigned Pass", f"{base}/turns", forged)
        guess = TableKey(table, key_id, rng.randbytes(32))
        rogue.publish("Pass under a guessed secret", f"{base}/turns",
                      sign(guess, f"{base}/turns", rng.randrange(1, 2 ** 40), forged))
        result = dict(last, type="result", kind="opponent-eliminated",
                      winners=[last["seat"]], by_seat=None, after_turn=last["number"],
                      at=last["committed"], text="forged")
        rogue.publish("unsigned result", f"{base}/result", json.dumps(result).encode())
        bogus = dict(result, winners=[7, -1], by_seat=42, kind="<b>bogus</b>")
        rogue.publish("bogus result", f"{base}/result", json.dumps(bogus).encode())
        other = rng.choice([t for t in tables if t != table])
        moved = rogue.seen.get(f"homeworlds/{EVENT}/tables/{other}/turns") or []
        if moved:
            rogue.publish("another table's signed turn moved here", f"{base}/turns",
                          moved[-1])
        rogue.publish("replayed genuine turn", f"{base}/turns", rng.choice(turns))
        results = rogue.seen.get(f"{base}/result") or []
        if results:
            rogue.publish("replayed genuine result", f"{base}/result", results[-1])
        rogue.publish("forged request: send the whole game again", f"{base}/request",
                      json.dumps({"game_uid": last["game_uid"], "from": 1}).encode())
        states = rogue.seen.get(f"{base}/state") or []
        if len(states) > 2:
            rogue.publish("replayed old state", f"{base}/state", states[0])
        # The stolen t1 account: its forgeries on other tables' topics are the ACL's to drop.
        stolen.publish("t1's account on another table's topic", f"{base}/turns", forged)
    base = f"homeworlds/{EVENT}/tables/t1"
    t1_turns = rogue.seen.get(f"{base}/turns") or []
    if t1_turns:
        stolen.publish("t1's account, forged turn", f"{base}/turns",
                       json.dumps(dict(genuine(t1_turns[-1]) or {}, sdg="Pass")).encode())
        stolen.publish("t1's account, replayed turn", f"{base}/turns", t1_turns[0])


def run_attack(directory: Path, *, tables: int = 8, turns: int | None = None,
               interval: float = 0.25, rounds_every: float = 0.3, seed: int = 27) -> Figures:
    """The whole scenario in ``directory``: each table plays an archive game (its first
    ``turns``, or all of it to the end by elimination); AssertionError when the hub's
    record is not every table's."""
    t0 = time.monotonic()
    rng = random.Random(seed)
    figures = Figures(tables=tables)
    names = [f"t{k + 1}" for k in range(tables)]
    keys = directory / "keys"
    _homeworlds("hub-keys", "--store", str(directory / "hub.sqlite"), "--event", EVENT,
                "--dir", str(keys), "issue", *names)
    # The old set-up's shared account, as an insider holds it: every table's topics.
    with open(keys / "broker.passwd", "a") as f:
        f.write(password_line(SHARED_USER, SHARED_PASSWORD) + "\n")
    with open(keys / "broker.acl", "a") as f:
        f.write(f"\nuser {SHARED_USER}\ntopic readwrite homeworlds/{EVENT}/tables/#\n")
    (directory / "broker").mkdir()
    broker = Broker(directory / "broker", password_file=keys / "broker.passwd",
                    acl_file=keys / "broker.acl")
    broker.start()
    hub = HubProcess(directory, broker, keys)
    games = [TWO_PLAYER_GAMES[k % len(TWO_PLAYER_GAMES)] for k in range(tables)]
    procs = [TableProcess(directory, broker.url, EVENT, name, games[k], interval=interval,
                          turns=turns, key_file=keys / f"{name}.key",
                          extra=["--username", name, "--password-file",
                                 str(keys / f"{name}.pw")])
             for k, name in enumerate(names)]
    rogues: list[Rogue] = []
    stop = threading.Event()
    try:
        hub.start()
        for p in procs:
            p.start()
        outsider = Rogue(broker, "outsider", None, None, figures)
        guesser = Rogue(broker, "wrong password", "t2", "guess", figures)
        shared = Rogue(broker, "shared account", SHARED_USER, SHARED_PASSWORD, figures)
        stolen = Rogue(broker, "t1's account", "t1", (keys / "t1.pw").read_text().strip(),
                       figures)
        rogues = [outsider, guesser, shared, stolen]
        wait_for(lambda: outsider.refused and guesser.refused, 20,
                 "the broker to refuse the outsiders")
        for who in (outsider, guesser):
            for name in names:
                who.publish("publish without an account", f"homeworlds/{EVENT}/tables/"
                            f"{name}/turns", b'{"type": "turn"}')

        def attack() -> None:
            while not stop.wait(rounds_every):
                if shared.connected.is_set() and stolen.connected.is_set():
                    forge_round(shared, stolen, names, rng)

        attacker = threading.Thread(target=attack, daemon=True)
        attacker.start()
        wait_for(lambda: sum(len(v) for k, v in shared.seen.items() if k.endswith("/turns"))
                 >= 2 * tables, 60, "the tables' first turns")
        broker.kill()                                   # the broker dies...
        time.sleep(0.8)
        procs[2].kill9()                                # ...table 3's host is killed...
        broker.start()
        time.sleep(0.5)
        procs[2].start()
        time.sleep(1.0)
        hub.kill9()                                     # ...and the hub (kill -9)
        time.sleep(1.0)
        hub.start()
        wait_for(lambda: all(p.finished() for p in procs), 120 + interval * 60,
                 "every table to finish")
        time.sleep(2 * rounds_every)
        stop.set()
        attacker.join(10)
        # Everything the shared account ever read, sent again at once: replays.
        for topic, payloads in list(shared.seen.items()):
            for payload in payloads[: 20]:
                shared.publish("replay burst at the end", topic, payload)
        time.sleep(1.0)
        wait_for(lambda: all(store_rows(directory / "hub.sqlite", p.table) ==
                             store_rows(p.store) for p in procs), 60,
                 "the hub's store to equal every table's store")
    finally:
        stop.set()
        for r in rogues:
            r.stop()
        for p in procs:
            p.stop()
        hub.stop()
        broker.kill()
    for p in procs:
        want = store_rows(p.store)
        have = store_rows(directory / "hub.sqlite", p.table)
        assert have == want, f"table {p.table}: the hub's record differs"
        for rows, result in want.values():
            figures.table_turns += len(rows)
            figures.results += result is not None
    hub_rows = store_rows(directory / "hub.sqlite")
    figures.stored_turns = sum(len(rows) for rows, _ in hub_rows.values())
    table_uids = {uid for p in procs for uid in store_rows(p.store)}
    figures.forged_stored = (len(set(hub_rows) - table_uids) +
                             figures.stored_turns - figures.table_turns)
    figures.requests_ignored = sum(p.output().count(": ignored a request on ")
                                   for p in procs)
    for _table, _topic, reason in hub.refusals():
        figures.refused[reason_class(reason)] += 1
    figures.seconds = time.monotonic() - t0
    return figures
