"""Issue 27 through a real mosquitto: per-table accounts and ACL from ``homeworlds
hub-keys``, signed messages, rogue publishers with and without an account, forged and
replayed turns and results, eight tables, the broker, the hub and a table host killed. The
hub's record equals every table's store turn by turn and no forged message is stored.
`make bench` runs it again and prints the figures (benchmarks/event_attack.py)."""

from __future__ import annotations

from tests.event.attack import run_attack


def test_an_event_under_attack_keeps_only_the_tables_own_record(tmp_path):
    figures = run_attack(tmp_path, tables=8, interval=0.25)
    print("\n".join(figures.lines()))
    assert figures.forged_stored == 0
    assert figures.stored_turns == figures.table_turns > 8 * 16
    assert figures.results == 8  # every game ended by elimination, judged by the replay
    assert figures.connections_refused == 2  # no account, a wrong password
    refused = figures.refused
    # Each kind of forgery reached the hub through the shared account and was refused.
    for kind in ("unsigned", "bad MAC", "replayed", "another table's key"):
        assert refused[kind] > 0, (kind, dict(refused))
    assert sum(figures.tried.values()) > 300 and sum(refused.values()) > 150
    assert figures.requests_ignored > 0


def test_the_generated_acl_lets_each_account_only_where_it_must(tmp_path):
    """``hub-keys issue`` makes each table an account that publishes only under its own
    topic and reads only its requests and the event's settings; the hub's account reads
    every table and writes only requests and settings."""
    import threading
    import time

    from homeworlds.event.mqtt import make_client
    from homeworlds.event.settings import parse_broker_url
    from tests.event.attack import EVENT, _homeworlds
    from tests.event.broker import Broker

    keys = tmp_path / "keys"
    out = _homeworlds("hub-keys", "--store", str(tmp_path / "hub.sqlite"), "--event", EVENT,
                      "--dir", str(keys), "issue", "t1", "t2")
    assert "secret" not in out and (keys / "t1.pw").read_text().strip() not in out
    assert all((keys / n).stat().st_mode & 0o077 == 0
               for n in ("t1.key", "t1.pw", "hub.pw", "broker.passwd", "broker.acl"))
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", password_file=keys / "broker.passwd",
                    acl_file=keys / "broker.acl")
    broker.start()
    received: dict[str, list[str]] = {}
    clients = []
    try:
        def account(user):
            client = make_client(parse_broker_url(broker.url), f"acl-{user}", username=user,
                                 password=(keys / f"{user}.pw").read_text().strip())
            got = received.setdefault(user, [])
            ready = threading.Event()
            client.on_message = lambda c, u, m: got.append(f"{m.topic} {m.payload.decode()}")
            client.on_subscribe = lambda *a, **k: ready.set()
            client.on_connect = lambda c, *a, **k: c.subscribe("homeworlds/#", qos=1)
            client.connect_async("127.0.0.1", broker.port)
            client.loop_start()
            assert ready.wait(10), f"{user} did not subscribe"
            clients.append(client)
            return client

        hub, t1, t2 = account("hub"), account("t1"), account("t2")
        base = f"homeworlds/{EVENT}"
        for client, who in ((t1, "t1"), (t2, "t2"), (hub, "hub")):
            for table in ("t1", "t2"):
                for kind in ("turns", "request"):
                    client.publish(f"{base}/tables/{table}/{kind}", who, qos=1).wait_for_publish(5)
            client.publish(f"{base}/config/clock", who, qos=1).wait_for_publish(5)
        time.sleep(1.0)
        assert sorted(received["hub"]) == sorted([
            f"{base}/tables/t1/turns t1", f"{base}/tables/t2/turns t2",
            f"{base}/config/clock hub"])
        assert sorted(received["t1"]) == [f"{base}/config/clock hub",
                                          f"{base}/tables/t1/request hub"]
        assert sorted(received["t2"]) == [f"{base}/config/clock hub",
                                          f"{base}/tables/t2/request hub"]
    finally:
        for client in clients:
            client.disconnect()
            client.loop_stop()
        broker.kill()
