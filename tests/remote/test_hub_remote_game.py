"""A remote game the hub arranges, against a real mosquitto with the event's accounts and
ACL (``homeworlds hub-keys``) and the hub as its own ``homeworlds hub`` process:

- the organiser pairs t1 and t2 on the hub's admin page; the hub writes the ACL again with
  the game's topics (``--keys-dir``) and sends each table its sealed, signed invitation;
- each table shows it and its player types ``accept``: no code typed; the table is built
  again into the remote game (its code kept in ``remote-game.json``), and the two tables
  play an archive game's turns through the broker;
- an insider on the broker (the old shared account) sends t1 forged invitations: signed
  with t2's key, t2's genuine one moved to t1's topic, a replay of an older genuine one:
  each refused with its reason logged; t1's account cannot write t2's side of the game;
- the hub is killed (SIGKILL) mid-game: the game goes on; once started again the hub shows
  the game with both tables and the turn count; both stores are equal turn by turn.
"""

from __future__ import annotations

import json
import logging
import signal
import time
import urllib.request
from urllib.parse import urlencode

from homeworlds.event.identity import password_line
from homeworlds.event.mqtt import make_client
from homeworlds.event.settings import parse_broker_url
from homeworlds.identity import Signer, TableKey, open_signed
from homeworlds.notation import read_sdg_file
from homeworlds.remote.hub_invite import invite_topic
from homeworlds.remote.messages import topic
from homeworlds.store import GameStore
from tests.event.attack import EVENT, HubProcess, _homeworlds
from tests.event.broker import Broker
from tests.remote.hub_tables import HubTable
from tests.remote.play_tables import follow, play_own, wait
from tests.remote.tables import GAME, reference_before, slots_by_content

INSIDER, INSIDER_PASSWORD = "shared", "shared-secret-of-the-old-setup"
#: a topic nobody else uses: the insider's probe of its own rights
PROBE = f"homeworlds/{EVENT}/tables/probe/events"



