"""The hub's invitations to remote games, without a broker: the hub arranges a game
between two keyed tables, seals and signs each table's invitation; a table's desk takes
the genuine one and refuses, with the reason, one signed with another key, a replay, one
for another table, an altered one; the hub follows only what a side of its game signed;
the ACL gives each table exactly its side's topics."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from homeworlds.event.identity import HubIdentities, acl_text
from homeworlds.identity import Signer, open_signed
from homeworlds.remote.hub_games import ArrangeError, HubRemoteGames
from homeworlds.remote.hub_invite import (
    InvitationDesk,
    InvitationRefused,
    invite_topic,
    read_game_file,
    read_invitation,
)
from homeworlds.remote.invitation import Invitation
from homeworlds.remote.messages import Hello, Offline, Refusal, TurnMessage, to_payload, topic
from homeworlds.store import GameStore
from tests.event.tables import issue


@pytest.fixture
def hub(tmp_path):
    path = tmp_path / "hub.sqlite"
    keys = {t: issue(path, t) for t in ("t1", "t2", "t3")}
    store = GameStore.open(path)
    identities = HubIdentities(store)
    yield HubRemoteGames(store, "club", identities), keys, store
    store.close()


def desk_for(tmp_path, key, table="t1", seen=0):
    said: list[str] = []
    recorded: list[int] = []
    desk = InvitationDesk(key, "club", table, tmp_path / f"{table}-game.json", seen=seen,
                          record_seen=recorded.append, can_start=lambda: None,
                          say=said.append)
    return desk, said, recorded


def test_a_table_takes_the_hubs_invitation_and_keeps_its_code(tmp_path, hub):
    remote, keys, _ = hub
    game = remote.arrange("t1", "t2", ["Ann", "Bob"], "sdg")
    sent = dict(remote.invitations(game.game_id))
    assert set(sent) == {invite_topic("club", "t1"), invite_topic("club", "t2")}
    # The code never travels in clear: only sealed.
    code = Invitation(bytes.fromhex(game.secret)).code
    for data in sent.values():
        assert code.encode() not in data and game.secret.encode() not in data
    desk, said, recorded = desk_for(tmp_path, keys["t1"])
    desk.offer(invite_topic("club", "t1"), sent[invite_topic("club", "t1")])
    desk.poll()
    assert desk.pending is not None and desk.pending.role == "host"
    assert said[-1].startswith(f"invitation from the hub: remote game {game.game_id}: Ann "
                               "(seat 0, here) v Bob (at table t2), rules sdg")
    assert recorded  # the number is kept before the invitation is shown
    assert desk.command("accept").startswith("accepted remote game")
    kept = read_game_file(tmp_path / "t1-game.json")
    assert kept.invitation.code == code and kept.role == "host"
    assert (tmp_path / "t1-game.json").stat().st_mode & 0o777 == 0o600
    # The same (retained) invitation again: nothing new to accept.
    desk.offer(invite_topic("club", "t1"), sent[invite_topic("club", "t1")])
    desk.poll()
    assert desk.pending is None and desk.refused_count == 0
    # The guest's side opens the same code.
    guest, _, _ = desk_for(tmp_path, keys["t2"], "t2")
    guest.offer(invite_topic("club", "t2"), sent[invite_topic("club", "t2")])
    guest.poll()
    assert guest.pending is not None and guest.pending.invitation.code == code
    assert guest.pending.role == "guest"
    assert guest.command("decline-invitation").startswith(f"declined remote game {game.game_id}")
    assert guest.pending is None
    assert guest.command("decline") == "no invitation from the hub is waiting"
    assert guest.command("resign Ann") is None  # not the desk's


def test_forged_replayed_and_misdirected_invitations_are_refused_with_the_reason(
        tmp_path, hub, caplog):
    remote, keys, _ = hub
    first = remote.arrange("t1", "t2", ["Ann", "Bob"], "sdg")
    old = dict(remote.invitations(first.game_id))[invite_topic("club", "t1")]
    second = remote.arrange("t1", "t3", ["Ann", "Cy"], "sdg")
    new = dict(remote.invitations(second.game_id))[invite_topic("club", "t1")]
    desk, said, _ = desk_for(tmp_path, keys["t1"])
    where = invite_topic("club", "t1")
    desk.offer(where, new)
    desk.poll()
    assert desk.pending is not None and desk.pending.game == second.game_id

    t2_for_t2 = dict(remote.invitations(first.game_id))[invite_topic("club", "t2")]
    payload = open_signed(new).verify(keys["t1"], where)
    altered = json.loads(payload)
    altered["players"] = ["Mallory", "Bob"]
    forged_key = Signer(keys["t2"], lambda n: 10_000).sign(where, payload)
    guessed = Signer(type(keys["t1"])("t1", keys["t1"].key_id, b"x" * 32),
                     lambda n: 10_000).sign(where, payload)
    for_t2 = json.loads(payload)
    for_t2["table"] = "t2"
    cases = {
        "unsigned": payload,
        "another table's key": forged_key,
        "a guessed secret under t1's key id": guessed,
        "moved from t2's topic": t2_for_t2,
        "a replay of an older invitation": old,
        "altered after signing": new.replace(payload, json.dumps(altered).encode()),
        "for another table": Signer(keys["t1"], lambda n: 20_000).sign(
            where, json.dumps(for_t2).encode()),
    }
    reasons = {}
    for what, data in cases.items():
        before = desk.refused_count
        desk.offer(where, data)
        desk.poll()
        assert desk.refused_count == before + 1, what
        reasons[what] = desk.refusals[-1][1]
    assert reasons["unsigned"] == "not signed (no HWS1 header)"
    assert "t2" in reasons["another table's key"]
    assert "MAC does not match" in reasons["a guessed secret under t1's key id"]
    assert reasons["a replay of an older invitation"].startswith("replayed: sequence number")
    assert "MAC does not match" in reasons["altered after signing"]
    assert reasons["for another table"] == "the invitation is for table t2, this is table t1"
    assert "MAC does not match" in reasons["moved from t2's topic"] or \
        "t2" in reasons["moved from t2's topic"]
    # Every refusal is logged with the topic and the reason; the genuine one still waits.
    logged = [r.getMessage() for r in caplog.records if "refused an invitation" in r.getMessage()]
    assert len(logged) == len(cases) and all(where in line for line in logged)
    assert desk.pending is not None and desk.pending.game == second.game_id
    assert desk.pending.players == ("Ann", "Cy")


def test_a_replay_stays_refused_after_the_table_restarts(tmp_path, hub):
    remote, keys, _ = hub
    old = dict(remote.invitations(remote.arrange("t1", "t2", ["A", "B"], "sdg").game_id))
    new = dict(remote.invitations(remote.arrange("t1", "t2", ["C", "D"], "sdg").game_id))
    where = invite_topic("club", "t1")
    desk, _, recorded = desk_for(tmp_path, keys["t1"])
    desk.offer(where, new[where])
    desk.poll()
    restarted, _, _ = desk_for(tmp_path, keys["t1"], seen=recorded[-1])
    restarted.offer(where, old[where])
    restarted.offer(where, new[where])  # the retained invitation again: taken
    restarted.poll()
    assert restarted.refused_count == 1 and "replayed" in restarted.refusals[0][1]
    assert restarted.pending is not None and restarted.pending.players == ("C", "D")


def test_the_hub_refuses_to_arrange_what_cannot_be_played(hub):
    remote, _, _ = hub
    for args, reason in [
        (("t1", "t1", ["A", "B"], "sdg"), "both sides are table t1"),
        (("t1", "t9", ["A", "B"], "sdg"), "table t9 has no valid key"),
        (("t1", "t2", ["A", "A"], "sdg"), "two different players"),
        (("t1", "t2", ["A", "B"], "chess"), "rules 'chess'"),
        (("t1", "../x", ["A", "B"], "sdg"), "name one of the event's tables"),
    ]:
        with pytest.raises(ArrangeError, match=reason.replace("(", r"\(")):
            remote.arrange(*args)
    assert remote.overview() == []


def test_the_hub_follows_only_what_a_side_of_its_game_signed(hub):
    remote, _, store = hub
    game = remote.arrange("t1", "t2", ["Ann", "Bob"], "sdg")
    invitation = Invitation(bytes.fromhex(game.secret))
    gid = game.game_id
    host = Signer(invitation.key("host"), lambda n: 1)
    guest = Signer(invitation.key("guest"), lambda n: 1)
    assert remote.overview()[0]["status"] == "invited: waiting for table t1 and t2 to accept"
    assert remote.unjoined() == [gid]
    will = host.sign(topic(gid, "host"), to_payload(Offline(gid)))
    remote.handle(topic(gid, "host"), host.sign(topic(gid, "host"), to_payload(
        Hello(gid, 0, ("Ann", "Bob"), "sdg", 0))))
    remote.handle(topic(gid, "guest"), guest.sign(topic(gid, "guest"), to_payload(
        Hello(gid, 1, ("Ann", "Bob"), "sdg", 0))))
    remote.handle(topic(gid, "host"), host.sign(topic(gid, "host"), to_payload(
        TurnMessage(gid, 1, 0, "Homeworld Y1 G1 R3"))))
    row = remote.overview()[0]
    assert row["status"] == "playing: 1 turns"
    assert [s["state"] for s in row["sides"]] == ["online", "online"]
    # Both joined, kept in the store: a restarted hub does not invite them again.
    assert remote.unjoined() == []
    again = HubRemoteGames(store, "club", remote.identities)
    assert again.unjoined() == []
    assert [s["state"] for s in again.overview()[0]["sides"]] == [
        "joined (no news since the hub started)"] * 2
    # Forged: the guest's key on the host's topic, a turn count of nonsense, another game.
    remote.handle(topic(gid, "host"), guest.sign(topic(gid, "host"), to_payload(
        TurnMessage(gid, 999, 0, "Pass"))))
    remote.handle(topic(gid, "host"), host.sign(topic(gid, "host"),
                                                b'{"type": "hello", "turns": "many"}'))
    remote.handle(topic("f" * 16, "host"), b"anything")
    assert remote.overview()[0]["sides"][0]["turns"] == 1
    assert remote.refused == 3
    remote.handle(topic(gid, "guest"), guest.sign(topic(gid, "guest"), to_payload(
        Refusal(gid, 2, "turn 2 is illegal: <b>no</b>"))))
    row = remote.overview()[0]
    assert row["status"] == "paused: table t2 refused a message of the other table (the " \
        "reason is below)"
    assert row["sides"][1]["refused"] == "turn 2: turn 2 is illegal: <b>no</b>"
    remote.handle(topic(gid, "host"), will)
    assert remote.overview()[0]["status"] == "paused: table t1 is offline"


def test_the_acl_gives_each_table_exactly_its_sides_topics():
    text = acl_text("club", ["t1", "t2", "t3"], remote_games=[("ab" * 8, "t1", "t2")])
    blocks = {b.splitlines()[0]: b.splitlines()[1:] for b in text.split("\n\n")
              if b.startswith("user ")}
    assert "topic write homeworlds/remote/abababababababab/host" in blocks["user t1"]
    assert "topic read homeworlds/remote/abababababababab/guest" in blocks["user t1"]
    assert "topic write homeworlds/remote/abababababababab/guest" in blocks["user t2"]
    assert "topic read homeworlds/remote/abababababababab/host" in blocks["user t2"]
    assert not any("remote" in line for line in blocks["user t3"])
    assert not any("remote/abababababababab/guest" in line and "write" in line
                   for line in blocks["user t1"])
    assert "topic read homeworlds/remote/+/+" in blocks["user hub"]
    assert "topic write homeworlds/club/tables/+/invite" in blocks["user hub"]
    assert "topic read homeworlds/club/tables/t3/invite" in blocks["user t3"]


def test_a_malformed_invitation_names_the_field(hub):
    _, keys, _ = hub
    with pytest.raises(InvitationRefused, match="rules"):
        read_invitation(json.dumps({"type": "invitation", "game": "a" * 16,
                                    "rules": "nope"}).encode(), keys["t1"], "club", "t1")
    with pytest.raises(InvitationRefused, match="not JSON"):
        read_invitation(b"\xff", keys["t1"], "club", "t1")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() |
    st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(fields=st.dictionaries(st.sampled_from(["type", "game", "seat", "players", "rules",
                                               "turns", "number", "sdg", "reason",
                                               "clocks_ms"]), json_values, max_size=8),
       kind=st.sampled_from(["hello", "turn", "refused", "offline", None]),
       role=st.sampled_from(["host", "guest"]))
def test_whatever_a_side_signs_the_hubs_pages_stay_whole(hub, fields, kind, role):
    """A compromised table signs anything with its side's key: the hub's overview and its
    section of the page are built whatever it was, with counts in range and text escaped."""
    from homeworlds.web.hub_remote import remote_section

    remote, _, _ = hub
    if not remote.games:
        remote.arrange("t1", "t2", ["Ann", "Bob"], "sdg")
    gid = next(iter(remote.games))
    data = dict(fields)
    if kind is not None:
        data["type"] = kind
        data.setdefault("game", gid)
    secret = bytes.fromhex(remote.games[gid].game.secret)
    seq = remote.games[gid].sides[role].seq + 1
    signer = Signer(Invitation(secret).key(role), lambda n, s=seq: s)
    payload = json.dumps(data).encode()
    remote.handle(topic(gid, role), signer.sign(topic(gid, role), payload))
    [row] = remote.overview()
    html = remote_section([row])
    for side in row["sides"]:
        turns = side["turns"]
        assert turns is None or isinstance(turns, int) and 0 <= turns <= 10_000
        assert side["refused"] is None or len(side["refused"]) <= 200
    assert "<script" not in html and "<img" not in html


def test_the_hub_holds_a_bounded_number_of_remote_games(hub, monkeypatch):
    import homeworlds.remote.hub_games as hub_games

    remote, _, _ = hub
    monkeypatch.setattr(hub_games, "MAX_GAMES", 3)
    for k in range(3):
        remote.arrange("t1", "t2", [f"A{k}", f"B{k}"], "sdg")
    with pytest.raises(ArrangeError, match="holds 3 remote games already"):
        remote.arrange("t1", "t2", ["A", "B"], "sdg")
    # Messages of games the hub did not arrange are dropped unread, never kept.
    for k in range(500):
        remote.handle(topic(f"{k:016x}", "host"), b"HWS1 x 1 " + b"0" * 64 + b"\n{}")
    assert len(remote.games) == 3 and remote.refused == 500 and remote.problems == []


def test_hub_keys_acl_keeps_the_remote_games_topics(tmp_path, capsys):
    from homeworlds.cli import main

    base = ["hub-keys", "--store", str(tmp_path / "hub.sqlite"), "--event", "club", "--dir",
            str(tmp_path / "keys")]
    assert main(base + ["issue", "t1", "t2", "t3"]) == 0
    capsys.readouterr()
    store = GameStore.open(tmp_path / "hub.sqlite")
    try:
        game = HubRemoteGames(store, "club", HubIdentities(store)).arrange(
            "t2", "t3", ["Ann", "Bob"], "sdg")
    finally:
        store.close()
    assert main(base + ["acl"]) == 0
    printed = capsys.readouterr().out
    acl = (tmp_path / "keys" / "broker.acl").read_text()
    assert printed == acl
    assert "user t2\n" in acl and f"topic write homeworlds/remote/{game.game_id}/host" in acl
    # Issuing another table's key keeps them too (the ACL is written again then).
    assert main(base + ["issue", "t4"]) == 0
    acl = (tmp_path / "keys" / "broker.acl").read_text()
    assert f"topic read homeworlds/remote/{game.game_id}/host" in acl
    assert acl.count(f"homeworlds/remote/{game.game_id}/") == 4


def test_a_hub_store_of_the_first_remote_games_gets_the_joined_column(tmp_path):
    from homeworlds.store.remote_games import StoredRemoteGames

    store = GameStore.open(tmp_path / "hub.sqlite")
    try:
        store._write(lambda c: c.execute(
            "CREATE TABLE remote_games (game_id TEXT PRIMARY KEY, secret TEXT NOT NULL, "
            "host_table TEXT NOT NULL, guest_table TEXT NOT NULL, players TEXT NOT NULL, "
            "rules TEXT NOT NULL, created TEXT NOT NULL, withdrawn TEXT)"))
        store._write(lambda c: c.execute(
            "INSERT INTO remote_games VALUES ('ab', '00', 't1', 't2', '[\"A\", \"B\"]', "
            "'sdg', '2026-12-06', NULL)"))
        games = StoredRemoteGames(store)
        assert [g.joined for g in games.games()] == [frozenset()]
        games.joined("ab", "guest")
        assert [g.joined for g in games.games()] == [frozenset({"guest"})]
    finally:
        store.close()
