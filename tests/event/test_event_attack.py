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