def hub_get(hub: HubProcess, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{hub.port}{path}", timeout=5) as answer:
        return answer.read().decode()


def hub_serves(hub: HubProcess) -> bool:
    try:
        return json.loads(hub_get(hub, "/api/remote")) == []
    except OSError:
        return False


def hub_remote(hub: HubProcess) -> list[dict]:
    try:
        return json.loads(hub_get(hub, "/api/remote"))
    except OSError:
        return []


def arrange(hub: HubProcess, players) -> None:
    form = urlencode({"host": "t1", "guest": "t2", "player0": players[0],
                      "player1": players[1], "rules": "sdg"}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{hub.port}/admin/remote", data=form, method="POST",
        headers={"Authorization": "Bearer attack-test-token",
                 "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=20) as answer:
        assert answer.status == 200  # the 303 to the overview, followed


class Insider:
    """An MQTT client on the old set-up's shared account: it reads and writes every
    table's topics (as the insider of docs/event.md "Identity" does), and keeps what it
    read on the invite topics."""

    def __init__(self, broker: Broker, user: str, password: str):
        self.seen: dict[str, list[bytes]] = {}
        self.client = make_client(parse_broker_url(broker.url), f"insider-{user}",
                                  username=user, password=password)
        self.client.on_message = lambda c, u, m: self.seen.setdefault(m.topic, []).append(
            bytes(m.payload))
        self.client.on_connect = lambda c, u, f, rc, p=None: c.subscribe(
            [(f"homeworlds/{EVENT}/tables/+/invite", 1), (PROBE, 1)])
        self.client.connect(broker.url.split("//")[1].split(":")[0], broker.port)
        self.client.loop_start()

    def writes(self) -> bool:
        """Whether the broker lets it write now (its ACL lines were added back and
        mosquitto reloaded): a probe comes back."""
        probe = f"probe {time.monotonic()}".encode()
        self.publish(PROBE, probe)
        time.sleep(0.1)
        return probe in self.seen.get(PROBE, [])

    def publish(self, where: str, data: bytes, retain: bool = False) -> bool:
        info = self.client.publish(where, data, qos=1, retain=retain)
        info.wait_for_publish(5)
        return info.is_published()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_the_hub_invites_two_tables_which_play_and_survive_the_hub_killed(
        tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="homeworlds.remote")
    game = read_sdg_file(GAME)
    keys = tmp_path / "keys"
    _homeworlds("hub-keys", "--store", str(tmp_path / "hub.sqlite"), "--event", EVENT,
                "--dir", str(keys), "issue", "t1", "t2")
    (tmp_path / "broker").mkdir()

    def insider_lines() -> None:
        # The old set-up's shared account, as an insider holds it (kept when the hub
        # writes the files again: added after every rewrite).
        with open(keys / "broker.passwd", "a") as f:
            f.write(password_line(INSIDER, INSIDER_PASSWORD) + "\n")
        with open(keys / "broker.acl", "a") as f:
            f.write(f"\nuser {INSIDER}\ntopic readwrite homeworlds/{EVENT}/tables/#\n")

    insider_lines()
    broker = Broker(tmp_path / "broker", password_file=keys / "broker.passwd",
                    acl_file=keys / "broker.acl")
    broker.start()
    hub = HubProcess(tmp_path, broker, keys)
    hub.args += ["--keys-dir", str(keys), "--reload-broker",
                 f"kill -HUP {broker.process.pid}"]
    first = game.turns[0].seat
    t1 = HubTable(tmp_path / "t1", "t1", EVENT, broker.url, keys, first)
    t2 = HubTable(tmp_path / "t2", "t2", EVENT, broker.url, keys, first)
    tables = (t1, t2)
    insider = None
    try:
        hub.start()
        deadline = time.monotonic() + 90  # a loaded machine starts a process slowly
        while not hub_serves(hub):
            assert hub.process.poll() is None and time.monotonic() < deadline, \
                "the hub did not start: " + hub.log_path.read_text(errors="replace")[-2000:]
            time.sleep(0.1)
        started = time.monotonic()
        arrange(hub, game.players)
        arranged_s = time.monotonic() - started
        # The hub wrote the ACL with the game's topics and had mosquitto reload it.
        assert "the broker reloaded it (kill -HUP" in hub.log_path.read_text()
        acl = (keys / "broker.acl").read_text()
        [row] = hub_remote(hub)
        gid = row["game"]
        assert f"topic write homeworlds/remote/{gid}/host" in acl
        insider_lines()  # the test's insider keeps its account (the hub rewrote the files)
        broker.process.send_signal(signal.SIGHUP)
        wait(lambda: t1.desk.pending is not None and t2.desk.pending is not None,
             "both tables show the invitation", tables)
        shown_s = time.monotonic() - started
        assert t1.desk.pending.game == t2.desk.pending.game == gid
        assert row["status"] == "invited: waiting for table t1 and t2 to accept"
        accepted = time.monotonic()
        for table in tables:
            table.type("accept")
        wait(lambda: t1.running.restart.is_set() and t2.running.restart.is_set(),
             "both players accept", tables)
        for table in tables:
            assert (table.directory / "remote-game.json").stat().st_mode & 0o777 == 0o600
            table.rebuild()
        by_seat = {0: t1, 1: t2}
        wait(lambda: t1.game.paused is None and t2.game.paused is None,
             "the two tables meet", tables)
        met_s = time.monotonic() - accepted
        assert tuple(t1.session.tracker.players) == tuple(game.players)
        print(f"\nhub invitation: admin POST answered in {arranged_s * 1000:.0f} ms (ACL "
              f"written, both invitations acknowledged by the broker); both tables show it "
              f"{shown_s * 1000:.0f} ms after the POST (with the broker's ACL reload); "
              f"`accept` typed -> both tables rebuilt into the game and met: "
              f"{met_s * 1000:.0f} ms")

        def play(start: int, end: int) -> None:
            for index in range(start, end):
                turn = game.turns[index]
                mover, follower = by_seat[turn.seat], by_seat[1 - turn.seat]
                reference = reference_before(game, index)
                play_own(mover, turn.actions, game.turns[index + 1].seat, reference,
                         slots_by_content(mover.session, reference), tables)
                follow(follower, tables)
                wait(lambda n=index + 1: len(t1.stored()) == len(t2.stored()) == n,
                     f"both stores hold {index + 1} turns", tables)

        play(0, 3)
        wait(lambda: [s["turns"] for s in (hub_remote(hub) or [{"sides": []}])[0]["sides"]]
             == [3, 3] and hub_remote(hub)[0]["status"] == "playing: 3 turns",
             "the hub shows the game at 3 turns", tables)

        # An insider forges invitations for t1; t1 refuses each with the reason.
        insider = Insider(broker, INSIDER, INSIDER_PASSWORD)
        t1_topic, t2_topic = invite_topic(EVENT, "t1"), invite_topic(EVENT, "t2")
        wait(lambda: t1_topic in insider.seen and t2_topic in insider.seen,
             "the insider reads the retained invitations", tables)
        genuine_t1, genuine_t2 = insider.seen[t1_topic][0], insider.seen[t2_topic][0]
        arrange(hub, ("Cy", "Di"))  # a newer invitation: t1 takes it (cannot accept now)
        insider_lines()
        broker.process.send_signal(signal.SIGHUP)
        # mosquitto reloads its files in its own time: the insider writes once it did.
        wait(insider.writes, "the insider's account is back", tables)
        wait(lambda: t1.desk.pending is not None and t1.desk.pending.players == ("Cy", "Di"),
             "t1 shows the newer invitation", tables)
        assert "cannot accept the invitation now: this table plays remote game" in \
            t1.desk.command("accept")
        t2_key = TableKey.from_text((keys / "t2.key").read_text())
        payload = open_signed(genuine_t1).verify(
            TableKey.from_text((keys / "t1.key").read_text()), t1_topic)
        forged = Signer(t2_key, lambda n: 1_000_000).sign(t1_topic, payload)
        before = t1.desk.refused_count
        for data in (forged, genuine_t2, genuine_t1):
            assert insider.publish(t1_topic, data)
        wait(lambda: t1.desk.refused_count == before + 3, "t1 refuses the three", tables)
        reasons = [reason for _, reason in list(t1.desk.refusals)[-3:]]
        assert "t2" in reasons[0] and "t2" in reasons[1]  # another table's key
        assert reasons[2].startswith("replayed: sequence number")
        logged = [r.getMessage() for r in caplog.records
                  if f"table t1: refused an invitation on {t1_topic}" in r.getMessage()]
        assert len(logged) >= 3
        # t1's own account cannot write t2's side of the game (the ACL): nothing arrives.
        stolen = make_client(parse_broker_url(broker.url), "t1-writes-guest", username="t1",
                             password=(keys / "t1.pw").read_text().strip())
        stolen.connect("127.0.0.1", broker.port)
        stolen.loop_start()
        refused_here = t1.game.refused_count
        stolen.publish(topic(gid, "guest"), b"HWS1 forged 1 " + b"0" * 64 + b"\n{}",
                       qos=1).wait_for_publish(5)
        time.sleep(0.5)
        stolen.disconnect()
        stolen.loop_stop()
        assert t1.game.refused_count == refused_here  # dropped by the broker, never read

        # The hub killed mid-game: the tables play on; restarted, it shows the game again.
        hub.kill9()
        play(3, 6)
        restarted = time.monotonic()
        hub.start()
        wait(lambda: (rows := hub_remote(hub)) and rows[0]["game"] == gid and
             [s["turns"] for s in rows[0]["sides"]] == [6, 6] and
             [s["state"] for s in rows[0]["sides"]] == ["online", "online"],
             "the restarted hub shows the game at 6 turns", tables, timeout=90)
        print(f"hub killed (SIGKILL) after 3 turns, 3 more played without it; started "
              f"again it shows both tables online at 6 turns after "
              f"{time.monotonic() - restarted:.1f} s (process start included)")
        page = hub_get(hub, "/")
        assert "Remote games" in page and f'data-remote="{gid}"' in page
        assert "Table <a href=\"/tables/t1/live\">t1</a> (host" in page
        # `play` restarted at t2: the game file names the store's game: resumed.
        t2.stop()
        t2.start()
        wait(lambda: t1.game.paused is None and t2.game.paused is None,
             "t2 resumes the game", tables)
        assert len(t2.session.tracker.record) == 6
        play(6, 8)
        assert t1.stored() == t2.stored() and len(t1.stored()) == 8
        assert list(t1.game.refusals) == list(t2.game.refusals) == []
    finally:
        if insider is not None:
            insider.close()
        for table in tables:
            table.close()
        hub.stop()
        broker.kill()


def test_play_starts_the_accepted_game_and_a_restart_resumes_it_from_the_game_file(
        tmp_path, broker, capsys):
    """``serve`` (what ``homeworlds play`` runs): the invitation accepted on the terminal
    builds the table again into the remote game; stopped and started again, ``play``
    finds ``remote-game.json`` and plays that game at once, no code typed."""
    import threading

    from homeworlds.event.identity import HubIdentities
    from homeworlds.remote.hub_games import HubRemoteGames
    from homeworlds.runtime.config import load_config
    from homeworlds.runtime.table import serve
    from tests.event.tables import issue

    keys = tmp_path / "keys"
    keys.mkdir()
    for name in ("t1", "t2"):
        issue(tmp_path / "hub.sqlite", name, keys)
        (keys / f"{name}.pw").write_text("anonymous broker: unused\n")
    hub_store = GameStore.open(tmp_path / "hub.sqlite")
    remote = HubRemoteGames(hub_store, EVENT, HubIdentities(hub_store))
    arranged = remote.arrange("t1", "t2", ["Ann", "Bob"], "sdg")
    hub = make_client(parse_broker_url(broker.url), "hub-invites")
    hub.connect("127.0.0.1", broker.port)
    hub.loop_start()
    for where, data in remote.invitations(arranged.game_id):
        hub.publish(where, data, qos=1, retain=True).wait_for_publish(5)
    hub.disconnect()
    hub.loop_stop()
    hub_store.close()
    t1 = HubTable(tmp_path / "t1", "t1", EVENT, broker.url, keys, 0, build=False)
    t2 = HubTable(tmp_path / "t2", "t2", EVENT, broker.url, keys, 0)
    tables = (t2,)
    config = load_config(t1.directory / "table.toml")
    stop = threading.Event()

    def play():
        thread = threading.Thread(target=serve, args=(config, None,
                                                      t1.directory / "game-record.raw", stop),
                                  kwargs={"store_path": t1.directory / "games.sqlite",
                                          "commands": t1.commands}, daemon=True)
        thread.start()
        return thread

    try:
        thread = play()
        wait(lambda: t2.desk.pending is not None, "t2 shows the invitation", tables)
        t2.type("accept")
        wait(lambda: t2.running.restart.is_set(), "t2 accepts", tables)
        t2.rebuild()

        def accept_at_t1() -> bool:
            t1.type("accept")  # typed until the invitation arrived and was taken
            time.sleep(0.2)
            return (t1.directory / "remote-game.json").exists()
        wait(accept_at_t1, "t1 shows the invitation and its player accepts", tables)
        wait(lambda: t2.game.paused is None, "t1's play starts the game and meets t2",
             tables)
        stop.set()
        thread.join(15)
        assert not thread.is_alive()
        out = capsys.readouterr().out
        assert f"accepted remote game {arranged.game_id}: Ann (seat 0, here) v Bob" in out
        assert "homeworlds play: starting the remote game accepted from the hub" in out
        wait(lambda: t2.game.paused is not None, "t2 sees t1 leave", tables)
        stop.clear()
        thread = play()  # `homeworlds play` again: the game file names the game
        wait(lambda: t2.game.paused is None, "the restarted play meets t2 again", tables)
        out = capsys.readouterr().out
        line = next(li for li in out.splitlines()
                    if li.startswith(f"remote game {arranged.game_id}: this table plays"))
        assert "Ann (seat 0" in line and "host" in line, line
        assert "type `accept`" not in out  # the retained invitation is the game it plays
        stop.set()
        thread.join(15)
    finally:
        stop.set()
        t1.close()
        t2.close()


def test_a_rematch_between_the_same_players_begins_a_new_game(tmp_path, broker):
    """An accepted invitation is a new game, even when the table's last game was a
    finished one between the same players; its store game is then noted in the file."""
    from homeworlds.event.identity import write_private
    from homeworlds.event.simtable import legal_record
    from homeworlds.remote.hub_invite import HubInvitation, store_game
    from homeworlds.remote.invitation import Invitation
    from homeworlds.rules import GameState, preset
    from homeworlds.store import GameRecorder
    from tests.event.tables import issue

    keys = tmp_path / "keys"
    keys.mkdir()
    issue(tmp_path / "hub.sqlite", "t1", keys)
    (keys / "t1.pw").write_text("anonymous broker: unused\n")
    t1 = HubTable(tmp_path / "t1", "t1", EVENT, broker.url, keys, 0, build=False)
    try:
        names, rules_name, record = legal_record(GAME, 4)
        recorder = GameRecorder(t1.directory / "games.sqlite", table="t1",
                                layout="standard-2p")
        recorder.open()
        state = GameState(preset(rules_name), 2, first_to_move=record[0][0])
        recorder.start_game(preset(rules_name), names, record[0][0])
        for number, (seat, turn) in enumerate(record, 1):
            state.push(turn)
            recorder.turn(number, seat, turn, state, names, {})
        recorder.finish("resigned", [1 - state.to_move], state.to_move, len(record))
        assert recorder.flush()
        finished = recorder.uid
        recorder.close()
        invitation = Invitation.new()
        path = t1.directory / "remote-game.json"
        write_private(path, HubInvitation(
            EVENT, "t1", invitation.game_id, "host", tuple(names), "sdg", "t1", "t2",
            invitation).game_file_text())
        t1.start()
        assert t1.session.tracker.record == [] and not t1.session.tracker.state.is_over
        assert store_game(path) == t1.running.recorder.uid != finished
    finally:
        t1.close()
