"""The table feed: its JSON, the producer on a simulated table over a pty, the fan-out."""

from __future__ import annotations

import asyncio
import json

import pytest

from homeworlds.feed import (
    FeedError,
    FeedHub,
    FeedProducer,
    ResultEvent,
    SnapshotEvent,
    TurnEvent,
    encode,
    event_from_json,
)
from homeworlds.notation import parse_sdg_action, read_cooked, read_sdg_file
from homeworlds.replay import rules_for_game
from homeworlds.rules import GameState, preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import Stage
from homeworlds.store.records import cooked_position, position_to_json
from tests.shared import DATA

PLAYERS = ("Ann", "Bob")
OPENING = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann", "Build G1 Bob",
           "Trade G1 Y1 Ann"]


def _turn(text: str, seat: int):
    return tuple(parse_sdg_action(a.strip(), player=PLAYERS[seat]) for a in text.split(";"))


def _play(sim, text: str, seat: int) -> None:
    sim.driver.begin_turn()
    for action in _turn(text, seat):
        sim.driver.act(action)
        sim.settle()
    sim.driver.end_turn(hand_over=False)
    sim.settle()
    assert sim.hand_over_and_wait(1 - seat), sim.session.status.message


@pytest.fixture
def fed_game():
    sim = SimulatedTableGame(preset("sdg"), PLAYERS, miss_rate=0.0)
    events: list = []
    producer = FeedProducer(sim.session, table="club-1", rules_name="sdg",
                            sinks=[events.append])
    sim.session.events.committed.listen(Stage.FEED, producer.committed)
    sim.session.events.tick.listen(Stage.FEED, producer.tick)
    with sim:
        yield sim, producer, events


def test_the_producer_sends_a_turn_event_per_commit_and_snapshots_that_match_the_engine(
        fed_game):
    sim, producer, events = fed_game
    reference = GameState(preset("sdg"), 2)
    before = ""
    for k, text in enumerate(OPENING):
        reference.apply_turn(_turn(text, k % 2))
        _play(sim, text, k % 2)
        sim.session.tick()
        turns = [e for e in events if isinstance(e, TurnEvent)]
        assert len(turns) == k + 1
        assert turns[-1].number == k + 1 and turns[-1].seat == k % 2
        assert turns[-1].sdg == text
        assert turns[-1].position == cooked_position(position_to_json(reference))
        latest = [e for e in events if isinstance(e, SnapshotEvent)][-1]
        assert latest.position == cooked_position(position_to_json(reference))
        assert latest.turn_log == tuple(OPENING[:k + 1])
        assert latest.game.to_move == reference.to_move
        assert latest.game.turn_number == k + 2
        assert latest.bank["g1"] == reference.bank[6]
        # Who played each turn, and the last turn with the position before it.
        assert latest.turn_seats == tuple(j % 2 for j in range(k + 1))
        assert latest.last_turn == {"number": k + 1, "seat": k % 2, "sdg": text,
                                    "before": before}
        before = latest.position
    # The position text is the cooked notation: it reads back to the engine's systems.
    systems = read_cooked(latest.position).systems
    assert {s.name for s in systems} == {s.name for s in reference.systems}
    assert [e.seq for e in events] == sorted({e.seq for e in events})  # increasing, unique
    assert len({e.game_uid for e in events if isinstance(e, TurnEvent)}) == 1


def test_no_snapshot_while_nothing_changes(fed_game):
    sim, producer, events = fed_game
    _play(sim, OPENING[0], 0)
    count = len(events)
    for _ in range(20):
        sim.session.tick()
    assert len(events) == count


def _lift_anns_g3(sim) -> tuple[str, int]:
    """Ann lifts her g3 from her home; the host sees it. Returns its tag and zone."""
    home_slot = sim.session.tracker.slot_of_system(sim.session.observation)["Ann"]
    zone = sim.layout.slots[home_slot].ship_zone(0)
    uid = next(u for u in sim.table.tags_on(zone)
               if sim.registry.lookup(u).piece.to_text() == "g3")
    sim.table.lift(uid)
    sim.settle()
    return uid, zone


def test_a_lifted_ship_shows_its_legal_destinations(fed_game):
    sim, producer, events = fed_game
    for k, text in enumerate(OPENING[:4]):
        _play(sim, text, k % 2)
    # Ann lifts her g3 from her home (yellow star there: she may move to what is connected)
    table = sim.table
    uid, zone = _lift_anns_g3(sim)
    sim.session.tick()
    snap = producer.latest
    assert snap.hints.lifted == {"seat": 0, "piece": "g3", "from": "Ann"}
    # Bob's home (r1 y2) shares no size with Ann's (y1 b2): it is not connected; a new
    # system of size 3 (g3 bank) is.
    assert "Bob" not in snap.hints.legal_destinations
    assert snap.hints.may_discover
    table.place(uid, zone)
    sim.settle()
    sim.session.tick()
    assert producer.latest.hints.lifted is None


def test_the_result_event_is_sent_once_when_the_game_ends(fed_game):
    sim, producer, events = fed_game
    for k, text in enumerate(OPENING[:2]):
        _play(sim, text, k % 2)
    sim.session.tracker.end_game("resigned", 1)
    sim.session.status = sim.session.tracker.status
    sim.session.tick()
    sim.session.tick()
    results = [e for e in events if isinstance(e, ResultEvent)]
    assert len(results) == 1
    assert results[0].winners == (0,) and results[0].kind == "resigned"
    assert producer.latest.game.result.text == "Ann wins (resignation)"


def test_the_result_follows_the_final_turn_of_a_game_won_on_the_board():
    """SDG game 3426 ends with a catastrophe in Danner's home: the feed sends that turn,
    then the result, never the other way round (a display showing "jeep wins" must
    already have the turn that won)."""
    game = read_sdg_file(DATA / "games" / "sdg" / "3426.raw")
    rules = rules_for_game(game, None)
    first = game.turns[0].seat
    sim = SimulatedTableGame(rules, game.players, first_seat=first, miss_rate=0.0)
    events: list = []
    producer = FeedProducer(sim.session, table="club-1", rules_name=rules.name,
                            sinks=[events.append])
    sim.session.events.committed.listen(Stage.FEED, producer.committed)
    sim.session.events.tick.listen(Stage.FEED, producer.tick)
    reference = GameState(rules, 2, first_to_move=first)
    with sim:
        for turn in game.turns:
            reference.apply_turn(turn.actions)
            sim.driver.begin_turn()
            for action in turn.actions:
                sim.driver.act(action)
                sim.settle()
            sim.driver.end_turn(hand_over=False)
            sim.settle()
            following = reference.to_move if not reference.is_over else 1 - turn.seat
            assert sim.hand_over_and_wait(following), sim.session.status.message
        sim.session.tick()
    assert reference.is_over and sim.session.tracker.is_over
    turns = [e for e in events if isinstance(e, TurnEvent)]
    results = [e for e in events if isinstance(e, ResultEvent)]
    assert [t.number for t in turns] == list(range(1, len(game.turns) + 1))
    assert len(results) == 1
    result = results[0]
    assert result.after_turn == turns[-1].number == len(game.turns)
    assert events.index(turns[-1]) < events.index(result)
    assert turns[-1].seq < result.seq
    assert result.winners == (0,) and producer.latest.game.result.text == "jeep wins"


def test_every_event_survives_json_and_back(fed_game):
    sim, producer, events = fed_game
    for k, text in enumerate(OPENING[:3]):
        _play(sim, text, k % 2)
    sim.session.tracker.end_game("agreed-draw")
    sim.session.tick()
    kinds = set()
    for event in events:
        text = encode(event)
        again = event_from_json(text)
        assert again == event_from_json(json.loads(text))
        assert again.to_json() == event.to_json()
        kinds.add(event.type)
    assert kinds == {"snapshot", "turn", "result"}
    assert any(e.type == "snapshot" and e.last_turn for e in events)


def test_a_snapshot_with_a_malformed_last_turn_is_refused(fed_game):
    sim, producer, events = fed_game
    data = producer.snapshot().to_json()
    data["last_turn"] = {"number": 1, "seat": 99, "sdg": "", "before": ""}
    with pytest.raises(FeedError, match="snapshot.last_turn.seat"):
        event_from_json(data)
    data["last_turn"] = {"number": 1, "seat": 0, "sdg": 5, "before": ""}
    with pytest.raises(FeedError, match="snapshot.last_turn.sdg"):
        event_from_json(data)


@pytest.mark.parametrize("data, names", [
    ("{", "not JSON"),
    ([], "a JSON object"),
    ({"type": "move"}, "unknown event type 'move'"),
    ({"type": "turn", "table": "t", "seq": 1, "game_uid": "u", "number": "two", "seat": 0,
      "sdg": "", "position": "", "committed": "", "elapsed_ms": None}, "turn.number"),
    ({"type": "result", "table": "t", "seq": 1, "game_uid": "u", "kind": "won",
      "winners": ["Ann"], "text": "", "after_turn": 3}, "result.winners"),
])
def test_a_malformed_event_is_refused_naming_the_field(data, names):
    with pytest.raises(FeedError, match=names):
        event_from_json(data)


def test_a_snapshot_with_a_negative_bank_count_is_refused(fed_game):
    sim, producer, events = fed_game
    data = producer.snapshot().to_json()
    data["bank"]["r1"] = -1
    with pytest.raises(FeedError, match="snapshot.bank.r1"):
        event_from_json(data)


# ---------------------------------------------------------------------- the hub


def _snapshot(seq: int) -> SnapshotEvent:
    from homeworlds.feed import GameInfo, Hints

    return SnapshotEvent("t", seq, 0.0, GameInfo(None, "sdg", PLAYERS, 0, 0, 1, None, True),
                    "", {}, (), Hints(), True)


def _run(scenario):
    """asyncio.run on a thread of its own: Playwright's sync API (the browser tests of the
    same session) keeps an event loop running on the main thread."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(scenario())).result(30)


def test_a_slow_subscriber_is_resynced_with_the_latest_snapshot_and_others_lose_nothing():
    async def scenario():
        hub = FeedHub()
        hub.attach(asyncio.get_running_loop())
        slow = hub.subscribe(limit=4)
        fast = hub.subscribe(limit=100)
        for seq in range(1, 11):
            hub.publish(_snapshot(seq))
        got_fast = [fast.queue.get_nowait().seq for _ in range(fast.queue.qsize())]
        got_slow = [slow.queue.get_nowait().seq for _ in range(slow.queue.qsize())]
        return got_fast, got_slow, slow.resynced

    got_fast, got_slow, resynced = _run(scenario)
    assert got_fast == list(range(1, 11))
    assert resynced >= 1
    assert got_slow[-1] == 10  # whatever it lost, it ends on the table's latest state
    assert got_slow == sorted(got_slow)


def test_events_from_another_thread_reach_subscribers_and_a_new_one_starts_with_a_snapshot():
    import threading

    async def scenario():
        hub = FeedHub()
        hub.attach(asyncio.get_running_loop())
        sub = hub.subscribe()
        thread = threading.Thread(target=lambda: [hub.publish_threadsafe(_snapshot(k))
                                                  for k in (1, 2, 3)])
        thread.start()
        got = [(await asyncio.wait_for(sub.get(), 5)).seq for _ in range(3)]
        thread.join()
        late = hub.subscribe()
        first = await asyncio.wait_for(late.get(), 5)
        sub.close()
        return got, first.seq, hub.subscribers

    got, first, left = _run(scenario)
    assert got == [1, 2, 3]
    assert first == 3
    assert left == 1


def test_publishing_without_a_loop_keeps_the_latest_snapshot_and_never_blocks():
    hub = FeedHub()
    hub.publish_threadsafe(_snapshot(7))
    assert hub.latest.seq == 7


def test_the_hint_view_is_built_once_per_tick_and_shows_what_the_tick_changed():
    """The LEDs and the feed show one hint view per tick, built after the admin's commands
    of that tick ran: a hint level lowered from the admin page hides the lifted ship's
    hints on the LEDs and in the feed in the same tick."""
    from homeworlds.pixels import MemorySink, PixelOutput
    from homeworlds.session import AdminCommand
    from homeworlds.web.live import attach_feed

    sim = SimulatedTableGame(preset("sdg"), PLAYERS, miss_rate=0.0)
    sim.session.lights.output = PixelOutput(MemorySink(sim.layout.pixel_count), max_fps=None)
    _, producer, _, commands = attach_feed(sim.session, table="club-1", rules_name="sdg")
    lights = sim.session.lights
    built = []

    def hint_view(*args, **kwargs):
        built.append(type(lights).hint_view(lights, *args, **kwargs))
        return built[-1]

    shown = []
    renderer_render = lights.renderer.render
    lights.hint_view = hint_view
    lights.renderer.render = lambda view, now: shown.append(view) or renderer_render(view, now)
    with sim:
        for k, text in enumerate(OPENING[:4]):
            _play(sim, text, k % 2)
        _lift_anns_g3(sim)
        built.clear()
        shown.clear()
        sim.session.tick()
        assert len(built) == 1 and shown == built  # the LEDs' view is the feed's
        assert producer.latest.hints.lifted == {"seat": 0, "piece": "g3", "from": "Ann"}
        done = commands.submit(AdminCommand("settings", hint_level="warnings"))
        built.clear()
        shown.clear()
        sim.session.tick()
        assert done.result(0) == "settings: hint level warnings"
        assert len(built) == 1 and shown == built
        assert built[0].lifted is None  # the LEDs show no move hints from this tick on
        assert producer.latest.hints.lifted is None  # nor does the feed


def test_a_table_of_three_seats_has_no_cooked_position_rather_than_a_wrong_one():
    """The cooked format seats two: the snapshot's position is empty, not the position
    without Carol's home and ships (which the feed sent before)."""
    from homeworlds.session import new_session
    from homeworlds.sim import make_registry
    from homeworlds.store.records import turn_from_sdg
    from homeworlds.table.layout import builtin_layout

    players = ("Alice", "Bob", "Carol")
    layout = builtin_layout("four-seat")
    session = new_session(layout, make_registry(layout, 3), preset("last-standing"), players)
    session.tracker.resume([(k % 3, turn_from_sdg(text, k % 3, players)) for k, text in enumerate(
        ["Homeworld Y1 G2 R3", "Homeworld G3 B3 G1", "Homeworld Y3 B3 B1", "Build R1 Alice",
         "Pass", "Pass", "Move R3 Alice Carol"])])
    snapshot = FeedProducer(session, table="t", rules_name="last-standing").snapshot()
    assert snapshot.position == ""
    assert event_from_json(snapshot.to_json()).position == ""
